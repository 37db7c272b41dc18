//! The proof-number solver against plain exhaustive minimax: on random
//! positions of small boards, with either player to move, the value and the
//! set of winning moves agree, for Hex with every rule on (Rex: see
//! rex_solver.rs).

mod common;

use common::{assert_winners_match_minimax, check_board, fill_around, geom, positions};
use darkhex_games::board::Dims;
use darkhex_games::{CellSet, Geometry};
use darkhex_hexengine::hexsolve::edge_patterns::{EdgeFrame, EdgePattern, EdgePatterns};
use darkhex_hexengine::hexsolve::minimax::Minimax;
use darkhex_hexengine::hexsolve::{DfpnParams, HexSolver, Position, Rules};
use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

#[test]
fn hex_values_and_winning_moves_match_minimax() {
    for (i, (r, c)) in [(3, 3), (3, 4), (4, 3), (4, 4), (4, 5), (5, 5)]
        .into_iter()
        .enumerate()
    {
        check_board(r, c, Rules::hex(), 1, 25, 14, i as u64);
    }
}

/// Positions built around the small edge patterns (a pattern's stones,
/// its carrier empty, every other cell random) on 6x6 and 7x7: the values
/// and winning moves still match minimax, and the patterns were used.
#[test]
fn edge_patterns_keep_values() {
    let small: Vec<EdgePattern> = EdgePatterns::builtin()
        .since(0)
        .into_iter()
        .filter(|p| p.carrier.len() <= 11)
        .collect();
    let mut matched = 0;
    for (i, n) in [6, 7].into_iter().enumerate() {
        let g = geom(n, n);
        let mut rng = ChaCha8Rng::seed_from_u64(40 + i as u64);
        let mut m = Minimax::new(&g, false);
        let solver = HexSolver::new(&g, Rules::hex(), DfpnParams::default());
        let mut done = 0;
        while done < 12 {
            let p = &small[rng.random_range(0..small.len())];
            let (player, side) = (rng.random_range(0..2), rng.random_range(0..2));
            let frame = EdgeFrame::new(g.dims(), player, side);
            let a0 = rng.random_range(0..n as i64) as isize;
            let at = |&(e, a): &(i8, i8)| frame.cell(e as isize, a0 + a as isize);
            let (Some(e), Some(mine), Some(carrier)) = (
                at(&(p.depth, 0)),
                p.stones.iter().map(at).collect::<Option<CellSet<1>>>(),
                p.carrier.iter().map(at).collect::<Option<CellSet<1>>>(),
            ) else {
                continue;
            };
            let mut stones = [CellSet::EMPTY; 2];
            stones[player] = mine;
            let Some(stones) = fill_around(&g, &mut rng, stones, carrier.with(e), 16) else {
                continue;
            };
            done += 1;
            matched += assert_winners_match_minimax(&g, &solver, &mut m, stones).edge_matched;
        }
    }
    assert!(matched > 20, "{matched} connections from patterns");
}

/// Moves ordered by k-contribution in the position networks instead of
/// by resistance: the order changes the search, never the values.
#[test]
fn network_move_order_matches_minimax() {
    let rules = Rules {
        resistance_order: false,
        network_order: Some(1),
        ..Rules::hex()
    };
    check_board(4, 4, rules, 1, 15, 14, 91);
    check_board(5, 5, rules, 1, 10, 14, 92);
}

#[test]
fn hex_with_two_threads_matches_minimax() {
    check_board(4, 4, Rules::hex(), 2, 25, 14, 77);
    check_board(5, 5, Rules::hex(), 2, 15, 14, 78);
}

#[test]
fn empty_boards_have_their_known_values() {
    // The first player wins every square Hex board; these openings win on
    // 4x4 (Hayward's solutions of small boards, also minimax here).
    for n in 1..=5 {
        let g = Geometry::<1>::new(Dims::new("hex", n, n).unwrap()).unwrap();
        let solver = HexSolver::new(&g, Rules::hex(), DfpnParams::default());
        let out = solver.solve(&Position::empty(&g), &|_| {});
        assert_eq!(out.wins, Some(true), "{n}x{n}");
    }
    let g = geom(4, 4);
    let solver = HexSolver::new(&g, Rules::hex(), DfpnParams::default());
    let (values, _) = solver.move_values(&Position::empty(&g), &|_, _| {});
    let mut m = Minimax::new(&g, false);
    let want = m.winning_moves(&[CellSet::EMPTY; 2], 0);
    let got: CellSet<1> = values
        .iter()
        .filter(|v| v.1 == Some(true))
        .map(|v| v.0)
        .collect();
    assert_eq!(got, want);
}

/// Every move's value found by two threads, each solving moves of its
/// own: the seconds reported are the wall time of the whole, not the
/// searches' times added up (which, run side by side, count each second
/// about twice).
#[test]
fn move_values_report_wall_seconds() {
    let g = geom(5, 5);
    let params = DfpnParams {
        threads: 2,
        ..DfpnParams::default()
    };
    let solver = HexSolver::new(&g, Rules::hex(), params);
    let start = std::time::Instant::now();
    let (values, stats) = solver.move_values(&Position::empty(&g), &|_, _| {});
    let wall = start.elapsed().as_secs_f64();
    assert_eq!(values.len(), 25);
    assert!(
        stats.seconds > 0.0 && stats.seconds <= wall,
        "{} s reported, {wall} s of wall time",
        stats.seconds
    );
}

/// Proof sets: after each solve, the loser given every empty cell outside
/// the root's proof set still loses (by minimax), and the values agree with
/// the rule switched off.
#[test]
fn proof_sets_hold_and_keep_values() {
    let (mut proved, mut smaller) = (0, 0);
    for (i, (r, c)) in [(3, 4), (4, 4), (4, 5), (5, 5)].into_iter().enumerate() {
        let g = geom(r, c);
        let mut rng = ChaCha8Rng::seed_from_u64(200 + i as u64);
        let mut m = Minimax::new(&g, false);
        let params = DfpnParams {
            tt_mb: 16,
            ..DfpnParams::default()
        };
        let off = Rules {
            proof_sets: false,
            ..Rules::hex()
        };
        for stones in positions(&g, &mut rng, 30, 15) {
            for to_move in 0..2 {
                let pos = Position::new(&g, stones, to_move);
                // A fresh table each time, so the root is searched.
                let solver = HexSolver::new(&g, Rules::hex(), params);
                let wins = solver.solve(&pos, &|_| {}).wins.expect("solved");
                let proof = solver.proof_set(&pos).expect("the root is in the table");
                let loser = if wins { 1 - to_move } else { to_move };
                let mut reduced = stones;
                reduced[loser] |= pos.empty_cells(&g) - proof;
                proved += 1;
                if !(pos.empty_cells(&g) - proof).is_empty() {
                    smaller += 1;
                }
                assert_eq!(
                    m.wins(&reduced, to_move),
                    wins,
                    "{r}x{c} {stones:?} to move {to_move}: proof set {proof:?}"
                );
                let plain = HexSolver::new(&g, off, params);
                assert_eq!(plain.solve(&pos, &|_| {}).wins, Some(wins));
            }
        }
    }
    // The check means something only if proof sets leave cells out.
    assert!(
        smaller * 2 > proved,
        "{smaller} of {proved} proof sets leave cells out"
    );
}

#[test]
fn openings_searched_in_slices_keep_their_values() {
    // Every 6x6 opening with two threads, each search stopped after 8
    // positions and resumed from the table (then 32, 128, ...): the same
    // values as whole searches, and the losing openings of the 6x6 table
    // (docs/results/hex-solver.md, as Benzene gives them).
    let dims = Dims::new("hex", 6, 6).unwrap();
    let g = Geometry::<1>::new(dims).unwrap();
    let empty = Position::empty(&g);
    let values = |first_slice| {
        let params = DfpnParams {
            threads: 2,
            first_slice,
            ..DfpnParams::default()
        };
        let solver = HexSolver::new(&g, Rules::hex(), params);
        let (mut values, stats) = solver.move_values(&empty, &|_, _| {});
        values.sort_unstable();
        (values, stats.expansions)
    };
    let (sliced, examined) = values(Some(8));
    let (whole, _) = values(None);
    assert_eq!(sliced, whole);
    assert!(examined > 36 * 8, "some searches needed several slices");
    let losing: Vec<usize> = sliced
        .iter()
        .filter(|(_, wins)| *wins == Some(false))
        .map(|&(c, _)| c)
        .collect();
    let mut expected: Vec<usize> = [
        "a1", "b1", "c1", "d1", "e1", "a2", "f5", "b6", "c6", "d6", "e6", "f6",
    ]
    .iter()
    .map(|c| dims.parse_cell(c).unwrap())
    .collect();
    expected.sort_unstable();
    assert_eq!(losing, expected);
    assert!(sliced.iter().all(|(_, wins)| wins.is_some()));
    assert_eq!(sliced.len(), 36);
}

/// An expansion budget stops a search unsolved, after as many positions
/// on every run, with the root's proof and disproof numbers of that
/// moment; a search left to its end reports a proof's numbers.
#[test]
fn an_expansion_budget_stops_a_search_the_same_way_each_time() {
    use darkhex_hexengine::analyst::Budget;
    use darkhex_hexengine::hexsolve::openings::solve_positions;
    use darkhex_hexengine::hexsolve::tt::INF;
    use std::sync::atomic::AtomicBool;
    let game = |n| darkhex_games::hex::HexGame::new(Dims::new("hex", n, n).unwrap(), false);
    // 7x7 takes the solver minutes; 6x6 a few hundred positions.
    let (hard, easy) = (game(7), game(6));
    let positions = vec![vec![], vec![3], vec![24, 17]];
    let stop = AtomicBool::new(false);
    let budget = |m| Budget {
        tt_mb: 8,
        max_expansions: m,
        ..Budget::default()
    };
    let cut = solve_positions(&hard, &positions, budget(Some(20)), &stop, &|_, _| {}).unwrap();
    for v in &cut {
        assert_eq!(v.winner, None, "{v:?}");
        assert!((20..40).contains(&v.expansions), "{v:?}");
        assert!(v.bounds.phi > 0 && v.bounds.delta > 0, "{v:?}");
        assert!(v.bounds.phi < INF && v.bounds.delta < INF, "{v:?}");
    }
    let again = solve_positions(&hard, &positions, budget(Some(20)), &stop, &|_, _| {}).unwrap();
    let key = |v: &[darkhex_hexengine::hexsolve::openings::PositionValue]| {
        v.iter()
            .map(|v| (v.expansions, v.bounds))
            .collect::<Vec<_>>()
    };
    assert_eq!(key(&cut), key(&again));
    let full = solve_positions(&easy, &positions, budget(None), &stop, &|_, _| {}).unwrap();
    // The first player wins every empty square board.
    assert_eq!(full[0].winner, Some(0));
    for v in &full {
        let mover_wins = v.winner == Some(v.to_move);
        let want = if mover_wins { (0, INF) } else { (INF, 0) };
        assert_eq!((v.bounds.phi, v.bounds.delta), want, "{v:?}");
    }
}
