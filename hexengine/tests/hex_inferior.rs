//! Inferior cells checked against exhaustive minimax on small positions: a
//! dead cell's colour changes no value, fill-in changes no value, and no
//! pruned move is the only winning one.

mod common;

use common::{geom, positions};
use darkhex_games::CellSet;
use darkhex_games::board::{BLACK, WHITE};
use darkhex_hexengine::hexsolve::captured_search::{CaptureCache, is_captured, template_carriers};
use darkhex_hexengine::hexsolve::decompose::sealed_regions;
use darkhex_hexengine::hexsolve::inferior::{
    analyse, dead_cells, neighbour_dominated, path_dominated,
};
use darkhex_hexengine::hexsolve::minimax::Minimax;
use darkhex_hexengine::hexsolve::position::joined;
use darkhex_hexengine::hexsolve::vc::{VcParams, VcSet};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const BOARDS: [(usize, usize); 5] = [(3, 3), (3, 4), (4, 3), (4, 4), (5, 5)];

#[test]
fn a_dead_cell_changes_no_value_coloured_either_way() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut found = 0;
    for (r, c) in BOARDS {
        let g = geom(r, c);
        let mut m = Minimax::new(&g, false);
        for s in positions(&g, &mut rng, 60, 12) {
            for x in dead_cells(&g, &s).iter() {
                for to_move in [BLACK, WHITE] {
                    let mut b = s;
                    b[BLACK].insert(x);
                    let mut w = s;
                    w[WHITE].insert(x);
                    assert_eq!(
                        m.wins(&b, to_move),
                        m.wins(&w, to_move),
                        "{r}x{c} {s:?} dead {x}"
                    );
                }
                found += 1;
            }
        }
    }
    assert!(found > 200, "{found}");
}

/// What [`check_against_minimax`] looked at.
#[derive(Default)]
struct Checked {
    filled_cells: usize,
    pruned_cells: usize,
    wins_checked: usize,
    arcs_checked: usize,
}

/// Fill-in keeps the value, not every winning move is pruned, and a
/// dominated cell that wins has a dominator that wins.
fn check_against_minimax(
    g: &darkhex_games::Geometry<1>,
    m: &mut Minimax<1>,
    s: &[CellSet<1>; 2],
    to_move: usize,
    checked: &mut Checked,
) {
    let (r, c) = (g.dims().rows(), g.dims().cols());
    let inf = analyse(g, s, to_move);
    let value = m.wins(s, to_move);
    assert_eq!(
        m.wins(&inf.filled, to_move),
        value,
        "{r}x{c} {s:?}: fill-in {:?}",
        inf.fill
    );
    checked.filled_cells += inf.fill[0].count() + inf.fill[1].count();
    if joined(g, &inf.filled).is_some() {
        return;
    }
    let pruned = inf.prunable();
    checked.pruned_cells += pruned.count();
    if value {
        let winners = m.winning_moves(&inf.filled, to_move);
        assert!(
            !winners.is_subset(&pruned),
            "{r}x{c} {s:?} to move {to_move}: every winner {winners:?} pruned ({:?} / {:?})",
            inf.vulnerable,
            inf.dominated
        );
        checked.wins_checked += 1;
    }
    for &(x, y) in &inf.dominated {
        let mut with_x = inf.filled;
        with_x[to_move].insert(x);
        let mut with_y = inf.filled;
        with_y[to_move].insert(y);
        if !m.wins(&with_x, 1 - to_move) {
            assert!(
                !m.wins(&with_y, 1 - to_move),
                "{s:?}: {x} wins, its dominator {y} does not"
            );
        }
        checked.arcs_checked += 1;
    }
}

#[test]
fn fill_in_changes_no_value_and_no_pruned_move_is_the_only_winner() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let mut checked = Checked::default();
    for (r, c) in BOARDS {
        let g = geom(r, c);
        let mut m = Minimax::new(&g, false);
        for s in positions(&g, &mut rng, 120, 12) {
            for to_move in [BLACK, WHITE] {
                check_against_minimax(&g, &mut m, &s, to_move, &mut checked);
            }
        }
    }
    let Checked {
        filled_cells,
        pruned_cells,
        wins_checked,
        ..
    } = checked;
    assert!(
        filled_cells > 100 && pruned_cells > 100 && wins_checked > 100,
        "{filled_cells} {pruned_cells} {wins_checked}"
    );
}

/// Henderson and Hayward's path- and neighbourhood-domination, each on
/// its own: wherever the player's stone on the dominated cell wins, the
/// stone on the dominating cell wins too (opponent to move), by minimax.
#[test]
fn path_and_neighbourhood_dominations_hold_against_minimax() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut counts = [0usize; 2];
    let mut live = 0;
    for (r, c) in BOARDS {
        let g = geom(r, c);
        let mut m = Minimax::new(&g, false);
        for s in positions(&g, &mut rng, 80, 12) {
            if joined(&g, &s).is_some() {
                continue;
            }
            let empty = g.all() - s[0] - s[1];
            for player in [BLACK, WHITE] {
                let rules = [
                    path_dominated(&g, &s, player, empty),
                    neighbour_dominated(&g, &s, player, empty),
                ];
                for (rule, arcs) in rules.iter().enumerate() {
                    for &(x, y) in arcs {
                        let mut with_x = s;
                        with_x[player].insert(x);
                        let mut with_y = s;
                        with_y[player].insert(y);
                        if !m.wins(&with_x, 1 - player) {
                            live += 1;
                            assert!(
                                !m.wins(&with_y, 1 - player),
                                "{r}x{c} {s:?} player {player} rule {rule}: {x} wins, {y} does not"
                            );
                        }
                        counts[rule] += 1;
                    }
                }
            }
        }
    }
    assert!(
        counts[0] > 200 && counts[1] > 200 && live > 200,
        "{counts:?} {live}"
    );
}

/// The nine cells of a 4-3-2 into an acute corner, for either player and
/// corner, in (row, column), as Henderson and Hayward's Theorem 2 needs them.
fn corner_cells(rows: usize, cols: usize, player: usize, far: bool) -> Vec<(usize, usize)> {
    [
        (0, 0),
        (0, 1),
        (0, 2),
        (0, 3),
        (1, 0),
        (1, 1),
        (1, 2),
        (2, 0),
        (2, 1),
    ]
    .into_iter()
    .map(|(r, c)| if player == BLACK { (r, c) } else { (c, r) })
    .map(|(r, c)| {
        if far {
            (rows - 1 - r, cols - 1 - c)
        } else {
            (r, c)
        }
    })
    .collect()
}

#[test]
fn acute_corner_dominations_hold_against_minimax() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut checked = Checked::default();
    let mut corner_arcs = 0;
    for (r, c) in [(4, 4), (4, 5), (5, 4), (5, 5)] {
        let g = geom(r, c);
        let mut m = Minimax::new(&g, false);
        for player in [BLACK, WHITE] {
            for far in [false, true] {
                let corner: CellSet<1> = corner_cells(r, c, player, far)
                    .into_iter()
                    .map(|(row, col)| g.dims().cell(row, col))
                    .collect();
                // The captor and the stone cell: the last three of the nine.
                let dominators: CellSet<1> = corner_cells(r, c, player, far)[6..]
                    .iter()
                    .filter(|&&rc| rc != corner_cells(r, c, player, far)[7])
                    .map(|&(row, col)| g.dims().cell(row, col))
                    .collect();
                let mut found = 0;
                while found < 40 {
                    let mut s = [CellSet::EMPTY; 2];
                    let mut rest: Vec<usize> = (g.all() - corner).iter().collect();
                    let stones = rest.len() - rng.random_range(0..4.min(rest.len() + 1));
                    for i in 0..stones {
                        let k = rng.random_range(0..rest.len());
                        s[i % 2].insert(rest.swap_remove(k));
                    }
                    if joined(&g, &s).is_some() {
                        continue;
                    }
                    found += 1;
                    check_against_minimax(&g, &mut m, &s, player, &mut checked);
                    corner_arcs += analyse(&g, &s, player)
                        .dominated
                        .iter()
                        .filter(|&&(x, y)| dominators.contains(y) && corner.contains(x))
                        .count();
                }
            }
        }
    }
    assert!(
        checked.arcs_checked > 500 && corner_arcs > 300,
        "{} {corner_arcs}",
        checked.arcs_checked
    );
}

#[test]
fn the_edge_bridge_carrier_is_captured() {
    // Black b2 on a 3x3 board's second row, Black to move elsewhere: a3 and
    // b3 under it are Black-captured.
    let g = geom(3, 3);
    let b2 = g.dims().parse_cell("b2").unwrap();
    let stones = [
        CellSet::single(b2),
        CellSet::single(g.dims().parse_cell("c1").unwrap()),
    ];
    let inf = analyse(&g, &stones, WHITE);
    let a3 = g.dims().parse_cell("a3").unwrap();
    let b3 = g.dims().parse_cell("b3").unwrap();
    assert!(
        inf.fill[BLACK].contains(a3) && inf.fill[BLACK].contains(b3),
        "{:?}",
        inf.fill
    );
}

#[test]
fn sealed_regions_change_no_value() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let mut sealed_cells = 0;
    for (r, c) in [(4, 4), (4, 5), (5, 4), (5, 5)] {
        let g = geom(r, c);
        let mut m = Minimax::new(&g, false);
        for s in positions(&g, &mut rng, 300, 14) {
            for q in [BLACK, WHITE] {
                let vcs = VcSet::build(&g, &s, q, VcParams::default());
                if vcs.edge_full() {
                    continue;
                }
                let sealed = sealed_regions(&g, &s, &vcs);
                if sealed.is_empty() {
                    continue;
                }
                sealed_cells += sealed.count();
                let mut filled = s;
                filled[q] |= sealed;
                for to_move in [BLACK, WHITE] {
                    assert_eq!(
                        m.wins(&filled, to_move),
                        m.wins(&s, to_move),
                        "{r}x{c} {s:?}: {sealed:?} sealed for {q}"
                    );
                }
            }
        }
    }
    assert!(sealed_cells > 200, "{sealed_cells}");
}

/// Random positions holding a stone on the third row with an empty 4-3-2
/// carrier in front of it, the other cells mostly filled.
fn template_positions(
    g: &darkhex_games::Geometry<1>,
    rng: &mut ChaCha8Rng,
    count: usize,
) -> Vec<([CellSet<1>; 2], usize, CellSet<1>)> {
    let mut out = Vec::new();
    while out.len() < count {
        let p = rng.random_range(0..2usize);
        let s = rng.random_range(0..g.cells());
        let mut stones = [CellSet::EMPTY; 2];
        stones[p].insert(s);
        let carriers = template_carriers(g, &stones, p);
        if carriers.is_empty() {
            continue;
        }
        let carrier = carriers[rng.random_range(0..carriers.len())];
        for c in (g.all() - carrier).without(s).iter() {
            if rng.random_bool(0.75) {
                stones[rng.random_range(0..2usize)].insert(c);
            }
        }
        let empty = g.all() - stones[0] - stones[1];
        if joined(g, &stones).is_none()
            && empty.count() <= 14
            && template_carriers(g, &stones, p).contains(&carrier)
        {
            out.push((stones, p, carrier));
        }
    }
    out
}

#[test]
fn template_carriers_found_captured_change_no_value() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let (mut captured, mut refused) = (0, 0);
    for (r, c) in [(4, 4), (4, 5), (5, 4), (5, 5)] {
        let g = geom(r, c);
        let mut m = Minimax::new(&g, false);
        let mut cache = CaptureCache::new();
        for (s, p, carrier) in template_positions(&g, &mut rng, 150) {
            if !is_captured(&g, &s, p, carrier, &mut cache) {
                refused += 1;
                continue;
            }
            captured += 1;
            let mut filled = s;
            filled[p] |= carrier;
            for to_move in [BLACK, WHITE] {
                assert_eq!(
                    m.wins(&s, to_move),
                    m.wins(&filled, to_move),
                    "{r}x{c} {s:?} player {p} carrier {carrier:?} to move {to_move}"
                );
            }
        }
    }
    // Both answers occur, so the test tells a wrong rule from no rule.
    assert!(
        captured >= 40 && refused >= 40,
        "{captured} captured, {refused} refused"
    );
}
