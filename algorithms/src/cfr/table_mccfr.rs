//! Monte Carlo CFR over the information-state tables: the samplers of
//! [`super::mccfr`] with their batches, per-iteration random streams and
//! update rules unchanged, but regrets and average weights in flat arrays
//! indexed by the tables' slots (see [`super::sampled_walk`]). For the same
//! seed and worker count both give the same bits, whatever the thread count.

use darkhex_games::{AnyGame, Game, NUM_PLAYERS};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use std::any::Any;

use super::dark_hex_outcome::DarkHexOutcome;
use super::mccfr::{ITERATIONS_PER_WORKER, Sampling, in_batches, iteration_rng, worker_share};
use super::sampled_walk::{SampledWalk, WorkerScratch};
use crate::huge_pages;
use crate::policy::normalise;
use crate::policy_file::{InfosetPolicy, PolicyFile, Provenance};
use crate::stream::{
    AnyStream, DarkHexStream, InfoStateTables, LeducStream, RowPolicy, StateStream, StreamError,
    StreamGame,
};

/// Everything needed to continue a run over the tables: what a checkpoint holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TableMcState {
    pub sampling: Sampling,
    pub seed: u64,
    pub workers: usize,
    pub iteration: u64,
    /// Per player and slot of the tables.
    pub regrets: [Vec<f64>; NUM_PLAYERS],
    pub average: [Vec<f64>; NUM_PLAYERS],
    /// A bit per row that some walk met at a decision: the policy file
    /// lists those rows, as the keyed sampler's lists the infosets it met.
    pub visited: [Vec<u64>; NUM_PLAYERS],
}

impl TableMcState {
    pub fn new(tables: &InfoStateTables, sampling: Sampling, seed: u64, workers: usize) -> Self {
        let zeros = |p: usize| huge_pages::filled(tables.player(p).num_slots(), 0.0);
        TableMcState {
            sampling,
            seed,
            workers: workers.max(1),
            iteration: 0,
            regrets: std::array::from_fn(zeros),
            average: std::array::from_fn(zeros),
            visited: std::array::from_fn(|p| vec![0; tables.player(p).num_rows().div_ceil(64)]),
        }
    }

    /// Whether the arrays have the tables' sizes.
    pub fn fits(&self, tables: &InfoStateTables) -> bool {
        (0..NUM_PLAYERS).all(|p| {
            let t = tables.player(p);
            self.regrets[p].len() == t.num_slots()
                && self.average[p].len() == t.num_slots()
                && self.visited[p].len() == t.num_rows().div_ceil(64)
        })
    }

    pub fn is_finite(&self) -> bool {
        self.regrets
            .iter()
            .chain(&self.average)
            .flatten()
            .all(|x| x.is_finite())
    }

    pub fn is_visited(&self, player: usize, row: u32) -> bool {
        self.visited[player][row as usize / 64] >> (row % 64) & 1 != 0
    }

    /// Rows met so far, per player.
    pub fn visited_rows(&self) -> [usize; NUM_PLAYERS] {
        std::array::from_fn(|p| {
            self.visited[p]
                .iter()
                .map(|w| w.count_ones() as usize)
                .sum()
        })
    }

    /// The average policy at every decision row (uniform where no weight).
    pub fn average_policy(&self, tables: &InfoStateTables) -> RowPolicy {
        let probs = std::array::from_fn(|p| {
            let t = tables.player(p);
            let mut out = huge_pages::filled(t.num_slots(), 0.0);
            for row in t.decision_rows() {
                let s = t.slots(row);
                normalise(&self.average[p][s.clone()], &mut out[s]);
            }
            out
        });
        RowPolicy { probs }
    }

    /// The average policy at the rows met so far, as a policy file.
    pub fn policy_file(&self, tables: &InfoStateTables, provenance: Provenance) -> PolicyFile {
        let infosets = std::array::from_fn(|p| {
            let t = tables.player(p);
            t.decision_rows()
                .filter(|&row| self.is_visited(p, row))
                .map(|row| {
                    let s = t.slots(row);
                    let mut probs = vec![0.0; s.len()];
                    normalise(&self.average[p][s], &mut probs);
                    InfosetPolicy {
                        key: tables.key_of_row(p, row),
                        actions: t.actions(row).to_vec(),
                        probs,
                    }
                })
                .collect()
        });
        PolicyFile::new(tables.game(), provenance, infosets)
    }
}

/// A Monte Carlo CFR run over `tables`, walking `stream`.
pub struct TableMcSolver<'t, S: StreamGame> {
    stream: S,
    tables: &'t InfoStateTables,
    state: TableMcState,
    scratch: Vec<WorkerScratch<S::Node>>,
}

impl<'t, S: StreamGame + 'static> TableMcSolver<'t, S> {
    /// `None` when the state's arrays do not fit the tables.
    pub fn new(stream: S, tables: &'t InfoStateTables, state: TableMcState) -> Option<Self> {
        if !state.fits(tables) {
            return None;
        }
        let scratch = (0..state.workers)
            .map(|_| WorkerScratch::for_tables([tables.player(0), tables.player(1)]))
            .collect();
        Some(TableMcSolver {
            stream,
            tables,
            state,
            scratch,
        })
    }

    pub fn state(&self) -> &TableMcState {
        &self.state
    }

    pub fn into_state(self) -> TableMcState {
        self.state
    }

    pub fn tables(&self) -> &'t InfoStateTables {
        self.tables
    }

    pub fn stream(&self) -> &S {
        &self.stream
    }

    pub fn iteration(&self) -> u64 {
        self.state.iteration
    }

    /// Iterations per parallel batch, as [`super::McSolver::batch_size`].
    pub fn batch_size(&self) -> u64 {
        self.state.workers as u64 * ITERATIONS_PER_WORKER
    }

    /// Runs `iterations` more iterations, as [`super::McSolver::run`].
    pub fn run(&mut self, iterations: u64) {
        in_batches(iterations, self.batch_size(), |n| self.run_batch(n));
    }

    fn run_batch(&mut self, n: u64) {
        let workers = self.state.workers as u64;
        let first = self.state.iteration;
        let (seed, sampling) = (self.state.seed, self.state.sampling);
        let tables = [self.tables.player(0), self.tables.player(1)];
        let frozen = [&self.state.regrets[0][..], &self.state.regrets[1][..]];
        let stream = &self.stream;
        let work = |(w, scratch): (usize, &mut WorkerScratch<S::Node>)| {
            let share = worker_share(first, n, w as u64, workers);
            let dark_hex = (stream as &dyn Any).downcast_ref::<DarkHexStream>();
            if let (Some(game), Sampling::Outcome { exploration }) = (dark_hex, sampling) {
                let mut walk = DarkHexOutcome {
                    game,
                    rows: [tables[0].rows(), tables[1].rows()],
                    frozen,
                    updates: &mut scratch.updates,
                    exploration,
                };
                for it in share {
                    let mut rng = iteration_rng(seed, it);
                    for player in 0..NUM_PLAYERS {
                        walk.iterate(player, &mut rng);
                    }
                }
                return;
            }
            let mut walk = SampledWalk {
                stream,
                tables,
                frozen,
                scratch,
            };
            for it in share {
                let mut rng = iteration_rng(seed, it);
                for player in 0..NUM_PLAYERS {
                    walk.iterate(sampling, player, &mut rng);
                }
            }
        };
        // A pool hand-off per batch of a few microseconds' work costs more
        // than it gains on one thread; the result is the same either way.
        if workers == 1 || rayon::current_num_threads() == 1 {
            self.scratch.iter_mut().enumerate().for_each(work);
        } else {
            self.scratch.par_iter_mut().enumerate().for_each(work);
        }
        let s = &mut self.state;
        for scratch in &mut self.scratch {
            for (p, updates) in scratch.updates.iter_mut().enumerate() {
                updates.drain_into(&mut s.regrets[p], &mut s.average[p], &mut s.visited[p]);
            }
        }
        s.iteration += n;
    }
}

/// A table-backed Monte Carlo run on a game chosen at run time.
pub enum AnyTableMc<'t> {
    DarkHex(TableMcSolver<'t, DarkHexStream>),
    Leduc(TableMcSolver<'t, LeducStream>),
    State(TableMcSolver<'t, StateStream<AnyGame>>),
}

/// Runs `$body` with `$s` bound to the solver of either stream.
macro_rules! with_table_mc {
    ($solver:expr, $s:ident => $body:expr) => {
        match $solver {
            AnyTableMc::DarkHex($s) => $body,
            AnyTableMc::Leduc($s) => $body,
            AnyTableMc::State($s) => $body,
        }
    };
}

impl<'t> AnyTableMc<'t> {
    /// Continues `state` on `game`'s tables; `Ok(None)` when its arrays do
    /// not fit them.
    pub fn new(
        game: &AnyGame,
        tables: &'t InfoStateTables,
        state: TableMcState,
    ) -> Result<Option<Self>, StreamError> {
        if tables.game() != game.game_string() {
            return Err(StreamError::WrongTables {
                tables: tables.game().to_string(),
                game: game.game_string(),
            });
        }
        Ok(match AnyStream::new(game)? {
            AnyStream::DarkHex(s) => TableMcSolver::new(s, tables, state).map(AnyTableMc::DarkHex),
            AnyStream::Leduc(s) => TableMcSolver::new(s, tables, state).map(AnyTableMc::Leduc),
            AnyStream::State(s) => TableMcSolver::new(s, tables, state).map(AnyTableMc::State),
        })
    }

    pub fn state(&self) -> &TableMcState {
        with_table_mc!(self, s => s.state())
    }

    pub fn tables(&self) -> &'t InfoStateTables {
        with_table_mc!(self, s => s.tables())
    }

    pub fn iteration(&self) -> u64 {
        self.state().iteration
    }

    pub fn batch_size(&self) -> u64 {
        with_table_mc!(self, s => s.batch_size())
    }

    pub fn run(&mut self, iterations: u64) {
        with_table_mc!(self, s => s.run(iterations))
    }

    /// The stream the run walks, for exact passes over its tables.
    pub fn any_stream(&self) -> AnyStream {
        match self {
            AnyTableMc::DarkHex(s) => AnyStream::DarkHex(s.stream().clone()),
            AnyTableMc::Leduc(s) => AnyStream::Leduc(s.stream().clone()),
            AnyTableMc::State(s) => AnyStream::State(s.stream().clone()),
        }
    }
}
