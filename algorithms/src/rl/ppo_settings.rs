//! What a PPO or MMD run is ([`PpoSettings`]), apart from the run
//! ([`crate::rl::ppo`]) so that a model file can name the settings it was
//! trained with without importing the trainer, which writes models. The
//! settings' checks sit with the run.

use serde::{Deserialize, Serialize};

use crate::fa::mlp::{MAX_HIDDEN, MlpSettings};
use crate::rl::mmd::MmdSettings;
use crate::rl::network::{BENCHMARK_HIDDEN, tower_settings};

/// A PPO or MMD run, with the benchmark's names.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PpoSettings {
    /// Steps to train for (the benchmark's `max_steps`); the last update
    /// may pass it, as the benchmark's does.
    pub steps: u64,
    pub num_envs: u32,
    /// Steps of each game per update.
    pub num_steps: u32,
    pub num_minibatches: u32,
    pub update_epochs: u32,
    pub learning_rate: f64,
    /// Anneal the learning rate linearly to 0 over the run.
    pub anneal_lr: bool,
    pub gamma: f64,
    pub gae_lambda: f64,
    /// Normalise the advantages of each minibatch.
    pub norm_adv: bool,
    pub clip_coef: f64,
    /// Clip the value loss as the policy's.
    pub clip_vloss: bool,
    pub ent_coef: f64,
    pub vf_coef: f64,
    pub max_grad_norm: f64,
    /// Stop an update's epochs once the approximate KL passes this.
    pub target_kl: Option<f64>,
    /// The towers' hidden widths, zeros after the last.
    pub hidden: [u32; MAX_HIDDEN],
    pub seed: u64,
    /// MMD's terms; none for PPO.
    pub mmd: Option<MmdSettings>,
}

impl PpoSettings {
    /// The benchmark's defaults (configs/algorithm/ppo.yaml) and network.
    pub fn new(steps: u64, seed: u64) -> PpoSettings {
        PpoSettings {
            steps,
            num_envs: 8,
            num_steps: 128,
            num_minibatches: 4,
            update_epochs: 4,
            learning_rate: 2.5e-4,
            anneal_lr: true,
            gamma: 0.99,
            gae_lambda: 0.95,
            norm_adv: true,
            clip_coef: 0.1,
            clip_vloss: true,
            ent_coef: 0.05,
            vf_coef: 0.5,
            max_grad_norm: 0.5,
            target_kl: None,
            hidden: BENCHMARK_HIDDEN,
            seed,
            mmd: None,
        }
    }

    /// The same settings for a run of `steps` steps.
    pub fn with_steps(self, steps: u64) -> PpoSettings {
        PpoSettings { steps, ..self }
    }

    /// `ppo` or `mmd`.
    pub fn algorithm(&self) -> &'static str {
        if self.mmd.is_some() { "mmd" } else { "ppo" }
    }

    /// Steps between updates.
    pub fn batch_size(&self) -> u64 {
        u64::from(self.num_envs) * u64::from(self.num_steps)
    }

    pub fn minibatch_size(&self) -> usize {
        (self.batch_size() / u64::from(self.num_minibatches.max(1))) as usize
    }

    /// The updates the learning rate anneals over: the benchmark's
    /// `max_steps // batch_size + 1`.
    pub fn annealing_updates(&self) -> u64 {
        self.steps / self.batch_size().max(1) + 1
    }

    /// The learning rate of update `update` (counted from 0).
    pub fn learning_rate_at(&self, update: u64) -> f64 {
        if !self.anneal_lr {
            return self.learning_rate;
        }
        let frac = 1.0 - update as f64 / self.annealing_updates() as f64;
        frac.max(0.0) * self.learning_rate
    }

    /// The towers' settings (the file's record of them: the minibatch as
    /// the batch, the Adam steps of the run as the steps).
    pub fn network(&self) -> MlpSettings {
        let epochs = u64::from(self.update_epochs) * u64::from(self.num_minibatches);
        let updates = self.steps.div_ceil(self.batch_size().max(1));
        MlpSettings {
            steps: u32::try_from(updates * epochs).unwrap_or(u32::MAX).max(1),
            batch: u32::try_from(self.minibatch_size())
                .unwrap_or(u32::MAX)
                .max(1),
            learning_rate: self.learning_rate,
            ..tower_settings(self.hidden, self.seed)
        }
    }
}
