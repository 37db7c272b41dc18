//! Each Rex rule alone against plain exhaustive minimax on small
//! positions: a filled-in set changes no value, a move left out is never
//! the only winner, a claimed pairing strategy holds by exhaustive play, a
//! position or move the rules decide has that value. Each test also counts
//! how often its rule fired, so that it cannot pass by never firing.

mod common;

use common::{geom, positions};
use darkhex_games::{CellSet, Geometry};
use darkhex_hexengine::hexsolve::decompose::each_sealed_region;
use darkhex_hexengine::hexsolve::inferior::{clique_cutset_dead, dead_cells, killed_by};
use darkhex_hexengine::hexsolve::minimax::Minimax;
use darkhex_hexengine::hexsolve::node::{Node, RuleStats, Workspace, examine};
use darkhex_hexengine::hexsolve::position::{Stones, joined};
use darkhex_hexengine::hexsolve::rex::RexRules;
use darkhex_hexengine::hexsolve::rex::colour_symmetry::{is_colour_symmetric, symmetric_moves};
use darkhex_hexengine::hexsolve::rex::decomposition::sealed_even_regions;
use darkhex_hexengine::hexsolve::rex::fill_in::{
    captured_pair_fill, even_dead_fill, fill_in, mutual_fill,
};
use darkhex_hexengine::hexsolve::rex::mover_is_last;
use darkhex_hexengine::hexsolve::rex::pairing::{find_join_pairing, is_join_pairing};
use darkhex_hexengine::hexsolve::rex::preferences::{
    capturee_over_capturer, victim_over_killer, vulnerable_over_opponent_killer,
};
use darkhex_hexengine::hexsolve::vc::{VcParams, VcSet};
use darkhex_hexengine::hexsolve::{Position, Rules};
use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Boards and how many random positions of each, with at most 14 empty
/// cells (minimax on 5x5 stays quick).
const BOARDS: [(usize, usize, usize); 5] =
    [(3, 3, 40), (3, 4, 40), (4, 4, 60), (4, 5, 40), (5, 5, 30)];

/// Runs `check` on random Rex positions of every board, with a minimax
/// for that board.
fn each_position(seed: u64, mut check: impl FnMut(&Geometry<1>, &mut Minimax<1>, Stones<1>)) {
    for (i, &(r, c, count)) in BOARDS.iter().enumerate() {
        let g = geom(r, c);
        let mut m = Minimax::new(&g, true);
        let mut rng = ChaCha8Rng::seed_from_u64(seed + i as u64);
        for stones in positions(&g, &mut rng, count, 14) {
            check(&g, &mut m, stones);
        }
    }
}

fn kills_of(g: &Geometry<1>, stones: &Stones<1>, player: usize) -> Vec<CellSet<1>> {
    let empty = g.all() - stones[0] - stones[1];
    let mut k = vec![CellSet::EMPTY; g.cells()];
    for y in empty.iter() {
        k[y] = killed_by(g, stones, player, y);
    }
    k
}

#[test]
fn an_even_set_of_dead_cells_filled_either_colour_changes_no_value() {
    let mut filled = 0;
    each_position(1, |g, m, stones| {
        let dead = dead_cells(g, &stones);
        let even = even_dead_fill(dead);
        assert_eq!(even.count() % 2, 0);
        assert!(even.is_subset(&dead) && dead.count() - even.count() <= 1);
        if even.is_empty() {
            return;
        }
        filled += 1;
        for colour in 0..2 {
            let mut after = stones;
            after[colour] |= even;
            for to_move in 0..2 {
                assert_eq!(
                    m.wins(&after, to_move),
                    m.wins(&stones, to_move),
                    "{stones:?} with {even:?} for {colour}, {to_move} to move"
                );
            }
        }
    });
    assert!(filled > 20, "dead cells filled in {filled} positions");
}

#[test]
fn cells_cut_off_by_a_clique_are_dead() {
    // A dead cell's colour changes no value: coloured either way, with the
    // same player to move, the winner is the same.
    let mut found = 0;
    each_position(6, |g, m, stones| {
        let dead = clique_cutset_dead(g, &stones);
        found += (dead - dead_cells(g, &stones)).count();
        for d in dead.iter() {
            let (mut black, mut white) = (stones, stones);
            black[0].insert(d);
            white[1].insert(d);
            for to_move in 0..2 {
                assert_eq!(
                    m.wins(&black, to_move),
                    m.wins(&white, to_move),
                    "{stones:?}: {d}"
                );
            }
        }
    });
    // Cells the plain dead-cell rules miss, so the rule adds something.
    assert!(found > 20, "{found} cells found dead only behind a clique");
}

#[test]
fn a_dead_cell_is_a_winning_move_whenever_there_is_one() {
    let mut seen = 0;
    each_position(2, |g, m, stones| {
        let dead = dead_cells(g, &stones);
        if dead.is_empty() {
            return;
        }
        for to_move in 0..2 {
            let wins = m.winning_moves(&stones, to_move);
            seen += 1;
            if !wins.is_empty() {
                assert!(
                    dead.is_subset(&wins),
                    "{stones:?}, {to_move} to move: {dead:?} not all in {wins:?}"
                );
            }
        }
    });
    assert!(seen > 40, "{seen} positions with a dead cell");
}

#[test]
fn a_captured_pair_filled_for_its_captor_changes_no_value() {
    let (mut filled, mut wrong_colour) = (0, 0);
    each_position(3, |g, m, stones| {
        let empty = g.all() - stones[0] - stones[1];
        // A position whose dead cells are filled, as the solver sees them.
        if !dead_cells(g, &stones).is_empty() {
            return;
        }
        for captor in 0..2 {
            let Some(pair) = captured_pair_fill(empty, &kills_of(g, &stones, captor)) else {
                continue;
            };
            filled += 1;
            let mut after = stones;
            after[captor] |= pair;
            let mut other = stones;
            other[1 - captor] |= pair;
            for to_move in 0..2 {
                assert_eq!(
                    m.wins(&after, to_move),
                    m.wins(&stones, to_move),
                    "{stones:?}: {pair:?} for {captor}, {to_move} to move"
                );
                if m.wins(&other, to_move) != m.wins(&stones, to_move) {
                    wrong_colour += 1;
                }
            }
        }
    });
    assert!(filled > 20, "captured pairs filled in {filled} positions");
    // Filled for the other player, the pair would change values: the
    // check tells the colours apart.
    assert!(wrong_colour > 0);
}

#[test]
fn an_even_region_sealed_by_a_pairing_filled_for_its_owner_changes_no_value() {
    let params = VcParams {
        captured_overlap: false,
        ..VcParams::pairings()
    };
    let (mut filled, mut odd_changed) = (0, 0);
    each_position(11, |g, m, stones| {
        let vcs = [0, 1].map(|p| VcSet::build(g, &stones, p, params));
        let sealed = sealed_even_regions(g, &stones, [&vcs[0], &vcs[1]]);
        if !(sealed[0].is_empty() && sealed[1].is_empty()) {
            filled += 1;
            assert!(!sealed[0].intersects(&sealed[1]));
            let after = [stones[0] | sealed[0], stones[1] | sealed[1]];
            for to_move in 0..2 {
                assert_eq!(
                    m.wins(&after, to_move),
                    m.wins(&stones, to_move),
                    "{stones:?}: {sealed:?}, {to_move} to move"
                );
                // A move that wins the filled position wins the position.
                let wins = m.winning_moves(&stones, to_move);
                let filled_wins = m.winning_moves(&after, to_move);
                assert!(
                    filled_wins.is_subset(&wins),
                    "{stones:?}: {sealed:?}, {to_move} to move: {filled_wins:?} not in {wins:?}"
                );
            }
        }
        // Regions of an odd number of cells are left alone: filled, they
        // would change values (the check tells parity apart).
        for (p, set) in vcs.iter().enumerate() {
            each_sealed_region(g, &stones, set, |cells| {
                if cells.count() % 2 == 1 {
                    let mut after = stones;
                    after[p] |= cells;
                    odd_changed += (0..2)
                        .filter(|&t| m.wins(&after, t) != m.wins(&stones, t))
                        .count();
                }
                false
            });
        }
    });
    assert!(filled > 20, "sealed regions filled in {filled} positions");
    assert!(odd_changed > 0);
}

/// Random positions of `rows` x `rows` with at most `max_empty` empty
/// cells as the solver sees them: filled in by `rules` with Black to move,
/// no lone dead cell left, nobody joined.
fn filled_positions(
    rows: usize,
    count: usize,
    max_empty: usize,
    seed: u64,
    rules: &RexRules,
) -> (Geometry<1>, Vec<Stones<1>>) {
    let g = geom(rows, rows);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    for stones in positions(&g, &mut rng, count, max_empty) {
        let mut filled = stones;
        let (mut fill, mut dead) = ([CellSet::EMPTY; 2], CellSet::EMPTY);
        let found = fill_in(&g, &mut filled, &mut fill, &mut dead, 0, rules);
        if found.lone_dead.is_none() && joined(&g, &filled).is_none() {
            out.push(filled);
        }
    }
    (g, out)
}

#[test]
fn mutual_fill_in_changes_no_value() {
    let without = RexRules {
        mutual_fill: false,
        ..RexRules::all()
    };
    let (mut filled, mut swapped_differs) = (0, 0);
    for (rows, seed) in [(4, 31), (5, 32)] {
        let (g, all) = filled_positions(rows, 1000, 14, seed, &without);
        let mut m = Minimax::new(&g, true);
        for stones in all {
            let kills = [kills_of(&g, &stones, 0), kills_of(&g, &stones, 1)];
            let Some([_, p, q]) = mutual_fill(&g, &stones, [&kills[0], &kills[1]]) else {
                continue;
            };
            filled += 1;
            let mut after = stones;
            after[0].insert(p);
            after[1].insert(q);
            let mut swapped = stones;
            swapped[0].insert(q);
            swapped[1].insert(p);
            for to_move in 0..2 {
                assert_eq!(
                    m.wins(&after, to_move),
                    m.wins(&stones, to_move),
                    "{stones:?}: Black {p}, White {q}, {to_move} to move"
                );
                if m.wins(&swapped, to_move) != m.wins(&stones, to_move) {
                    swapped_differs += 1;
                }
            }
        }
    }
    assert!(filled > 50, "mutual fill-in in {filled} positions");
    // Given the other way round, the two cells would change values: the
    // check tells the colours apart.
    assert!(swapped_differs > 0, "{filled} fill-ins, none told apart");
}

/// Mutual fill-in on 4x4, checked by hand. Black a1 b1 a2 b4, White d3
/// c4 d4. Black's stone on d1 kills c1: c1 then touches one Black group,
/// the north side (b1, d1), and its empty neighbours b2 and c2 touch it
/// too; for White, b2 and c2 are its only neighbours and touch each other.
/// White's stone on d1 kills d2 the same way (the east side through d1
/// and d3; for Black, c2 and c3 touch). With c1 Black and d2 White, d1
/// touches only the north side of Black's and the east side of White's,
/// and c2, its one empty neighbour, touches both: d1 is dead. So c1 is
/// filled Black and d2 White; whoever moves loses either way.
#[test]
fn mutual_fill_in_by_hand() {
    let g = geom(4, 4);
    let cell = |c: &str| g.dims().parse_cell(c).unwrap();
    let cells = |s: &[&str]| -> CellSet<1> { s.iter().map(|c| cell(c)).collect() };
    let stones = [cells(&["a1", "b1", "a2", "b4"]), cells(&["d3", "c4", "d4"])];
    let kills = [kills_of(&g, &stones, 0), kills_of(&g, &stones, 1)];
    assert!(kills[0][cell("d1")].contains(cell("c1")));
    assert!(kills[1][cell("d1")].contains(cell("d2")));
    assert!(dead_cells(&g, &stones).is_empty());
    assert_eq!(
        mutual_fill(&g, &stones, [&kills[0], &kills[1]]),
        Some([cell("d1"), cell("c1"), cell("d2")])
    );
    let mut after = stones;
    after[0].insert(cell("c1"));
    after[1].insert(cell("d2"));
    assert!(dead_cells(&g, &after).contains(cell("d1")));
    let mut m = Minimax::new(&g, true);
    for to_move in 0..2 {
        assert!(!m.wins(&stones, to_move) && !m.wins(&after, to_move));
    }
}

/// Each preference arc x -> y: whenever x wins, y wins. Returns the
/// arcs checked and how many of them Hex's order (y -> x) gets wrong.
fn check_arcs(arcs: &[Vec<usize>], wins: CellSet<1>, what: &str, stones: &Stones<1>) -> [usize; 2] {
    let mut n = [0, 0];
    for (x, ys) in arcs.iter().enumerate() {
        for &y in ys {
            n[0] += 1;
            assert!(
                !wins.contains(x) || wins.contains(y),
                "{what}: {x} wins and {y} does not in {stones:?}"
            );
            if wins.contains(y) && !wins.contains(x) {
                n[1] += 1;
            }
        }
    }
    n
}

fn add(total: &mut [usize; 2], n: [usize; 2]) {
    total[0] += n[0];
    total[1] += n[1];
}

#[test]
fn preferred_moves_win_whenever_the_moves_they_beat_win() {
    let mut counted = [[0; 2]; 3];
    each_position(4, |g, m, stones| {
        if !dead_cells(g, &stones).is_empty() {
            return;
        }
        let empty = g.all() - stones[0] - stones[1];
        for p in 0..2 {
            let wins = m.winning_moves(&stones, p);
            let mut arcs = vec![Vec::new(); g.cells()];
            victim_over_killer(&kills_of(g, &stones, p), empty, &mut arcs);
            add(
                &mut counted[0],
                check_arcs(&arcs, wins, "victim over killer", &stones),
            );
            let mut arcs = vec![Vec::new(); g.cells()];
            vulnerable_over_opponent_killer(&kills_of(g, &stones, 1 - p), empty, &mut arcs);
            add(
                &mut counted[1],
                check_arcs(&arcs, wins, "vulnerable over opponent killer", &stones),
            );
            let mut arcs = vec![Vec::new(); g.cells()];
            capturee_over_capturer(g, &stones, p, empty, &mut arcs);
            add(
                &mut counted[2],
                check_arcs(&arcs, wins, "capturee over capturer", &stones),
            );
        }
    });
    // Every rule fired, and Hex's order (killer, capturer first) would have
    // pruned the only winning moves somewhere: the check can fail.
    assert!(
        counted.iter().all(|n| n[0] > 20 && n[1] > 0),
        "arcs checked, and wrong the Hex way: {counted:?}"
    );
}

/// A join pairing of `player` on some of the cells of `carrier` (whose
/// cells the pairing need not all use), found by trying every subset.
fn join_pairing_inside(
    g: &Geometry<1>,
    stones: &Stones<1>,
    player: usize,
    carrier: CellSet<1>,
) -> bool {
    let cells: Vec<usize> = carrier.iter().collect();
    (0u32..1 << cells.len()).any(|mask| {
        let subset: CellSet<1> = (0..cells.len())
            .filter(|i| mask >> i & 1 == 1)
            .map(|i| cells[i])
            .collect();
        find_join_pairing(g, stones, player, subset).is_some()
    })
}

/// Solrex's augmented H-search: fulls from two semis that meet in pairs
/// captured around an end. Each side-to-side full it finds that plain
/// H-search does not find holds a join pairing, and the player loses
/// whoever moves; each key of a new semi loses for the player.
#[test]
fn semis_overlapping_on_captured_pairs_make_pairing_strategies() {
    let plain = VcParams {
        captured_overlap: false,
        ..VcParams::pairings()
    };
    let (mut fulls, mut keys) = (0, 0);
    // The rule adds a side-to-side pairing in about one position in a
    // thousand: many positions, minimax only where it does.
    for (rows, count, max_empty, seed) in [(5, 30000, 16, 33), (6, 10000, 18, 34)] {
        let (g, all) = filled_positions(rows, count, max_empty, seed, &RexRules::all());
        let mut m = Minimax::new(&g, true);
        for stones in all {
            for player in 0..2 {
                let exact = VcSet::build(&g, &stones, player, plain);
                let augmented = VcSet::build(&g, &stones, player, VcParams::pairings());
                if exact.smallest_edge_full().is_none()
                    && let Some(carrier) = augmented.smallest_edge_full()
                {
                    fulls += 1;
                    assert!(
                        carrier.count() > 12 || join_pairing_inside(&g, &stones, player, carrier),
                        "{stones:?}: no join pairing of {player} inside {carrier:?}"
                    );
                    for to_move in 0..2 {
                        assert_eq!(m.wins(&stones, to_move), to_move != player, "{stones:?}");
                    }
                }
                let old_keys: CellSet<1> = exact.edge_semis().map(|(_, k)| k).collect();
                for (_, key) in augmented
                    .edge_semis()
                    .filter(|(_, k)| !old_keys.contains(*k))
                {
                    keys += 1;
                    let mut after = stones;
                    after[player].insert(key);
                    if joined(&g, &after).is_none() {
                        assert!(
                            m.wins(&after, 1 - player) && !m.wins(&after, player),
                            "{stones:?}: key {key} of {player}"
                        );
                    }
                }
            }
        }
    }
    assert!(
        fulls + keys > 5,
        "{fulls} new join pairings, {keys} new pre-join keys"
    );
}

#[test]
fn pairing_strategies_found_by_h_search_hold() {
    let (mut fulls, mut semis) = (0, 0);
    each_position(5, |g, m, stones| {
        for player in 0..2 {
            let params = VcParams {
                captured_overlap: false,
                ..VcParams::pairings()
            };
            let vcs = VcSet::build(g, &stones, player, params);
            if let Some(carrier) = vcs.smallest_edge_full() {
                fulls += 1;
                // The pairing exists inside the carrier, and the player
                // loses whoever moves (theorem 4.1).
                let pairs = find_join_pairing(g, &stones, player, carrier);
                assert!(
                    pairs.is_some(),
                    "{stones:?}: no join pairing of {player} in {carrier:?}"
                );
                for to_move in 0..2 {
                    assert_eq!(m.wins(&stones, to_move), to_move != player, "{stones:?}");
                }
                continue;
            }
            for (carrier, key) in vcs.edge_semis() {
                semis += 1;
                let mut after = stones;
                after[player].insert(key);
                let pairs = find_join_pairing(g, &after, player, carrier.without(key));
                assert!(
                    pairs.is_some(),
                    "{stones:?}: key {key}, no pairing in {carrier:?}"
                );
                // The key loses for the player (theorem 4.1 one move on).
                if joined(g, &after).is_none() {
                    assert!(
                        m.wins(&after, 1 - player),
                        "{stones:?}: key {key} of {player}"
                    );
                    assert!(!m.wins(&after, player), "{stones:?}: key {key} of {player}");
                }
            }
            // Theorem 4.2: with a pre-join pairing, the player loses when
            // Last (the mover is Last when an odd number of cells is empty).
            if vcs.edge_semis().next().is_some() {
                let empty_odd = (g.all() - stones[0] - stones[1]).count() % 2 == 1;
                for to_move in 0..2 {
                    if (to_move == player) == empty_odd {
                        assert_eq!(m.wins(&stones, to_move), to_move != player, "{stones:?}");
                    }
                }
            }
        }
    });
    assert!(
        fulls > 10 && semis > 40,
        "{fulls} join pairings, {semis} pre-join pairings"
    );
}

#[test]
fn pairings_are_checked_cell_by_cell() {
    let g = geom(2, 2);
    let empty = [CellSet::EMPTY; 2];
    // Pairs {a1, b1} and {a2, b2}: Black with a1 and b2 is not joined
    // (they do not touch), so this is no join pairing.
    assert!(!is_join_pairing(&g, &empty, 0, &[(0, 1), (2, 3)]));
    // Pairs {a1, a2} and {b1, b2}: one of a1, a2 and one of b1, b2; a1
    // with b2 leaves Black apart, so not a join pairing either.
    assert!(!is_join_pairing(&g, &empty, 0, &[(0, 2), (1, 3)]));
    // With Black on b1 and a2 (joined), any pairing of the rest joins.
    let mut s = empty;
    s[0].insert(1);
    s[0].insert(2);
    assert!(is_join_pairing(&g, &s, 0, &[(0, 3)]));
}

#[test]
fn colour_symmetric_positions_are_won_by_notlast() {
    let mut seen = 0;
    for n in 2..=4 {
        let g = geom(n, n);
        let mut m = Minimax::new(&g, true);
        let mut rng = ChaCha8Rng::seed_from_u64(50 + n as u64);
        // Random White stones off the diagonal, Black's their reflection
        // (in one diagonal or the other).
        for _ in 0..60 {
            let mut white = CellSet::<1>::EMPTY;
            for c in 0..g.cells() {
                let (r, col) = (c / n, c % n);
                if r != col && r + col != n - 1 && rng.random_bool(0.3) {
                    white.insert(c);
                }
            }
            let t = g.transpose(white).unwrap();
            let black = if rng.random_bool(0.5) { t } else { g.rotate(t) };
            if black.intersects(&white) {
                continue;
            }
            let stones = [black, white];
            if joined(&g, &stones).is_some() {
                continue;
            }
            assert!(is_colour_symmetric(&g, &stones));
            for to_move in 0..2 {
                let last = mover_is_last(&g, &stones);
                seen += 1;
                assert_eq!(
                    m.wins(&stones, to_move),
                    !last,
                    "{n}x{n} {stones:?}, {to_move} to move"
                );
            }
        }
    }
    assert!(seen > 100, "{seen} symmetric positions");
}

#[test]
fn moves_into_colour_symmetry_win_exactly_for_notlast() {
    let mut seen = 0;
    for n in 3..=4 {
        let g = geom(n, n);
        let mut m = Minimax::new(&g, true);
        let mut rng = ChaCha8Rng::seed_from_u64(70 + n as u64);
        for stones in positions(&g, &mut rng, 3000, 14) {
            for to_move in 0..2 {
                let moves = symmetric_moves(&g, &stones, to_move);
                for c in moves.iter() {
                    seen += 1;
                    let mut after = stones;
                    after[to_move].insert(c);
                    assert!(is_colour_symmetric(&g, &after));
                    let wins = joined(&g, &after).is_none() && !m.wins(&after, 1 - to_move);
                    assert_eq!(wins, !mover_is_last(&g, &stones), "{stones:?}: {c}");
                }
            }
        }
    }
    assert!(seen > 10, "{seen} moves into symmetry");
}

/// Colour symmetry decides even where a lone dead cell would otherwise be
/// the only move searched: after 1.b1 on 7x7 the corner a1 is dead for
/// both players, and 2.a2 (b1's image in the a1 diagonal) wins at once,
/// since Black is then Last with 47 cells empty. With the dead cell
/// searched first, playing it would break the symmetry.
#[test]
fn colour_symmetry_decides_before_a_lone_dead_cell() {
    let g = geom(7, 7);
    let cell = |c: &str| g.dims().parse_cell(c).unwrap();
    let rules = Rules::rex();
    let mut ws = Workspace::new(&g, &rules);
    let mut stats = RuleStats::default();
    let mut node_of =
        |pos: &Position<1>| examine(&g, pos, [CellSet::EMPTY; 2], &rules, &mut stats, &mut ws);
    let after_b1 = Position::empty(&g).play(&g, cell("b1"));
    let played = [CellSet::single(cell("b1")), CellSet::EMPTY];
    assert!(dead_cells(&g, &played).contains(cell("a1")));
    assert_eq!(node_of(&after_b1), Node::Won(Some(cell("a2") as u16)));
    assert_eq!(node_of(&after_b1.play(&g, cell("a2"))), Node::Lost);
}
