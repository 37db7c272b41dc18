//! One board's geometry over [`CellSet`]s: the sides, neighbourhoods by
//! word shifts, groups by flood fill, the 180-degree rotation, the
//! reflection of square boards, and Zobrist keys. Everything that works on sets of cells (the Hex solver, the
//! evaluations, PONE) shares it.

use crate::board::{BLACK, Dims};
use crate::cellset::CellSet;

/// A board's cell sets for one width `W` (see [`crate::with_cell_words!`]).
#[derive(Clone, Debug)]
pub struct Geometry<const W: usize> {
    dims: Dims,
    all: CellSet<W>,
    first_row: CellSet<W>,
    last_row: CellSet<W>,
    first_col: CellSet<W>,
    last_col: CellSet<W>,
    not_first_col: CellSet<W>,
    not_last_col: CellSet<W>,
    adjacent: Vec<CellSet<W>>,
    zobrist: Vec<[u64; 2]>,
}

/// SplitMix64: a fixed stream of well-mixed keys, the same on every run.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl<const W: usize> Geometry<W> {
    /// `None` when the board has more cells than `W` words hold.
    pub fn new(dims: Dims) -> Option<Self> {
        let n = dims.cells();
        if n > CellSet::<W>::CAPACITY {
            return None;
        }
        let (rows, cols) = (dims.rows(), dims.cols());
        let all = CellSet::first_n(n);
        let mut g = Geometry {
            dims,
            all,
            first_row: (0..cols).map(|c| dims.cell(0, c)).collect(),
            last_row: (0..cols).map(|c| dims.cell(rows - 1, c)).collect(),
            first_col: (0..rows).map(|r| dims.cell(r, 0)).collect(),
            last_col: (0..rows).map(|r| dims.cell(r, cols - 1)).collect(),
            not_first_col: CellSet::EMPTY,
            not_last_col: CellSet::EMPTY,
            adjacent: Vec::new(),
            zobrist: Vec::new(),
        };
        g.not_first_col = all - g.first_col;
        g.not_last_col = all - g.last_col;
        g.adjacent = (0..n).map(|c| dims.neighbours(c).collect()).collect();
        let mut state = 0x5EED_DA2C_4E11_u64 ^ ((rows as u64) << 32 | cols as u64);
        g.zobrist = (0..n)
            .map(|_| [splitmix(&mut state), splitmix(&mut state)])
            .collect();
        Some(g)
    }

    pub fn dims(&self) -> Dims {
        self.dims
    }

    pub fn cells(&self) -> usize {
        self.dims.cells()
    }

    /// Every cell of the board.
    pub fn all(&self) -> CellSet<W> {
        self.all
    }

    /// The set and every cell adjacent to it.
    #[inline]
    pub fn dilate(&self, s: CellSet<W>) -> CellSet<W> {
        let c = self.dims.cols() as u32;
        let mut d = s;
        d |= s.shift_up(1) & self.not_first_col; // (r, c-1) -> (r, c)
        d |= s.shift_down(1) & self.not_last_col; // (r, c+1) -> (r, c)
        d |= s.shift_up(c); // (r-1, c) -> (r, c)
        d |= s.shift_down(c); // (r+1, c) -> (r, c)
        if c > 1 {
            d |= s.shift_down(c - 1) & self.not_first_col; // (r+1, c-1) -> (r, c)
            d |= s.shift_up(c - 1) & self.not_last_col; // (r-1, c+1) -> (r, c)
        }
        d & self.all
    }

    /// The cells adjacent to the set and not in it.
    #[inline]
    pub fn neighbours(&self, s: CellSet<W>) -> CellSet<W> {
        self.dilate(s) - s
    }

    /// The neighbours of one cell.
    #[inline]
    pub fn adjacent(&self, cell: usize) -> CellSet<W> {
        self.adjacent[cell]
    }

    /// The cells of `within` connected to `seed` through `within`.
    #[inline]
    pub fn flood(&self, seed: CellSet<W>, within: CellSet<W>) -> CellSet<W> {
        let mut reached = seed & within;
        loop {
            let next = self.dilate(reached) & within;
            if next == reached {
                return reached;
            }
            reached = next;
        }
    }

    /// The connected groups of `stones`, in order of their lowest cell.
    pub fn groups(&self, stones: CellSet<W>) -> Vec<CellSet<W>> {
        let mut left = stones;
        let mut groups = Vec::new();
        while let Some(c) = left.first() {
            let g = self.flood(CellSet::single(c), left);
            left -= g;
            groups.push(g);
        }
        groups
    }

    /// The two sides `player` joins: Black the first and last rows, White
    /// the first and last columns.
    #[inline]
    pub fn sides(&self, player: usize) -> [CellSet<W>; 2] {
        if player == BLACK {
            [self.first_row, self.last_row]
        } else {
            [self.first_col, self.last_col]
        }
    }

    /// Whether `stones` hold a chain joining `player`'s sides.
    pub fn connected(&self, stones: CellSet<W>, player: usize) -> bool {
        let [a, b] = self.sides(player);
        self.flood(a, stones).intersects(&b)
    }

    /// The set turned by 180 degrees, which keeps each player's sides.
    #[inline]
    pub fn rotate(&self, s: CellSet<W>) -> CellSet<W> {
        s.reversed(self.cells())
    }

    /// The set reflected in the long diagonal (a1 to the far corner), cell
    /// (r, c) to (c, r): on a square board this keeps the neighbourhoods and
    /// swaps Black's sides with White's, so a position with the colours
    /// swapped and reflected is the same game for the other player. `None`
    /// on a board that is not square.
    pub fn transpose(&self, s: CellSet<W>) -> Option<CellSet<W>> {
        let n = self.dims.rows();
        if self.dims.cols() != n {
            return None;
        }
        Some(s.iter().map(|c| (c % n) * n + c / n).collect())
    }

    /// The Zobrist key of a stone of `player` on `cell`.
    #[inline]
    pub fn zobrist(&self, cell: usize, player: usize) -> u64 {
        self.zobrist[cell][player]
    }

    /// The Zobrist key of a whole position.
    pub fn hash(&self, stones: &[CellSet<W>; 2]) -> u64 {
        let mut h = 0;
        for (p, s) in stones.iter().enumerate() {
            for c in s.iter() {
                h ^= self.zobrist[c][p];
            }
        }
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{HexBoard, WHITE};

    fn dims(r: usize, c: usize) -> Dims {
        Dims::new("hex", r, c).unwrap()
    }

    #[test]
    fn dilation_matches_the_board_neighbours() {
        for (r, c) in [
            (1, 1),
            (1, 5),
            (5, 1),
            (3, 4),
            (8, 8),
            (11, 11),
            (13, 7),
            (19, 19),
        ] {
            let d = dims(r, c);
            crate::with_cell_words!(d.cells(), W => {
                let g = Geometry::<W>::new(d).unwrap();
                for cell in 0..d.cells() {
                    let want: CellSet<W> = d.neighbours(cell).collect();
                    assert_eq!(g.neighbours(CellSet::single(cell)), want, "{r}x{c} cell {cell}");
                    assert_eq!(g.adjacent(cell), want);
                }
            });
        }
    }

    #[test]
    fn connection_agrees_with_the_board() {
        let d = dims(3, 4);
        let g = Geometry::<1>::new(d).unwrap();
        for mask in 0u64..(1 << 12) {
            let mut b = HexBoard::new(d);
            for cell in 0..12 {
                b.place(cell, if mask >> cell & 1 == 1 { BLACK } else { WHITE });
            }
            let black = CellSet([mask]);
            let white = g.all() - black;
            assert_eq!(g.connected(black, BLACK), b.connected_by_search(BLACK));
            assert_eq!(g.connected(white, WHITE), b.connected_by_search(WHITE));
        }
    }

    #[test]
    fn rotation_keeps_the_sides_and_adjacency() {
        let d = dims(5, 7);
        let g = Geometry::<1>::new(d).unwrap();
        for p in [BLACK, WHITE] {
            let [a, b] = g.sides(p);
            assert_eq!(g.rotate(a), b);
        }
        for cell in 0..d.cells() {
            let rot = d.rotate180(cell);
            assert_eq!(g.rotate(g.adjacent(cell)), g.adjacent(rot));
        }
    }

    #[test]
    fn transposition_swaps_the_sides_and_keeps_adjacency() {
        let d = dims(6, 6);
        let g = Geometry::<1>::new(d).unwrap();
        let [b0, b1] = g.sides(BLACK);
        let [w0, w1] = g.sides(WHITE);
        assert_eq!(g.transpose(b0), Some(w0));
        assert_eq!(g.transpose(b1), Some(w1));
        for cell in 0..d.cells() {
            let one = CellSet::single(cell);
            let image = g.transpose(one).unwrap();
            assert_eq!(g.transpose(image), Some(one));
            assert_eq!(g.transpose(g.adjacent(cell)), Some(g.neighbours(image)));
        }
        assert_eq!(Geometry::<1>::new(dims(3, 4)).unwrap().transpose(b0), None);
    }

    #[test]
    fn groups_partition_the_stones() {
        let d = dims(4, 4);
        let g = Geometry::<1>::new(d).unwrap();
        let stones: CellSet<1> = [0, 1, 4, 10, 15, 14].into_iter().collect();
        let groups = g.groups(stones);
        assert_eq!(groups.len(), 2);
        assert_eq!(groups.iter().map(|s| s.count()).sum::<usize>(), 6);
        assert!(g.hash(&[stones, CellSet::EMPTY]) != g.hash(&[CellSet::EMPTY, stones]));
    }
}
