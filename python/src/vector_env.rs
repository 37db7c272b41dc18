//! A vector environment: `n` games stepped in one call, the tensors,
//! rewards and done flags as numpy arrays, finished games restarted, so
//! learning code pays one Python call per step of all games. The engine is
//! the library's ([`darkhex_algorithms::rl::vector_env`]); this is its
//! Python face: arguments in, numpy arrays out, the GIL released.

use darkhex_algorithms::memory::MemoryLimit;
use darkhex_algorithms::rl::pool::on_own_pool;
use darkhex_algorithms::rl::vector_env::{EnvError, VectorEnv as Engine};
use darkhex_games::State;
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::exceptions::PyMemoryError;
use pyo3::prelude::*;

use crate::args::{self, whole};
use crate::errors::{to_py, value_error};
use crate::games::{PyGame, PyState};

/// `n` games of one game, each with its own seeded stream for chance nodes.
///
/// Observations are the information-state tensors of the players to move;
/// `step(actions)` plays one action in every game and returns
/// `(observations, rewards, dones)`: rewards is n x 2 (each player's return
/// in a game that just ended, else 0), and a game that ended starts again
/// at once, its observation the new game's. `actions` is any
/// one-dimensional integer array-like (numpy integers of any width, a
/// list of ints). More games than the memory available raise `MemoryError`.
///
/// >>> import darkhex, numpy as np
/// >>> env = darkhex.VectorEnv(darkhex.load_game("dark_hex(num_rows=3,num_cols=3)"), 4, seed=1)
/// >>> obs = env.reset()
/// >>> obs.shape, obs.dtype, env.legal_actions_mask().shape
/// ((4, 189), dtype('float32'), (4, 9))
/// >>> obs, rewards, dones = env.step([4, 4, 0, 8])
/// >>> rewards.shape, dones.tolist()
/// ((4, 2), [False, False, False, False])
/// >>> env.current_players().tolist()
/// [1, 1, 1, 1]
#[pyclass(module = "darkhex", name = "VectorEnv")]
pub struct VectorEnv {
    env: Engine,
}

fn wrong_length(games: usize, given: usize) -> PyErr {
    value_error(EnvError::WrongLength { games, given }.to_string())
}

/// The action ids of a numpy array of `n` integers of any width and sign,
/// widened to i64 (unsigned ones past i64's range saturate: no game has
/// such an action, and the message quotes the array's own value).
fn action_ids(array: &Bound<'_, PyAny>, n: usize) -> PyResult<Vec<i64>> {
    let shape = array.getattr("shape")?;
    let [len] = shape.extract::<Vec<usize>>()?[..] else {
        return Err(value_error(format!(
            "step takes a one-dimensional array of action ids, one per game, not one of shape {}",
            shape.repr()?
        )));
    };
    if len != n {
        return Err(wrong_length(n, len));
    }
    fn widened<'py, T>(array: &Bound<'py, PyAny>) -> Option<Vec<i64>>
    where
        T: numpy::Element + Copy,
        i64: TryFrom<T>,
    {
        let typed = array.extract::<PyReadonlyArray1<'py, T>>().ok()?;
        let view = typed.as_array();
        Some(
            view.iter()
                .map(|&x| i64::try_from(x).unwrap_or(i64::MAX))
                .collect(),
        )
    }
    widened::<i64>(array)
        .or_else(|| widened::<i32>(array))
        .or_else(|| widened::<i16>(array))
        .or_else(|| widened::<i8>(array))
        .or_else(|| widened::<u64>(array))
        .or_else(|| widened::<u32>(array))
        .or_else(|| widened::<u16>(array))
        .or_else(|| widened::<u8>(array))
        .ok_or_else(|| {
            let dtype = array
                .getattr("dtype")
                .map_or_else(|_| "unknown".to_string(), |d| d.to_string());
            value_error(format!(
                "step takes integer action ids (an integer array, or a list of ints), not values of type {dtype}"
            ))
        })
}

pub(crate) fn matrix<T: numpy::Element>(
    py: Python<'_>,
    rows: usize,
    cols: usize,
    data: Vec<T>,
) -> PyResult<Bound<'_, PyArray2<T>>> {
    Array2::from_shape_vec((rows, cols), data)
        .map(|a| a.into_pyarray(py))
        .map_err(|e| value_error(e.to_string()))
}

/// The engine's refusals as Python exceptions: the memory guard's as
/// `MemoryError` (through the shared mapping), a failed allocation too.
fn env_error(e: EnvError) -> PyErr {
    match e {
        EnvError::Allocation(_) => PyMemoryError::new_err(e.to_string()),
        // The guard's refusal itself: `transparent` hides it from the chain.
        EnvError::Memory(too_large) => to_py(&too_large),
        e => to_py(&e),
    }
}

#[pymethods]
impl VectorEnv {
    #[new]
    #[pyo3(signature = (game, n, seed = 0))]
    fn new(game: &PyGame, n: i128, seed: i128) -> PyResult<VectorEnv> {
        let n: usize = whole("n", n, 1, None)?;
        let seed = args::seed(seed)?;
        let env = Engine::new(game.game, n, seed, MemoryLimit::new(None)).map_err(env_error)?;
        Ok(VectorEnv { env })
    }

    #[getter]
    fn num_envs(&self) -> usize {
        self.env.num_envs()
    }

    #[getter]
    fn observation_size(&self) -> usize {
        self.env.observation_size()
    }

    #[getter]
    fn num_actions(&self) -> usize {
        self.env.num_actions()
    }

    /// Restarts every game; returns the observations (n x tensor size).
    fn reset<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        self.env.reset();
        self.obs(py)
    }

    /// The observations of the players to move (n x tensor size).
    fn obs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let obs = py.detach(|| on_own_pool(|| self.env.observations()));
        matrix(py, self.env.num_envs(), self.env.observation_size(), obs)
    }

    /// A copy of each game's state (for checks and displays, not for speed).
    fn states(&self) -> Vec<PyState> {
        let game = *self.env.game();
        self.env
            .states()
            .iter()
            .map(|s| PyState {
                game,
                state: s.clone(),
            })
            .collect()
    }

    /// The player to move in each game.
    fn current_players<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i32>> {
        PyArray1::from_vec(py, self.env.current_players())
    }

    /// n x actions booleans: the legal actions of each game's player to move.
    fn legal_actions_mask<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<bool>>> {
        let mask = py.detach(|| on_own_pool(|| self.env.legal_actions_mask()));
        matrix(py, self.env.num_envs(), self.env.num_actions(), mask)
    }

    /// A uniformly random legal action in each game, from streams of the
    /// environment's own (apart from the chance nodes'): random opponents
    /// and exploration without a Python call per game.
    fn sample_legal_actions<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        let env = &mut self.env;
        let actions = py.detach(|| on_own_pool(|| env.sample_legal_actions()));
        PyArray1::from_vec(py, actions)
    }

    /// Plays `actions[i]` in game `i` (all are checked before any is
    /// played); returns (observations, rewards n x 2, dones). `actions` is
    /// any one-dimensional array of integers (a numpy array of any integer
    /// type, a list or tuple of ints), one per game.
    #[allow(clippy::type_complexity)]
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: &Bound<'py, PyAny>,
    ) -> PyResult<(
        Bound<'py, PyArray2<f32>>,
        Bound<'py, PyArray2<f32>>,
        Bound<'py, PyArray1<bool>>,
    )> {
        let n = self.env.num_envs();
        let illegal = |i: usize, shown: String| {
            value_error(format!(
                "game {i}: action {shown} is not legal there; its legal actions are {:?}",
                self.env.states()[i].legal_actions()
            ))
        };
        // The check runs with the GIL held, so no Python thread changes
        // `actions` meanwhile. int64 arrays, what sample_legal_actions
        // returns, are read in place.
        let checked = if let Ok(ids) = actions.extract::<PyReadonlyArray1<'py, i64>>() {
            if ids.len() != n {
                return Err(wrong_length(n, ids.len()));
            }
            let ids = ids.as_array();
            let checked = match ids.as_slice() {
                Some(contiguous) => on_own_pool(|| self.env.checked(contiguous)),
                None => {
                    let copy: Vec<i64> = ids.iter().copied().collect();
                    on_own_pool(|| self.env.checked(&copy))
                }
            };
            checked.map_err(|i| illegal(i, ids[i].to_string()))?
        } else {
            let array = py.import("numpy")?.call_method1("asarray", (actions,))?;
            let ids = action_ids(&array, n)?;
            on_own_pool(|| self.env.checked(&ids)).map_err(|i| {
                let shown = array
                    .get_item(i)
                    .map_or(ids[i].to_string(), |x| x.to_string());
                illegal(i, shown)
            })?
        };
        let env = &mut self.env;
        let step = py.detach(|| on_own_pool(|| env.play(&checked)));
        Ok((
            matrix(py, n, env.observation_size(), step.observations)?,
            matrix(py, n, 2, step.rewards)?,
            PyArray1::from_vec(py, step.dones),
        ))
    }

    fn __repr__(&self) -> String {
        format!(
            "<darkhex.VectorEnv of {} games of {}>",
            self.env.num_envs(),
            self.env.game()
        )
    }
}
