//! PPO, MMD, NFSP and ESCHER from Python: `darkhex.train(game,
//! algo="ppo"|"mmd"|"nfsp"|"escher", ...)` runs the library's trainer as
//! `darkhex train --algo ...` does (the
//! same settings, defaults and ranges: the same seed writes the same model
//! file), with the exact exploitability of the network every `eval_every`
//! steps where the game allows it, and returns the network as a `Model`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use darkhex_algorithms::cfr::escher::{EscherCheckpoint, EscherSettings, EscherSolver};
use darkhex_algorithms::driver::trainers::{Escher, Nfsp, Ppo};
use darkhex_algorithms::driver::{Driver, End, Evaluation, NetworkTrainer, evaluation_interval};
use darkhex_algorithms::fa::model::{ModelProvenance, PolicyModel};
use darkhex_algorithms::memory::MemoryLimit;
use darkhex_algorithms::rl::checkpoint::{NfspCheckpoint, RlCheckpoint};
use darkhex_algorithms::rl::exact::{CurvePoint, ExactEvaluator, ExactMethod, exact_method};
use darkhex_algorithms::rl::nfsp::{NfspSettings, NfspTrainer};
use darkhex_algorithms::rl::pool::with_threads;
use darkhex_algorithms::rl::ppo::{PpoSettings, PpoTrainer};
use darkhex_algorithms::stream::{BuildOptions, build_tables};
use darkhex_games::AnyGame;
use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::deep::PyModel;
use crate::errors::{Failure, failure};
use crate::interrupt::run_blocking;
use crate::repr::fields_repr;
use crate::tree::compile;

/// What `train` returns for `ppo`, `mmd`, `nfsp` and `escher`.
#[pyclass(module = "darkhex", name = "RlResult", frozen, get_all)]
pub struct RlResult {
    /// Exact exploitability of the network at the end (None when the game
    /// is too large to evaluate).
    exploitability: Option<f64>,
    /// Player 0's expected return when the network plays both seats.
    value_p0: Option<f64>,
    /// Steps taken: actions in all games, as the benchmark counts them
    /// (escher: iterations).
    steps: u64,
    /// Training seconds (evaluations excluded), across resumed runs.
    seconds: f64,
    /// This call's steps a second of training.
    steps_per_second: f64,
    /// One dict per evaluation: steps, seconds, exploitability, value_p0.
    history: Py<PyList>,
    model: Py<PyModel>,
}

#[pymethods]
impl RlResult {
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        fields_repr(
            slf.as_any(),
            &["steps", "exploitability", "value_p0", "seconds"],
        )
    }
}

struct Trained {
    model: PolicyModel,
    provenance: ModelProvenance,
    curve: Vec<CurvePoint>,
    steps: u64,
    seconds: f64,
    rate: f64,
    stopped: bool,
}

/// The settings of a reinforcement-learning run.
pub enum RlSettings {
    /// PPO or MMD.
    Ppo(PpoSettings),
    Nfsp(NfspSettings),
    Escher(EscherSettings),
}

/// A PPO, MMD or NFSP run (see `darkhex.train`).
pub fn train_rl(
    py: Python<'_>,
    game: AnyGame,
    settings: RlSettings,
    threads: Option<usize>,
    checkpoint: Option<PathBuf>,
    eval_every: Option<u64>,
) -> PyResult<RlResult> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let threads = threads.unwrap_or_else(rayon::current_num_threads);
    let trained = run_blocking(py, Some(stop), move || {
        with_threads(threads, || {
            let path = checkpoint.as_deref();
            match settings {
                RlSettings::Ppo(s) => run_ppo(game, s, path, eval_every, &flag),
                RlSettings::Nfsp(s) => run_nfsp(game, s, path, eval_every, &flag),
                RlSettings::Escher(s) => run_escher(game, s, path, eval_every, &flag),
            }
        })
    })?
    .map_err(failure)?;
    if trained.stopped {
        return Err(PyKeyboardInterrupt::new_err(format!(
            "interrupted at step {}{}",
            trained.steps, ", the checkpoint saved"
        )));
    }
    let history = PyList::empty(py);
    for p in &trained.curve {
        let d = PyDict::new(py);
        d.set_item("steps", p.steps)?;
        d.set_item("seconds", p.seconds)?;
        d.set_item("exploitability", p.exploitability)?;
        d.set_item("value_p0", p.value_p0)?;
        history.append(d)?;
    }
    let last = trained.curve.last().filter(|p| p.steps == trained.steps);
    Ok(RlResult {
        exploitability: last.map(|p| p.exploitability),
        value_p0: last.map(|p| p.value_p0),
        steps: trained.steps,
        seconds: trained.seconds,
        steps_per_second: trained.rate,
        history: history.unbind(),
        model: Py::new(
            py,
            PyModel::new(game, Arc::new(trained.model), trained.provenance),
        )?,
    })
}

/// The exact evaluation `game` allows: the compiled tree, or the tables.
pub(crate) fn evaluator(game: &AnyGame) -> Result<Option<ExactEvaluator>, Failure> {
    Ok(match exact_method(game) {
        Some(ExactMethod::Tree) => Some(ExactEvaluator::Tree(Box::new(compile(game)?))),
        Some(ExactMethod::Tables) => Some(ExactEvaluator::Tables(Box::new(build_tables(
            game,
            &BuildOptions::default(),
        )?))),
        None => None,
    })
}

/// What a run resumes from: its trainer, training seconds and curve.
type Resumed<T> = (T, f64, Vec<CurvePoint>);

/// The run `checkpoint` holds if it exists (`resume` checks that it was
/// made with the settings asked, but for its length), else a new one.
fn resume_or_start<T>(
    checkpoint: Option<&Path>,
    resume: impl FnOnce(&Path) -> Result<Resumed<T>, Failure>,
    start: impl FnOnce() -> Result<T, Failure>,
) -> Result<Resumed<T>, Failure> {
    match checkpoint {
        Some(path) if path.exists() => resume(path),
        _ => Ok((start()?, 0.0, Vec::new())),
    }
}

fn run_escher(
    game: AnyGame,
    asked: EscherSettings,
    checkpoint: Option<&Path>,
    eval_every: Option<u64>,
    stop: &AtomicBool,
) -> Result<Trained, Failure> {
    asked.check_memory(&game, MemoryLimit::new(None))?;
    let (solver, earlier, curve) = resume_or_start(
        checkpoint,
        |path| {
            let c = EscherCheckpoint::load_for(path, &game)?;
            let held = c.escher.settings.with_iterations(0);
            same_settings(path, held, asked.with_iterations(0))?;
            let solver = EscherSolver::resume(game, c.escher, asked.iterations)?;
            Ok((solver, c.seconds, c.curve))
        },
        || Ok(EscherSolver::new(game, asked)?),
    )?;
    let run = Escher { solver, game };
    drive(game, run, earlier, curve, checkpoint, eval_every, stop)
}

/// Refuses a checkpoint made with other settings than `asked`.
fn same_settings<S: PartialEq>(path: &Path, held: S, asked: S) -> Result<(), Failure> {
    if held != asked {
        return Err(format!(
            "the checkpoint {} was made with other settings than these",
            path.display()
        )
        .into());
    }
    Ok(())
}

fn run_ppo(
    game: AnyGame,
    asked: PpoSettings,
    checkpoint: Option<&Path>,
    eval_every: Option<u64>,
    stop: &AtomicBool,
) -> Result<Trained, Failure> {
    asked.check_memory(&game, MemoryLimit::new(None))?;
    let (trainer, earlier, curve) = resume_or_start(
        checkpoint,
        |path| {
            let c = RlCheckpoint::load_for(path, &game)?;
            same_settings(path, c.ppo.settings.with_steps(0), asked.with_steps(0))?;
            let trainer = PpoTrainer::resume(game, c.ppo, asked.steps)?;
            Ok((trainer, c.seconds, c.curve))
        },
        || Ok(PpoTrainer::new(game, asked)?),
    )?;
    let run = Ppo::new(trainer);
    drive(game, run, earlier, curve, checkpoint, eval_every, stop)
}

fn run_nfsp(
    game: AnyGame,
    asked: NfspSettings,
    checkpoint: Option<&Path>,
    eval_every: Option<u64>,
    stop: &AtomicBool,
) -> Result<Trained, Failure> {
    asked.check_memory(&game, MemoryLimit::new(None))?;
    let (trainer, earlier, curve) = resume_or_start(
        checkpoint,
        |path| {
            let c = NfspCheckpoint::load_for(path, &game)?;
            same_settings(path, c.nfsp.settings.with_steps(0), asked.with_steps(0))?;
            let trainer = NfspTrainer::resume(game, c.nfsp, asked.steps)?;
            Ok((trainer, c.seconds, c.curve))
        },
        || Ok(NfspTrainer::new(game, asked)?),
    )?;
    let run = Nfsp::new(trainer);
    drive(game, run, earlier, curve, checkpoint, eval_every, stop)
}

/// Trains `trainer` to its target or a stop in the library's loop
/// ([`Driver`]), evaluating every `eval_every` steps (by default ten times
/// a run where the tree compiles) and at the end, saving to `checkpoint`
/// as the CLI does.
fn drive<T: NetworkTrainer>(
    game: AnyGame,
    mut trainer: T,
    earlier: f64,
    curve: Vec<CurvePoint>,
    checkpoint: Option<&Path>,
    eval_every: Option<u64>,
    stop: &AtomicBool,
) -> Result<Trained, Failure> {
    let evaluator = evaluator(&game)?;
    let every = evaluation_interval(evaluator.as_ref(), eval_every, trainer.target());
    let checkpoint = checkpoint.map(Path::to_path_buf);
    let mut driver = Driver::new((evaluator, every), checkpoint, None, earlier, curve);
    let end = driver.run(&mut trainer, stop, &())?;
    let stopped = matches!(end, End::Stopped { .. })
        || matches!(
            driver.last_evaluation(&mut trainer, stop, &())?,
            Some(Evaluation::Stopped)
        );
    driver.save(&mut trainer, &())?;
    let steps = trainer.position();
    let last = driver
        .curve()
        .last()
        .filter(|p| p.steps == steps)
        .map(|p| p.exploitability);
    let session = driver.session();
    Ok(Trained {
        provenance: trainer.provenance(last),
        model: trainer.into_model()?,
        steps,
        seconds: driver.seconds(),
        rate: (steps - driver.before()) as f64 / session.max(1e-9),
        curve: driver.curve().to_vec(),
        stopped,
    })
}
