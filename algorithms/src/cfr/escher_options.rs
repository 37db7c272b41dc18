//! The settings a user gives an ESCHER run (the CLI's options, Python's
//! keywords), each over the defaults or a preset's value: one place that
//! turns them into [`EscherSettings`] for both.

use darkhex_games::AnyGame;

use crate::cfr::escher::{EscherSettings, escher_preset};
use crate::fa::mlp::MAX_HIDDEN;
use crate::rl::presets::PresetError;

/// What was given; `None` keeps the default or the preset's.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EscherOptions {
    /// A preset's name ([`crate::rl::presets::NAMES`]).
    pub preset: Option<String>,
    pub regret_traversals: Option<u32>,
    pub value_traversals: Option<u32>,
    pub value_exploration: Option<f64>,
    pub regret_capacity: Option<usize>,
    pub policy_capacity: Option<usize>,
    /// Every network's.
    pub hidden: Option<[u32; MAX_HIDDEN]>,
    pub batch: Option<u32>,
    pub learning_rate: Option<f64>,
    /// The regret networks' Adam steps; without a preset the value
    /// network's too, and four times them the policy networks'.
    pub fit_steps: Option<u32>,
    pub value_steps: Option<u32>,
    pub policy_steps: Option<u32>,
}

impl EscherOptions {
    /// The settings of a run of `iterations` from `seed` on `game`.
    pub fn settings(
        &self,
        game: &AnyGame,
        iterations: u64,
        seed: u64,
    ) -> Result<EscherSettings, PresetError> {
        let mut s = match &self.preset {
            Some(name) => escher_preset(name, game, iterations, seed)?,
            None => EscherSettings::new(iterations, seed),
        };
        s.regret_traversals = self.regret_traversals.unwrap_or(s.regret_traversals);
        s.value_traversals = self.value_traversals.unwrap_or(s.value_traversals);
        s.value_exploration = self.value_exploration.unwrap_or(s.value_exploration);
        s.regret_capacity = self.regret_capacity.unwrap_or(s.regret_capacity);
        s.policy_capacity = self.policy_capacity.unwrap_or(s.policy_capacity);
        for network in [
            &mut s.regret_network,
            &mut s.value_network,
            &mut s.policy_network,
        ] {
            network.hidden = self.hidden.unwrap_or(network.hidden);
            network.batch = self.batch.unwrap_or(network.batch);
            network.learning_rate = self.learning_rate.unwrap_or(network.learning_rate);
        }
        s.regret_network.steps = self.fit_steps.unwrap_or(s.regret_network.steps);
        if self.preset.is_none() {
            s.value_network.steps = s.regret_network.steps;
            s.policy_network.steps = s.regret_network.steps.saturating_mul(4);
        }
        s.value_network.steps = self.value_steps.unwrap_or(s.value_network.steps);
        s.policy_network.steps = self.policy_steps.unwrap_or(s.policy_network.steps);
        Ok(s)
    }
}
