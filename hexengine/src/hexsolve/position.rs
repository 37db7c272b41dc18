//! A Hex or Rex position as two cell sets, the side to move, and the
//! Zobrist hash of its played stones (and of their 180-degree rotation, so
//! that a position and its image share one transposition-table entry).

use darkhex_games::board::{BLACK, WHITE};
use darkhex_games::{CellSet, Geometry};

/// The stones of both players, Black's first.
pub type Stones<const W: usize> = [CellSet<W>; 2];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position<const W: usize> {
    /// Stones as the game placed them (fill-in is kept apart: it changes no
    /// value, so it must not change the hash).
    pub played: Stones<W>,
    pub to_move: usize,
    hash: u64,
    rotated_hash: u64,
}

impl<const W: usize> Position<W> {
    pub fn new(geom: &Geometry<W>, played: Stones<W>, to_move: usize) -> Self {
        let rotated = [geom.rotate(played[0]), geom.rotate(played[1])];
        Position {
            played,
            to_move,
            hash: geom.hash(&played),
            rotated_hash: geom.hash(&rotated),
        }
    }

    /// The empty board, Black to move.
    pub fn empty(geom: &Geometry<W>) -> Self {
        Position::new(geom, [CellSet::EMPTY; 2], BLACK)
    }

    pub fn empty_cells(&self, geom: &Geometry<W>) -> CellSet<W> {
        geom.all() - self.played[0] - self.played[1]
    }

    /// The position after the side to move plays `cell`.
    pub fn play(&self, geom: &Geometry<W>, cell: usize) -> Self {
        let p = self.to_move;
        let mut next = *self;
        next.played[p].insert(cell);
        next.to_move = 1 - p;
        next.hash ^= geom.zobrist(cell, p);
        next.rotated_hash ^= geom.zobrist(geom.cells() - 1 - cell, p);
        next
    }

    /// The key shared by the position and its 180-degree rotation, with the
    /// side to move mixed in.
    pub fn key(&self) -> u64 {
        let side = if self.to_move == WHITE {
            0x9E37_79B9_7F4A_7C15
        } else {
            0
        };
        self.hash.min(self.rotated_hash) ^ side
    }

    /// Whether the table stores this position as its rotation: entries keep
    /// the orientation with the smaller hash, so moves read from an entry
    /// are turned when this is true.
    pub fn stored_rotated(&self) -> bool {
        self.hash > self.rotated_hash
    }

    /// Whether the position is its own 180-degree rotation.
    pub fn is_symmetric(&self, geom: &Geometry<W>) -> bool {
        self.hash == self.rotated_hash
            && geom.rotate(self.played[0]) == self.played[0]
            && geom.rotate(self.played[1]) == self.played[1]
    }
}

/// The player who has joined their sides with `stones`, if any.
pub fn joined<const W: usize>(geom: &Geometry<W>, stones: &Stones<W>) -> Option<usize> {
    [BLACK, WHITE]
        .into_iter()
        .find(|&p| geom.connected(stones[p], p))
}

/// The winner of a finished game: the joiner in Hex, the other player in Rex.
pub fn winner<const W: usize>(
    geom: &Geometry<W>,
    stones: &Stones<W>,
    misere: bool,
) -> Option<usize> {
    joined(geom, stones).map(|j| if misere { 1 - j } else { j })
}
