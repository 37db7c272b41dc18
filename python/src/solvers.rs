//! The solvers from Python: training, exploitability, the LP, PONE and the
//! Hex solver. Each call converts its arguments, runs the library on a
//! thread of its own with the GIL released (see `interrupt`), and converts
//! the result.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use darkhex_algorithms::cfr::escher_options::EscherOptions;
use darkhex_algorithms::fa::batch_policy::BatchPolicy;
use darkhex_algorithms::fa::model::PolicyModel;
use darkhex_algorithms::files::{self, FileKind};
use darkhex_algorithms::lp::{LpOptions, solve_sequence_form};
use darkhex_algorithms::memory::{MemoryLimit, total_memory};
use darkhex_algorithms::pone as pone_search;
use darkhex_algorithms::rl::mmd::Schedule;
use darkhex_algorithms::rl::options::{NfspOptions, PpoOptions};
use darkhex_algorithms::rl::presets;
use darkhex_algorithms::stream::PassOptions;
use darkhex_algorithms::tree::estimate_histories;
use darkhex_algorithms::{
    Algorithm, AlgorithmParams, Checkpoint, PolicyFile, PolicyTable, Provenance, Trainer,
    exploitability as exact_exploitability,
};
use darkhex_games::{AnyGame, Game, State, TensorLayout, with_game};
use darkhex_hexengine::analyst::Budget;
use darkhex_hexengine::hexsolve::openings::{PositionValue, solve_positions};
use pyo3::exceptions::{PyKeyboardInterrupt, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::args::{self, hidden_widths, number, whole, whole_opt};
use crate::deep::{DEEP_CFR, PyModel, load_model};
use crate::errors::{Failure, IntoPy, failure, message, value_error};
use crate::games::{PyGame, PyState, action_of, deciding_player, player_index, tensor_layout};
use crate::interrupt::{on_threads, run_blocking};
use crate::policy_fn::FnPolicy;
use crate::repr::fields_repr;
use crate::rl::{RlSettings, evaluator};
use crate::tree::{EVAL_TREE_HISTORIES, compile};

/// The trainers `train` runs on networks.
const PPO: &str = "ppo";
const MMD: &str = "mmd";
const NFSP: &str = "nfsp";
const ESCHER: &str = "escher";

/// A policy: a behaviour strategy at each information state it lists; the
/// others are played uniformly.
///
/// >>> import darkhex
/// >>> game = darkhex.load_game("kuhn_poker")
/// >>> policy = darkhex.train(game, iterations=100).policy
/// >>> state = game.new_initial_state()
/// >>> state.apply_action(2); state.apply_action(0)   # player 0 holds the king
/// >>> probs = policy.action_probabilities(state)
/// >>> sorted(probs), round(sum(probs.values()), 12)
/// ([0, 1], 1.0)
#[pyclass(module = "darkhex", name = "Policy", frozen)]
#[derive(Clone)]
pub struct PyPolicy {
    pub game: AnyGame,
    pub file: Arc<PolicyFile>,
    table: Arc<PolicyTable>,
}

impl PyPolicy {
    pub fn new(game: AnyGame, file: PolicyFile) -> PyPolicy {
        let table = PolicyTable::new(&file);
        PyPolicy {
            game,
            file: Arc::new(file),
            table: Arc::new(table),
        }
    }
}

#[pymethods]
impl PyPolicy {
    #[getter]
    fn game(&self) -> PyGame {
        PyGame { game: self.game }
    }

    /// Action id to probability at `state`, for the player to move (or
    /// `player`); uniform over the legal actions where the policy has no entry.
    #[pyo3(signature = (state, player = None))]
    fn action_probabilities<'py>(
        &self,
        py: Python<'py>,
        state: &PyState,
        player: Option<i64>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let p = deciding_player(&self.game, state, player)?;
        let dict = PyDict::new(py);
        match self.table.get(p, state.state.info_key(p)) {
            Some((actions, probs)) => {
                for (a, x) in actions.iter().zip(probs) {
                    dict.set_item(a, x)?;
                }
            }
            None => {
                let legal = state.state.legal_actions();
                for a in &legal {
                    dict.set_item(a, 1.0 / legal.len() as f64)?;
                }
            }
        }
        Ok(dict)
    }

    /// Writes the policy file: JSON when the name ends in `.json`, else the
    /// checksummed binary form (`darkhex exploit` and the players read both).
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let file = self.file.clone();
        py.detach(|| file.save(&path)).py()
    }

    /// The same policy as an OpenSpiel `TabularPolicy` of `game`, a game
    /// from `darkhex.openspiel.load_game`.
    fn to_openspiel<'py>(
        slf: &Bound<'py, Self>,
        game: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let convert = py
            .import("darkhex.openspiel")?
            .getattr("policy_to_openspiel")?;
        convert.call1((slf, game))
    }

    /// Information states the policy lists, both players together.
    fn __len__(&self) -> usize {
        self.file.infosets.iter().map(Vec::len).sum()
    }

    /// How the policy was made: algorithm, parameters, iterations, exploitability.
    #[getter]
    fn provenance<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let p: &Provenance = &self.file.provenance;
        let dict = PyDict::new(py);
        dict.set_item("algorithm", &p.algorithm)?;
        dict.set_item("parameters", p.parameters.clone())?;
        dict.set_item("iterations", p.iterations)?;
        dict.set_item("exploitability", p.exploitability)?;
        Ok(dict)
    }

    fn __repr__(&self) -> String {
        format!(
            "<darkhex.Policy of {} by {}, {} information states>",
            self.game,
            self.file.provenance.algorithm,
            self.__len__()
        )
    }
}

/// Reads a policy file (JSON or binary, as `darkhex train --out` writes),
/// or a policy model (`darkhex-model`, as `darkhex train --algo deep-cfr`
/// and `Model.save` write), which it returns as a `Model`: every reader of
/// policies reads both. With `game`, refuses a file for another game.
///
/// >>> import darkhex, os, tempfile
/// >>> path = os.path.join(tempfile.mkdtemp(), "kuhn.bin")
/// >>> darkhex.train(darkhex.load_game("kuhn_poker"), iterations=10).policy.save(path)
/// >>> darkhex.load_policy(path).provenance["iterations"]
/// 10
/// >>> darkhex.load_policy(path, game=darkhex.load_game("leduc_poker"))
/// Traceback (most recent call last):
/// ...
/// ValueError: the policy is for kuhn_poker, not leduc_poker: game kuhn_poker vs leduc_poker
#[pyfunction]
#[pyo3(signature = (path, game = None))]
pub fn load_policy<'py>(
    py: Python<'py>,
    path: PathBuf,
    game: Option<&PyGame>,
) -> PyResult<Bound<'py, PyAny>> {
    if files::identify(&path) == Some(FileKind::Model) {
        return Ok(Bound::new(py, load_model(py, path, game)?)?.into_any());
    }
    Ok(Bound::new(py, load_table(py, path, game)?)?.into_any())
}

fn load_table(py: Python<'_>, path: PathBuf, game: Option<&PyGame>) -> PyResult<PyPolicy> {
    let wanted = game.map(|g| g.game);
    let file = py.detach(move || match wanted {
        Some(g) => PolicyFile::load_for(&path, &g),
        None => PolicyFile::load(&path),
    });
    let file = file.py()?;
    let game = darkhex_games::load_game(&file.game).py()?;
    file.check_actions(&game).py()?;
    Ok(PyPolicy::new(game, file))
}

/// What `train` returns.
#[pyclass(module = "darkhex", name = "TrainResult", frozen, get_all)]
pub struct TrainResult {
    /// Exact exploitability of the average policy at the end (None when the
    /// game is too large to evaluate).
    exploitability: Option<f64>,
    /// Player 0's expected return under the average policy.
    value_p0: Option<f64>,
    iterations: u64,
    /// Training seconds (evaluations excluded), across resumed runs.
    seconds: f64,
    /// One dict per evaluation: iteration, seconds, exploitability, value_p0.
    history: Py<PyList>,
    policy: Py<PyPolicy>,
}

#[pymethods]
impl TrainResult {
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        fields_repr(
            slf.as_any(),
            &["iterations", "exploitability", "value_p0", "seconds"],
        )
    }
}

struct Trained {
    history: Vec<darkhex_algorithms::EvalPoint>,
    iterations: u64,
    seconds: f64,
    policy: PolicyFile,
    stopped: bool,
}

/// Trains a policy with a CFR-family algorithm: cfr, cfr+, lcfr, dcfr,
/// pcfr+ (full width over the compiled game tree), es-mccfr, os-mccfr
/// (Monte Carlo) or rcfr, rcfr+, f-rcfr (regrets fitted by least squares),
/// each with the CLI's default parameters; the same iterates as `darkhex
/// train`, and the same ranges (`iterations` and `eval_every` at least 1).
/// Deep CFR is `train_deep_cfr`. Exploitability is exact, every
/// `eval_every` iterations (default: ten times a run) and at the end. With
/// `checkpoint`, an existing file is resumed and the state is saved at
/// every evaluation; Ctrl-C saves it and raises `KeyboardInterrupt`.
///
/// `algo="ppo"` and `algo="mmd"` train an actor-critic network in
/// self-play instead (PPO, and magnetic mirror descent: PPO with a magnet
/// and a KL term), as `darkhex train --algo ppo|mmd` does: `steps`
/// (default 1e6) instead of `iterations`, the keywords of the CLI's
/// options (`preset="rudolph2026"` for the benchmark's best settings,
/// `num_envs`, `rollout_steps`, `minibatches`, `epochs`, `learning_rate`,
/// `clip`, `ent_coef`, `vf_coef`, `kl_coef`, `mmd_schedule`, `discount`,
/// `gae_lambda`, `max_grad_norm`, `target_kl`, `hidden`, `constant_lr`,
/// `raw_advantages`), `eval_every` in steps; the result's `model` is a
/// `Model` (its `save` writes the CLI's model file, bit for bit).
/// `algo="nfsp"` runs neural fictitious self-play as `darkhex train --algo
/// nfsp` does, with `steps`, `preset`, `hidden`, `learning_rate` (the
/// average network's), `anticipatory` and `eval_every`. `algo="escher"`
/// runs ESCHER as `darkhex train --algo escher` does, with `iterations`
/// (default 1000; the result's `steps` counts them), `preset`, `hidden`,
/// `learning_rate`, `traversals`, `value_traversals`, `fit_steps` and
/// `eval_every` in iterations.
///
/// >>> import darkhex
/// >>> result = darkhex.train(darkhex.load_game("kuhn_poker"), algo="cfr+", iterations=1000)
/// >>> f"{result.exploitability:.6e}"   # OpenSpiel's CFRPlusSolver: 8.736532e-05
/// '8.736532e-05'
/// >>> [point["iteration"] for point in result.history][:3]
/// [0, 100, 200]
/// >>> ppo = darkhex.train(darkhex.load_game("kuhn_poker"), algo="ppo", steps=4096, hidden=[16], eval_every=2048)
/// >>> ppo.steps, [point["steps"] for point in ppo.history], 0 < ppo.exploitability < 0.5
/// (4096, [2048, 4096], True)
/// >>> nfsp = darkhex.train(darkhex.load_game("kuhn_poker"), algo="nfsp", steps=4000, hidden=[16], anticipatory=0.5, eval_every=2000)
/// >>> len(nfsp.history), nfsp.steps >= 4000, 0 < nfsp.exploitability < 1
/// (2, True, True)
#[pyfunction]
#[pyo3(signature = (
    game, algo = "cfr+", iterations = None, threads = None, seed = 0, checkpoint = None,
    eval_every = None, *, steps = None, preset = None, num_envs = None, rollout_steps = None,
    minibatches = None, epochs = None, learning_rate = None, clip = None, ent_coef = None,
    vf_coef = None, kl_coef = None, mmd_schedule = None, discount = None, gae_lambda = None,
    max_grad_norm = None, target_kl = None, hidden = None, constant_lr = false,
    raw_advantages = false, anticipatory = None, traversals = None, value_traversals = None,
    fit_steps = None,
))]
#[allow(clippy::too_many_arguments)]
pub fn train(
    py: Python<'_>,
    game: &PyGame,
    algo: &str,
    iterations: Option<i128>,
    threads: Option<i128>,
    seed: i128,
    checkpoint: Option<PathBuf>,
    eval_every: Option<i128>,
    steps: Option<i128>,
    preset: Option<String>,
    num_envs: Option<i128>,
    rollout_steps: Option<i128>,
    minibatches: Option<i128>,
    epochs: Option<i128>,
    learning_rate: Option<f64>,
    clip: Option<f64>,
    ent_coef: Option<f64>,
    vf_coef: Option<f64>,
    kl_coef: Option<f64>,
    mmd_schedule: Option<String>,
    discount: Option<f64>,
    gae_lambda: Option<f64>,
    max_grad_norm: Option<f64>,
    target_kl: Option<f64>,
    hidden: Option<Vec<i128>>,
    constant_lr: bool,
    raw_advantages: bool,
    anticipatory: Option<f64>,
    traversals: Option<i128>,
    value_traversals: Option<i128>,
    fit_steps: Option<i128>,
) -> PyResult<TrainResultOf> {
    let threads = args::threads(py, threads)?;
    let seed = args::seed(seed)?;
    let eval_every: Option<u64> = whole_opt("eval_every", eval_every, 1, None)?;
    if let Some(name) = &preset
        && !presets::NAMES.contains(&name.as_str())
    {
        return Err(value_error(format!(
            "preset: '{name}' is not one of {}",
            presets::NAMES.join(", ")
        )));
    }
    if algo != NFSP && anticipatory.is_some() {
        return Err(value_error("anticipatory applies to algo=\"nfsp\" only"));
    }
    // What only ppo and mmd take, the first given.
    let ppo_only = [
        ("num_envs", num_envs.is_some()),
        ("rollout_steps", rollout_steps.is_some()),
        ("minibatches", minibatches.is_some()),
        ("epochs", epochs.is_some()),
        ("clip", clip.is_some()),
        ("ent_coef", ent_coef.is_some()),
        ("vf_coef", vf_coef.is_some()),
        ("kl_coef", kl_coef.is_some()),
        ("mmd_schedule", mmd_schedule.is_some()),
        ("discount", discount.is_some()),
        ("gae_lambda", gae_lambda.is_some()),
        ("max_grad_norm", max_grad_norm.is_some()),
        ("target_kl", target_kl.is_some()),
        ("constant_lr", constant_lr),
        ("raw_advantages", raw_advantages),
    ]
    .into_iter()
    .find_map(|(name, given)| given.then_some(name));
    let escher_only = [
        ("traversals", traversals.is_some()),
        ("value_traversals", value_traversals.is_some()),
        ("fit_steps", fit_steps.is_some()),
    ];
    if algo != ESCHER
        && let Some((name, _)) = escher_only.iter().find(|g| g.1)
    {
        return Err(value_error(format!(
            "{name} applies to algo=\"escher\" only"
        )));
    }
    if algo == ESCHER {
        let name = steps.is_some().then_some("steps").or(ppo_only);
        if let Some(name) = name {
            return Err(value_error(format!(
                "escher does not take {name} (escher counts iterations)"
            )));
        }
        let iterations: u64 = whole("iterations", iterations.unwrap_or(1000), 1, None)?;
        let options = EscherOptions {
            preset,
            regret_traversals: whole_opt("traversals", traversals, 1, Some(10_000_000))?,
            value_traversals: whole_opt("value_traversals", value_traversals, 1, Some(10_000_000))?,
            hidden: hidden_widths(hidden)?,
            learning_rate: learning_rate
                .map(|r| number("learning_rate", r, (0.0, true), (1.0, false)))
                .transpose()?,
            fit_steps: whole_opt("fit_steps", fit_steps, 1, Some(1_000_000))?,
            ..EscherOptions::default()
        };
        let s = options
            .settings(&game.game, iterations, seed)
            .map_err(|e| failure(e.into()))?;
        let result = crate::rl::train_rl(
            py,
            game.game,
            RlSettings::Escher(s),
            threads,
            checkpoint,
            eval_every,
        )?;
        return Ok(TrainResultOf::Rl(result));
    }
    if algo == NFSP {
        if iterations.is_some() {
            return Err(value_error("nfsp takes steps, not iterations"));
        }
        if let Some(name) = ppo_only {
            return Err(value_error(format!("nfsp does not take {name}")));
        }
        let steps = whole_opt("steps", steps, 1, Some(100_000_000_000))?.unwrap_or(1_000_000);
        let options = NfspOptions {
            preset,
            hidden: hidden_widths(hidden)?,
            learning_rate: learning_rate
                .map(|r| number("learning_rate", r, (0.0, true), (1.0, false)))
                .transpose()?,
            anticipatory: anticipatory
                .map(|x| number("anticipatory", x, (0.0, false), (1.0, false)))
                .transpose()?,
            ..NfspOptions::default()
        };
        let s = options
            .settings(&game.game, steps, seed)
            .map_err(|e| failure(e.into()))?;
        let result = crate::rl::train_rl(
            py,
            game.game,
            RlSettings::Nfsp(s),
            threads,
            checkpoint,
            eval_every,
        )?;
        return Ok(TrainResultOf::Rl(result));
    }
    if let Some(rl_algo) = [PPO, MMD].into_iter().find(|a| *a == algo) {
        if iterations.is_some() {
            return Err(value_error(format!("{algo} takes steps, not iterations")));
        }
        let steps = whole_opt("steps", steps, 1, Some(100_000_000_000))?.unwrap_or(1_000_000);
        let u32_opt = |name, x| whole_opt::<u32>(name, x, 1, Some(65_536));
        let unit = |name, x: Option<f64>, high| {
            x.map(|x| number(name, x, (0.0, false), (high, false)))
                .transpose()
        };
        let positive = |name, x: Option<f64>, high| {
            x.map(|x| number(name, x, (0.0, true), (high, false)))
                .transpose()
        };
        let schedule = mmd_schedule
            .map(|name| {
                Schedule::parse(&name).ok_or_else(|| {
                    value_error(format!(
                        "mmd_schedule: '{name}' is not one of {}",
                        Schedule::NAMES.join(", ")
                    ))
                })
            })
            .transpose()?;
        let options = PpoOptions {
            preset,
            num_envs: u32_opt("num_envs", num_envs)?,
            num_steps: u32_opt("rollout_steps", rollout_steps)?,
            num_minibatches: u32_opt("minibatches", minibatches)?,
            update_epochs: whole_opt("epochs", epochs, 1, Some(1000))?,
            learning_rate: positive("learning_rate", learning_rate, 1.0)?,
            clip_coef: unit("clip", clip, 10.0)?,
            ent_coef: unit("ent_coef", ent_coef, 100.0)?,
            vf_coef: unit("vf_coef", vf_coef, 100.0)?,
            kl_coef: unit("kl_coef", kl_coef, 100.0)?,
            schedule,
            gamma: unit("discount", discount, 1.0)?,
            gae_lambda: unit("gae_lambda", gae_lambda, 1.0)?,
            max_grad_norm: positive("max_grad_norm", max_grad_norm, 1e6)?,
            target_kl: positive("target_kl", target_kl, 1e6)?,
            hidden: hidden_widths(hidden)?,
            constant_lr,
            raw_advantages,
        };
        let settings = options
            .settings(&game.game, rl_algo, steps, seed)
            .map_err(|e| failure(e.into()))?;
        let result = crate::rl::train_rl(
            py,
            game.game,
            RlSettings::Ppo(settings),
            threads,
            checkpoint,
            eval_every,
        )?;
        return Ok(TrainResultOf::Rl(result));
    }
    let shared = [
        ("steps", steps.is_some()),
        ("preset", preset.is_some()),
        ("learning_rate", learning_rate.is_some()),
        ("hidden", hidden.is_some()),
    ]
    .into_iter()
    .find_map(|(name, given)| given.then_some(name));
    if let Some(name) = shared {
        return Err(value_error(format!(
            "{name} applies to algo=\"ppo\", algo=\"mmd\" and algo=\"nfsp\" only"
        )));
    }
    if let Some(name) = ppo_only {
        return Err(value_error(format!(
            "{name} applies to algo=\"ppo\" and algo=\"mmd\" only"
        )));
    }
    let iterations: u64 = whole("iterations", iterations.unwrap_or(1000), 1, None)?;
    if algo == DEEP_CFR {
        return Err(value_error(
            "deep-cfr trains networks, not a table: darkhex.train_deep_cfr runs it",
        ));
    }
    let algorithm = Algorithm::parse(algo, AlgorithmParams::default()).py()?;
    let game = game.game;
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let trained = run_blocking(py, Some(stop), move || {
        on_threads(threads, || {
            train_run(
                game, algorithm, iterations, seed, checkpoint, eval_every, &flag,
            )
        })
        .map_err(Failure::from)?
    })?
    .map_err(failure)?;
    if trained.stopped {
        return Err(PyKeyboardInterrupt::new_err(format!(
            "interrupted at iteration {}{}",
            trained.iterations, ", the checkpoint saved"
        )));
    }
    let history = PyList::empty(py);
    for point in &trained.history {
        let d = PyDict::new(py);
        d.set_item("iteration", point.iteration)?;
        d.set_item("seconds", point.seconds)?;
        d.set_item("exploitability", point.exploitability)?;
        d.set_item("value_p0", point.value_p0)?;
        history.append(d)?;
    }
    let last = trained
        .history
        .last()
        .filter(|p| p.iteration == trained.iterations);
    Ok(TrainResultOf::Table(TrainResult {
        exploitability: last.and_then(|p| p.exploitability),
        value_p0: last.and_then(|p| p.value_p0),
        iterations: trained.iterations,
        seconds: trained.seconds,
        history: history.unbind(),
        policy: Py::new(py, PyPolicy::new(game, trained.policy))?,
    }))
}

/// `train`'s result: a table's (the CFR family) or a network's (PPO, MMD).
#[derive(IntoPyObject)]
pub enum TrainResultOf {
    Table(TrainResult),
    Rl(crate::rl::RlResult),
}

fn train_run(
    game: AnyGame,
    algorithm: Algorithm,
    target: u64,
    seed: u64,
    checkpoint: Option<PathBuf>,
    eval_every: Option<u64>,
    stop: &AtomicBool,
) -> Result<Trained, Failure> {
    let wants_tree = algorithm.needs_tree()
        || with_game!(&game, g => estimate_histories(g, 256, 0)) <= EVAL_TREE_HISTORIES;
    let tree = if wants_tree {
        match compile(&game) {
            Ok(t) => Some(t),
            Err(e) if algorithm.needs_tree() => {
                return Err(format!(
                    "{}; {} needs the compiled tree (darkhex train GAME --stream trains over the information-state tables), while os-mccfr and es-mccfr train without it",
                    message(&*e),
                    algorithm.name()
                )
                .into());
            }
            Err(_) => None,
        }
    } else {
        None
    };
    let resumed = match &checkpoint {
        Some(path) if path.exists() => Some(Checkpoint::load(path)?),
        _ => None,
    };
    let workers = rayon::current_num_threads();
    let mut trainer = match resumed {
        Some(c) => Trainer::resume(game, tree.as_ref(), c, Some(algorithm))?,
        None => Trainer::new(game, tree.as_ref(), algorithm, seed, workers)?,
    };
    let save = |trainer: &Trainer| -> Result<(), Failure> {
        if let Some(path) = &checkpoint {
            trainer.checkpoint().save(path)?;
        }
        Ok(())
    };
    if trainer.iteration() == 0 && trainer.has_tree() {
        trainer.evaluate()?;
    }
    let batch = trainer.batch_size();
    let every = eval_every.unwrap_or((target / 10).max(1)).div_ceil(batch) * batch;
    let mut chunk = batch;
    let limit = MemoryLimit::new(None);
    while trainer.iteration() < target && !stop.load(Ordering::SeqCst) {
        let it = trainer.iteration();
        let next_eval = (it / every + 1) * every;
        let n = chunk.min(next_eval - it).min(target - it);
        let start = Instant::now();
        trainer.run(n)?;
        if let Err(e) = trainer.check_growth(limit) {
            // What was done is kept for a run under a larger limit.
            save(&trainer)?;
            return Err(e.into());
        }
        // Chunks of about a tenth of a second: Ctrl-C is heard soon.
        if start.elapsed() < Duration::from_millis(50) {
            chunk = (chunk * 2).min(every);
        } else if start.elapsed() > Duration::from_millis(200) && chunk > batch {
            chunk = (chunk / 2).div_ceil(batch) * batch;
        }
        if trainer.iteration() == next_eval || trainer.iteration() == target {
            trainer.evaluate()?;
            save(&trainer)?;
        }
    }
    let stopped = trainer.iteration() < target;
    if trainer.history().last().map(|p| p.iteration) != Some(trainer.iteration()) && !stopped {
        trainer.evaluate()?;
    }
    save(&trainer)?;
    Ok(Trained {
        history: trainer.history().to_vec(),
        iterations: trainer.iteration(),
        seconds: trainer.seconds(),
        policy: trainer.policy(),
        stopped,
    })
}

/// Exact exploitability of `policy` (a `Policy` or a `Model`) in `game`:
/// the mean of the two best responses' gains, over the compiled tree;
/// information states a policy lacks play uniformly.
///
/// `policy` may also be a function, called on batches of one player's
/// information states as a network is: `policy(tensors, masks, player)`
/// with the states' information-state tensors (float32, a row each, in
/// `layout`: `"darkhex"`, or `"openspiel"` for a network trained on
/// OpenSpiel's games), legal-action masks (bool, a row each) and the
/// player (whom the tensors do not name), returning each
/// state's probabilities over the game's actions (a row each, summing to 1
/// over the legal ones). It is evaluated on every information state of
/// each player, then the exact best responses run: over the compiled tree
/// where the game fits, else (3x3 Dark Hex) over the information-state
/// tables by the streaming pass, on `threads` threads (every core when
/// `None`), as `darkhex train --eval-every` measures a network.
///
/// >>> import darkhex, numpy as np
/// >>> game = darkhex.load_game("kuhn_poker")
/// >>> darkhex.exploitability(game, darkhex.solve_lp(game).policy) < 1e-8
/// True
/// >>> uniform = lambda tensors, masks, player: masks / masks.sum(axis=1, keepdims=True)
/// >>> round(darkhex.exploitability(game, uniform), 6)
/// 0.458333
#[pyfunction]
#[pyo3(signature = (game, policy, layout = None, threads = None))]
pub fn exploitability(
    py: Python<'_>,
    game: &PyGame,
    policy: &Bound<'_, PyAny>,
    layout: Option<&str>,
    threads: Option<i128>,
) -> PyResult<f64> {
    let game = game.game;
    let threads = args::threads(py, threads)?;
    let played = if let Ok(model) = policy.cast::<PyModel>() {
        let model = model.get();
        if model.game != game {
            return Err(value_error(format!(
                "the model is for {}, not {game}",
                model.game
            )));
        }
        Played::Model(model.model.clone())
    } else if let Ok(policy) = policy.cast::<PyPolicy>() {
        let file = policy.get().file.clone();
        file.check_game(&game).py()?;
        Played::Table(file)
    } else if policy.is_callable() {
        let layout = tensor_layout(layout.unwrap_or(TensorLayout::Darkhex.name()))?;
        let function = FnPolicy::new(game, layout, policy.clone().unbind()).map_err(value_error)?;
        return exploitability_of_function(py, function, threads);
    } else {
        return Err(PyTypeError::new_err(format!(
            "policy must be a darkhex.Policy, a darkhex.Model or a function of tensors and masks, not {}",
            policy.get_type().name()?
        )));
    };
    if layout.is_some() {
        return Err(value_error(
            "layout= is for a policy function: a Policy or a Model knows its game's information states",
        ));
    }
    run_blocking(py, None, move || -> Result<f64, Failure> {
        on_threads(threads, || -> Result<f64, Failure> {
            let tree = compile(&game)?;
            let p = match played {
                Played::Table(file) => file.to_tree_policy(&tree)?.0,
                Played::Model(model) => model.tree_policy(&tree)?,
            };
            Ok(exact_exploitability(&tree, &p).exploitability)
        })?
    })?
    .map_err(failure)
}

/// A policy function's exploitability: the tree where the game compiles,
/// else its tables; Ctrl-C stops the evaluation.
fn exploitability_of_function(
    py: Python<'_>,
    function: FnPolicy,
    threads: Option<usize>,
) -> PyResult<f64> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let raised = function.raised();
    let result = run_blocking(py, Some(stop), move || -> Result<f64, Failure> {
        on_threads(threads, || -> Result<f64, Failure> {
            let game = *function.game();
            let Some(evaluator) = evaluator(&game)? else {
                return Err(format!(
                    "{game} is too large for an exact evaluation (neither its tree nor its tables fit)"
                )
                .into());
            };
            let options = PassOptions {
                stop: Some(&flag),
                ..PassOptions::default()
            };
            Ok(evaluator.evaluate(&function, &options)?.exploitability)
        })?
    })?;
    if let Some(e) = raised.lock().ok().and_then(|mut e| e.take()) {
        return Err(e);
    }
    result.map_err(failure)
}

/// What `exploitability` evaluates.
enum Played {
    Table(Arc<PolicyFile>),
    Model(Arc<PolicyModel>),
}

/// What `solve_lp` returns.
#[pyclass(module = "darkhex", name = "LpResult", frozen, get_all)]
pub struct LpResult {
    /// The game's value for player 0.
    value: f64,
    /// Exact exploitability of the equilibrium found (the check that the LP was solved well).
    exploitability: f64,
    policy: Py<PyPolicy>,
}

#[pymethods]
impl LpResult {
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        fields_repr(slf.as_any(), &["value", "exploitability"])
    }
}

/// An exact equilibrium by sequence-form linear programming (dark games and
/// poker small enough to compile), as `darkhex solve` finds it.
///
/// >>> import darkhex
/// >>> result = darkhex.solve_lp(darkhex.load_game("kuhn_poker"))
/// >>> round(result.value, 6)   # -1/18
/// -0.055556
#[pyfunction]
pub fn solve_lp(py: Python<'_>, game: &PyGame) -> PyResult<LpResult> {
    let any = game.game;
    if matches!(any, AnyGame::Hex(_)) {
        return Err(value_error(format!(
            "{any} has perfect information: darkhex.solve_hex solves it"
        )));
    }
    let (value, e, file) = run_blocking(py, None, move || -> Result<_, Failure> {
        let tree = compile(&any)?;
        let solution = solve_sequence_form(&tree, LpOptions::default(), &|_| {})?;
        let provenance = Provenance {
            algorithm: "lp/clarabel".to_string(),
            parameters: Default::default(),
            iterations: 0,
            exploitability: Some(solution.exploitability.exploitability),
        };
        let file = PolicyFile::from_tree(&tree, &solution.policy, provenance);
        Ok((
            solution.value_p0,
            solution.exploitability.exploitability,
            file,
        ))
    })?
    .map_err(failure)?;
    Ok(LpResult {
        value,
        exploitability: e,
        policy: Py::new(py, PyPolicy::new(any, file))?,
    })
}

/// What `pone` returns.
#[pyclass(module = "darkhex", name = "PoneResult", frozen, get_all)]
pub struct PoneResult {
    player: usize,
    /// Whether the player wins with probability one, whatever the opponent does.
    wins: bool,
    /// Every first move that keeps the win (action ids, ascending).
    winning_moves: Vec<usize>,
    /// The same moves by name.
    winning_move_names: Vec<String>,
    /// Knowledge states searched.
    states: u64,
    seconds: f64,
}

#[pymethods]
impl PoneResult {
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        fields_repr(
            slf.as_any(),
            &["player", "wins", "winning_move_names", "states", "seconds"],
        )
    }
}

/// PONE: does `player` win Dark Hex (or Dark Rex) with probability one, and
/// with which first moves?
///
/// >>> import darkhex
/// >>> r = darkhex.pone(darkhex.load_game("dark_hex(num_rows=3,num_cols=3)"), player=0)
/// >>> r.wins, r.winning_move_names   # the obtuse corners
/// (True, ['c1', 'a3'])
#[pyfunction]
#[pyo3(signature = (game, player = 0))]
pub fn pone(py: Python<'_>, game: &PyGame, player: i64) -> PyResult<PoneResult> {
    let AnyGame::DarkHex(dark) = game.game else {
        return Err(value_error(format!(
            "pone decides dark games (dark_hex, dark_rex), not {}",
            game.game
        )));
    };
    let player = player_index(player)?;
    let result = run_blocking(py, None, move || {
        pone_search::solve(&dark, player, &[]).map(|(r, _)| r)
    })?
    .py()?;
    Ok(PoneResult {
        player,
        wins: result.wins,
        winning_move_names: result
            .winning_moves
            .iter()
            .map(|&c| dark.dims().cell_name(c))
            .collect(),
        winning_moves: result.winning_moves,
        states: result.states,
        seconds: result.seconds,
    })
}

/// What `solve_hex` returns.
#[pyclass(module = "darkhex", name = "HexResult", frozen, get_all)]
pub struct HexResult {
    /// The player to move in the position.
    to_move: usize,
    /// The winner with best play; None when the time ran out first.
    winner: Option<usize>,
    /// A winning move of the player to move, when they win.
    winning_move: Option<usize>,
    /// With `all_moves`: every move of the player to move that wins.
    winning_moves: Option<Vec<usize>>,
    /// With `all_moves`: each empty cell's value for the player to move
    /// (True: wins, False: loses, None: unknown).
    move_values: Option<Vec<(usize, Option<bool>)>>,
    /// Positions the searches expanded.
    expansions: u64,
    seconds: f64,
    /// The position's proof and disproof numbers when its search ended,
    /// for the player to move: 0 and 2,000,000,000 when they win, the
    /// other way round when they lose, and the search's estimate of each
    /// side's proof when it stopped first.
    proof_number: u32,
    disproof_number: u32,
}

#[pymethods]
impl HexResult {
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        fields_repr(
            slf.as_any(),
            &[
                "to_move",
                "winner",
                "winning_move",
                "winning_moves",
                "expansions",
                "seconds",
                "proof_number",
                "disproof_number",
            ],
        )
    }
}

/// Solves a Hex or Rex position given as moves from the empty board (ids
/// or names such as "c3", Black first): who wins, and with `all_moves`
/// which moves win. `time_limit` bounds each search, in seconds, and
/// `max_expansions` in positions expanded (a budget that gives the same
/// answer on any machine).
///
/// >>> import darkhex
/// >>> game = darkhex.load_game("hex(board_size=4)")
/// >>> r = darkhex.solve_hex(game, moves=["a1"], all_moves=True)
/// >>> r.winner, r.to_move   # the corner opening loses on 4x4
/// (1, 1)
/// >>> [game.action_to_string(1, m) for m in r.winning_moves]
/// ['c2', 'b3', 'a4']
#[pyfunction]
#[pyo3(signature = (game, moves = Vec::new(), all_moves = false, threads = None, time_limit = None, tt_mb = 256, max_expansions = None))]
#[allow(clippy::too_many_arguments)]
pub fn solve_hex(
    py: Python<'_>,
    game: &PyGame,
    moves: Vec<Bound<'_, PyAny>>,
    all_moves: bool,
    threads: Option<i128>,
    time_limit: Option<f64>,
    tt_mb: i128,
    max_expansions: Option<i128>,
) -> PyResult<HexResult> {
    let AnyGame::Hex(hex) = game.game else {
        return Err(value_error(format!(
            "solve_hex solves Hex and Rex positions, not {}: darkhex.solve_lp solves dark games and poker",
            game.game
        )));
    };
    let threads = args::threads(py, threads)?.unwrap_or_else(rayon::current_num_threads);
    let time_limit = time_limit
        .map(|t| number("time_limit", t, (0.001, false), (1e9, false)))
        .transpose()?;
    // As `--tt-mb`: at most the machine's memory.
    let most = total_memory().map_or(1 << 20, |b| b / 1_000_000);
    let tt_mb: usize = whole("tt_mb", tt_mb, 1, Some(most.into()))?;
    let max_expansions: Option<u64> = whole_opt("max_expansions", max_expansions, 1, None)?;
    let mut root = Vec::new();
    let mut state = hex.new_initial_state();
    for m in &moves {
        let a = action_of(&game.game, m)?;
        state.try_apply(a).py()?;
        root.push(a as usize);
    }
    let mut positions = vec![root.clone()];
    let cells: Vec<usize> = if all_moves && !state.is_terminal() {
        state.legal_actions().into_iter().map(usize::from).collect()
    } else {
        Vec::new()
    };
    for &c in &cells {
        let mut child = root.clone();
        child.push(c);
        positions.push(child);
    }
    let budget = Budget {
        threads,
        tt_mb,
        time_limit: time_limit.map(Duration::from_secs_f64),
        max_expansions,
    };
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let values: Vec<PositionValue> = run_blocking(py, Some(stop), move || {
        solve_positions(&hex, &positions, budget, &flag, &|_, _| {})
    })?
    .py()?;
    let top = values[0];
    let mover = top.to_move;
    let move_values: Vec<(usize, Option<bool>)> = cells
        .iter()
        .zip(&values[1..])
        .map(|(&c, v)| (c, v.winner.map(|w| w == mover)))
        .collect();
    Ok(HexResult {
        to_move: mover,
        winner: top.winner,
        winning_move: top.winning_move,
        winning_moves: all_moves.then(|| {
            move_values
                .iter()
                .filter(|v| v.1 == Some(true))
                .map(|v| v.0)
                .collect()
        }),
        move_values: all_moves.then_some(move_values),
        expansions: values.iter().map(|v| v.expansions).sum(),
        seconds: values.iter().map(|v| v.seconds).sum(),
        proof_number: top.bounds.phi,
        disproof_number: top.bounds.delta,
    })
}
