//! What a new user hits: bad files and parameters refused with one clear
//! error, no training lost to Ctrl-C or an unwritable path, reports that do
//! not depend on timing, and games that can be replayed from a league log.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use common::{darkhex, json, ok, stderr, stdout};

const SMALL: &str = "dark_hex(num_rows=2,num_cols=2)";

fn policy_json(game: &str, infosets: serde_json::Value) -> String {
    serde_json::json!({
        "format": "darkhex-policy",
        "version": 1,
        "game": game,
        "algorithm": "hand",
        "parameters": {},
        "iterations": 0,
        "exploitability": null,
        "infosets": infosets,
    })
    .to_string()
}

/// Fails unless `args` fails with an error mentioning every needle.
fn refused(dir: &Path, args: &[&str], needles: &[&str]) {
    let o = darkhex(dir, args);
    let err = stderr(&o);
    assert!(!o.status.success(), "{args:?} was accepted");
    assert!(!err.contains("panicked"), "{err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: '{n}' missing from {err}");
    }
}

/// An edited action list names the bad id, not a name it does not have.
#[test]
fn a_policy_listing_an_action_the_game_lacks_names_its_id() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Player 0 holding Js (token 0x100) may call or raise.
    let text = policy_json(
        "leduc_poker",
        serde_json::json!([[{"key": [256], "actions": [1, 7], "probs": [0.5, 0.5]}], []]),
    );
    std::fs::write(d.join("edited.json"), text).unwrap();
    refused(
        d,
        &[
            "play",
            "leduc_poker",
            "--p0",
            "policy(file=edited.json)",
            "--p1",
            "random",
        ],
        &[
            "lists action id 7, which is no action of the game (its ids run from 0 to 2)",
            "the legal actions there are call raise",
        ],
    );
    let text = policy_json(
        "leduc_poker",
        serde_json::json!([[{"key": [256], "actions": [0, 1], "probs": [0.5, 0.5]}], []]),
    );
    std::fs::write(d.join("fold.json"), text).unwrap();
    refused(
        d,
        &["exploit", "leduc_poker", "fold.json"],
        &["lists fold (id 0), not legal there and lacks raise (id 2)"],
    );
}

#[test]
fn malformed_policies_are_refused_by_every_consumer() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Player 0 at the start of 2x2 Dark Hex has the four cells a1 b1 a2 b2.
    let cases = [
        (
            "negative.json",
            policy_json(
                SMALL,
                serde_json::json!([[{"key": [], "actions": [0, 1, 2, 3], "probs": [1.5, -0.5, 0.0, 0.0]}], []]),
            ),
            "not a distribution",
        ),
        (
            "unnormalised.json",
            policy_json(
                SMALL,
                serde_json::json!([[{"key": [], "actions": [0, 1, 2, 3], "probs": [0.5, 0.5, 0.5, 0.0]}], []]),
            ),
            "not a distribution",
        ),
        (
            "illegal.json",
            // After placing a1, a1 is no longer a legal move for player 0.
            policy_json(
                SMALL,
                serde_json::json!([[{"key": [0, 8192], "actions": [0, 1, 2, 3], "probs": [0.25, 0.25, 0.25, 0.25]}], []]),
            ),
            "not one this game shows",
        ),
        (
            "legality.json",
            policy_json(
                SMALL,
                serde_json::json!([[{"key": [0], "actions": [0, 1, 2, 3], "probs": [0.25, 0.25, 0.25, 0.25]}], []]),
            ),
            "where the legal ones are b1 a2 b2",
        ),
        (
            "other_game.json",
            policy_json(
                "dark_hex(num_rows=2,num_cols=3)",
                serde_json::json!([[], []]),
            ),
            "num_cols 3 vs 2",
        ),
    ];
    for (name, text, needle) in cases {
        std::fs::write(d.join(name), text).unwrap();
        let spec = format!("policy(file={name})");
        refused(d, &["exploit", SMALL, name], &[needle]);
        refused(
            d,
            &["play", SMALL, "--p0", &spec, "--p1", "random"],
            &[needle],
        );
        refused(
            d,
            &[
                "league",
                "--game",
                SMALL,
                "--players",
                &format!("{spec},random"),
                "--out",
                "L",
            ],
            &[needle],
        );
    }
}

#[test]
fn a_policy_with_missing_states_is_counted_where_it_falls_back() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Only player 0's first decision: everything else falls back to uniform.
    std::fs::write(
        d.join("thin.json"),
        policy_json(
            SMALL,
            serde_json::json!([[{"key": [], "actions": [0, 1, 2, 3], "probs": [0.0, 1.0, 0.0, 0.0]}], []]),
        ),
    )
    .unwrap();
    let o = darkhex(
        d,
        &[
            "play",
            SMALL,
            "--p0",
            "policy(file=thin.json)",
            "--p1",
            "random",
        ],
    );
    let (out, err) = (ok(&o), stderr(&o));
    assert!(
        err.contains("lacks") && err.contains("information states"),
        "{err}"
    );
    assert!(
        out.lines().any(|l| l == "x b1"),
        "the policy's first move is b1: {out}"
    );
    let o = darkhex(
        d,
        &[
            "league",
            "--game",
            SMALL,
            "--players",
            "policy(file=thin.json),random",
            "--games",
            "20",
            "--out",
            "L",
        ],
    );
    let out = ok(&o);
    assert!(out.contains("played uniformly at"), "{out}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("L/report.json")).unwrap()).unwrap();
    let row = report["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "policy(file=thin.json)")
        .unwrap()
        .clone();
    let (fallbacks, decisions) = (
        row["uniform_fallbacks"].as_u64().unwrap(),
        row["decisions"].as_u64().unwrap(),
    );
    // Its first move of the 10 games it opens is covered; nothing else is.
    assert_eq!(decisions - fallbacks, 10, "{row}");
}

#[test]
fn each_file_kind_is_named_with_the_command_that_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&darkhex(
        d,
        &[
            "pone",
            "dark_hex(num_rows=2,num_cols=2)",
            "--strategy-out",
            "s.json",
        ],
    ));
    refused(
        d,
        &["exploit", SMALL, "s.json"],
        &["is a darkhex PONE strategy", "--check-strategy"],
    );
    let checked = ok(&darkhex(d, &["pone", SMALL, "--check-strategy", "s.json"]));
    assert!(checked.contains("wins all"), "{checked}");
    ok(&darkhex(
        d,
        &[
            "train",
            "kuhn_poker",
            "--iterations",
            "10",
            "--checkpoint",
            "k.ckpt",
            "--out",
            "k.bin",
        ],
    ));
    refused(
        d,
        &["exploit", "kuhn_poker", "k.ckpt"],
        &["is a darkhex training checkpoint", "--resume"],
    );
    refused(
        d,
        &["train", "kuhn_poker", "--checkpoint", "k.bin", "--resume"],
        &["is a darkhex policy, not a training checkpoint"],
    );
    let head = std::fs::read(d.join("k.bin")).unwrap();
    let first_line =
        String::from_utf8_lossy(head.split(|&b| b == b'\n').next().unwrap()).to_string();
    assert!(
        first_line.contains("\"format\":\"darkhex-policy\"") && first_line.contains("crc32"),
        "{first_line}"
    );
}

#[test]
fn corrupted_checkpoints_and_binary_policies_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&darkhex(
        d,
        &[
            "train",
            "leduc_poker",
            "--iterations",
            "20",
            "--checkpoint",
            "l.ckpt",
            "--out",
            "l.bin",
        ],
    ));
    for (file, args) in [
        (
            "l.ckpt",
            vec![
                "train",
                "leduc_poker",
                "--iterations",
                "30",
                "--checkpoint",
                "l.ckpt",
                "--resume",
            ],
        ),
        ("l.bin", vec!["exploit", "leduc_poker", "l.bin"]),
    ] {
        let good = std::fs::read(d.join(file)).unwrap();
        // Flip one bit in the middle of the data.
        let mut bad = good.clone();
        let mid = bad.len() * 2 / 3;
        bad[mid] ^= 0x04;
        std::fs::write(d.join(file), &bad).unwrap();
        refused(d, &args, &["is damaged", "checksum"]);
        std::fs::write(d.join(file), &good[..good.len() - 100]).unwrap();
        refused(d, &args, &["is damaged", "cut short"]);
        std::fs::write(d.join(file), &good).unwrap();
        ok(&darkhex(d, &args));
    }
}

#[test]
fn algorithm_parameters_outside_their_range_are_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (flag, value, range) in [
        ("--alpha", "-1", "0 to 10"),
        ("--beta", "nan", "-10 to 10"),
        ("--gamma", "inf", "0 to 10"),
        ("--max-memory-gb", "-1", "0.001 to 1000000"),
        ("--max-memory-gb", "nan", "0.001 to 1000000"),
    ] {
        refused(
            d,
            &["train", "kuhn_poker", "--algo", "dcfr", flag, value],
            &[range],
        );
    }
    refused(
        d,
        &[
            "train",
            "kuhn_poker",
            "--algo",
            "os-mccfr",
            "--exploration",
            "1",
        ],
        &["0 to 1, both excluded"],
    );
    refused(
        d,
        &["solve", "kuhn_poker", "--max-memory-gb", "0"],
        &["0.001 to 1000000"],
    );
}

#[test]
fn unwritable_outputs_are_found_before_the_first_iteration() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("adir")).unwrap();
    // A million Leduc iterations would take minutes: the refusal comes first.
    let start = std::time::Instant::now();
    refused(
        d,
        &[
            "train",
            "leduc_poker",
            "--iterations",
            "1000000",
            "--checkpoint",
            "/proc/none/run.ckpt",
        ],
        &["cannot write /proc/none/run.ckpt"],
    );
    refused(
        d,
        &[
            "train",
            "leduc_poker",
            "--iterations",
            "1000000",
            "--out",
            "adir",
        ],
        &["adir", "directory"],
    );
    assert!(start.elapsed() < Duration::from_secs(20));
}

#[cfg(unix)]
#[test]
fn ctrl_c_during_training_writes_the_policy_so_far() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let child = Command::new(env!("CARGO_BIN_EXE_darkhex"))
        .args([
            "train",
            "leduc_poker",
            "--algo",
            "cfr",
            "--iterations",
            "100000000",
            "--out",
            "l.json",
        ])
        .current_dir(d)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    assert_eq!(
        o.status.code(),
        Some(130),
        "an interrupted run reports the interruption"
    );
    assert!(
        err.contains("interrupted at iteration") && err.contains("l.json"),
        "{err}"
    );
    let v = json(&darkhex(d, &["exploit", "leduc_poker", "l.json", "--json"]));
    assert!(v["exploitability"].as_f64().unwrap() < 4.0, "{v}");
}

#[test]
fn identical_leagues_give_identical_reports() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = |out: &str, threads: &str| {
        ok(&darkhex(
            d,
            &[
                "league",
                "--game",
                "dark_hex(num_rows=2,num_cols=3)",
                "--players",
                "random,random,ismcts(sims=30)",
                "--games",
                "40",
                "--seed",
                "3",
                "--out",
                out,
                "--threads",
                threads,
            ],
        ));
        let mut all = Vec::new();
        for f in [
            "report.json",
            "report.md",
            "ratings.csv",
            "crosstable.csv",
            "ratings.svg",
        ] {
            all.push(std::fs::read(d.join(out).join(f)).unwrap());
        }
        all
    };
    let a = run("a", "2");
    let b = run("b", "2");
    let c = run("c", "1");
    assert!(a == b, "two identical runs differ");
    assert!(a == c, "the thread count changed the report");
}

#[test]
fn a_league_game_is_replayed_from_its_log() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&darkhex(
        d,
        &[
            "league",
            "--game",
            "hex(board_size=3)",
            "--players",
            "random,mcts(sims=20)",
            "--games",
            "4",
            "--out",
            "L",
        ],
    ));
    let log = std::fs::read_to_string(d.join("L/results.jsonl")).unwrap();
    let game: serde_json::Value = serde_json::from_str(log.lines().nth(2).unwrap()).unwrap();
    let id = game["id"].as_u64().unwrap().to_string();
    let moves = game["history"].as_str().unwrap().to_string();
    let shown = ok(&darkhex(d, &["league", "show", &id, "--out", "L"]));
    let replayed = ok(&darkhex(
        d,
        &["play", "hex(board_size=3)", "--moves", &moves],
    ));
    // The same moves and the same ending as the log says.
    assert!(shown.contains(&replayed), "{shown}\n---\n{replayed}");
    let winner = if game["returns"][0].as_f64().unwrap() > 0.0 {
        "x wins"
    } else {
        "o wins"
    };
    assert!(replayed.contains(winner), "{replayed}");
    refused(
        d,
        &["league", "show", "99", "--out", "L"],
        &["no game 99", "1 to 4"],
    );
}

#[test]
fn leagues_grow_skip_repeated_lines_and_start_from_empty_logs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let league = |players: &str, games: &str| {
        darkhex(
            d,
            &[
                "league",
                "--game",
                "kuhn_poker",
                "--players",
                players,
                "--games",
                games,
                "--out",
                "L",
            ],
        )
    };
    std::fs::create_dir(d.join("L")).unwrap();
    std::fs::write(d.join("L/results.jsonl"), "").unwrap();
    assert!(ok(&league("random,lp", "4")).contains("4 games (4 played now)"));
    let more = league("random,lp", "6");
    assert!(ok(&more).contains("6 games (2 played now)"));
    assert!(stderr(&more).contains("games per pair 4 -> 6"));
    let wider = league("random,lp,mcts(sims=5)", "6");
    // mcts does not play poker: refused, log untouched.
    assert!(!wider.status.success());
    let wider = league("random,lp,policy(file=p.json)", "6");
    assert!(!wider.status.success());
    ok(&darkhex(
        d,
        &[
            "train",
            "kuhn_poker",
            "--iterations",
            "50",
            "--out",
            "p.json",
        ],
    ));
    let wider = league("random,lp,policy(file=p.json)", "6");
    assert!(
        ok(&wider).contains("18 games (12 played now)"),
        "{}",
        stdout(&wider)
    );
    let fewer = league("random,lp,policy(file=p.json)", "3");
    refused_output(&fewer, &["games per pair", "--games 6"]);
    let reseeded = darkhex(
        d,
        &[
            "league",
            "--game",
            "kuhn_poker",
            "--players",
            "random,lp",
            "--games",
            "6",
            "--seed",
            "9",
            "--out",
            "L",
        ],
    );
    refused_output(&reseeded, &["seed is 0", "--seed 0"]);
    // A line written twice counts once, with a warning.
    let path = d.join("L/results.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let second = text.lines().nth(1).unwrap().to_string();
    std::fs::write(&path, format!("{text}{second}\n")).unwrap();
    let again = league("random,lp,policy(file=p.json)", "6");
    assert!(
        ok(&again).contains("18 games (0 played now)"),
        "{}",
        stdout(&again)
    );
    assert!(
        stderr(&again).contains("counted once"),
        "{}",
        stderr(&again)
    );
}

fn refused_output(o: &std::process::Output, needles: &[&str]) {
    let err = stderr(o);
    assert!(!o.status.success(), "accepted");
    for n in needles {
        assert!(err.contains(n), "'{n}' missing from {err}");
    }
}

#[test]
fn policy_paths_in_a_tournament_file_start_at_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("t")).unwrap();
    ok(&darkhex(
        d,
        &[
            "train",
            "kuhn_poker",
            "--iterations",
            "50",
            "--out",
            "t/p.json",
        ],
    ));
    std::fs::write(
        d.join("t/league.toml"),
        "game = \"kuhn_poker\"\ngames_per_pair = 4\n[[players]]\nspec = \"policy(file=p.json)\"\n[[players]]\nspec = \"pone(fallback=random)\"\n",
    )
    .unwrap();
    refused(
        d,
        &["league", "t/league.toml", "--out", "L"],
        &["pone plays Dark Hex and Dark Rex"],
    );
    std::fs::write(
        d.join("t/league.toml"),
        "game = \"kuhn_poker\"\ngames_per_pair = 4\n[[players]]\nspec = \"policy(file=p.json)\"\n[[players]]\nspec = \"random\"\n",
    )
    .unwrap();
    assert!(ok(&darkhex(d, &["league", "t/league.toml", "--out", "L"])).contains("4 games"));
}

#[test]
fn too_many_threads_are_clamped_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let o = darkhex(
        dir.path(),
        &[
            "train",
            "kuhn_poker",
            "--iterations",
            "10",
            "--threads",
            "10000",
            "--out",
            "k.json",
        ],
    );
    assert!(
        stderr(&o).contains("--threads 10000 is more than"),
        "{}",
        stderr(&o)
    );
    ok(&o);
}

#[test]
fn monte_carlo_runs_say_that_the_thread_count_matters() {
    let dir = tempfile::tempdir().unwrap();
    let out = ok(&darkhex(
        dir.path(),
        &[
            "train",
            "kuhn_poker",
            "--algo",
            "os-mccfr",
            "--iterations",
            "1000",
            "--threads",
            "2",
            "--out",
            "k.json",
        ],
    ));
    assert!(
        out.contains("depend on it: --threads 2 --seed 0 reproduces them"),
        "{out}"
    );
    let out = ok(&darkhex(
        dir.path(),
        &[
            "train",
            "kuhn_poker",
            "--iterations",
            "10",
            "--out",
            "k.json",
        ],
    ));
    assert!(!out.contains("threads"), "{out}");
}

#[test]
fn every_command_shows_examples_and_the_game_strings() {
    let dir = tempfile::tempdir().unwrap();
    for cmd in [
        "info", "play", "train", "exploit", "solve", "league", "pone", "bounds",
    ] {
        let help = ok(&darkhex(dir.path(), &[cmd, "--help"]));
        assert!(help.contains("Examples:\n  darkhex "), "{cmd}: {help}");
        assert!(
            help.contains("dark_hex(num_rows=R,num_cols=C"),
            "{cmd}: {help}"
        );
    }
    let help = ok(&darkhex(dir.path(), &["league", "--help"]));
    assert!(
        help.contains("games_per_pair = 100") && help.contains("ismcts(sims=N,c=C)"),
        "{help}"
    );
}

#[test]
fn the_lp_refuses_to_start_past_its_memory_limit() {
    let dir = tempfile::tempdir().unwrap();
    let o = darkhex(
        dir.path(),
        &[
            "solve",
            "dark_hex(num_rows=2,num_cols=3,gameversion=adh)",
            "--full",
            "--max-memory-gb",
            "0.05",
        ],
    );
    refused_output(
        &o,
        &["LP", "would need about", "that --max-memory-gb leaves"],
    );
}
