//! Exact equilibria by LP: known values, agreement between methods and with
//! CFR+, and the checks the solver makes.

use std::fmt;

use darkhex_algorithms::lp::normal_form::{DEFAULT_MAX_STRATEGIES, normal_form, solve_normal_form};
use darkhex_algorithms::lp::{LpBackend, LpError, LpOptions, solve_sequence_form};
use darkhex_algorithms::{CfrSolver, CfrVariant, CompileOptions, GameTree, exploitability};
use darkhex_games::{Action, Game, GameError, NUM_PLAYERS, State, Token, Turn, load_game};
use serde_json::Value;

fn tree_of<G: Game>(game: &G) -> GameTree {
    GameTree::build(game, &CompileOptions::default()).unwrap()
}

fn tree(name: &str) -> GameTree {
    tree_of(&load_game(name).unwrap())
}

fn lp(t: &GameTree, full: bool) -> darkhex_algorithms::LpSolution {
    let options = LpOptions {
        backend: LpBackend::Clarabel,
        full,
        ..LpOptions::default()
    };
    solve_sequence_form(t, options, &|_| {}).unwrap()
}

#[test]
fn known_values() {
    let reference: Value =
        serde_json::from_str(include_str!("../../reference/openspiel.json")).unwrap();
    let mut checked = 0;
    for (name, facts) in reference["games"].as_object().unwrap() {
        let Some(value) = facts.get("value_p0").and_then(Value::as_f64) else {
            continue;
        };
        let t = tree(name);
        let s = lp(&t, false);
        assert!(
            (s.value_p0 - value).abs() < 1e-6,
            "{name}: {} vs {value}",
            s.value_p0
        );
        assert!(
            s.exploitability.exploitability < 1e-6,
            "{name}: {:?}",
            s.exploitability
        );
        assert!(
            s.policy.is_valid(&t, 1e-12),
            "{name}: a behaviour strategy is not a distribution"
        );
        checked += 1;
    }
    assert!(checked >= 5);
    let kuhn = lp(&tree("kuhn_poker"), false);
    assert!((kuhn.value_p0 + 1.0 / 18.0).abs() < 1e-7);
}

#[test]
fn the_lp_value_is_the_cfr_limit() {
    for name in [
        "leduc_poker",
        "liars_dice(dice_sides=3)",
        "liars_dice(numdice=2,dice_sides=2)",
        "dark_hex(num_rows=2,num_cols=3,gameversion=adh)",
        "dark_hex(num_rows=3,num_cols=2)",
    ] {
        let t = tree(name);
        let exact = lp(&t, false);
        let mut cfr = CfrSolver::new(&t, CfrVariant::Plus);
        cfr.run(300);
        let e = exploitability(&t, &cfr.average_policy());
        assert!(
            (e.value_p0 - exact.value_p0).abs() <= 2.0 * e.exploitability + 1e-9,
            "{name}: CFR+ {} (exploitability {}) vs LP {}",
            e.value_p0,
            e.exploitability,
            exact.value_p0
        );
    }
}

#[test]
fn restricted_supports_give_the_full_lp_value() {
    for name in [
        "dark_hex(num_rows=2,num_cols=3,gameversion=adh)",
        "dark_hex(num_rows=3,num_cols=2,gameversion=adh,disclosure=flash)",
    ] {
        let t = tree(name);
        let (restricted, full) = (lp(&t, false), lp(&t, true));
        assert!(
            restricted.support[0].0 < restricted.support[0].1,
            "{name} was not restricted"
        );
        assert!((restricted.value_p0 - full.value_p0).abs() < 1e-6, "{name}");
        assert!(
            restricted.exploitability.exploitability < 1e-6
                && full.exploitability.exploitability < 1e-6
        );
    }
}

#[test]
fn the_normal_form_and_the_simplex_agree() {
    for name in [
        "kuhn_poker",
        "dark_hex(num_rows=2,num_cols=2)",
        "dark_hex(num_rows=2,num_cols=2,gameversion=adh)",
        "dark_rex(num_rows=2,num_cols=2,gameversion=adh,disclosure=noise)",
    ] {
        let t = tree(name);
        let seq = lp(&t, true);
        let nf = normal_form(&t, DEFAULT_MAX_STRATEGIES).unwrap();
        let by_nf = solve_normal_form(&t, &nf, LpBackend::Clarabel).unwrap();
        let simplex = solve_sequence_form(
            &t,
            LpOptions {
                backend: LpBackend::Microlp,
                full: true,
                ..LpOptions::default()
            },
            &|_| {},
        )
        .unwrap();
        for (how, v, e) in [
            ("nf-lp", by_nf.value_p0, by_nf.exploitability.exploitability),
            (
                "microlp",
                simplex.value_p0,
                simplex.exploitability.exploitability,
            ),
        ] {
            assert!(
                (v - seq.value_p0).abs() < 1e-6,
                "{name} {how}: {v} vs {}",
                seq.value_p0
            );
            assert!(e < 1e-6, "{name} {how}: exploitability {e}");
        }
    }
    let e = normal_form(&tree("leduc_poker"), 1000)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("more than 1000") && e.contains("--method lp"),
        "{e}"
    );
}

/// A game without perfect recall: player 0 moves twice and forgets the
/// first move, so its second information state has two parent sequences.
#[derive(Clone, Debug)]
struct Forgetful;

#[derive(Clone, Debug)]
struct ForgetfulState(Vec<Action>);

impl fmt::Display for ForgetfulState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

impl Game for Forgetful {
    type State = ForgetfulState;
    fn new_initial_state(&self) -> ForgetfulState {
        ForgetfulState(Vec::new())
    }
    fn num_distinct_actions(&self) -> usize {
        2
    }
    fn max_game_length(&self) -> usize {
        2
    }
    fn game_string(&self) -> String {
        "forgetful".into()
    }
    fn min_utility(&self) -> f64 {
        -1.0
    }
    fn max_utility(&self) -> f64 {
        1.0
    }
    fn parse_action(&self, text: &str) -> Result<Action, GameError> {
        text.parse().map_err(|_| GameError::GameOver)
    }
    fn action_name(&self, action: Action) -> String {
        action.to_string()
    }
    fn describe_token(&self, token: Token) -> String {
        token.to_string()
    }
    fn info_state_actions(&self, player: usize, key: &[Token]) -> Result<Vec<Action>, String> {
        match (player, key) {
            (0, []) => Ok(vec![0, 1]),
            _ => Err("player 0 sees nothing; player 1 never moves".into()),
        }
    }
}

impl State for ForgetfulState {
    fn current_player(&self) -> Turn {
        if self.0.len() < 2 {
            Turn::Player(0)
        } else {
            Turn::Terminal
        }
    }
    fn legal_actions_into(&self, out: &mut Vec<Action>) {
        out.clear();
        if self.0.len() < 2 {
            out.extend([0, 1]);
        }
    }
    fn apply(&mut self, action: Action) {
        self.0.push(action);
    }
    fn check_action(&self, _: Action) -> Result<(), GameError> {
        Ok(())
    }
    fn returns(&self) -> [f64; NUM_PLAYERS] {
        if self.0.len() == 2 && self.0[0] == self.0[1] {
            [1.0, -1.0]
        } else {
            [-1.0, 1.0]
        }
    }
    fn info_key(&self, _player: usize) -> &[Token] {
        // Always the empty sequence: the first move is forgotten.
        &[]
    }
    fn history(&self) -> &[Action] {
        &self.0
    }
    fn view_string(&self, _player: usize) -> String {
        String::new()
    }
}

#[test]
fn imperfect_recall_is_refused() {
    let t = tree_of(&Forgetful);
    assert!(t.recall_violation().is_some());
    let e = solve_sequence_form(&t, LpOptions::default(), &|_| {}).unwrap_err();
    assert!(
        matches!(e, LpError::ImperfectRecall { player: 0, .. }),
        "{e}"
    );
    assert!(e.to_string().contains("perfect recall"));
}
