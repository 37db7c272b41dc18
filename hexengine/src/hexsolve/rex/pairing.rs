//! Pairing strategies (Solrex, section 4; Hayward, Toft and Henderson,
//! "How to play Reverse Hex", 2012).
//!
//! A pairing splits a set of empty cells into pairs; a player who answers
//! the opponent's move in a pair with its mate colours at most one cell of
//! each pair, whoever moves first (theorem 2.1), so the opponent ends with
//! at least one. An *X-join pairing* is one where X colouring a cell of
//! each pair joins X's sides: X's opponent then forces X to join, and X
//! loses. In Hex terms it is a full connection whose every carrier cell
//! comes in a pair, and H-search finds such connections when its OR rule
//! combines exactly two semis with disjoint carriers, their keys becoming
//! a pair ([`crate::hexsolve::vc::VcParams::pairings`]): the AND rule
//! joins pairings side by side, the two-semi OR adds the pair of keys.
//! A *pre-join pairing* is a key cell with an X-join pairing of the
//! position where X owns the key: an H-search semi.
//!
//! Unlike Hex, where a side-to-side connection wins for its owner, here it
//! loses for its owner, and a semi decides only with the right parity.

use darkhex_games::{CellSet, Geometry};

use crate::hexsolve::position::Stones;
use crate::hexsolve::vc::VcSet;

/// What a position's pairing strategies say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict<const W: usize> {
    MoverLoses,
    /// With a winning move, when the position has one to play.
    MoverWins(Option<usize>),
    /// Undecided; `losing` are moves shown to lose.
    Open {
        losing: CellSet<W>,
    },
}

/// Rule (theorem 4.1; theorem 7 of Hayward et al.): a player with a join
/// pairing loses, whoever moves: the opponent answers in each pair and
/// plays outside the pairing otherwise, so the player ends with a cell of
/// every pair, which joins their sides. Returns the carrier of the
/// smallest one of `vcs`'s player.
pub fn join_pairing<const W: usize>(vcs: &VcSet<W>) -> Option<CellSet<W>> {
    vcs.smallest_edge_full()
}

/// Rule (theorem 4.2; theorem 6 of Hayward et al.): a player with a
/// pre-join pairing who is Last loses, whoever moves: the opponent never
/// plays the key and answers in the pairs, and Last, who colours the last
/// cell, ends up colouring the key too. Returns the carrier (key included)
/// of the smallest pre-join pairing of `vcs`'s player; the caller checks
/// that this player is Last.
pub fn pre_join_pairing<const W: usize>(vcs: &VcSet<W>) -> Option<CellSet<W>> {
    vcs.edge_semis()
        .map(|(c, key)| c.with(key))
        .min_by_key(|c| c.count())
}

/// Rule (theorem 4.1 again, one move ahead): the key of a pre-join pairing
/// of the player to move loses for them, as it gives them a join pairing.
/// Solrex prunes these keys. Returns every such key of `vcs`'s player.
pub fn own_keys<const W: usize>(vcs: &VcSet<W>) -> CellSet<W> {
    vcs.edge_semis().map(|(_, key)| key).collect()
}

/// What the pairing strategies of the player to move say, before the
/// opponent's are built (when they decide, those are not needed); `last`:
/// whether the player to move is Last.
pub fn decide_own<const W: usize>(mine: &VcSet<W>, last: bool) -> Option<Verdict<W>> {
    if join_pairing(mine).is_some() || (last && pre_join_pairing(mine).is_some()) {
        return Some(Verdict::MoverLoses);
    }
    None
}

/// The verdict of both players' pairing strategies on `empty` cells, once
/// [`decide_own`] said nothing: `mine` are the connections of the player
/// to move, `theirs` the opponent's.
pub fn decide<const W: usize>(
    mine: &VcSet<W>,
    theirs: &VcSet<W>,
    empty: CellSet<W>,
    last: bool,
) -> Verdict<W> {
    if let Some(v) = decide_own(mine, last) {
        return v;
    }
    let exact = theirs.exact_carriers();
    if join_pairing(theirs).is_some() {
        // A move outside the pairing keeps it; when every empty cell is in
        // it, any move does (the opponent, Last then, is the one who must
        // open the last pair). A carrier that may hold more than its
        // pairing names no move then, unless another full does.
        let outside = theirs
            .fulls(theirs.side(0), theirs.side(1))
            .find_map(|c| (empty - c).first());
        let any = if exact { empty.first() } else { None };
        // The value holds all the same (theorem 4.1), without a move named.
        return Verdict::MoverWins(outside.or(any));
    }
    if !last
        && let Some(m) = theirs
            .edge_semis()
            .find_map(|(c, key)| (empty - c.with(key)).first())
    {
        // The opponent is Last; a move outside the pairing and its key
        // keeps it (there is one when the carrier is exactly the pairing
        // and key: an even number of cells is empty, they an odd number).
        return Verdict::MoverWins(Some(m));
    }
    Verdict::Open {
        losing: own_keys(mine),
    }
}

/// Whether `player` colouring at least one cell of each of `pairs` (and
/// nothing else of the empty cells) joins their sides, however the
/// opponent owns the rest of the board: the claim of a join pairing,
/// checked by trying each choice of one cell a pair with every other empty
/// cell the opponent's.
pub fn is_join_pairing<const W: usize>(
    geom: &Geometry<W>,
    stones: &Stones<W>,
    player: usize,
    pairs: &[(usize, usize)],
) -> bool {
    let empty = geom.all() - stones[0] - stones[1];
    if pairs.len() >= 32
        || pairs
            .iter()
            .any(|&(a, b)| !empty.contains(a) || !empty.contains(b))
    {
        return false;
    }
    (0u32..1 << pairs.len()).all(|choice| {
        let mut mine = stones[player];
        for (i, &(a, b)) in pairs.iter().enumerate() {
            mine.insert(if choice >> i & 1 == 0 { a } else { b });
        }
        geom.connected(mine, player)
    })
}

/// A join pairing of `player` made of the cells of `carrier`, found by
/// trying every way of pairing them (small carriers only: tests use it to
/// hold H-search's claims to what they mean).
pub fn find_join_pairing<const W: usize>(
    geom: &Geometry<W>,
    stones: &Stones<W>,
    player: usize,
    carrier: CellSet<W>,
) -> Option<Vec<(usize, usize)>> {
    /// Whether a full pairing holds.
    type Check<'a> = dyn Fn(&[(usize, usize)]) -> bool + 'a;
    fn pair_up<const W: usize>(
        left: CellSet<W>,
        pairs: &mut Vec<(usize, usize)>,
        ok: &Check<'_>,
    ) -> bool {
        let Some(a) = left.first() else {
            return ok(pairs);
        };
        let rest = left.without(a);
        for b in rest.iter() {
            pairs.push((a, b));
            if pair_up(rest.without(b), pairs, ok) {
                return true;
            }
            pairs.pop();
        }
        false
    }
    if carrier.count() % 2 == 1 {
        return None;
    }
    let mut pairs = Vec::new();
    let ok = |p: &[(usize, usize)]| is_join_pairing(geom, stones, player, p);
    pair_up(carrier, &mut pairs, &ok).then_some(pairs)
}
