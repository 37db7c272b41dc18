//! PONE against the LP, its strategies against an exhaustive check, and its
//! knowledge states against real games.

use darkhex_algorithms::lp::{LpOptions, solve_sequence_form};
use darkhex_algorithms::pone::{self, VerifyError, extract_strategy, verify_strategy};
use darkhex_algorithms::{CompileOptions, GameTree};
use darkhex_games::dark_hex::{DarkHexGame, DarkHexState};
use darkhex_games::{AnyGame, Game, State, Turn, load_game};
use rand::SeedableRng;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;

fn dark(name: &str) -> DarkHexGame {
    match load_game(name).unwrap() {
        AnyGame::DarkHex(g) => g,
        _ => unreachable!(),
    }
}

fn variants(rows: usize, cols: usize) -> Vec<String> {
    let mut out = Vec::new();
    for base in ["dark_hex", "dark_rex"] {
        for version in ["cdh", "adh"] {
            for disclosure in ["none", "noise", "flash"] {
                out.push(format!("{base}(num_rows={rows},num_cols={cols},gameversion={version},disclosure={disclosure})"));
            }
            out.push(format!("{base}(num_rows={rows},num_cols={cols},gameversion={version},obstype=reveal-numturns)"));
        }
    }
    out
}

fn check_against(name: &str, value: f64) -> usize {
    let g = dark(name);
    let mut sure = 0;
    for player in 0..2 {
        let (r, _) = pone::solve(&g, player, &[]).unwrap();
        let target = if player == 0 { 1.0 } else { -1.0 };
        let lp_says = (value - target).abs() < 1e-6;
        assert_eq!(
            r.wins, lp_says,
            "{name} player {player}: PONE {} but the LP value is {value}",
            r.wins
        );
        sure += usize::from(r.wins);
    }
    sure
}

#[test]
fn pone_says_yes_exactly_when_the_lp_value_is_a_sure_win() {
    // Values the LP computed (scripts/lp_values.py): every variant of the
    // 2x2, 2x3 and 3x2 boards, Dark Hex and Dark Rex.
    let reference: serde_json::Value =
        serde_json::from_str(include_str!("../../reference/lp_values.json")).unwrap();
    let games = reference["games"].as_object().unwrap();
    assert_eq!(games.len(), 48);
    let mut sure = 0;
    for (name, facts) in games {
        sure += check_against(name, facts["value_p0"].as_f64().unwrap());
    }
    assert!(
        sure >= 10,
        "only {sure} sure wins: the check needs both answers"
    );
    // And the LP run here, on the boards it solves in a moment.
    for name in variants(2, 2).iter().chain(&variants(2, 3)[..4]) {
        let g = dark(name);
        let tree = GameTree::build(&g, &CompileOptions::default()).unwrap();
        let value = solve_sequence_form(&tree, LpOptions::default(), &|_| {})
            .unwrap()
            .value_p0;
        check_against(name, value);
    }
}

#[test]
fn every_strategy_up_to_3x3_survives_the_exhaustive_check() {
    let mut checked = 0;
    for (rows, cols) in [(2, 2), (2, 3), (3, 2), (3, 3)] {
        for name in variants(rows, cols) {
            let g = dark(&name);
            for player in 0..2 {
                let (r, search) = pone::solve(&g, player, &[]).unwrap();
                if !r.wins {
                    continue;
                }
                let rules = pone::rules_for(&g, player).unwrap();
                let root = pone::knowledge(&rules, &r.from).unwrap();
                let strategy = extract_strategy(&search, &g, &r.from, &root);
                let report = verify_strategy(&g, &strategy, 100_000_000)
                    .unwrap_or_else(|e| panic!("{name} player {player}: {e}"));
                assert!(report.terminals > 0);
                // Break one move: the check must notice.
                let mut broken = strategy.clone();
                let (_, first) = broken.moves.iter_mut().find(|(k, _)| *k == r.from).unwrap();
                let other = (0..g.dims().cells() as u16)
                    .find(|c| !r.winning_moves.contains(&(*c as usize)))
                    .unwrap_or(*first);
                if other != *first {
                    *first = other;
                    let e = verify_strategy(&g, &broken, 100_000_000).unwrap_err();
                    assert!(
                        matches!(e, VerifyError::Loses { .. } | VerifyError::Missing { .. }),
                        "{name}: {e}"
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 20, "{checked}");
}

/// The real hidden stones of the opponent, as the player would list them.
fn hidden_of(state: &DarkHexState, player: usize) -> u64 {
    let b = state.board();
    (0..state.game().dims().cells())
        .filter(|&c| b.stone(c) == Some(1 - player) && !b.is_revealed(c))
        .fold(0, |m, c| m | 1 << c)
}

#[test]
fn knowledge_states_contain_the_real_board() {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    for (rows, cols) in [(3, 3), (3, 4), (4, 4)] {
        for name in variants(rows, cols) {
            let g = dark(&name);
            let rules = [
                pone::rules_for(&g, 0).unwrap(),
                pone::rules_for(&g, 1).unwrap(),
            ];
            for _ in 0..40 {
                let mut s = g.new_initial_state();
                while let Turn::Player(p) = s.current_player() {
                    let k = pone::knowledge(&rules[p], s.info_key(p))
                        .unwrap_or_else(|| panic!("{name}: no knowledge"));
                    let own = (0..rows * cols)
                        .filter(|&c| s.board().stone(c) == Some(p))
                        .fold(0u64, |m, c| m | 1 << c);
                    assert_eq!(k.own, own, "{name}");
                    let worlds = k.worlds(&rules[p]);
                    assert!(
                        worlds.sets.contains(&hidden_of(&s, p)),
                        "{name}: the real board is not among the worlds"
                    );
                    let legal = s.legal_actions();
                    s.apply(*legal.choose(&mut rng).unwrap());
                }
            }
        }
    }
}

#[test]
fn bad_requests_are_refused() {
    let big = dark("dark_hex(num_rows=9,num_cols=9)");
    assert!(
        pone::solve(&big, 0, &[])
            .err()
            .unwrap()
            .to_string()
            .contains("64 cells")
    );
    let g = dark("dark_hex(num_rows=3,num_cols=3)");
    assert!(pone::solve(&g, 2, &[]).is_err());
    assert!(pone::solve(&g, 0, &[0x7777]).is_err());
}
