//! Magnetic mirror descent (Sokota, D'Orazio, Kolter, Loizou, Lanctot,
//! Mitliagkas, Brown and Kroer, "A Unified Approach to Reinforcement
//! Learning, Quantal Response Equilibria, and Two-Player Zero-Sum Games",
//! ICLR 2023) as a deep RL algorithm: PPO's machinery ([`crate::rl::ppo`])
//! whose loss adds, to the clipped objective, a pull towards a magnet and
//! a proximal term.
//!
//! - The magnet is the uniform policy: its reverse KL, KL(π‖uniform), is
//!   the negative entropy up to a constant, so the magnet term is PPO's
//!   entropy bonus with the entropy coefficient as its weight (the
//!   paper's temperature α).
//! - The proximal term is the reverse KL from the policy that collected
//!   the batch, KL(π‖π_old), estimated on the batch's actions by
//!   r log r − (r − 1) with r the probability ratio (Schulman's k3
//!   estimator, as the benchmark's MMD does), weighted by `kl_coef` (the
//!   paper's 1/η).
//! - The schedule: the benchmark runs both weights constant
//!   ([`Schedule::Constant`], its best hyper-parameters were found so);
//!   [`Schedule::Annealed`] multiplies both by √(T / (t + 1000)) after a
//!   rollout's t steps of T, the 1/√t annealing of the paper's deep
//!   experiments scaled to 1 at the end of the run, which the benchmark
//!   ran before it fixed the schedule.
//!
//! With `kl_coef` 0 and the same entropy coefficient, MMD's updates are
//! PPO's, bit for bit (algorithms/tests checks it).

use serde::{Deserialize, Serialize};

/// How the magnet and proximal weights change as a run goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Schedule {
    #[default]
    Constant,
    Annealed,
}

impl Schedule {
    pub const NAMES: [&'static str; 2] = ["constant", "annealed"];

    pub fn name(self) -> &'static str {
        match self {
            Schedule::Constant => "constant",
            Schedule::Annealed => "annealed",
        }
    }

    pub fn parse(name: &str) -> Option<Schedule> {
        match name {
            "constant" => Some(Schedule::Constant),
            "annealed" => Some(Schedule::Annealed),
            _ => None,
        }
    }

    /// The weights' multiplier after `steps` of `total` steps.
    pub fn multiplier(self, steps: u64, total: u64) -> f64 {
        match self {
            Schedule::Constant => 1.0,
            Schedule::Annealed => (total as f64 / (steps as f64 + 1000.0)).sqrt(),
        }
    }
}

/// What MMD adds to PPO's settings.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MmdSettings {
    /// The proximal term's weight (the benchmark's `kl_coef`).
    pub kl_coef: f64,
    pub schedule: Schedule,
}

impl MmdSettings {
    /// The benchmark's default (configs/algorithm/mmd.yaml).
    pub const DEFAULT_KL_COEF: f64 = 0.05;
}

impl Default for MmdSettings {
    fn default() -> Self {
        MmdSettings {
            kl_coef: Self::DEFAULT_KL_COEF,
            schedule: Schedule::Constant,
        }
    }
}

/// The magnet and proximal terms' weights for one update, from the
/// entropy coefficient `ent_coef`: `(entropy weight, proximal weight)`.
/// PPO (`mmd` absent) weights the entropy alone, never scheduled.
pub fn term_weights(
    ent_coef: f64,
    mmd: Option<&MmdSettings>,
    steps: u64,
    total: u64,
) -> (f64, Option<f64>) {
    match mmd {
        None => (ent_coef, None),
        Some(m) => {
            let k = m.schedule.multiplier(steps, total);
            (ent_coef * k, Some(m.kl_coef * k))
        }
    }
}
