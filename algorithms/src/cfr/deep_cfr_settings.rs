//! What a Deep CFR run is ([`DeepCfrSettings`]), apart from the run
//! ([`crate::cfr::deep_cfr`]) so that a model file can name the settings it
//! was trained with without importing the trainer, which writes models.
//! The settings' checks sit with the run.

use serde::{Deserialize, Serialize};

use crate::fa::mlp::MlpSettings;

/// What a Deep CFR run is.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeepCfrSettings {
    pub iterations: u64,
    /// External-sampling traversals per iteration per player.
    pub traversals: u32,
    /// Samples each player's advantage reservoir keeps.
    pub advantage_capacity: usize,
    /// Samples each player's strategy reservoir keeps.
    pub strategy_capacity: usize,
    /// The advantage networks (fitted after every traversal batch).
    pub advantage_network: MlpSettings,
    /// The policy networks (fitted once, at the end).
    pub policy_network: MlpSettings,
    /// Seeds the traversals, the reservoirs and the fits' row order.
    pub seed: u64,
    /// Actions explored at each of the traverser's decisions, drawn
    /// uniformly without replacement (robust sampling); 0 explores every
    /// legal action (external sampling). Last, and defaulted, so models
    /// and checkpoints written before it load unchanged.
    #[serde(default)]
    pub explored_actions: u32,
}

impl DeepCfrSettings {
    pub const DEFAULT_TRAVERSALS: u32 = 100;
    pub const DEFAULT_CAPACITY: usize = 1_000_000;
    /// Adam steps of an advantage fit; the policy's are four times as
    /// many (one fit, at the end).
    pub const DEFAULT_STEPS: u32 = 100;
    /// Rows per Adam step: a reservoir is far more rows than RCFR's
    /// table of one game, and small steps on shuffled rows fit it better
    /// for the time than few large ones (on Kuhn, 100 steps of 256 rows
    /// beat 50 of 1024 by half the exploitability).
    pub const DEFAULT_BATCH: u32 = 256;

    /// Default settings, every stream drawn from `seed`.
    pub fn new(iterations: u64, seed: u64) -> DeepCfrSettings {
        let network = |steps| MlpSettings {
            steps,
            batch: Self::DEFAULT_BATCH,
            ..MlpSettings::new(seed)
        };
        DeepCfrSettings {
            iterations,
            traversals: Self::DEFAULT_TRAVERSALS,
            advantage_capacity: Self::DEFAULT_CAPACITY,
            strategy_capacity: Self::DEFAULT_CAPACITY,
            advantage_network: network(Self::DEFAULT_STEPS),
            policy_network: network(4 * Self::DEFAULT_STEPS),
            seed,
            explored_actions: 0,
        }
    }
}
