//! Behaviour policies over a compiled tree: one probability per (infoset, action) slot.

use crate::tree::GameTree;
use darkhex_games::{Action, NUM_PLAYERS, State};
use rand::Rng;

/// Draws an index from the distribution `probs`. When rounding leaves the
/// draw above the total it takes the last positive entry; None when no entry
/// is positive.
pub fn sample_index(probs: impl IntoIterator<Item = f64>, rng: &mut impl Rng) -> Option<usize> {
    let mut x: f64 = rng.random();
    let mut last_positive = None;
    for (i, p) in probs.into_iter().enumerate() {
        if x < p {
            return Some(i);
        }
        x -= p;
        if p > 0.0 {
            last_positive = Some(i);
        }
    }
    last_positive
}

/// Samples an outcome of a chance node.
pub fn sample_chance<S: State>(state: &S, rng: &mut impl Rng) -> Action {
    let outcomes = state.chance_outcomes();
    match sample_index(outcomes.iter().map(|&(_, p)| p), rng) {
        Some(i) => outcomes[i].0,
        None => outcomes.last().map(|&(a, _)| a).unwrap_or_default(),
    }
}

/// A behaviour strategy profile aligned with a [`GameTree`]'s slots.
#[derive(Clone, Debug, PartialEq)]
pub struct TreePolicy {
    pub probs: [Vec<f64>; NUM_PLAYERS],
}

impl TreePolicy {
    pub fn uniform(tree: &GameTree) -> TreePolicy {
        let probs = std::array::from_fn(|p| {
            let table = tree.infosets(p);
            let mut v = vec![0.0; table.num_slots()];
            for i in 0..table.len() {
                let slots = table.slots(i);
                let u = 1.0 / slots.len() as f64;
                v[slots].fill(u);
            }
            v
        });
        TreePolicy { probs }
    }

    pub fn infoset(&self, tree: &GameTree, player: usize, infoset: usize) -> &[f64] {
        &self.probs[player][tree.infosets(player).slots(infoset)]
    }

    /// Whether every infoset holds a probability distribution (to `tol`).
    pub fn is_valid(&self, tree: &GameTree, tol: f64) -> bool {
        (0..NUM_PLAYERS).all(|p| {
            (0..tree.infosets(p).len()).all(|i| {
                let probs = self.infoset(tree, p, i);
                probs.iter().all(|&x| (-tol..=1.0 + tol).contains(&x))
                    && (probs.iter().sum::<f64>() - 1.0).abs() <= tol
            })
        })
    }
}

/// Regret matching: positive regrets normalised, or uniform when none is positive.
pub fn regret_matching(regrets: &[f64], out: &mut [f64]) {
    let positive: f64 = regrets.iter().filter(|&&r| r > 0.0).sum();
    if positive > 0.0 {
        for (o, &r) in out.iter_mut().zip(regrets) {
            *o = if r > 0.0 { r / positive } else { 0.0 };
        }
    } else {
        out.fill(1.0 / regrets.len() as f64);
    }
}

/// Normalises accumulated weights into a distribution, or uniform when they sum to zero.
pub fn normalise(weights: &[f64], out: &mut [f64]) {
    let sum: f64 = weights.iter().sum();
    if sum > 0.0 {
        for (o, &w) in out.iter_mut().zip(weights) {
            *o = w / sum;
        }
    } else {
        out.fill(1.0 / weights.len() as f64);
    }
}
