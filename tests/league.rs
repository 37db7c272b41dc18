//! `darkhex league` and `darkhex play --p0 --p1` as a user runs them.

mod common;

use common::{darkhex, ok, stderr};

#[test]
fn a_league_from_flags_writes_reports_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let args = [
        "league",
        "--game",
        "dark_hex(num_rows=3,num_cols=3)",
        "--players",
        "random,ismcts(sims=100,c=1.0)",
        "--games",
        "6",
        "--out",
        "out",
    ];
    let out = ok(&darkhex(d, &args));
    assert!(out.contains("| rank | player | Elo"), "{out}");
    assert!(out.contains("6 games (6 played now)"), "{out}");
    for f in [
        "results.jsonl",
        "report.md",
        "ratings.csv",
        "crosstable.csv",
        "report.json",
        "ratings.svg",
    ] {
        assert!(d.join("out").join(f).exists(), "{f} missing");
    }
    let again = ok(&darkhex(d, &args));
    assert!(again.contains("6 games (0 played now)"), "{again}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("out/report.json")).unwrap()).unwrap();
    assert_eq!(json["games"], 6);
}

#[test]
fn a_league_from_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("t.toml"),
        "game = \"kuhn_poker\"\ngames_per_pair = 10\nseed = 4\n[[players]]\nname = \"nash\"\nspec = \"lp\"\n[[players]]\nspec = \"random\"\n",
    )
    .unwrap();
    let out = ok(&darkhex(d, &["league", "t.toml", "--out", "k"]));
    assert!(out.contains("nash") && out.contains("10 games"), "{out}");
    let o = darkhex(d, &["league", "missing.toml"]);
    assert!(stderr(&o).contains("cannot read missing.toml"));
    let o = darkhex(
        d,
        &[
            "league",
            "--game",
            "kuhn_poker",
            "--players",
            "random,wizard",
        ],
    );
    let err = stderr(&o);
    assert!(
        err.contains("unknown player 'wizard'") && err.contains("ismcts"),
        "{err}"
    );
}

#[test]
fn two_programs_play_one_game_in_view() {
    let dir = tempfile::tempdir().unwrap();
    let out = ok(&darkhex(
        dir.path(),
        &[
            "play",
            "hex(board_size=3)",
            "--p0",
            "mcts(sims=200)",
            "--p1",
            "random",
            "--seed",
            "2",
        ],
    ));
    assert!(
        out.contains("x (seat 0): mcts(sims=200)") && out.contains("wins"),
        "{out}"
    );
}

/// Two runs of one league, on one thread and on two, write the same files
/// byte for byte, and `league show` replays the same game under one id.
#[test]
fn two_runs_of_a_league_write_the_same_files_and_ids() {
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
                "random,ismcts(sims=30),lp",
                "--games",
                "10",
                "--seed",
                "5",
                "--threads",
                threads,
                "--out",
                out,
            ],
        ))
    };
    let first = run("one", "1");
    let second = run("two", "2");
    assert_eq!(first.replace("one", "two"), second);
    for file in [
        "results.jsonl",
        "report.md",
        "report.json",
        "ratings.csv",
        "crosstable.csv",
        "ratings.svg",
    ] {
        let a = std::fs::read(d.join("one").join(file)).unwrap();
        let b = std::fs::read(d.join("two").join(file)).unwrap();
        assert!(a == b, "{file} differs");
    }
    let show = |out: &str| ok(&darkhex(d, &["league", "show", "17", "--out", out]));
    let (a, b) = (show("one"), show("two"));
    assert_eq!(a.replace("one", "two"), b);
    // Game 17: the second pair (random against lp), its seventh round.
    assert!(a.contains("round 6 of random vs lp"), "{a}");
}

/// A Deep CFR model in a league: `policy(file=MODEL)` loads, plays its
/// games against the others (Kuhn, and 3x3 Dark Hex, where no table
/// fits), and a damaged model or one for another game is refused in one
/// line before any game is played.
#[test]
fn a_league_with_a_policy_model() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let deep = ["--algo", "deep-cfr", "--hidden", "8", "--fit-steps", "4"];
    // 3x3 Dark Hex: one traversal of 200,000 histories is enough.
    for (game, model, budget) in [
        (
            "kuhn_poker",
            "k.model",
            ["--iterations", "2", "--traversals", "10"],
        ),
        (
            "dark_hex(num_rows=3,num_cols=3)",
            "dh3.model",
            ["--iterations", "1", "--traversals", "1"],
        ),
    ] {
        let train = [&["train", game, "--out", model][..], &deep[..], &budget[..]].concat();
        ok(&darkhex(d, &train));
        let players = format!("policy(file={model}),random");
        let out_dir = format!("league-{model}");
        let args = [
            "league",
            "--game",
            game,
            "--players",
            &players,
            "--games",
            "8",
            "--out",
            &out_dir,
        ];
        let out = ok(&darkhex(d, &args));
        assert!(
            out.contains(&format!("policy(file={model})"))
                && out.contains("8 games (8 played now)"),
            "{out}"
        );
        let log = std::fs::read_to_string(d.join(&out_dir).join("results.jsonl")).unwrap();
        let games = log.lines().filter(|l| l.contains("\"returns\"")).count();
        assert_eq!(games, 8, "{log}");
    }
    let good = std::fs::read(d.join("k.model")).unwrap();
    let mut flipped = good.clone();
    let at = good.len() - 20;
    flipped[at] ^= 4;
    std::fs::write(d.join("flipped.model"), &flipped).unwrap();
    std::fs::write(d.join("cut.model"), &good[..good.len() / 2]).unwrap();
    for (players, game, says) in [
        (
            "policy(file=flipped.model),random",
            "kuhn_poker",
            "checksum",
        ),
        ("policy(file=cut.model),random", "kuhn_poker", "cut short"),
        ("policy(file=k.model),random", "leduc_poker", "kuhn_poker"),
    ] {
        let o = darkhex(
            d,
            &[
                "league",
                "--game",
                game,
                "--players",
                players,
                "--games",
                "2",
                "--out",
                "bad",
            ],
        );
        let err = stderr(&o);
        assert!(
            !o.status.success() && err.contains(says),
            "{players}: {err}"
        );
        assert!(
            err.lines().count() <= 2 && !err.contains("panicked"),
            "{err}"
        );
        assert!(
            !d.join("bad/results.jsonl").exists(),
            "{players}: games were played"
        );
    }
}

/// The four reinforcement-learning trainers' models in one league from a
/// tournament file, as the RL league of the results pages is run: each
/// model loads as `policy(file=...)` (a path relative to the file), plays
/// every one of its games with a decision from its network at every
/// information state (none falls back to uniform play, as a table's gaps
/// would), and the league's log and reports are the same on one thread
/// and on two.
#[test]
fn a_league_of_reinforcement_learning_models() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let game = "dark_hex(num_rows=2,num_cols=2)";
    std::fs::create_dir(d.join("models")).unwrap();
    let ppo = ["--steps", "512", "--num-envs", "4", "--rollout-steps", "32"];
    let nfsp = ["--steps", "600"];
    let escher = [
        "--iterations",
        "2",
        "--traversals",
        "20",
        "--value-traversals",
        "20",
        "--fit-steps",
        "5",
    ];
    for (algo, budget) in [
        ("ppo", &ppo[..]),
        ("mmd", &ppo[..]),
        ("nfsp", &nfsp[..]),
        ("escher", &escher[..]),
    ] {
        let out = format!("models/{algo}.model");
        let args = [
            &["train", game, "--algo", algo, "--hidden", "8", "--no-eval"][..],
            budget,
            &["--threads", "1", "--out", &out][..],
        ]
        .concat();
        ok(&darkhex(d, &args));
    }
    let mut toml = format!("game = \"{game}\"\ngames_per_pair = 6\nseed = 2\n");
    for algo in ["ppo", "mmd", "nfsp", "escher"] {
        toml += &format!("[[players]]\nname = \"{algo}\"\nspec = \"policy(file={algo}.model)\"\n");
    }
    toml += "[[players]]\nspec = \"random\"\n";
    std::fs::write(d.join("models/rl.toml"), toml).unwrap();
    let run = |out: &str, threads: &str| {
        ok(&darkhex(
            d,
            &[
                "league",
                "models/rl.toml",
                "--threads",
                threads,
                "--out",
                out,
            ],
        ))
    };
    let first = run("one", "1");
    assert!(first.contains("60 games (60 played now)"), "{first}");
    assert!(
        !first.contains("played uniformly"),
        "a network has no gaps: {first}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("one/report.json")).unwrap()).unwrap();
    let players = report["players"].as_array().unwrap();
    assert_eq!(players.len(), 5, "{report}");
    for p in players {
        // At least one decision in each of its 24 games.
        let decisions = p["decisions"].as_u64().unwrap();
        assert!(decisions >= 24, "{p}");
        assert_eq!(p["uniform_fallbacks"], 0, "{p}");
    }
    let second = run("two", "2");
    assert_eq!(first.replace("one", "two"), second);
    for file in ["results.jsonl", "report.json", "ratings.csv"] {
        let a = std::fs::read(d.join("one").join(file)).unwrap();
        let b = std::fs::read(d.join("two").join(file)).unwrap();
        assert!(a == b, "{file} differs");
    }
}

/// A log remembers the policy files its games were played with: rerun
/// with the file retrained in place, the league is refused in one line
/// before any game (the old games were another policy's), and with the
/// file as it was it resumes.
#[test]
fn a_league_refuses_to_resume_with_a_retrained_policy_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let train = |iterations: &str| {
        ok(&darkhex(
            d,
            &[
                "train",
                "kuhn_poker",
                "--algo",
                "cfr",
                "--iterations",
                iterations,
                "--out",
                "k.json",
            ],
        ))
    };
    let league = |games: &str| {
        darkhex(
            d,
            &[
                "league",
                "--game",
                "kuhn_poker",
                "--players",
                "policy(file=k.json),random",
                "--games",
                games,
                "--out",
                "out",
            ],
        )
    };
    train("5");
    let first = std::fs::read(d.join("k.json")).unwrap();
    ok(&league("4"));
    let log = std::fs::read_to_string(d.join("out/results.jsonl")).unwrap();
    train("50");
    assert_ne!(std::fs::read(d.join("k.json")).unwrap(), first);
    let o = league("8");
    let err = stderr(&o);
    assert!(
        !o.status.success()
            && err.contains("its player 'policy(file=k.json)' played with k.json as")
            && err.lines().count() <= 2,
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(d.join("out/results.jsonl")).unwrap(),
        log,
        "the log was touched"
    );
    std::fs::write(d.join("k.json"), &first).unwrap();
    let out = ok(&league("8"));
    assert!(out.contains("8 games (4 played now)"), "{out}");
}
