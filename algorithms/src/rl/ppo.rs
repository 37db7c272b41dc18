//! PPO (Schulman, Wolski, Dhariwal, Radford and Klimov 2017) in self-play
//! for two-player zero-sum games, as the benchmark of Rudolph et al.
//! ("Reevaluating Policy Gradient Methods for Imperfect-Information
//! Games", ICLR 2026) runs it, after CleanRL: `num_envs` games stepped
//! together ([`VectorEnv`]), one actor-critic network playing both seats
//! ([`ActorCritic`]), legal actions masked out of a softmax over the
//! actor's logits; every `num_steps` steps of every game an update of
//! `update_epochs` passes over the rollout in `num_minibatches` shuffled
//! minibatches, each an Adam step ([`Adam`], gradients clipped to
//! `max_grad_norm`) on the clipped surrogate objective, the clipped value
//! loss (weight `vf_coef`) and the entropy bonus (weight `ent_coef`), with
//! advantages by GAE ([`Rollout::advantages`]), signed by the mover and
//! normalised per minibatch, and the learning rate annealed linearly to 0.
//! MMD ([`crate::rl::mmd`]) is this with one more term.
//!
//! A step is one action in one game, as the benchmark counts them: an
//! update comes every `num_envs * num_steps` steps.
//!
//! Determinism: every game has its own seeded streams for chance and for
//! its actions, the minibatches are shuffled by one seeded stream, the
//! network's products split rows and columns but never sums among threads
//! ([`crate::fa::mlp`]) and the optimiser's sums are over fixed chunks. A
//! seed gives the same bits with any thread count, and a run resumed from
//! its state ([`PpoState`], taken between updates) equals one that never
//! stopped.

use std::time::{Duration, Instant};

use candle_core::{D, DType, Device, Tensor};
use darkhex_games::{AnyGame, Game, NUM_PLAYERS, Tensors};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::fa::mlp::{MAX_HIDDEN, MlpParams};
use crate::fa::model::{ModelProvenance, PolicyHead, PolicyModel, Training};
use crate::fa::regress::RegressError;
use crate::memory::{MemoryLimit, TooLarge};
use crate::policy::sample_index;
use crate::rl::adam::{Adam, AdamState};
use crate::rl::mmd::term_weights;
use crate::rl::network::ActorCritic;
use crate::rl::rollout::Rollout;
use crate::rl::vector_env::{EnvError, EnvSnapshot, VectorEnv, has_action};

pub use crate::rl::ppo_settings::PpoSettings;

/// The logit an illegal action gets (the benchmark's): its probability
/// is 0 to the last bit.
const ILLEGAL_LOGIT: f32 = -1e9;

impl PpoSettings {
    pub fn check(&self) -> Result<(), PpoError> {
        let bad = |s: &str| Err(PpoError::BadSettings(s.to_string()));
        if self.num_envs == 0 || self.num_steps == 0 {
            return bad("a rollout needs at least one game and one step");
        }
        if self.num_minibatches == 0 || self.update_epochs == 0 {
            return bad("an update needs at least one minibatch and one epoch");
        }
        if self.minibatch_size() == 0 {
            return bad(&format!(
                "{} minibatches of a rollout of {} steps ({} games x {}) leave none a step",
                self.num_minibatches,
                self.batch_size(),
                self.num_envs,
                self.num_steps
            ));
        }
        let finite = [
            ("the learning rate", self.learning_rate, false),
            ("gamma", self.gamma, true),
            ("the GAE lambda", self.gae_lambda, true),
            ("the clip coefficient", self.clip_coef, true),
            ("the entropy coefficient", self.ent_coef, true),
            ("the value coefficient", self.vf_coef, true),
            ("the gradient norm bound", self.max_grad_norm, false),
        ];
        for (what, x, zero) in finite {
            if !(x.is_finite() && (x > 0.0 || (zero && x == 0.0))) {
                return Err(PpoError::BadSettings(format!(
                    "{what} must be a finite number {}, not {x}",
                    if zero { "of at least 0" } else { "above 0" }
                )));
            }
        }
        if let Some(m) = self.mmd
            && !(m.kl_coef.is_finite() && m.kl_coef >= 0.0)
        {
            return bad("the KL coefficient must be a finite number of at least 0");
        }
        self.network()
            .check()
            .map_err(|e| PpoError::BadSettings(format!("the network: {e}")))
    }

    /// What a run holds, in bytes: the networks with their gradients and
    /// the optimiser's moments (five copies of the weights, in f32), the
    /// rollout at its fullest, the games, and the tensors of a minibatch's
    /// forward and backward pass (each layer's activations a few times).
    pub fn memory_bytes(&self, game: &AnyGame) -> f64 {
        let inputs = game.information_state_tensor_size();
        let actions = game.num_distinct_actions();
        let net = self.network();
        let weights = net.parameters_with(inputs, actions) + net.parameters(inputs);
        let rows = self.batch_size() as f64;
        let row = 4.0 * (inputs + actions) as f64 + 4.0 * 6.0;
        let envs = f64::from(self.num_envs) * VectorEnv::bytes_per_game(game) as f64;
        let widest = net.layers().chain([inputs, actions]).max().unwrap_or(1);
        let activations = 8.0
            * self.minibatch_size().max(self.num_envs as usize) as f64
            * (widest * (net.layers().count() + 2)) as f64
            * 4.0
            * 2.0;
        // The rollout is also copied into the update's tensors.
        20.0 * weights as f64 + 2.0 * rows * row + envs + activations
    }

    /// Refuses a run past `limit` (see [`PpoSettings::memory_bytes`]).
    pub fn check_memory(&self, game: &AnyGame, limit: MemoryLimit) -> Result<(), TooLarge> {
        limit.check(
            format!(
                "{} on {game} with towers of {} and rollouts of {} steps",
                self.algorithm(),
                hidden_text(&self.hidden),
                self.batch_size()
            ),
            self.memory_bytes(game),
            "its networks, optimiser, rollout and games",
        )
    }
}

/// Hidden widths as the CLI writes them: `512,512,512`.
pub fn hidden_text(hidden: &[u32; MAX_HIDDEN]) -> String {
    let widths: Vec<String> = hidden
        .iter()
        .take_while(|&&w| w > 0)
        .map(u32::to_string)
        .collect();
    widths.join(",")
}

#[derive(Debug, Error)]
pub enum PpoError {
    #[error(transparent)]
    Regress(#[from] RegressError),
    #[error(transparent)]
    Env(#[from] EnvError),
    #[error("{0}")]
    BadSettings(String),
    #[error("the checkpoint does not fit: {0}")]
    BadCheckpoint(String),
}

fn tensor_error(e: candle_core::Error) -> PpoError {
    PpoError::Regress(RegressError::Tensor(e.to_string()))
}

/// What the last update measured (its last minibatch's losses).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct UpdateStats {
    pub learning_rate: f64,
    pub policy_loss: f64,
    pub value_loss: f64,
    pub entropy: f64,
    /// The k3 estimate of KL(π_old‖π) (the benchmark's `approx_kl`).
    pub approx_kl: f64,
    /// The share of the update's rows whose ratio was clipped.
    pub clip_fraction: f64,
    /// The gradient's norm before clipping, at the last minibatch.
    pub grad_norm: f64,
    /// Games that ended in the rollout.
    pub games: u64,
}

/// Where a run's time went (this session's only: not in checkpoints).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Times {
    pub rollout: Duration,
    pub learning: Duration,
}

/// Everything a run needs to go on, bit for bit: taken between updates,
/// when the rollout buffer is empty.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PpoState {
    pub settings: PpoSettings,
    pub steps: u64,
    pub updates: u64,
    pub actor: MlpParams,
    pub critic: MlpParams,
    pub adam: AdamState,
    pub env: EnvSnapshot,
    /// Each game's stream of action draws.
    pub action_streams: Vec<Xoshiro256PlusPlus>,
    /// The minibatch shuffler's position in its stream.
    pub shuffle_word_pos: [u64; 2],
    pub last: UpdateStats,
}

/// A PPO or MMD run.
pub struct PpoTrainer {
    game: AnyGame,
    settings: PpoSettings,
    net: ActorCritic,
    adam: Adam,
    env: VectorEnv,
    action_streams: Vec<Xoshiro256PlusPlus>,
    shuffle: ChaCha8Rng,
    steps: u64,
    updates: u64,
    /// The observations of the players to move now, one row a game.
    observations: Vec<f32>,
    rollout: Rollout,
    last: UpdateStats,
    times: Times,
}

/// The stream of game `i`'s actions (the environment's streams come from
/// the same seed by another recipe).
fn action_stream(seed: u64, i: u64) -> Xoshiro256PlusPlus {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0xA076_1D64_78BD_642F);
    for _ in 0..i {
        rng.jump();
    }
    rng
}

/// The minibatch shuffler's stream.
fn shuffler(seed: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(2);
    rng
}

impl PpoTrainer {
    /// A run of `settings` on `game` (a two-player game of any kind the
    /// vector environment steps).
    pub fn new(game: AnyGame, settings: PpoSettings) -> Result<PpoTrainer, PpoError> {
        settings.check()?;
        let inputs = game.information_state_tensor_size();
        let actions = game.num_distinct_actions();
        let net = ActorCritic::new(settings.network(), inputs, actions)?;
        let adam = Adam::new(net.vars())?;
        let n = settings.num_envs as usize;
        let env = VectorEnv::new(game, n, settings.seed, MemoryLimit::new(None))?;
        let action_streams = (0..n as u64)
            .map(|i| action_stream(settings.seed, i))
            .collect();
        Ok(Self::assemble(
            game,
            settings,
            net,
            adam,
            env,
            action_streams,
            shuffler(settings.seed),
        ))
    }

    fn assemble(
        game: AnyGame,
        settings: PpoSettings,
        net: ActorCritic,
        adam: Adam,
        env: VectorEnv,
        action_streams: Vec<Xoshiro256PlusPlus>,
        shuffle: ChaCha8Rng,
    ) -> PpoTrainer {
        let observations = env.observations();
        let rollout = Rollout::new(env.num_envs(), env.observation_size(), env.num_actions());
        PpoTrainer {
            game,
            settings,
            net,
            adam,
            env,
            action_streams,
            shuffle,
            steps: 0,
            updates: 0,
            observations,
            rollout,
            last: UpdateStats::default(),
            times: Times::default(),
        }
    }

    /// Goes on from `state`, which must be a state of a run on `game`;
    /// `steps` replaces the state's target (a resumed run may go further).
    pub fn resume(game: AnyGame, state: PpoState, steps: u64) -> Result<PpoTrainer, PpoError> {
        let mut settings = state.settings;
        settings.steps = steps;
        settings.check()?;
        let bad = |s: String| PpoError::BadCheckpoint(s);
        let inputs = game.information_state_tensor_size();
        let net = ActorCritic::with_params(settings.network(), inputs, state.actor, state.critic)
            .map_err(|e| bad(format!("its networks: {e}")))?;
        if net.actor.outputs() != game.num_distinct_actions() || net.critic.outputs() != 1 {
            return Err(bad(format!(
                "its actor has {} outputs, and {game} has {} actions",
                net.actor.outputs(),
                game.num_distinct_actions()
            )));
        }
        let adam = Adam::resume(net.vars(), state.adam)?
            .ok_or_else(|| bad("its optimiser's moments are not its networks' sizes".into()))?;
        let n = settings.num_envs as usize;
        let mut env = VectorEnv::new(game, n, settings.seed, MemoryLimit::new(None))?;
        env.restore(&state.env)?;
        if state.action_streams.len() != n {
            return Err(bad(format!(
                "it holds {} action streams for {n} games",
                state.action_streams.len()
            )));
        }
        let mut shuffle = shuffler(settings.seed);
        let [hi, lo] = state.shuffle_word_pos;
        shuffle.set_word_pos((u128::from(hi) << 64) | u128::from(lo));
        let mut trainer = Self::assemble(
            game,
            settings,
            net,
            adam,
            env,
            state.action_streams,
            shuffle,
        );
        trainer.steps = state.steps;
        trainer.updates = state.updates;
        trainer.last = state.last;
        Ok(trainer)
    }

    /// The run's state, to go on from later.
    pub fn state(&mut self) -> Result<PpoState, PpoError> {
        self.net.keep_params()?;
        let pos = self.shuffle.get_word_pos();
        Ok(PpoState {
            settings: self.settings,
            steps: self.steps,
            updates: self.updates,
            actor: self.net.actor.params().clone(),
            critic: self.net.critic.params().clone(),
            adam: self.adam.state().clone(),
            env: self.env.snapshot(),
            action_streams: self.action_streams.clone(),
            shuffle_word_pos: [(pos >> 64) as u64, pos as u64],
            last: self.last,
        })
    }

    pub fn game(&self) -> &AnyGame {
        &self.game
    }

    pub fn settings(&self) -> &PpoSettings {
        &self.settings
    }

    /// Steps taken (actions in all games).
    pub fn steps(&self) -> u64 {
        self.steps
    }

    pub fn updates(&self) -> u64 {
        self.updates
    }

    /// Whether the run has taken its steps.
    pub fn done(&self) -> bool {
        self.steps >= self.settings.steps
    }

    pub fn last_update(&self) -> &UpdateStats {
        &self.last
    }

    pub fn times(&self) -> Times {
        self.times
    }

    /// The actor's current policy as a model (the same network for both
    /// players: self-play trains one), a softmax over the legal actions'
    /// logits at each information state's tensor.
    pub fn model(&mut self) -> Result<PolicyModel, PpoError> {
        self.net.keep_params()?;
        let inputs = self.game.information_state_tensor_size();
        let actor = || {
            crate::fa::mlp::Mlp::with_params(
                self.settings.network(),
                inputs,
                self.net.actor.params().clone(),
            )
            .map(Some)
        };
        let networks = [actor()?, actor()?];
        Ok(PolicyModel::on_tensors(
            self.game,
            networks,
            PolicyHead::Softmax,
        ))
    }

    /// What the model file says of the run.
    pub fn provenance(&self, exploitability: Option<f64>) -> ModelProvenance {
        ModelProvenance {
            algorithm: self.settings.algorithm().to_string(),
            iterations: self.steps,
            exploitability,
            training: Training::PolicyGradient(self.settings),
        }
    }

    /// One update: a rollout of `num_steps` steps of every game, then the
    /// epochs over it.
    pub fn update(&mut self) -> Result<&UpdateStats, PpoError> {
        let start = Instant::now();
        let games = self.collect()?;
        let learning = Instant::now();
        self.times.rollout += learning - start;
        let lr = self.settings.learning_rate_at(self.updates);
        self.learn(lr)?;
        self.last.games = games;
        self.updates += 1;
        self.times.learning += learning.elapsed();
        Ok(&self.last)
    }

    /// Fills the rollout; returns the games that ended in it.
    fn collect(&mut self) -> Result<u64, PpoError> {
        let n = self.env.num_envs();
        let actions = self.env.num_actions();
        self.rollout.clear();
        let mut games = 0;
        let mut legal = vec![0.0f32; n * actions];
        for _ in 0..self.settings.num_steps {
            for (i, row) in legal.chunks_exact_mut(actions).enumerate() {
                let bits = self.env.legal_bits(i);
                for (a, x) in row.iter_mut().enumerate() {
                    *x = f32::from(u8::from(has_action(bits, a)));
                }
            }
            let (mut log_probs, values) =
                self.net
                    .forward_rows(&self.observations, n, rollout_threads(n))?;
            for (row, legal) in log_probs
                .chunks_exact_mut(actions)
                .zip(legal.chunks_exact(actions))
            {
                masked_log_softmax_row(row, legal);
            }
            let players = self.env.current_players();
            let mut chosen = Vec::with_capacity(n);
            for (i, rng) in self.action_streams.iter_mut().enumerate() {
                let row = &log_probs[i * actions..][..actions];
                let a = sample_index(row.iter().map(|&l| f64::from(l).exp()), rng).ok_or_else(
                    || {
                        PpoError::Regress(RegressError::Tensor(
                            "the policy gives every legal action probability 0".into(),
                        ))
                    },
                )?;
                chosen.push(a);
                self.rollout.taken.push(a as u32);
                self.rollout.log_probs.push(row[a]);
            }
            let ids: Vec<i64> = chosen.iter().map(|&a| a as i64).collect();
            let step = self.env.play(&ids);
            let r = &mut self.rollout;
            r.observations.extend_from_slice(&self.observations);
            r.legal.extend_from_slice(&legal);
            r.values.extend_from_slice(&values);
            r.players.extend(players.iter().map(|&p| p as u8));
            r.rewards
                .extend(step.rewards.chunks_exact(NUM_PLAYERS).map(|r| r[0]));
            r.dones
                .extend(step.dones.iter().map(|&d| f32::from(u8::from(d))));
            games += step.dones.iter().filter(|&&d| d).count() as u64;
            self.observations = step.observations;
            self.steps += n as u64;
        }
        Ok(games)
    }

    /// The epochs of an update over the rollout, at learning rate `lr`.
    fn learn(&mut self, lr: f64) -> Result<(), PpoError> {
        let s = self.settings;
        let n = self.env.num_envs();
        let rows = self.rollout.len();
        let actions = self.env.num_actions();
        let next = self
            .net
            .critic
            .forward_rows(&self.observations, n, rollout_threads(n))?;
        let (advantages, returns) =
            self.rollout
                .advantages(&next, s.gamma as f32, s.gae_lambda as f32);
        // The policy's advantage is the mover's: player 1's is player 0's negated.
        let signed: Vec<f32> = advantages
            .iter()
            .zip(&self.rollout.players)
            .map(|(&a, &p)| a * (1.0 - 2.0 * f32::from(p)))
            .collect();
        let r = &self.rollout;
        let cpu = &Device::Cpu;
        let all = |v: &[f32], width: usize| {
            Tensor::from_slice(v, (rows, width), cpu).map_err(tensor_error)
        };
        let x = all(&r.observations, self.env.observation_size())?;
        let bias = illegal_bias(&r.legal, rows, actions)?;
        let mut onehot = vec![0.0f32; rows * actions];
        for (k, &a) in r.taken.iter().enumerate() {
            onehot[k * actions + a as usize] = 1.0;
        }
        let onehot = all(&onehot, actions)?;
        let column = |v: &[f32]| Tensor::from_slice(v, rows, cpu).map_err(tensor_error);
        let (old_log_probs, returns_t, old_values) =
            (column(&r.log_probs)?, column(&returns)?, column(&r.values)?);
        let (ent_w, kl_w) = term_weights(s.ent_coef, s.mmd.as_ref(), self.steps, s.steps);
        let size = s.minibatch_size();
        let mut order: Vec<u32> = (0..rows as u32).collect();
        let mut stats = UpdateStats {
            learning_rate: lr,
            ..UpdateStats::default()
        };
        let (mut clipped, mut seen) = (0.0f64, 0usize);
        'epochs: for _ in 0..s.update_epochs {
            order.shuffle(&mut self.shuffle);
            for chunk in order.chunks(size) {
                let idx = Tensor::from_slice(chunk, chunk.len(), cpu).map_err(tensor_error)?;
                let pick = |t: &Tensor| t.index_select(&idx, 0);
                let mb_adv = normalised(chunk.iter().map(|&k| signed[k as usize]), s.norm_adv);
                let mb_adv = Tensor::from_vec(mb_adv, chunk.len(), cpu).map_err(tensor_error)?;
                let batch = Minibatch {
                    x: pick(&x),
                    bias: pick(&bias),
                    onehot: pick(&onehot),
                    old_log_probs: pick(&old_log_probs),
                    returns: pick(&returns_t),
                    old_values: pick(&old_values),
                    advantages: Ok(mb_adv),
                };
                let losses = self.losses(batch, ent_w, kl_w).map_err(tensor_error)?;
                let grads = losses.total.backward().map_err(tensor_error)?;
                stats.grad_norm = self.adam.step(&grads, lr, s.max_grad_norm)?;
                let scalar = |t: &Tensor| t.to_scalar::<f32>().map(f64::from);
                stats.policy_loss = scalar(&losses.policy).map_err(tensor_error)?;
                stats.value_loss = scalar(&losses.value).map_err(tensor_error)?;
                stats.entropy = scalar(&losses.entropy).map_err(tensor_error)?;
                stats.approx_kl = scalar(&losses.approx_kl).map_err(tensor_error)?;
                clipped += scalar(&losses.clipped).map_err(tensor_error)?;
                seen += chunk.len();
            }
            if s.target_kl.is_some_and(|k| stats.approx_kl > k) {
                break 'epochs;
            }
        }
        stats.clip_fraction = clipped / seen.max(1) as f64;
        self.last = stats;
        Ok(())
    }

    /// The loss of one minibatch and its parts.
    fn losses(&self, b: Minibatch, ent_w: f64, kl_w: Option<f64>) -> candle_core::Result<Losses> {
        let s = &self.settings;
        let (x, advantages) = (b.x?, b.advantages?);
        let (returns, old_values) = (b.returns?, b.old_values?);
        let (logits, values) = self.net.forward(&x)?;
        let log_probs = masked_log_softmax(&logits, &b.bias?)?;
        let new_log_prob = (&log_probs * &b.onehot?)?.sum(1)?;
        let entropy = (log_probs.exp()? * &log_probs)?.sum(1)?.neg()?;
        let log_ratio = (new_log_prob - b.old_log_probs?)?;
        let ratio = log_ratio.exp()?;
        // Policy: the clipped surrogate, as a loss.
        let (lo, hi) = (1.0 - s.clip_coef, 1.0 + s.clip_coef);
        let pg1 = (advantages.neg()? * &ratio)?;
        let pg2 = (advantages.neg()? * ratio.clamp(lo, hi)?)?;
        let policy = pg1.maximum(&pg2)?.mean_all()?;
        // Value: squared error, clipped around the rollout's values.
        let unclipped = (&values - &returns)?.sqr()?;
        let value = if s.clip_vloss {
            let moved = (&values - &old_values)?.clamp(-s.clip_coef, s.clip_coef)?;
            let clipped = ((old_values + moved)? - &returns)?.sqr()?;
            (unclipped.maximum(&clipped)?.mean_all()? * 0.5)?
        } else {
            (unclipped.mean_all()? * 0.5)?
        };
        let entropy = entropy.mean_all()?;
        let mut total = ((&policy - (&entropy * ent_w)?)? + (&value * s.vf_coef)?)?;
        if let Some(kl_w) = kl_w {
            // MMD's proximal term: the k3 estimate of KL(π‖π_old).
            let kl = ((&ratio * &log_ratio)? - (&ratio - 1.0)?)?.mean_all()?;
            total = (total + (kl * kl_w)?)?;
        }
        let approx_kl = ((&ratio - 1.0)? - &log_ratio)?.mean_all()?.detach();
        let clipped = (&ratio - 1.0)?
            .abs()?
            .gt(s.clip_coef)?
            .to_dtype(DType::F32)?
            .sum_all()?;
        Ok(Losses {
            total,
            policy: policy.detach(),
            value: value.detach(),
            entropy: entropy.detach(),
            approx_kl,
            clipped,
        })
    }
}

/// A minibatch's rows (each a row selection, checked once used).
struct Minibatch {
    x: candle_core::Result<Tensor>,
    bias: candle_core::Result<Tensor>,
    onehot: candle_core::Result<Tensor>,
    old_log_probs: candle_core::Result<Tensor>,
    returns: candle_core::Result<Tensor>,
    old_values: candle_core::Result<Tensor>,
    advantages: candle_core::Result<Tensor>,
}

struct Losses {
    total: Tensor,
    policy: Tensor,
    value: Tensor,
    entropy: Tensor,
    approx_kl: Tensor,
    /// Rows whose ratio left the clip range.
    clipped: Tensor,
}

/// 0 for the legal actions, [`ILLEGAL_LOGIT`] for the others, from rows
/// of 1 (legal) and 0.
fn illegal_bias(legal: &[f32], rows: usize, actions: usize) -> Result<Tensor, PpoError> {
    let bias: Vec<f32> = legal.iter().map(|&l| (1.0 - l) * ILLEGAL_LOGIT).collect();
    Tensor::from_vec(bias, (rows, actions), &Device::Cpu).map_err(tensor_error)
}

/// Log-probabilities of the softmax over each row's legal actions: the
/// logits plus the bias, less their log-sum-exp (the maximum subtracted
/// first is a constant to the gradient: taken detached).
pub(crate) fn masked_log_softmax(logits: &Tensor, bias: &Tensor) -> candle_core::Result<Tensor> {
    let masked = (logits + bias)?;
    let max = masked.detach().max_keepdim(D::Minus1)?;
    let shifted = masked.broadcast_sub(&max)?;
    let log_sum = shifted.exp()?.sum_keepdim(D::Minus1)?.log()?;
    shifted.broadcast_sub(&log_sum)
}

/// Rows of a rollout's batch below which its products stay on one
/// thread: a product of a few rows is over before a second thread would
/// start on it, and on a busy machine waits for a descheduled one.
const ROWS_PER_THREAD: usize = 64;

pub(crate) fn rollout_threads(rows: usize) -> usize {
    (rows / ROWS_PER_THREAD).clamp(1, rayon::current_num_threads())
}

/// A row of logits made the log-probabilities of the softmax over its
/// legal actions (`legal`: 1 legal, 0 not), in place, by the arithmetic
/// of [`masked_log_softmax`].
pub(crate) fn masked_log_softmax_row(row: &mut [f32], legal: &[f32]) {
    for (x, &l) in row.iter_mut().zip(legal) {
        *x += (1.0 - l) * ILLEGAL_LOGIT;
    }
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    row.iter_mut().for_each(|x| *x -= max);
    let log_sum = row.iter().map(|x| x.exp()).sum::<f32>().ln();
    row.iter_mut().for_each(|x| *x -= log_sum);
}

/// A minibatch's advantages, normalised (mean 0, unbiased standard
/// deviation 1, as torch's `std`) when asked.
fn normalised(values: impl Iterator<Item = f32>, normalise: bool) -> Vec<f32> {
    let v: Vec<f32> = values.collect();
    if !normalise {
        return v;
    }
    let n = v.len() as f64;
    let mean = v.iter().map(|&x| f64::from(x)).sum::<f64>() / n;
    let var = v
        .iter()
        .map(|&x| (f64::from(x) - mean).powi(2))
        .sum::<f64>()
        / (n - 1.0).max(1.0);
    let scale = var.sqrt() + 1e-8;
    v.iter()
        .map(|&x| ((f64::from(x) - mean) / scale) as f32)
        .collect()
}
