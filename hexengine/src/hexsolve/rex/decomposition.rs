//! Regions sealed off by a pairing strategy (Solrex, section 5: "inferior
//! cell domination that comes from virtual connection decompositions"),
//! filled in when they hold an even number of empty cells.
//!
//! Take a player X, two of X's groups (or a group and one of X's sides) g1
//! and g2 joined by an X-join pairing of carrier K (an H-search full of
//! the pairing kind), and the region D of cells that reach K without
//! crossing g1, g2 or a stone of the opponent Y, touching no side of X but
//! through g1 and g2 ([`crate::hexsolve::decompose`] finds them, as for
//! Hex). Every chain of X through D then only joins g1 and g2.
//!
//! Rule: when D has an even number of empty cells, colouring all of them
//! X changes no value (S' below is S with them coloured).
//!
//! Proof. Rex ends on the full board, where exactly one player has joined
//! their sides, so only the final colouring counts. Pair D's empty cells:
//! K's pairs, and the others any way (their number is even too). Y, who
//! wins S' with a strategy s, plays s outside D and answers every move in
//! D with its mate; when only D is left the player to move opens a pair
//! and the other takes the mate, so X ends with a cell of each pair of K
//! (theorem 2.1) and g1 and g2 are joined inside D. Any chain of X in S'
//! that crosses D only joins g1 and g2, so X has joined in S as in S'.
//! X, who wins S' with s, plays s outside D and answers in D the same way;
//! X ends with no more cells than in S' (D being all X there), and had not
//! joined with those, so has not joined now. Both players keep their S'
//! result, and the turn order outside D is S''s, as the cells of D go in
//! pairs: S and S' are equal. A move m outside D leaves D sealed (no empty
//! cell outside D touches it), so S + m equals S' + m too, and a move that
//! wins S' wins S.
//!
//! In Hex a sealed region is filled for its owner whatever its size: an
//! extra stone never hurts there, and the region is worth nothing more to
//! X than the join. In Rex each filled cell also takes a turn away, and
//! who is Last decides, hence the even count; and the proof needs the
//! carrier's strategy to be a pairing, which Rex's H-search gives.

use darkhex_games::{CellSet, Geometry};

use crate::hexsolve::decompose::each_sealed_region;
use crate::hexsolve::position::Stones;
use crate::hexsolve::vc::VcSet;

/// The empty cells to colour for each player: regions sealed off by the
/// player's pairing strategies (`vcs[p]` are player p's, built on
/// `stones` with Rex's pairing H-search), each with an even number of
/// empty cells and disjoint from the others taken. Disjoint regions touch
/// no common empty cell, so colouring one leaves the others sealed and
/// their carriers whole, and the rule applies to each in turn.
pub fn sealed_even_regions<const W: usize>(
    geom: &Geometry<W>,
    stones: &Stones<W>,
    vcs: [&VcSet<W>; 2],
) -> [CellSet<W>; 2] {
    let mut taken = CellSet::EMPTY;
    let mut fill = [CellSet::EMPTY; 2];
    for (p, set) in vcs.into_iter().enumerate() {
        debug_assert_eq!(set.player(), p, "vcs[p] must be player p's");
        each_sealed_region(geom, stones, set, |cells| {
            if cells.is_empty() || cells.count() % 2 == 1 || cells.intersects(&taken) {
                return false;
            }
            taken |= cells;
            fill[p] |= cells;
            true
        });
    }
    fill
}
