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
//! - Mutual fill-in ([`mutual_fill`]) gives one cell to each player, two
//!   cells in all, so parity is kept; Hex's version rests on an extra
//!   stone never hurting its owner, and here a pairing does that work.

use darkhex_games::board::{BLACK, WHITE};
use darkhex_games::{CellSet, Geometry};

use super::rules::RexRules;
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
    /// Each mutual fill-in, `[c, p, q]` (see [`mutual_fill`]).
    pub mutual: Vec<[usize; 3]>,
    /// The fill-in and dead cells as they were before the first mutual
    /// fill-in, when there was one: what the positions after a move may
    /// take over. Mutual fill-in holds only while its cell c is empty, and
    /// fill-in found after it may rest on it.
    pub heritable: Option<([CellSet<W>; 2], CellSet<W>)>,
}

impl<const W: usize> FillIn<W> {
    /// A move of the filled position as a move of the position itself:
    /// the cell c of a mutual fill-in stands for the mover's cell of it
    /// (p for Black, q for White), as in [`mutual_fill`]'s proof; every
    /// other move is itself.
    pub fn real_move(&self, m: usize, mover: usize) -> usize {
        match self.mutual.iter().find(|t| t[0] == m) {
            Some(&[_, p, q]) => {
                if mover == BLACK {
                    p
                } else {
                    q
                }
            }
            None => m,
        }
    }
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

/// Rule (mutual fill-in; Solrex, theorem 3.8, in the form Solrex applies
/// through Benzene's mutual fill-in patterns: a cell either player may
/// own, and one cell for each player around it): empty cells c, p, q such
/// that Black's stone on c kills p, White's stone on c kills q, and c is
/// dead once p is Black's and q White's. Then colouring p Black and q
/// White changes no value, whoever is to move. Returns `[c, p, q]`.
///
/// Proof, with T the position with p Black and q White (the same player
/// to move; two cells fewer, so the same player is Last). Say Black wins T
/// with a strategy s. In the position itself, Black plays s with p
/// standing for T's c, and answers White's move on c or q with the other
/// one of the two (a pairing, theorem 2.1). When the board is full, White
/// owns c or q. White has joined in T's end, and without c, which is dead
/// in T; White owns all of that here too (p for c), q aside: if White owns
/// q, White has joined; if White owns c, q is dead (White's stone on c
/// kills it, and a dead cell stays dead), so White has joined without it.
/// So Black wins. Colours swapped, the same holds for White, and each
/// player winning T wins the position: they are equal. A move m other
/// than c wins in the position exactly when it wins in T (the conditions
/// hold after m too); c itself stands for p (Black's) or q (White's): the
/// strategy above plays p where s plays c.
///
/// In Hex a cell is filled for the player it would help, which rests on
/// an extra stone never hurting its owner; Rex has no such monotonicity,
/// and the pairing {c, q} (for Black; {c, p} for White) does the work.
/// `kills[x][y]`: what player x's stone on y kills.
pub fn mutual_fill<const W: usize>(
    geom: &Geometry<W>,
    stones: &Stones<W>,
    kills: [&[CellSet<W>]; 2],
) -> Option<[usize; 3]> {
    let empty = geom.all() - stones[0] - stones[1];
    for c in empty.iter() {
        for p in kills[BLACK][c].iter() {
            for q in kills[WHITE][c].without(p).iter() {
                let mut t = *stones;
                t[BLACK].insert(p);
                t[WHITE].insert(q);
                if dead_cells(geom, &t).contains(c) {
                    return Some([c, p, q]);
                }
            }
        }
    }
    None
}

/// Fill-in to a fixpoint, `to_move` to play: even sets of dead cells, then
/// captured pairs of either player, then mutual fill-in, again and again.
/// Stops at a lone dead cell when [`RexRules::dead_move`] will make it the
/// only move.
pub fn fill_in<const W: usize>(
    geom: &Geometry<W>,
    filled: &mut Stones<W>,
    fill: &mut [CellSet<W>; 2],
    dead_filled: &mut CellSet<W>,
    to_move: usize,
    rules: &RexRules,
) -> FillIn<W> {
    let mut out = FillIn::default();
    let put = |filled: &mut Stones<W>,
               fill: &mut [CellSet<W>; 2],
               cells: CellSet<W>,
               colour: usize,
               out: &mut FillIn<W>| {
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
                put(filled, fill, even, 1 - to_move, &mut out);
                continue;
            }
            out.lone_dead = dead.first();
            if out.lone_dead.is_some() && rules.dead_move {
                return out;
            }
        }
        if !rules.capture_fill && !rules.mutual_fill {
            break;
        }
        let empty = geom.all() - filled[0] - filled[1];
        for p in [to_move, 1 - to_move] {
            let k = kills(geom, filled, p);
            if rules.capture_fill
                && let Some(pair) = captured_pair_fill(empty, &k)
            {
                put(filled, fill, pair, p, &mut out);
                continue 'fill;
            }
            out.kills[p] = Some(k);
        }
        if rules.mutual_fill
            && let [Some(black), Some(white)] = &out.kills
            && let Some([c, p, q]) = mutual_fill(geom, filled, [black, white])
        {
            if out.heritable.is_none() {
                out.heritable = Some((*fill, *dead_filled));
            }
            out.mutual.push([c, p, q]);
            put(filled, fill, CellSet::single(p), BLACK, &mut out);
            put(filled, fill, CellSet::single(q), WHITE, &mut out);
            continue 'fill;
        }
        break;
    }
    out
}
