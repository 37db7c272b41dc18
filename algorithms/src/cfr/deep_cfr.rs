//! Deep CFR (Brown, Lerer, Gross and Sandholm 2019) on the State API: no
//! table of information states, only networks and sample buffers.
//!
//! Each iteration `t` runs, for each player in turn, a number of external
//! sampling traversals from the root. At the traverser's nodes every
//! action is explored (or, with `explored_actions` = k, k of them drawn
//! uniformly without replacement, the robust sampling of Li, Hu, Ge,
//! Jiang, Qi and Song 2020, "Double Neural Counterfactual Regret
//! Minimization": on boards past 3x3 a traversal that explores every
//! action visits millions of histories) and the strategy is regret matching on the
//! traverser's advantage network (uniform before the network's first
//! fit; when no legal action's prediction is positive, the one predicted
//! highest, with probability 1, as the paper prescribes: a network's
//! small negative errors would otherwise make it uniform wherever all
//! regrets are near zero); the sampled advantages (each
//! action's value less the node's) go into the traverser's advantage
//! reservoir with `t`. At the opponent's nodes one action is drawn from
//! the opponent's strategy, the same regret matching on its own network,
//! and that strategy goes into the opponent's strategy reservoir with `t`.
//! Chance is sampled. After its traversals the traverser's advantage
//! network is fitted again from fresh initial weights to its whole
//! reservoir, each sample's squared error weighted by its iteration (Linear
//! CFR's weighting, as in the paper and OpenSpiel). At the end each
//! player's policy network is fitted to its strategy reservoir, weighted
//! the same way.
//!
//! Networks are [`crate::fa::mlp`]'s, as in the paper: the input is
//! what the player observed (the observation features of
//! [`FeatureKind::Observation`], without an action), and there is one
//! output per action of the game, so one call gives a node's every
//! action; a fit counts only the legal actions' outputs of each sample.
//! (One output per (state, action) row, the action one-hot among the
//! inputs, learns far more slowly: the network must build every action's
//! interaction with the observations in its hidden layers.) The policy
//! network regresses probabilities by squared error, so its policy is its
//! legal outputs clipped at zero and normalised (uniform if none is
//! positive): the clipped outputs are the fitted probabilities themselves
//! wherever the fit is good.
//!
//! Within an iteration a player's network does not change between fits, so
//! its strategy at an information state is computed once and kept until
//! the network's next fit.
//!
//! Determinism: the traversals of (iteration, player) draw from one seeded
//! stream in order, each reservoir from its own seeded stream, every fit
//! shuffles its rows with a seeded stream and starts from weights drawn
//! from the network settings' seed, and the networks' arithmetic does not
//! depend on the thread count ([`crate::fa::mlp`]). So a seed gives the
//! same bits with any number of threads.

use std::time::{Duration, Instant};

use hashbrown::HashMap;
use ndarray::Array2;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use darkhex_games::{Action, AnyGame, AnyState, Game, NUM_PLAYERS, State, Token, Turn};

pub use crate::cfr::deep_cfr_settings::DeepCfrSettings;
use crate::cfr::mccfr::sample_index;
use crate::fa::features::{FeatureKind, FeatureMap};
use crate::fa::mlp::{Mlp, MlpParams, MlpSettings};
use crate::fa::model::{ModelProvenance, PolicyModel, Training};
use crate::fa::regress::{Design, RegressError};

use crate::memory::{MemoryLimit, TooLarge};
use crate::policy::{TreePolicy, regret_matching};
use crate::tree::GameTree;

// The settings' type sits in a file of its own, which the model file
// names in its provenance without importing this one.
impl DeepCfrSettings {
    /// The most the four reservoirs hold once full, in bytes: a sample's
    /// key, actions and values at the game's longest and widest, with
    /// their allocations.
    pub fn reservoir_bytes(&self, game: &AnyGame) -> f64 {
        const ALLOCATION: usize = 16;
        let actions = game.num_distinct_actions();
        let sample = size_of::<Sample>()
            + size_of::<Token>() * game.max_game_length()
            + (size_of::<Action>() + size_of::<f64>()) * actions
            + 3 * ALLOCATION;
        let samples = self.advantage_capacity + self.strategy_capacity;
        NUM_PLAYERS as f64 * samples as f64 * sample as f64
    }

    /// Refuses settings whose reservoirs, once full, would hold more than
    /// `limit` (the capacities are the user's; the reservoirs fill as the
    /// run goes, so the memory guard asks before the first iteration).
    pub fn check_memory(&self, game: &AnyGame, limit: MemoryLimit) -> Result<(), TooLarge> {
        limit.check(
            format!(
                "Deep CFR's reservoirs of {} advantage and {} strategy samples a player on {game}",
                self.advantage_capacity, self.strategy_capacity
            ),
            self.reservoir_bytes(game),
            "full, at the game's longest key and widest move",
        )
    }

    pub fn check(&self) -> Result<(), DeepCfrError> {
        if self.traversals == 0 {
            return Err(DeepCfrError::BadSettings(
                "Deep CFR needs at least one traversal per iteration".into(),
            ));
        }
        if self.advantage_capacity == 0 || self.strategy_capacity == 0 {
            return Err(DeepCfrError::BadSettings(
                "the reservoirs need room for at least one sample".into(),
            ));
        }
        for (what, n) in [
            ("advantage", self.advantage_network),
            ("policy", self.policy_network),
        ] {
            n.check()
                .map_err(|e| DeepCfrError::BadSettings(format!("the {what} network: {e}")))?;
        }
        Ok(())
    }
}

#[derive(Debug, Error, Clone, PartialEq)]
pub enum DeepCfrError {
    #[error(transparent)]
    Regress(#[from] RegressError),
    #[error("{0}")]
    BadSettings(String),
    #[error("the policy networks are not trained yet (run every iteration first)")]
    NoPolicy,
    #[error("the checkpoint does not fit: {0}")]
    BadCheckpoint(String),
}

/// A uniform sample of at most `capacity` items of a stream (Vitter's
/// algorithm R), drawn from its own seeded generator.
#[derive(Clone, Debug)]
pub struct Reservoir<T> {
    capacity: usize,
    seen: u64,
    items: Vec<T>,
    rng: ChaCha8Rng,
}

impl<T> Reservoir<T> {
    /// An empty reservoir whose draws come from stream `stream` of `seed`.
    pub fn new(capacity: usize, seed: u64, stream: u64) -> Reservoir<T> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(stream);
        Reservoir {
            capacity,
            seen: 0,
            items: Vec::new(),
            rng,
        }
    }

    /// Offers the stream's next item: kept with probability
    /// capacity / items seen, in the place of a uniformly drawn one.
    pub fn push(&mut self, item: T) {
        self.seen += 1;
        if self.items.len() < self.capacity {
            self.items.push(item);
        } else {
            let j = self.rng.random_range(0..self.seen);
            if let Some(slot) = usize::try_from(j).ok().and_then(|j| self.items.get_mut(j)) {
                *slot = item;
            }
        }
    }

    pub fn items(&self) -> &[T] {
        &self.items
    }

    /// Items offered so far.
    pub fn seen(&self) -> u64 {
        self.seen
    }
}

/// What a checkpoint keeps of a reservoir: its items, the items seen and
/// its generator's position in its stream (high and low words).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReservoirState {
    pub seen: u64,
    pub items: Vec<Sample>,
    pub word_pos: [u64; 2],
}

impl Reservoir<Sample> {
    pub(crate) fn state(&self) -> ReservoirState {
        let pos = self.rng.get_word_pos();
        ReservoirState {
            seen: self.seen,
            items: self.items.clone(),
            word_pos: [(pos >> 64) as u64, pos as u64],
        }
    }

    /// The reservoir `state` was taken of (its generator seeded as `new`).
    pub(crate) fn restore(&mut self, state: ReservoirState) -> Result<(), DeepCfrError> {
        if state.items.len() > self.capacity || (state.items.len() as u64) > state.seen {
            return Err(DeepCfrError::BadCheckpoint(format!(
                "a reservoir holds {} samples of {} seen, with room for {}",
                state.items.len(),
                state.seen,
                self.capacity
            )));
        }
        self.seen = state.seen;
        self.items = state.items;
        let [hi, lo] = state.word_pos;
        self.rng
            .set_word_pos((u128::from(hi) << 64) | u128::from(lo));
        Ok(())
    }
}

/// Everything a Deep CFR run needs to continue bit for bit: the settings,
/// the iterations done, each player's advantage network and reservoirs,
/// and the work counters. (Strategies are recomputed from the networks;
/// the traversals' and fits' generators are seeded afresh per iteration.)
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeepCfrState {
    pub settings: DeepCfrSettings,
    pub iteration: u64,
    pub advantage: [Option<MlpParams>; NUM_PLAYERS],
    pub advantages: [ReservoirState; NUM_PLAYERS],
    pub averages: [ReservoirState; NUM_PLAYERS],
    pub traversals: u64,
    pub nodes: u64,
}

/// One sampled information state: its key and legal actions, the
/// iteration it was drawn at, and a number per action (advantages, or
/// strategy probabilities).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    pub key: Box<[Token]>,
    pub actions: Vec<Action>,
    pub iteration: u64,
    pub values: Vec<f64>,
}

/// Where a run's time and work went.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DeepCfrStats {
    pub traversals: u64,
    /// Histories the traversals visited (terminal and chance included).
    pub nodes: u64,
    /// Advantage-network calls (one per information state and fit, each a
    /// batch of its legal actions).
    pub network_calls: u64,
    pub traversal_time: Duration,
    pub fit_time: Duration,
}

/// Streams of the seed, one purpose each.
const STREAM_TRAVERSAL: u64 = 0;
const STREAM_ADVANTAGE: u64 = 1;
const STREAM_STRATEGY: u64 = 1 + NUM_PLAYERS as u64;
const STREAM_SHUFFLE: u64 = 1 + 2 * NUM_PLAYERS as u64;

/// A Deep CFR run on one game.
pub struct DeepCfrSolver {
    game: AnyGame,
    settings: DeepCfrSettings,
    map: FeatureMap,
    iteration: u64,
    /// Each player's advantage network, none before its first fit.
    advantage: [Option<Mlp>; NUM_PLAYERS],
    /// Each player's strategy at the information states met since its
    /// network's last fit.
    strategies: [HashMap<Box<[Token]>, Vec<f64>>; NUM_PLAYERS],
    advantages: [Reservoir<Sample>; NUM_PLAYERS],
    averages: [Reservoir<Sample>; NUM_PLAYERS],
    /// The policy networks, once fitted.
    model: Option<PolicyModel>,
    stats: DeepCfrStats,
}

impl DeepCfrSolver {
    pub fn new(game: AnyGame, settings: DeepCfrSettings) -> Result<DeepCfrSolver, DeepCfrError> {
        settings.check()?;
        let map = FeatureMap::new(FeatureKind::Observation, &game, [0; NUM_PLAYERS]);
        let seed = settings.seed;
        Ok(DeepCfrSolver {
            advantages: std::array::from_fn(|p| {
                Reservoir::new(
                    settings.advantage_capacity,
                    seed,
                    STREAM_ADVANTAGE + p as u64,
                )
            }),
            averages: std::array::from_fn(|p| {
                Reservoir::new(settings.strategy_capacity, seed, STREAM_STRATEGY + p as u64)
            }),
            game,
            settings,
            map,
            iteration: 0,
            advantage: Default::default(),
            strategies: Default::default(),
            model: None,
            stats: DeepCfrStats::default(),
        })
    }

    pub fn settings(&self) -> DeepCfrSettings {
        self.settings
    }

    /// Iterations finished.
    pub fn iteration(&self) -> u64 {
        self.iteration
    }

    pub fn stats(&self) -> DeepCfrStats {
        self.stats
    }

    /// The run's state, for a checkpoint.
    pub fn state(&self) -> DeepCfrState {
        DeepCfrState {
            settings: self.settings,
            iteration: self.iteration,
            advantage: std::array::from_fn(|p| {
                self.advantage[p].as_ref().map(|n| n.params().clone())
            }),
            advantages: std::array::from_fn(|p| self.advantages[p].state()),
            averages: std::array::from_fn(|p| self.averages[p].state()),
            traversals: self.stats.traversals,
            nodes: self.stats.nodes,
        }
    }

    /// The run `state` was taken of, to continue up to `iterations` (the
    /// other settings must be the checkpoint's).
    pub fn resume(
        game: AnyGame,
        state: DeepCfrState,
        iterations: u64,
    ) -> Result<DeepCfrSolver, DeepCfrError> {
        let settings = DeepCfrSettings {
            iterations,
            ..state.settings
        };
        let (iteration, traversals, nodes) = (state.iteration, state.traversals, state.nodes);
        let mut solver = DeepCfrSolver::new(game, settings)?;
        let DeepCfrState {
            advantage,
            advantages,
            averages,
            ..
        } = state;
        let players = advantages.into_iter().zip(averages).zip(advantage);
        for (p, ((a, s), params)) in players.enumerate() {
            solver.advantages[p].restore(a)?;
            solver.averages[p].restore(s)?;
            if let Some(params) = params {
                let width = solver.map.observation_width();
                let net = Mlp::with_params(settings.advantage_network, width, params)?;
                solver.advantage[p] = Some(net);
            }
        }
        solver.iteration = iteration;
        solver.stats.traversals = traversals;
        solver.stats.nodes = nodes;
        Ok(solver)
    }

    /// Each player's advantage and strategy reservoirs.
    pub fn reservoirs(&self, player: usize) -> (&Reservoir<Sample>, &Reservoir<Sample>) {
        (&self.advantages[player], &self.averages[player])
    }

    /// Every iteration the settings ask for, then the policy networks.
    pub fn run(&mut self) -> Result<(), DeepCfrError> {
        while self.iteration < self.settings.iterations {
            self.iterate()?;
        }
        self.train_policy()
    }

    /// One iteration: each player's traversals, then its advantage fit.
    pub fn iterate(&mut self) -> Result<(), DeepCfrError> {
        let t = self.iteration + 1;
        for player in 0..NUM_PLAYERS {
            let start = Instant::now();
            let mut rng = ChaCha8Rng::seed_from_u64(self.settings.seed);
            rng.set_stream(STREAM_TRAVERSAL);
            // Each (iteration, player) its own position in the stream.
            rng.set_word_pos(((t * NUM_PLAYERS as u64 + player as u64) as u128) << 40);
            let root = self.game.new_initial_state();
            for _ in 0..self.settings.traversals {
                self.traverse(&root, player, t, &mut rng)?;
            }
            self.stats.traversals += u64::from(self.settings.traversals);
            let fitted = Instant::now();
            self.stats.traversal_time += fitted - start;
            let net = self.fit(
                self.advantages[player].items(),
                player,
                self.settings.advantage_network,
                player as u64,
                t,
            )?;
            self.advantage[player] = net;
            self.strategies[player].clear();
            self.stats.fit_time += fitted.elapsed();
        }
        self.iteration = t;
        Ok(())
    }

    /// Fits each player's policy network to its strategy reservoir.
    pub fn train_policy(&mut self) -> Result<(), DeepCfrError> {
        let start = Instant::now();
        let mut networks: [Option<Mlp>; NUM_PLAYERS] = Default::default();
        for (player, net) in networks.iter_mut().enumerate() {
            *net = self.fit(
                self.averages[player].items(),
                player,
                self.settings.policy_network,
                (NUM_PLAYERS + player) as u64,
                0,
            )?;
        }
        self.model = Some(PolicyModel::new(self.game, self.map.clone(), networks));
        self.stats.fit_time += start.elapsed();
        Ok(())
    }

    /// The learned average policy: the policy networks (see the module
    /// notes), once [`DeepCfrSolver::train_policy`] has fitted them.
    pub fn model(&self) -> Result<&PolicyModel, DeepCfrError> {
        self.model.as_ref().ok_or(DeepCfrError::NoPolicy)
    }

    /// The learned average policy, taken out of the run (the reservoirs
    /// dropped with it), once [`DeepCfrSolver::train_policy`] has fitted it.
    pub fn into_model(self) -> Result<PolicyModel, DeepCfrError> {
        self.model.ok_or(DeepCfrError::NoPolicy)
    }

    /// What a saved model says of this run.
    pub fn provenance(&self, exploitability: Option<f64>) -> ModelProvenance {
        ModelProvenance {
            algorithm: "deep-cfr".to_string(),
            iterations: self.iteration,
            exploitability,
            training: Training::DeepCfr(self.settings),
        }
    }

    /// The sampled value of `state` to `player`, storing samples.
    fn traverse(
        &mut self,
        state: &AnyState,
        player: usize,
        t: u64,
        rng: &mut ChaCha8Rng,
    ) -> Result<f64, DeepCfrError> {
        self.stats.nodes += 1;
        match state.current_player() {
            Turn::Terminal => Ok(state.returns()[player]),
            Turn::Chance => {
                let outcomes = state.chance_outcomes();
                let probs: Vec<f64> = outcomes.iter().map(|o| o.1).collect();
                let mut child = state.clone();
                child.apply(outcomes[sample_index(&probs, rng)].0);
                self.traverse(&child, player, t, rng)
            }
            Turn::Player(mover) => {
                let actions = state.legal_actions();
                let key = state.info_key(mover);
                let sigma = self.strategy(mover, key, &actions)?;
                if mover == player {
                    let explored = self.explored(actions.len(), rng);
                    // An action is explored with probability k / n: its
                    // sampled value over k / n, and 0 for the others, are
                    // unbiased estimates of every action's value (the
                    // MCCFR estimator), so each action's advantage is too.
                    let scale = actions.len() as f64 / explored.len() as f64;
                    let mut values = vec![0.0; actions.len()];
                    for &i in &explored {
                        let mut child = state.clone();
                        child.apply(actions[i]);
                        values[i] = scale * self.traverse(&child, player, t, rng)?;
                    }
                    let value: f64 = values.iter().zip(&sigma).map(|(v, p)| v * p).sum();
                    values.iter_mut().for_each(|v| *v -= value);
                    self.advantages[player].push(Sample {
                        key: key.into(),
                        actions,
                        iteration: t,
                        values,
                    });
                    Ok(value)
                } else {
                    let a = actions[sample_index(&sigma, rng)];
                    self.averages[mover].push(Sample {
                        key: key.into(),
                        actions,
                        iteration: t,
                        values: sigma,
                    });
                    let mut child = state.clone();
                    child.apply(a);
                    self.traverse(&child, player, t, rng)
                }
            }
        }
    }

    /// The indices, in increasing order, of the actions a traverser's decision among
    /// `n` explores: all of them, or `explored_actions` drawn uniformly
    /// without replacement (no draw when that is all of them, so a bound
    /// at or above the widest decision is external sampling bit for bit).
    fn explored(&self, n: usize, rng: &mut ChaCha8Rng) -> Vec<usize> {
        let k = self.settings.explored_actions as usize;
        if k == 0 || k >= n {
            return (0..n).collect();
        }
        let mut chosen = rand::seq::index::sample(rng, n, k).into_vec();
        chosen.sort_unstable();
        chosen
    }

    /// `player`'s strategy at `key`: regret matching on its advantage
    /// network's predictions for every legal action, in one call.
    fn strategy(
        &mut self,
        player: usize,
        key: &[Token],
        actions: &[Action],
    ) -> Result<Vec<f64>, DeepCfrError> {
        let Some(net) = &self.advantage[player] else {
            return Ok(vec![1.0 / actions.len() as f64; actions.len()]);
        };
        if let Some(sigma) = self.strategies[player].get(key) {
            return Ok(sigma.clone());
        }
        let mut row = vec![0.0f64; self.map.observation_width()];
        self.map.write_observation(player, key, &mut row);
        let x = row.iter().map(|&v| v as f32).collect();
        let mut outputs = vec![0.0; self.game.num_distinct_actions()];
        net.predict_rows(x, &mut outputs)?;
        self.stats.network_calls += 1;
        let predicted: Vec<f64> = actions.iter().map(|&a| outputs[a as usize]).collect();
        let sigma = matched_strategy(&predicted);
        self.strategies[player].insert(key.into(), sigma.clone());
        Ok(sigma)
    }

    /// A network fitted to `samples` ([`FitTo::samples`]); none when there
    /// are no samples.
    fn fit(
        &self,
        samples: &[Sample],
        player: usize,
        network: MlpSettings,
        stream: u64,
        t: u64,
    ) -> Result<Option<Mlp>, DeepCfrError> {
        let fit = FitTo {
            game: &self.game,
            map: &self.map,
            seed: self.settings.seed,
            stream: STREAM_SHUFFLE + stream,
            t,
        };
        Ok(fit.samples(samples, player, network, stream)?)
    }

    /// The learned average policy at every information state of `tree`
    /// (compiled from this game): [`PolicyModel::tree_policy`].
    pub fn tree_policy(&self, tree: &GameTree) -> Result<TreePolicy, DeepCfrError> {
        Ok(self.model()?.tree_policy(tree)?)
    }
}

/// Where a fit's rows come from and which stream shuffles them.
pub(crate) struct FitTo<'a> {
    pub game: &'a AnyGame,
    pub map: &'a FeatureMap,
    pub seed: u64,
    /// The row order's stream of `seed`.
    pub stream: u64,
    /// The row order's position in its stream (the iteration).
    pub t: u64,
}

impl FitTo<'_> {
    /// A network fitted from fresh weights (stream `weights` of the
    /// network settings' seed) to `samples` at `player`'s information
    /// states, one output per action of the game and only the legal ones
    /// fitted, each row weighted by its iteration (Linear CFR's
    /// weighting); none when there are no samples.
    pub(crate) fn samples(
        &self,
        samples: &[Sample],
        player: usize,
        network: MlpSettings,
        weights: u64,
    ) -> Result<Option<Mlp>, RegressError> {
        if samples.is_empty() {
            return Ok(None);
        }
        let outputs = self.game.num_distinct_actions();
        let width = self.map.observation_width();
        let net = self.rows(
            samples.len(),
            width,
            outputs,
            network,
            weights,
            |i, row, targets, legal| {
                let s = &samples[i];
                self.map.write_observation(player, &s.key, row);
                for (&action, &value) in s.actions.iter().zip(&s.values) {
                    targets[action as usize] = value;
                    legal[action as usize] = true;
                }
                s.iteration.max(1) as f64
            },
        )?;
        Ok(Some(net))
    }

    /// A network of `outputs` outputs on `width` features fitted from
    /// fresh weights to `n` rows, which `write(i, row, targets, legal)`
    /// writes (returning row i's weight) in a shuffled order: minibatches
    /// are contiguous runs of rows, and shuffled rows make each a uniform
    /// draw instead of one traversal's neighbours.
    pub(crate) fn rows(
        &self,
        n: usize,
        width: usize,
        outputs: usize,
        network: MlpSettings,
        weights: u64,
        mut write: impl FnMut(usize, &mut [f64], &mut [f64], &mut [bool]) -> f64,
    ) -> Result<Mlp, RegressError> {
        let mut order: Vec<usize> = (0..n).collect();
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        rng.set_stream(self.stream);
        rng.set_word_pos(u128::from(self.t) << 40);
        order.shuffle(&mut rng);
        let mut x = Array2::zeros((n, width));
        let mut targets = vec![0.0; n * outputs];
        let mut legal = vec![false; n * outputs];
        let mut row_weights = Vec::with_capacity(n);
        for (r, i) in order.into_iter().enumerate() {
            let mut row = x.row_mut(r);
            let row = row.as_slice_mut().expect("a fresh matrix is contiguous");
            let span = r * outputs..(r + 1) * outputs;
            row_weights.push(write(i, row, &mut targets[span.clone()], &mut legal[span]));
        }
        let design = Design::new(x);
        let mut net = Mlp::with_outputs(network, width, outputs, weights)?;
        net.fit_legal(&design, &targets, &legal, &row_weights)?;
        Ok(net)
    }
}

/// Regret matching on a network's predicted regrets; where none is
/// positive, the action predicted highest with probability 1, as Deep CFR
/// prescribes: a network's small negative errors would otherwise make it
/// uniform wherever all regrets are near zero.
pub(crate) fn matched_strategy(predicted: &[f64]) -> Vec<f64> {
    let mut sigma = vec![0.0; predicted.len()];
    regret_matching(predicted, &mut sigma);
    if predicted.iter().all(|&r| r <= 0.0) {
        sigma.fill(0.0);
        sigma[argmax(predicted)] = 1.0;
    }
    sigma
}

/// The index of the largest value, the first of equals.
fn argmax(values: &[f64]) -> usize {
    let mut best = 0;
    for (i, &v) in values.iter().enumerate() {
        if v > values[best] {
            best = i;
        }
    }
    best
}
