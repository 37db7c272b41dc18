//! What an ESCHER run is ([`EscherSettings`]), apart from the run
//! ([`crate::cfr::escher`]) so that a model file can name the settings it
//! was trained with without importing the trainer, which writes models.
//! The settings' checks sit with the run.

use serde::{Deserialize, Serialize};

use crate::fa::mlp::MlpSettings;

/// What an ESCHER run is. (Field names differ from
/// [`crate::cfr::deep_cfr::DeepCfrSettings`]'s, so a model file's settings
/// say which algorithm made them.)
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EscherSettings {
    pub iterations: u64,
    /// Regret trajectories per player and iteration (`num_traversals`).
    pub regret_traversals: u32,
    /// History-value trajectories per iteration (`num_val_fn_traversals`).
    pub value_traversals: u32,
    /// Samples each player's regret reservoir keeps.
    pub regret_capacity: usize,
    /// Samples each player's policy reservoir keeps.
    pub policy_capacity: usize,
    /// The uniform policy's share in the value trajectories' sampling
    /// (`val_expl`), 0 to 1.
    pub value_exploration: f64,
    /// The regret networks (fitted every iteration).
    pub regret_network: MlpSettings,
    /// The history value network (fitted every iteration).
    pub value_network: MlpSettings,
    /// The policy networks (fitted for each evaluation and at the end).
    pub policy_network: MlpSettings,
    /// Seeds the trajectories, the reservoirs, the fits' row order and the
    /// networks' initial weights.
    pub seed: u64,
}

impl EscherSettings {
    pub const DEFAULT_TRAVERSALS: u32 = 1000;
    pub const DEFAULT_CAPACITY: usize = 1_000_000;
    /// Adam steps of a regret or value fit; the policy's are four times as
    /// many.
    pub const DEFAULT_STEPS: u32 = 100;
    pub const DEFAULT_BATCH: u32 = 256;
    /// The benchmark's default `val_expl`.
    pub const DEFAULT_VALUE_EXPLORATION: f64 = 0.01;

    /// Default settings, every stream drawn from `seed`.
    pub fn new(iterations: u64, seed: u64) -> EscherSettings {
        let network = |steps| MlpSettings {
            steps,
            batch: Self::DEFAULT_BATCH,
            ..MlpSettings::new(seed)
        };
        EscherSettings {
            iterations,
            regret_traversals: Self::DEFAULT_TRAVERSALS,
            value_traversals: Self::DEFAULT_TRAVERSALS,
            regret_capacity: Self::DEFAULT_CAPACITY,
            policy_capacity: Self::DEFAULT_CAPACITY,
            value_exploration: Self::DEFAULT_VALUE_EXPLORATION,
            regret_network: network(Self::DEFAULT_STEPS),
            value_network: network(Self::DEFAULT_STEPS),
            policy_network: network(4 * Self::DEFAULT_STEPS),
            seed,
        }
    }

    /// The same settings for a run of `iterations`.
    pub fn with_iterations(self, iterations: u64) -> EscherSettings {
        EscherSettings { iterations, ..self }
    }
}
