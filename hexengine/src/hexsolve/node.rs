//! What the solver learns about a position when it first meets it: whether
//! it is already decided (a side-to-side chain, a side-to-side connection,
//! or no move that stops the opponent's), and otherwise which moves to
//! search, in which order, with which cells filled in.

use std::sync::Arc;

use darkhex_games::board::{BLACK, WHITE};
use darkhex_games::{CellSet, Geometry};

use super::captured_search::CaptureCache;
use super::decompose::sealed_regions;
use super::edge_patterns::{EdgeFrame, EdgePatterns, PlacedEdges};
use super::edge_search::{EdgeLearner, LEARN_DEPTH};
use super::inferior::{Dominations, analyse_cached};
use super::ladder_patterns::PlacedLadders;
use super::position::{Position, Stones, joined};
use super::rex::RexRules;
use super::vc::{End, VcParams, VcSet};
use crate::eval::network::Network;
use crate::eval::paths::{PathLimits, path_sets};
use crate::eval::resistance::evaluate;

/// Which rules the solver applies; each can be switched off to measure
/// what it saves (all on by default). The Hex rules are theorems about Hex
/// and Rex uses none of them; Rex has its own ([`RexRules`]), with the
/// 180-degree symmetry and the resistance order shared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    /// Rex: the player who joins their sides loses.
    pub misere: bool,
    /// Virtual connections: a side-to-side full or semi decides the
    /// position; the opponent's semis restrict the moves (mustplay).
    pub connections: bool,
    /// Dead and captured cells filled in.
    pub fill_in: bool,
    /// Among them, 4-3-2 carriers proved captured by search
    /// ([`super::captured_search`]).
    pub template_captures: bool,
    /// Regions sealed off by a connection filled in for their owner.
    pub decompositions: bool,
    /// Vulnerable cells pruned.
    pub vulnerable: bool,
    /// Capture-dominated cells pruned (and the acute-corner 4-3-2 arcs).
    pub dominated: bool,
    /// Path-dominated cells pruned (Henderson and Hayward, Lemma 1); off
    /// by default.
    pub path_domination: bool,
    /// Neighbourhood-dominated cells pruned (Henderson and Hayward); off
    /// by default.
    pub neighbour_domination: bool,
    /// A position equal to its 180-degree rotation searches one of each
    /// pair of symmetric moves.
    pub symmetry: bool,
    /// Moves ordered by the current through them in the resistance circuits
    /// (otherwise by cell id).
    pub resistance_order: bool,
    /// Moves ordered instead by their k-contribution (Honjo et al.) summed
    /// over both players' position networks, for this k.
    pub network_order: Option<usize>,
    /// Proof sets: a move found losing also refutes every sibling outside
    /// the cells the opponent's win needed (Hex only: it rests on
    /// monotonicity, extra stones never hurt their owner).
    pub proof_sets: bool,
    /// Edge connections by the built-in patterns (ladders, templates of the
    /// fourth and fifth rows, templates leaning on stones), added to
    /// H-search's ([`super::edge_patterns`]).
    pub edge_patterns: bool,
    /// Edge connections no pattern covers searched locally, and learnt as
    /// new patterns ([`super::edge_search`]).
    pub learn_edges: bool,
    /// Ladders along a side as full connections between two cells
    /// ([`super::ladder_patterns`]), added to H-search's.
    pub ladder_patterns: bool,
    pub vc: VcParams,
    /// Rex's rules, applied when `misere` (and only then).
    pub rex: RexRules,
}

impl Rules {
    /// Everything on, for Hex.
    pub fn hex() -> Self {
        Rules {
            misere: false,
            connections: true,
            fill_in: true,
            template_captures: true,
            decompositions: true,
            vulnerable: true,
            dominated: true,
            // Henderson and Hayward's two rules prune nothing the others
            // do not on 6x6 and 7x7 and cost time a position
            // (docs/results/hex-solver.md): opt-in, `--with`.
            path_domination: false,
            neighbour_domination: false,
            symmetry: true,
            resistance_order: true,
            network_order: None,
            proof_sets: true,
            edge_patterns: true,
            learn_edges: false,
            ladder_patterns: true,
            vc: VcParams::default(),
            rex: RexRules::all(),
        }
    }

    /// The rules of Hex, or of Rex when `misere`.
    pub fn for_game(misere: bool) -> Self {
        if misere { Rules::rex() } else { Rules::hex() }
    }

    /// Rex: the Solrex rules ([`super::rex`]), the 180-degree symmetry and
    /// the resistance order; none of the Hex theorems, which do not hold
    /// for Rex.
    pub fn rex() -> Self {
        Rules {
            misere: true,
            connections: false,
            fill_in: false,
            template_captures: false,
            decompositions: false,
            vulnerable: false,
            dominated: false,
            path_domination: false,
            neighbour_domination: false,
            symmetry: true,
            resistance_order: true,
            network_order: None,
            proof_sets: false,
            edge_patterns: false,
            learn_edges: false,
            ladder_patterns: false,
            // Solrex's augmented H-search costs more than it saves here
            // (docs/results/rex.md): opt-in, `--with captured-overlap`.
            vc: VcParams {
                captured_overlap: false,
                ..VcParams::pairings()
            },
            rex: RexRules::all(),
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
    pub moves_pruned_by_proof_sets: u64,
    /// Positions left open, and the moves they kept to search (Benzene's
    /// "consider size" is the ratio).
    pub open_positions: u64,
    pub moves_kept: u64,
    /// Edge connections found by the patterns, local searches run and
    /// patterns learnt by them.
    pub edge_matched: u64,
    pub edge_searched: u64,
    pub edge_learnt: u64,
    /// Ladder connections matched.
    pub ladder_matched: u64,
    /// Rex: moves shown to lose and left out (the player's own pre-join
    /// keys, moves into a colour-symmetric position won by the opponent).
    pub losing_moves_pruned: u64,
    /// Rex: positions decided by colour symmetry.
    pub decided_by_colour_symmetry: u64,
    /// Positions whose value the table held for their filled form.
    pub solved_by_filled_form: u64,
}

impl RuleStats {
    pub fn add(&mut self, other: &RuleStats) {
        self.decided_by_connection += other.decided_by_connection;
        self.cells_filled += other.cells_filled;
        self.moves_pruned_by_mustplay += other.moves_pruned_by_mustplay;
        self.moves_pruned_as_inferior += other.moves_pruned_as_inferior;
        self.moves_pruned_by_proof_sets += other.moves_pruned_by_proof_sets;
        self.open_positions += other.open_positions;
        self.moves_kept += other.moves_kept;
        self.edge_matched += other.edge_matched;
        self.edge_searched += other.edge_searched;
        self.edge_learnt += other.edge_learnt;
        self.ladder_matched += other.ladder_matched;
        self.losing_moves_pruned += other.losing_moves_pruned;
        self.decided_by_colour_symmetry += other.decided_by_colour_symmetry;
        self.solved_by_filled_form += other.solved_by_filled_form;
    }
}

/// Memory one search thread reuses from position to position.
pub struct Workspace<const W: usize> {
    /// Each colour's connections.
    pub(crate) vcs: [VcSet<W>; 2],
    /// Template carriers already searched for capture.
    captures: CaptureCache<W>,
    /// The built-in edge patterns on this board.
    builtin: Option<Arc<PlacedEdges<W>>>,
    /// The ladder patterns on this board.
    ladders: Option<Arc<PlacedLadders<W>>>,
    /// Patterns learnt by this solver's threads, the set they share and
    /// this thread's placement of it, with its local searches.
    learning: Option<Learning<W>>,
}

struct Learning<const W: usize> {
    learnt: Arc<EdgePatterns>,
    placed: PlacedEdges<W>,
    learner: EdgeLearner<W>,
}

impl<const W: usize> Workspace<W> {
    pub fn new(geom: &Geometry<W>, rules: &Rules) -> Self {
        Workspace::sharing(geom, rules, Arc::default())
    }

    /// A workspace that learns into `learnt` (when the rules learn),
    /// shared with other threads and solves.
    pub fn sharing(geom: &Geometry<W>, rules: &Rules, learnt: Arc<EdgePatterns>) -> Self {
        Workspace {
            vcs: [
                VcSet::new(geom, BLACK, rules.vc),
                VcSet::new(geom, WHITE, rules.vc),
            ],
            captures: CaptureCache::new(),
            builtin: rules.edge_patterns.then(|| PlacedEdges::builtin(geom)),
            ladders: rules.ladder_patterns.then(|| PlacedLadders::builtin(geom)),
            learning: rules.learn_edges.then(|| Learning {
                learnt,
                placed: PlacedEdges::new(geom),
                learner: EdgeLearner::default(),
            }),
        }
    }
}

/// Why [`examine_with_grounds`] decided a position or left moves out, in
/// the position's own cells; what proof sets are built from.
///
/// A proof set of a decided position is a set of its empty cells such that
/// the winner still wins when the loser is given every other empty cell.
/// By monotonicity of Hex (an extra stone never hurts its owner) a move of
/// the loser outside a proof set then loses too.
#[derive(Clone, Debug, Default)]
pub struct Grounds<const W: usize> {
    /// Won or Lost: a proof set.
    pub proof: CellSet<W>,
    /// Open: moves left out as inferior, each with the move that dominates
    /// it (vulnerable to a killer, or capture-dominated).
    pub dominated: Vec<(u16, u16)>,
    /// Open: the opponent's side-to-side semis (carrier and key) that put
    /// the moves left out by mustplay out of the mustplay: a move outside
    /// one of them loses to its key.
    pub semis: Vec<CellSet<W>>,
    /// Open: moves left out as the images of kept moves by rotation.
    pub mirrored: CellSet<W>,
    /// Open: the fill-in cells that are dead, from above included. A
    /// proof set can leave them out: their colour changes no value.
    pub dead: CellSet<W>,
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
        return super::rex::examine(geom, pos, fill, dead, rules, stats, ws);
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
            .map_or(0, |l| LEARN_DEPTH.max(l.placed.max_depth())),
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
            if e as usize > LEARN_DEPTH || vcs.semis(end, side_end).next().is_none() {
                continue;
            }
            let before = l.learner.stats;
            let pattern = l.learner.search(geom, stones, q, side, c);
            stats.edge_searched += l.learner.stats.searched - before.searched;
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
