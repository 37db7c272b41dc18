//! What the solver learns about a position when it first meets it: whether
//! it is already decided (a side-to-side chain, a side-to-side connection,
//! or no move that stops the opponent's), and otherwise which moves to
//! search, in which order, with which cells filled in.

use darkhex_games::board::{BLACK, WHITE};
use darkhex_games::{CellSet, Geometry};

use super::decompose::sealed_regions;
use super::edge_patterns::EdgeFrame;
use super::inferior::{Dominations, analyse_cached};
use super::position::{Position, Stones, joined};
use super::rex;
use super::vc::End;
use crate::eval::network::Network;
use crate::eval::paths::{PathLimits, path_sets};
use crate::eval::resistance::evaluate;

// The types an examination reads and returns, at their old paths.
pub use super::rules::{RuleStats, Rules};
pub use super::verdict::{Grounds, Node};
pub use super::workspace::Workspace;
/// Examines `pos` (with `fill`, fill-in known from above, added).
pub fn examine<const W: usize>(
    geom: &Geometry<W>,
    pos: &Position<W>,
    fill: [CellSet<W>; 2],
    rules: &Rules,
    stats: &mut RuleStats,
    ws: &mut Workspace<W>,
) -> Node<W> {
    examine_with_grounds(geom, pos, fill, CellSet::EMPTY, rules, stats, ws).0
}

/// [`examine`], with what shows its verdict; `dead` are the cells of
/// `fill` that were dead when filled in.
pub fn examine_with_grounds<const W: usize>(
    geom: &Geometry<W>,
    pos: &Position<W>,
    fill: [CellSet<W>; 2],
    dead: CellSet<W>,
    rules: &Rules,
    stats: &mut RuleStats,
    ws: &mut Workspace<W>,
) -> (Node<W>, Grounds<W>) {
    if rules.misere {
        return rex::examine(geom, pos, fill, dead, rules, stats, ws);
    }
    let p = pos.to_move;
    let mut grounds = Grounds {
        dead,
        ..Grounds::default()
    };
    let stones: Stones<W> = [pos.played[0] | fill[0], pos.played[1] | fill[1]];
    // The fill-in is theirs by theorem, not by play: a proof set keeps the
    // winner's fill-in, which would otherwise be given to the loser, except
    // dead cells, whose colour does not matter.
    let decided = |winner: usize, carrier: CellSet<W>, fill: &[CellSet<W>; 2], dead| {
        let proof = if rules.misere {
            geom.all()
        } else {
            carrier | (fill[winner] - dead)
        };
        let node = if winner == p {
            Node::Won(None)
        } else {
            Node::Lost
        };
        (node, proof)
    };
    if let Some(j) = joined(geom, &stones) {
        let winner = if rules.misere { 1 - j } else { j };
        let (node, proof) = decided(winner, CellSet::EMPTY, &fill, grounds.dead);
        grounds.proof = proof;
        return (node, grounds);
    }
    let dominations = Dominations {
        capture: rules.dominated,
        path: rules.path_domination,
        neighbour: rules.neighbour_domination,
    };
    let any_domination = dominations.capture || dominations.path || dominations.neighbour;
    let (filled, fill, prunable) = if rules.fill_in || rules.vulnerable || any_domination {
        let captures = rules.template_captures.then_some(&mut ws.captures);
        let inf = analyse_cached(geom, &stones, p, captures, dominations);
        let mut prunable = Vec::new();
        if rules.vulnerable {
            prunable.extend(inf.vulnerable.iter().map(|&(c, by)| (c as u16, by as u16)));
        }
        if any_domination {
            prunable.extend(inf.dominated.iter().map(|&(c, by)| (c as u16, by as u16)));
        }
        if rules.fill_in {
            stats.cells_filled += (inf.fill[0].count() + inf.fill[1].count()) as u64;
            grounds.dead |= inf.dead;
            let mut all = fill;
            all[0] |= inf.fill[0];
            all[1] |= inf.fill[1];
            (inf.filled, all, prunable)
        } else {
            (stones, fill, prunable)
        }
    } else {
        (stones, fill, Vec::new())
    };
    if let Some(j) = joined(geom, &filled) {
        let winner = if rules.misere { 1 - j } else { j };
        let (node, proof) = decided(winner, CellSet::EMPTY, &fill, grounds.dead);
        grounds.proof = proof;
        return (node, grounds);
    }
    let empty = geom.all() - filled[0] - filled[1];
    let mut candidates = empty;
    if rules.connections || rules.resistance_order || rules.network_order.is_some() {
        ws.vcs[p].rebuild(geom, &filled);
        add_pattern_connections(geom, &filled, p, ws, stats);
    }
    if rules.connections {
        let mine = &ws.vcs[p];
        if let Some(carrier) = mine.smallest_edge_full() {
            stats.decided_by_connection += 1;
            grounds.proof = decided(p, carrier, &fill, grounds.dead).1;
            return (Node::Won(empty.first().map(|c| c as u16)), grounds);
        }
        if let Some((carrier, key)) = mine.edge_semis().min_by_key(|(c, _)| c.count()) {
            stats.decided_by_connection += 1;
            grounds.proof = decided(p, carrier.with(key), &fill, grounds.dead).1;
            return (Node::Won(Some(key as u16)), grounds);
        }
    }
    // The opponent's connections only matter when the mover's do not win.
    if rules.connections || rules.resistance_order || rules.network_order.is_some() {
        ws.vcs[1 - p].rebuild(geom, &filled);
        add_pattern_connections(geom, &filled, 1 - p, ws, stats);
    }
    if rules.connections {
        let theirs = &ws.vcs[1 - p];
        if let Some(carrier) = theirs.smallest_edge_full() {
            stats.decided_by_connection += 1;
            grounds.proof = decided(1 - p, carrier, &fill, grounds.dead).1;
            return (Node::Lost, grounds);
        }
        if rules.decompositions {
            // One player's regions at a time: the other's were found on
            // a board without them.
            let sealed = [p, 1 - p]
                .into_iter()
                .map(|q| (q, sealed_regions(geom, &filled, &ws.vcs[q])))
                .find(|(_, s)| !s.is_empty());
            if let Some((q, cells)) = sealed {
                // The filled board changes the connections and inferior
                // cells: examine it afresh.
                stats.cells_filled += cells.count() as u64;
                let mut more = fill;
                more[q] |= cells;
                let dead = grounds.dead;
                return examine_with_grounds(geom, pos, more, dead, rules, stats, ws);
            }
        }
        // Mustplay: only a cell in every opponent semi's carrier can stop
        // the opponent joining next move.
        if let Some(block) = theirs.blocking_cells() {
            let mut semis: Vec<CellSet<W>> =
                theirs.edge_semis().map(|(c, key)| c.with(key)).collect();
            semis.sort_by_key(|c| c.count());
            let before = candidates.count();
            candidates &= block;
            stats.moves_pruned_by_mustplay += (before - candidates.count()) as u64;
            if candidates.is_empty() {
                stats.decided_by_connection += 1;
                let carrier = if rules.proof_sets {
                    refuting_semis(&semis)
                } else {
                    geom.all()
                };
                grounds.proof = decided(1 - p, carrier, &fill, grounds.dead).1;
                return (Node::Lost, grounds);
            }
            if rules.proof_sets {
                // For each move left out, the smallest semi it misses.
                for c in (empty - candidates).iter() {
                    if let Some(s) = semis.iter().find(|s| !s.contains(c))
                        && !grounds.semis.contains(s)
                    {
                        grounds.semis.push(*s);
                    }
                }
                grounds.semis.sort_by_key(|c| c.count());
            }
        }
    }
    let pruned: CellSet<W> = prunable.iter().map(|&(c, _)| c as usize).collect();
    let kept = candidates - pruned;
    // Pruning rests on a winning move being kept: if every candidate were
    // pruned the position would look lost, which the rules do not show.
    if !kept.is_empty() {
        stats.moves_pruned_as_inferior += (candidates.count() - kept.count()) as u64;
        let mut seen = CellSet::<W>::EMPTY;
        for &(c, by) in &prunable {
            if candidates.contains(c as usize) && !seen.contains(c as usize) {
                seen.insert(c as usize);
                grounds.dominated.push((c, by));
            }
        }
        candidates = kept;
    }
    // A position equal to its rotation gives each move and its image the
    // same value: one of each pair is enough.
    if rules.symmetry && pos.is_symmetric(geom) {
        let n = geom.cells();
        let before = candidates;
        candidates = candidates
            .iter()
            .filter(|&c| !candidates.contains(n - 1 - c) || c <= n - 1 - c)
            .collect();
        grounds.mirrored = before - candidates;
    }
    let mut children: Vec<u16> = candidates.iter().map(|c| c as u16).collect();
    stats.open_positions += 1;
    stats.moves_kept += children.len() as u64;
    // A single move needs no order.
    if let Some(k) = rules.network_order
        && children.len() > 1
    {
        let limits = PathLimits {
            through: true,
            ..PathLimits::new(k)
        };
        let share = [BLACK, WHITE].map(|q| {
            let net = Network::build(geom, &filled, q, Some(&ws.vcs[q]));
            path_sets(&net, limits).cell_contributions(&net, geom.cells())
        });
        let score = |c: u16| share[BLACK][c as usize] + share[WHITE][c as usize];
        children.sort_by(|&a, &b| score(b).total_cmp(&score(a)).then(a.cmp(&b)));
    } else if rules.resistance_order && children.len() > 1 {
        let r = evaluate(geom, &filled, [&ws.vcs[BLACK], &ws.vcs[WHITE]]);
        children.sort_by(|&a, &b| {
            r.cell_current(b as usize)
                .total_cmp(&r.cell_current(a as usize))
                .then(a.cmp(&b))
        });
    }
    (Node::Open { children, fill }, grounds)
}

/// When no move is in every one of the opponent's side-to-side `semis`
/// (sorted smallest first): a union of some of them such that each cell in
/// it misses one of them, so every move there loses to that semi's key.
fn refuting_semis<const W: usize>(semis: &[CellSet<W>]) -> CellSet<W> {
    let mut proof = semis[0];
    let mut done = CellSet::EMPTY;
    while let Some(c) = (proof - done).first() {
        done.insert(c);
        if let Some(s) = semis.iter().find(|s| !s.contains(c)) {
            proof |= *s;
        }
    }
    proof
}

/// Adds to `q`'s connections those of the ladder and edge patterns (and,
/// when learning, of local searches).
fn add_pattern_connections<const W: usize>(
    geom: &Geometry<W>,
    stones: &Stones<W>,
    q: usize,
    ws: &mut Workspace<W>,
    stats: &mut RuleStats,
) {
    let mut found = ladder_connections(geom, stones, q, ws);
    stats.ladder_matched += found.len() as u64;
    edge_connections(geom, stones, q, ws, stats, &mut found);
    if !found.is_empty() {
        ws.vcs[q].add_fulls(&found);
    }
}

/// The ladders that match for `q` between two of its ends, unless both
/// ends already reach the same side: then the ladder adds nothing a chain
/// through either could use, and each full added costs H-search its
/// combinations.
fn ladder_connections<const W: usize>(
    geom: &Geometry<W>,
    stones: &Stones<W>,
    q: usize,
    ws: &Workspace<W>,
) -> Vec<(End, End, CellSet<W>)> {
    let mut found = Vec::new();
    let Some(ladders) = &ws.ladders else {
        return found;
    };
    let vcs = &ws.vcs[q];
    let sides_of = |e| [0, 1].map(|s| vcs.fulls(e, vcs.side(s)).next().is_some());
    for x in (geom.all() - stones[1 - q]).iter() {
        if !ladders.starts_at(q, x) {
            continue;
        }
        let Some(from) = vcs.end_of(x) else { continue };
        let from_sides = sides_of(from);
        for (y, _, carrier) in ladders.matches(stones, q, x) {
            let Some(to) = vcs.end_of(y).filter(|&to| to != from) else {
                continue;
            };
            let to_sides = sides_of(to);
            if !(0..2).any(|s| from_sides[s] && to_sides[s]) {
                found.push((from, to, carrier));
            }
        }
    }
    found
}

/// Pushes onto `found` the edge connections of the edge patterns (and,
/// when learning, of local searches) for `q`'s stones and the empty cells
/// from the third row of a side on that H-search did not join to the side.
fn edge_connections<const W: usize>(
    geom: &Geometry<W>,
    stones: &Stones<W>,
    q: usize,
    ws: &mut Workspace<W>,
    stats: &mut RuleStats,
    found: &mut Vec<(End, End, CellSet<W>)>,
) {
    if ws.builtin.is_none() && ws.learning.is_none() {
        return;
    }
    if let Some(l) = &mut ws.learning {
        l.placed.sync(geom, &l.learnt);
    }
    let max_depth = ws.builtin.as_ref().map_or(0, |b| b.max_depth()).max(
        ws.learning
            .as_ref()
            .map_or(0, |l| l.learner.max_depth().max(l.placed.max_depth())),
    );
    let candidates = geom.all() - stones[1 - q];
    for side in 0..2 {
        let frame = EdgeFrame::new(geom.dims(), q, side);
        let vcs = &ws.vcs[q];
        let side_end = vcs.side(side);
        let mut tried: Vec<u16> = Vec::new();
        for c in candidates.iter() {
            let (e, _) = frame.coords(c);
            // Nearer the side H-search finds what there is.
            if e < 2 || e as usize > max_depth {
                continue;
            }
            let Some(end) = vcs.end_of(c) else { continue };
            if end == side_end || tried.contains(&end) {
                continue;
            }
            tried.push(end);
            if vcs.fulls(end, side_end).next().is_some() {
                continue;
            }
            let known = ws
                .builtin
                .as_ref()
                .and_then(|b| b.find(stones, q, side, c))
                .or_else(|| {
                    ws.learning
                        .as_ref()
                        .and_then(|l| l.placed.find(stones, q, side, c))
                });
            if let Some(carrier) = known {
                stats.edge_matched += 1;
                found.push((end, side_end, carrier));
                continue;
            }
            // Searching costs a few solves: only where H-search saw a
            // connection with the player moving first.
            let Some(l) = &mut ws.learning else { continue };
            if e as usize > l.learner.max_depth() || vcs.semis(end, side_end).next().is_none() {
                continue;
            }
            let before = l.learner.searched();
            let pattern = l.learner.search(geom, stones, q, side, c);
            stats.edge_searched += l.learner.searched() - before;
            if let Some(p) = pattern {
                stats.edge_learnt += 1;
                l.learnt.learn(p);
                l.placed.sync(geom, &l.learnt);
                if let Some(carrier) = l.placed.find(stones, q, side, c) {
                    found.push((end, side_end, carrier));
                }
            }
        }
    }
}
