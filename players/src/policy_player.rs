//! Players that follow a policy: a table from a file written by `train` or
//! `solve`, the equilibrium the LP finds when the player is prepared, or a
//! trained network's (a model file written by `train --algo deep-cfr`,
//! `escher`, `ppo`, `mmd` or `nfsp`).

use std::sync::Arc;

use darkhex_algorithms::PolicyTable;
use darkhex_algorithms::fa::model::PolicyModel;
use darkhex_algorithms::policy::sample_index;
use darkhex_games::Action;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::player::{Player, PlayerError, PlayerView};

/// Where a policy player's distributions come from.
#[derive(Clone)]
pub enum PolicySource {
    Table(Arc<PolicyTable>),
    Model(Arc<PolicyModel>),
}

/// Samples its action from the policy at its information state; where a
/// table has no entry (a state its training never reached) it plays
/// uniformly. A model has a policy everywhere.
pub struct PolicyPlayer {
    name: String,
    source: PolicySource,
    rng: ChaCha8Rng,
    /// Decisions taken where the policy had no entry.
    uncovered: u32,
}

impl PolicyPlayer {
    pub fn new(name: String, source: PolicySource, seed: u64) -> Self {
        PolicyPlayer {
            name,
            source,
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
        let table = match &self.source {
            PolicySource::Table(table) => table,
            PolicySource::Model(model) => {
                let probs = model
                    .policy(view.seat, view.info_key, view.legal)
                    .map_err(|e| PlayerError::Model {
                        name: self.name.clone(),
                        reason: e.to_string(),
                    })?;
                return Ok(sample(view.legal, &probs, &mut self.rng));
            }
        };
        match table.get(view.seat, view.info_key) {
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
