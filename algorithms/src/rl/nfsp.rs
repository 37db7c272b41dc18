//! Neural fictitious self-play (Heinrich and Silver 2016) as OpenSpiel's
//! `nfsp.py` and the benchmark of Rudolph et al. run it: one agent per
//! player, each with a best-response learner ([`Dqn`]) and an
//! average-policy network trained by supervised learning (cross-entropy
//! against the best responder's action distributions, kept in a
//! [`Reservoir`]). At the start of each game each agent plays its best
//! response with probability `anticipatory_param` (eta), else its
//! average policy; the DQN learns from the transitions of both modes,
//! the average network only from the best responder's decisions. Every
//! `learn_every` of an agent's steps the average network takes an Adam
//! step (and the DQN one more in average mode, as OpenSpiel's does). The
//! trained policy is the average networks' softmax over the legal actions.
//!
//! Games are played one at a time, as the benchmark's single
//! environment: a step is one action of one game. One seeded stream draws
//! chance, the actions, the modes and the reservoir's replacements; each
//! learner has its own minibatch stream. A run's state ([`NfspState`],
//! taken between games) resumes it bit for bit; a seed gives the same bits
//! with any thread count.

use candle_core::{Device, Tensor};
use darkhex_games::{AnyGame, Game, NUM_PLAYERS, State, Tensors, Turn};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::fa::mlp::{Mlp, MlpParams};
use crate::fa::model::{ModelProvenance, PolicyHead, PolicyModel, Training};
use crate::memory::{MemoryLimit, TooLarge};
use crate::policy::sample_index;
use crate::rl::adam::{Adam, AdamState};
use crate::rl::dqn::{Dqn, DqnError, DqnState, epsilon_greedy};
use crate::rl::ppo::{masked_log_softmax, masked_log_softmax_row};
use crate::rl::replay::{Reservoir, Transition};

pub use crate::rl::nfsp_settings::NfspSettings;

impl NfspSettings {
    pub fn check(&self) -> Result<(), DqnError> {
        let bad = |s: String| Err(DqnError::BadSettings(s));
        if !(0.0..=1.0).contains(&self.anticipatory_param) {
            return bad(format!(
                "the anticipatory parameter is a probability, from 0 to 1, not {}",
                self.anticipatory_param
            ));
        }
        if self.batch_size == 0 || self.learn_every == 0 || self.reservoir_buffer_capacity == 0 {
            return bad("the batch size, learn_every and the reservoir must be at least 1".into());
        }
        if !(self.sl_learning_rate.is_finite() && self.sl_learning_rate > 0.0) {
            return bad(format!(
                "the learning rate must be a finite number above 0, not {}",
                self.sl_learning_rate
            ));
        }
        self.dqn().check()
    }

    /// Bytes a run holds: each player's learner, average network with its
    /// optimiser, and full reservoir.
    pub fn memory_bytes(&self, game: &AnyGame) -> f64 {
        let inputs = game.information_state_tensor_size();
        let actions = game.num_distinct_actions();
        let avg = 20.0 * self.network().parameters_with(inputs, actions) as f64;
        let reservoir = Reservoir::bytes(self.reservoir_buffer_capacity as usize, inputs, actions);
        NUM_PLAYERS as f64 * (self.dqn().memory_bytes(inputs, actions) + avg + reservoir)
    }
}

impl NfspSettings {
    /// Refuses a run past `limit` (see [`NfspSettings::memory_bytes`]).
    pub fn check_memory(&self, game: &AnyGame, limit: MemoryLimit) -> Result<(), TooLarge> {
        limit.check(
            format!(
                "nfsp on {game} with reservoirs of {} and replay buffers of {}",
                self.reservoir_buffer_capacity, self.dqn.replay_buffer_capacity
            ),
            self.memory_bytes(game),
            "its networks, optimisers, replay buffers and reservoirs",
        )
    }
}

/// One player's agent as a checkpoint keeps it (between games: nothing
/// pending).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentState {
    pub dqn: DqnState,
    pub average: MlpParams,
    pub adam: AdamState,
    pub reservoir: Reservoir,
    pub sampler_word_pos: [u64; 2],
    pub best_response: bool,
    pub steps: u64,
    pub sl_loss: Option<f64>,
}

/// Everything a run needs to go on, bit for bit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NfspState {
    pub settings: NfspSettings,
    pub steps: u64,
    pub games: u64,
    pub agents: Vec<AgentState>,
    pub rng_word_pos: [u64; 2],
}

struct Agent {
    dqn: Dqn,
    average: Mlp,
    adam: Adam,
    reservoir: Reservoir,
    sampler: ChaCha8Rng,
    best_response: bool,
    steps: u64,
    sl_loss: Option<f64>,
    /// The observation and action of the agent's last decision in the game.
    prev: Option<(Vec<f32>, usize)>,
}

fn split(pos: u128) -> [u64; 2] {
    [(pos >> 64) as u64, pos as u64]
}

fn join([hi, lo]: [u64; 2]) -> u128 {
    (u128::from(hi) << 64) | u128::from(lo)
}

fn stream(seed: u64, stream: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x2545_F491_4F6C_DD1D);
    rng.set_stream(stream);
    rng
}

impl Agent {
    /// A decision at `obs` with legal actions `legal`: the action.
    fn decide(
        &mut self,
        obs: &[f32],
        legal: &[u64],
        rng: &mut ChaCha8Rng,
        settings: &NfspSettings,
    ) -> Result<usize, DqnError> {
        let actions = self.average.outputs();
        let action = if self.best_response {
            let q = self.dqn.q_values(obs, 1)?;
            let (a, probs) = epsilon_greedy(&q, legal, self.dqn.epsilon(), rng)
                .ok_or_else(|| DqnError::BadState("a decision without legal actions".into()))?;
            self.dqn.tick()?;
            self.push(obs, legal, 0.0, false);
            self.reservoir.add(obs, &probs, rng);
            a
        } else {
            let mut row = self.average.forward_rows(obs, 1, 1)?;
            let mask: Vec<f32> = (0..actions)
                .map(|k| f32::from(u8::from(crate::rl::vector_env::has_action(legal, k))))
                .collect();
            masked_log_softmax_row(&mut row, &mask);
            self.push(obs, legal, 0.0, false);
            sample_index(
                row.iter()
                    .zip(&mask)
                    .map(|(&l, &m)| if m > 0.0 { f64::from(l).exp() } else { 0.0 }),
                rng,
            )
            .ok_or_else(|| DqnError::BadState("a decision without legal actions".into()))?
        };
        self.count(settings)?;
        self.prev = Some((obs.to_vec(), action));
        Ok(action)
    }

    /// The game ended with `reward` to this agent.
    fn finish(&mut self, reward: f64, settings: &NfspSettings) -> Result<(), DqnError> {
        if self.best_response {
            self.dqn.tick()?;
        }
        self.push(&[], &[], reward as f32, true);
        self.count(settings)?;
        self.prev = None;
        Ok(())
    }

    /// The transition from the last decision to this point.
    fn push(&mut self, obs: &[f32], legal: &[u64], reward: f32, done: bool) {
        if let Some((before, action)) = self.prev.take() {
            self.dqn.push(&Transition {
                observation: &before,
                action,
                reward,
                next_observation: obs,
                next_legal: legal,
                done,
            });
        }
    }

    /// Counts a step; learns when due.
    fn count(&mut self, settings: &NfspSettings) -> Result<(), DqnError> {
        self.steps += 1;
        if self.steps.is_multiple_of(u64::from(settings.learn_every)) {
            if let Some(loss) = self.learn(settings)? {
                self.sl_loss = Some(loss);
            }
            if !self.best_response {
                self.dqn.learn()?;
            }
        }
        Ok(())
    }

    /// One Adam step of the average network on the cross-entropy to the
    /// best responder's distributions, if the reservoir holds enough.
    fn learn(&mut self, s: &NfspSettings) -> Result<Option<f64>, DqnError> {
        let held = self.reservoir.len();
        if held < s.batch_size as usize || held < s.min_buffer_size_to_learn as usize {
            return Ok(None);
        }
        let (x, y) = self
            .reservoir
            .sample(s.batch_size as usize, &mut self.sampler);
        let rows = y.len() / self.reservoir.actions;
        let (inputs, actions) = (self.reservoir.width, self.reservoir.actions);
        let tensor = |e: candle_core::Error| {
            DqnError::Regress(crate::fa::regress::RegressError::Tensor(e.to_string()))
        };
        let loss = (|| {
            let cpu = &Device::Cpu;
            let x = Tensor::from_vec(x, (rows, inputs), cpu)?;
            let y = Tensor::from_vec(y, (rows, actions), cpu)?;
            let logits = self.average.forward(&x)?;
            let zero = Tensor::zeros((rows, actions), candle_core::DType::F32, cpu)?;
            let log_probs = masked_log_softmax(&logits, &zero)?;
            (y * log_probs)?.sum(1)?.mean_all()?.neg()
        })()
        .map_err(tensor)?;
        let grads = loss.backward().map_err(tensor)?;
        self.adam.step(&grads, s.sl_learning_rate, f64::INFINITY)?;
        Ok(Some(f64::from(loss.to_scalar::<f32>().map_err(tensor)?)))
    }

    fn state(&mut self) -> Result<AgentState, DqnError> {
        self.average.keep_params()?;
        Ok(AgentState {
            dqn: self.dqn.state()?,
            average: self.average.params().clone(),
            adam: self.adam.state().clone(),
            reservoir: self.reservoir.clone(),
            sampler_word_pos: split(self.sampler.get_word_pos()),
            best_response: self.best_response,
            steps: self.steps,
            sl_loss: self.sl_loss,
        })
    }
}

/// An NFSP run.
pub struct NfspTrainer {
    game: AnyGame,
    settings: NfspSettings,
    agents: Vec<Agent>,
    rng: ChaCha8Rng,
    steps: u64,
    games: u64,
}

impl NfspTrainer {
    pub fn new(game: AnyGame, settings: NfspSettings) -> Result<NfspTrainer, DqnError> {
        settings.check()?;
        let inputs = game.information_state_tensor_size();
        let actions = game.num_distinct_actions();
        let mut rng = stream(settings.seed, 0);
        let agents = (0..NUM_PLAYERS as u64)
            .map(|p| {
                // Streams 0 and 1 of the seed draw the Q-networks (see
                // `Dqn::new`), 2 and 3 the average networks.
                let dqn = Dqn::new(settings.dqn(), inputs, actions, p)?;
                let average = Mlp::with_outputs(settings.network(), inputs, actions, 2 + p)?;
                let adam = Adam::new(average.vars().cloned().collect())?;
                Ok(Agent {
                    dqn,
                    average,
                    adam,
                    reservoir: Reservoir::new(
                        settings.reservoir_buffer_capacity as usize,
                        inputs,
                        actions,
                    ),
                    sampler: stream(settings.seed, 1 + p),
                    best_response: rng.random::<f64>() < settings.anticipatory_param,
                    steps: 0,
                    sl_loss: None,
                    prev: None,
                })
            })
            .collect::<Result<_, DqnError>>()?;
        Ok(NfspTrainer {
            game,
            settings,
            agents,
            rng,
            steps: 0,
            games: 0,
        })
    }

    /// Goes on from `state` (a run on `game`); `steps` replaces its target.
    pub fn resume(game: AnyGame, state: NfspState, steps: u64) -> Result<NfspTrainer, DqnError> {
        let mut settings = state.settings;
        settings.steps = steps;
        settings.check()?;
        let inputs = game.information_state_tensor_size();
        let actions = game.num_distinct_actions();
        if state.agents.len() != NUM_PLAYERS {
            return Err(DqnError::BadState(format!(
                "it holds {} agents",
                state.agents.len()
            )));
        }
        let agents = state
            .agents
            .into_iter()
            .enumerate()
            .map(|(p, a)| {
                let average =
                    Mlp::with_params(settings.network(), inputs, a.average).map_err(|e| {
                        DqnError::BadState(format!("player {p}'s average network: {e}"))
                    })?;
                if average.outputs() != actions {
                    return Err(DqnError::BadState(format!(
                        "player {p}'s average network does not have {actions} outputs"
                    )));
                }
                let r = &a.reservoir;
                if r.width != inputs
                    || r.actions != actions
                    || r.targets.len() != r.len() * actions
                    || r.len() > r.capacity
                {
                    return Err(DqnError::BadState(format!("player {p}'s reservoir")));
                }
                let adam = Adam::resume(average.vars().cloned().collect(), a.adam)?
                    .ok_or_else(|| DqnError::BadState(format!("player {p}'s optimiser")))?;
                let mut sampler = stream(settings.seed, 1 + p as u64);
                sampler.set_word_pos(join(a.sampler_word_pos));
                Ok(Agent {
                    dqn: Dqn::resume(a.dqn, actions)?,
                    average,
                    adam,
                    reservoir: a.reservoir,
                    sampler,
                    best_response: a.best_response,
                    steps: a.steps,
                    sl_loss: a.sl_loss,
                    prev: None,
                })
            })
            .collect::<Result<_, DqnError>>()?;
        let mut rng = stream(settings.seed, 0);
        rng.set_word_pos(join(state.rng_word_pos));
        Ok(NfspTrainer {
            game,
            settings,
            agents,
            rng,
            steps: state.steps,
            games: state.games,
        })
    }

    /// The run's state (between games).
    pub fn state(&mut self) -> Result<NfspState, DqnError> {
        Ok(NfspState {
            settings: self.settings,
            steps: self.steps,
            games: self.games,
            agents: self
                .agents
                .iter_mut()
                .map(Agent::state)
                .collect::<Result<_, _>>()?,
            rng_word_pos: split(self.rng.get_word_pos()),
        })
    }

    pub fn game(&self) -> &AnyGame {
        &self.game
    }

    pub fn settings(&self) -> &NfspSettings {
        &self.settings
    }

    pub fn steps(&self) -> u64 {
        self.steps
    }

    pub fn games(&self) -> u64 {
        self.games
    }

    pub fn done(&self) -> bool {
        self.steps >= self.settings.steps
    }

    /// Each player's last losses: the average network's and the DQN's.
    pub fn losses(&self) -> [(Option<f64>, Option<f64>); NUM_PLAYERS] {
        [0, 1].map(|p| (self.agents[p].sl_loss, self.agents[p].dqn.last_loss()))
    }

    /// Plays one game, every agent learning as it goes.
    pub fn play_game(&mut self) -> Result<(), DqnError> {
        let mut state = self.game.new_initial_state();
        let width = self.game.information_state_tensor_size();
        let mut obs = vec![0.0f32; width];
        let mut legal = vec![0u64; self.game.num_distinct_actions().div_ceil(64)];
        let mut buf = Vec::new();
        loop {
            match state.current_player() {
                Turn::Terminal => break,
                Turn::Chance => {
                    let outcomes = state.chance_outcomes();
                    let i = sample_index(outcomes.iter().map(|o| o.1), &mut self.rng).unwrap_or(0);
                    state.apply(outcomes[i].0);
                }
                Turn::Player(p) => {
                    obs.fill(0.0);
                    self.game.information_state_tensor(&state, p, &mut obs);
                    state.legal_mask_into(&mut buf, &mut legal);
                    let a = self.agents[p].decide(&obs, &legal, &mut self.rng, &self.settings)?;
                    state.apply(a as darkhex_games::Action);
                    self.steps += 1;
                }
            }
        }
        let returns = state.returns();
        for (p, agent) in self.agents.iter_mut().enumerate() {
            agent.finish(returns[p], &self.settings)?;
            agent.best_response = self.rng.random::<f64>() < self.settings.anticipatory_param;
        }
        self.games += 1;
        Ok(())
    }

    /// What a saved model says of this run.
    pub fn provenance(&self, exploitability: Option<f64>) -> ModelProvenance {
        ModelProvenance {
            algorithm: "nfsp".to_string(),
            iterations: self.steps,
            exploitability,
            training: Training::Nfsp(self.settings),
        }
    }

    /// The average policy: each player's average network, a softmax over
    /// the legal actions' outputs.
    pub fn model(&mut self) -> Result<PolicyModel, DqnError> {
        let inputs = self.game.information_state_tensor_size();
        let mut networks = [None, None];
        for (p, agent) in self.agents.iter_mut().enumerate() {
            agent.average.keep_params()?;
            networks[p] = Some(Mlp::with_params(
                self.settings.network(),
                inputs,
                agent.average.params().clone(),
            )?);
        }
        Ok(PolicyModel::on_tensors(
            self.game,
            networks,
            PolicyHead::Softmax,
        ))
    }
}
