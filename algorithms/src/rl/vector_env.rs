//! The vector environment: `n` games of one game stepped in one call, on
//! rayon's threads, the information-state tensors of the players to move
//! as the learner's input, each game's legal actions as bits, finished
//! games restarted at once. The engine of the reinforcement-learning
//! trainers and of Python's `darkhex.VectorEnv`.
//!
//! Each game has its own seeded streams, one for its chance nodes and one
//! for [`VectorEnv::sample_legal_actions`]: a seed gives the same games
//! whatever the number of threads, and sampling actions does not change the
//! deals. [`EnvSnapshot`] holds every game's history and streams, so a
//! checkpoint restores the games under way exactly.

use std::mem::MaybeUninit;

use darkhex_games::cellset::pick_set_bit;
use darkhex_games::{Action, AnyGame, AnyState, Game, NUM_PLAYERS, State, Tensors, Token, Turn};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::memory::{MemoryLimit, TooLarge};
use crate::policy::sample_chance;

#[derive(Debug, Error)]
pub enum EnvError {
    #[error(transparent)]
    Memory(#[from] TooLarge),
    #[error("cannot allocate a VectorEnv's arrays: {0}")]
    Allocation(String),
    #[error("step takes one action per game: {games}, not {given}")]
    WrongLength { games: usize, given: usize },
    #[error("game {game}: action {action} is not legal there; its legal actions are {legal:?}")]
    Illegal {
        game: usize,
        action: i64,
        legal: Vec<Action>,
    },
    #[error("the saved environment does not fit: {0}")]
    BadSnapshot(String),
}

/// `n` games of one game, each with its own seeded streams (see the
/// module comment).
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

/// What one step of every game gave.
pub struct Step {
    /// The observations of the players to move next, `n` rows of the
    /// tensor size (a finished game's row is its new game's).
    pub observations: Vec<f32>,
    /// Each player's return in a game that just ended, else 0: `n` rows of 2.
    pub rewards: Vec<f32>,
    /// Which games ended at this step (and started again).
    pub dones: Vec<bool>,
}

/// Every game's history and streams: what restores the environment exactly.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EnvSnapshot {
    pub histories: Vec<Vec<Action>>,
    pub chance: Vec<Xoshiro256PlusPlus>,
    pub samplers: Vec<Xoshiro256PlusPlus>,
}

/// Games below this many are stepped on one thread: a task costs more
/// than the step of a few games.
const MIN_GAMES_PER_TASK: usize = 128;

impl VectorEnv {
    /// `n` games of `game`, their streams drawn from `seed`; refused past
    /// `limit` (see [`VectorEnv::bytes_per_game`]) or when an allocation fails.
    pub fn new(game: AnyGame, n: usize, seed: u64, limit: MemoryLimit) -> Result<Self, EnvError> {
        limit.check(
            format!("a VectorEnv of {n} games of {game}"),
            Self::bytes_per_game(&game) as f64 * n as f64,
            "its states, random streams and two steps' arrays",
        )?;
        let mask_words = game.num_distinct_actions().div_ceil(64);
        let initial = game.new_initial_state();
        let mut states = reserved(n)?;
        states.resize(n, initial.clone());
        let mut rngs = reserved(n)?;
        rngs.extend((0..n as u64).map(|i| stream(seed, 2 * i)));
        let mut samplers = reserved(n)?;
        samplers.extend((0..n as u64).map(|i| stream(seed, 2 * i + 1)));
        let words = n.checked_mul(mask_words).ok_or_else(|| {
            EnvError::Allocation(format!(
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
        env.reset();
        Ok(env)
    }

    /// What one game costs, in bytes, with its share of the arrays a step
    /// returns: the state (inline, and on the heap its board at a few
    /// bytes a cell and its history and logs at their longest, with the
    /// allocator's overhead), the two random streams, the legal-action
    /// bits, and the observations, rewards, done flag, legal-action mask
    /// and sampled action of two steps (a caller holds the last step's
    /// arrays while the next are made). An estimate on the high side:
    /// refusing a size that would have fitted is better than the OOM killer.
    pub fn bytes_per_game(game: &AnyGame) -> u64 {
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

    pub fn game(&self) -> &AnyGame {
        &self.game
    }

    pub fn num_envs(&self) -> usize {
        self.states.len()
    }

    /// The length of one observation (the information-state tensor's size).
    pub fn observation_size(&self) -> usize {
        self.tensor_size
    }

    pub fn num_actions(&self) -> usize {
        self.game.num_distinct_actions()
    }

    /// Each game's state (finished games have restarted: every game has a
    /// player to move).
    pub fn states(&self) -> &[AnyState] {
        &self.states
    }

    /// Restarts every game (their streams go on).
    pub fn reset(&mut self) {
        for i in 0..self.states.len() {
            self.restart(i);
        }
    }

    fn restart(&mut self, i: usize) {
        self.states[i].clone_from(&self.initial);
        settle(&mut self.states[i], &mut self.rngs[i]);
        self.refresh_mask(i);
    }

    fn refresh_mask(&mut self, i: usize) {
        let words = self.mask_words;
        self.states[i].legal_mask_into(&mut Vec::new(), &mut self.masks[i * words..][..words]);
    }

    /// The observations of the players to move, `n` rows of the tensor size.
    pub fn observations(&self) -> Vec<f32> {
        let size = self.tensor_size;
        let mut obs = Vec::with_capacity(self.states.len() * size);
        self.states
            .par_iter()
            .zip(obs.spare_capacity_mut().par_chunks_mut(size))
            .with_min_len(MIN_GAMES_PER_TASK)
            .for_each(|(state, out)| observe(&self.game, state, zeroed(out)));
        // SAFETY: `zeroed` initialised every row, and there is one a game.
        unsafe { obs.set_len(self.states.len() * size) };
        obs
    }

    /// The player to move in each game.
    pub fn current_players(&self) -> Vec<i32> {
        self.states
            .iter()
            .map(|s| s.current_player().player().map_or(-1, |p| p as i32))
            .collect()
    }

    /// Game `i`'s legal actions as bits, action `a` as bit `a % 64` of word `a / 64`.
    pub fn legal_bits(&self, i: usize) -> &[u64] {
        &self.masks[i * self.mask_words..][..self.mask_words]
    }

    /// n x actions booleans: the legal actions of each game's player to move.
    pub fn legal_actions_mask(&self) -> Vec<bool> {
        let width = self.game.num_distinct_actions();
        let len = self.states.len() * width;
        // Written by the threads that read the bits (see `play`).
        let mut mask: Vec<bool> = Vec::with_capacity(len);
        self.masks
            .par_chunks_exact(self.mask_words)
            .zip(mask.spare_capacity_mut().par_chunks_exact_mut(width))
            .with_min_len(MIN_GAMES_PER_TASK)
            .for_each(|(bits, row)| {
                for (a, legal) in row.iter_mut().enumerate() {
                    legal.write(has_action(bits, a));
                }
            });
        // SAFETY: every game's row was written, every element of it.
        unsafe { mask.set_len(len) };
        mask
    }

    /// A uniformly random legal action in each game, from the games' own
    /// sampling streams (apart from the chance nodes').
    pub fn sample_legal_actions(&mut self) -> Vec<i64> {
        let n = self.states.len();
        // Written by the thread that draws them (see `play`).
        let mut actions: Vec<i64> = Vec::with_capacity(n);
        // Each game draws from its own stream: the same actions whatever the threads.
        self.masks
            .par_chunks_exact(self.mask_words)
            .zip(self.samplers.par_iter_mut())
            .zip(actions.spare_capacity_mut().par_iter_mut())
            .with_min_len(MIN_GAMES_PER_TASK)
            .for_each(|((bits, rng), out)| {
                // Every game has a player to move (finished games restart).
                let a = pick_set_bit(bits, |n| rng.random_range(0..n));
                out.write(a.map_or(0, |a| a as i64));
            });
        // SAFETY: the pass wrote every game's action.
        unsafe { actions.set_len(n) };
        actions
    }

    /// A copy of the actions, made and checked by the threads that stepped
    /// the games last (each reads the masks it wrote; one thread reading
    /// them all would fetch half from the other core's cache, line by
    /// line), or the first game whose action is illegal. `actions` holds
    /// one action a game.
    pub fn checked(&self, actions: &[i64]) -> Result<Vec<i64>, usize> {
        let n = actions.len();
        let words = self.mask_words;
        let mut copy: Vec<i64> = Vec::with_capacity(n);
        let illegal = actions
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
                    .position(|(&a, mask)| !usize::try_from(a).is_ok_and(|a| has_action(mask, a)))
                    .map(|j| k * MIN_GAMES_PER_TASK + j)
            })
            .min();
        match illegal {
            Some(i) => Err(i),
            None => {
                // SAFETY: the chunks cover all n actions, each written above.
                unsafe { copy.set_len(n) };
                Ok(copy)
            }
        }
    }

    /// Checks `actions` (one a game, all before any is played), then
    /// plays them: [`VectorEnv::play`].
    pub fn step(&mut self, actions: &[i64]) -> Result<Step, EnvError> {
        if actions.len() != self.states.len() {
            return Err(EnvError::WrongLength {
                games: self.states.len(),
                given: actions.len(),
            });
        }
        let checked = self.checked(actions).map_err(|i| EnvError::Illegal {
            game: i,
            action: actions[i],
            legal: self.states[i].legal_actions(),
        })?;
        Ok(self.play(&checked))
    }

    /// Plays `actions[i]` in game `i`; the actions must be legal (checked
    /// by [`VectorEnv::checked`], or drawn from the legal bits).
    pub fn play(&mut self, actions: &[i64]) -> Step {
        let words = self.mask_words;
        let n = self.states.len();
        assert_eq!(actions.len(), n, "one action a game");
        let size = self.tensor_size;
        let mut observations = Vec::with_capacity(n * size);
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
            .zip(observations.spare_capacity_mut().par_chunks_mut(size))
            .zip(rewards.spare_capacity_mut().par_chunks_mut(2))
            .zip(dones.spare_capacity_mut().par_iter_mut())
            .zip(self.masks.par_chunks_exact_mut(words))
            .with_min_len(MIN_GAMES_PER_TASK)
            .for_each_init(
                Vec::new,
                |buf, ((((((state, rng), &action), out), reward), done), mask)| {
                    state.apply(action as Action);
                    settle(state, rng);
                    let ended = state.is_terminal();
                    let r = if ended { state.returns() } else { [0.0; 2] };
                    reward[0].write(r[0] as f32);
                    reward[1].write(r[1] as f32);
                    done.write(ended);
                    if ended {
                        state.clone_from(initial);
                        settle(state, rng);
                    }
                    observe(game, state, zeroed(out));
                    state.legal_mask_into(buf, mask);
                },
            );
        // SAFETY: the pass wrote every game's row of observations (through
        // `zeroed`), its two rewards and its done flag.
        unsafe {
            observations.set_len(n * size);
            rewards.set_len(n * 2);
            dones.set_len(n);
        }
        Step {
            observations,
            rewards,
            dones,
        }
    }

    /// Every game's history and streams.
    pub fn snapshot(&self) -> EnvSnapshot {
        EnvSnapshot {
            histories: self.states.iter().map(|s| s.history().to_vec()).collect(),
            chance: self.rngs.clone(),
            samplers: self.samplers.clone(),
        }
    }

    /// Puts the games and streams of `snapshot` back (one a game of this
    /// environment); a history that is not one of the game's is refused.
    pub fn restore(&mut self, snapshot: &EnvSnapshot) -> Result<(), EnvError> {
        let n = self.states.len();
        let sizes = [
            snapshot.histories.len(),
            snapshot.chance.len(),
            snapshot.samplers.len(),
        ];
        if sizes != [n; 3] {
            return Err(EnvError::BadSnapshot(format!(
                "it holds {sizes:?} histories and streams, for {n} games"
            )));
        }
        for (i, history) in snapshot.histories.iter().enumerate() {
            let mut state = self.initial.clone();
            for &a in history {
                state
                    .check_action(a)
                    .map_err(|e| EnvError::BadSnapshot(format!("game {i}: {e}")))?;
                state.apply(a);
            }
            if state.current_player().player().is_none() {
                return Err(EnvError::BadSnapshot(format!(
                    "game {i} has no player to move"
                )));
            }
            self.states[i] = state;
            self.refresh_mask(i);
        }
        self.rngs.clone_from(&snapshot.chance);
        self.samplers.clone_from(&snapshot.samplers);
        Ok(())
    }
}

/// Plays chance nodes until a player moves.
fn settle(state: &mut AnyState, rng: &mut Xoshiro256PlusPlus) {
    while state.current_player() == Turn::Chance {
        let a = sample_chance(state, rng);
        state.apply(a);
    }
}

fn observe(game: &AnyGame, state: &AnyState, out: &mut [f32]) {
    if let Turn::Player(p) = state.current_player() {
        game.information_state_tensor(state, p, out);
    }
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
pub fn has_action(mask: &[u64], a: usize) -> bool {
    mask.get(a / 64).is_some_and(|w| w >> (a % 64) & 1 == 1)
}

/// An empty vector with room for `n` items.
fn reserved<T>(n: usize) -> Result<Vec<T>, EnvError> {
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|e| EnvError::Allocation(e.to_string()))?;
    Ok(v)
}

/// The `k`-th random stream of a seed.
fn stream(seed: u64, k: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(seed ^ k.wrapping_mul(0x9E37_79B9_7F4A_7C15))
}
