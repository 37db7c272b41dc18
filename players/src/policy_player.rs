//! Players that follow a tabular policy: one from a file written by `train`
//! or `solve`, or the equilibrium the LP finds when the player is prepared.

use std::sync::Arc;

use darkhex_algorithms::PolicyTable;
use darkhex_algorithms::policy::sample_index;
use darkhex_games::Action;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::player::{Player, PlayerError, PlayerView};

/// Samples its action from the policy at its information state; where the
/// policy has no entry (a state its training never reached) it plays uniformly.
pub struct PolicyPlayer {
    name: String,
    table: Arc<PolicyTable>,
    rng: ChaCha8Rng,
    /// Decisions taken where the policy had no entry.
    uncovered: u32,
}

impl PolicyPlayer {
    pub fn new(name: String, table: Arc<PolicyTable>, seed: u64) -> Self {
        PolicyPlayer {
            name,
            table,
            rng: ChaCha8Rng::seed_from_u64(seed),
            uncovered: 0,
        }
    }
}

/// Samples from `probs` over `actions`; the last action absorbs rounding.
pub fn sample(actions: &[Action], probs: &[f64], rng: &mut impl Rng) -> Action {
    actions[sample_index(probs.iter().copied(), rng).unwrap_or(actions.len() - 1)]
}

impl Player for PolicyPlayer {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn act(&mut self, view: &PlayerView) -> Result<Action, PlayerError> {
        match self.table.get(view.seat, view.info_key) {
            // Policy files are checked against the game when loaded, so an
            // entry lists exactly the legal actions.
            Some((actions, probs)) if actions == view.legal => {
                Ok(sample(actions, probs, &mut self.rng))
            }
            _ => {
                self.uncovered += 1;
                Ok(view.legal[self.rng.random_range(0..view.legal.len())])
            }
        }
    }

    fn uniform_fallbacks(&self) -> u32 {
        self.uncovered
    }
}
