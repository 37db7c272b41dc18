//! The sequence form of a compiled two-player game (Koller, Megiddo and von
//! Stengel): payoffs per pair of sequences, and the realization-plan
//! constraints given by each player's infoset table.

use darkhex_games::NUM_PLAYERS;
use darkhex_games::analysis::InfosetTable;

use crate::tree::{CHANCE, GameTree, TERMINAL};

/// Player 0's expected payoff split by the pair of sequences the players
/// play to reach each terminal, chance probabilities included. Sequence 0
/// is the empty one, `slot + 1` the one ending with that slot's action.
#[derive(Clone, Debug)]
pub struct SequencePayoffs {
    /// (sequence of player 0, sequence of player 1, payoff), sorted by
    /// player 1's sequence then player 0's, duplicates merged.
    pub entries: Vec<(u32, u32, f64)>,
}

impl SequencePayoffs {
    pub fn new(tree: &GameTree) -> SequencePayoffs {
        let mut entries = Vec::with_capacity(tree.num_terminals());
        if tree.num_nodes() > 0 {
            collect(tree, 0, [0, 0], 1.0, &mut entries);
        }
        SequencePayoffs::from_entries(entries)
    }

    /// From (sequence of player 0, sequence of player 1, payoff) triples in
    /// any order, repeats allowed.
    pub fn from_entries(mut entries: Vec<(u32, u32, f64)>) -> SequencePayoffs {
        entries.sort_unstable_by_key(|&(s0, s1, _)| (s1, s0));
        let mut merged: Vec<(u32, u32, f64)> = Vec::with_capacity(entries.len());
        for (s0, s1, v) in entries {
            match merged.last_mut() {
                Some(last) if last.0 == s0 && last.1 == s1 => last.2 += v,
                _ => merged.push((s0, s1, v)),
            }
        }
        merged.retain(|e| e.2 != 0.0);
        SequencePayoffs { entries: merged }
    }
}

fn collect(
    tree: &GameTree,
    node: usize,
    seq: [u32; NUM_PLAYERS],
    chance: f64,
    out: &mut Vec<(u32, u32, f64)>,
) {
    match tree.kind(node) {
        TERMINAL => out.push((seq[0], seq[1], chance * tree.utility(node))),
        CHANCE => {
            for (c, &p) in tree.children(node).zip(tree.chance_probs(node)) {
                collect(tree, c, seq, chance * p, out);
            }
        }
        mover => {
            let mover = mover as usize;
            let slots = tree.infosets(mover).slots(tree.infoset(node));
            for (c, slot) in tree.children(node).zip(slots) {
                let mut next = seq;
                next[mover] = slot as u32 + 1;
                collect(tree, c, next, chance, out);
            }
        }
    }
}

/// The infoset each slot belongs to.
pub fn slot_infosets(table: &InfosetTable) -> Vec<u32> {
    let mut out = vec![0u32; table.num_slots()];
    for i in 0..table.len() {
        out[table.slots(i)].fill(i as u32);
    }
    out
}

/// Probabilities below this in a realization plan are solver noise.
pub const NOISE: f64 = 1e-9;

/// Behaviour strategy of one player from a realization plan (indexed by
/// sequence): the probability of an action is its sequence's weight over
/// the parent sequence's. Noise below [`NOISE`] (including small negatives
/// from interior-point solvers) counts as zero; infosets the plan never
/// reaches play uniformly, so every infoset holds a distribution.
pub fn behaviour_from_plan(table: &InfosetTable, plan: &[f64]) -> Vec<f64> {
    let mut probs = vec![0.0; table.num_slots()];
    for i in 0..table.len() {
        let slots = table.slots(i);
        let weights: Vec<f64> = slots
            .clone()
            .map(|s| {
                if plan[s + 1] > NOISE {
                    plan[s + 1]
                } else {
                    0.0
                }
            })
            .collect();
        let total: f64 = weights.iter().sum();
        let out = &mut probs[slots];
        if total > NOISE {
            for (o, w) in out.iter_mut().zip(&weights) {
                *o = w / total;
            }
        } else {
            out.fill(1.0 / out.len() as f64);
        }
    }
    probs
}

/// The realization plan (indexed by sequence) of one player's behaviour
/// strategy `probs` (indexed by slot).
pub fn plan_from_behaviour(table: &InfosetTable, probs: &[f64]) -> Vec<f64> {
    let mut plan = vec![0.0; table.num_slots() + 1];
    plan[0] = 1.0;
    for i in 0..table.len() {
        let parent = plan[table.parent[i] as usize];
        for s in table.slots(i) {
            plan[s + 1] = parent * probs[s];
        }
    }
    plan
}
