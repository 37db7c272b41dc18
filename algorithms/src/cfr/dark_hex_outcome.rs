//! Outcome sampling over the tables, specialised to Dark Hex.
//!
//! The walk of [`super::sampled_walk`] goes through the [`StreamGame`]
//! interface: a move list filled at every decision, a node copied into the
//! next frame, a frame of several hundred bytes per depth. Here the legal
//! moves are a bit set of the real board, the player to move is a const
//! parameter (so the board, rows and reach stay in registers), and the
//! strategy lives in a small array on the stack. The random draws, the
//! floating-point operations and the updates are the generic walk's, in
//! its order, so the two give the same bits (tested through the keyed
//! sampler, which both equal).
//!
//! [`StreamGame`]: crate::stream::StreamGame

use darkhex_games::NUM_PLAYERS;

use super::mccfr::{IterationRng, sample_index};
use super::sparse_updates::SparseUpdates;
use crate::policy::regret_matching;
use crate::stream::dark_hex::{Child, MAX_CELLS, RealBoard};
use crate::stream::prefetch::prefetch;
use crate::stream::tables::Row;
use crate::stream::{DarkHexStream, StreamGame};

/// One worker's outcome-sampling walks on Dark Hex in a batch.
pub(crate) struct DarkHexOutcome<'a> {
    pub game: &'a DarkHexStream,
    pub rows: [&'a [Row]; NUM_PLAYERS],
    pub frozen: [&'a [f64]; NUM_PLAYERS],
    pub updates: &'a mut [SparseUpdates; NUM_PLAYERS],
    pub exploration: f64,
}

/// The walk's body, written once for its two compilations (plain, and with
/// the AVX2 generation's instructions where the processor has them: its
/// 4-wide divisions and hardware popcount make the walk some 20% faster,
/// with the same results, since IEEE division is exact whatever the width);
/// `$walk` is the compilation's own name, for the recursive calls.
macro_rules! walk_body {
    ($s:ident, $walk:ident, $node:ident, $rows:ident, $reach:ident, $rng:ident) => {{
        let [mine, others, sample] = $reach;
        let row = $s.rows[M][$rows[M] as usize];
        let first = row.slot_start as usize;
        // The opponent's row was asked for when it last changed; their
        // regrets, read when they next move, are asked for now.
        let theirs = $s.rows[1 - M][$rows[1 - M] as usize].slot_start as usize;
        prefetch($s.frozen[1 - M].as_ptr().wrapping_add(theirs));
        // The mover's next row is one of this row's children, which lie
        // side by side: ask for them all now, a decision before the move
        // picks one, so that its regrets can be asked for as soon as it is.
        let children = $s.rows[M].as_ptr().wrapping_add(row.first_child as usize);
        let last = children.wrapping_add(row.mask.count_ones() as usize) as usize - 1;
        let mut line = children as usize & !63;
        while line <= last {
            prefetch(line as *const u8);
            line += 64;
        }
        let legal = $s.game.legal::<M>($node);
        let n = legal.count_ones() as usize;
        let mut sigma = [0.0; MAX_CELLS];
        let sigma = &mut sigma[..n];
        regret_matching(&$s.frozen[M][first..first + n], sigma);
        let local = $s.updates[M].touch($rows[M], first..first + n);
        let mut behaviour = [0.0; MAX_CELLS];
        let behaviour = &mut behaviour[..n];
        if M == P {
            let e = $s.exploration;
            for (b, &p) in behaviour.iter_mut().zip(sigma.iter()) {
                *b = e / n as f64 + (1.0 - e) * p;
            }
        } else {
            behaviour.copy_from_slice(sigma);
        }
        let i = sample_index(behaviour, $rng);
        let (sigma_i, behaviour_i) = (sigma[i], behaviour[i]);
        let cell = nth_cell(legal, i);
        let next = if M == P {
            [mine * sigma_i, others, sample * behaviour_i]
        } else {
            [mine, others * sigma_i, sample * behaviour_i]
        };
        let kid = $s.game.child::<M>($s.rows, $node, $rows, &row, cell);
        if let Child::Passed(_, r) | Child::Again(_, r) = kid {
            // The mover's new row was asked for above; its regrets are read
            // when they next move.
            let next = $s.rows[M][r[M] as usize].slot_start as usize;
            prefetch($s.frozen[M].as_ptr().wrapping_add(next));
        }
        let child = match kid {
            // `0.0 - u` as the generic walk has it.
            Child::Terminal(u) => {
                if P == 0 {
                    u
                } else {
                    0.0 - u
                }
            }
            Child::Again(board, child_rows) => $s.$walk::<M, P>(board, child_rows, next, $rng),
            Child::Passed(board, child_rows) if M == 0 => {
                $s.$walk::<1, P>(board, child_rows, next, $rng)
            }
            Child::Passed(board, child_rows) => $s.$walk::<0, P>(board, child_rows, next, $rng),
        };
        // Baseline-free estimate: only the sampled action has a value.
        let sampled_value = child / behaviour_i;
        let value = sigma_i * sampled_value;
        if M == P {
            let scale = others / sample;
            let updates = &mut $s.updates[M];
            for (k, r) in updates.regrets[local.clone()].iter_mut().enumerate() {
                let action_value = if k == i { sampled_value } else { 0.0 };
                *r += action_value * scale - value * scale;
            }
            for (w, &p) in updates.average[local].iter_mut().zip(sigma.iter()) {
                *w += mine * p / sample;
            }
        }
        value
    }};
}

impl DarkHexOutcome<'_> {
    /// One iteration's walk for the updating `player`.
    pub fn iterate(&mut self, player: usize, rng: &mut IterationRng) {
        let root = RealBoard::of(&self.game.root());
        let (rows, reach) = ([0; NUM_PLAYERS], [1.0; 3]);
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("bmi1")
            && std::arch::is_x86_feature_detected!("popcnt")
        {
            // SAFETY: the processor has the features the compilation uses.
            unsafe {
                if player == 0 {
                    self.walk_avx2::<0, 0>(root, rows, reach, rng);
                } else {
                    self.walk_avx2::<0, 1>(root, rows, reach, rng);
                }
            }
            return;
        }
        if player == 0 {
            self.walk::<0, 0>(root, rows, reach, rng);
        } else {
            self.walk::<0, 1>(root, rows, reach, rng);
        }
    }

    /// The sampled trajectory from a node where `M` moves, for the
    /// updating player `P`; returns `P`'s value estimate. `reach` =
    /// [updating player's, opponent's and chance's, sampling's].
    fn walk<const M: usize, const P: usize>(
        &mut self,
        node: RealBoard,
        rows: [u32; NUM_PLAYERS],
        reach: [f64; 3],
        rng: &mut IterationRng,
    ) -> f64 {
        walk_body!(self, walk, node, rows, reach, rng)
    }

    /// [`Self::walk`] compiled for the AVX2 generation.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,popcnt")]
    fn walk_avx2<const M: usize, const P: usize>(
        &mut self,
        node: RealBoard,
        rows: [u32; NUM_PLAYERS],
        reach: [f64; 3],
        rng: &mut IterationRng,
    ) -> f64 {
        walk_body!(self, walk_avx2, node, rows, reach, rng)
    }
}

/// The cell of the `i`-th legal move (moves ascend by cell).
#[inline(always)]
fn nth_cell(mut legal: u32, i: usize) -> u32 {
    for _ in 0..i {
        legal &= legal - 1;
    }
    legal.trailing_zeros()
}
