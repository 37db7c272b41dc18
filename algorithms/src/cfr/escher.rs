//! ESCHER (McAleer, Farina, Lanctot and Sandholm, "ESCHER: Eschewing
//! Importance Sampling in Games by Computing a History Value Function to
//! Estimate Regret", ICLR 2023), as the benchmark of Rudolph et al.
//! (IIG-RL-Benchmark, `escher_parallel`) runs it, on Deep CFR's pieces
//! ([`crate::cfr::deep_cfr`]: reservoirs, iteration-weighted fits from
//! fresh weights, regret matching on a network, the policy networks that
//! make the model).
//!
//! Each iteration `t`:
//!
//! 1. **History values.** `value_traversals` trajectories from the root,
//!    each action drawn from the current policy mixed with
//!    `value_exploration` of the uniform one, chance from its own
//!    probabilities. At every decision the history's sample is player 0's
//!    return times the product, from that decision to the end, of the
//!    policy's probability of each action over the sampling one's (the
//!    benchmark's target; the mix keeps the ratios near 1). A value network
//!    on the history (both players' observation features side by side: the
//!    two information states together) is fitted to this iteration's
//!    samples from fresh weights, unweighted.
//! 2. **Regrets.** For each player, `regret_traversals` trajectories: at
//!    the traverser's decisions the action is drawn uniformly (the fixed
//!    sampling policy), at the opponent's from the opponent's current
//!    policy. At each of the traverser's decisions every action's value
//!    q(h, a) is the history value network at the child (the returns
//!    where the child is terminal, the outcomes' mean where it is chance),
//!    and the sample is q(h, a) - Σ π(h, a') q(h, a') for every legal `a`,
//!    with no importance weight: the sampling policy is fixed, so the
//!    expected sample at an information state is its regret times a
//!    constant of that state, which regret matching does not see. At the
//!    opponent's decisions its current policy goes into its policy
//!    reservoir.
//! 3. Each player's regret network is fitted from fresh weights to its
//!    whole regret reservoir, each sample weighted by its iteration; the
//!    current policy is regret matching on it (uniform before the first
//!    fit; the highest prediction where none is positive).
//!
//! The output model is each player's policy network fitted to its policy
//! reservoir, weighted by iteration, as Deep CFR's: a
//! [`PolicyModel`] with clipped outputs, which `exploit`, `play`, the league
//! and Python read.
//!
//! Where the benchmark differs: its regret samples multiply the values by
//! the inverse of the traverser's own sampling reach (clipped at 100;
//! `importance_sampling` defaults on there), q(h, a) by a further 1/σ(a)
//! and v(h) not, and take v(h) from the value network rather than from
//! Σ π q; here the estimator is the paper's, without weights. Its networks
//! have skip connections and leaky ReLUs; these are [`crate::fa::mlp`]'s.
//!
//! Determinism: trajectory `i` of (iteration, phase) draws from its own
//! position of a seeded stream, the trajectories run on rayon's threads
//! with the networks called on each thread alone, and their samples are
//! offered to the reservoirs in trajectory order; every fit shuffles its
//! rows with a seeded stream and starts from weights drawn from the
//! network settings' seed. So a seed gives the same bits with any number of
//! threads.

use std::path::Path;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use darkhex_games::{Action, AnyGame, AnyState, Game, NUM_PLAYERS, State, Token, Turn};

use crate::cfr::deep_cfr::{
    DeepCfrError, FitTo, Reservoir, ReservoirState, Sample, matched_strategy,
};
use crate::cfr::mccfr::sample_index;
use crate::cfr::training::CHECKPOINT_VERSION;
use crate::fa::features::{FeatureKind, FeatureMap};
use crate::fa::mlp::{Mlp, MlpParams, MlpSettings};
use crate::fa::model::{ModelProvenance, PolicyModel, Training};
use crate::fa::regress::RegressError;
use crate::files::{self, Document, Encoding, FileError, FileKind};
use crate::memory::{MemoryLimit, TooLarge};
use crate::policy_file::{PolicyError, require_game};
use crate::rl::exact::CurvePoint;
use crate::rl::presets::{PresetError, RUDOLPH2026};

pub use crate::cfr::escher_settings::EscherSettings;

/// ESCHER's errors are Deep CFR's.
pub type EscherError = DeepCfrError;

impl EscherSettings {
    /// The most the four reservoirs hold once full, and one iteration's
    /// value samples, in bytes, at the game's longest key and widest move.
    pub fn memory_bytes(&self, game: &AnyGame) -> f64 {
        const ALLOCATION: usize = 16;
        let key = size_of::<Token>() * game.max_game_length() + ALLOCATION;
        let sample = size_of::<Sample>()
            + key
            + (size_of::<Action>() + size_of::<f64>()) * game.num_distinct_actions()
            + 2 * ALLOCATION;
        let reservoirs = (self.regret_capacity + self.policy_capacity) as f64 * sample as f64;
        let values = f64::from(self.value_traversals)
            * game.max_game_length() as f64
            * (size_of::<ValueSample>() + 2 * key) as f64;
        NUM_PLAYERS as f64 * reservoirs + values
    }

    /// Refuses settings whose buffers, once full, would hold more than
    /// `limit`.
    pub fn check_memory(&self, game: &AnyGame, limit: MemoryLimit) -> Result<(), TooLarge> {
        limit.check(
            format!(
                "ESCHER's reservoirs of {} regret and {} policy samples a player and {} value trajectories on {game}",
                self.regret_capacity, self.policy_capacity, self.value_traversals
            ),
            self.memory_bytes(game),
            "full, at the game's longest key and widest move",
        )
    }

    pub fn check(&self) -> Result<(), EscherError> {
        let bad = |s: &str| Err(DeepCfrError::BadSettings(s.into()));
        if self.regret_traversals == 0 || self.value_traversals == 0 {
            return bad("ESCHER needs at least one regret and one value trajectory per iteration");
        }
        if self.regret_capacity == 0 || self.policy_capacity == 0 {
            return bad("the reservoirs need room for at least one sample");
        }
        if !(0.0..=1.0).contains(&self.value_exploration) {
            return bad("the value trajectories' exploration is a share, 0 to 1");
        }
        if self.iterations >= 1 << 60 {
            return bad("ESCHER runs fewer than 2^60 iterations");
        }
        for (what, n) in [
            ("regret", self.regret_network),
            ("value", self.value_network),
            ("policy", self.policy_network),
        ] {
            n.check()
                .map_err(|e| DeepCfrError::BadSettings(format!("the {what} network: {e}")))?;
        }
        Ok(())
    }
}

/// One history of a value trajectory: both players' information states
/// there and player 0's sampled return from it.
#[derive(Clone, Debug, PartialEq)]
struct ValueSample {
    keys: [Box<[Token]>; NUM_PLAYERS],
    target: f64,
}

/// Everything an ESCHER run needs to continue bit for bit: the settings,
/// the iterations done, each player's regret network and reservoirs, and
/// the work counters. (The value network is fitted afresh each iteration
/// from that iteration's trajectories; the trajectories' and fits'
/// generators are positioned by the iteration.)
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EscherState {
    pub settings: EscherSettings,
    pub iteration: u64,
    pub regret: [Option<MlpParams>; NUM_PLAYERS],
    pub regrets: [ReservoirState; NUM_PLAYERS],
    pub policies: [ReservoirState; NUM_PLAYERS],
    pub traversals: u64,
    pub nodes: u64,
}

/// Where a run's time and work went.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EscherStats {
    /// Trajectories, value and regret ones.
    pub traversals: u64,
    /// Histories the trajectories passed (terminal and chance included).
    pub nodes: u64,
    /// The last iteration's value samples.
    pub value_samples: usize,
    pub traversal_time: Duration,
    pub fit_time: Duration,
}

/// Streams of the seed, one purpose each: reservoirs, fits' row orders,
/// and (past `STREAM_WALKS`) one per iteration and phase of trajectories.
const STREAM_REGRETS: u64 = 1;
const STREAM_POLICIES: u64 = STREAM_REGRETS + NUM_PLAYERS as u64;
const STREAM_SHUFFLE: u64 = STREAM_POLICIES + NUM_PLAYERS as u64;
const STREAM_WALKS: u64 = 1 << 63;
/// The networks' initial weights' streams.
const WEIGHTS_REGRET: u64 = 0;
const WEIGHTS_VALUE: u64 = NUM_PLAYERS as u64;
const WEIGHTS_POLICY: u64 = WEIGHTS_VALUE + 1;

/// An ESCHER run on one game.
pub struct EscherSolver {
    game: AnyGame,
    settings: EscherSettings,
    map: FeatureMap,
    iteration: u64,
    /// Each player's regret network, none before its first fit.
    regret: [Option<Mlp>; NUM_PLAYERS],
    regrets: [Reservoir<Sample>; NUM_PLAYERS],
    policies: [Reservoir<Sample>; NUM_PLAYERS],
    /// The policy networks and the iteration they were fitted at.
    model: Option<(PolicyModel, u64)>,
    stats: EscherStats,
}

/// What the trajectories read: the game's features and the current
/// policies' networks.
struct Walker<'a> {
    game: &'a AnyGame,
    map: &'a FeatureMap,
    regret: &'a [Option<Mlp>; NUM_PLAYERS],
}

/// One trajectory's samples and histories passed.
#[derive(Default)]
struct Walk {
    regrets: Vec<Sample>,
    policies: Vec<Sample>,
    values: Vec<ValueSample>,
    nodes: u64,
}

impl Walker<'_> {
    /// `player`'s current policy at `key`: regret matching on its regret
    /// network, uniform before its first fit.
    fn policy(
        &self,
        player: usize,
        key: &[Token],
        actions: &[Action],
    ) -> Result<Vec<f64>, RegressError> {
        let Some(net) = &self.regret[player] else {
            return Ok(vec![1.0 / actions.len() as f64; actions.len()]);
        };
        let mut row = vec![0.0f64; self.map.observation_width()];
        self.map.write_observation(player, key, &mut row);
        let x: Vec<f32> = row.iter().map(|&v| v as f32).collect();
        let mut outputs = vec![0.0; self.game.num_distinct_actions()];
        net.predict_here(&x, &mut outputs)?;
        let predicted: Vec<f64> = actions.iter().map(|&a| outputs[a as usize]).collect();
        Ok(matched_strategy(&predicted))
    }

    /// The history's input to the value network: each player's
    /// observation features, player 0's first.
    fn write_history(&self, keys: [&[Token]; NUM_PLAYERS], out: &mut [f64]) {
        let width = self.map.observation_width();
        for (p, key) in keys.into_iter().enumerate() {
            self.map
                .write_observation(p, key, &mut out[p * width..(p + 1) * width]);
        }
    }

    /// A value trajectory: player 0's sampled returns at its decisions.
    fn value_walk(&self, exploration: f64, rng: &mut ChaCha8Rng) -> Result<Walk, RegressError> {
        let mut walk = Walk::default();
        let mut state = self.game.new_initial_state();
        // Each decision's history and the ratio of the policy's
        // probability of the action taken to the sampling one's.
        let mut path: Vec<([Box<[Token]>; NUM_PLAYERS], f64)> = Vec::new();
        loop {
            walk.nodes += 1;
            match state.current_player() {
                Turn::Terminal => break,
                Turn::Chance => {
                    let outcomes = state.chance_outcomes();
                    let probs: Vec<f64> = outcomes.iter().map(|o| o.1).collect();
                    state.apply(outcomes[sample_index(&probs, rng)].0);
                }
                Turn::Player(mover) => {
                    let actions = state.legal_actions();
                    let sigma = self.policy(mover, state.info_key(mover), &actions)?;
                    let uniform = 1.0 / actions.len() as f64;
                    let sampling: Vec<f64> = sigma
                        .iter()
                        .map(|&p| exploration * uniform + (1.0 - exploration) * p)
                        .collect();
                    let i = sample_index(&sampling, rng);
                    let keys = std::array::from_fn(|p| state.info_key(p).into());
                    path.push((keys, sigma[i] / sampling[i]));
                    state.apply(actions[i]);
                }
            }
        }
        let mut target = state.returns()[0];
        for (keys, ratio) in path.into_iter().rev() {
            target *= ratio;
            walk.values.push(ValueSample { keys, target });
        }
        walk.values.reverse();
        Ok(walk)
    }

    /// A regret trajectory of `player`, its actions' values from the
    /// history value network `value`: its regret samples and the
    /// opponent's policies.
    fn regret_walk(
        &self,
        value: &Mlp,
        player: usize,
        iteration: u64,
        rng: &mut ChaCha8Rng,
    ) -> Result<Walk, RegressError> {
        let mut walk = Walk::default();
        let mut state = self.game.new_initial_state();
        loop {
            walk.nodes += 1;
            match state.current_player() {
                Turn::Terminal => break,
                Turn::Chance => {
                    let outcomes = state.chance_outcomes();
                    let probs: Vec<f64> = outcomes.iter().map(|o| o.1).collect();
                    state.apply(outcomes[sample_index(&probs, rng)].0);
                }
                Turn::Player(mover) => {
                    let actions = state.legal_actions();
                    let key = state.info_key(mover);
                    let sigma = self.policy(mover, key, &actions)?;
                    let i = if mover == player {
                        let q = self.action_values(value, &state, &actions, player)?;
                        let v: f64 = q.iter().zip(&sigma).map(|(q, p)| q * p).sum();
                        walk.regrets.push(Sample {
                            key: key.into(),
                            actions: actions.clone(),
                            iteration,
                            values: q.iter().map(|q| q - v).collect(),
                        });
                        rng.random_range(0..actions.len())
                    } else {
                        let i = sample_index(&sigma, rng);
                        walk.policies.push(Sample {
                            key: key.into(),
                            actions: actions.clone(),
                            iteration,
                            values: sigma,
                        });
                        i
                    };
                    state.apply(actions[i]);
                }
            }
        }
        Ok(walk)
    }

    /// Each action's value to `player` at `state`: the returns at a
    /// terminal child, the history value network elsewhere (the mean over
    /// chance outcomes at a chance child), in one network call.
    fn action_values(
        &self,
        value: &Mlp,
        state: &AnyState,
        actions: &[Action],
        player: usize,
    ) -> Result<Vec<f64>, RegressError> {
        let sign = if player == 0 { 1.0 } else { -1.0 };
        let mut q = vec![0.0; actions.len()];
        // (action, probability) of the children the network values.
        let mut pending: Vec<(usize, f64)> = Vec::new();
        let width = 2 * self.map.observation_width();
        let mut rows: Vec<f64> = Vec::new();
        for (i, &a) in actions.iter().enumerate() {
            let mut child = state.clone();
            child.apply(a);
            let mut leaves = Vec::new();
            decisions(child, 1.0, &mut leaves);
            for (p, leaf) in leaves {
                if leaf.is_terminal() {
                    q[i] += p * leaf.returns()[player];
                } else {
                    let at = rows.len();
                    rows.resize(at + width, 0.0);
                    self.write_history([leaf.info_key(0), leaf.info_key(1)], &mut rows[at..]);
                    pending.push((i, p));
                }
            }
        }
        if !pending.is_empty() {
            let x: Vec<f32> = rows.iter().map(|&v| v as f32).collect();
            let mut values = vec![0.0; pending.len()];
            value.predict_here(&x, &mut values)?;
            for ((i, p), v) in pending.into_iter().zip(values) {
                q[i] += p * sign * v;
            }
        }
        Ok(q)
    }
}

/// The decisions and terminals `state` leads to through chance alone,
/// with their probabilities (times `prob`).
fn decisions(state: AnyState, prob: f64, out: &mut Vec<(f64, AnyState)>) {
    if state.current_player() != Turn::Chance {
        out.push((prob, state));
        return;
    }
    for (outcome, p) in state.chance_outcomes() {
        let mut child = state.clone();
        child.apply(outcome);
        decisions(child, prob * p, out);
    }
}

/// Trajectory `i`'s generator of phase `phase` (0 the values, 1 + p
/// player p's regrets) of iteration `t`.
fn walk_rng(seed: u64, t: u64, phase: u64, i: u32) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(STREAM_WALKS | (t << 2) | phase);
    rng.set_word_pos(u128::from(i) << 32);
    rng
}

impl EscherSolver {
    pub fn new(game: AnyGame, settings: EscherSettings) -> Result<EscherSolver, EscherError> {
        settings.check()?;
        let map = FeatureMap::new(FeatureKind::Observation, &game, [0; NUM_PLAYERS]);
        let seed = settings.seed;
        Ok(EscherSolver {
            regrets: std::array::from_fn(|p| {
                Reservoir::new(settings.regret_capacity, seed, STREAM_REGRETS + p as u64)
            }),
            policies: std::array::from_fn(|p| {
                Reservoir::new(settings.policy_capacity, seed, STREAM_POLICIES + p as u64)
            }),
            game,
            settings,
            map,
            iteration: 0,
            regret: Default::default(),
            model: None,
            stats: EscherStats::default(),
        })
    }

    pub fn settings(&self) -> EscherSettings {
        self.settings
    }

    /// Iterations finished.
    pub fn iteration(&self) -> u64 {
        self.iteration
    }

    pub fn stats(&self) -> EscherStats {
        self.stats
    }

    /// Each player's regret and policy reservoirs.
    pub fn reservoirs(&self, player: usize) -> (&Reservoir<Sample>, &Reservoir<Sample>) {
        (&self.regrets[player], &self.policies[player])
    }

    /// The run's state, for a checkpoint.
    pub fn state(&self) -> EscherState {
        EscherState {
            settings: self.settings,
            iteration: self.iteration,
            regret: std::array::from_fn(|p| self.regret[p].as_ref().map(|n| n.params().clone())),
            regrets: std::array::from_fn(|p| self.regrets[p].state()),
            policies: std::array::from_fn(|p| self.policies[p].state()),
            traversals: self.stats.traversals,
            nodes: self.stats.nodes,
        }
    }

    /// The run `state` was taken of, to continue up to `iterations` (the
    /// other settings are the checkpoint's).
    pub fn resume(
        game: AnyGame,
        state: EscherState,
        iterations: u64,
    ) -> Result<EscherSolver, EscherError> {
        let settings = EscherSettings {
            iterations,
            ..state.settings
        };
        let mut solver = EscherSolver::new(game, settings)?;
        let EscherState {
            iteration,
            regret,
            regrets,
            policies,
            traversals,
            nodes,
            ..
        } = state;
        let players = regrets.into_iter().zip(policies).zip(regret);
        for (p, ((r, s), params)) in players.enumerate() {
            solver.regrets[p].restore(r)?;
            solver.policies[p].restore(s)?;
            if let Some(params) = params {
                let width = solver.map.observation_width();
                solver.regret[p] = Some(Mlp::with_params(settings.regret_network, width, params)?);
            }
        }
        solver.iteration = iteration;
        solver.stats.traversals = traversals;
        solver.stats.nodes = nodes;
        Ok(solver)
    }

    /// Every iteration the settings ask for, then the policy networks.
    pub fn run(&mut self) -> Result<(), EscherError> {
        while self.iteration < self.settings.iterations {
            self.iterate()?;
        }
        self.train_policy()
    }

    fn fit_to(&self, stream: u64, t: u64) -> FitTo<'_> {
        FitTo {
            game: &self.game,
            map: &self.map,
            seed: self.settings.seed,
            stream: STREAM_SHUFFLE + stream,
            t,
        }
    }

    /// `n` trajectories of phase `phase`, on rayon's threads, in order.
    fn walks(
        &self,
        t: u64,
        phase: u64,
        n: u32,
        walk: impl Fn(&mut ChaCha8Rng) -> Result<Walk, RegressError> + Sync,
    ) -> Result<Vec<Walk>, RegressError> {
        let seed = self.settings.seed;
        (0..n)
            .into_par_iter()
            .map(|i| walk(&mut walk_rng(seed, t, phase, i)))
            .collect()
    }

    /// One iteration: the history values, then each player's regret
    /// trajectories (all under the policies of the iteration's start),
    /// then each player's regret fit.
    pub fn iterate(&mut self) -> Result<(), EscherError> {
        let t = self.iteration + 1;
        let start = Instant::now();
        let s = self.settings;
        let walker = Walker {
            game: &self.game,
            map: &self.map,
            regret: &self.regret,
        };
        let walks = self.walks(t, 0, s.value_traversals, |rng| {
            walker.value_walk(s.value_exploration, rng)
        })?;
        let samples: Vec<ValueSample> = walks.into_iter().flat_map(|w| w.values).collect();
        let nodes_so_far = self.stats.nodes;
        let value_start = Instant::now();
        let mut traversal_time = value_start - start;
        let width = 2 * self.map.observation_width();
        let value = self.fit_to(2 * NUM_PLAYERS as u64, t).rows(
            samples.len(),
            width,
            1,
            s.value_network,
            WEIGHTS_VALUE,
            |i, row, target, legal| {
                let v = &samples[i];
                walker.write_history([&v.keys[0], &v.keys[1]], row);
                target[0] = v.target;
                legal[0] = true;
                1.0
            },
        )?;
        let mut fit_time = value_start.elapsed();
        let mut nodes = 0;
        let mut by_player = Vec::with_capacity(NUM_PLAYERS);
        for player in 0..NUM_PLAYERS {
            let at = Instant::now();
            let walks = self.walks(t, 1 + player as u64, s.regret_traversals, |rng| {
                walker.regret_walk(&value, player, t, rng)
            })?;
            traversal_time += at.elapsed();
            by_player.push(walks);
        }
        let value_samples = samples.len();
        drop(samples);
        for (player, walks) in by_player.into_iter().enumerate() {
            for w in walks {
                nodes += w.nodes;
                w.regrets
                    .into_iter()
                    .for_each(|r| self.regrets[player].push(r));
                let opponent = 1 - player;
                w.policies
                    .into_iter()
                    .for_each(|p| self.policies[opponent].push(p));
            }
        }
        let at = Instant::now();
        for player in 0..NUM_PLAYERS {
            let fit = self.fit_to(player as u64, t);
            self.regret[player] = fit.samples(
                self.regrets[player].items(),
                player,
                s.regret_network,
                WEIGHTS_REGRET + player as u64,
            )?;
        }
        fit_time += at.elapsed();
        self.stats.nodes = nodes_so_far + nodes;
        self.stats.traversals +=
            u64::from(s.value_traversals) + NUM_PLAYERS as u64 * u64::from(s.regret_traversals);
        self.stats.value_samples = value_samples;
        self.stats.traversal_time += traversal_time;
        self.stats.fit_time += fit_time;
        self.iteration = t;
        Ok(())
    }

    /// Fits each player's policy network to its policy reservoir (a
    /// function of the reservoirs alone: fitting it between iterations
    /// changes nothing of the run).
    pub fn train_policy(&mut self) -> Result<(), EscherError> {
        if self.model.as_ref().is_some_and(|m| m.1 == self.iteration) {
            return Ok(());
        }
        let start = Instant::now();
        let mut networks: [Option<Mlp>; NUM_PLAYERS] = Default::default();
        for (player, net) in networks.iter_mut().enumerate() {
            *net = self.fit_to(NUM_PLAYERS as u64 + player as u64, 0).samples(
                self.policies[player].items(),
                player,
                self.settings.policy_network,
                WEIGHTS_POLICY + player as u64,
            )?;
        }
        let model = PolicyModel::new(self.game, self.map.clone(), networks);
        self.model = Some((model, self.iteration));
        self.stats.fit_time += start.elapsed();
        Ok(())
    }

    /// The learned average policy, once [`EscherSolver::train_policy`] has
    /// fitted it.
    pub fn model(&self) -> Result<&PolicyModel, EscherError> {
        self.model
            .as_ref()
            .map(|m| &m.0)
            .ok_or(DeepCfrError::NoPolicy)
    }

    /// The learned average policy, taken out of the run, once
    /// [`EscherSolver::train_policy`] has fitted it.
    pub fn into_model(self) -> Result<PolicyModel, EscherError> {
        self.model.map(|m| m.0).ok_or(DeepCfrError::NoPolicy)
    }

    /// What a saved model says of this run.
    pub fn provenance(&self, exploitability: Option<f64>) -> ModelProvenance {
        ModelProvenance {
            algorithm: "escher".to_string(),
            iterations: self.iteration,
            exploitability,
            training: Training::Escher(self.settings),
        }
    }
}

/// An ESCHER checkpoint file (`darkhex train --algo escher --checkpoint`),
/// always the checksummed binary form: the run's state, its training
/// seconds across resumed runs and its exploitability curve so far.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EscherCheckpoint {
    pub format: String,
    pub version: u32,
    pub game: String,
    pub escher: EscherState,
    pub seconds: f64,
    /// Exact evaluations so far (`steps` holds the iteration).
    pub curve: Vec<CurvePoint>,
}

impl Document for EscherCheckpoint {
    const KIND: FileKind = FileKind::Checkpoint;
    const VERSION: u32 = CHECKPOINT_VERSION;
    fn game(&self) -> &str {
        &self.game
    }
}

impl EscherCheckpoint {
    pub fn new(
        game: &AnyGame,
        escher: EscherState,
        seconds: f64,
        curve: Vec<CurvePoint>,
    ) -> EscherCheckpoint {
        EscherCheckpoint {
            format: FileKind::Checkpoint.format().to_string(),
            version: CHECKPOINT_VERSION,
            game: game.game_string(),
            escher,
            seconds,
            curve,
        }
    }

    pub fn save(&self, path: &Path) -> Result<(), FileError> {
        files::save(path, self, Encoding::Binary)
    }

    /// Reads an ESCHER checkpoint for `game`; another game's, or another
    /// algorithm's checkpoint, is refused saying so.
    pub fn load_for(path: &Path, game: &AnyGame) -> Result<EscherCheckpoint, PolicyError> {
        let c: EscherCheckpoint = files::load(path).map_err(|e| match e {
            FileError::Malformed { path, what, .. } => PolicyError::File(FileError::Malformed {
                path,
                what,
                reason:
                    "it is not an escher checkpoint (resume it with the --algo it was made with)"
                        .into(),
            }),
            e => PolicyError::File(e),
        })?;
        require_game(&c.game, game)?;
        Ok(c)
    }
}

/// One YAML of the benchmark's ESCHER (`escher_parallel`): a game and its
/// settings. The learning rate is every network's; the policy network's
/// batch is the benchmark's default (`batch_size_average_policy`, 10000,
/// which its runs do not set), and so are the reservoirs' capacity
/// (`memory_capacity`, 1e5) and the regret trajectories' exploration
/// (`expl` 1: uniform, the only sampling policy here).
struct PresetEntry {
    benchmark: &'static str,
    game: &'static str,
    regret_traversals: u32,
    value_traversals: u32,
    learning_rate: f64,
    batch_regret: u32,
    batch_value: u32,
    regret_steps: u32,
    value_steps: u32,
    policy_steps: u32,
    value_exploration: f64,
}

#[rustfmt::skip]
const PRESETS: [PresetEntry; 5] = [
    PresetEntry { benchmark: "classical_dark_hex", game: "dark_hex(num_rows=3,num_cols=3)", regret_traversals: 8000, value_traversals: 250, learning_rate: 0.002, batch_regret: 1024, batch_value: 8192, regret_steps: 20000, value_steps: 5000, policy_steps: 80000, value_exploration: 0.04 },
    PresetEntry { benchmark: "abrupt_dark_hex", game: "dark_hex(num_rows=3,num_cols=3,gameversion=adh)", regret_traversals: 250, value_traversals: 8000, learning_rate: 0.002, batch_regret: 2048, batch_value: 16384, regret_steps: 20000, value_steps: 40000, policy_steps: 80000, value_exploration: 0.08 },
    PresetEntry { benchmark: "classical_phantom_ttt", game: "phantom_ttt(obstype=reveal-nothing)", regret_traversals: 4000, value_traversals: 4000, learning_rate: 0.004, batch_regret: 512, batch_value: 512, regret_steps: 10000, value_steps: 5000, policy_steps: 5000, value_exploration: 0.08 },
    PresetEntry { benchmark: "abrupt_phantom_ttt", game: "phantom_ttt(obstype=reveal-nothing,gameversion=abrupt)", regret_traversals: 4000, value_traversals: 500, learning_rate: 0.000125, batch_regret: 16384, batch_value: 16384, regret_steps: 40000, value_steps: 40000, policy_steps: 1250, value_exploration: 0.005 },
    PresetEntry { benchmark: "liars_dice", game: "liars_dice", regret_traversals: 500, value_traversals: 2000, learning_rate: 0.0005, batch_regret: 512, batch_value: 8192, regret_steps: 1250, value_steps: 1250, policy_steps: 1250, value_exploration: 0.005 },
];

/// The benchmark's reservoirs (`memory_capacity`) and policy batch.
const PRESET_CAPACITY: usize = 100_000;
const PRESET_POLICY_BATCH: u32 = 10_000;

/// The preset `name`'s ESCHER settings on `game` (see [`crate::rl::presets`]),
/// with the benchmark's networks (three hidden layers of 512), for a run
/// of `iterations` iterations from `seed`.
pub fn escher_preset(
    name: &str,
    game: &AnyGame,
    iterations: u64,
    seed: u64,
) -> Result<EscherSettings, PresetError> {
    if name != RUDOLPH2026 {
        return Err(PresetError::Unknown {
            name: name.to_string(),
        });
    }
    let ours = game.game_string();
    let same =
        |e: &PresetEntry| darkhex_games::load_game(e.game).is_ok_and(|g| g.game_string() == ours);
    let Some(e) = PRESETS.iter().find(|e| same(e)) else {
        let covered: Vec<String> = PRESETS
            .iter()
            .map(|e| format!("{} ('{}')", e.benchmark, e.game))
            .collect();
        return Err(PresetError::NotCovered {
            algorithm: "escher".into(),
            game: ours,
            covered: covered.join(", "),
        });
    };
    let network = |steps, batch| MlpSettings {
        hidden: crate::rl::network::BENCHMARK_HIDDEN,
        steps,
        batch,
        learning_rate: e.learning_rate,
        ..MlpSettings::new(seed)
    };
    Ok(EscherSettings {
        iterations,
        regret_traversals: e.regret_traversals,
        value_traversals: e.value_traversals,
        regret_capacity: PRESET_CAPACITY,
        policy_capacity: PRESET_CAPACITY,
        value_exploration: e.value_exploration,
        regret_network: network(e.regret_steps, e.batch_regret),
        value_network: network(e.value_steps, e.batch_value),
        policy_network: network(e.policy_steps, PRESET_POLICY_BATCH),
        seed,
    })
}
