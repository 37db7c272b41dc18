//! Full-width training on the streaming tables, as the `train` command
//! drives it for games too large to compile: the solver at the precision
//! chosen, its passes over the histories with progress, its checkpointed
//! state and the exact exploitability of its average policy.

use std::sync::atomic::AtomicBool;

use serde::{Deserialize, Serialize};

use darkhex_games::{AnyGame, Game};

use crate::best_response::Exploitability;
use crate::cfr::tabular::CfrVariant;
use crate::policy_file::{PolicyFile, Provenance};
use crate::stream::{
    AnyStream, InfoStateTables, PassOptions, Precision, Real, RowPolicy, StreamCfr, StreamCfrState,
    StreamError,
};

/// What a pass of a streaming run reports as it goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamProgress {
    pub kind: PassKind,
    /// Histories walked so far in this pass.
    pub histories: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PassKind {
    /// A player's regret pass of an iteration.
    Regrets { player: usize },
    /// The exploitability of the average policy (both players at once).
    Exploitability,
}

/// Called as passes go.
pub type ProgressFn = dyn Fn(StreamProgress) + Send + Sync;

/// A streaming solver's state at its precision: what a checkpoint holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum StreamSolverState {
    F32(StreamCfrState<f32>),
    F64(StreamCfrState<f64>),
}

impl StreamSolverState {
    pub fn variant(&self) -> CfrVariant {
        match self {
            StreamSolverState::F32(s) => s.variant,
            StreamSolverState::F64(s) => s.variant,
        }
    }

    pub fn precision(&self) -> Precision {
        match self {
            StreamSolverState::F32(_) => Precision::F32,
            StreamSolverState::F64(_) => Precision::F64,
        }
    }

    pub fn is_finite(&self) -> bool {
        match self {
            StreamSolverState::F32(s) => s.is_finite(),
            StreamSolverState::F64(s) => s.is_finite(),
        }
    }
}

enum Solver<'t> {
    F32(StreamCfr<'t, f32>),
    F64(StreamCfr<'t, f64>),
}

/// Runs `$body` with `$s` bound to the solver at either precision.
macro_rules! with_solver {
    ($solver:expr, $s:ident => $body:expr) => {
        match $solver {
            Solver::F32($s) => $body,
            Solver::F64($s) => $body,
        }
    };
}

/// A streaming training run: the game's stream, its tables and the solver.
pub struct StreamRun<'t> {
    stream: AnyStream,
    tables: &'t InfoStateTables,
    solver: Solver<'t>,
}

impl<'t> StreamRun<'t> {
    pub fn new(
        game: &AnyGame,
        tables: &'t InfoStateTables,
        variant: CfrVariant,
        precision: Precision,
    ) -> Result<Self, StreamError> {
        let state = match precision {
            Precision::F32 => StreamSolverState::F32(StreamCfrState::new(tables, variant)),
            Precision::F64 => StreamSolverState::F64(StreamCfrState::new(tables, variant)),
        };
        Ok(Self::resume(game, tables, state)?.expect("fresh arrays fit the tables"))
    }

    /// Continues a saved state; `Ok(None)` when its arrays do not fit the tables.
    pub fn resume(
        game: &AnyGame,
        tables: &'t InfoStateTables,
        state: StreamSolverState,
    ) -> Result<Option<Self>, StreamError> {
        let stream = AnyStream::new(game)?;
        if tables.game() != game.game_string() {
            return Err(StreamError::WrongTables {
                tables: tables.game().to_string(),
                game: game.game_string(),
            });
        }
        let solver = match state {
            StreamSolverState::F32(s) => StreamCfr::with_state(tables, s).map(Solver::F32),
            StreamSolverState::F64(s) => StreamCfr::with_state(tables, s).map(Solver::F64),
        };
        Ok(solver.map(|solver| StreamRun {
            stream,
            tables,
            solver,
        }))
    }

    pub fn tables(&self) -> &'t InfoStateTables {
        self.tables
    }

    pub fn iteration(&self) -> u64 {
        with_solver!(&self.solver, s => s.iteration())
    }

    pub fn variant(&self) -> CfrVariant {
        with_solver!(&self.solver, s => s.variant())
    }

    pub fn state(&self) -> StreamSolverState {
        match &self.solver {
            Solver::F32(s) => StreamSolverState::F32(s.state().clone()),
            Solver::F64(s) => StreamSolverState::F64(s.state().clone()),
        }
    }

    pub fn average_policy(&self) -> RowPolicy {
        with_solver!(&self.solver, s => s.average_policy())
    }

    pub fn policy_file(&self, provenance: Provenance) -> PolicyFile {
        self.average_policy().to_file(self.tables, provenance)
    }

    /// Runs `iterations` more iterations, two passes over the histories each.
    pub fn run(
        &mut self,
        iterations: u64,
        progress: Option<&ProgressFn>,
    ) -> Result<(), StreamError> {
        for _ in 0..iterations {
            with_solver!(&mut self.solver, s => iterate(s, &self.stream, self.tables, progress))?;
        }
        Ok(())
    }

    /// Exact exploitability of the average policy, by one pass that
    /// `stop` ends early (see [`PassOptions::stop`]).
    pub fn exploitability(
        &self,
        progress: Option<&ProgressFn>,
        stop: Option<&AtomicBool>,
    ) -> Result<Exploitability, StreamError> {
        exact_exploitability(
            &self.stream,
            self.tables,
            &self.average_policy(),
            progress,
            stop,
        )
    }
}

/// Exact exploitability of `policy` by one pass over `stream`'s histories,
/// reported to `progress` as it goes and ended early by `stop`.
pub fn exact_exploitability(
    stream: &AnyStream,
    tables: &InfoStateTables,
    policy: &RowPolicy,
    progress: Option<&ProgressFn>,
    stop: Option<&AtomicBool>,
) -> Result<Exploitability, StreamError> {
    let report = |histories| {
        if let Some(f) = progress {
            f(StreamProgress {
                kind: PassKind::Exploitability,
                histories,
            });
        }
    };
    let options = PassOptions {
        progress: Some(&report),
        stop,
        ..Default::default()
    };
    Ok(stream
        .exploitability(tables, policy, &options)?
        .exploitability)
}

fn iterate<T: Real>(
    solver: &mut StreamCfr<T>,
    stream: &AnyStream,
    tables: &InfoStateTables,
    progress: Option<&ProgressFn>,
) -> Result<(), StreamError> {
    solver.iterate(|policy, player| {
        let report = |histories| {
            if let Some(f) = progress {
                f(StreamProgress {
                    kind: PassKind::Regrets { player },
                    histories,
                });
            }
        };
        let options = PassOptions {
            progress: Some(&report),
            ..Default::default()
        };
        Ok(stream
            .player_regrets(tables, policy, player, &options)?
            .regrets)
    })
}
