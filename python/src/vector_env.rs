//! A vector environment: `n` games stepped in one call, the tensors,
//! rewards and done flags as numpy arrays, finished games restarted, so
//! learning code pays one Python call per step of all games.

use std::mem::MaybeUninit;

use darkhex_algorithms::memory::MemoryLimit;
use darkhex_games::cellset::pick_set_bit;
use darkhex_games::{Action, AnyGame, AnyState, Game, NUM_PLAYERS, State, Tensors, Token, Turn};
use darkhex_players::sample_chance;
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::exceptions::PyMemoryError;
use pyo3::prelude::*;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;

use crate::args::{self, whole};
use crate::errors::{IntoPy, value_error};
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
    game: AnyGame,
    states: Vec<AnyState>,
    rngs: Vec<Xoshiro256PlusPlus>,
    /// Streams of `sample_legal_actions`, apart from chance's so that
    /// sampling does not change the deals.
    samplers: Vec<Xoshiro256PlusPlus>,
    initial: AnyState,
    tensor_size: usize,
    /// Each game's legal actions as bits, `mask_words` words a game, kept
    /// as the games move: sampling, checking and the mask read these few
    /// words instead of each game's state, which does not fit the cache
    /// beside thousands of others.
    masks: Vec<u64>,
    mask_words: usize,
}

impl VectorEnv {
    /// Plays chance nodes until a player moves.
    fn settle(state: &mut AnyState, rng: &mut Xoshiro256PlusPlus) {
        while state.current_player() == Turn::Chance {
            let a = sample_chance(state, rng);
            state.apply(a);
        }
    }

    fn restart(&mut self, i: usize) {
        self.states[i].clone_from(&self.initial);
        Self::settle(&mut self.states[i], &mut self.rngs[i]);
        let words = self.mask_words;
        self.states[i].legal_mask_into(&mut Vec::new(), &mut self.masks[i * words..][..words]);
    }

    fn observations(&self) -> Vec<f32> {
        let size = self.tensor_size;
        let mut obs = Vec::with_capacity(self.states.len() * size);
        on_own_pool(|| {
            self.states
                .par_iter()
                .zip(obs.spare_capacity_mut().par_chunks_mut(size))
                .with_min_len(MIN_GAMES_PER_TASK)
                .for_each(|(state, out)| Self::observe(&self.game, state, zeroed(out)))
        });
        // SAFETY: `zeroed` initialised every row, and there is one a game.
        unsafe { obs.set_len(self.states.len() * size) };
        obs
    }

    /// A copy of the actions, made and checked on the pool by the threads
    /// that stepped the games last (each reads the masks it wrote; one
    /// thread reading them all would fetch half from the other core's
    /// cache, line by line), or the first game whose action is illegal.
    /// The caller holds the GIL, so no Python thread changes `actions`.
    fn checked(&self, actions: &[i64]) -> Result<Vec<i64>, usize> {
        let n = actions.len();
        let words = self.mask_words;
        let mut copy: Vec<i64> = Vec::with_capacity(n);
        let illegal = on_own_pool(|| {
            actions
                .par_chunks(MIN_GAMES_PER_TASK)
                .zip(self.masks.par_chunks(MIN_GAMES_PER_TASK * words))
                .zip(copy.spare_capacity_mut().par_chunks_mut(MIN_GAMES_PER_TASK))
                .enumerate()
                .filter_map(|(k, ((actions, masks), out))| {
                    for (out, &a) in out.iter_mut().zip(actions) {
                        out.write(a);
                    }
                    actions
                        .iter()
                        .zip(masks.chunks_exact(words))
                        .position(|(&a, mask)| {
                            !usize::try_from(a).is_ok_and(|a| has_action(mask, a))
                        })
                        .map(|j| k * MIN_GAMES_PER_TASK + j)
                })
                .min()
        });
        match illegal {
            Some(i) => Err(i),
            None => {
                // SAFETY: the chunks cover all n actions, each written above.
                unsafe { copy.set_len(n) };
                Ok(copy)
            }
        }
    }

    /// Plays one checked action in every game (see `step`): the
    /// observations, rewards and done flags.
    #[allow(clippy::type_complexity)]
    fn play(&mut self, actions: &[i64]) -> (Vec<f32>, Vec<f32>, Vec<bool>) {
        let words = self.mask_words;
        let n = self.states.len();
        let size = self.tensor_size;
        let mut obs = Vec::with_capacity(n * size);
        // Written in the pass by the thread that steps the game, not
        // zeroed here first: lines this thread wrote would move to the
        // other core's cache one by one.
        let mut rewards: Vec<f32> = Vec::with_capacity(n * 2);
        let mut dones: Vec<bool> = Vec::with_capacity(n);
        let (game, initial) = (&self.game, &self.initial);
        // Each game has its own stream: the same steps whatever the threads.
        self.states
            .par_iter_mut()
            .zip(self.rngs.par_iter_mut())
            .zip(actions.par_iter())
            .zip(obs.spare_capacity_mut().par_chunks_mut(size))
            .zip(rewards.spare_capacity_mut().par_chunks_mut(2))
            .zip(dones.spare_capacity_mut().par_iter_mut())
            .zip(self.masks.par_chunks_exact_mut(words))
            .with_min_len(MIN_GAMES_PER_TASK)
            .for_each_init(
                Vec::new,
                |buf, ((((((state, rng), &action), out), reward), done), mask)| {
                    state.apply(action as Action);
                    Self::settle(state, rng);
                    let ended = state.is_terminal();
                    let r = if ended { state.returns() } else { [0.0; 2] };
                    reward[0].write(r[0] as f32);
                    reward[1].write(r[1] as f32);
                    done.write(ended);
                    if ended {
                        state.clone_from(initial);
                        Self::settle(state, rng);
                    }
                    Self::observe(game, state, zeroed(out));
                    state.legal_mask_into(buf, mask);
                },
            );
        // SAFETY: the pass wrote every game's row of observations (through
        // `zeroed`), its two rewards and its done flag.
        unsafe {
            obs.set_len(n * size);
            rewards.set_len(n * 2);
            dones.set_len(n);
        }
        (obs, rewards, dones)
    }

    fn observe(game: &AnyGame, state: &AnyState, out: &mut [f32]) {
        if let Turn::Player(p) = state.current_player() {
            game.information_state_tensor(state, p, out);
        }
    }
}

/// Games below this many are stepped on one thread: a task costs more
/// than the step of a few games.
const MIN_GAMES_PER_TASK: usize = 128;

thread_local! {
    /// A pool of which the calling (Python) thread is itself a worker. On
    /// the global pool, every call would hand its work to a pool thread,
    /// wake it and sleep until it is done: two context switches a call,
    /// which cost more than stepping a hundred games. Here the caller
    /// starts on the work at once and the other workers steal from it;
    /// with one thread nothing changes hands at all. `None` where the
    /// thread belongs to a pool already (a caller inside a rayon worker).
    static POOL: Option<rayon::ThreadPool> = rayon::ThreadPoolBuilder::new()
        .use_current_thread()
        .build()
        .ok();
}

/// Runs `op` on the calling thread's own pool (see [`POOL`]).
fn on_own_pool<R: Send>(op: impl FnOnce() -> R + Send) -> R {
    POOL.with(|pool| match pool {
        Some(pool) => pool.install(op),
        None => op(),
    })
}

/// A row of the observations zeroed where it is written, by the thread
/// that writes it: zeroing the whole array first (`vec![0.0; ..]`) is a
/// pass over memory of its own on the calling thread, longer than the
/// stepping once the array outgrows the cache.
fn zeroed(row: &mut [MaybeUninit<f32>]) -> &mut [f32] {
    row.fill(MaybeUninit::new(0.0));
    // SAFETY: every element is initialised now, and MaybeUninit<f32> has
    // the layout of f32.
    unsafe { &mut *(row as *mut [MaybeUninit<f32>] as *mut [f32]) }
}

/// Whether a game's legal-action mask holds action `a` (false past its end).
fn has_action(mask: &[u64], a: usize) -> bool {
    mask.get(a / 64).is_some_and(|w| w >> (a % 64) & 1 == 1)
}

/// What one game costs a `VectorEnv`, in bytes, with its share of the
/// arrays a call returns: the state (inline, and on the heap its board at
/// a few bytes a cell and its history and logs at their longest, with the
/// allocator's overhead), the two random streams, the legal-action bits,
/// and the observations, rewards, done flag, legal-action mask and
/// sampled action of two steps (a caller holds the last step's arrays
/// while the next are made). An estimate on the high side: refusing a size
/// that would have fitted is better than the OOM killer.
fn bytes_per_game(game: &AnyGame) -> u64 {
    const ALLOCATION: usize = 16;
    let actions = game.num_distinct_actions();
    let heap = 8 * actions
        + (1 + NUM_PLAYERS) * size_of::<Token>() * game.max_game_length()
        + 4 * ALLOCATION;
    let state = size_of::<AnyState>() + heap;
    let streams = 2 * size_of::<Xoshiro256PlusPlus>() + actions.div_ceil(64) * size_of::<u64>();
    let step = game.information_state_tensor_size() * size_of::<f32>()
        + NUM_PLAYERS * size_of::<f32>()
        + 1
        + actions
        + size_of::<i64>();
    (state + streams + 2 * step) as u64
}

/// Refuses `n` games past the memory the kernel says is available: a
/// failed allocation would abort the interpreter, and one the kernel
/// overcommits would meet the OOM killer later.
fn check_memory(game: &AnyGame, n: usize) -> PyResult<()> {
    MemoryLimit::new(None)
        .check(
            format!("a VectorEnv of {n} games of {game}"),
            bytes_per_game(game) as f64 * n as f64,
            "its states, random streams and two steps' arrays",
        )
        .py()
}

/// An empty vector with room for `n` items, or `MemoryError`.
fn reserved<T>(n: usize) -> PyResult<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|e| {
        PyMemoryError::new_err(format!("cannot allocate a VectorEnv's arrays: {e}"))
    })?;
    Ok(v)
}

/// The `k`-th random stream of a seed.
fn stream(seed: u64, k: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(seed ^ k.wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

fn wrong_length(n: usize, given: usize) -> PyErr {
    value_error(format!("step takes one action per game: {n}, not {given}"))
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

fn matrix<T: numpy::Element>(
    py: Python<'_>,
    rows: usize,
    cols: usize,
    data: Vec<T>,
) -> PyResult<Bound<'_, PyArray2<T>>> {
    Array2::from_shape_vec((rows, cols), data)
        .map(|a| a.into_pyarray(py))
        .map_err(|e| value_error(e.to_string()))
}

#[pymethods]
impl VectorEnv {
    #[new]
    #[pyo3(signature = (game, n, seed = 0))]
    fn new(game: &PyGame, n: i128, seed: i128) -> PyResult<VectorEnv> {
        let n: usize = whole("n", n, 1, None)?;
        let seed = args::seed(seed)?;
        let game = game.game;
        check_memory(&game, n)?;
        let mask_words = game.num_distinct_actions().div_ceil(64);
        let initial = game.new_initial_state();
        let mut states = reserved(n)?;
        states.resize(n, initial.clone());
        let mut rngs = reserved(n)?;
        rngs.extend((0..n as u64).map(|i| stream(seed, 2 * i)));
        let mut samplers = reserved(n)?;
        samplers.extend((0..n as u64).map(|i| stream(seed, 2 * i + 1)));
        let words = n.checked_mul(mask_words).ok_or_else(|| {
            PyMemoryError::new_err(format!(
                "{n} games' legal-action bits overflow the address space"
            ))
        })?;
        let mut masks = reserved(words)?;
        masks.resize(words, 0);
        let mut env = VectorEnv {
            game,
            states,
            rngs,
            samplers,
            initial,
            tensor_size: game.information_state_tensor_size(),
            masks,
            mask_words,
        };
        for i in 0..n {
            env.restart(i);
        }
        Ok(env)
    }

    #[getter]
    fn num_envs(&self) -> usize {
        self.states.len()
    }

    #[getter]
    fn observation_size(&self) -> usize {
        self.tensor_size
    }

    #[getter]
    fn num_actions(&self) -> usize {
        self.game.num_distinct_actions()
    }

    /// Restarts every game; returns the observations (n x tensor size).
    fn reset<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        for i in 0..self.states.len() {
            self.restart(i);
        }
        self.obs(py)
    }

    /// The observations of the players to move (n x tensor size).
    fn obs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let obs = py.detach(|| self.observations());
        matrix(py, self.states.len(), self.tensor_size, obs)
    }

    /// A copy of each game's state (for checks and displays, not for speed).
    fn states(&self) -> Vec<PyState> {
        self.states
            .iter()
            .map(|s| PyState {
                game: self.game,
                state: s.clone(),
            })
            .collect()
    }

    /// The player to move in each game.
    fn current_players<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i32>> {
        let players: Vec<i32> = self
            .states
            .iter()
            .map(|s| s.current_player().player().map_or(-1, |p| p as i32))
            .collect();
        PyArray1::from_vec(py, players)
    }

    /// n x actions booleans: the legal actions of each game's player to move.
    fn legal_actions_mask<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<bool>>> {
        let width = self.game.num_distinct_actions();
        let len = self.states.len() * width;
        // Written by the threads that read the bits (see `play`).
        let mut mask: Vec<bool> = Vec::with_capacity(len);
        py.detach(|| {
            on_own_pool(|| {
                self.masks
                    .par_chunks_exact(self.mask_words)
                    .zip(mask.spare_capacity_mut().par_chunks_exact_mut(width))
                    .with_min_len(MIN_GAMES_PER_TASK)
                    .for_each(|(bits, row)| {
                        for (a, legal) in row.iter_mut().enumerate() {
                            legal.write(has_action(bits, a));
                        }
                    })
            })
        });
        // SAFETY: every game's row was written, every element of it.
        unsafe { mask.set_len(len) };
        matrix(py, self.states.len(), width, mask)
    }

    /// A uniformly random legal action in each game, from streams of the
    /// environment's own (apart from the chance nodes'): random opponents
    /// and exploration without a Python call per game.
    fn sample_legal_actions<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        let n = self.states.len();
        // Written by the thread that draws them (see `play`).
        let mut actions: Vec<i64> = Vec::with_capacity(n);
        py.detach(|| {
            // Each game draws from its own stream: the same actions whatever the threads.
            on_own_pool(|| {
                self.masks
                    .par_chunks_exact(self.mask_words)
                    .zip(self.samplers.par_iter_mut())
                    .zip(actions.spare_capacity_mut().par_iter_mut())
                    .with_min_len(MIN_GAMES_PER_TASK)
                    .for_each(|((bits, rng), out)| {
                        // Every game has a player to move (finished games restart).
                        let a = pick_set_bit(bits, |n| rng.random_range(0..n));
                        out.write(a.map_or(0, |a| a as i64));
                    })
            })
        });
        // SAFETY: the pass wrote every game's action.
        unsafe { actions.set_len(n) };
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
        let n = self.states.len();
        let illegal = |i: usize, shown: String| {
            value_error(format!(
                "game {i}: action {shown} is not legal there; its legal actions are {:?}",
                self.states[i].legal_actions()
            ))
        };
        // int64 arrays, what sample_legal_actions returns, are read in place.
        let checked = if let Ok(ids) = actions.extract::<PyReadonlyArray1<'py, i64>>() {
            if ids.len() != n {
                return Err(wrong_length(n, ids.len()));
            }
            let ids = ids.as_array();
            let checked = match ids.as_slice() {
                Some(contiguous) => self.checked(contiguous),
                None => self.checked(&ids.iter().copied().collect::<Vec<_>>()),
            };
            checked.map_err(|i| illegal(i, ids[i].to_string()))?
        } else {
            let array = py.import("numpy")?.call_method1("asarray", (actions,))?;
            let ids = action_ids(&array, n)?;
            self.checked(&ids).map_err(|i| {
                let shown = array
                    .get_item(i)
                    .map_or(ids[i].to_string(), |x| x.to_string());
                illegal(i, shown)
            })?
        };
        let (obs, rewards, dones) = py.detach(|| on_own_pool(|| self.play(&checked)));
        Ok((
            matrix(py, n, self.tensor_size, obs)?,
            matrix(py, n, 2, rewards)?,
            PyArray1::from_vec(py, dones),
        ))
    }

    fn __repr__(&self) -> String {
        format!(
            "<darkhex.VectorEnv of {} games of {}>",
            self.states.len(),
            self.game
        )
    }
}
