//! `darkhex bounds` as a user runs it, and its bound for a hand-written
//! 4x3 strategy against a brute-force best response: the game with
//! Black's moves fixed by the strategy, compiled into a tree (small,
//! where the whole game has about 1.9e16 histories), and the tree's
//! best response, which shares nothing with the support-restricted walk.

mod common;

use std::fmt;

use common::{darkhex, json};
use darkhex_algorithms::policy_file::InfosetPolicy;
use darkhex_algorithms::{
    CompileOptions, GameTree, PolicyFile, Provenance, TreePolicy, best_response,
};
use darkhex_games::{Action, AnyGame, Game, GameError, State, Token, Turn, load_game};

/// Black's hand-written strategy: the first cell, in this order, that is
/// empty in its view (the middle column from the top, then the sides).
const ORDER: [Action; 12] = [1, 4, 7, 10, 0, 3, 6, 9, 2, 5, 8, 11];

/// CFR+ on `game` for `iterations`, its average written to p.json in `d`.
fn train_cfr_plus(d: &std::path::Path, game: &str, iterations: &str) {
    common::ok(&darkhex(
        d,
        &[
            "train",
            game,
            "--algo",
            "cfr+",
            "--iterations",
            iterations,
            "--out",
            "p.json",
        ],
    ));
}

fn preferred(legal: &[Action]) -> Action {
    *ORDER.iter().find(|a| legal.contains(a)).unwrap()
}

/// The game with Black's only legal move the strategy's.
#[derive(Clone, Debug)]
struct Fixed(AnyGame);

#[derive(Clone, Debug)]
struct FixedState(<AnyGame as Game>::State);

impl fmt::Display for FixedState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl Game for Fixed {
    type State = FixedState;
    fn new_initial_state(&self) -> FixedState {
        FixedState(self.0.new_initial_state())
    }
    fn num_distinct_actions(&self) -> usize {
        self.0.num_distinct_actions()
    }
    fn max_game_length(&self) -> usize {
        self.0.max_game_length()
    }
    fn game_string(&self) -> String {
        self.0.game_string()
    }
    fn min_utility(&self) -> f64 {
        self.0.min_utility()
    }
    fn max_utility(&self) -> f64 {
        self.0.max_utility()
    }
    fn parse_action(&self, text: &str) -> Result<Action, GameError> {
        self.0.parse_action(text)
    }
    fn action_name(&self, action: Action) -> String {
        self.0.action_name(action)
    }
    fn describe_token(&self, token: Token) -> String {
        self.0.describe_token(token)
    }
    fn info_state_actions(&self, player: usize, key: &[Token]) -> Result<Vec<Action>, String> {
        let legal = self.0.info_state_actions(player, key)?;
        Ok(if player == 0 {
            vec![preferred(&legal)]
        } else {
            legal
        })
    }
}

impl State for FixedState {
    fn current_player(&self) -> Turn {
        self.0.current_player()
    }
    fn legal_actions_into(&self, out: &mut Vec<Action>) {
        self.0.legal_actions_into(out);
        if self.0.current_player() == Turn::Player(0) {
            let a = preferred(out);
            out.clear();
            out.push(a);
        }
    }
    fn apply(&mut self, action: Action) {
        self.0.apply(action)
    }
    fn check_action(&self, action: Action) -> Result<(), GameError> {
        self.0.check_action(action)
    }
    fn returns(&self) -> [f64; 2] {
        self.0.returns()
    }
    fn info_key(&self, player: usize) -> &[Token] {
        self.0.info_key(player)
    }
    fn history(&self) -> &[Action] {
        self.0.history()
    }
    fn view_string(&self, player: usize) -> String {
        self.0.view_string(player)
    }
}

#[test]
fn a_hand_written_4x3_strategy_s_bound_is_the_brute_force_best_response() {
    // Abrupt: its restricted tree has 1.5e7 nodes, classic's 4.7e7 (a
    // minute to compile).
    {
        let name = "dark_hex(num_rows=4,num_cols=3,gameversion=adh)".to_string();
        let game = load_game(&name).unwrap();
        let fixed = Fixed(game);
        let tree = GameTree::build(&fixed, &CompileOptions::default()).unwrap();
        let brute = -best_response(&tree, &TreePolicy::uniform(&tree), 1).value;
        // The strategy as a policy file: Black's move at every information
        // state of the tree, among the real game's legal actions there.
        let table = tree.infosets(0);
        let mut infosets: [Vec<InfosetPolicy>; 2] = Default::default();
        infosets[0] = (0..table.len())
            .map(|i| {
                let key = table.keys[i].to_vec();
                let actions = game.info_state_actions(0, &key).unwrap();
                let chosen = preferred(&actions);
                let probs = actions
                    .iter()
                    .map(|&a| f64::from(u8::from(a == chosen)))
                    .collect();
                InfosetPolicy {
                    key,
                    actions,
                    probs,
                }
            })
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        PolicyFile::new(&name, Provenance::default(), infosets)
            .save(&d.join("black.json"))
            .unwrap();
        let v = json(&darkhex(
            d,
            &[
                "bounds",
                &name,
                "--black",
                "black.json",
                "--response-to-black",
                "white.json",
                "--verify",
                "--json",
            ],
        ));
        let lower = v["lower"].as_f64().unwrap();
        assert!(
            (lower - brute).abs() < 1e-12,
            "{name}: bounds says {lower}, the tree's best response {brute}"
        );
        // The strategy is known to White, who always wins against it.
        assert_eq!(lower, -1.0);
        // The walk visited exactly the histories the strategy allows.
        assert_eq!(v["black"]["histories"], tree.num_nodes() as u64);
        assert!(v["upper"].is_null());
        assert_eq!(v["black"]["verified"], true);
        assert_eq!(v["black"]["lacking"], 0);
        // White's response is pure on the states it reaches against this
        // strategy only: uniform elsewhere, it meets all of Black's
        // histories, and the walk is refused with its estimate.
        let o = darkhex(
            d,
            &[
                "bounds",
                &name,
                "--white",
                "white.json",
                "--missing",
                "uniform",
            ],
        );
        let err = common::stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(
            err.contains("more than --max-work") && err.contains("histories"),
            "{err}"
        );
    }
}

#[test]
fn the_bounds_are_the_exact_best_responses_and_a_sure_win_proves_one() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let game = "dark_hex(num_rows=2,num_cols=3,gameversion=adh)";
    train_cfr_plus(d, game, "50");
    let e = json(&darkhex(d, &["exploit", game, "p.json", "--json"]));
    let v = json(&darkhex(
        d,
        &[
            "bounds", game, "--black", "p.json", "--white", "p.json", "--verify", "--json",
        ],
    ));
    let br = |p: usize| e["best_response_values"][p].as_f64().unwrap();
    let (lower, upper) = (v["lower"].as_f64().unwrap(), v["upper"].as_f64().unwrap());
    assert!((lower + br(1)).abs() < 1e-12, "{v} {e}");
    assert!((upper - br(0)).abs() < 1e-12, "{v} {e}");
    assert!((v["width"].as_f64().unwrap() - (upper - lower)).abs() < 1e-15);
    assert_eq!(v["white"]["verified"], true);
    // Saved, then resumed from the saved parts: the same bounds, bit for bit.
    let both = [
        "bounds", game, "--black", "p.json", "--white", "p.json", "--json",
    ];
    let with = |extra: &[&'static str]| {
        let mut a = both.to_vec();
        a.extend_from_slice(extra);
        json(&darkhex(d, &a))
    };
    let saved = with(&["--checkpoint", "b.progress"]);
    let resumed = with(&["--checkpoint", "b.progress"]);
    for key in ["lower", "upper"] {
        assert_eq!(
            saved[key].as_f64().unwrap().to_bits(),
            v[key].as_f64().unwrap().to_bits()
        );
        assert_eq!(resumed[key], saved[key]);
    }
    assert_eq!(resumed["black"]["histories"], v["black"]["histories"]);

    // PONE's strategy for Black on classic 3x3 wins with probability one.
    let game = "dark_hex(num_rows=3,num_cols=3)";
    common::ok(&darkhex(d, &["pone", game, "--strategy-out", "s.json"]));
    let v = json(&darkhex(
        d,
        &["bounds", game, "--black", "s.json", "--json"],
    ));
    assert_eq!(v["lower"], 1.0);
    // ... and is refused as White's.
    let o = darkhex(d, &["bounds", game, "--white", "s.json"]);
    assert!(common::stderr(&o).contains("PONE strategy for player 0, not for player 1"));
}

/// `--threshold`: the bounds of a CFR+ policy cut as it is read are the
/// compiled tree's best responses (`exploit`) to the policy cut here, on
/// its own, and written out.
#[test]
fn a_threshold_bounds_the_cut_policy_as_the_tree_does() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let game = "dark_hex(num_rows=3,num_cols=2,gameversion=adh)";
    train_cfr_plus(d, game, "30");
    let threshold = 0.25;
    let mut file = PolicyFile::load(&d.join("p.json")).unwrap();
    let mut mixed = 0;
    for e in file.infosets.iter_mut().flatten() {
        if e.probs.iter().any(|&p| p >= threshold) {
            e.probs
                .iter_mut()
                .filter(|p| **p < threshold)
                .for_each(|p| *p = 0.0);
        } else {
            // The first most likely action alone.
            let max = e.probs.iter().copied().fold(0.0, f64::max);
            let first = e.probs.iter().position(|&p| p == max).unwrap();
            e.probs = (0..e.probs.len())
                .map(|k| f64::from(u8::from(k == first)))
                .collect();
        }
        let total: f64 = e.probs.iter().sum();
        e.probs.iter_mut().for_each(|p| *p /= total);
        mixed += usize::from(e.probs.iter().filter(|&&p| p > 0.0).count() > 1);
    }
    assert!(mixed > 0, "the cut policy is pure");
    file.save(&d.join("cut.json")).unwrap();
    let e = json(&darkhex(d, &["exploit", game, "cut.json", "--json"]));
    let v = json(&darkhex(
        d,
        &[
            "bounds",
            game,
            "--black",
            "p.json",
            "--white",
            "p.json",
            "--threshold",
            "0.25",
            "--verify",
            "--json",
        ],
    ));
    let br = |p: usize| e["best_response_values"][p].as_f64().unwrap();
    let (lower, upper) = (v["lower"].as_f64().unwrap(), v["upper"].as_f64().unwrap());
    assert!((lower + br(1)).abs() < 1e-12, "{v} {e}");
    assert!((upper - br(0)).abs() < 1e-12, "{v} {e}");
    assert_eq!(v["threshold"], threshold);
    assert_eq!(v["black"]["verified"], true);
    common::assert_refused(
        d,
        &["bounds", game, "--black", "p.json", "--threshold", "1.5"],
        "0 to 1",
    );
    common::assert_refused(
        d,
        &["bounds", game, "--double-oracle", "--threshold", "0.2"],
        "cannot be used with",
    );
}

/// `--cut-black`, `--cut-white`: an abstract MCCFR policy cut as it is
/// read and written as walked is a policy file, under the view's keys,
/// that proves the same bounds without --threshold (bit for bit), that
/// `exploit`'s compiled tree best-responds to alike and that `play` plays;
/// it names its source; a resumed walk writes the same file.
#[test]
fn the_cut_strategy_written_proves_the_same_bounds_on_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for game in [
        "dark_hex(num_rows=2,num_cols=3,gameversion=adh)",
        "dark_hex(num_rows=3,num_cols=2)",
    ] {
        common::ok(&darkhex(
            d,
            &[
                "train",
                game,
                "--algo",
                "os-mccfr",
                "--abstraction",
                "view-rot180",
                "--iterations",
                "100000",
                "--threads",
                "1",
                "--out",
                "s.bin",
            ],
        ));
        let cut = [
            "bounds",
            game,
            "--black",
            "s.bin",
            "--white",
            "s.bin",
            "--threshold",
            "0.2",
            "--missing",
            "lowest",
            "--cut-black",
            "cb.json",
            "--cut-white",
            "cw.bin",
            "--json",
        ];
        let v = json(&darkhex(d, &cut));
        let w = json(&darkhex(
            d,
            &[
                "bounds", game, "--black", "cb.json", "--white", "cw.bin", "--verify", "--json",
            ],
        ));
        for key in ["lower", "upper"] {
            assert_eq!(
                w[key].as_f64().unwrap().to_bits(),
                v[key].as_f64().unwrap().to_bits(),
                "{game} {key}: {v} {w}"
            );
        }
        assert!(v["width"].as_f64().unwrap() > 0.0, "{game}: {v}");
        for (seat, side, file) in [(0, "black", "cb.json"), (1, "white", "cw.bin")] {
            let written = PolicyFile::load(&d.join(file)).unwrap();
            assert_eq!(written.abstraction.as_deref(), Some("view"));
            assert_eq!(
                written.infosets[seat].len() as u64,
                v[side]["cut_info_states"].as_u64().unwrap()
            );
            assert!(written.infosets[1 - seat].is_empty());
            let from = written.cut.unwrap();
            let source = std::fs::read(d.join("s.bin")).unwrap();
            assert_eq!(from.source_crc32, crc32fast::hash(&source));
            assert_eq!(from.source_bytes, source.len() as u64);
            assert_eq!(
                (from.threshold, from.missing.as_str()),
                (Some(0.2), "lowest")
            );
            // The compiled tree's best response to the file alone.
            let e = json(&darkhex(d, &["exploit", game, file, "--json"]));
            let br = e["best_response_values"][1 - seat].as_f64().unwrap();
            let bound = v[side]["bound"].as_f64().unwrap();
            let bound_by_tree = if seat == 0 { -br } else { br };
            assert!(
                (bound - bound_by_tree).abs() < 1e-12,
                "{game} {side}: {v} {e}"
            );
        }
        let policy = "policy(file=cb.json)";
        common::ok(&darkhex(
            d,
            &["play", game, "--p0", policy, "--p1", "random"],
        ));
        // Resumed from parts walked without --cut-*: walked again, the same file.
        let first = std::fs::read(d.join("cw.bin")).unwrap();
        common::ok(&darkhex(
            d,
            &[
                "bounds",
                game,
                "--white",
                "s.bin",
                "--threshold",
                "0.2",
                "--missing",
                "lowest",
                "--checkpoint",
                "c.progress",
            ],
        ));
        let mut again = cut.to_vec();
        again.extend(["--checkpoint", "c.progress"]);
        common::ok(&darkhex(d, &again));
        assert_eq!(std::fs::read(d.join("cw.bin")).unwrap(), first, "{game}");
        std::fs::remove_file(d.join("c.progress")).unwrap();
    }
    common::assert_refused(
        d,
        &[
            "bounds",
            "kuhn_poker",
            "--white",
            "s.bin",
            "--cut-black",
            "c.json",
        ],
        "--black",
    );
}

#[test]
fn the_double_oracle_closes_on_the_value_and_bounds_verifies_its_certificates() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let game = "dark_hex(num_rows=2,num_cols=3,gameversion=adh)";
    let run = |extra: &[&str]| {
        let mut a = vec!["bounds", game, "--double-oracle", "--json"];
        a.extend_from_slice(extra);
        json(&darkhex(d, &a))
    };
    let found = run(&["--out-black", "b.json", "--out-white", "w.json"]);
    let (lower, upper) = (
        found["lower"].as_f64().unwrap(),
        found["upper"].as_f64().unwrap(),
    );
    // The value on the results page (small-boards.md): 9/11.
    assert!((lower - 9.0 / 11.0).abs() < 1e-12, "{found}");
    assert!((upper - 9.0 / 11.0).abs() < 1e-12, "{found}");
    assert_eq!(found["finish"], "the bounds met");
    let verified = json(&darkhex(
        d,
        &[
            "bounds", game, "--black", "b.json", "--white", "w.json", "--verify", "--json",
        ],
    ));
    assert_eq!(verified["lower"], found["lower"], "{verified}");
    assert_eq!(verified["upper"], found["upper"], "{verified}");

    // Seeded with a purified CFR+ policy, stopped after two iterations and
    // resumed from the checkpoint: the same closed interval.
    train_cfr_plus(d, game, "20");
    let seeded = ["--seed-file", "p.json", "--checkpoint", "d.progress"];
    let first = run(&[&seeded[..], &["--max-iterations", "2"]].concat());
    assert_eq!(first["iterations"], 2);
    assert_eq!(first["finish"], "--max-iterations reached");
    let resumed = run(&seeded);
    assert!(resumed["iterations"].as_u64().unwrap() > 2);
    assert!(resumed["width"].as_f64().unwrap() <= 1e-12, "{resumed}");
    assert!((resumed["lower"].as_f64().unwrap() - 9.0 / 11.0).abs() < 1e-12);

    // A seed of another kind is refused by name.
    let o = darkhex(
        d,
        &[
            "bounds",
            game,
            "--double-oracle",
            "--seed-file",
            "d.progress",
        ],
    );
    assert!(common::stderr(&o).contains("a seed is a policy file or a PONE strategy"));
}
