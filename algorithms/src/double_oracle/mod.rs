//! A double oracle (McMahan, Gordon and Blum 2003) whose oracles are the
//! exact support-restricted best responses of [`crate::restricted_br`], so
//! it runs on boards no table holds.
//!
//! Each player keeps a set of pure strategies, complete ones ([`Pure`]: a
//! listed move, else the lowest legal action). The restricted game is the
//! normal form over the two sets: its payoffs are the pure pairs' values
//! (each a walk over the two strategies' supports, one path per chance
//! outcome) and it is solved exactly as a matrix game by the LP already in
//! the tree. This is simpler than Bosansky et al.'s restricted sequence
//! form (no temporary leaves, no default extension of partial plans) and
//! as correct: the game is finite, so only finitely many pure strategies
//! can be added, and a best response that earns no more than the
//! restricted value against the restricted equilibrium proves it the
//! value. Each restricted equilibrium strategy, played as the behaviour
//! strategy equivalent to its mixture ([`Mixture`]), is a certificate:
//! Black's proves a lower bound on Black's value (what it earns against
//! White's exact best response), White's an upper bound. The best
//! responses join the sets, and the loop goes on until the best bounds
//! met so far are within the asked gap, or no best response is new.

mod pure;

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use darkhex_games::{Game, NUM_PLAYERS};
use serde::{Deserialize, Serialize};
use thiserror::Error;

pub use pure::{Mixture, Pure, Seat};

use crate::lp::normal_form::solve_matrix_game;
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
}

impl Default for Options {
    fn default() -> Self {
        Options {
            gap: 1e-12,
            max_iterations: 1000,
            backend: LpBackend::Microlp,
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
    /// Pure strategies in each restricted equilibrium's mixture.
    pub support: [usize; NUM_PLAYERS],
    /// Histories the two best responses visited.
    pub histories: u64,
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
        oracle.fill_matrix(game)?;
        let sizes = [oracle.strategies[0].len(), oracle.strategies[1].len()];
        let m = &oracle.matrix;
        let (value, x) = solve_matrix_game(sizes[0], sizes[1], |i, j| m[i][j], options.backend)?;
        let (_, y) = solve_matrix_game(sizes[1], sizes[0], |j, i| -m[i][j], options.backend)?;
        let iteration = oracle.iterations + 1;
        let mut bounds = [0.0; NUM_PLAYERS];
        let mut responses = Vec::with_capacity(NUM_PLAYERS);
        let mut support = [0; NUM_PLAYERS];
        let mut histories = 0;
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
            support[p] = mix.iter().filter(|&&w| w > WEIGHT_FLOOR).count();
            let settings = Settings {
                missing: Missing::Error,
                record: true,
            };
            let outcome = restricted_br::restricted_best_response(
                game,
                &mixture,
                1 - p,
                settings,
                None,
                stop,
                &|_| {},
            )?;
            let Outcome::Done(response) = outcome else {
                return Ok(Finish::Stopped);
            };
            histories += response.work.histories;
            // The responder's value is the other side of Black's bound.
            let bound = if p == 0 {
                -response.value
            } else {
                response.value
            };
            bounds[p] = bound;
            let better = match &oracle.best[p] {
                None => true,
                Some(c) => (p == 0 && bound > c.bound) || (p == 1 && bound < c.bound),
            };
            if better {
                oracle.best[p] = Some(Certificate {
                    bound,
                    iteration,
                    support: support[p],
                    infosets: mixture.infosets(),
                });
            }
            responses.push(Pure::from_choices(&response.choices));
        }
        let mut added = 0;
        for (p, r) in responses.into_iter().enumerate() {
            added += usize::from(oracle.add(1 - p, r));
        }
        oracle.iterations = iteration;
        let report = Iteration {
            iteration,
            sizes,
            restricted_value: value,
            lower: bounds[0],
            upper: bounds[1],
            best_lower: oracle.lower().unwrap_or(bounds[0]),
            best_upper: oracle.upper().unwrap_or(bounds[1]),
            support,
            histories,
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
