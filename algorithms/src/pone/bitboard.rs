//! PONE's view of a board of up to 64 cells: each cell set one word, with
//! the neighbourhood, flood and rotation of the shared board geometry.

use darkhex_games::CellSet;
use darkhex_games::board::Dims;

/// Bit sets over one board's cells (cell id = bit index).
#[derive(Clone, Debug)]
pub struct Geometry {
    pub dims: Dims,
    pub all: u64,
    board: darkhex_games::Geometry<1>,
}

/// Boards with more cells do not fit a word.
pub const MAX_CELLS: usize = 64;

fn set(s: u64) -> CellSet<1> {
    CellSet([s])
}

fn word(s: CellSet<1>) -> u64 {
    s.0[0]
}

impl Geometry {
    /// `None` for boards of more than 64 cells.
    pub fn new(dims: Dims) -> Option<Geometry> {
        let board = darkhex_games::Geometry::<1>::new(dims)?;
        Some(Geometry {
            dims,
            all: word(board.all()),
            board,
        })
    }

    /// The set and every cell adjacent to it.
    #[inline]
    pub fn dilate(&self, s: u64) -> u64 {
        word(self.board.dilate(set(s)))
    }

    /// The stones of `stones` connected to `seed` through `stones`.
    #[inline]
    pub fn flood(&self, seed: u64, stones: u64) -> u64 {
        word(self.board.flood(set(seed), set(stones)))
    }

    /// The two sides `player` joins (Black rows, White columns).
    pub fn sides(&self, player: usize) -> (u64, u64) {
        let [a, b] = self.board.sides(player);
        (word(a), word(b))
    }

    #[inline]
    pub fn connected(&self, stones: u64, player: usize) -> bool {
        self.board.connected(set(stones), player)
    }

    /// Cells of `empty` that would join `player`'s sides if `player` took one.
    pub fn joining_cells(&self, stones: u64, empty: u64, player: usize) -> u64 {
        let (a, b) = self.sides(player);
        let from_a = self.dilate(self.flood(a, stones)) | a;
        let from_b = self.dilate(self.flood(b, stones)) | b;
        from_a & from_b & empty
    }

    /// The cell set turned by 180 degrees, which keeps each player's sides.
    #[inline]
    pub fn rotate(&self, s: u64) -> u64 {
        word(self.board.rotate(set(s)))
    }
}

/// Every subset of `pool` with `k` elements, as masks.
pub fn subsets(pool: u64, k: u32, mut f: impl FnMut(u64)) {
    let bits: Vec<u64> = (0..64)
        .filter(|i| pool >> i & 1 == 1)
        .map(|i| 1u64 << i)
        .collect();
    let n = bits.len();
    if k as usize > n {
        return;
    }
    // Gosper's hack over indices into `bits`.
    if k == 0 {
        f(0);
        return;
    }
    let mut comb: u64 = (1u64 << k) - 1;
    let limit: u64 = if n == 64 { u64::MAX } else { 1u64 << n };
    while comb < limit {
        let mut mask = 0;
        let mut c = comb;
        while c != 0 {
            mask |= bits[c.trailing_zeros() as usize];
            c &= c - 1;
        }
        f(mask);
        let low = comb & comb.wrapping_neg();
        let ripple = comb + low;
        if ripple == 0 {
            break;
        }
        comb = (((ripple ^ comb) >> 2) / low) | ripple;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use darkhex_games::board::{Dims, HexBoard};

    #[test]
    fn dilation_matches_the_board_neighbours() {
        for (r, c) in [(1, 1), (1, 5), (5, 1), (3, 4), (4, 3), (8, 8)] {
            let dims = Dims::new("hex", r, c).unwrap();
            let g = Geometry::new(dims).unwrap();
            for cell in 0..dims.cells() {
                let mut want: u64 = 1 << cell;
                for n in dims.neighbours(cell) {
                    want |= 1 << n;
                }
                assert_eq!(g.dilate(1 << cell), want, "{r}x{c} cell {cell}");
            }
        }
    }

    #[test]
    fn connection_agrees_with_the_board() {
        let dims = Dims::new("hex", 3, 4).unwrap();
        let g = Geometry::new(dims).unwrap();
        // Every colouring of a 3x4 board: exactly one side joined, as the board says.
        for mask in 0u64..(1 << 12) {
            let mut b = HexBoard::new(dims);
            for cell in 0..12 {
                b.place(cell, if mask >> cell & 1 == 1 { 0 } else { 1 });
            }
            let black = mask;
            let white = !mask & g.all;
            assert_eq!(g.connected(black, 0), b.connected_by_search(0));
            assert_eq!(g.connected(white, 1), b.connected_by_search(1));
        }
    }

    #[test]
    fn joining_cells_complete_a_chain() {
        let dims = Dims::new("hex", 3, 3).unwrap();
        let g = Geometry::new(dims).unwrap();
        let black = 1 << dims.cell(0, 1) | 1 << dims.cell(2, 1);
        let empty = g.all & !black;
        let join = g.joining_cells(black, empty, 0);
        for cell in 0..9 {
            let joins = g.connected(black | 1 << cell, 0) && empty >> cell & 1 == 1;
            assert_eq!(join >> cell & 1 == 1, joins, "cell {cell}");
        }
    }

    #[test]
    fn subsets_are_all_there() {
        let mut seen = Vec::new();
        subsets(0b1011_0100, 2, |m| seen.push(m));
        seen.sort();
        assert_eq!(
            seen,
            vec![
                0b0001_0100,
                0b0010_0100,
                0b0011_0000,
                0b1000_0100,
                0b1001_0000,
                0b1010_0000
            ]
        );
        let mut count = 0;
        subsets(0xFFFF, 8, |_| count += 1);
        assert_eq!(count, 12870);
        let mut zero = Vec::new();
        subsets(0b111, 0, |m| zero.push(m));
        assert_eq!(zero, vec![0]);
    }
}
