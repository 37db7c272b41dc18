//! An approximate best response: a lower bound on a policy's
//! exploitability where no exact best response is affordable (4x3 and
//! 4x4 Dark Hex).
//!
//! For each seat in turn a responder learns against the frozen policy in
//! the other seat, by sampled games: the policy in the other seat is
//! fixed, so the responder faces a decision problem over its own
//! information states (exact keys; perfect recall makes them sufficient).
//! The games build an empirical model of that problem (per information
//! state and action: how often it was taken, the returns of the games it
//! ended, the responder's information states that came next), and the
//! model is solved exactly by backing values up from the latest
//! decisions. The learner acts greedily on those values, tries every
//! action of a state once before repeating one, and explores uniformly
//! with a probability that falls linearly to zero over the learning
//! games. As the games grow, the model's values tend to the true ones and
//! the greedy responder to a best response.
//!
//! The learned responder is then frozen (greedy; uniform at states it
//! never met) and measured by fresh games against the policy: the mean of
//! their returns is an unbiased estimate of what a strategy of the
//! responder's earns, which no strategy's value can exceed the best
//! response's. So the average of the two seats' estimates bounds the
//! exploitability from below, up to the sampling error the report's
//! confidence interval gives; it is never the exploitability itself.
//!
//! Determinism: learning runs in batches of games that see the table as
//! it stood before the batch and are merged in game order, and every game
//! draws from its own stream of the seed, so a seed gives the same result
//! with any number of threads.

use std::collections::BTreeMap;
use std::sync::RwLock;

use hashbrown::HashMap;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use thiserror::Error;

use darkhex_games::{Action, AnyGame, AnyState, Game, NUM_PLAYERS, State, Token, Turn};

use crate::fa::model::PolicyModel;
use crate::policy::sample_index;
use crate::policy_file::PolicyTable;

#[derive(Debug, Error, Clone, PartialEq)]
pub enum ApproximateBrError {
    #[error("{0}")]
    BadSettings(String),
    #[error("the policy cannot be evaluated: {0}")]
    Policy(String),
}

/// A policy profile the responder plays against: the distribution of
/// `player` over `actions` at the information state `key`.
pub trait FrozenPolicy: Sync {
    fn policy(
        &self,
        player: usize,
        key: &[Token],
        actions: &[Action],
    ) -> Result<Vec<f64>, ApproximateBrError>;
}

/// Every legal action equally likely, for both players.
pub struct UniformPolicy;

impl FrozenPolicy for UniformPolicy {
    fn policy(
        &self,
        _: usize,
        _: &[Token],
        actions: &[Action],
    ) -> Result<Vec<f64>, ApproximateBrError> {
        Ok(vec![1.0 / actions.len() as f64; actions.len()])
    }
}

/// A policy file's table; uniform where the file has no entry, as a
/// policy player plays it.
impl FrozenPolicy for PolicyTable {
    fn policy(
        &self,
        player: usize,
        key: &[Token],
        actions: &[Action],
    ) -> Result<Vec<f64>, ApproximateBrError> {
        match self.get(player, key) {
            Some((a, p)) if a == actions => Ok(p.to_vec()),
            _ => UniformPolicy.policy(player, key, actions),
        }
    }
}

/// A trained network, one call per information state (as a player asks
/// it, so the same bits as in play).
impl FrozenPolicy for PolicyModel {
    fn policy(
        &self,
        player: usize,
        key: &[Token],
        actions: &[Action],
    ) -> Result<Vec<f64>, ApproximateBrError> {
        PolicyModel::policy(self, player, key, actions)
            .map_err(|e| ApproximateBrError::Policy(e.to_string()))
    }
}

/// How much a responder learns and how it is measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ApproximateBrSettings {
    /// Learning games per seat.
    pub episodes: u64,
    /// Evaluation games per seat.
    pub eval_games: u64,
    /// The probability of a uniform exploratory action (once every
    /// action was tried) at the start of learning; it falls linearly
    /// towards zero over the learning games.
    pub exploration: f64,
    /// Learning games of the first batch (later ones are a quarter of the
    /// games played): the games of a batch see the same table.
    pub batch: u32,
    pub seed: u64,
}

impl ApproximateBrSettings {
    pub const DEFAULT_EXPLORATION: f64 = 0.2;
    pub const DEFAULT_BATCH: u32 = 256;

    pub fn new(episodes: u64, eval_games: u64, seed: u64) -> ApproximateBrSettings {
        ApproximateBrSettings {
            episodes,
            eval_games,
            exploration: Self::DEFAULT_EXPLORATION,
            batch: Self::DEFAULT_BATCH,
            seed,
        }
    }

    pub fn check(&self) -> Result<(), ApproximateBrError> {
        let bad = |s: &str| Err(ApproximateBrError::BadSettings(s.to_string()));
        if self.eval_games < 2 {
            return bad("the evaluation needs at least 2 games per seat");
        }
        if !(0.0..=1.0).contains(&self.exploration) {
            return bad("the exploration is a probability, from 0 to 1");
        }
        if self.batch == 0 {
            return bad("a learning batch needs at least one game");
        }
        Ok(())
    }
}

/// What one seat's responder earned against the policy.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeatEstimate {
    /// Mean return of the evaluation games.
    pub value: f64,
    /// Half-width of the 95% confidence interval of `value`.
    pub half_width: f64,
    /// Information states the responder learned at.
    pub infostates: usize,
    /// Evaluation decisions taken at states learning never met (uniform).
    pub unseen_decisions: u64,
    /// Evaluation decisions in all.
    pub decisions: u64,
}

/// Both seats' estimates and the lower bound on exploitability they give.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ApproximateBr {
    pub seats: [SeatEstimate; NUM_PLAYERS],
    /// The mean of the seats' values: an estimate of a lower bound on the
    /// exploitability (NashConv / 2 of a zero-sum game).
    pub lower_bound: f64,
    /// Half-width of its 95% confidence interval.
    pub half_width: f64,
}

/// The responder's decision problem as sampled: at each information
/// state met, per action, how often it was taken, the returns of the
/// games that ended before the responder's next decision, and which
/// information states of the responder came next how often. Values are
/// backed up from it (an empirical model of the opponent and chance,
/// solved exactly), not averaged over the returns the exploring learner
/// got: an exploratory move later in a game does not lower the value of
/// an earlier one.
#[derive(Default)]
struct Table {
    index: HashMap<Box<[Token]>, u32>,
    entries: Vec<Entry>,
}

struct Entry {
    /// The key's length: a later decision of the same player has a
    /// longer key (perfect recall).
    depth: usize,
    counts: Vec<u64>,
    ended: Vec<f64>,
    /// Per action, the next information states (entry index, count).
    next: Vec<BTreeMap<u32, u64>>,
    /// Each action's backed-up value (minus infinity if never taken),
    /// and the highest.
    q: Vec<f64>,
    value: f64,
}

impl Entry {
    /// The first action never taken here.
    fn untried(&self) -> Option<usize> {
        self.counts.iter().position(|&c| c == 0)
    }

    /// One of the actions of the highest value, drawn uniformly: taking
    /// the first would favour the lowest cells wherever every action
    /// tried so far lost (a sparse table's common case), and a responder
    /// that plays its cells in order is far worse than a uniform one.
    fn best(&self, rng: &mut ChaCha8Rng) -> usize {
        let ties = self.q.iter().filter(|&&q| q == self.value).count();
        let pick = rng.random_range(0..ties.max(1));
        self.q
            .iter()
            .enumerate()
            .filter(|(_, q)| **q == self.value)
            .nth(pick)
            .map_or(0, |(i, _)| i)
    }
}

impl Table {
    fn get(&self, key: &[Token]) -> Option<&Entry> {
        self.index.get(key).map(|&i| &self.entries[i as usize])
    }

    /// The entry of `key`, made with `actions` actions if new.
    fn slot(&mut self, key: Box<[Token]>, actions: usize) -> u32 {
        let entries = &mut self.entries;
        *self.index.entry(key).or_insert_with_key(|key| {
            entries.push(Entry {
                depth: key.len(),
                counts: vec![0; actions],
                ended: vec![0.0; actions],
                next: vec![BTreeMap::new(); actions],
                q: vec![f64::NEG_INFINITY; actions],
                value: 0.0,
            });
            (entries.len() - 1) as u32
        })
    }

    /// Records one game's decisions of the responder and its return.
    fn record(&mut self, played: Played) {
        let slots: Vec<(u32, usize)> = played
            .choices
            .into_iter()
            .map(|(key, n, i, _)| (self.slot(key, n), i))
            .collect();
        for (j, &(e, i)) in slots.iter().enumerate() {
            let entry = &mut self.entries[e as usize];
            entry.counts[i] += 1;
            match slots.get(j + 1) {
                Some(&(next, _)) => *entry.next[i].entry(next).or_insert(0) += 1,
                None => entry.ended[i] += played.ret,
            }
        }
    }

    /// Backs every value up, latest decisions first.
    fn solve(&mut self) {
        let mut order: Vec<u32> = (0..self.entries.len() as u32).collect();
        order.sort_by_key(|&e| (std::cmp::Reverse(self.entries[e as usize].depth), e));
        for e in order {
            let entry = &self.entries[e as usize];
            let sums: Vec<f64> = (0..entry.counts.len())
                .map(|i| {
                    let later: f64 = entry.next[i]
                        .iter()
                        .map(|(&n, &c)| c as f64 * self.entries[n as usize].value)
                        .sum();
                    entry.ended[i] + later
                })
                .collect();
            // Each action's value is shrunk towards the state's mean by
            // one game's weight: an action that won the one game it was
            // tried in must not outrank one that won most of many.
            let taken: u64 = entry.counts.iter().sum();
            let mean = sums.iter().sum::<f64>() / taken.max(1) as f64;
            let q: Vec<f64> = (0..entry.counts.len())
                .map(|i| match entry.counts[i] {
                    0 => f64::NEG_INFINITY,
                    c => (sums[i] + mean) / (c + 1) as f64,
                })
                .collect();
            let entry = &mut self.entries[e as usize];
            entry.value = q.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            entry.q = q;
        }
    }
}

/// The opponent's distributions already asked for, so a network is asked
/// once per information state (up to a bound on the memory it takes).
pub(crate) struct Cache<'a> {
    policy: &'a dyn FrozenPolicy,
    seen: [RwLock<Distributions>; NUM_PLAYERS],
}

/// A player's distributions by information state.
type Distributions = HashMap<Box<[Token]>, Vec<f64>>;

/// Information states the cache keeps per player.
const CACHE_STATES: usize = 2_000_000;

impl<'a> Cache<'a> {
    pub(crate) fn new(policy: &'a dyn FrozenPolicy) -> Self {
        Cache {
            policy,
            seen: Default::default(),
        }
    }

    pub(crate) fn policy(
        &self,
        player: usize,
        key: &[Token],
        actions: &[Action],
    ) -> Result<Vec<f64>, ApproximateBrError> {
        if let Some(p) = self.seen[player]
            .read()
            .ok()
            .and_then(|m| m.get(key).cloned())
        {
            return Ok(p);
        }
        let p = self.policy.policy(player, key, actions)?;
        if let Ok(mut m) = self.seen[player].write()
            && m.len() < CACHE_STATES
        {
            m.insert(key.into(), p.clone());
        }
        Ok(p)
    }
}

/// How the responder acts in one game.
enum Mode<'t> {
    /// Learning: greedy on `table`, uniform with probability `explore`.
    Learn { table: &'t Table, explore: f64 },
    /// Evaluation: greedy on `table`, uniform where it has no entry.
    Play { table: &'t Table },
}

impl Mode<'_> {
    fn table(&self) -> &Table {
        match self {
            Mode::Learn { table, .. } | Mode::Play { table } => table,
        }
    }
}

/// One game: its return to the responder, and the responder's choices
/// (key, legal actions, index taken, whether the table had the state).
struct Played {
    ret: f64,
    choices: Vec<(Box<[Token]>, usize, usize, bool)>,
}

/// Streams of the seed: learning games and evaluation games of each seat.
pub(crate) fn game_rng(seed: u64, seat: usize, eval: bool, index: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(2 * seat as u64 + u64::from(eval));
    rng.set_word_pos(u128::from(index) << 40);
    rng
}

/// Games `range` of `seat`'s stream for `mode` (learning and evaluation
/// games have streams of their own), played in parallel, in game order.
fn play_batch(
    root: &AnyState,
    seat: usize,
    cache: &Cache,
    mode: &Mode,
    seed: u64,
    range: std::ops::Range<u64>,
) -> Result<Vec<Played>, ApproximateBrError> {
    let eval = matches!(mode, Mode::Play { .. });
    range
        .into_par_iter()
        .map(|i| play(root, seat, cache, mode, &mut game_rng(seed, seat, eval, i)))
        .collect()
}

fn play(
    root: &AnyState,
    seat: usize,
    cache: &Cache,
    mode: &Mode,
    rng: &mut ChaCha8Rng,
) -> Result<Played, ApproximateBrError> {
    let mut state = root.clone();
    let mut choices = Vec::new();
    let mut actions = Vec::new();
    loop {
        match state.current_player() {
            Turn::Terminal => {
                return Ok(Played {
                    ret: state.returns()[seat],
                    choices,
                });
            }
            Turn::Chance => {
                let outcomes = state.chance_outcomes();
                let i = sample_index(outcomes.iter().map(|o| o.1), rng).unwrap_or(0);
                state.apply(outcomes[i].0);
            }
            Turn::Player(p) => {
                state.legal_actions_into(&mut actions);
                let key = state.info_key(p);
                let i = if p == seat {
                    let entry = mode.table().get(key);
                    let i = match (entry, mode) {
                        (None, _) => rng.random_range(0..actions.len()),
                        (Some(e), Mode::Learn { explore, .. }) => match e.untried() {
                            Some(i) => i,
                            None if rng.random::<f64>() < *explore => {
                                rng.random_range(0..actions.len())
                            }
                            None => e.best(rng),
                        },
                        (Some(e), Mode::Play { .. }) => e.best(rng),
                    };
                    choices.push((key.into(), actions.len(), i, entry.is_some()));
                    i
                } else {
                    let probs = cache.policy(p, key, &actions)?;
                    sample_index(probs.iter().copied(), rng).unwrap_or(actions.len() - 1)
                };
                state.apply(actions[i]);
            }
        }
    }
}

/// A lower bound on the exploitability of `policy` in `game` by learned
/// responders (see the module notes). `progress` is told the games played
/// so far, of `2 * (episodes + eval_games)`.
pub fn approximate_best_response(
    game: &AnyGame,
    policy: &dyn FrozenPolicy,
    settings: &ApproximateBrSettings,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<ApproximateBr, ApproximateBrError> {
    settings.check()?;
    let cache = Cache::new(policy);
    let root = game.new_initial_state();
    let per_seat = settings.episodes + settings.eval_games;
    let mut seats = [None; NUM_PLAYERS];
    for (seat, out) in seats.iter_mut().enumerate() {
        let done = seat as u64 * per_seat;
        let mut table = Table::default();
        let mut start = 0;
        while start < settings.episodes {
            // Backing up costs the whole table, so batches grow with the
            // games played: a quarter of them, at least `batch`.
            let size = u64::from(settings.batch).max(start / 4);
            let range = start..(start + size).min(settings.episodes);
            start = range.end;
            let explore =
                settings.exploration * (1.0 - range.start as f64 / settings.episodes as f64);
            let mode = Mode::Learn {
                table: &table,
                explore,
            };
            let games = play_batch(&root, seat, &cache, &mode, settings.seed, range.clone())?;
            for g in games {
                table.record(g);
            }
            table.solve();
            progress(done + range.end);
        }
        let mode = Mode::Play { table: &table };
        let chunk = 4096u64;
        let (mut sum, mut sq, mut unseen, mut decisions) = (0.0, 0.0, 0u64, 0u64);
        let mut start = 0;
        while start < settings.eval_games {
            let end = (start + chunk).min(settings.eval_games);
            let games = play_batch(&root, seat, &cache, &mode, settings.seed, start..end)?;
            for g in games {
                sum += g.ret;
                sq += g.ret * g.ret;
                decisions += g.choices.len() as u64;
                unseen += g.choices.iter().filter(|c| !c.3).count() as u64;
            }
            progress(done + settings.episodes + end);
            start = end;
        }
        let (value, half_width) = mean_interval(sum, sq, settings.eval_games);
        *out = Some(SeatEstimate {
            value,
            half_width,
            infostates: table.entries.len(),
            unseen_decisions: unseen,
            decisions,
        });
    }
    let seats = seats.map(|s| s.expect("every seat was measured"));
    let (lower_bound, half_width) = seats_bound(seats.map(|s| (s.value, s.half_width)));
    Ok(ApproximateBr {
        seats,
        lower_bound,
        half_width,
    })
}

/// The mean of `n` returns of sum `sum` and sum of squares `sq`, and the
/// half-width of its 95% confidence interval.
pub(crate) fn mean_interval(sum: f64, sq: f64, n: u64) -> (f64, f64) {
    let n = n as f64;
    let value = sum / n;
    let variance = ((sq - n * value * value) / (n - 1.0)).max(0.0);
    (value, Z95 * (variance / n).sqrt())
}

/// The lower bound the seats' (value, half-width) give: their mean, and
/// its half-width (the seats' games are independent: their variances add).
pub(crate) fn seats_bound(seats: [(f64, f64); NUM_PLAYERS]) -> (f64, f64) {
    let mean = seats.iter().map(|s| s.0).sum::<f64>() / NUM_PLAYERS as f64;
    let half = seats.iter().map(|s| s.1.powi(2)).sum::<f64>().sqrt() / NUM_PLAYERS as f64;
    (mean, half)
}

/// The normal quantile of a two-sided 95% interval.
const Z95: f64 = 1.959_963_984_540_054;
