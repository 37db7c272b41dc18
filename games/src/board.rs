//! The Hex board: geometry, cell names, and a union-find that tells in
//! near-constant time whether a placement joins a player's two sides.

use std::fmt::Write as _;

use crate::error::GameError;

/// Columns are named by one letter, so a side is at most 26 cells.
pub const MAX_SIDE: usize = 26;
pub const MAX_CELLS: usize = MAX_SIDE * MAX_SIDE;

pub const BLACK: usize = 0;
pub const WHITE: usize = 1;

const NORTH: u8 = 1;
const SOUTH: u8 = 2;
const WEST: u8 = 4;
const EAST: u8 = 8;
/// In `Slot::flags`, beside the sides: the stone's owner's opponent has seen it.
const REVEALED: u8 = 16;
const SIDES: u8 = NORTH | SOUTH | WEST | EAST;

/// Rows and columns of a board, with the conventions of DESIGN.md: cell id
/// `r * cols + c`, Black (player 0) joins row 0 to the last row, White joins
/// column 0 to the last column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dims {
    rows: u8,
    cols: u8,
}

impl Dims {
    /// The 3x3 board of tic-tac-toe.
    pub const THREE_BY_THREE: Dims = Dims { rows: 3, cols: 3 };

    /// `game` names the game in the error message.
    pub fn new(game: &str, rows: usize, cols: usize) -> Result<Self, GameError> {
        for (param, v) in [("num_rows", rows), ("num_cols", cols)] {
            if !(1..=MAX_SIDE).contains(&v) {
                return Err(GameError::BadValue {
                    game: game.to_string(),
                    param: param.to_string(),
                    value: v.to_string(),
                    accepted: format!("integers from 1 to {MAX_SIDE}"),
                });
            }
        }
        Ok(Dims {
            rows: rows as u8,
            cols: cols as u8,
        })
    }

    pub fn rows(self) -> usize {
        self.rows as usize
    }

    pub fn cols(self) -> usize {
        self.cols as usize
    }

    pub fn cells(self) -> usize {
        self.rows() * self.cols()
    }

    pub fn cell(self, row: usize, col: usize) -> usize {
        row * self.cols() + col
    }

    pub fn row_col(self, cell: usize) -> (usize, usize) {
        (cell / self.cols(), cell % self.cols())
    }

    /// The cell the 180-degree rotation maps `cell` to; it keeps each
    /// player's pair of sides, so positions and their images have equal value.
    pub fn rotate180(self, cell: usize) -> usize {
        self.cells() - 1 - cell
    }

    /// Neighbours in the order (r-1,c) (r-1,c+1) (r,c-1) (r,c+1) (r+1,c-1) (r+1,c).
    pub fn neighbours(self, cell: usize) -> impl Iterator<Item = usize> {
        let (r, c) = self.row_col(cell);
        self.neighbours_or_self(r, c)
            .into_iter()
            .filter(move |&n| n != cell)
    }

    /// The six neighbour slots of the cell at row `r`, column `c`, in the
    /// order of [`Dims::neighbours`], with the cell itself standing in for
    /// those off the board: a placement visits all six without a test per
    /// direction (on small boards most cells lie on an edge, and those tests
    /// mispredict), and the stand-in is harmless where its caller's test
    /// fails or finds the cell's own root.
    fn neighbours_or_self(self, r: usize, c: usize) -> [usize; 6] {
        let cols = self.cols();
        let cell = r * cols + c;
        let up = r > 0;
        let down = r + 1 < self.rows();
        let left = c > 0;
        let right = c + 1 < cols;
        let pick = |on: bool, n: usize| if on { n } else { cell };
        [
            pick(up, cell.wrapping_sub(cols)),
            pick(up && right, cell.wrapping_sub(cols).wrapping_add(1)),
            pick(left, cell.wrapping_sub(1)),
            pick(right, cell + 1),
            pick(down && left, (cell + cols).wrapping_sub(1)),
            pick(down, cell + cols),
        ]
    }

    /// Which sides the cell touches, as seen by `player`.
    fn sides_touched(self, cell: usize, player: usize) -> u8 {
        let (r, c) = self.row_col(cell);
        self.sides_at(r, c, player)
    }

    /// [`Dims::sides_touched`] of the cell at row `r`, column `c`.
    fn sides_at(self, r: usize, c: usize, player: usize) -> u8 {
        if player == BLACK {
            (if r == 0 { NORTH } else { 0 }) | (if r + 1 == self.rows() { SOUTH } else { 0 })
        } else {
            (if c == 0 { WEST } else { 0 }) | (if c + 1 == self.cols() { EAST } else { 0 })
        }
    }

    /// `a1` is cell 0; the letter is the column, the number the row.
    pub fn cell_name(self, cell: usize) -> String {
        let (r, c) = self.row_col(cell);
        format!("{}{}", (b'a' + c as u8) as char, r + 1)
    }

    pub fn parse_cell(self, text: &str) -> Result<usize, GameError> {
        let t = text.trim().to_ascii_lowercase();
        let last_col = (b'a' + self.cols - 1) as char;
        let expected = format!(
            "a cell name from a1 to {last_col}{} (column letter, then row number)",
            self.rows
        );
        let bad = || GameError::BadMove {
            text: text.to_string(),
            expected: expected.clone(),
        };
        let mut chars = t.chars();
        let letter = chars.next().ok_or_else(bad)?;
        let digits = chars.as_str();
        if !letter.is_ascii_lowercase() || digits.is_empty() {
            return Err(bad());
        }
        let row: usize = digits.parse().map_err(|_| bad())?;
        let col = (letter as u8 - b'a') as usize;
        if col >= self.cols() || row == 0 || row > self.rows() {
            return Err(bad());
        }
        Ok(self.cell(row - 1, col))
    }

    /// Draws a board as a rhombus with cell names on the axes; `glyph` gives
    /// the character of each cell.
    pub fn render(self, glyph: impl FnMut(usize) -> char) -> String {
        self.draw(true, glyph)
    }

    /// Draws a square board (tic-tac-toe's) with cell names on the axes.
    pub fn render_square(self, glyph: impl FnMut(usize) -> char) -> String {
        self.draw(false, glyph)
    }

    fn draw(self, rhombus: bool, mut glyph: impl FnMut(usize) -> char) -> String {
        let mut out = String::new();
        let header: String = (0..self.cols())
            .map(|c| format!(" {}", (b'a' + c as u8) as char))
            .collect();
        let _ = writeln!(out, "   {header}");
        for r in 0..self.rows() {
            let indent = if rhombus { r } else { 0 };
            let _ = write!(out, "{}{:>2} ", " ".repeat(indent), r + 1);
            for c in 0..self.cols() {
                let _ = write!(out, " {}", glyph(self.cell(r, c)));
            }
            out.push('\n');
        }
        out
    }
}

/// The character for a stone of `player` (`x` Black, `o` White), as OpenSpiel draws them.
pub fn stone_glyph(player: usize) -> char {
    if player == BLACK { 'x' } else { 'o' }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Slot {
    /// Union-find parent; a root is its own parent.
    parent: u16,
    /// 0 empty, 1 Black, 2 White.
    stone: u8,
    /// Sides touched by the group (valid at roots), and `REVEALED`.
    flags: u8,
}

/// Stones on a board, grouped into connected chains by a union-find whose
/// roots carry the sides their chain touches.
#[derive(Debug, PartialEq, Eq)]
pub struct HexBoard {
    dims: Dims,
    slots: Vec<Slot>,
}

impl Clone for HexBoard {
    fn clone(&self) -> Self {
        HexBoard {
            dims: self.dims,
            slots: self.slots.clone(),
        }
    }

    // Tree walks clone into a reused buffer; this keeps that allocation-free.
    fn clone_from(&mut self, source: &Self) {
        self.dims = source.dims;
        self.slots.clone_from(&source.slots);
    }
}

impl HexBoard {
    pub fn new(dims: Dims) -> Self {
        let slots = (0..dims.cells())
            .map(|i| Slot {
                parent: i as u16,
                stone: 0,
                flags: 0,
            })
            .collect();
        HexBoard { dims, slots }
    }

    pub fn dims(&self) -> Dims {
        self.dims
    }

    /// The player whose stone is on `cell`, if any.
    pub fn stone(&self, cell: usize) -> Option<usize> {
        match self.slots[cell].stone {
            0 => None,
            s => Some(s as usize - 1),
        }
    }

    pub fn is_empty(&self, cell: usize) -> bool {
        self.slots[cell].stone == 0
    }

    fn find(&mut self, mut cell: usize) -> usize {
        // Path halving: every visited node skips to its grandparent.
        while self.slots[cell].parent as usize != cell {
            let grand = self.slots[self.slots[cell].parent as usize].parent;
            self.slots[cell].parent = grand;
            cell = grand as usize;
        }
        cell
    }

    /// Whether a stone of `player` on the empty `cell` would join the
    /// player's sides, without placing it (searches that try many cells
    /// need not copy the board).
    pub fn would_join(&self, cell: usize, player: usize) -> bool {
        let stone = player as u8 + 1;
        let mut sides = self.dims.sides_touched(cell, player);
        for n in self.dims.neighbours(cell) {
            if self.slots[n].stone == stone {
                let mut root = n;
                while self.slots[root].parent as usize != root {
                    root = self.slots[root].parent as usize;
                }
                sides |= self.slots[root].flags & SIDES;
            }
        }
        sides == NORTH | SOUTH || sides == WEST | EAST
    }

    /// Puts a stone of `player` on the empty `cell`; returns true when this
    /// stone's chain now touches both of the player's sides.
    pub fn place(&mut self, cell: usize, player: usize) -> bool {
        debug_assert!(self.is_empty(cell));
        let stone = player as u8 + 1;
        let dims = self.dims;
        let (r, c) = dims.row_col(cell);
        let mut sides = dims.sides_at(r, c, player);
        self.slots[cell].stone = stone;
        // The cell's own stone is down and it is its own root, so a
        // stand-in for an off-board neighbour changes nothing.
        for n in dims.neighbours_or_self(r, c) {
            if self.slots[n].stone == stone {
                let root = self.find(n);
                if root != cell {
                    sides |= self.slots[root].flags & SIDES;
                    self.slots[root].parent = cell as u16;
                }
            }
        }
        self.slots[cell].parent = cell as u16;
        self.slots[cell].flags = sides;
        sides == NORTH | SOUTH || sides == WEST | EAST
    }

    /// Marks the stone on `cell` as seen by the opponent of its owner (Dark
    /// Hex: only the opponent can discover a stone, so one bit is enough).
    pub fn reveal(&mut self, cell: usize) {
        self.slots[cell].flags |= REVEALED;
    }

    pub fn is_revealed(&self, cell: usize) -> bool {
        self.slots[cell].flags & REVEALED != 0
    }

    /// Whether `player` has a chain joining their sides, found by a breadth-first
    /// search; the test oracle for the union-find, and used on setup positions.
    pub fn connected_by_search(&self, player: usize) -> bool {
        let dims = self.dims;
        let stone = player as u8 + 1;
        let start_side = if player == BLACK { NORTH } else { WEST };
        let goal_side = if player == BLACK { SOUTH } else { EAST };
        let mut seen = vec![false; dims.cells()];
        let mut queue: Vec<usize> = (0..dims.cells())
            .filter(|&c| {
                self.slots[c].stone == stone && dims.sides_touched(c, player) & start_side != 0
            })
            .collect();
        for &c in &queue {
            seen[c] = true;
        }
        while let Some(c) = queue.pop() {
            if dims.sides_touched(c, player) & goal_side != 0 {
                return true;
            }
            for n in dims.neighbours(c) {
                if !seen[n] && self.slots[n].stone == stone {
                    seen[n] = true;
                    queue.push(n);
                }
            }
        }
        false
    }

    /// Draws the board; `x` Black, `o` White, `.` empty.
    pub fn render(&self) -> String {
        self.dims.render(|c| self.stone(c).map_or('.', stone_glyph))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_names_round_trip() {
        let d = Dims::new("hex", 3, 4).unwrap();
        assert_eq!(d.cell_name(0), "a1");
        assert_eq!(d.cell_name(d.cols() + 1), "b2");
        for c in 0..d.cells() {
            assert_eq!(d.parse_cell(&d.cell_name(c)).unwrap(), c);
        }
        assert!(d.parse_cell("e1").is_err());
        assert!(d.parse_cell("a4").is_err());
        assert!(d.parse_cell("a0").is_err());
        assert!(d.parse_cell("").is_err());
        assert!(d.parse_cell("1a").is_err());
        assert!(d.parse_cell("a99999999999999999999999").is_err());
    }

    #[test]
    fn neighbours_follow_the_convention() {
        let d = Dims::new("hex", 3, 3).unwrap();
        let centre: Vec<_> = d.neighbours(4).collect();
        assert_eq!(centre, vec![1, 2, 3, 5, 6, 7]);
        let corner: Vec<_> = d.neighbours(0).collect();
        assert_eq!(corner, vec![1, 3]);
    }

    #[test]
    fn a_straight_column_joins_north_and_south() {
        let d = Dims::new("hex", 3, 3).unwrap();
        let mut b = HexBoard::new(d);
        assert!(!b.place(d.cell(0, 1), BLACK));
        assert!(!b.place(d.cell(2, 1), BLACK));
        assert!(b.place(d.cell(1, 1), BLACK));
        assert!(b.connected_by_search(BLACK));
        assert!(!b.connected_by_search(WHITE));
    }

    #[test]
    fn sizes_out_of_range_are_refused() {
        assert!(Dims::new("hex", 0, 3).is_err());
        assert!(Dims::new("hex", 3, 27).is_err());
        assert!(Dims::new("hex", 26, 26).is_ok());
    }
}
