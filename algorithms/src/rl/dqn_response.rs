//! The approximate best response by DQN (`exploit --approximate dqn`):
//! for each seat in turn, a [`Dqn`] learns against the frozen policy in
//! the other seat for a number of its own decisions, on the
//! information-state tensor, so it needs no table of the game and
//! generalises between information states it never met; then its greedy
//! policy is frozen and measured by fresh games. As with the tabular
//! learner ([`crate::approximate_br`]), what the frozen responder earns
//! is what one strategy earns, which no strategy can do better than the
//! best response: the mean of the seats' estimates bounds the
//! exploitability from below, up to the confidence interval, and is never
//! the exploitability itself.
//!
//! The learner plays `lanes` games at once (one forward pass for all
//! their decisions), each lane with its own stream for chance, the
//! policy's moves and the exploration; transitions reach the learner in
//! lane order. A seed gives the same result with any number of threads.

use darkhex_games::{AnyGame, AnyState, Game, NUM_PLAYERS, State, Tensors, Turn};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use thiserror::Error;

use crate::approximate_br::{
    ApproximateBrError, Cache, FrozenPolicy, game_rng, mean_interval, seats_bound,
};
use crate::memory::{MemoryLimit, TooLarge};
use crate::policy::sample_index;
use crate::rl::dqn::{Dqn, DqnError, DqnSettings, epsilon_greedy, greedy};
use crate::rl::replay::Transition;

#[derive(Debug, Error)]
pub enum DqnResponseError {
    #[error(transparent)]
    Policy(#[from] ApproximateBrError),
    #[error(transparent)]
    Dqn(#[from] DqnError),
    #[error(transparent)]
    Memory(#[from] TooLarge),
    #[error("{0}")]
    BadSettings(String),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DqnResponseSettings {
    /// The learner's decisions per seat.
    pub steps: u64,
    /// Evaluation games per seat.
    pub eval_games: u64,
    /// Games played at once.
    pub lanes: u32,
    pub dqn: DqnSettings,
}

impl DqnResponseSettings {
    pub const DEFAULT_LANES: u32 = 16;

    pub fn new(steps: u64, eval_games: u64, seed: u64) -> DqnResponseSettings {
        DqnResponseSettings {
            steps,
            eval_games,
            lanes: Self::DEFAULT_LANES,
            dqn: DqnSettings::response(steps, seed),
        }
    }

    pub fn check(&self) -> Result<(), DqnResponseError> {
        if self.eval_games < 2 {
            return Err(DqnResponseError::BadSettings(
                "the evaluation needs at least 2 games per seat".into(),
            ));
        }
        if self.lanes == 0 {
            return Err(DqnResponseError::BadSettings(
                "the learner needs at least one game at a time".into(),
            ));
        }
        Ok(self.dqn.check()?)
    }
}

/// What one seat's responder earned.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DqnSeat {
    /// Mean return of the evaluation games, and the half-width of its
    /// 95% confidence interval.
    pub value: f64,
    pub half_width: f64,
    /// Learning games played.
    pub games: u64,
    /// The last minibatch's loss.
    pub loss: Option<f64>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DqnResponse {
    pub seats: [DqnSeat; NUM_PLAYERS],
    /// The mean of the seats' values: an estimate of a lower bound on the
    /// exploitability.
    pub lower_bound: f64,
    pub half_width: f64,
}

/// One game under way, at the responder's decision.
struct Lane {
    state: AnyState,
    rng: ChaCha8Rng,
    observation: Vec<f32>,
    legal: Vec<u64>,
}

/// How a lane's game went on after the responder's move.
struct Outcome {
    /// The responder's return if the game ended.
    ended: Option<f64>,
}

impl Lane {
    /// Plays chance and the policy until the responder moves or the game
    /// ends (its return then).
    fn advance(
        &mut self,
        game: &AnyGame,
        seat: usize,
        cache: &Cache,
    ) -> Result<Option<f64>, ApproximateBrError> {
        let mut actions = Vec::new();
        loop {
            match self.state.current_player() {
                Turn::Terminal => return Ok(Some(self.state.returns()[seat])),
                Turn::Chance => {
                    let outcomes = self.state.chance_outcomes();
                    let i = sample_index(outcomes.iter().map(|o| o.1), &mut self.rng).unwrap_or(0);
                    self.state.apply(outcomes[i].0);
                }
                Turn::Player(p) if p == seat => {
                    self.observation.fill(0.0);
                    game.information_state_tensor(&self.state, p, &mut self.observation);
                    self.state.legal_mask_into(&mut actions, &mut self.legal);
                    return Ok(None);
                }
                Turn::Player(p) => {
                    self.state.legal_actions_into(&mut actions);
                    let probs = cache.policy(p, self.state.info_key(p), &actions)?;
                    let i = sample_index(probs.iter().copied(), &mut self.rng)
                        .unwrap_or(actions.len() - 1);
                    self.state.apply(actions[i]);
                }
            }
        }
    }

    /// Plays the responder's `action`, then on to its next decision.
    fn step(
        &mut self,
        action: usize,
        game: &AnyGame,
        seat: usize,
        cache: &Cache,
    ) -> Result<Outcome, ApproximateBrError> {
        self.state.apply(action as darkhex_games::Action);
        Ok(Outcome {
            ended: self.advance(game, seat, cache)?,
        })
    }

    /// A new game, on to the responder's first decision; the returns of
    /// the games it had no decision in, played out on the way.
    fn restart(
        &mut self,
        game: &AnyGame,
        root: &AnyState,
        seat: usize,
        cache: &Cache,
    ) -> Result<Vec<f64>, ApproximateBrError> {
        let mut skipped = Vec::new();
        loop {
            self.state.clone_from(root);
            match self.advance(game, seat, cache)? {
                None => return Ok(skipped),
                Some(ret) => skipped.push(ret),
            }
            if skipped.len() > 1000 {
                return Err(ApproximateBrError::Policy(format!(
                    "player {seat} never moves in 1000 games"
                )));
            }
        }
    }
}

fn lanes(
    game: &AnyGame,
    seat: usize,
    cache: &Cache,
    count: u32,
    seed: u64,
    eval: bool,
) -> Result<Vec<Lane>, ApproximateBrError> {
    let root = game.new_initial_state();
    let width = game.information_state_tensor_size();
    let words = game.num_distinct_actions().div_ceil(64);
    (0..u64::from(count))
        .map(|i| {
            let mut lane = Lane {
                state: root.clone(),
                rng: game_rng(seed, seat, eval, i),
                observation: vec![0.0; width],
                legal: vec![0; words],
            };
            lane.restart(game, &root, seat, cache)?;
            Ok(lane)
        })
        .collect()
}

/// Each lane's greedy (when `epsilon` is `None`) or epsilon-greedy action.
fn choose(
    dqn: &Dqn,
    lanes: &mut [Lane],
    epsilon: Option<f64>,
    actions: usize,
) -> Result<Vec<usize>, DqnError> {
    let obs: Vec<f32> = lanes
        .iter()
        .flat_map(|l| l.observation.iter().copied())
        .collect();
    let q = dqn.q_values(&obs, lanes.len())?;
    Ok(lanes
        .iter_mut()
        .enumerate()
        .map(|(i, l)| {
            let row = &q[i * actions..][..actions];
            let pick = match epsilon {
                Some(e) => epsilon_greedy(row, &l.legal, e, &mut l.rng).map(|p| p.0),
                None => greedy(row, &l.legal),
            };
            // Every lane is at a decision of the responder, with a legal action.
            pick.unwrap_or(0)
        })
        .collect())
}

/// A lower bound on the exploitability of `policy` in `game` by DQN
/// responders (see the module notes); `progress` is told the learning
/// decisions and evaluation games done so far, of `2 * (steps +
/// eval_games)`.
pub fn dqn_best_response(
    game: &AnyGame,
    policy: &dyn FrozenPolicy,
    settings: &DqnResponseSettings,
    limit: MemoryLimit,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<DqnResponse, DqnResponseError> {
    settings.check()?;
    let inputs = game.information_state_tensor_size();
    let actions = game.num_distinct_actions();
    limit.check(
        format!("a DQN responder on {game}"),
        settings.dqn.memory_bytes(inputs, actions),
        "its networks, optimiser and replay buffer",
    )?;
    let cache = Cache::new(policy);
    let root = game.new_initial_state();
    let per_seat = settings.steps + settings.eval_games;
    let mut seats = [None; NUM_PLAYERS];
    for (seat, out) in seats.iter_mut().enumerate() {
        let done = seat as u64 * per_seat;
        let mut dqn = Dqn::new(settings.dqn, inputs, actions, seat as u64)?;
        let mut lanes = lanes(game, seat, &cache, settings.lanes, settings.dqn.seed, false)?;
        let mut games = 0u64;
        while dqn.steps() < settings.steps {
            let chosen = choose(&dqn, &mut lanes, Some(dqn.epsilon()), actions)?;
            let before: Vec<Vec<f32>> = lanes.iter().map(|l| l.observation.clone()).collect();
            let outcomes: Vec<Outcome> = lanes
                .par_iter_mut()
                .zip(&chosen)
                .map(|(l, &a)| l.step(a, game, seat, &cache))
                .collect::<Result<_, _>>()?;
            for (i, o) in outcomes.iter().enumerate() {
                let lane = &lanes[i];
                dqn.add(&Transition {
                    observation: &before[i],
                    action: chosen[i],
                    reward: o.ended.unwrap_or(0.0) as f32,
                    next_observation: &lane.observation,
                    next_legal: &lane.legal,
                    done: o.ended.is_some(),
                })?;
            }
            for (lane, o) in lanes.iter_mut().zip(&outcomes) {
                if o.ended.is_some() {
                    games += 1 + lane.restart(game, &root, seat, &cache)?.len() as u64;
                }
            }
            progress(done + dqn.steps().min(settings.steps));
        }
        let (value, half_width) = evaluate(game, seat, &cache, &dqn, settings, &|n| {
            progress(done + settings.steps + n)
        })?;
        *out = Some(DqnSeat {
            value,
            half_width,
            games,
            loss: dqn.last_loss(),
        });
    }
    let seats = seats.map(|s| s.expect("every seat was measured"));
    let (lower_bound, half_width) = seats_bound(seats.map(|s| (s.value, s.half_width)));
    Ok(DqnResponse {
        seats,
        lower_bound,
        half_width,
    })
}

/// The greedy responder's mean return over `eval_games` fresh games, and
/// its interval: lanes start new games until that many have started.
fn evaluate(
    game: &AnyGame,
    seat: usize,
    cache: &Cache,
    dqn: &Dqn,
    settings: &DqnResponseSettings,
    progress: &dyn Fn(u64),
) -> Result<(f64, f64), DqnResponseError> {
    let root = game.new_initial_state();
    let actions = game.num_distinct_actions();
    let total = settings.eval_games;
    let count = (settings.lanes as u64).min(total) as u32;
    let mut lanes = lanes(game, seat, cache, count, settings.dqn.seed, true)?;
    let mut live: Vec<bool> = vec![true; lanes.len()];
    let (mut started, mut finished) = (u64::from(count), 0u64);
    let (mut sum, mut sq) = (0.0, 0.0);
    while finished < total {
        let chosen = choose(dqn, &mut lanes, None, actions)?;
        let outcomes: Vec<Outcome> = lanes
            .par_iter_mut()
            .zip(&chosen)
            .zip(&live)
            .map(|((l, &a), &live)| {
                if live {
                    l.step(a, game, seat, cache)
                } else {
                    Ok(Outcome { ended: None })
                }
            })
            .collect::<Result<_, _>>()?;
        for (i, o) in outcomes.iter().enumerate() {
            let Some(ret) = o.ended else { continue };
            let mut count = |ret: f64| {
                sum += ret;
                sq += ret * ret;
                finished += 1;
            };
            count(ret);
            if started < total {
                // Games without a decision of the responder are games too.
                for ret in lanes[i].restart(game, &root, seat, cache)? {
                    count(ret);
                    started += 1;
                }
                started += 1;
            } else {
                live[i] = false;
            }
        }
        progress(finished);
    }
    Ok(mean_interval(sum, sq, finished))
}
