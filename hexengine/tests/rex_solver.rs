//! The Rex solver against plain exhaustive minimax and the known theory.
//! On random positions of boards up to 5x5 with up to 14 empty cells,
//! either player to move, the value and the set of winning moves equal
//! minimax's, with one and two threads, with every rule on and with each
//! rule off in turn; the empty boards have the values Winder's strategy
//! stealing gives, and the openings the values Evans and Hayward et al.
//! proved.

mod common;

use common::{check_board, geom};
use darkhex_games::CellSet;
use darkhex_hexengine::hexsolve::rex::RexRules;
use darkhex_hexengine::hexsolve::vc::VcParams;
use darkhex_hexengine::hexsolve::{DfpnParams, HexSolver, Position, Rules};

const BOARDS: [(usize, usize); 5] = [(3, 3), (3, 4), (4, 4), (4, 5), (5, 5)];

#[test]
fn rex_values_and_winning_moves_match_minimax() {
    for (i, (r, c)) in BOARDS.into_iter().enumerate() {
        check_board(r, c, Rules::rex(), 1, 25, 14, 100 + i as u64);
    }
}

#[test]
fn rex_with_two_threads_matches_minimax() {
    check_board(4, 4, Rules::rex(), 2, 25, 14, 120);
    check_board(5, 5, Rules::rex(), 2, 15, 14, 121);
}

/// Solrex's augmented H-search, off by default, switched on.
#[test]
fn rex_with_captured_overlap_matches_minimax() {
    let rules = Rules {
        vc: VcParams {
            captured_overlap: true,
            ..Rules::rex().vc
        },
        ..Rules::rex()
    };
    check_board(4, 4, rules, 1, 15, 14, 130);
    check_board(5, 5, rules, 2, 15, 14, 131);
}

/// Each rule off in turn: the rest still give minimax's values (a rule
/// may lean on another only through the positions it leaves).
#[test]
fn rex_with_each_rule_off_matches_minimax() {
    let all = RexRules::all();
    let off: [(&str, Rules); 11] = [
        (
            "dead-move",
            Rules {
                rex: RexRules {
                    dead_move: false,
                    ..all
                },
                ..Rules::rex()
            },
        ),
        (
            "dead-fill",
            Rules {
                rex: RexRules {
                    dead_fill: false,
                    ..all
                },
                ..Rules::rex()
            },
        ),
        (
            "clique-cutsets",
            Rules {
                rex: RexRules {
                    clique_cutsets: false,
                    ..all
                },
                ..Rules::rex()
            },
        ),
        (
            "capture-fill",
            Rules {
                rex: RexRules {
                    capture_fill: false,
                    ..all
                },
                ..Rules::rex()
            },
        ),
        (
            "mutual-fill",
            Rules {
                rex: RexRules {
                    mutual_fill: false,
                    ..all
                },
                ..Rules::rex()
            },
        ),
        (
            "preferences",
            Rules {
                rex: RexRules {
                    preferences: false,
                    ..all
                },
                ..Rules::rex()
            },
        ),
        (
            "pairings",
            Rules {
                rex: RexRules {
                    pairings: false,
                    ..all
                },
                ..Rules::rex()
            },
        ),
        (
            "decompositions",
            Rules {
                rex: RexRules {
                    decompositions: false,
                    ..all
                },
                ..Rules::rex()
            },
        ),
        (
            "colour-symmetry",
            Rules {
                rex: RexRules {
                    colour_symmetry: false,
                    ..all
                },
                ..Rules::rex()
            },
        ),
        (
            "symmetry",
            Rules {
                symmetry: false,
                ..Rules::rex()
            },
        ),
        (
            "resistance-order",
            Rules {
                resistance_order: false,
                ..Rules::rex()
            },
        ),
    ];
    for (i, (name, rules)) in off.into_iter().enumerate() {
        eprintln!("without {name}");
        check_board(4, 4, rules, 1, 8, 13, 200 + i as u64);
        check_board(4, 5, rules, 1, 4, 13, 300 + i as u64);
    }
}

/// The first player wins Rex on the even boards and loses on the odd
/// ones (Winder's strategy-stealing argument, in Gardner's 1957 column);
/// the opening in an acute corner wins on even boards (Evans, 1974), and
/// so does the cell next to it on the opener's side from 4x4 on
/// (Hayward, Toft and Henderson, 2012).
#[test]
fn empty_boards_and_openings_have_their_known_values() {
    for n in 1..=5 {
        let g = geom(n, n);
        let params = DfpnParams {
            threads: 2,
            ..DfpnParams::for_game(true)
        };
        let solver = HexSolver::new(&g, Rules::rex(), params);
        let out = solver.solve(&Position::empty(&g), &|_| {});
        assert_eq!(out.wins, Some(n % 2 == 0), "{n}x{n}");
    }
    for n in [2, 4] {
        let g = geom(n, n);
        let solver = HexSolver::new(&g, Rules::rex(), DfpnParams::for_game(true));
        let empty = Position::empty(&g);
        // a1, and b1 (the cell beside the acute corner on Black's side).
        let openings: &[usize] = if n == 2 { &[0] } else { &[0, 1] };
        for &c in openings {
            let out = solver.solve(&empty.play(&g, c), &|_| {});
            assert_eq!(
                out.wins,
                Some(false),
                "{n}x{n}: White should lose after Black's {c}"
            );
        }
    }
}

/// Solrex's answers to the acute-corner opening of 5x5 (every reply
/// White can make after Black's a1; the winning replies as listed in
/// src/rextests/rex5x5opening.dat of github kenjyoung/benzene, the
/// Solrex repository): all but d2, c3 and b4 win for White.
#[test]
fn the_acute_corner_opening_of_5x5_as_solrex_answers_it() {
    let g = geom(5, 5);
    let params = DfpnParams {
        threads: 2,
        ..DfpnParams::for_game(true)
    };
    let solver = HexSolver::new(&g, Rules::rex(), params);
    let dims = g.dims();
    let after = Position::empty(&g).play(&g, dims.parse_cell("a1").unwrap());
    let (values, _) = solver.move_values(&after, &|_, _| {});
    let losing: CellSet<1> = values
        .iter()
        .filter(|v| v.1 == Some(false))
        .map(|v| v.0)
        .collect();
    let want: CellSet<1> = ["d2", "c3", "b4"]
        .iter()
        .map(|c| dims.parse_cell(c).unwrap())
        .collect();
    assert!(values.iter().all(|v| v.1.is_some()));
    assert_eq!(values.len(), 24);
    assert_eq!(losing, want);
}

/// Solrex's answers on random 5x5 positions (the first 40 of Solrex's
/// own regression file, hexengine/tests/data/solrex-random5x5.txt names
/// it): five stones, White first, then Black to move; every winning move
/// of Black is the set Solrex lists.
#[test]
fn random_5x5_positions_as_solrex_answers_them() {
    let g = geom(5, 5);
    let dims = g.dims();
    let cells = |s: &str| -> Vec<usize> {
        s.split_whitespace()
            .map(|c| dims.parse_cell(c).unwrap())
            .collect()
    };
    let fixture = include_str!("data/solrex-random5x5.txt");
    let mut checked = 0;
    for line in fixture.lines().filter(|l| !l.starts_with('#')) {
        let (moves, wins) = line.split_once(':').unwrap();
        let mut stones = [CellSet::<1>::EMPTY; 2];
        for (i, c) in cells(moves).into_iter().enumerate() {
            // White (1) plays the first stone, Black (0) the second.
            stones[1 - i % 2].insert(c);
        }
        let pos = Position::new(&g, stones, 0);
        let solver = HexSolver::new(&g, Rules::rex(), DfpnParams::for_game(true));
        let (values, _) = solver.move_values(&pos, &|_, _| {});
        assert!(values.iter().all(|v| v.1.is_some()), "{line}");
        let winning: CellSet<1> = values
            .iter()
            .filter(|v| v.1 == Some(true))
            .map(|v| v.0)
            .collect();
        let want: CellSet<1> = cells(wins).into_iter().collect();
        assert_eq!(winning, want, "{line}");
        checked += 1;
    }
    assert_eq!(checked, 40);
}
