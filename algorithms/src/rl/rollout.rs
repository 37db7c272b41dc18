//! The rollout buffer of PPO and MMD: `steps` steps of `envs` games, step
//! major (row `t * envs + i` is game `i` at step `t`), and generalised
//! advantage estimation (Schulman et al. 2016) over it.
//!
//! Self-play, as in the benchmark: one network plays both seats, so the
//! rewards and values are player 0's (the critic estimates player 0's
//! return from the information state of whoever moves), and the policy's
//! advantage at a row is player 0's advantage times the mover's sign (+1
//! for player 0, -1 for player 1).

use serde::{Deserialize, Serialize};

/// One rollout's rows.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Rollout {
    pub envs: usize,
    pub observation_size: usize,
    pub actions: usize,
    /// The movers' information-state tensors, `observation_size` a row.
    pub observations: Vec<f32>,
    /// The movers' legal actions, `actions` a row: 1 legal, 0 not.
    pub legal: Vec<f32>,
    /// The action taken.
    pub taken: Vec<u32>,
    /// Its log-probability under the policy that took it.
    pub log_probs: Vec<f32>,
    /// The critic's value of the row's information state.
    pub values: Vec<f32>,
    /// Player 0's reward for the step (nonzero when it ended the game).
    pub rewards: Vec<f32>,
    /// 1 where the step ended its game (the next row of the game is a new game's).
    pub dones: Vec<f32>,
    /// Who moved: 0 or 1.
    pub players: Vec<u8>,
}

impl Rollout {
    pub fn new(envs: usize, observation_size: usize, actions: usize) -> Rollout {
        Rollout {
            envs,
            observation_size,
            actions,
            ..Rollout::default()
        }
    }

    /// Rows held.
    pub fn len(&self) -> usize {
        self.taken.len()
    }

    pub fn is_empty(&self) -> bool {
        self.taken.is_empty()
    }

    /// Empties the buffer, keeping its memory.
    pub fn clear(&mut self) {
        self.observations.clear();
        self.legal.clear();
        self.taken.clear();
        self.log_probs.clear();
        self.values.clear();
        self.rewards.clear();
        self.dones.clear();
        self.players.clear();
    }

    /// Each row's advantage (player 0's, by GAE with discount `gamma` and
    /// `lambda`) and return (advantage plus value), given the values of the
    /// observations after the last step (`next_values`, one a game): the
    /// recursion of the benchmark's PPO, in f32 as it runs it.
    pub fn advantages(&self, next_values: &[f32], gamma: f32, lambda: f32) -> (Vec<f32>, Vec<f32>) {
        let n = self.envs;
        let rows = self.len();
        let steps = rows / n.max(1);
        let mut advantages = vec![0.0f32; rows];
        let mut last = vec![0.0f32; n];
        for t in (0..steps).rev() {
            for i in 0..n {
                let row = t * n + i;
                let next = if t + 1 == steps {
                    next_values[i]
                } else {
                    self.values[row + n]
                };
                let live = 1.0 - self.dones[row];
                let delta = self.rewards[row] + gamma * next * live - self.values[row];
                last[i] = delta + gamma * lambda * live * last[i];
                advantages[row] = last[i];
            }
        }
        let returns = advantages
            .iter()
            .zip(&self.values)
            .map(|(a, v)| a + v)
            .collect();
        (advantages, returns)
    }
}
