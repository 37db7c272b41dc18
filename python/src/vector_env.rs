//! A vector environment: `n` games stepped in one call, the tensors,
//! rewards and done flags as numpy arrays, finished games restarted, so
//! learning code pays one Python call per step of all games.

use std::mem::MaybeUninit;

use darkhex_games::cellset::pick_set_bit;
use darkhex_games::{Action, AnyGame, AnyState, Game, State, Tensors, Turn};
use darkhex_players::sample_chance;
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::prelude::*;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;

use crate::errors::value_error;
use crate::games::{PyGame, PyState};

/// `n` games of one game, each with its own seeded stream for chance nodes.
///
/// Observations are the information-state tensors of the players to move;
/// `step(actions)` plays one action in every game and returns
/// `(observations, rewards, dones)`: rewards is n x 2 (each player's return
/// in a game that just ended, else 0), and a game that ended starts again
/// at once, its observation the new game's.
///
/// >>> import darkhex, numpy as np
/// >>> env = darkhex.VectorEnv(darkhex.load_game("dark_hex(num_rows=3,num_cols=3)"), 4, seed=1)
/// >>> obs = env.reset()
/// >>> obs.shape, obs.dtype, env.legal_actions_mask().shape
/// ((4, 189), dtype('float32'), (4, 9))
/// >>> obs, rewards, dones = env.step(np.array([4, 4, 0, 8]))
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

/// The `k`-th random stream of a seed.
fn stream(seed: u64, k: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(seed ^ k.wrapping_mul(0x9E37_79B9_7F4A_7C15))
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
    fn new(game: &PyGame, n: usize, seed: u64) -> PyResult<VectorEnv> {
        if n == 0 {
            return Err(value_error("a VectorEnv needs at least one game"));
        }
        let game = game.game;
        let mask_words = game.num_distinct_actions().div_ceil(64);
        let mut env = VectorEnv {
            game,
            states: vec![game.new_initial_state(); n],
            rngs: (0..n as u64).map(|i| stream(seed, 2 * i)).collect(),
            samplers: (0..n as u64).map(|i| stream(seed, 2 * i + 1)).collect(),
            initial: game.new_initial_state(),
            tensor_size: game.information_state_tensor_size(),
            masks: vec![0; n * mask_words],
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
    /// played); returns (observations, rewards n x 2, dones).
    #[allow(clippy::type_complexity)]
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: PyReadonlyArray1<'py, i64>,
    ) -> PyResult<(
        Bound<'py, PyArray2<f32>>,
        Bound<'py, PyArray2<f32>>,
        Bound<'py, PyArray1<bool>>,
    )> {
        let n = self.states.len();
        if actions.len() != n {
            return Err(value_error(format!(
                "step takes one action per game: {n}, not {}",
                actions.len()
            )));
        }
        let actions = actions.as_array();
        let checked = match actions.as_slice() {
            Some(contiguous) => self.checked(contiguous),
            None => self.checked(&actions.iter().copied().collect::<Vec<_>>()),
        };
        let actions = checked.map_err(|i| {
            value_error(format!(
                "game {i}: action {} is not legal there; its legal actions are {:?}",
                actions[i],
                self.states[i].legal_actions()
            ))
        })?;
        let (obs, rewards, dones) = py.detach(|| on_own_pool(|| self.play(&actions)));
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
