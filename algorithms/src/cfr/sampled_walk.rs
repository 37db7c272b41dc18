//! Outcome- and external-sampling walks over the information-state tables:
//! the update rules of [`super::mccfr`], step for step and in the same
//! order of floating-point operations and random draws, but each player's
//! information state is a table row carried down the sampled path and
//! moved by the symbol each move shows them, so a visit costs a few array
//! reads instead of hashing a token string, and nothing is allocated once
//! the walk's frames have grown to the game's depth.

use darkhex_games::{NUM_PLAYERS, Turn};

use super::mccfr::{IterationRng, Sampling, sample_index};
use super::sparse_updates::SparseUpdates;
use crate::policy::regret_matching;
use crate::stream::walkable::MAX_MOVES;
use crate::stream::{Moves, NO_SYMBOL, PlayerTable, Shown, StreamGame};

/// One depth of the walk: what it keeps while its children are walked.
struct Frame<N> {
    node: N,
    moves: Moves,
    sigma: [f64; MAX_MOVES],
    /// Outcome sampling: the behaviour policy; external: the child values.
    scratch: [f64; MAX_MOVES],
}

/// What a worker keeps from batch to batch: its updates and its frames.
pub(crate) struct WorkerScratch<N> {
    pub updates: [SparseUpdates; NUM_PLAYERS],
    frames: Vec<Frame<N>>,
}

impl<N> WorkerScratch<N> {
    pub fn for_tables(tables: [&PlayerTable; NUM_PLAYERS]) -> Self {
        WorkerScratch {
            updates: tables.map(|t| SparseUpdates::for_table(t.num_rows(), t.num_slots())),
            frames: Vec::new(),
        }
    }
}

/// One worker's walks in a batch: the frozen regrets, and its own updates.
pub(crate) struct SampledWalk<'a, S: StreamGame> {
    pub stream: &'a S,
    pub tables: [&'a PlayerTable; NUM_PLAYERS],
    pub frozen: [&'a [f64]; NUM_PLAYERS],
    pub scratch: &'a mut WorkerScratch<S::Node>,
}

impl<S: StreamGame> SampledWalk<'_, S> {
    /// One iteration's walk for the updating `player`.
    pub fn iterate(&mut self, sampling: Sampling, player: usize, rng: &mut IterationRng) {
        self.grow(0);
        self.scratch.frames[0].node = self.stream.root();
        match sampling {
            Sampling::External => {
                self.external(0, [0; NUM_PLAYERS], player, rng);
            }
            Sampling::Outcome { exploration } => {
                self.outcome(0, [0; NUM_PLAYERS], player, [1.0; 3], rng, exploration);
            }
        }
    }

    /// Makes frames up to `depth + 1`, so a node's child has one.
    #[inline(always)]
    fn grow(&mut self, depth: usize) {
        while self.scratch.frames.len() < depth + 2 {
            self.scratch.frames.push(Frame {
                node: self.stream.root(),
                moves: Moves::default(),
                sigma: [0.0; MAX_MOVES],
                scratch: [0.0; MAX_MOVES],
            });
        }
    }

    /// The updating player's utility at a terminal node. `0.0 - u` keeps a
    /// split pot at +0, as the State API's returns have it.
    #[inline(always)]
    fn utility(&self, depth: usize, player: usize) -> f64 {
        let u = self.stream.utility(&self.scratch.frames[depth].node);
        if player == 0 { u } else { 0.0 - u }
    }

    /// Writes the child under move `k` into the next frame and moves each
    /// player's row by what the move shows them.
    #[inline(always)]
    fn apply(&mut self, depth: usize, k: usize, rows: [u32; NUM_PLAYERS]) -> [u32; NUM_PLAYERS] {
        let (head, tail) = self.scratch.frames.split_at_mut(depth + 1);
        let frame = &head[depth];
        let shown: Shown =
            self.stream
                .apply(&frame.node, frame.moves.actions()[k], &mut tail[0].node);
        std::array::from_fn(|p| match shown[p] {
            NO_SYMBOL => rows[p],
            s => self.tables[p].step(rows[p], s),
        })
    }

    /// The moves at a node and, at a decision, the current strategy by
    /// regret matching on the frozen regrets, and the row's update slots.
    #[inline(always)]
    fn expand(
        &mut self,
        depth: usize,
        mover: usize,
        rows: [u32; NUM_PLAYERS],
    ) -> (usize, std::ops::Range<usize>) {
        let row = rows[mover];
        let frame = &mut self.scratch.frames[depth];
        self.stream.moves(&frame.node, &mut frame.moves);
        let n = frame.moves.len();
        let slots = self.tables[mover].slots(row);
        debug_assert_eq!(slots.len(), n, "the row's actions are the node's");
        regret_matching(&self.frozen[mover][slots.clone()], &mut frame.sigma[..n]);
        (n, self.scratch.updates[mover].touch(row, slots))
    }

    fn external(
        &mut self,
        depth: usize,
        rows: [u32; NUM_PLAYERS],
        player: usize,
        rng: &mut IterationRng,
    ) -> f64 {
        self.grow(depth);
        match self.stream.turn(&self.scratch.frames[depth].node) {
            Turn::Terminal => self.utility(depth, player),
            Turn::Chance => {
                let frame = &mut self.scratch.frames[depth];
                self.stream.moves(&frame.node, &mut frame.moves);
                let i = sample_index(frame.moves.probs(), rng);
                let rows = self.apply(depth, i, rows);
                self.external(depth + 1, rows, player, rng)
            }
            Turn::Player(mover) => {
                let (n, local) = self.expand(depth, mover, rows);
                if mover == player {
                    let mut value = 0.0;
                    for k in 0..n {
                        let child = self.apply(depth, k, rows);
                        let v = self.external(depth + 1, child, player, rng);
                        let frame = &mut self.scratch.frames[depth];
                        value += frame.sigma[k] * v;
                        frame.scratch[k] = v;
                    }
                    let frame = &self.scratch.frames[depth];
                    let regrets = &mut self.scratch.updates[mover].regrets[local];
                    for (r, &v) in regrets.iter_mut().zip(&frame.scratch[..n]) {
                        *r += v - value;
                    }
                    value
                } else {
                    let frame = &self.scratch.frames[depth];
                    let average = &mut self.scratch.updates[mover].average[local];
                    for (w, &p) in average.iter_mut().zip(&frame.sigma[..n]) {
                        *w += p;
                    }
                    let i = sample_index(&frame.sigma[..n], rng);
                    let rows = self.apply(depth, i, rows);
                    self.external(depth + 1, rows, player, rng)
                }
            }
        }
    }

    /// One sampled trajectory; returns the updating player's value estimate.
    /// `reach` = [updating player's, opponent's and chance's, sampling's].
    fn outcome(
        &mut self,
        depth: usize,
        rows: [u32; NUM_PLAYERS],
        player: usize,
        reach: [f64; 3],
        rng: &mut IterationRng,
        exploration: f64,
    ) -> f64 {
        self.grow(depth);
        let [mine, others, sample] = reach;
        match self.stream.turn(&self.scratch.frames[depth].node) {
            Turn::Terminal => self.utility(depth, player),
            Turn::Chance => {
                let frame = &mut self.scratch.frames[depth];
                self.stream.moves(&frame.node, &mut frame.moves);
                let i = sample_index(frame.moves.probs(), rng);
                let p = frame.moves.probs()[i];
                let rows = self.apply(depth, i, rows);
                let next = [mine, others * p, sample * p];
                self.outcome(depth + 1, rows, player, next, rng, exploration)
            }
            Turn::Player(mover) => {
                let (n, local) = self.expand(depth, mover, rows);
                let frame = &mut self.scratch.frames[depth];
                let behaviour = &mut frame.scratch[..n];
                if mover == player {
                    for (b, &p) in behaviour.iter_mut().zip(&frame.sigma[..n]) {
                        *b = exploration / n as f64 + (1.0 - exploration) * p;
                    }
                } else {
                    behaviour.copy_from_slice(&frame.sigma[..n]);
                }
                let i = sample_index(behaviour, rng);
                let (sigma_i, behaviour_i) = (frame.sigma[i], behaviour[i]);
                let child_rows = self.apply(depth, i, rows);
                let next = if mover == player {
                    [mine * sigma_i, others, sample * behaviour_i]
                } else {
                    [mine, others * sigma_i, sample * behaviour_i]
                };
                let child = self.outcome(depth + 1, child_rows, player, next, rng, exploration);
                // Baseline-free estimate: only the sampled action has a value.
                let sampled_value = child / behaviour_i;
                let value = sigma_i * sampled_value;
                if mover == player {
                    let scale = others / sample;
                    let sigma = &self.scratch.frames[depth].sigma[..n];
                    let updates = &mut self.scratch.updates[mover];
                    for (k, r) in updates.regrets[local.clone()].iter_mut().enumerate() {
                        let action_value = if k == i { sampled_value } else { 0.0 };
                        *r += action_value * scale - value * scale;
                    }
                    for (w, &p) in updates.average[local].iter_mut().zip(sigma) {
                        *w += mine * p / sample;
                    }
                }
                value
            }
        }
    }
}
