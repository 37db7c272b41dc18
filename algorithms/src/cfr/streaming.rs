//! Full-width training on the streaming tables, as the `train` command
//! drives it for games too large to compile: the solver at the precision
//! chosen, its passes over the histories with progress, its checkpointed
//! state and the exact exploitability of its average policy. RCFR and
//! f-RCFR run the same way, their players' policies the link of a fit to
//! the regrets ([`crate::cfr::table_rcfr`]).

use std::sync::atomic::AtomicBool;

use serde::{Deserialize, Serialize};

use darkhex_games::{AnyGame, Game};

use crate::best_response::Exploitability;
use crate::cfr::rcfr::RcfrSettings;
use crate::cfr::table_rcfr::TableRegression;
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
    /// A new run's arrays.
    pub fn fresh(tables: &InfoStateTables, variant: CfrVariant, precision: Precision) -> Self {
        match precision {
            Precision::F32 => StreamSolverState::F32(StreamCfrState::new(tables, variant)),
            Precision::F64 => StreamSolverState::F64(StreamCfrState::new(tables, variant)),
        }
    }

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

/// What a checkpoint of RCFR over the tables holds: its settings and the
/// CFR arrays. The least-squares fit depends on the regrets alone, so
/// resuming refits the last ones, as on the tree.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StreamRcfrState {
    pub settings: RcfrSettings,
    pub arrays: StreamSolverState,
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
    /// RCFR: what the players' policies are fitted with.
    regression: Option<Box<TableRegression>>,
}

impl<'t> StreamRun<'t> {
    pub fn new(
        game: &AnyGame,
        tables: &'t InfoStateTables,
        variant: CfrVariant,
        precision: Precision,
    ) -> Result<Self, StreamError> {
        let state = StreamSolverState::fresh(tables, variant, precision);
        Ok(Self::resume(game, tables, state)?.expect("fresh arrays fit the tables"))
    }

    /// RCFR or f-RCFR (least squares) over the tables.
    pub fn regression(
        game: &AnyGame,
        tables: &'t InfoStateTables,
        settings: RcfrSettings,
        precision: Precision,
    ) -> Result<Self, StreamError> {
        let arrays = StreamSolverState::fresh(tables, settings.variant(), precision);
        let state = StreamRcfrState { settings, arrays };
        Ok(Self::resume_regression(game, tables, state)?.expect("fresh arrays fit the tables"))
    }

    /// Continues a saved RCFR state, refitting its last regrets; `Ok(None)`
    /// when its arrays do not fit the tables or its settings.
    pub fn resume_regression(
        game: &AnyGame,
        tables: &'t InfoStateTables,
        state: StreamRcfrState,
    ) -> Result<Option<Self>, StreamError> {
        if state.arrays.variant() != state.settings.variant() {
            return Ok(None);
        }
        let regression = TableRegression::new(game, tables, state.settings)?;
        let Some(mut run) = Self::resume(game, tables, state.arrays)? else {
            return Ok(None);
        };
        let iteration = run.iteration();
        if iteration > 0 {
            with_solver!(&mut run.solver, s => s.replace_current(|p, regrets, current| {
                regression.policy(tables, p, regrets, current, iteration)
            }))?;
        }
        run.regression = Some(Box::new(regression));
        Ok(Some(run))
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
            regression: None,
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

    /// RCFR's settings, for a run of RCFR over the tables.
    pub fn regression_settings(&self) -> Option<RcfrSettings> {
        self.regression.as_ref().map(|r| r.settings())
    }

    pub fn average_policy(&self) -> RowPolicy {
        with_solver!(&self.solver, s => s.average_policy())
    }

    /// The policy the next iteration plays.
    pub fn current_policy(&self) -> &RowPolicy {
        with_solver!(&self.solver, s => s.current_policy())
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
            let regression = self.regression.as_deref();
            with_solver!(&mut self.solver, s => iterate(s, &self.stream, self.tables, regression, progress))?;
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

/// One iteration; with `regression`, RCFR's: the players play the link
/// of the fitted regrets.
fn iterate<T: Real>(
    solver: &mut StreamCfr<T>,
    stream: &AnyStream,
    tables: &InfoStateTables,
    regression: Option<&TableRegression>,
    progress: Option<&ProgressFn>,
) -> Result<(), StreamError> {
    // The iteration under way: the one the regrets will have been summed to.
    let iteration = solver.iteration() + 1;
    let fitted = |p: usize, regrets: &[T], current: &mut [f64]| match regression {
        Some(r) => Ok(r.policy(tables, p, regrets, current, iteration)?),
        None => Ok(()),
    };
    let pass = |policy: &RowPolicy, player: usize| {
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
    };
    solver.iterate_with(pass, fitted)
}
