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
    // The classic 2x4 and 4x2 boards: hours of LP (up to 22 GB), seconds of PONE.
    let large = reference["large"].as_object().unwrap();
    assert_eq!(large.len(), 6);
    for (name, facts) in large {
        check_against(name, facts["value_p0"].as_f64().unwrap());
    }
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
                let strategy = extract_strategy(&search, &g, &r.from);
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

/// PONE by definition, over the real histories of each information state:
/// some move wins every history it can meet. Independent of the knowledge
/// abstraction; exponential, so for small boards only.
struct BruteForce {
    player: usize,
    memo: std::collections::HashMap<Vec<u16>, bool>,
}

impl BruteForce {
    /// All histories continuing `s` until `player` moves again (grouped by
    /// what they show the player); false if one of them is a loss.
    fn advance(
        &self,
        s: DarkHexState,
        groups: &mut std::collections::HashMap<Vec<u16>, Vec<DarkHexState>>,
    ) -> bool {
        match s.current_player() {
            Turn::Terminal => s.returns()[self.player] > 0.0,
            Turn::Player(q) if q == self.player => {
                groups.entry(s.info_key(q).to_vec()).or_default().push(s);
                true
            }
            Turn::Player(_) => s.legal_actions().into_iter().all(|a| {
                let mut t = s.clone();
                t.apply(a);
                self.advance(t, groups)
            }),
            Turn::Chance => unreachable!(),
        }
    }

    fn wins(&mut self, states: &[DarkHexState]) -> bool {
        let key = states[0].info_key(self.player).to_vec();
        if let Some(&w) = self.memo.get(&key) {
            return w;
        }
        let w = states[0].legal_actions().into_iter().any(|a| {
            let mut groups = std::collections::HashMap::new();
            let all_ok = states.iter().all(|s| {
                let mut t = s.clone();
                t.apply(a);
                self.advance(t, &mut groups)
            });
            all_ok && groups.values().all(|g| self.wins(g))
        });
        self.memo.insert(key, w);
        w
    }
}

fn agrees_with_the_definition(name: &str) {
    let g = dark(name);
    for player in 0..2 {
        let mut bf = BruteForce {
            player,
            memo: Default::default(),
        };
        let mut groups = std::collections::HashMap::new();
        assert!(bf.advance(g.new_initial_state(), &mut groups));
        let by_definition = groups.values().all(|states| bf.wins(states));
        let (r, _) = pone::solve(&g, player, &[]).unwrap();
        assert_eq!(r.wins, by_definition, "{name} player {player}");
    }
}

/// The 3x3 variants whose brute force takes many seconds (Dark Rex with
/// little disclosed); `pone_agrees_with_the_definition_everywhere` covers them.
const SLOW: [&str; 3] = [
    "dark_rex(num_rows=3,num_cols=3,gameversion=cdh,disclosure=none)",
    "dark_rex(num_rows=3,num_cols=3,gameversion=adh,disclosure=none)",
    "dark_rex(num_rows=3,num_cols=3,gameversion=adh,obstype=reveal-numturns)",
];

#[test]
fn pone_agrees_with_the_definition_on_3x3_boards() {
    for name in variants(3, 3)
        .iter()
        .filter(|n| !SLOW.contains(&n.as_str()))
    {
        agrees_with_the_definition(name);
    }
}

/// About two minutes: `cargo test --release -p darkhex-algorithms --test pone -- --ignored`.
#[test]
#[ignore]
fn pone_agrees_with_the_definition_everywhere() {
    for name in SLOW {
        agrees_with_the_definition(name);
    }
}

/// The knowledge states of `player` met on random playouts of `g`.
fn met_states(g: &DarkHexGame, player: usize, playouts: usize) -> Vec<pone::knowledge::Knowledge> {
    let rules = pone::rules_for(g, player).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    let mut out = Vec::new();
    for _ in 0..playouts {
        let mut s = g.new_initial_state();
        while let Turn::Player(p) = s.current_player() {
            if p == player {
                out.push(pone::knowledge(&rules, s.info_key(p)).unwrap());
            }
            let legal = s.legal_actions();
            s.apply(*legal.choose(&mut rng).unwrap());
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Threads meet a state and its rotation in any order: the move kept for a
/// state, and the count of states, must not depend on which came first
/// (they did: 60 to 66 states and three different strategies on 3x3).
#[test]
fn the_move_kept_for_a_state_does_not_depend_on_the_orientation_met_first() {
    let mut compared = 0;
    for name in variants(3, 3) {
        let g = dark(&name);
        for player in 0..2 {
            let rules = pone::rules_for(&g, player).unwrap();
            for k in met_states(&g, player, 30) {
                let turned = k.rotated(&rules.geometry);
                let straight = pone::search::Search::new(rules.clone());
                let mine = straight.winning_move(&k);
                let other_way = pone::search::Search::new(rules.clone());
                other_way.winning_move(&turned);
                assert_eq!(
                    other_way.winning_move(&k),
                    mine,
                    "{name} player {player}: {k:?}"
                );
                assert_eq!(other_way.states(), straight.states(), "{name} {k:?}");
                compared += 1;
            }
        }
    }
    assert!(compared > 1000, "{compared}");
}

/// The whole answer, strategy included, is the same on one thread and on
/// several, run after run.
#[test]
fn pone_gives_the_same_answer_and_strategy_on_any_number_of_threads() {
    for name in [
        "dark_hex(num_rows=3,num_cols=3)",
        "dark_hex(num_rows=3,num_cols=3,gameversion=adh,disclosure=flash)",
        "dark_rex(num_rows=3,num_cols=3,gameversion=cdh,disclosure=noise)",
    ] {
        let g = dark(name);
        for player in 0..2 {
            let run = |threads: usize| {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                pool.install(|| {
                    let (r, search) = pone::solve(&g, player, &[]).unwrap();
                    let strategy = r.wins.then(|| extract_strategy(&search, &g, &r.from));
                    (r.wins, r.winning_moves, r.states, strategy)
                })
            };
            let one = run(1);
            for threads in [1, 2, 4, 4] {
                assert_eq!(
                    run(threads),
                    one,
                    "{name} player {player}, {threads} threads"
                );
            }
        }
    }
}
