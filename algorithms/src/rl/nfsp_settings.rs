//! What an NFSP run is ([`NfspSettings`]), apart from the run
//! ([`crate::rl::nfsp`]) so that a model file can name the settings it was
//! trained with without importing the trainer, which writes models. The
//! settings' checks sit with the run.

use serde::{Deserialize, Serialize};

use crate::fa::mlp::{Activation, MAX_HIDDEN, MlpSettings};
use crate::rl::dqn::{DqnLoss, DqnSettings};
use crate::rl::network::BENCHMARK_HIDDEN;

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct NfspSettings {
    /// Steps to train for (actions in all games); the last game may pass it.
    pub steps: u64,
    /// The hidden widths of both networks.
    pub hidden: [u32; MAX_HIDDEN],
    /// The probability of a game played by the best responder.
    pub anticipatory_param: f64,
    /// The average network's minibatch.
    pub batch_size: u32,
    /// Steps of an agent between the average network's updates.
    pub learn_every: u32,
    pub min_buffer_size_to_learn: u32,
    pub reservoir_buffer_capacity: u32,
    pub sl_learning_rate: f64,
    pub seed: u64,
    /// The best-response learner (its hidden widths are `hidden`).
    pub dqn: DqnSettings,
}

impl NfspSettings {
    /// The benchmark's defaults (configs/algorithm/nfsp.yaml and
    /// inner_rl_agent/dqn.yaml, OpenSpiel's for what they leave out).
    pub fn new(steps: u64, seed: u64) -> NfspSettings {
        NfspSettings {
            steps,
            hidden: BENCHMARK_HIDDEN,
            anticipatory_param: 0.1,
            batch_size: 128,
            learn_every: 64,
            min_buffer_size_to_learn: 1000,
            reservoir_buffer_capacity: 2_000_000,
            sl_learning_rate: 0.01,
            seed,
            dqn: DqnSettings {
                hidden: BENCHMARK_HIDDEN,
                learning_rate: 0.01,
                batch_size: 32,
                replay_buffer_capacity: 200_000,
                min_buffer_size_to_learn: 1000,
                learn_every: 10,
                update_target_network_every: 1000,
                epsilon_start: 0.06,
                epsilon_end: 0.001,
                epsilon_decay_duration: 20_000_000,
                discount_factor: 1.0,
                loss: DqnLoss::Mse,
                seed,
            },
        }
    }

    /// The same settings for a run of `steps` steps.
    pub fn with_steps(self, steps: u64) -> NfspSettings {
        NfspSettings { steps, ..self }
    }

    /// The average network's settings.
    pub fn network(&self) -> MlpSettings {
        MlpSettings {
            hidden: self.hidden,
            activation: Activation::Relu,
            batch: self.batch_size.max(1),
            learning_rate: self.sl_learning_rate,
            ..MlpSettings::new(self.seed)
        }
    }

    /// The DQN's settings, with the shared widths and seed.
    pub(crate) fn dqn(&self) -> DqnSettings {
        DqnSettings {
            hidden: self.hidden,
            seed: self.seed,
            ..self.dqn
        }
    }
}
