//! What the solver learns about a position when it first meets it: whether
//! it is already decided (a side-to-side chain, a side-to-side connection,
//! or no move that stops the opponent's), and otherwise which moves to
//! search, in which order, with which cells filled in.

use darkhex_games::board::{BLACK, WHITE};
use darkhex_games::{CellSet, Geometry};

use super::inferior::analyse;
use super::position::{Position, Stones, joined};
use super::vc::{VcParams, VcSet};
use crate::eval::resistance::evaluate;

/// Which rules the solver applies; each can be switched off to measure
/// what it saves (all on by default for Hex; Rex uses none of them, since
/// they are theorems about Hex).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    /// Rex: the player who joins their sides loses.
    pub misere: bool,
    /// Virtual connections: a side-to-side full or semi decides the
    /// position; the opponent's semis restrict the moves (mustplay).
    pub connections: bool,
    /// Dead and captured cells filled in.
    pub fill_in: bool,
    /// Vulnerable cells pruned.
    pub vulnerable: bool,
    /// Capture-dominated cells pruned.
    pub dominated: bool,
    /// A position equal to its 180-degree rotation searches one of each
    /// pair of symmetric moves.
    pub symmetry: bool,
    /// Moves ordered by the current through them in the resistance circuits
    /// (otherwise by cell id).
    pub resistance_order: bool,
    pub vc: VcParams,
}

impl Rules {
    /// Everything on, for Hex.
    pub fn hex() -> Self {
        Rules {
            misere: false,
            connections: true,
            fill_in: true,
            vulnerable: true,
            dominated: true,
            symmetry: true,
            resistance_order: true,
            vc: VcParams::default(),
        }
    }

    /// Rex: plain search (the Hex theorems do not hold for Rex).
    pub fn rex() -> Self {
        Rules {
            misere: true,
            connections: false,
            fill_in: false,
            vulnerable: false,
            dominated: false,
            symmetry: true,
            resistance_order: false,
            vc: VcParams::default(),
        }
    }
}

/// A position as the solver first sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node<const W: usize> {
    /// The player to move wins; with a winning move when one is known
    /// (none when the game is already won).
    Won(Option<u16>),
    /// The player to move loses.
    Lost,
    /// Undecided: the moves to search, best first, and the fill-in that
    /// holds below this position.
    Open {
        children: Vec<u16>,
        fill: [CellSet<W>; 2],
    },
}

/// Counts of what the rules did, for the knockout table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RuleStats {
    pub decided_by_connection: u64,
    pub cells_filled: u64,
    pub moves_pruned_by_mustplay: u64,
    pub moves_pruned_as_inferior: u64,
}

/// Memory one search thread reuses from position to position.
pub struct Workspace<const W: usize> {
    /// Each colour's connections.
    vcs: [VcSet<W>; 2],
}

impl<const W: usize> Workspace<W> {
    pub fn new(geom: &Geometry<W>, rules: &Rules) -> Self {
        Workspace {
            vcs: [
                VcSet::new(geom, BLACK, rules.vc),
                VcSet::new(geom, WHITE, rules.vc),
            ],
        }
    }
}

/// Examines `pos` (with `fill`, fill-in known from above, added).
pub fn examine<const W: usize>(
    geom: &Geometry<W>,
    pos: &Position<W>,
    fill: [CellSet<W>; 2],
    rules: &Rules,
    stats: &mut RuleStats,
    ws: &mut Workspace<W>,
) -> Node<W> {
    let p = pos.to_move;
    let stones: Stones<W> = [pos.played[0] | fill[0], pos.played[1] | fill[1]];
    if let Some(j) = joined(geom, &stones) {
        let winner = if rules.misere { 1 - j } else { j };
        return if winner == p {
            Node::Won(None)
        } else {
            Node::Lost
        };
    }
    let (filled, fill, prunable) = if rules.fill_in || rules.vulnerable || rules.dominated {
        let inf = analyse(geom, &stones, p);
        let mut prunable = CellSet::EMPTY;
        if rules.vulnerable {
            prunable |= inf.vulnerable.iter().map(|&(c, _)| c).collect();
        }
        if rules.dominated {
            prunable |= inf.dominated.iter().map(|&(c, _)| c).collect();
        }
        if rules.fill_in {
            stats.cells_filled += (inf.fill[0].count() + inf.fill[1].count()) as u64;
            let mut all = fill;
            all[0] |= inf.fill[0];
            all[1] |= inf.fill[1];
            (inf.filled, all, prunable)
        } else {
            (stones, fill, prunable)
        }
    } else {
        (stones, fill, CellSet::EMPTY)
    };
    if let Some(j) = joined(geom, &filled) {
        let winner = if rules.misere { 1 - j } else { j };
        return if winner == p {
            Node::Won(None)
        } else {
            Node::Lost
        };
    }
    let empty = geom.all() - filled[0] - filled[1];
    let mut candidates = empty;
    if rules.connections || rules.resistance_order {
        for v in &mut ws.vcs {
            v.rebuild(geom, &filled);
        }
    }
    if rules.connections {
        let [mine, theirs] = [&ws.vcs[p], &ws.vcs[1 - p]];
        if mine.edge_full() {
            stats.decided_by_connection += 1;
            return Node::Won(empty.first().map(|c| c as u16));
        }
        if let Some((_, key)) = mine.edge_semis().next() {
            stats.decided_by_connection += 1;
            return Node::Won(Some(key as u16));
        }
        if theirs.edge_full() {
            stats.decided_by_connection += 1;
            return Node::Lost;
        }
        // Mustplay: only a cell in every opponent semi's carrier can stop
        // the opponent joining next move.
        if let Some(block) = theirs.blocking_cells() {
            let before = candidates.count();
            candidates &= block;
            stats.moves_pruned_by_mustplay += (before - candidates.count()) as u64;
            if candidates.is_empty() {
                stats.decided_by_connection += 1;
                return Node::Lost;
            }
        }
    }
    let kept = candidates - prunable;
    // Pruning rests on a winning move being kept: if every candidate were
    // pruned the position would look lost, which the rules do not show.
    if !kept.is_empty() {
        stats.moves_pruned_as_inferior += (candidates.count() - kept.count()) as u64;
        candidates = kept;
    }
    // A position equal to its rotation gives each move and its image the
    // same value: one of each pair is enough.
    if rules.symmetry && pos.is_symmetric(geom) {
        let n = geom.cells();
        candidates = candidates
            .iter()
            .filter(|&c| !candidates.contains(n - 1 - c) || c <= n - 1 - c)
            .collect();
    }
    let mut children: Vec<u16> = candidates.iter().map(|c| c as u16).collect();
    if rules.resistance_order {
        let r = evaluate(geom, &filled, [&ws.vcs[BLACK], &ws.vcs[WHITE]]);
        children.sort_by(|&a, &b| {
            r.cell_current(b as usize)
                .total_cmp(&r.cell_current(a as usize))
                .then(a.cmp(&b))
        });
    }
    Node::Open { children, fill }
}
