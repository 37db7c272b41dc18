//! `darkhex analyze` and the network players from the command line: the
//! numbers of small positions, finished games, symmetry between the two
//! players' networks, and one-line errors for bad input.

mod common;

use common::{darkhex, darkhex_with_input, json, ok, stderr};

fn analyze(args: &[&str]) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let mut all = vec!["analyze"];
    all.extend_from_slice(args);
    all.push("--json");
    json(&darkhex(dir.path(), &all))
}

#[test]
fn the_empty_board_is_the_same_for_both_players() {
    let v = analyze(&["hex(board_size=4)", "--k", "2"]);
    assert_eq!(v["black"]["distance"], v["white"]["distance"]);
    assert_eq!(v["black"]["counts"], v["white"]["counts"]);
    assert_eq!(v["e"], 1.0);
    assert_eq!(v["e_k"], 1.0);
    // White's network is Black's mirrored in the diagonal: cell (r, c) of
    // one is (c, r) of the other.
    let (b, w) = (&v["black"]["contribution"], &v["white"]["contribution"]);
    for r in 0..4 {
        for c in 0..4 {
            let (x, y) = (
                b[r * 4 + c].as_f64().unwrap(),
                w[c * 4 + r].as_f64().unwrap(),
            );
            assert!((x - y).abs() < 1e-12, "({r},{c}) {x} {y}");
        }
    }
}

#[test]
fn a_centre_stone_shortens_its_owners_distance_and_has_no_contribution() {
    let v = analyze(&["hex(board_size=5)", "--moves", "c3", "--k", "1"]);
    let (db, dw) = (
        v["black"]["distance"].as_u64().unwrap(),
        v["white"]["distance"].as_u64().unwrap(),
    );
    assert!(db < dw, "{v}");
    assert!(v["e"].as_f64().unwrap() > 1.0);
    // A stone has no node: no contribution; every share is within [0, 1].
    let c3 = 2 * 5 + 2;
    for side in ["black", "white"] {
        let c = v[side]["contribution"].as_array().unwrap();
        assert_eq!(c[c3], 0.0);
        assert!(c.iter().all(|x| (0.0..=1.0).contains(&x.as_f64().unwrap())));
    }
}

#[test]
fn finished_games_are_infinite_or_zero() {
    let black = analyze(&["hex(board_size=3)", "--moves", "b1,a1,b2,a2,b3"]);
    assert_eq!(black["e"], "inf");
    assert_eq!(black["e_k"], "inf");
    assert_eq!(black["black"]["distance"], 1);
    assert!(black["white"]["distance"].is_null());
    let white = analyze(&["hex(board_size=3)", "--moves", "c3,a1,c1,b1,a3,c2,b3,b2"]);
    // White a1 b1 b2 c2 joins columns a and c.
    assert_eq!(white["e"], 0.0);
    assert_eq!(white["e_k"], 0.0);
    assert!(white["black"]["distance"].is_null());
}

#[test]
fn the_text_report_and_the_heat_map() {
    let dir = tempfile::tempdir().unwrap();
    let out = ok(&darkhex(
        dir.path(),
        &[
            "analyze",
            "hex(board_size=4)",
            "--moves",
            "b2",
            "--svg",
            "heat.svg",
        ],
    ));
    for want in [
        "d(s,t)",
        "n_0",
        "n_2",
        "E   = d_W / d_B",
        "E_2 = E_2W / E_2B",
        "Black's network",
    ] {
        assert!(out.contains(want), "{want}: {out}");
    }
    let svg = std::fs::read_to_string(dir.path().join("heat.svg")).unwrap();
    assert!(
        svg.starts_with("<svg") && svg.matches("<polygon").count() >= 2 * 16,
        "{svg}"
    );
}

#[test]
fn bad_input_is_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    for (args, says) in [
        (
            vec!["hex(board_size=3)", "--moves", "a1,a1"],
            "already holds",
        ),
        (
            vec!["hex(board_size=3)", "--moves", "z9"],
            "cannot read move",
        ),
        (vec!["rex(board_size=3)"], "not Rex"),
        (vec!["kuhn_poker"], "Hex positions"),
        (vec!["chess"], "unknown game"),
        (vec!["hex(board_size=3)", "--x", "1.5"], "0 < x <= 1"),
        (vec!["hex(board_size=3)", "--k", "9"], "9"),
        (
            vec!["hex(board_size=3)", "--paths", "0"],
            "accepted: 1 or more",
        ),
        (
            vec!["hex(board_size=3)", "--moves", "b1,a1,b2,a2,b3,a3"],
            "game is over",
        ),
    ] {
        let mut all = vec!["analyze"];
        all.extend(args.iter().copied());
        let o = darkhex(dir.path(), &all);
        let e = stderr(&o);
        assert!(!o.status.success(), "{args:?}");
        assert!(e.contains(says) && !e.contains("panicked"), "{args:?}: {e}");
        assert!(e.lines().count() <= 3, "{args:?}: {e}");
    }
}

#[test]
fn network_players_play_and_league_and_gtp() {
    let dir = tempfile::tempdir().unwrap();
    // Two E_k players, no randomness in either: the same game twice.
    let game = |seed: &str| {
        ok(&darkhex(
            dir.path(),
            &[
                "play",
                "hex(board_size=5)",
                "--p0",
                "network(eval=ek,k=2)",
                "--p1",
                "network(eval=ek,k=1,x=0.001)",
                "--seed",
                seed,
            ],
        ))
    };
    let one = game("1");
    assert!(one.contains(" wins"), "{one}");
    assert_eq!(one, game("2"));
    let out = ok(&darkhex(
        dir.path(),
        &[
            "league",
            "--game",
            "hex(board_size=4)",
            "--players",
            "network(eval=e),network(eval=ek,k=1),random",
            "--games",
            "2",
            "--out",
            "lg",
        ],
    ));
    assert!(out.contains("network(eval=ek,k=1)"), "{out}");
    let o = darkhex(
        dir.path(),
        &[
            "play",
            "rex(board_size=4)",
            "--p0",
            "network(eval=e)",
            "--p1",
            "random",
        ],
    );
    assert!(stderr(&o).contains("Rex"), "{}", stderr(&o));
    // GTP: genmove by E_k once no proven win is found in the time given.
    let o = darkhex_with_input(
        &[
            "gtp",
            "--move-time",
            "0.001",
            "--eval",
            "network(eval=ek,k=1)",
        ],
        "boardsize 9\nparam_player\ngenmove b\nparam_player eval network(eval=q)\nparam_player eval resistance\ngenmove w\n",
    );
    let text = String::from_utf8_lossy(&o.stdout).to_string();
    let replies: Vec<&str> = text.split("\n\n").collect();
    assert!(
        replies[1].contains("eval network(eval=ek,k=1,x=0.00001)"),
        "{text}"
    );
    assert!(
        replies[2].starts_with("= ") && replies[2].len() >= 4,
        "{text}"
    );
    assert!(
        replies[3].starts_with("? ") && replies[3].contains("e, ek"),
        "{text}"
    );
    assert!(replies[5].starts_with("= "), "{text}");
    assert!(stderr(&o).contains("by network(eval=ek"), "{}", stderr(&o));
}
