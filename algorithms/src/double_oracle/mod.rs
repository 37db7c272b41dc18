//! A double oracle (McMahan, Gordon and Blum 2003) whose oracles are the
//! exact support-restricted best responses of [`crate::restricted_br`], so
//! it runs on boards no table holds.
//!
//! Each player keeps a set of pure strategies, complete ones ([`Pure`]: a
//! listed move, else the lowest legal action). The restricted game is
//! either the sequence form over the sequences the sets' strategies play
//! ([`sequence`], Bosansky et al. 2014: any combination of them across
//! information states) or the normal form over the sets themselves (each
//! pair's payoff one walk over the two strategies' supports); either is
//! solved exactly by the LP already in the tree. Each restricted
//! equilibrium strategy, played in the full game as a behaviour strategy
//! ([`PlanPolicy`], [`Mixture`]), is a certificate: Black's proves a lower
//! bound on Black's value (what it earns against White's exact best
//! response), White's an upper bound. The best responses join the sets,
//! and the loop goes on until the best bounds met so far are within the
//! asked gap, or no best response is new (the restricted value is then
//! the game's). The game is finite, so only finitely many pure strategies
//! can be added.

mod pure;
pub mod sequence;

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use darkhex_games::{Game, NUM_PLAYERS};
use serde::{Deserialize, Serialize};
use thiserror::Error;

pub use pure::{Mixture, Pure, Seat};
pub use sequence::{PlanPolicy, RestrictedGame};

use crate::lp::normal_form::solve_matrix_game;
use crate::lp::sequence_form::NOISE;
use crate::lp::{LpBackend, LpError};
use crate::policy_file::InfosetPolicy;
use crate::restricted_br::{
    self, FixedPolicy, Missing, Outcome, PerSeat, RestrictedBrError, Settings, profile_value,
};

#[derive(Debug, Error)]
pub enum DoubleOracleError {
    #[error(transparent)]
    BestResponse(#[from] RestrictedBrError),
    #[error("the restricted game's LP failed: {0}")]
    Lp(#[from] LpError),
    #[error("{0}")]
    Progress(String),
}

/// Mixture weights below this (solver noise) are dropped.
const WEIGHT_FLOOR: f64 = 1e-12;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options {
    /// Stop when the best upper bound exceeds the best lower one by at
    /// most this.
    pub gap: f64,
    /// Stop after this many iterations (each an LP and two best responses).
    pub max_iterations: usize,
    pub backend: LpBackend,
    pub restricted: Restricted,
}

/// The restricted game's form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Restricted {
    /// The matrix game over the sets' pure strategies.
    Normal,
    /// The sequence form over the sequences the sets' strategies play
    /// ([`sequence`]).
    Sequence,
}

impl Restricted {
    pub const NAMES: [&'static str; 2] = ["sequence", "normal"];

    pub fn from_name(name: &str) -> Option<Restricted> {
        match name {
            "sequence" => Some(Restricted::Sequence),
            "normal" => Some(Restricted::Normal),
            _ => None,
        }
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            gap: 1e-12,
            max_iterations: 1000,
            backend: LpBackend::Microlp,
            restricted: Restricted::Sequence,
        }
    }
}

/// A certified bound and the strategy that proves it: its distribution at
/// every information state its play reaches against any play of the
/// other player's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Certificate {
    /// Black's value is at least (Black's strategy) or at most (White's)
    /// this.
    pub bound: f64,
    pub iteration: usize,
    /// Pure strategies in the mixture.
    pub support: usize,
    pub infosets: Vec<InfosetPolicy>,
}

/// What the loop keeps, and a checkpoint holds: the two sets of pure
/// strategies and the best certificates found.
#[derive(Clone, Debug, Default)]
pub struct Oracle {
    pub strategies: [Vec<Pure>; NUM_PLAYERS],
    pub iterations: usize,
    /// Black's best (highest) lower bound, White's best (lowest) upper one.
    pub best: [Option<Certificate>; NUM_PLAYERS],
    /// Player 0's payoff of each pair, row per Black strategy (rebuilt
    /// from the strategies when resumed).
    matrix: Vec<Vec<f64>>,
}

impl Oracle {
    /// Starts from these strategies (each set is given the all-lowest
    /// strategy when empty); duplicates are dropped.
    pub fn new(seeds: [Vec<Pure>; NUM_PLAYERS]) -> Oracle {
        let mut oracle = Oracle::default();
        for (p, seeds) in seeds.into_iter().enumerate() {
            for s in seeds {
                oracle.add(p, s);
            }
            if oracle.strategies[p].is_empty() {
                oracle.strategies[p].push(Pure::default());
            }
        }
        oracle
    }

    /// Adds a strategy unless the set holds it; says whether it did.
    pub fn add(&mut self, player: usize, pure: Pure) -> bool {
        if self.strategies[player].contains(&pure) {
            return false;
        }
        self.strategies[player].push(pure);
        true
    }

    pub fn lower(&self) -> Option<f64> {
        self.best[0].as_ref().map(|c| c.bound)
    }

    pub fn upper(&self) -> Option<f64> {
        self.best[1].as_ref().map(|c| c.bound)
    }

    /// The payoffs of the pairs not yet valued.
    fn fill_matrix<G: Game>(&mut self, game: &G) -> Result<(), RestrictedBrError> {
        let cols = self.strategies[1].len();
        for i in 0..self.strategies[0].len() {
            if i == self.matrix.len() {
                self.matrix.push(Vec::with_capacity(cols));
            }
            for j in self.matrix[i].len()..cols {
                let black = Seat {
                    player: 0,
                    pure: &self.strategies[0][i],
                };
                let white = Seat {
                    player: 1,
                    pure: &self.strategies[1][j],
                };
                let pair: [Option<&dyn FixedPolicy>; 2] = [Some(&black), Some(&white)];
                let (v, _) = profile_value(game, &PerSeat(pair), Missing::Error)?;
                self.matrix[i].push(v);
            }
        }
        Ok(())
    }
}

/// One iteration's figures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Iteration {
    pub iteration: usize,
    /// Pure strategies in each set when the restricted game was solved.
    pub sizes: [usize; NUM_PLAYERS],
    /// The restricted game's value (the LP's).
    pub restricted_value: f64,
    /// This iteration's certified bounds.
    pub lower: f64,
    pub upper: f64,
    /// The best bounds so far.
    pub best_lower: f64,
    pub best_upper: f64,
    /// Each restricted equilibrium's support: pure strategies in the
    /// mixture (normal form), sequences with positive weight (sequence
    /// form).
    pub support: [usize; NUM_PLAYERS],
    /// Information states where each certificate mixes.
    pub mixed: [usize; NUM_PLAYERS],
    /// Histories of the restricted game (sequence form; 0 for the normal
    /// form, whose pairs are valued one by one).
    pub restricted_histories: u64,
    /// Histories the two best responses visited.
    pub histories: u64,
    /// Histories and seconds of the best response to each side's
    /// strategy (Black's strategy first): the cost against its support.
    pub response_histories: [u64; NUM_PLAYERS],
    pub response_seconds: [f64; NUM_PLAYERS],
    /// Strategies the best responses added.
    pub added: usize,
    pub seconds: f64,
}

/// Why the loop stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Finish {
    /// The best bounds are within the gap.
    Closed,
    /// Neither best response was new: the restricted game's value is the
    /// game's, and the bounds differ by the LP's rounding only.
    Converged,
    MaxIterations,
    /// `stop` was raised; the sets hold every finished iteration.
    Stopped,
}

/// Runs the loop on `oracle` until it closes, converges, reaches the
/// iteration limit or is stopped. `after` is told each iteration, with
/// the sets as they are after it (to save them); an error it returns
/// stops the loop.
pub fn run<G: Game>(
    game: &G,
    oracle: &mut Oracle,
    options: Options,
    stop: &AtomicBool,
    after: &mut dyn FnMut(&Iteration, &Oracle) -> Result<(), String>,
) -> Result<Finish, DoubleOracleError> {
    loop {
        if let (Some(l), Some(u)) = (oracle.lower(), oracle.upper())
            && u - l <= options.gap
        {
            return Ok(Finish::Closed);
        }
        if oracle.iterations >= options.max_iterations {
            return Ok(Finish::MaxIterations);
        }
        let start = Instant::now();
        let iteration = oracle.iterations + 1;
        let sizes = [oracle.strategies[0].len(), oracle.strategies[1].len()];
        let solved = match options.restricted {
            Restricted::Normal => normal_form_step(game, oracle, options.backend, stop)?,
            Restricted::Sequence => sequence_form_step(game, oracle, options.backend, stop)?,
        };
        let Some(step) = solved else {
            return Ok(Finish::Stopped);
        };
        for (p, (bound, infosets)) in step.certificates.into_iter().enumerate() {
            let better = match &oracle.best[p] {
                None => true,
                Some(c) => (p == 0 && bound > c.bound) || (p == 1 && bound < c.bound),
            };
            if better {
                oracle.best[p] = Some(Certificate {
                    bound,
                    iteration,
                    support: step.support[p],
                    infosets,
                });
            }
        }
        let mut added = 0;
        for (p, r) in step.responses.into_iter().enumerate() {
            added += usize::from(oracle.add(1 - p, r));
        }
        oracle.iterations = iteration;
        let report = Iteration {
            iteration,
            sizes,
            restricted_value: step.value,
            lower: step.bounds[0],
            upper: step.bounds[1],
            best_lower: oracle.lower().unwrap_or(step.bounds[0]),
            best_upper: oracle.upper().unwrap_or(step.bounds[1]),
            support: step.support,
            mixed: step.mixed,
            restricted_histories: step.restricted_histories,
            histories: step.response_histories.iter().sum(),
            response_histories: step.response_histories,
            response_seconds: step.response_seconds,
            added,
            seconds: start.elapsed().as_secs_f64(),
        };
        after(&report, oracle).map_err(DoubleOracleError::Progress)?;
        if report.best_upper - report.best_lower <= options.gap {
            return Ok(Finish::Closed);
        }
        if added == 0 {
            return Ok(Finish::Converged);
        }
    }
}

/// What one iteration's restricted equilibrium and best responses give.
struct Step {
    value: f64,
    bounds: [f64; NUM_PLAYERS],
    /// Each side's bound and the strategy proving it.
    certificates: Vec<(f64, Vec<InfosetPolicy>)>,
    /// Black's best response (to White's strategy), then White's.
    responses: Vec<Pure>,
    support: [usize; NUM_PLAYERS],
    mixed: [usize; NUM_PLAYERS],
    restricted_histories: u64,
    response_histories: [u64; NUM_PLAYERS],
    response_seconds: [f64; NUM_PLAYERS],
}

/// The exact best response to `player`'s restricted equilibrium strategy,
/// or `None` when stopped.
fn respond<G: Game>(
    game: &G,
    policy: &dyn FixedPolicy,
    player: usize,
    stop: &AtomicBool,
) -> Result<Option<restricted_br::Response>, DoubleOracleError> {
    let settings = Settings {
        missing: Missing::Error,
        record: true,
        keep: false,
    };
    let outcome = restricted_br::restricted_best_response(
        game,
        policy,
        1 - player,
        settings,
        None,
        stop,
        &|_| {},
    )?;
    Ok(match outcome {
        Outcome::Done(response) => Some(response),
        Outcome::Stopped(_) => None,
    })
}

/// Black's bound from the responder's value against `player`'s strategy.
fn bound_of(player: usize, response: &restricted_br::Response) -> f64 {
    if player == 0 {
        -response.value
    } else {
        response.value
    }
}

/// Information states where a strategy mixes.
fn mixed_states(infosets: &[InfosetPolicy]) -> usize {
    infosets
        .iter()
        .filter(|e| e.probs.iter().filter(|&&p| p > 0.0).count() > 1)
        .count()
}

fn normal_form_step<G: Game>(
    game: &G,
    oracle: &mut Oracle,
    backend: LpBackend,
    stop: &AtomicBool,
) -> Result<Option<Step>, DoubleOracleError> {
    oracle.fill_matrix(game)?;
    let sizes = [oracle.strategies[0].len(), oracle.strategies[1].len()];
    let m = &oracle.matrix;
    let (value, x) = solve_matrix_game(sizes[0], sizes[1], |i, j| m[i][j], backend)?;
    let (_, y) = solve_matrix_game(sizes[1], sizes[0], |j, i| -m[i][j], backend)?;
    let mut step = Step {
        value,
        bounds: [0.0; NUM_PLAYERS],
        certificates: Vec::with_capacity(NUM_PLAYERS),
        responses: Vec::with_capacity(NUM_PLAYERS),
        support: [0; NUM_PLAYERS],
        mixed: [0; NUM_PLAYERS],
        restricted_histories: 0,
        response_histories: [0; NUM_PLAYERS],
        response_seconds: [0.0; NUM_PLAYERS],
    };
    for (p, mix) in [x, y].iter().enumerate() {
        let mixture = Mixture::new(
            game,
            p,
            oracle.strategies[p]
                .iter()
                .zip(mix)
                .filter(|(_, w)| **w > WEIGHT_FLOOR)
                .map(|(s, &w)| (s, w))
                .collect(),
        );
        step.support[p] = mix.iter().filter(|&&w| w > WEIGHT_FLOOR).count();
        if !answer(game, &mut step, p, &mixture, || mixture.infosets(), stop)? {
            return Ok(None);
        }
    }
    Ok(Some(step))
}

/// Records `player`'s certified bound from `policy` (its distributions,
/// `infosets`, once the other side's exact best response has walked it)
/// and that response in `step`; false when `stop` ended the walk.
fn answer<G: Game>(
    game: &G,
    step: &mut Step,
    player: usize,
    policy: &dyn FixedPolicy,
    infosets: impl FnOnce() -> Vec<InfosetPolicy>,
    stop: &AtomicBool,
) -> Result<bool, DoubleOracleError> {
    let started = Instant::now();
    let Some(response) = respond(game, policy, player, stop)? else {
        return Ok(false);
    };
    step.response_seconds[player] = started.elapsed().as_secs_f64();
    step.response_histories[player] = response.work.histories;
    step.bounds[player] = bound_of(player, &response);
    let infosets = infosets();
    step.mixed[player] = mixed_states(&infosets);
    step.certificates.push((step.bounds[player], infosets));
    step.responses.push(Pure::from_choices(&response.choices));
    Ok(true)
}

fn sequence_form_step<G: Game>(
    game: &G,
    oracle: &Oracle,
    backend: LpBackend,
    stop: &AtomicBool,
) -> Result<Option<Step>, DoubleOracleError> {
    let restricted = RestrictedGame::build(game, &oracle.strategies)?;
    let (value, plans) = restricted.solve(backend)?;
    let mut step = Step {
        value,
        bounds: [0.0; NUM_PLAYERS],
        certificates: Vec::with_capacity(NUM_PLAYERS),
        responses: Vec::with_capacity(NUM_PLAYERS),
        support: [0; NUM_PLAYERS],
        mixed: [0; NUM_PLAYERS],
        restricted_histories: restricted.histories,
        response_histories: [0; NUM_PLAYERS],
        response_seconds: [0.0; NUM_PLAYERS],
    };
    for (p, plan) in plans.iter().enumerate() {
        let policy = PlanPolicy::new(game, &restricted, p, plan, &oracle.strategies[p]);
        step.support[p] = plan.iter().filter(|&&w| w > NOISE).count();
        if !answer(game, &mut step, p, &policy, || policy.infosets(), stop)? {
            return Ok(None);
        }
    }
    Ok(Some(step))
}
