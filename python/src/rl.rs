//! PPO, MMD, NFSP and ESCHER from Python: `darkhex.train(game,
//! algo="ppo"|"mmd"|"nfsp"|"escher", ...)` runs the library's trainer as
//! `darkhex train --algo ...` does (the
//! same settings, defaults and ranges: the same seed writes the same model
//! file), with the exact exploitability of the network every `eval_every`
//! steps where the game allows it, and returns the network as a `Model`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use darkhex_algorithms::Exploitability;
use darkhex_algorithms::cfr::escher::{EscherCheckpoint, EscherSettings, EscherSolver};
use darkhex_algorithms::fa::model::{ModelProvenance, PolicyModel};
use darkhex_algorithms::memory::MemoryLimit;
use darkhex_algorithms::rl::checkpoint::{NfspCheckpoint, RlCheckpoint};
use darkhex_algorithms::rl::exact::{CurvePoint, ExactEvaluator, ExactMethod, exact_method};
use darkhex_algorithms::rl::nfsp::{NfspSettings, NfspTrainer};
use darkhex_algorithms::rl::pool::with_threads;
use darkhex_algorithms::rl::ppo::{PpoSettings, PpoTrainer};
use darkhex_algorithms::stream::{BuildOptions, PassOptions, build_tables};
use darkhex_games::AnyGame;
use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::deep::PyModel;
use crate::interrupt::run_blocking;
use crate::repr::fields_repr;
use crate::solvers::{Failure, compile, failure};

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
fn evaluator(game: &AnyGame) -> Result<Option<ExactEvaluator>, Failure> {
    Ok(match exact_method(game) {
        Some(ExactMethod::Tree) => Some(ExactEvaluator::Tree(Box::new(compile(game)?))),
        Some(ExactMethod::Tables) => Some(ExactEvaluator::Tables(Box::new(build_tables(
            game,
            &BuildOptions::default(),
        )?))),
        None => None,
    })
}

/// A reinforcement-learning run as `train` drives it.
trait Learner {
    fn steps(&self) -> u64;
    fn done(&self) -> bool;
    /// The next unit of work: an update, a game.
    fn advance(&mut self) -> Result<(), Failure>;
    /// The exploitability of the policy learned so far.
    fn evaluate(
        &mut self,
        evaluator: &ExactEvaluator,
        options: &PassOptions,
    ) -> Result<Exploitability, Failure>;
    fn save(&mut self, path: &Path, seconds: f64, curve: &[CurvePoint]) -> Result<(), Failure>;
    fn provenance(&self, exploitability: Option<f64>) -> ModelProvenance;
    /// The policy learned.
    fn into_model(self) -> Result<PolicyModel, Failure>;
}

impl Learner for PpoTrainer {
    fn steps(&self) -> u64 {
        PpoTrainer::steps(self)
    }
    fn done(&self) -> bool {
        PpoTrainer::done(self)
    }
    fn advance(&mut self) -> Result<(), Failure> {
        self.update()?;
        Ok(())
    }
    fn evaluate(
        &mut self,
        evaluator: &ExactEvaluator,
        options: &PassOptions,
    ) -> Result<Exploitability, Failure> {
        Ok(evaluator.evaluate(&PpoTrainer::model(self)?, options)?)
    }
    fn into_model(mut self) -> Result<PolicyModel, Failure> {
        Ok(PpoTrainer::model(&mut self)?)
    }
    fn save(&mut self, path: &Path, seconds: f64, curve: &[CurvePoint]) -> Result<(), Failure> {
        let state = self.state()?;
        Ok(RlCheckpoint::new(self.game(), state, seconds, curve.to_vec()).save(path)?)
    }
    fn provenance(&self, exploitability: Option<f64>) -> ModelProvenance {
        PpoTrainer::provenance(self, exploitability)
    }
}

impl Learner for NfspTrainer {
    fn steps(&self) -> u64 {
        NfspTrainer::steps(self)
    }
    fn done(&self) -> bool {
        NfspTrainer::done(self)
    }
    fn advance(&mut self) -> Result<(), Failure> {
        Ok(self.play_game()?)
    }
    fn evaluate(
        &mut self,
        evaluator: &ExactEvaluator,
        options: &PassOptions,
    ) -> Result<Exploitability, Failure> {
        Ok(evaluator.evaluate(&NfspTrainer::model(self)?, options)?)
    }
    fn into_model(mut self) -> Result<PolicyModel, Failure> {
        Ok(NfspTrainer::model(&mut self)?)
    }
    fn save(&mut self, path: &Path, seconds: f64, curve: &[CurvePoint]) -> Result<(), Failure> {
        let state = self.state()?;
        Ok(NfspCheckpoint::new(self.game(), state, seconds, curve.to_vec()).save(path)?)
    }
    fn provenance(&self, exploitability: Option<f64>) -> ModelProvenance {
        NfspTrainer::provenance(self, exploitability)
    }
}

/// An ESCHER run: its steps are its iterations.
struct Escher {
    solver: EscherSolver,
    game: AnyGame,
}

impl Learner for Escher {
    fn steps(&self) -> u64 {
        self.solver.iteration()
    }
    fn done(&self) -> bool {
        self.solver.iteration() >= self.solver.settings().iterations
    }
    fn advance(&mut self) -> Result<(), Failure> {
        Ok(self.solver.iterate()?)
    }
    fn evaluate(
        &mut self,
        evaluator: &ExactEvaluator,
        options: &PassOptions,
    ) -> Result<Exploitability, Failure> {
        self.solver.train_policy()?;
        Ok(evaluator.evaluate(self.solver.model()?, options)?)
    }
    fn save(&mut self, path: &Path, seconds: f64, curve: &[CurvePoint]) -> Result<(), Failure> {
        let state = self.solver.state();
        Ok(EscherCheckpoint::new(&self.game, state, seconds, curve.to_vec()).save(path)?)
    }
    fn provenance(&self, exploitability: Option<f64>) -> ModelProvenance {
        self.solver.provenance(exploitability)
    }
    fn into_model(mut self) -> Result<PolicyModel, Failure> {
        self.solver.train_policy()?;
        Ok(self.solver.into_model()?)
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
    let (solver, earlier, curve) = match checkpoint {
        Some(path) if path.exists() => {
            let c = EscherCheckpoint::load_for(path, &game)?;
            same_settings(
                path,
                c.escher.settings.with_iterations(0),
                asked.with_iterations(0),
            )?;
            (
                EscherSolver::resume(game, c.escher, asked.iterations)?,
                c.seconds,
                c.curve,
            )
        }
        _ => (EscherSolver::new(game, asked)?, 0.0, Vec::new()),
    };
    let escher = Escher { solver, game };
    drive(
        game,
        escher,
        asked.iterations,
        earlier,
        curve,
        checkpoint,
        eval_every,
        stop,
    )
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
    let (trainer, earlier, curve) = match checkpoint {
        Some(path) if path.exists() => {
            let c = RlCheckpoint::load_for(path, &game)?;
            same_settings(path, c.ppo.settings.with_steps(0), asked.with_steps(0))?;
            (
                PpoTrainer::resume(game, c.ppo, asked.steps)?,
                c.seconds,
                c.curve,
            )
        }
        _ => (PpoTrainer::new(game, asked)?, 0.0, Vec::new()),
    };
    drive(
        game,
        trainer,
        asked.steps,
        earlier,
        curve,
        checkpoint,
        eval_every,
        stop,
    )
}

fn run_nfsp(
    game: AnyGame,
    asked: NfspSettings,
    checkpoint: Option<&Path>,
    eval_every: Option<u64>,
    stop: &AtomicBool,
) -> Result<Trained, Failure> {
    asked.check_memory(&game, MemoryLimit::new(None))?;
    let (trainer, earlier, curve) = match checkpoint {
        Some(path) if path.exists() => {
            let c = NfspCheckpoint::load_for(path, &game)?;
            same_settings(path, c.nfsp.settings.with_steps(0), asked.with_steps(0))?;
            (
                NfspTrainer::resume(game, c.nfsp, asked.steps)?,
                c.seconds,
                c.curve,
            )
        }
        _ => (NfspTrainer::new(game, asked)?, 0.0, Vec::new()),
    };
    drive(
        game,
        trainer,
        asked.steps,
        earlier,
        curve,
        checkpoint,
        eval_every,
        stop,
    )
}

/// Trains `trainer` to its steps or a stop, evaluating every `eval_every`
/// steps (by default ten times a run where the tree compiles) and at the
/// end, saving to `checkpoint` at each evaluation and at the end.
#[allow(clippy::too_many_arguments)]
fn drive<L: Learner>(
    game: AnyGame,
    mut trainer: L,
    target: u64,
    earlier: f64,
    mut curve: Vec<CurvePoint>,
    checkpoint: Option<&Path>,
    eval_every: Option<u64>,
    stop: &AtomicBool,
) -> Result<Trained, Failure> {
    let evaluator = evaluator(&game)?;
    let every = eval_every.or(match &evaluator {
        Some(ExactEvaluator::Tree(_)) => Some((target / 10).max(1)),
        _ => None,
    });
    let mut next = every.map(|k| (trainer.steps() / k + 1) * k);
    let (mut training, before) = (0.0f64, trainer.steps());
    let options = PassOptions {
        stop: Some(stop),
        ..PassOptions::default()
    };
    let evaluate = |trainer: &mut L, seconds: f64| -> Result<CurvePoint, Failure> {
        let start = Instant::now();
        let ev = evaluator.as_ref().ok_or("no exact evaluation")?;
        let e = trainer.evaluate(ev, &options)?;
        Ok(CurvePoint {
            steps: trainer.steps(),
            seconds,
            exploitability: e.exploitability,
            value_p0: e.value_p0,
            eval_seconds: start.elapsed().as_secs_f64(),
        })
    };
    let save = |trainer: &mut L, curve: &[CurvePoint], seconds: f64| -> Result<(), Failure> {
        match checkpoint {
            Some(path) => trainer.save(path, seconds, curve),
            None => Ok(()),
        }
    };
    while !trainer.done() && !stop.load(Ordering::SeqCst) {
        let t = Instant::now();
        trainer.advance()?;
        training += t.elapsed().as_secs_f64();
        if evaluator.is_some() && next.is_some_and(|n| trainer.steps() >= n) && !trainer.done() {
            next = every.map(|k| (trainer.steps() / k + 1) * k);
            match evaluate(&mut trainer, earlier + training) {
                Ok(p) => curve.push(p),
                // Ctrl-C stopped the pass over the tables.
                Err(_) if stop.load(Ordering::SeqCst) => break,
                Err(e) => return Err(e),
            }
            save(&mut trainer, &curve, earlier + training)?;
        }
    }
    let stopped = !trainer.done();
    if !stopped && evaluator.is_some() && curve.last().map(|p| p.steps) != Some(trainer.steps()) {
        curve.push(evaluate(&mut trainer, earlier + training)?);
    }
    save(&mut trainer, &curve, earlier + training)?;
    let last = curve
        .last()
        .filter(|p| p.steps == trainer.steps())
        .map(|p| p.exploitability);
    let provenance = trainer.provenance(last);
    let steps = trainer.steps();
    Ok(Trained {
        model: trainer.into_model()?,
        provenance,
        steps,
        seconds: earlier + training,
        rate: (steps - before) as f64 / training.max(1e-9),
        curve,
        stopped,
    })
}
