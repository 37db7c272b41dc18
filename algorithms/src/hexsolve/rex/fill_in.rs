//! Rex fill-in: cells whose colouring changes no value (Solrex, section 3).
//!
//! A cell is *dead* when it is in no minimal set of empty cells whose
//! colouring joins a player's sides: its colour never decides who joins.
//! That is geometry, the same in Hex and Rex ([`dead_cells`]), and so are
//! the kill tests. What differs is what may be filled in:
//!
//! - Hex fills in any number of dead cells; in Rex a filled cell also
//!   removes a turn, and the value hangs on parity (who is Last), so only
//!   an even number of them goes ([`even_dead_fill`]), and one left over
//!   is the only move worth searching (theorem 3.4, applied in
//!   [`super::examine`]).
//! - Hex fills a captured set for the player who captures it, the player
//!   with a strategy inside it. In Rex the strategy belongs to the other
//!   player, who answers in each pair and so forces the captor to take one
//!   cell of every pair ([`captured_pair_fill`]).

use darkhex_games::{CellSet, Geometry};

use super::RexRules;
use crate::hexsolve::inferior::{captured_pair, clique_cutset_dead, dead_cells, kills};
use crate::hexsolve::position::{Stones, joined};

/// What [`fill_in`] did.
#[derive(Clone, Debug, Default)]
pub struct FillIn<const W: usize> {
    /// Cells filled in.
    pub filled: usize,
    /// A dead cell left empty when their number was odd.
    pub lone_dead: Option<usize>,
    /// Each player's kills (`kills[p][y]`: what `p`'s stone on y kills) in
    /// the final position, when they were computed there.
    pub kills: [Option<Vec<CellSet<W>>>; 2],
}

/// Rule (theorem 3.1 with dead cells): an even number of dead cells is
/// filled in. Theorem 3.1 says colouring an even set of cells for the
/// opponent never hurts a player; a dead cell's colour changes no value,
/// so colouring an even set of dead cells, either colour, changes none.
/// Returns the cells filled (all of `dead` but its first cell when their
/// number is odd).
pub fn even_dead_fill<const W: usize>(dead: CellSet<W>) -> CellSet<W> {
    if dead.count() % 2 == 1 {
        dead.without(dead.first().expect("an odd set has a cell"))
    } else {
        dead
    }
}

/// Rule (theorem 3.3, corollary 1): a pair {x, y} of empty cells where
/// `player`'s stone on either kills the other is captured by that player
/// (`player`-colouring one cell of the pair leaves the other dead), and
/// filling it for `player` changes no value. The opponent's pairing
/// strategy (answer x with y and y with x) forces `player` to take a cell
/// of the pair, after which the other is dead; colouring the pair for
/// `player` loses the opponent nothing, and theorem 3.1 (the pair is even)
/// says it loses `player` nothing either. `kills` are `player`'s.
pub fn captured_pair_fill<const W: usize>(
    empty: CellSet<W>,
    kills: &[CellSet<W>],
) -> Option<CellSet<W>> {
    captured_pair(empty, kills).map(|(x, y)| CellSet::single(x).with(y))
}

/// Fill-in to a fixpoint, `to_move` to play: even sets of dead cells, then
/// captured pairs of either player, again and again. Stops at a lone dead
/// cell when [`RexRules::dead_move`] will make it the only move.
pub fn fill_in<const W: usize>(
    geom: &Geometry<W>,
    filled: &mut Stones<W>,
    fill: &mut [CellSet<W>; 2],
    dead_filled: &mut CellSet<W>,
    to_move: usize,
    rules: &RexRules,
) -> FillIn<W> {
    let mut out = FillIn::default();
    let mut put =
        |filled: &mut Stones<W>, cells: CellSet<W>, colour: usize, out: &mut FillIn<W>| {
            filled[colour] |= cells;
            fill[colour] |= cells;
            out.filled += cells.count();
        };
    'fill: while joined(geom, filled).is_none() {
        out.kills = [None, None];
        out.lone_dead = None;
        if rules.dead_fill || rules.dead_move {
            let mut dead = dead_cells(geom, filled);
            if dead.is_empty() && rules.clique_cutsets {
                dead = clique_cutset_dead(geom, filled);
            }
            let even = if rules.dead_fill {
                even_dead_fill(dead)
            } else {
                CellSet::EMPTY
            };
            if !even.is_empty() {
                // The colour does not matter; the opponent's, as in Hex.
                *dead_filled |= even;
                put(filled, even, 1 - to_move, &mut out);
                continue;
            }
            out.lone_dead = dead.first();
            if out.lone_dead.is_some() && rules.dead_move {
                return out;
            }
        }
        if !rules.capture_fill {
            break;
        }
        let empty = geom.all() - filled[0] - filled[1];
        for p in [to_move, 1 - to_move] {
            let k = kills(geom, filled, p);
            if let Some(pair) = captured_pair_fill(empty, &k) {
                put(filled, pair, p, &mut out);
                continue 'fill;
            }
            out.kills[p] = Some(k);
        }
        break;
    }
    out
}
