//! The `darkhex` command as a user runs it: outputs and errors.

mod common;

use common::{darkhex_with_input, json, ok, stderr, stdout};
use std::path::Path;
use std::process::Output;

/// Runs `darkhex args` where the tests run: these commands write no files.
fn darkhex(args: &[&str]) -> Output {
    common::darkhex(Path::new("."), args)
}

/// A failure is a non-zero exit with an error of at most two lines (what
/// failed, why) that mentions each of `needles` once, and never a panic.
fn assert_clean_failure(args: &[&str], needles: &[&str]) {
    let o = darkhex(args);
    let err = stderr(&o);
    assert!(!o.status.success(), "{args:?} succeeded");
    assert!(
        !err.contains("panicked") && !err.contains("backtrace"),
        "{args:?}: {err}"
    );
    let error: Vec<&str> = err
        .lines()
        .skip_while(|l| !l.starts_with("error:"))
        .filter(|l| !l.trim().is_empty() && !l.starts_with("For more information"))
        .collect();
    assert!(!error.is_empty(), "{args:?}: {err}");
    let text = error.join("\n");
    // clap's own errors add a usage block; ours are one or two lines.
    if !text.contains("Usage:") {
        assert!(error.len() <= 2, "{args:?}: more than two lines: {text}");
    }
    for n in needles {
        assert!(text.contains(n), "{args:?}: '{n}' missing from: {text}");
    }
    assert!(!text.contains("os error"), "{args:?}: {text}");
}

#[test]
fn info_json_has_the_documented_keys_and_values() {
    let v = json(&darkhex(&[
        "info",
        "dark_hex(num_rows=2,num_cols=2,gameversion=adh)",
        "--json",
    ]));
    assert_eq!(v["game"], "dark_hex(board_size=2,gameversion=adh)");
    assert_eq!(v["histories"], 471);
    assert_eq!(v["terminals"], 234);
    assert_eq!(v["infosets"], serde_json::json!([59, 35]));
    assert_eq!(v["perfect_recall"], true);
    assert!(v["sequences"][0].as_u64().unwrap() > 59);
    assert_eq!(v["max_depth"], 7);
}

#[test]
fn info_table_names_every_figure() {
    let o = darkhex(&["info", "kuhn_poker"]);
    let out = stdout(&o);
    for needle in [
        "histories         58",
        "terminals         30",
        "6 (player 0), 6 (player 1)",
        "perfect recall    yes",
    ] {
        assert!(out.contains(needle), "{needle} missing from {out}");
    }
}

#[test]
fn info_estimates_trees_over_the_limit_instead_of_walking_them() {
    let out = ok(&darkhex(&[
        "info",
        "hex(board_size=5)",
        "--max-histories",
        "1000",
    ]));
    assert!(
        out.contains("histories         about") && out.contains("not counted"),
        "{out}"
    );
    let v = json(&darkhex(&[
        "info",
        "dark_hex(num_rows=3,num_cols=3)",
        "--json",
        "--estimate-only",
    ]));
    assert_eq!(v["counted"], false);
    // Well over 10^10 histories: the estimate must say so, not walk for minutes.
    assert!(v["estimated_histories"].as_f64().unwrap() > 1e9, "{v}");
    // A dark game is counted from the tables, not by a longer walk, when
    // they fit; their size is estimated either way.
    let out = ok(&darkhex(&[
        "info",
        "dark_hex(num_rows=3,num_cols=3)",
        "--estimate-only",
    ]));
    assert!(
        out.contains("rerun without --estimate-only")
            && out.contains("observation seqs  about")
            && !out.contains("--max-histories"),
        "{out}"
    );
    let out = ok(&darkhex(&["info", "dark_hex(num_rows=4,num_cols=3)"]));
    assert!(
        out.contains("observation seqs  about")
            && out.contains("not counted       building them would need about")
            && out.contains("--max-memory-gb"),
        "{out}"
    );
}

#[test]
fn replay_prints_views_and_the_result() {
    let out = ok(&darkhex(&[
        "play",
        "dark_hex(num_rows=2,num_cols=2)",
        "--moves",
        "a1,a1,b2,a2",
    ]));
    assert!(out.contains("2. o a1 (hit)"), "{out}");
    assert!(
        out.contains("x (player 0) sees") && out.contains("o (player 1) sees"),
        "{out}"
    );
    assert!(out.contains("x wins"), "{out}");
}

/// Cards are read where chance deals and actions where a player acts: `bet`
/// is no deal, and the errors name what each step accepts, never an id.
#[test]
fn poker_moves_deal_cards_by_name_and_a_game_not_over_goes_on() {
    assert_clean_failure(
        &["play", "kuhn_poker", "--moves", "bet"],
        &["move 1 ('bet')", "chance deals a card here: one of J, Q, K"],
    );
    assert_clean_failure(
        &["play", "kuhn_poker", "--moves", "J,J"],
        &["move 2 ('J')", "chance deals a card here: one of Q, K"],
    );
    let err = stderr(&darkhex(&["play", "kuhn_poker", "--moves", "J,Q,K"]));
    assert!(
        err.contains("player 0 moves here: pass, bet") && !err.contains(" id"),
        "{err}"
    );
    let out = ok(&darkhex(&[
        "play",
        "leduc_poker",
        "--moves",
        "Js,Kh,call,raise,call,Qs,call,call",
    ]));
    assert!(
        out.contains("6. chance Qs") && out.contains("player 1 wins"),
        "{out}"
    );
    // Not over after the moves: the game goes on with the players given.
    let out = ok(&darkhex(&[
        "play",
        "kuhn_poker",
        "--moves",
        "J,Q,bet",
        "--p0",
        "random",
        "--p1",
        "lp",
    ]));
    assert!(
        out.contains("not over after 3 moves: player 1 moves: pass, bet; the game goes on"),
        "{out}"
    );
    // Player 1 (lp, holding Q) calls or folds; the game ends either way.
    assert!(out.contains(" wins; returns "), "{out}");
    // Without players, you play your seat: no input is a clear error.
    let o = darkhex_with_input(&["play", "kuhn_poker", "--moves", "J,Q"], "");
    assert!(!o.status.success());
    assert!(stderr(&o).contains("input ended"), "{}", stderr(&o));
    let o = darkhex_with_input(&["play", "kuhn_poker", "--moves", "J,Q"], "bet\n");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("game over"), "{}", stdout(&o));
}

#[test]
fn a_human_can_play_the_random_player() {
    // Black plays down column a on a 2x2 board: a1 then a2 wins unless the
    // random player took a2 first, in which case the human answers b2.
    let o = darkhex_with_input(
        &["play", "hex(board_size=2)", "--seed", "5"],
        "a1\nb1\na2\nb2\n",
    );
    let out = stdout(&o);
    assert!(o.status.success(), "{}{}", out, stderr(&o));
    assert!(out.contains("wins"), "{out}");
}

/// Typing `quit` ends the game as asked: exit status 0, no error.
#[test]
fn a_human_who_quits_is_not_an_error() {
    let o = darkhex_with_input(&["play", "hex(board_size=3)"], "quit\n");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("you quit the game"), "{}", stdout(&o));
    assert!(!stderr(&o).contains("error"), "{}", stderr(&o));
}

/// The memory a huge game would take is a number someone can read, not
/// forty digits of GB.
#[test]
fn a_huge_game_s_memory_is_printed_in_scientific_notation() {
    let o = darkhex_with_input(
        &[
            "solve",
            "dark_hex(num_rows=5,num_cols=5)",
            "--max-memory-gb",
            "8.6",
        ],
        "",
    );
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("e40 GB, more than the 8.6 GB that --max-memory-gb allows"),
        "{err}"
    );
    assert!(!err.contains("000000000"), "{err}");
}

#[test]
fn a_human_whose_input_ends_gets_an_error() {
    let o = darkhex_with_input(&["play", "hex(board_size=3)"], "");
    assert!(!o.status.success());
    assert!(stderr(&o).contains("input ended"), "{}", stderr(&o));
}

#[test]
fn bad_input_gives_one_clear_line() {
    assert_clean_failure(&["info", "chess"], &["unknown game 'chess'", "dark_hex"]);
    assert_clean_failure(
        &["info", "hex(size=3)"],
        &["'size'", "board_size, num_rows, num_cols"],
    );
    assert_clean_failure(&["info", "hex(board_size=0)"], &["'0'", "from 1 to 26"]);
    assert_clean_failure(&["info", "hex(board_size=99)"], &["'99'", "from 1 to 26"]);
    assert_clean_failure(
        &["info", "dark_hex(gameversion=bdh)"],
        &["'bdh'", "cdh, adh"],
    );
    assert_clean_failure(
        &["info", "dark_hex(obstype=all)"],
        &["reveal-nothing, reveal-numturns"],
    );
    assert_clean_failure(&["info", "hex(board_size=3"], &["expected ')'"]);
    assert_clean_failure(
        &["play", "hex(board_size=3)", "--moves", "b2,b2"],
        &["move 2", "b2", "already holds"],
    );
    assert_clean_failure(
        &["play", "hex(board_size=3)", "--moves", "b2,d9"],
        &["move 2", "a1 to c3"],
    );
    assert_clean_failure(
        &["play", "hex(board_size=3)", "--moves", "b2,,a1"],
        &["move 2"],
    );
    assert_clean_failure(
        &[
            "play",
            "dark_hex(num_rows=2,num_cols=2)",
            "--moves",
            "a1,b1,a1",
        ],
        &["move 3", "your own"],
    );
    assert_clean_failure(&["play", "kuhn_poker", "--moves", "J,J"], &["move 2"]);
    assert_clean_failure(
        &["play", "kuhn_poker", "--moves", "J,Q,raise"],
        &["move 3", "pass, check"],
    );
    assert_clean_failure(
        &["play", "hex(board_size=1)", "--moves", "a1,a1"],
        &["game is over"],
    );
    assert_clean_failure(&["play", "hex(board_size=3)", "--seat", "2"], &["2"]);
}

#[test]
fn the_showcase_solves_trains_and_rates() {
    let out = ok(&darkhex(&[]));
    assert!(out.contains("0.818182 (9/11)"), "{out}");
    assert!(
        out.contains("CFR+ for 200 iterations: exploitability"),
        "{out}"
    );
    for player in ["random", "ismcts", "cfr+ 200", "equilibrium"] {
        assert!(
            out.contains(&format!("| {player} |")),
            "{player} missing from {out}"
        );
    }
    assert!(out.contains("1200 games"), "{out}");
}
