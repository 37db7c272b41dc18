//! `darkhex pone` as a user runs it.

mod common;

use common::{darkhex, json, stderr, stdout};

#[test]
fn pone_answers_writes_and_verifies_a_strategy() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let v = json(&darkhex(
        d,
        &[
            "pone",
            "dark_hex(num_rows=3,num_cols=3)",
            "--strategy-out",
            "s.json",
            "--verify",
            "--json",
        ],
    ));
    assert_eq!(v["wins"], true);
    assert_eq!(v["player"], 0);
    assert_eq!(v["winning_moves"], serde_json::json!(["c1", "a3"]));
    assert!(v["states"].as_u64().unwrap() > 0 && v["seconds"].as_f64().is_some());
    assert!(v["verified_terminals"].as_u64().unwrap() > 1000);
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("s.json")).unwrap()).unwrap();
    assert_eq!(s["format"], "darkhex-pone-strategy");

    let o = darkhex(
        d,
        &[
            "pone",
            "dark_hex(num_rows=3,num_cols=3,gameversion=adh)",
            "--player",
            "1",
        ],
    );
    let out = stdout(&o);
    assert!(
        o.status.success() && out.contains("probability one  no"),
        "{out}"
    );
    let o = darkhex(d, &["pone", "hex(board_size=3)"]);
    assert!(stderr(&o).contains("dark games"));
    let o = darkhex(d, &["pone", "dark_hex(board_size=9)"]);
    assert!(stderr(&o).contains("64 cells"));
}

/// The text a run prints with its timings taken out.
fn without_timings(out: &str) -> String {
    out.lines()
        .filter(|l| !l.starts_with("seconds"))
        .map(|l| match l.find(" (") {
            Some(i) if l.starts_with("verified") => &l[..i],
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn two_runs_on_any_number_of_threads_print_and_write_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = |threads: &str, file: &str, json: bool| {
        let mut args = vec![
            "pone",
            "dark_hex(num_rows=3,num_cols=3)",
            "--strategy-out",
            file,
            "--verify",
            "--threads",
            threads,
        ];
        if json {
            args.push("--json");
        }
        let o = darkhex(d, &args);
        assert!(o.status.success(), "{}", stderr(&o));
        let bytes = std::fs::read(d.join(file)).unwrap();
        (stdout(&o), bytes)
    };
    let (first, strategy) = run("1", "a.bin", false);
    assert!(first.contains("states searched  60"), "{first}");
    assert!(first.contains("(15 information states)"), "{first}");
    assert!(
        first.contains("all 13476 endings of 46814 histories"),
        "{first}"
    );
    for (i, threads) in ["2", "1", "2", "4", "2"].iter().enumerate() {
        let file = format!("b{i}.bin");
        let (out, bytes) = run(threads, &file, false);
        assert_eq!(
            without_timings(&out).replace(&file, "a.bin"),
            without_timings(&first),
            "{threads} threads"
        );
        assert!(
            bytes == strategy,
            "{threads} threads: the strategy file differs"
        );
    }
    let json_of = |threads: &str, file: &str| {
        let (out, bytes) = run(threads, file, true);
        let mut v: serde_json::Value = serde_json::from_str(&out).unwrap();
        v.as_object_mut().unwrap().remove("seconds");
        v.as_object_mut().unwrap().remove("strategy");
        (v, bytes)
    };
    let (one, json_one) = json_of("1", "s1.json");
    let (two, json_two) = json_of("2", "s2.json");
    assert_eq!(one, two);
    assert_eq!(json_one, json_two);
    assert_eq!(one["states"], 60);
    assert_eq!(one["verified_histories"], 46814);
}

/// A strategy file is checked for the player it was written for: another
/// --player is refused, saying whose strategy the file holds; the same
/// player (or none) checks it.
#[test]
fn check_strategy_refuses_a_player_the_file_is_not_for() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let game = "dark_hex(num_rows=3,num_cols=3)";
    let o = darkhex(d, &["pone", game, "--strategy-out", "s.json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = darkhex(
        d,
        &["pone", game, "--player", "1", "--check-strategy", "s.json"],
    );
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("--player 1 does not match s.json, a strategy for player 0"),
        "{}",
        stderr(&o)
    );
    for player in [&["--player", "0"][..], &[]] {
        let args = [&["pone", game, "--check-strategy", "s.json"][..], player].concat();
        let o = darkhex(d, &args);
        assert!(
            o.status.success() && stdout(&o).contains("player 0's strategy"),
            "{}",
            stderr(&o)
        );
    }
}

/// A "no" writes no strategy, and says so on stderr and in the JSON
/// rather than leave --strategy-out's file missing without a word.
#[test]
fn no_strategy_written_for_a_no_is_said() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let args = [
        "pone",
        "dark_hex(num_rows=3,num_cols=3,gameversion=adh)",
        "--player",
        "1",
        "--strategy-out",
        "s.json",
    ];
    let o = darkhex(d, &args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("probability one  no"), "{}", stdout(&o));
    let says = "no strategy written: player 1 does not win with probability one";
    assert!(stderr(&o).contains(says), "{}", stderr(&o));
    assert!(!d.join("s.json").exists());
    let v = json(&darkhex(d, &[&args[..], &["--json"]].concat()));
    assert_eq!(v["wins"], false);
    assert_eq!(v["strategy"], serde_json::Value::Null);
    assert_eq!(v["strategy_not_written"], says);
    assert!(!d.join("s.json").exists());
}
