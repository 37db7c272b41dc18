//! DQN (Mnih et al. 2015) as OpenSpiel's `dqn.py` runs it, the learner
//! of NFSP's best responses and of `exploit --approximate dqn`: a
//! Q-network of rectified layers on the information-state tensor, one
//! output per action of the game; actions epsilon-greedy over the legal
//! ones, epsilon falling linearly from `epsilon_start` to `epsilon_end`
//! over `epsilon_decay_duration` steps; transitions in a circular replay
//! buffer; every `learn_every` steps (once the buffer holds
//! `min_buffer_size_to_learn`) an Adam step on a minibatch of the squared
//! (or Huber) error against `r + discount * max_a' Q_target(s', a')`, the
//! maximum over the legal actions at s'; the target network a copy of
//! the Q-network refreshed every `update_target_network_every` steps.
//!
//! Determinism: the minibatches come from one seeded stream, the
//! exploration from the caller's (one a game), and the networks' products
//! and the optimiser do not depend on the thread count (see
//! [`crate::rl::ppo`]). [`DqnState`] holds everything, buffer included.

use candle_core::{Device, Tensor};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::fa::mlp::{Activation, MAX_HIDDEN, Mlp, MlpParams, MlpSettings};
use crate::fa::regress::RegressError;
use crate::rl::adam::{Adam, AdamState};
use crate::rl::replay::{ReplayBuffer, Transition};
use crate::rl::vector_env::has_action;

/// The regression loss of the Q-values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DqnLoss {
    /// Mean squared error (OpenSpiel's and the benchmark's).
    Mse,
    /// Huber with threshold 1.
    Huber,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct DqnSettings {
    pub hidden: [u32; MAX_HIDDEN],
    pub learning_rate: f64,
    pub batch_size: u32,
    pub replay_buffer_capacity: u32,
    pub min_buffer_size_to_learn: u32,
    pub learn_every: u32,
    pub update_target_network_every: u32,
    pub epsilon_start: f64,
    pub epsilon_end: f64,
    pub epsilon_decay_duration: u64,
    pub discount_factor: f64,
    pub loss: DqnLoss,
    pub seed: u64,
}

impl DqnSettings {
    /// The best-response learner of `exploit --approximate dqn` for a run
    /// of `steps` decisions: exploration falling from 1 to 0.01 over the
    /// first half, small towers, a frequent target.
    pub fn response(steps: u64, seed: u64) -> DqnSettings {
        DqnSettings {
            hidden: [128, 128, 0, 0],
            learning_rate: 1e-3,
            batch_size: 128,
            replay_buffer_capacity: 100_000,
            min_buffer_size_to_learn: 1000,
            learn_every: 4,
            update_target_network_every: 500,
            epsilon_start: 1.0,
            epsilon_end: 0.01,
            epsilon_decay_duration: (steps / 2).max(1),
            discount_factor: 1.0,
            loss: DqnLoss::Mse,
            seed,
        }
    }

    /// The Q-network's settings (the fit fields unused: the trainer's own).
    pub fn network(&self) -> MlpSettings {
        MlpSettings {
            hidden: self.hidden,
            activation: Activation::Relu,
            batch: self.batch_size.max(1),
            learning_rate: self.learning_rate,
            ..MlpSettings::new(self.seed)
        }
    }

    pub fn check(&self) -> Result<(), DqnError> {
        let bad = |s: String| Err(DqnError::BadSettings(s));
        if self.batch_size == 0 || self.replay_buffer_capacity == 0 {
            return bad("the minibatch and the replay buffer need at least one transition".into());
        }
        if self.learn_every == 0 || self.update_target_network_every == 0 {
            return bad("learn_every and update_target_network_every must be at least 1".into());
        }
        for (what, x) in [
            ("epsilon_start", self.epsilon_start),
            ("epsilon_end", self.epsilon_end),
            ("the discount factor", self.discount_factor),
        ] {
            if !(0.0..=1.0).contains(&x) {
                return bad(format!("{what} must be from 0 to 1, not {x}"));
            }
        }
        if !(self.learning_rate.is_finite() && self.learning_rate > 0.0) {
            return bad(format!(
                "the learning rate must be a finite number above 0, not {}",
                self.learning_rate
            ));
        }
        self.network()
            .check()
            .map_err(|e| DqnError::BadSettings(format!("the Q-network: {e}")))
    }

    /// Bytes a learner holds: the two networks, the optimiser's moments
    /// and master copy, the full buffer, a minibatch's activations.
    pub fn memory_bytes(&self, inputs: usize, actions: usize) -> f64 {
        let net = self.network();
        let weights = net.parameters_with(inputs, actions) as f64;
        let widest = net.layers().chain([inputs, actions]).max().unwrap_or(1);
        let activations =
            8.0 * f64::from(self.batch_size) * (widest * (net.layers().count() + 2)) as f64;
        24.0 * weights
            + ReplayBuffer::bytes(self.replay_buffer_capacity as usize, inputs, actions)
            + activations
    }
}

#[derive(Debug, Error)]
pub enum DqnError {
    #[error(transparent)]
    Regress(#[from] RegressError),
    #[error("{0}")]
    BadSettings(String),
    #[error("the saved DQN does not fit: {0}")]
    BadState(String),
}

fn tensor_error(e: candle_core::Error) -> DqnError {
    DqnError::Regress(RegressError::Tensor(e.to_string()))
}

/// Everything a learner needs to go on, bit for bit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DqnState {
    pub settings: DqnSettings,
    pub inputs: usize,
    pub q: MlpParams,
    pub target: MlpParams,
    pub adam: AdamState,
    pub replay: ReplayBuffer,
    /// The learner's stream (see [`Dqn::new`]).
    pub stream: u64,
    pub sampler_word_pos: [u64; 2],
    pub steps: u64,
    pub last_loss: Option<f64>,
}

pub struct Dqn {
    settings: DqnSettings,
    inputs: usize,
    actions: usize,
    q: Mlp,
    target: Mlp,
    adam: Adam,
    replay: ReplayBuffer,
    sampler: ChaCha8Rng,
    stream: u64,
    steps: u64,
    last_loss: Option<f64>,
}

/// The minibatch stream of a learner on `stream`.
fn sampler(seed: u64, stream: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5851_F42D_4C95_7F2D);
    rng.set_stream(stream);
    rng
}

impl Dqn {
    /// A learner on `inputs` features for `actions` actions; `stream`
    /// tells apart learners of one seed (its weights and minibatches).
    pub fn new(
        settings: DqnSettings,
        inputs: usize,
        actions: usize,
        stream: u64,
    ) -> Result<Dqn, DqnError> {
        settings.check()?;
        let q = Mlp::with_outputs(settings.network(), inputs, actions, stream)?;
        let target = Mlp::with_params(settings.network(), inputs, q.params().clone())?;
        let adam = Adam::new(q.vars().cloned().collect())?;
        Ok(Dqn {
            settings,
            inputs,
            actions,
            q,
            target,
            adam,
            replay: ReplayBuffer::new(settings.replay_buffer_capacity as usize, inputs, actions),
            sampler: sampler(settings.seed, stream),
            stream,
            steps: 0,
            last_loss: None,
        })
    }

    /// Goes on from `state`, made by a learner of the same shape.
    pub fn resume(state: DqnState, actions: usize) -> Result<Dqn, DqnError> {
        let s = state.settings;
        s.check()?;
        let bad = |what: String| DqnError::BadState(what);
        let q = Mlp::with_params(s.network(), state.inputs, state.q)
            .map_err(|e| bad(format!("its Q-network: {e}")))?;
        let target = Mlp::with_params(s.network(), state.inputs, state.target)
            .map_err(|e| bad(format!("its target network: {e}")))?;
        if q.outputs() != actions || target.outputs() != actions {
            return Err(bad(format!("its networks do not have {actions} outputs")));
        }
        let r = &state.replay;
        let rows = r.len();
        if r.width != state.inputs
            || r.observations.len() != rows * r.width
            || r.next_observations.len() != rows * r.width
            || r.next_legal.len() != rows * r.words
            || r.words != actions.div_ceil(64)
            || r.rewards.len() != rows
            || r.dones.len() != rows
            || rows > r.capacity
        {
            return Err(bad("its replay buffer".into()));
        }
        let adam = Adam::resume(q.vars().cloned().collect(), state.adam)?
            .ok_or_else(|| bad("its optimiser's moments".into()))?;
        let mut sampler = sampler(s.seed, state.stream);
        let [hi, lo] = state.sampler_word_pos;
        sampler.set_word_pos((u128::from(hi) << 64) | u128::from(lo));
        Ok(Dqn {
            settings: s,
            inputs: state.inputs,
            actions,
            q,
            target,
            adam,
            replay: state.replay,
            sampler,
            stream: state.stream,
            steps: state.steps,
            last_loss: state.last_loss,
        })
    }

    pub fn settings(&self) -> &DqnSettings {
        &self.settings
    }

    /// Steps taken (transitions offered).
    pub fn steps(&self) -> u64 {
        self.steps
    }

    pub fn last_loss(&self) -> Option<f64> {
        self.last_loss
    }

    /// The exploration of the next action.
    pub fn epsilon(&self) -> f64 {
        let s = &self.settings;
        let decay = s.epsilon_decay_duration.max(1);
        let done = self.steps.min(decay) as f64 / decay as f64;
        s.epsilon_end + (s.epsilon_start - s.epsilon_end) * (1.0 - done)
    }

    /// The Q-values of `rows` rows of observations, one per action.
    pub fn q_values(&self, observations: &[f32], rows: usize) -> Result<Vec<f32>, DqnError> {
        Ok(self
            .q
            .forward_rows(observations, rows, crate::rl::ppo::rollout_threads(rows))?)
    }

    /// The Q-network as a policy's network (for a model file).
    pub fn network(&mut self) -> Result<Mlp, DqnError> {
        self.q.keep_params()?;
        Ok(Mlp::with_params(
            self.settings.network(),
            self.inputs,
            self.q.params().clone(),
        )?)
    }

    /// Offers a transition, then counts a step ([`Dqn::tick`]).
    pub fn add(&mut self, t: &Transition) -> Result<(), DqnError> {
        self.push(t);
        self.tick()
    }

    /// Stores a transition in the replay buffer.
    pub fn push(&mut self, t: &Transition) {
        self.replay.add(t);
    }

    /// Counts a step: learns every `learn_every` steps and refreshes the
    /// target every `update_target_network_every`.
    pub fn tick(&mut self) -> Result<(), DqnError> {
        self.steps += 1;
        if self
            .steps
            .is_multiple_of(u64::from(self.settings.learn_every))
        {
            self.learn()?;
        }
        if self
            .steps
            .is_multiple_of(u64::from(self.settings.update_target_network_every))
        {
            self.refresh_target()?;
        }
        Ok(())
    }

    fn refresh_target(&mut self) -> Result<(), DqnError> {
        self.q.keep_params()?;
        self.target = Mlp::with_params(
            self.settings.network(),
            self.inputs,
            self.q.params().clone(),
        )?;
        Ok(())
    }

    /// One Adam step on a minibatch, if the buffer is full enough.
    pub fn learn(&mut self) -> Result<Option<f64>, DqnError> {
        let s = self.settings;
        let held = self.replay.len();
        if held < s.batch_size as usize || held < s.min_buffer_size_to_learn as usize {
            return Ok(None);
        }
        let b = self.replay.sample(s.batch_size as usize, &mut self.sampler);
        let rows = b.actions.len();
        let (a, words) = (self.actions, self.replay.words);
        let next = self.target.forward_rows(
            &b.next_observations,
            rows,
            crate::rl::ppo::rollout_threads(rows),
        )?;
        let targets: Vec<f32> = (0..rows)
            .map(|i| {
                let best = if b.dones[i] {
                    0.0
                } else {
                    let legal = &b.next_legal[i * words..][..words];
                    next[i * a..][..a]
                        .iter()
                        .enumerate()
                        .filter(|&(k, _)| has_action(legal, k))
                        .map(|(_, &q)| q)
                        .fold(f32::NEG_INFINITY, f32::max)
                };
                let best = if best.is_finite() { best } else { 0.0 };
                b.rewards[i] + s.discount_factor as f32 * best
            })
            .collect();
        let mut onehot = vec![0.0f32; rows * a];
        for (i, &k) in b.actions.iter().enumerate() {
            onehot[i * a + k as usize] = 1.0;
        }
        let cpu = &Device::Cpu;
        let loss = (|| {
            let x = Tensor::from_vec(b.observations, (rows, self.inputs), cpu)?;
            let onehot = Tensor::from_vec(onehot, (rows, a), cpu)?;
            let y = Tensor::from_vec(targets, rows, cpu)?;
            let q = (self.q.forward(&x)? * onehot)?.sum(1)?;
            let diff = (q - y)?;
            match s.loss {
                DqnLoss::Mse => diff.sqr()?.mean_all(),
                DqnLoss::Huber => {
                    let abs = diff.abs()?;
                    let inner = abs.clamp(0f64, 1f64)?;
                    ((inner.sqr()? * 0.5)? + (abs - inner)?)?.mean_all()
                }
            }
        })()
        .map_err(tensor_error)?;
        let grads = loss.backward().map_err(tensor_error)?;
        self.adam.step(&grads, s.learning_rate, f64::INFINITY)?;
        let value = f64::from(loss.to_scalar::<f32>().map_err(tensor_error)?);
        self.last_loss = Some(value);
        Ok(Some(value))
    }

    /// The learner's state, to go on from later.
    pub fn state(&mut self) -> Result<DqnState, DqnError> {
        self.q.keep_params()?;
        let pos = self.sampler.get_word_pos();
        Ok(DqnState {
            settings: self.settings,
            inputs: self.inputs,
            q: self.q.params().clone(),
            target: self.target.params().clone(),
            adam: self.adam.state().clone(),
            replay: self.replay.clone(),
            stream: self.stream,
            sampler_word_pos: [(pos >> 64) as u64, pos as u64],
            steps: self.steps,
            last_loss: self.last_loss,
        })
    }
}

/// The greedy action of a row of Q-values among the legal ones (the
/// first of equal values), or `None` when none is legal.
pub fn greedy(q: &[f32], legal: &[u64]) -> Option<usize> {
    let mut best: Option<(usize, f32)> = None;
    for (k, &v) in q.iter().enumerate() {
        if has_action(legal, k) && best.is_none_or(|(_, b)| v > b) {
            best = Some((k, v));
        }
    }
    best.map(|(k, _)| k)
}

/// An epsilon-greedy action: uniform among the legal ones with
/// probability `epsilon`, else the greedy one; and the distribution it
/// was drawn from (what NFSP's average policy learns).
pub fn epsilon_greedy(
    q: &[f32],
    legal: &[u64],
    epsilon: f64,
    rng: &mut impl Rng,
) -> Option<(usize, Vec<f32>)> {
    let best = greedy(q, legal)?;
    let actions: Vec<usize> = (0..q.len()).filter(|&k| has_action(legal, k)).collect();
    let mut probs = vec![0.0f32; q.len()];
    let share = epsilon / actions.len() as f64;
    for &k in &actions {
        probs[k] = share as f32;
    }
    probs[best] += (1.0 - epsilon) as f32;
    let action = if rng.random::<f64>() < epsilon {
        actions[rng.random_range(0..actions.len())]
    } else {
        best
    };
    Some((action, probs))
}
