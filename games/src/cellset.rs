//! Sets of board cells as fixed-size bit sets: `W` words of 64 cells, cell
//! id = bit index. Boards up to 8x8 fit one word, 11x11 two, 19x19 six and
//! 26x26 eleven; [`with_cell_words!`](crate::with_cell_words) picks the width
//! for a board at run time so that each width's code is compiled apart.

use std::fmt;
use std::ops::{
    BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not, Sub, SubAssign,
};

#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CellSet<const W: usize>(pub [u64; W]);

impl<const W: usize> Default for CellSet<W> {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl<const W: usize> CellSet<W> {
    pub const EMPTY: Self = CellSet([0; W]);
    /// Every id of the width: the neutral start of an intersection.
    pub const FULL: Self = CellSet([u64::MAX; W]);
    /// The most cells a set of this width holds.
    pub const CAPACITY: usize = 64 * W;

    pub fn single(cell: usize) -> Self {
        let mut s = Self::EMPTY;
        s.insert(cell);
        s
    }

    /// The cells `0..n`.
    pub fn first_n(n: usize) -> Self {
        let mut s = Self::EMPTY;
        for (i, w) in s.0.iter_mut().enumerate() {
            let lo = 64 * i;
            if n >= lo + 64 {
                *w = u64::MAX;
            } else if n > lo {
                *w = (1u64 << (n - lo)) - 1;
            }
        }
        s
    }

    #[inline]
    pub fn contains(&self, cell: usize) -> bool {
        self.0[cell / 64] >> (cell % 64) & 1 == 1
    }

    #[inline]
    pub fn insert(&mut self, cell: usize) {
        self.0[cell / 64] |= 1 << (cell % 64);
    }

    #[inline]
    pub fn remove(&mut self, cell: usize) {
        self.0[cell / 64] &= !(1 << (cell % 64));
    }

    #[inline]
    pub fn with(mut self, cell: usize) -> Self {
        self.insert(cell);
        self
    }

    #[inline]
    pub fn without(mut self, cell: usize) -> Self {
        self.remove(cell);
        self
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    #[inline]
    pub fn count(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// The lowest cell.
    #[inline]
    pub fn first(&self) -> Option<usize> {
        self.0
            .iter()
            .enumerate()
            .find(|(_, w)| **w != 0)
            .map(|(i, w)| 64 * i + w.trailing_zeros() as usize)
    }

    /// Whether every cell of `self` is in `other`.
    #[inline]
    pub fn is_subset(&self, other: &Self) -> bool {
        self.0.iter().zip(&other.0).all(|(a, b)| a & !b == 0)
    }

    #[inline]
    pub fn intersects(&self, other: &Self) -> bool {
        self.0.iter().zip(&other.0).any(|(a, b)| a & b != 0)
    }

    /// The cells ascending.
    pub fn iter(&self) -> Cells<W> {
        Cells {
            set: *self,
            word: 0,
        }
    }

    /// Every cell moved up by `k` (< 64) ids; cells past the capacity drop.
    #[inline]
    pub fn shift_up(self, k: u32) -> Self {
        if k == 0 {
            return self;
        }
        let mut out = [0u64; W];
        for i in (0..W).rev() {
            out[i] = self.0[i] << k;
            if i > 0 {
                out[i] |= self.0[i - 1] >> (64 - k);
            }
        }
        CellSet(out)
    }

    /// Every cell moved down by `k` (< 64) ids; cells below zero drop.
    #[inline]
    pub fn shift_down(self, k: u32) -> Self {
        if k == 0 {
            return self;
        }
        let mut out = [0u64; W];
        for (i, o) in out.iter_mut().enumerate() {
            *o = self.0[i] >> k;
            if i + 1 < W {
                *o |= self.0[i + 1] << (64 - k);
            }
        }
        CellSet(out)
    }

    /// Cell `c` mapped to `n - 1 - c` for the cells below `n`.
    pub fn reversed(self, n: usize) -> Self {
        let mut out = [0u64; W];
        for i in 0..W {
            out[W - 1 - i] = self.0[i].reverse_bits();
        }
        // Now cell c sits at 64W - 1 - c; move it down to n - 1 - c.
        let mut s = CellSet(out);
        let mut shift = 64 * W - n;
        while shift > 0 {
            let k = shift.min(63);
            s = s.shift_down(k as u32);
            shift -= k;
        }
        s
    }
}

impl<const W: usize> FromIterator<usize> for CellSet<W> {
    fn from_iter<I: IntoIterator<Item = usize>>(iter: I) -> Self {
        let mut s = Self::EMPTY;
        for c in iter {
            s.insert(c);
        }
        s
    }
}

/// The cells of a set, ascending.
pub struct Cells<const W: usize> {
    set: CellSet<W>,
    word: usize,
}

impl<const W: usize> Iterator for Cells<W> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.word < W {
            let w = &mut self.set.0[self.word];
            if *w != 0 {
                let bit = w.trailing_zeros() as usize;
                *w &= *w - 1;
                return Some(64 * self.word + bit);
            }
            self.word += 1;
        }
        None
    }
}

impl<const W: usize> IntoIterator for CellSet<W> {
    type Item = usize;
    type IntoIter = Cells<W>;
    fn into_iter(self) -> Cells<W> {
        self.iter()
    }
}

macro_rules! binary_op {
    ($trait:ident, $method:ident, $assign:ident, $assign_method:ident, $op:tt) => {
        impl<const W: usize> $trait for CellSet<W> {
            type Output = Self;
            #[inline]
            #[allow(clippy::assign_op_pattern)]
            fn $method(self, rhs: Self) -> Self {
                let mut out = self.0;
                for (o, r) in out.iter_mut().zip(rhs.0) {
                    *o = *o $op r;
                }
                CellSet(out)
            }
        }
        impl<const W: usize> $assign for CellSet<W> {
            #[inline]
            fn $assign_method(&mut self, rhs: Self) {
                *self = *self $op rhs;
            }
        }
    };
}

binary_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
binary_op!(BitOr, bitor, BitOrAssign, bitor_assign, |);
binary_op!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

/// Set difference: the cells of `self` not in `rhs`.
impl<const W: usize> Sub for CellSet<W> {
    type Output = Self;
    #[inline]
    fn sub(self, rhs: Self) -> Self {
        let mut out = self.0;
        for (o, r) in out.iter_mut().zip(rhs.0) {
            *o &= !r;
        }
        CellSet(out)
    }
}

impl<const W: usize> SubAssign for CellSet<W> {
    #[inline]
    fn sub_assign(&mut self, rhs: Self) {
        *self = *self - rhs;
    }
}

/// Every id of the width not in the set, past the board's cells included:
/// mask with the board's cells when that matters.
impl<const W: usize> Not for CellSet<W> {
    type Output = Self;
    #[inline]
    fn not(self) -> Self {
        let mut out = self.0;
        for w in &mut out {
            *w = !*w;
        }
        CellSet(out)
    }
}

impl<const W: usize> fmt::Debug for CellSet<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// Runs `$body` with `$W` the number of words a board of `$cells` cells
/// needs (1, 2, 6 or 11), as a constant, so generic code is compiled for
/// each width.
#[macro_export]
macro_rules! with_cell_words {
    ($cells:expr, $W:ident => $body:expr) => {{
        let cells: usize = $cells;
        if cells <= 64 {
            const $W: usize = 1;
            $body
        } else if cells <= 128 {
            const $W: usize = 2;
            $body
        } else if cells <= 384 {
            const $W: usize = 6;
            $body
        } else {
            const $W: usize = 11;
            $body
        }
    }};
}

/// Of the `n` set bits of `words` (bit `i` is bit `i % 64` of word `i / 64`),
/// the one at index `pick(n)` in increasing order, which `pick` must keep
/// below `n`; `None` when no bit is set. A uniform draw below `n` makes it
/// a uniform draw among the set bits, without listing them.
pub fn pick_set_bit(words: &[u64], pick: impl FnOnce(usize) -> usize) -> Option<usize> {
    let count: usize = words.iter().map(|w| w.count_ones() as usize).sum();
    if count == 0 {
        return None;
    }
    let mut k = pick(count);
    for (w, &word) in words.iter().enumerate() {
        let here = word.count_ones() as usize;
        if k >= here {
            k -= here;
            continue;
        }
        return Some(64 * w + select_in_word(word, k as u32) as usize);
    }
    panic!("pick gave an index past the {count} set bits")
}

/// The position of set bit number `k` (from 0, lowest first) of `x`, which
/// has more than `k` set bits. Without a branch that depends on `k`: the
/// simple loop that clears `k` low bits mispredicts its exit on every
/// random draw, and sampling draws one a game and step.
pub fn select_in_word(x: u64, k: u32) -> u32 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // The set bits of each byte, then of each byte and those below it.
    let mut bytes = x - ((x >> 1) & 0x5555_5555_5555_5555);
    bytes = (bytes & 0x3333_3333_3333_3333) + ((bytes >> 2) & 0x3333_3333_3333_3333);
    bytes = (bytes + (bytes >> 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    let upto = bytes.wrapping_mul(ONES);
    // A byte's high bit stays set where its running count is at most k
    // (counts are at most 64 and k at most 63, so no byte borrows): those
    // bytes lie below the one that holds the bit.
    let below = (((u64::from(k) * ONES) | HIGHS) - upto) & HIGHS;
    let shift = below.count_ones() * 8;
    let before = ((upto << 8) >> shift) & 0xFF;
    let byte = ((x >> shift) & 0xFF) as usize;
    shift + u32::from(SELECT_IN_BYTE[byte][(u64::from(k) - before) as usize])
}

/// `SELECT_IN_BYTE[b][r]`: the position of set bit number `r` of byte `b`.
const SELECT_IN_BYTE: [[u8; 8]; 256] = {
    let mut table = [[0u8; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let mut r = 0;
        let mut bit = 0;
        while bit < 8 {
            if b >> bit & 1 == 1 {
                table[b][r] = bit as u8;
                r += 1;
            }
            bit += 1;
        }
        b += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_cross_word_boundaries() {
        let s: CellSet<3> = [0, 63, 64, 100, 127].into_iter().collect();
        let up: Vec<usize> = s.shift_up(5).iter().collect();
        assert_eq!(up, vec![5, 68, 69, 105, 132]);
        let down: Vec<usize> = s.shift_down(5).iter().collect();
        assert_eq!(down, vec![58, 59, 95, 122]);
        assert_eq!(s.shift_up(0), s);
    }

    #[test]
    fn reversal_maps_each_cell_to_its_mirror() {
        for n in [1, 9, 63, 64, 65, 121, 190] {
            let cells: Vec<usize> = (0..n).filter(|c| c % 3 != 1).collect();
            let s: CellSet<3> = cells.iter().copied().collect();
            let r = s.reversed(n);
            let want: CellSet<3> = cells.iter().map(|c| n - 1 - c).collect();
            assert_eq!(r, want, "n = {n}");
        }
    }

    #[test]
    fn set_algebra() {
        let a: CellSet<2> = [1, 5, 70].into_iter().collect();
        let b: CellSet<2> = [5, 70, 90].into_iter().collect();
        assert_eq!((a & b).iter().collect::<Vec<_>>(), vec![5, 70]);
        assert_eq!((a - b).iter().collect::<Vec<_>>(), vec![1]);
        assert_eq!((a | b).count(), 4);
        assert!((a & b).is_subset(&a) && !a.is_subset(&b) && a.intersects(&b));
        assert_eq!(a.first(), Some(1));
        assert_eq!(CellSet::<2>::EMPTY.first(), None);
        assert_eq!(CellSet::<2>::first_n(70).count(), 70);
        assert_eq!(CellSet::<2>::first_n(128).count(), 128);
    }
}
