//! Colour symmetry (Solrex, section 5): on a square board, reflecting a
//! position in a long diagonal and swapping the colours gives the same
//! game with the players' roles swapped. A position that is its own image
//! this way is won by Notlast, the player who does not colour the last
//! cell (the mover when an even number of cells is empty).
//!
//! Hex has nothing like it: there, such a position is won by whoever
//! moves, as in the empty board.

use darkhex_games::board::{BLACK, WHITE};
use darkhex_games::{CellSet, Geometry};

use crate::hexsolve::position::Stones;

/// The images of `cells` under the two colour-swapping reflections of a
/// square board (in the a1 diagonal, and in the other one); none on other
/// boards.
fn reflections<const W: usize>(geom: &Geometry<W>, cells: CellSet<W>) -> Option<[CellSet<W>; 2]> {
    let t = geom.transpose(cells)?;
    Some([t, geom.rotate(t)])
}

/// Rule: whether Black's stones are White's reflected in one of the long
/// diagonals; such a position is won by Notlast.
pub fn is_colour_symmetric<const W: usize>(geom: &Geometry<W>, stones: &Stones<W>) -> bool {
    reflections(geom, stones[WHITE]).is_some_and(|r| r.contains(&stones[BLACK]))
}

/// The moves of `player` after which the position is colour-symmetric:
/// they win when `player` is Notlast (the opponent, Last, moves into a
/// symmetric position), and lose when `player` is Last.
pub fn symmetric_moves<const W: usize>(
    geom: &Geometry<W>,
    stones: &Stones<W>,
    player: usize,
) -> CellSet<W> {
    let other = if player == BLACK { WHITE } else { BLACK };
    let Some(images) = reflections(geom, stones[other]) else {
        return CellSet::EMPTY;
    };
    let empty = geom.all() - stones[0] - stones[1];
    let mut moves = CellSet::EMPTY;
    for image in images {
        let missing = image - stones[player];
        if stones[player].is_subset(&image) && missing.count() == 1 {
            moves |= missing & empty;
        }
    }
    moves
}
