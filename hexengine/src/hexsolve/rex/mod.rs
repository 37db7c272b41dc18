//! Rex (reverse Hex: whoever joins their two sides loses) by the theorems
//! of Solrex (Young and Hayward, "A Reverse Hex Solver", 2016; the section
//! and theorem numbers below are that paper's). None of the Hex rules of
//! [`super::node`] is used: each of them rests on Hex's monotonicity (an
//! extra stone never hurts its owner), which Rex turns round, and on Hex's
//! connections, which in Rex lose instead of win. What the two games share
//! is geometry (dead cells, the kill tests, groups) and the search.
//!
//! Two facts drive the Rex rules. The game's value depends on parity:
//! *Last* is the player who would colour the last cell (the player to move
//! when an odd number of cells is empty) and *Notlast* the other, so only
//! sets of an even number of cells can be filled in. And a player wants the
//! opponent to own cells: a player forces the opponent to take one cell of
//! each pair of a pairing by answering inside every pair.
//!
//! - [`fill_in`]: dead cells (an even number of them) and captured pairs,
//!   filled in (theorems 3.1, 3.3, corollary 1), mutual fill-in (theorem
//!   3.8); a dead cell as the only move (theorem 3.4);
//! - [`preferences`]: victim over killer, vulnerable over opponent killer,
//!   capturee over capturer (theorems 3.5 to 3.7);
//! - [`pairing`]: join-pairing and pre-join-pairing strategies found by
//!   H-search with the two-semi OR rule, deciding positions (theorems 4.1,
//!   4.2) and pruning the player's own keys;
//! - [`decomposition`]: a region a pairing strategy seals off, filled in
//!   when it holds an even number of empty cells (Solrex, section 5);
//! - [`colour_symmetry`]: a position that is its own reflection with the
//!   colours swapped is won by Notlast.

pub mod colour_symmetry;
pub mod decomposition;
pub mod fill_in;
pub mod pairing;
pub mod preferences;
pub mod rules;

pub use rules::RexRules;

use darkhex_games::board::{BLACK, WHITE};
use darkhex_games::{CellSet, Geometry};

use super::inferior::{InferiorCells, prune_dominated};
use super::position::{Position, Stones, joined};
use super::rules::{RuleStats, Rules};
use super::verdict::{Grounds, Node};
use super::workspace::Workspace;
use crate::eval::resistance::{Links, evaluate_with};

/// Whether the player to move is Last: an odd number of cells is empty.
pub fn mover_is_last<const W: usize>(geom: &Geometry<W>, stones: &Stones<W>) -> bool {
    (geom.all() - stones[0] - stones[1]).count() % 2 == 1
}

/// [`super::node::examine_with_grounds`] for Rex: `pos` with `fill` (the
/// fill-in known from above, `dead` its dead cells) decided, or its moves
/// to search, best first.
pub fn examine<const W: usize>(
    geom: &Geometry<W>,
    pos: &Position<W>,
    fill: [CellSet<W>; 2],
    dead: CellSet<W>,
    rules: &Rules,
    stats: &mut RuleStats,
    ws: &mut Workspace<W>,
) -> (Node<W>, Grounds<W>) {
    let p = pos.to_move;
    let rex = rules.rex;
    // Proof sets rest on Hex's monotonicity: none in Rex.
    let mut grounds = Grounds {
        dead,
        proof: geom.all(),
        ..Grounds::default()
    };
    let decided = |winner: usize| {
        if winner == p {
            Node::Won(None)
        } else {
            Node::Lost
        }
    };
    let mut filled: Stones<W> = [pos.played[0] | fill[0], pos.played[1] | fill[1]];
    if let Some(j) = joined(geom, &filled) {
        return (decided(1 - j), grounds);
    }
    let mut fill = fill;
    let mut found = fill_in::fill_in(geom, &mut filled, &mut fill, &mut grounds.dead, p, &rex);
    stats.cells_filled += found.filled as u64;
    if let Some(j) = joined(geom, &filled) {
        return (decided(1 - j), grounds);
    }
    let kills = std::mem::take(&mut found.kills);
    // The moves below are the filled position's; `real` makes each a move
    // of the position itself. Mutual fill-in stays with this position: the
    // positions after a move take over only what came before it.
    let real = |m: usize| found.real_move(m, p) as u16;
    if let Some((before, dead)) = found.heritable {
        fill = before;
        grounds.dead = dead;
    }
    let won = |m: usize| Node::Won(Some(real(m)));
    let empty = geom.all() - filled[0] - filled[1];
    let last = mover_is_last(geom, &filled);
    // Colour symmetry decides before a lone dead cell narrows the moves:
    // the dead cell would be searched alone, and playing it breaks the
    // symmetry (after 1.b1 on 7x7, say, a1 is dead and 2.a2 wins at once).
    if rex.colour_symmetry
        && (colour_symmetry::is_colour_symmetric(geom, &pos.played)
            || colour_symmetry::is_colour_symmetric(geom, &filled))
    {
        stats.decided_by_colour_symmetry += 1;
        let notlast = if last { 1 - p } else { p };
        return (decided(notlast), grounds);
    }
    let making = if rex.colour_symmetry {
        (colour_symmetry::symmetric_moves(geom, &pos.played, p)
            | colour_symmetry::symmetric_moves(geom, &filled, p))
            & empty
    } else {
        CellSet::EMPTY
    };
    if let Some(m) = making.first()
        && !last
    {
        // After the move the opponent moves with an odd number of cells
        // empty when the mover is not Last: the opponent is Last then,
        // and loses the symmetric position.
        stats.decided_by_colour_symmetry += 1;
        return (won(m), grounds);
    }
    if let Some(d) = found.lone_dead
        && rex.dead_move
    {
        stats.moves_pruned_as_inferior += (empty.count() - 1) as u64;
        stats.open_positions += 1;
        stats.moves_kept += 1;
        let children = vec![real(d)];
        return (Node::Open { children, fill }, grounds);
    }
    let mut candidates = empty;
    if rex.pairings {
        // The mover's connections first: when they decide, the
        // opponent's are not needed.
        ws.vcs[p].rebuild(geom, &filled);
        if let Some(pairing::Verdict::MoverLoses) = pairing::decide_own(&ws.vcs[p], last) {
            stats.decided_by_connection += 1;
            return (Node::Lost, grounds);
        }
        ws.vcs[1 - p].rebuild(geom, &filled);
        match pairing::decide(&ws.vcs[p], &ws.vcs[1 - p], empty, last) {
            pairing::Verdict::MoverLoses => {
                stats.decided_by_connection += 1;
                return (Node::Lost, grounds);
            }
            pairing::Verdict::MoverWins(m) => {
                stats.decided_by_connection += 1;
                return (m.map_or(Node::Won(None), won), grounds);
            }
            pairing::Verdict::Open { losing } => {
                let pruned = candidates & losing;
                stats.losing_moves_pruned += pruned.count() as u64;
                candidates -= pruned;
            }
        }
        // The proof needs every full to be a pairing, which the augmented
        // H-search's are not quite; and a mutual fill-in's stones may be
        // what seals a region, while they are not passed on to the
        // positions after a move as the rest of the fill-in is.
        if rex.decompositions && !rules.vc.captured_overlap && found.mutual.is_empty() {
            let sealed =
                decomposition::sealed_even_regions(geom, &filled, [&ws.vcs[0], &ws.vcs[1]]);
            if !(sealed[0].is_empty() && sealed[1].is_empty()) {
                // The filled board changes the fill-in and the pairings:
                // examine it afresh.
                stats.cells_filled += (sealed[0].count() + sealed[1].count()) as u64;
                let more = [fill[0] | sealed[0], fill[1] | sealed[1]];
                return examine(geom, pos, more, grounds.dead, rules, stats, ws);
            }
        }
    } else if rules.resistance_order {
        ws.vcs[p].rebuild(geom, &filled);
        ws.vcs[1 - p].rebuild(geom, &filled);
    }
    // The mover is Last here: a move into colour symmetry loses.
    let making = making & candidates;
    stats.losing_moves_pruned += making.count() as u64;
    candidates -= making;
    if candidates.is_empty() {
        // Every move was shown to lose.
        return (Node::Lost, grounds);
    }
    if rex.preferences {
        let arcs = preferences::arcs(geom, &filled, p, candidates, kills);
        let dominated = prune_dominated(&arcs, candidates);
        stats.moves_pruned_as_inferior += dominated.len() as u64;
        for &(c, by) in &dominated {
            candidates.remove(c);
            grounds.dominated.push((real(c), real(by)));
        }
    }
    // A position equal to its rotation gives each move and its image the
    // same value: one of each pair is enough (as in Hex: the rotation keeps
    // each player's sides, whatever the winning condition).
    // With a mutual fill-in the filled position need not be symmetric.
    if rules.symmetry && found.mutual.is_empty() && pos.is_symmetric(geom) {
        let n = geom.cells();
        let before = candidates;
        candidates = candidates
            .iter()
            .filter(|&c| !candidates.contains(n - 1 - c) || c <= n - 1 - c)
            .collect();
        grounds.mirrored = before - candidates;
    }
    let mut children: Vec<u16> = candidates.iter().map(real).collect();
    stats.open_positions += 1;
    stats.moves_kept += children.len() as u64;
    if rules.resistance_order && children.len() > 1 {
        order_by_resistance(geom, &filled, ws, &mut children);
    }
    (Node::Open { children, fill }, grounds)
}

/// Rex's inferior cells for `to_move` with every rule on, as
/// [`InferiorCells`] (for the GTP engine's display): the fill-in (a lone
/// dead cell left over is listed as dead and not filled), and the moves the
/// preference orders leave out, each with a move that beats it. Rex has no
/// vulnerable cells to prune (theorem 3.6 prunes the killer instead: it is
/// among the dominated).
pub fn analyse<const W: usize>(
    geom: &Geometry<W>,
    stones: &Stones<W>,
    to_move: usize,
) -> InferiorCells<W> {
    let rules = RexRules::all();
    let mut filled = *stones;
    let mut fill = [CellSet::EMPTY; 2];
    let mut dead = CellSet::EMPTY;
    let found = fill_in::fill_in(geom, &mut filled, &mut fill, &mut dead, to_move, &rules);
    let mut result = InferiorCells {
        filled,
        fill,
        dead,
        vulnerable: Vec::new(),
        dominated: Vec::new(),
    };
    if let Some(d) = found.lone_dead {
        result.dead.insert(d);
        return result;
    }
    if joined(geom, &filled).is_some() {
        return result;
    }
    let empty = geom.all() - filled[0] - filled[1];
    let arcs = preferences::arcs(geom, &filled, to_move, empty, found.kills);
    result.dominated = prune_dominated(&arcs, empty);
    result
}

/// Solrex's move order: Benzene's resistance evaluation turned round, the
/// cells with the least current through them first. In Hex the busiest
/// cells are the strongest moves; in Rex they are where a player is most
/// likely to complete their own losing chain. A pair of ends is linked
/// once each time H-search started its list of pairings
/// ([`Links::OnePerStart`]): with one link a pair, the 5x5 suite (`--moves
/// a1 --all-moves`, one thread) takes 22,257 positions instead of 15,511,
/// 6x6 c1 41,469 instead of 40,808 and d2 277,285 instead of 233,126. (A
/// link for every pairing orders the 5x5 suite about as well but c1 worse,
/// 64,138 positions.)
fn order_by_resistance<const W: usize>(
    geom: &Geometry<W>,
    filled: &Stones<W>,
    ws: &Workspace<W>,
    children: &mut [u16],
) {
    let r = evaluate_with(
        geom,
        filled,
        [&ws.vcs[BLACK], &ws.vcs[WHITE]],
        Links::OnePerStart,
    );
    children.sort_by(|&a, &b| {
        r.cell_current(a as usize)
            .total_cmp(&r.cell_current(b as usize))
            .then(a.cmp(&b))
    });
}
