//! Deep CFR from Python: `train_deep_cfr` runs the library's solver as
//! `darkhex train --algo deep-cfr` does, and `Model` is a trained policy
//! network (a `darkhex-model` file): its policy at a state, its file, and
//! its exact exploitability through `darkhex.exploitability`.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use darkhex_algorithms::cfr::deep_cfr::{DeepCfrSettings, DeepCfrSolver};
use darkhex_algorithms::exploitability as exact_exploitability;
use darkhex_algorithms::fa::model::{ModelFile, ModelProvenance, PolicyModel, Training};
use darkhex_algorithms::files;
use darkhex_algorithms::memory::MemoryLimit;
use darkhex_algorithms::tree::estimate_histories;
use darkhex_games::{AnyGame, State, load_game as parse_game, with_game};
use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::args::{self, number, whole, whole_opt};
use crate::errors::{Failure, IntoPy, failure, value_error};
use crate::games::{PyGame, PyState, deciding_player};
use crate::interrupt::{on_threads, run_blocking};
use crate::repr::fields_repr;
use crate::tree::{EVAL_TREE_HISTORIES, compile};

/// The algorithm's name, as `darkhex train --algo` spells it.
pub const DEEP_CFR: &str = "deep-cfr";

/// A policy network: the policy a Deep CFR, PPO or MMD run learned, at
/// every information state of its game (Deep CFR's: the legal actions'
/// outputs clipped at zero and normalised, uniform where none is
/// positive; PPO's and MMD's: a softmax over the legal actions' logits).
///
/// >>> import darkhex
/// >>> kuhn = darkhex.load_game("kuhn_poker")
/// >>> model = darkhex.train_deep_cfr(kuhn, iterations=2, traversals=10, hidden=[8], fit_steps=4).model
/// >>> state = kuhn.new_initial_state()
/// >>> state.apply_action(2); state.apply_action(0)   # player 0 holds the king
/// >>> probs = model.action_probabilities(state)
/// >>> sorted(probs), round(sum(probs.values()), 12)
/// ([0, 1], 1.0)
#[pyclass(module = "darkhex", name = "Model", frozen)]
pub struct PyModel {
    pub game: AnyGame,
    pub model: Arc<PolicyModel>,
    provenance: ModelProvenance,
}

impl PyModel {
    pub fn new(game: AnyGame, model: Arc<PolicyModel>, provenance: ModelProvenance) -> Self {
        PyModel {
            game,
            model,
            provenance,
        }
    }
}

#[pymethods]
impl PyModel {
    #[getter]
    fn game(&self) -> PyGame {
        PyGame { game: self.game }
    }

    /// Action id to probability at `state`, for the player to move
    /// (`player`, when given, must be that player).
    #[pyo3(signature = (state, player = None))]
    fn action_probabilities<'py>(
        &self,
        py: Python<'py>,
        state: &PyState,
        player: Option<i64>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let p = deciding_player(&self.game, state, player)?;
        let actions = state.state.legal_actions();
        let probs = self
            .model
            .policy(p, state.state.info_key(p), &actions)
            .py()?;
        let dict = PyDict::new(py);
        for (a, x) in actions.iter().zip(probs) {
            dict.set_item(a, x)?;
        }
        Ok(dict)
    }

    /// Writes the model file (`darkhex-model`): JSON when the name ends in
    /// `.json`, else the checksummed binary form; `darkhex exploit`, `play`
    /// and the league's `policy(file=...)` read it.
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let (model, provenance) = (self.model.clone(), self.provenance.clone());
        py.detach(move || model.save(&path, provenance)).py()
    }

    /// The same policy as an OpenSpiel `TabularPolicy` of `game`, a game
    /// from `darkhex.openspiel.load_game`.
    fn to_openspiel<'py>(
        slf: &Bound<'py, Self>,
        game: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let convert = slf
            .py()
            .import("darkhex.openspiel")?
            .getattr("policy_to_openspiel")?;
        convert.call1((slf, game))
    }

    /// How the model was made: algorithm, iterations, exploitability (when
    /// the training computed it) and the training's settings (`parameters`).
    #[getter]
    fn provenance<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let p = &self.provenance;
        let settings =
            serde_json::to_string(&p.training).map_err(|e| value_error(e.to_string()))?;
        let dict = PyDict::new(py);
        dict.set_item("algorithm", &p.algorithm)?;
        dict.set_item(
            "parameters",
            py.import("json")?.call_method1("loads", (settings,))?,
        )?;
        dict.set_item("iterations", p.iterations)?;
        dict.set_item("exploitability", p.exploitability)?;
        Ok(dict)
    }

    fn __repr__(&self) -> String {
        // PPO and MMD count steps where Deep CFR counts iterations.
        let unit = match self.provenance.training {
            Training::DeepCfr(_) | Training::Escher(_) => "iterations",
            Training::PolicyGradient(_) | Training::Nfsp(_) => "steps",
        };
        format!(
            "<darkhex.Model of {} by {}, {} {unit}>",
            self.game, self.provenance.algorithm, self.provenance.iterations
        )
    }
}

/// Reads a model file; with `game`, refuses a file for another game.
pub fn load_model(py: Python<'_>, path: PathBuf, game: Option<&PyGame>) -> PyResult<PyModel> {
    let wanted = game.map(|g| g.game);
    let loaded = py.detach(move || -> Result<_, Failure> {
        let game = match wanted {
            Some(g) => g,
            None => {
                let file: ModelFile = files::load(&path)?;
                parse_game(&file.game)?
            }
        };
        let (model, file) = PolicyModel::load_for(&path, &game)?;
        Ok((game, model, file))
    });
    let (game, model, file) = loaded.map_err(failure)?;
    Ok(PyModel {
        game,
        model: Arc::new(model),
        provenance: ModelProvenance {
            algorithm: file.algorithm,
            iterations: file.iterations,
            exploitability: file.exploitability,
            training: file.training,
        },
    })
}

/// What `train_deep_cfr` returns.
#[pyclass(module = "darkhex", name = "DeepCfrResult", frozen, get_all)]
pub struct DeepCfrResult {
    /// Exact exploitability of the model (None when the game is too large
    /// to compile, as `darkhex train` says "not computed").
    exploitability: Option<f64>,
    /// Player 0's expected return under the model, with the exploitability.
    value_p0: Option<f64>,
    iterations: u64,
    /// Traversals run, both players together.
    traversals: u64,
    /// Training seconds (traversals and network fits; the evaluation excluded).
    seconds: f64,
    model: Py<PyModel>,
}

#[pymethods]
impl DeepCfrResult {
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        fields_repr(
            slf.as_any(),
            &[
                "iterations",
                "exploitability",
                "value_p0",
                "traversals",
                "seconds",
            ],
        )
    }
}

struct DeepTrained {
    model: PolicyModel,
    provenance: ModelProvenance,
    eval: Option<(f64, f64)>,
    iterations: u64,
    traversals: u64,
    seconds: f64,
}

/// Deep CFR (Brown et al. 2019) as `darkhex train --algo deep-cfr` runs it,
/// with the CLI's settings, defaults and ranges (`traversals` is
/// `--traversals`, `hidden` is `--hidden` as a list, and so on): the same
/// seed and settings write the same model file, bit for bit. Exploitability
/// is exact where the game tree compiles. Ctrl-C stops after the iteration
/// under way and raises `KeyboardInterrupt`.
///
/// >>> import darkhex
/// >>> kuhn = darkhex.load_game("kuhn_poker")
/// >>> r = darkhex.train_deep_cfr(kuhn, iterations=3, traversals=20, hidden=[16, 16], fit_steps=16)
/// >>> r.iterations, r.traversals, 0 < r.exploitability < 0.5
/// (3, 120, True)
/// >>> darkhex.exploitability(kuhn, r.model) == r.exploitability
/// True
#[pyfunction]
#[pyo3(signature = (
    game, iterations = 1000, traversals = None, explore = None, advantage_capacity = None,
    strategy_capacity = None, hidden = None, fit_steps = None, policy_steps = None,
    batch_size = None, learning_rate = None, seed = 0, threads = None,
))]
#[allow(clippy::too_many_arguments)]
pub fn train_deep_cfr(
    py: Python<'_>,
    game: &PyGame,
    iterations: i128,
    traversals: Option<i128>,
    explore: Option<i128>,
    advantage_capacity: Option<i128>,
    strategy_capacity: Option<i128>,
    hidden: Option<Vec<i128>>,
    fit_steps: Option<i128>,
    policy_steps: Option<i128>,
    batch_size: Option<i128>,
    learning_rate: Option<f64>,
    seed: i128,
    threads: Option<i128>,
) -> PyResult<DeepCfrResult> {
    let mut s = DeepCfrSettings::new(whole("iterations", iterations, 1, None)?, args::seed(seed)?);
    let capacity = Some(1_000_000_000);
    let steps = Some(1_000_000);
    s.traversals =
        whole_opt("traversals", traversals, 1, Some(10_000_000))?.unwrap_or(s.traversals);
    s.explored_actions =
        whole_opt("explore", explore, 1, Some(1000))?.unwrap_or(s.explored_actions);
    s.advantage_capacity = whole_opt("advantage_capacity", advantage_capacity, 1, capacity)?
        .unwrap_or(s.advantage_capacity);
    s.strategy_capacity = whole_opt("strategy_capacity", strategy_capacity, 1, capacity)?
        .unwrap_or(s.strategy_capacity);
    let hidden = args::hidden_widths(hidden)?;
    let batch: Option<u32> = whole_opt("batch_size", batch_size, 1, Some(u32::MAX.into()))?;
    let learning_rate = learning_rate
        .map(|r| number("learning_rate", r, (0.0, true), (1.0, false)))
        .transpose()?;
    for network in [&mut s.advantage_network, &mut s.policy_network] {
        network.hidden = hidden.unwrap_or(network.hidden);
        network.batch = batch.unwrap_or(network.batch);
        network.learning_rate = learning_rate.unwrap_or(network.learning_rate);
    }
    s.advantage_network.steps =
        whole_opt("fit_steps", fit_steps, 1, steps)?.unwrap_or(s.advantage_network.steps);
    // As the CLI: the policy's one fit takes four times an advantage fit's steps.
    s.policy_network.steps = whole_opt("policy_steps", policy_steps, 1, steps)?
        .unwrap_or(s.advantage_network.steps.saturating_mul(4));
    let threads = args::threads(py, threads)?;
    let game = game.game;
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let trained = run_blocking(py, Some(stop), move || {
        on_threads(threads, || deep_run(game, s, &flag)).map_err(Failure::from)?
    })?
    .map_err(failure)?;
    let Some(t) = trained else {
        return Err(PyKeyboardInterrupt::new_err(
            "interrupted: the Deep CFR run stopped after the iteration under way",
        ));
    };
    let (exploitability, value_p0) = t.eval.unzip();
    Ok(DeepCfrResult {
        exploitability,
        value_p0,
        iterations: t.iterations,
        traversals: t.traversals,
        seconds: t.seconds,
        model: Py::new(
            py,
            PyModel {
                game,
                model: Arc::new(t.model),
                provenance: t.provenance,
            },
        )?,
    })
}

/// The run of `train_deep_cfr`, as `darkhex train` makes it: the
/// iterations, the policy networks' fit, then the exact exploitability
/// where the tree compiles. `None` when stopped.
fn deep_run(
    game: AnyGame,
    settings: DeepCfrSettings,
    stop: &AtomicBool,
) -> Result<Option<DeepTrained>, Failure> {
    settings.check_memory(&game, MemoryLimit::new(None))?;
    let mut solver = DeepCfrSolver::new(game, settings)?;
    let start = Instant::now();
    while solver.iteration() < settings.iterations {
        if stop.load(Ordering::SeqCst) {
            return Ok(None);
        }
        solver.iterate()?;
    }
    solver.train_policy()?;
    let seconds = start.elapsed().as_secs_f64();
    let fits = with_game!(&game, g => estimate_histories(g, 256, 0)) <= EVAL_TREE_HISTORIES;
    let eval = match fits.then(|| compile(&game)) {
        Some(Ok(tree)) => {
            let e = exact_exploitability(&tree, &solver.model()?.tree_policy(&tree)?);
            Some((e.exploitability, e.value_p0))
        }
        _ => None,
    };
    let provenance = solver.provenance(eval.map(|e| e.0));
    let traversals = solver.stats().traversals;
    let iterations = solver.iteration();
    Ok(Some(DeepTrained {
        model: solver.into_model()?,
        provenance,
        eval,
        iterations,
        traversals,
        seconds,
    }))
}
