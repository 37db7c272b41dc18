//! Rex's preference orders (Solrex, theorems 3.5 to 3.7): pairs of moves
//! where one is at least as good as the other for the player to move, so
//! the other can be left out of the search. Each is an arc x -> y, "y is
//! at least as good as x"; [`super::super::inferior::prune_dominated`]
//! keeps one move of each set of moves that dominate each other.
//!
//! In Hex the order goes the other way: a killer, a capturer and the
//! opponent's killer are the good moves there (an extra stone helps its
//! owner), and the victim or vulnerable cell is pruned. In Rex a stone
//! that kills or captures only gives its owner more of a chain they do not
//! want, so the cell that suffers it is the better move.

use darkhex_games::{CellSet, Geometry};

use crate::hexsolve::inferior::{captured_around, kills};
use crate::hexsolve::position::Stones;

/// Rule (theorem 3.5, "prefer victim to killer"): if `player`'s stone on k
/// kills c, then c is at least as good a move for `player` as k. After k
/// the opponent may as well play the dead c (theorem 3.4), giving
/// S + P[k] + P[c] (c's colour does not matter) with P to move, which is
/// no better for P than S + P[c] with the opponent to move (theorem 3.2: an
/// extra stone of one's own, with the turn handed over, never helps in
/// Rex). `own_kills` are `player`'s kills.
pub fn victim_over_killer<const W: usize>(
    own_kills: &[CellSet<W>],
    candidates: CellSet<W>,
    arcs: &mut [Vec<usize>],
) {
    for k in candidates.iter() {
        for c in (own_kills[k] & candidates).without(k).iter() {
            arcs[k].push(c);
        }
    }
}

/// Rule (theorem 3.6, "prefer vulnerable to opponent killer"): if the
/// opponent's stone on k kills c, then c is at least as good a move for
/// the player as k: a strategy that wins after the player's k wins after
/// the player's c with k and c swapped in it, since every opponent chain
/// through c then passes through k as well. `their_kills` are the
/// opponent's kills.
pub fn vulnerable_over_opponent_killer<const W: usize>(
    their_kills: &[CellSet<W>],
    candidates: CellSet<W>,
    arcs: &mut [Vec<usize>],
) {
    victim_over_killer(their_kills, candidates, arcs);
}

/// Rule (theorem 3.7, "prefer capturee to capturer"): if `player`'s stone
/// on c makes a set C captured by `player` (a pair here: `player`'s stone
/// on either cell kills the other), each cell c' of C is at least as good
/// a move as c: S + P[c] equals S + P[c] + P[C] (corollary 1), which is
/// S + P[c'] with the even set C - c' + c added for P, and adding an even
/// set for a player never helps them (theorem 3.1).
pub fn capturee_over_capturer<const W: usize>(
    geom: &Geometry<W>,
    stones: &Stones<W>,
    player: usize,
    candidates: CellSet<W>,
    arcs: &mut [Vec<usize>],
) {
    for c in candidates.iter() {
        let captured = captured_around(geom, stones, player, c);
        for x in (captured & candidates).without(c).iter() {
            arcs[c].push(x);
        }
    }
}

/// Every preference arc among `candidates` for `player` to move; `kills`
/// are each player's kills when known already.
pub fn arcs<const W: usize>(
    geom: &Geometry<W>,
    stones: &Stones<W>,
    player: usize,
    candidates: CellSet<W>,
    mut known: [Option<Vec<CellSet<W>>>; 2],
) -> Vec<Vec<usize>> {
    let mut arcs = vec![Vec::new(); geom.cells()];
    let mut kills_of = |p: usize| known[p].take().unwrap_or_else(|| kills(geom, stones, p));
    victim_over_killer(&kills_of(player), candidates, &mut arcs);
    vulnerable_over_opponent_killer(&kills_of(1 - player), candidates, &mut arcs);
    capturee_over_capturer(geom, stones, player, candidates, &mut arcs);
    arcs
}
