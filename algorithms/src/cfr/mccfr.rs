//! Monte Carlo CFR on the State API, for games too large to compile: external
//! sampling and outcome sampling (Lanctot et al. 2009), with the update rules
//! of OpenSpiel's Python implementations (simple averaging at the opponent's
//! nodes for external sampling; exploration 0.6 and stochastically weighted
//! averaging for outcome sampling).
//!
//! Iterations run in batches: the `workers` share of a batch each sample
//! against the tables as they were when the batch began and collect their
//! updates in their own table; the updates are then added in worker order.
//! Iteration `i` draws from its own random stream (seed, i). So a run is
//! reproducible from its seed and worker count whatever the thread count, and
//! a run resumed from a checkpoint continues bitwise as if never stopped.

use darkhex_games::{Action, Game, NUM_PLAYERS, State, Token, Turn};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::cfr::info_table::{InfoTable, key_hash};
use crate::policy::{normalise, regret_matching};
use crate::policy_file::{InfosetPolicy, PolicyFile, Provenance};
use crate::tree::knuth_probe;

/// Calls `run_batch` with whole batches of `batch` iterations, and the rest
/// last, until `iterations` have run: the split both samplers' results
/// depend on.
pub(crate) fn in_batches(iterations: u64, batch: u64, mut run_batch: impl FnMut(u64)) {
    let mut left = iterations;
    while left > 0 {
        let n = left.min(batch);
        run_batch(n);
        left -= n;
    }
}

/// Iterations each worker runs per batch.
pub const ITERATIONS_PER_WORKER: u64 = 8;

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Sampling {
    External,
    Outcome { exploration: f64 },
}

impl Sampling {
    /// Outcome sampling's exploration unless the user sets one.
    pub const DEFAULT_EXPLORATION: f64 = 0.6;
    pub const OUTCOME_DEFAULT: Sampling = Sampling::Outcome {
        exploration: Sampling::DEFAULT_EXPLORATION,
    };

    pub fn name(&self) -> &'static str {
        match self {
            Sampling::External => "es-mccfr",
            Sampling::Outcome { .. } => "os-mccfr",
        }
    }
}

/// Everything needed to continue a run: what a checkpoint holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct McState {
    pub sampling: Sampling,
    pub seed: u64,
    pub workers: usize,
    pub iteration: u64,
    pub tables: [InfoTable; NUM_PLAYERS],
}

impl McState {
    pub fn new(sampling: Sampling, seed: u64, workers: usize) -> McState {
        McState {
            sampling,
            seed,
            workers: workers.max(1),
            iteration: 0,
            tables: Default::default(),
        }
    }

    /// Bytes the tables hold.
    pub fn memory_bytes(&self) -> usize {
        self.tables.iter().map(InfoTable::memory_bytes).sum()
    }

    /// Whether every regret and average weight is a finite number.
    pub fn is_finite(&self) -> bool {
        self.tables
            .iter()
            .all(|t| t.regrets.iter().chain(&t.average).all(|x| x.is_finite()))
    }

    /// Checks the tables read from a file and rebuilds their indexes.
    pub fn restore(&mut self) -> Result<(), String> {
        for (p, t) in self.tables.iter_mut().enumerate() {
            t.restore()
                .map_err(|e| format!("player {p}'s table: {e}"))?;
        }
        Ok(())
    }

    /// Why the tables cannot be `game`'s: an information state the game
    /// does not have, or other actions than the game's there.
    pub fn misfit<G: Game>(&self, game: &G) -> Option<String> {
        for (p, t) in self.tables.iter().enumerate() {
            for i in 0..t.len() {
                let key = t.key(i);
                match game.info_state_actions(p, key) {
                    Ok(legal) if legal == t.actions(i) => {}
                    Ok(_) => {
                        return Some(format!(
                            "player {p} at {} has other actions than the game",
                            game.describe_info_state(key)
                        ));
                    }
                    Err(why) => {
                        return Some(format!(
                            "player {p} has an information state the game does not ({why})"
                        ));
                    }
                }
            }
        }
        None
    }

    /// The average policy at every infoset met so far.
    pub fn average_policy(&self, game: &str, provenance: Provenance) -> PolicyFile {
        let infosets = std::array::from_fn(|p| {
            let t = &self.tables[p];
            (0..t.len())
                .map(|i| {
                    let mut probs = vec![0.0; t.actions(i).len()];
                    normalise(&t.average[t.slots(i)], &mut probs);
                    InfosetPolicy {
                        key: t.key(i).to_vec(),
                        actions: t.actions(i).to_vec(),
                        probs,
                    }
                })
                .collect()
        });
        PolicyFile::new(game, provenance, infosets)
    }
}

pub(crate) fn sample_index(probs: &[f64], rng: &mut impl Rng) -> usize {
    crate::policy::sample_index(probs.iter().copied(), rng).unwrap_or(0)
}

/// Iteration `it`'s own random stream: what makes a run independent of
/// how its iterations are spread over threads and resumed runs.
pub(crate) fn iteration_rng(seed: u64, it: u64) -> IterationRng {
    IterationRng::seed_from_u64(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ it)
}

/// An iteration draws a few dozen numbers; ChaCha's key set-up and
/// four-block refill cost more than the draws themselves here.
pub(crate) type IterationRng = rand_xoshiro::Xoshiro256PlusPlus;

/// The iterations worker `w` of `workers` runs in a batch of `n` from `first`.
pub(crate) fn worker_share(first: u64, n: u64, w: u64, workers: u64) -> std::ops::Range<u64> {
    first + n * w / workers..first + n * (w + 1) / workers
}

/// One worker's view: the frozen tables, and its own updates.
struct Worker<'a> {
    frozen: &'a [InfoTable; NUM_PLAYERS],
    updates: [InfoTable; NUM_PLAYERS],
}

impl Worker<'_> {
    /// Current strategy at an infoset (regret matching on the frozen
    /// regrets, uniform if never seen), and the infoset's slot range in
    /// this worker's update table.
    fn strategy(
        &mut self,
        player: usize,
        key: &[Token],
        actions: &[Action],
    ) -> (Vec<f64>, std::ops::Range<usize>) {
        let hash = key_hash(key);
        let mut sigma = vec![0.0; actions.len()];
        match self.frozen[player].find(hash, key) {
            Some(i) => regret_matching(
                &self.frozen[player].regrets[self.frozen[player].slots(i)],
                &mut sigma,
            ),
            None => sigma.fill(1.0 / actions.len() as f64),
        }
        let u = self.updates[player].find_or_insert(hash, key, actions);
        (sigma, self.updates[player].slots(u))
    }

    fn external<S: State>(&mut self, state: &S, player: usize, rng: &mut IterationRng) -> f64 {
        match state.current_player() {
            Turn::Terminal => state.returns()[player],
            Turn::Chance => {
                let outcomes = state.chance_outcomes();
                let probs: Vec<f64> = outcomes.iter().map(|o| o.1).collect();
                let mut child = state.clone();
                child.apply(outcomes[sample_index(&probs, rng)].0);
                self.external(&child, player, rng)
            }
            Turn::Player(mover) => {
                let actions = state.legal_actions();
                let (sigma, slots) = self.strategy(mover, state.info_key(mover), &actions);
                if mover == player {
                    let mut values = Vec::with_capacity(actions.len());
                    let mut value = 0.0;
                    for (&a, &p) in actions.iter().zip(&sigma) {
                        let mut child = state.clone();
                        child.apply(a);
                        let v = self.external(&child, player, rng);
                        value += p * v;
                        values.push(v);
                    }
                    for (r, v) in self.updates[mover].regrets[slots].iter_mut().zip(values) {
                        *r += v - value;
                    }
                    value
                } else {
                    for (w, &p) in self.updates[mover].average[slots].iter_mut().zip(&sigma) {
                        *w += p;
                    }
                    let mut child = state.clone();
                    child.apply(actions[sample_index(&sigma, rng)]);
                    self.external(&child, player, rng)
                }
            }
        }
    }

    /// One sampled trajectory; returns the updating player's value estimate.
    fn outcome<S: State>(
        &mut self,
        state: &mut S,
        player: usize,
        reach: [f64; 3],
        rng: &mut IterationRng,
        exploration: f64,
    ) -> f64 {
        // reach = [updating player's, opponent's and chance's, sampling's]
        let [mine, others, sample] = reach;
        match state.current_player() {
            Turn::Terminal => state.returns()[player],
            Turn::Chance => {
                let outcomes = state.chance_outcomes();
                let probs: Vec<f64> = outcomes.iter().map(|o| o.1).collect();
                let i = sample_index(&probs, rng);
                state.apply(outcomes[i].0);
                self.outcome(
                    state,
                    player,
                    [mine, others * probs[i], sample * probs[i]],
                    rng,
                    exploration,
                )
            }
            Turn::Player(mover) => {
                let actions = state.legal_actions();
                let (sigma, slots) = self.strategy(mover, state.info_key(mover), &actions);
                let n = actions.len() as f64;
                let behaviour: Vec<f64> = if mover == player {
                    sigma
                        .iter()
                        .map(|&p| exploration / n + (1.0 - exploration) * p)
                        .collect()
                } else {
                    sigma.clone()
                };
                let i = sample_index(&behaviour, rng);
                state.apply(actions[i]);
                let next = if mover == player {
                    [mine * sigma[i], others, sample * behaviour[i]]
                } else {
                    [mine, others * sigma[i], sample * behaviour[i]]
                };
                let child = self.outcome(state, player, next, rng, exploration);
                // Baseline-free estimate: only the sampled action has a value.
                let sampled_value = child / behaviour[i];
                let value = sigma[i] * sampled_value;
                if mover == player {
                    let scale = others / sample;
                    let updates = &mut self.updates[mover];
                    for (k, s) in slots.clone().enumerate() {
                        let action_value = if k == i { sampled_value } else { 0.0 };
                        updates.regrets[s] += action_value * scale - value * scale;
                    }
                    for (s, &p) in slots.zip(&sigma) {
                        updates.average[s] += mine * p / sample;
                    }
                }
                value
            }
        }
    }
}

/// Histories one external-sampling iteration visits, estimated by random
/// probes (Knuth's estimator on the traversal tree: the traverser's nodes
/// branch fully, the others once).
pub fn external_sampling_cost<G: Game>(game: &G, probes: usize, seed: u64) -> f64 {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut total = 0.0;
    for traverser in 0..NUM_PLAYERS {
        for _ in 0..probes {
            let sum = knuth_probe(game, &mut rng, |t| t == Turn::Player(traverser));
            total += sum / probes as f64;
        }
    }
    total
}

/// A Monte Carlo CFR run on `game`.
pub struct McSolver<G: Game> {
    game: G,
    state: McState,
}

impl<G: Game> McSolver<G> {
    pub fn new(game: G, state: McState) -> Self {
        McSolver { game, state }
    }

    pub fn state(&self) -> &McState {
        &self.state
    }

    pub fn into_state(self) -> McState {
        self.state
    }

    pub fn iteration(&self) -> u64 {
        self.state.iteration
    }

    /// Iterations per parallel batch: each worker's share is fixed, so the
    /// result depends on the seed and the worker count only.
    pub fn batch_size(&self) -> u64 {
        self.state.workers as u64 * ITERATIONS_PER_WORKER
    }

    /// Runs `iterations` more iterations, a whole number of batches unless
    /// `iterations` ends mid-batch.
    pub fn run(&mut self, iterations: u64) {
        in_batches(iterations, self.batch_size(), |n| self.run_batch(n));
    }

    fn run_batch(&mut self, n: u64) {
        let workers = self.state.workers as u64;
        let first = self.state.iteration;
        let (game, seed, sampling) = (&self.game, self.state.seed, self.state.sampling);
        let frozen = &self.state.tables;
        let updates: Vec<[InfoTable; NUM_PLAYERS]> = (0..workers)
            .into_par_iter()
            .map(|w| {
                let mut worker = Worker {
                    frozen,
                    updates: Default::default(),
                };
                for it in worker_share(first, n, w, workers) {
                    let mut rng = iteration_rng(seed, it);
                    for player in 0..NUM_PLAYERS {
                        let root = game.new_initial_state();
                        match sampling {
                            Sampling::External => {
                                worker.external(&root, player, &mut rng);
                            }
                            Sampling::Outcome { exploration } => {
                                let mut s = root;
                                worker.outcome(&mut s, player, [1.0; 3], &mut rng, exploration);
                            }
                        }
                    }
                }
                worker.updates
            })
            .collect();
        for u in &updates {
            for (table, update) in self.state.tables.iter_mut().zip(u) {
                table.add(update);
            }
        }
        self.state.iteration += n;
    }
}
