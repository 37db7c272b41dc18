//! The settings a user gives a PPO, MMD or NFSP run (the CLI's options,
//! Python's keywords), each over the defaults or a preset's value: one
//! place that turns them into [`PpoSettings`] and [`NfspSettings`] for
//! both.

use darkhex_games::AnyGame;
use thiserror::Error;

use crate::fa::mlp::MAX_HIDDEN;
use crate::rl::dqn::DqnError;
use crate::rl::mmd::{MmdSettings, Schedule};
use crate::rl::nfsp::NfspSettings;
use crate::rl::nfsp_presets::nfsp_preset;
use crate::rl::ppo::{PpoError, PpoSettings};
use crate::rl::presets::{PresetError, preset};

#[derive(Debug, Error)]
pub enum OptionsError {
    #[error(transparent)]
    Preset(#[from] PresetError),
    #[error(transparent)]
    Settings(#[from] PpoError),
    #[error(transparent)]
    Nfsp(#[from] DqnError),
    #[error("{0} apply to mmd only")]
    MmdOnly(&'static str),
}

/// What was given; `None` (or `false`) keeps the default or the preset's.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PpoOptions {
    /// A preset's name ([`crate::rl::presets::NAMES`]).
    pub preset: Option<String>,
    pub num_envs: Option<u32>,
    pub num_steps: Option<u32>,
    pub num_minibatches: Option<u32>,
    pub update_epochs: Option<u32>,
    pub learning_rate: Option<f64>,
    pub clip_coef: Option<f64>,
    pub ent_coef: Option<f64>,
    pub vf_coef: Option<f64>,
    pub kl_coef: Option<f64>,
    pub schedule: Option<Schedule>,
    pub gamma: Option<f64>,
    pub gae_lambda: Option<f64>,
    pub max_grad_norm: Option<f64>,
    pub target_kl: Option<f64>,
    pub hidden: Option<[u32; MAX_HIDDEN]>,
    /// Keep the learning rate constant.
    pub constant_lr: bool,
    /// Leave the advantages unnormalised.
    pub raw_advantages: bool,
}

impl PpoOptions {
    /// The settings of a run of `algorithm` (`ppo` or `mmd`) on `game` for
    /// `steps` steps from `seed`: the preset's or the defaults, then what
    /// was given, checked.
    pub fn settings(
        &self,
        game: &AnyGame,
        algorithm: &str,
        steps: u64,
        seed: u64,
    ) -> Result<PpoSettings, OptionsError> {
        let mmd = algorithm == "mmd";
        if !mmd && (self.kl_coef.is_some() || self.schedule.is_some()) {
            return Err(OptionsError::MmdOnly("the KL coefficient and the schedule"));
        }
        let mut s = match &self.preset {
            Some(name) => preset(name, game, algorithm, steps, seed)?,
            None => PpoSettings {
                mmd: mmd.then(MmdSettings::default),
                ..PpoSettings::new(steps, seed)
            },
        };
        s.num_envs = self.num_envs.unwrap_or(s.num_envs);
        s.num_steps = self.num_steps.unwrap_or(s.num_steps);
        s.num_minibatches = self.num_minibatches.unwrap_or(s.num_minibatches);
        s.update_epochs = self.update_epochs.unwrap_or(s.update_epochs);
        s.learning_rate = self.learning_rate.unwrap_or(s.learning_rate);
        s.clip_coef = self.clip_coef.unwrap_or(s.clip_coef);
        s.ent_coef = self.ent_coef.unwrap_or(s.ent_coef);
        s.vf_coef = self.vf_coef.unwrap_or(s.vf_coef);
        s.gamma = self.gamma.unwrap_or(s.gamma);
        s.gae_lambda = self.gae_lambda.unwrap_or(s.gae_lambda);
        s.max_grad_norm = self.max_grad_norm.unwrap_or(s.max_grad_norm);
        s.target_kl = self.target_kl.or(s.target_kl);
        s.hidden = self.hidden.unwrap_or(s.hidden);
        s.anneal_lr &= !self.constant_lr;
        s.norm_adv &= !self.raw_advantages;
        if let Some(m) = s.mmd.as_mut() {
            m.kl_coef = self.kl_coef.unwrap_or(m.kl_coef);
            m.schedule = self.schedule.unwrap_or(m.schedule);
        }
        s.check()?;
        Ok(s)
    }
}

/// What was given for an NFSP run; `None` keeps the default or the
/// preset's.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NfspOptions {
    pub preset: Option<String>,
    /// Both networks' hidden widths.
    pub hidden: Option<[u32; MAX_HIDDEN]>,
    /// The average network's.
    pub learning_rate: Option<f64>,
    pub batch_size: Option<u32>,
    pub reservoir_capacity: Option<u32>,
    pub anticipatory: Option<f64>,
    /// The best responder's (DQN's).
    pub rl_learning_rate: Option<f64>,
    pub replay_capacity: Option<u32>,
}

impl NfspOptions {
    /// The settings of a run on `game` for `steps` steps from `seed`: the
    /// preset's or the defaults, then what was given, checked.
    pub fn settings(
        &self,
        game: &AnyGame,
        steps: u64,
        seed: u64,
    ) -> Result<NfspSettings, OptionsError> {
        let mut s = match &self.preset {
            Some(name) => nfsp_preset(name, game, steps, seed)?,
            None => NfspSettings::new(steps, seed),
        };
        s.hidden = self.hidden.unwrap_or(s.hidden);
        s.sl_learning_rate = self.learning_rate.unwrap_or(s.sl_learning_rate);
        s.batch_size = self.batch_size.unwrap_or(s.batch_size);
        s.reservoir_buffer_capacity = self
            .reservoir_capacity
            .unwrap_or(s.reservoir_buffer_capacity);
        s.anticipatory_param = self.anticipatory.unwrap_or(s.anticipatory_param);
        s.dqn.learning_rate = self.rl_learning_rate.unwrap_or(s.dqn.learning_rate);
        s.dqn.replay_buffer_capacity = self.replay_capacity.unwrap_or(s.dqn.replay_buffer_capacity);
        s.check()?;
        Ok(s)
    }
}
