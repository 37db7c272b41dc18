//! Inferior cells checked against exhaustive minimax on small positions: a
//! dead cell's colour changes no value, fill-in changes no value, and no
//! pruned move is the only winning one.

mod common;

use common::{geom, positions};
use darkhex_algorithms::hexsolve::inferior::{analyse, dead_cells};
use darkhex_algorithms::hexsolve::minimax::Minimax;
use darkhex_algorithms::hexsolve::position::joined;
use darkhex_games::CellSet;
use darkhex_games::board::{BLACK, WHITE};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

const BOARDS: [(usize, usize); 5] = [(3, 3), (3, 4), (4, 3), (4, 4), (5, 5)];

#[test]
fn a_dead_cell_changes_no_value_coloured_either_way() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut found = 0;
    for (r, c) in BOARDS {
        let g = geom(r, c);
        let mut m = Minimax::new(&g, false);
        for s in positions(&g, &mut rng, 120, 12) {
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

#[test]
fn fill_in_changes_no_value_and_no_pruned_move_is_the_only_winner() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let (mut filled_cells, mut pruned_cells, mut wins_checked) = (0, 0, 0);
    for (r, c) in BOARDS {
        let g = geom(r, c);
        let mut m = Minimax::new(&g, false);
        for s in positions(&g, &mut rng, 120, 12) {
            for to_move in [BLACK, WHITE] {
                let inf = analyse(&g, &s, to_move);
                let value = m.wins(&s, to_move);
                assert_eq!(
                    m.wins(&inf.filled, to_move),
                    value,
                    "{r}x{c} {s:?}: fill-in {:?}",
                    inf.fill
                );
                filled_cells += inf.fill[0].count() + inf.fill[1].count();
                if joined(&g, &inf.filled).is_some() {
                    continue;
                }
                let pruned = inf.prunable();
                pruned_cells += pruned.count();
                if value {
                    let winners = m.winning_moves(&inf.filled, to_move);
                    assert!(
                        !winners.is_subset(&pruned),
                        "{r}x{c} {s:?} to move {to_move}: every winner {winners:?} pruned ({:?} / {:?})",
                        inf.vulnerable,
                        inf.dominated
                    );
                    wins_checked += 1;
                }
                // A dominated cell that wins has a dominator that wins.
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
                }
            }
        }
    }
    assert!(
        filled_cells > 100 && pruned_cells > 100 && wins_checked > 100,
        "{filled_cells} {pruned_cells} {wins_checked}"
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
