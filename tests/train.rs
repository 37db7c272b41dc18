//! `darkhex train` and `darkhex exploit` as a user runs them.

mod common;

use common::{assert_refused, darkhex, json, ok, stderr};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

#[test]
fn train_and_exploit_agree_with_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let v = json(&darkhex(
        d,
        &[
            "train",
            "kuhn_poker",
            "--algo",
            "cfr",
            "--iterations",
            "1000",
            "--out",
            "k.json",
            "--json",
        ],
    ));
    assert_eq!(v["algo"], "cfr");
    assert_eq!(v["iterations"], 1000);
    let e = v["exploitability"].as_f64().unwrap();
    assert!((e - 0.0009376166469929614).abs() < 1e-9, "{e}");
    assert!(v["seconds"].as_f64().unwrap() >= 0.0);
    let x = json(&darkhex(d, &["exploit", "kuhn_poker", "k.json", "--json"]));
    assert_eq!(x["exploitability"].as_f64().unwrap(), e);
    assert!((x["nash_conv"].as_f64().unwrap() - 2.0 * e).abs() < 1e-15);
    assert!((x["value_p0"].as_f64().unwrap() + 1.0 / 18.0).abs() < 0.01);
}

#[test]
fn every_algorithm_trains_and_writes_a_policy_exploit_reads() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for algo in [
        "cfr", "cfr+", "lcfr", "dcfr", "pcfr+", "es-mccfr", "os-mccfr",
    ] {
        let out = format!("{algo}.bin");
        let v = json(&darkhex(
            d,
            &[
                "train",
                "leduc_poker",
                "--algo",
                algo,
                "--iterations",
                "64",
                "--out",
                &out,
                "--json",
            ],
        ));
        let e = v["exploitability"].as_f64().unwrap();
        assert!(e > 0.0 && e <= 13.0, "{algo}: {e}");
        let x = json(&darkhex(d, &["exploit", "leduc_poker", &out, "--json"]));
        assert!(
            (x["exploitability"].as_f64().unwrap() - e).abs() < 1e-12,
            "{algo}"
        );
    }
}

#[test]
fn exploit_names_what_differs_and_refuses_bad_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    json(&darkhex(
        d,
        &[
            "train",
            "dark_hex(num_rows=2,num_cols=2)",
            "--iterations",
            "5",
            "--out",
            "p.json",
            "--json",
        ],
    ));
    let o = darkhex(
        d,
        &[
            "exploit",
            "dark_hex(num_rows=2,num_cols=2,gameversion=adh)",
            "p.json",
        ],
    );
    let err = stderr(&o);
    assert!(!o.status.success());
    assert!(err.contains("gameversion (default) vs adh"), "{err}");
    std::fs::write(d.join("bad.json"), "{\"format\": 3").unwrap();
    let o = darkhex(d, &["exploit", "kuhn_poker", "bad.json"]);
    let err = stderr(&o);
    assert!(
        !o.status.success() && err.contains("not a valid policy file") && !err.contains("panicked"),
        "{err}"
    );
    let o = darkhex(d, &["exploit", "kuhn_poker", "missing.json"]);
    assert!(stderr(&o).contains("cannot read missing.json"));
    let o = darkhex(d, &["train", "kuhn_poker", "--algo", "cfr++"]);
    assert!(stderr(&o).contains("cfr, cfr+, lcfr, dcfr, pcfr+, es-mccfr, os-mccfr"));
    let o = darkhex(d, &["train", "kuhn_poker", "--algo", "cfr", "--alpha", "2"]);
    assert!(stderr(&o).contains("does not take --alpha"));
    let o = darkhex(
        d,
        &[
            "train",
            "dark_hex(num_rows=3,num_cols=3)",
            "--algo",
            "cfr+",
            "--max-memory-gb",
            "1",
        ],
    );
    let err = stderr(&o);
    assert!(err.contains("histories") && err.contains("mccfr"), "{err}");
}

#[test]
fn a_killed_run_resumes_to_the_same_policy() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let game = "leduc_poker";
    let args = [
        "train",
        game,
        "--algo",
        "cfr+",
        "--iterations",
        "20000",
        "--eval-every",
        "500",
    ];
    // Uninterrupted on one thread; killed and resumed on two.
    let straight = json(&darkhex(
        d,
        &[
            &args[..],
            &["--threads", "1", "--out", "straight.json", "--json"],
        ]
        .concat(),
    ));
    let mut child = Command::new(env!("CARGO_BIN_EXE_darkhex"))
        .args(args)
        .args([
            "--threads",
            "2",
            "--checkpoint",
            "run.ckpt",
            "--out",
            "resumed.json",
        ])
        .current_dir(d)
        .spawn()
        .unwrap();
    // Kill it once it has saved a checkpoint and before it is done.
    for _ in 0..200 {
        if d.join("run.ckpt").exists() {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_millis(100));
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(d.join("run.ckpt").exists(), "no checkpoint was written");
    let resumed = json(&darkhex(
        d,
        &[
            &args[..],
            &[
                "--threads",
                "2",
                "--checkpoint",
                "run.ckpt",
                "--resume",
                "--out",
                "resumed.json",
                "--json",
            ],
        ]
        .concat(),
    ));
    assert_eq!(resumed["iterations"], 20000);
    assert_eq!(resumed["exploitability"], straight["exploitability"]);
    let a = std::fs::read(d.join("straight.json")).unwrap();
    let b = std::fs::read(d.join("resumed.json")).unwrap();
    assert!(
        a == b,
        "the resumed policy differs from the uninterrupted one"
    );
}

#[test]
fn plots_are_svg() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    json(&darkhex(
        d,
        &[
            "train",
            "kuhn_poker",
            "--iterations",
            "200",
            "--eval-every",
            "20",
            "--plot",
            "c.svg",
            "--json",
        ],
    ));
    let svg = std::fs::read_to_string(d.join("c.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("exploitability") && svg.contains("polyline"));

    // `plot` draws runs together, from `train --json` and from checkpoints.
    let run = |algo: &str, extra: &[&str]| {
        let mut args = vec!["train", "kuhn_poker", "--algo", algo, "--iterations", "100"];
        args.extend_from_slice(extra);
        darkhex(d, &args)
    };
    let out = run(
        "cfr+",
        &["--evals-per-decade", "2", "--out", "a.json", "--json"],
    );
    assert!(out.status.success());
    std::fs::write(d.join("a-run.json"), &out.stdout).unwrap();
    let out = run(
        "dcfr",
        &[
            "--eval-every",
            "10",
            "--out",
            "b.json",
            "--checkpoint",
            "b.ckpt",
        ],
    );
    assert!(out.status.success());
    let o = darkhex(d, &["plot", "both.svg", "a-run.json", "b.ckpt"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let svg = std::fs::read_to_string(d.join("both.svg")).unwrap();
    assert!(svg.contains("cfr+") && svg.contains("dcfr") && svg.matches("polyline").count() >= 2);
    let o = darkhex(d, &["plot", "x.svg", "c.svg"]);
    assert!(!o.status.success() && stderr(&o).contains("c.svg"));
    assert!(!d.join("x.svg").exists());
}

/// `--stream` trains over the information-state tables: a run stopped and
/// resumed writes the policy an uninterrupted one does, `exploit` reads it,
/// and what cannot stream or would not fit is refused in one line.
#[test]
fn streaming_training_resumes_and_refuses_what_it_cannot_do() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let game = "dark_hex(num_rows=2,num_cols=3,gameversion=adh)";
    let args = [
        "train",
        game,
        "--stream",
        "--algo",
        "pcfr+",
        "--precision",
        "f32",
    ];
    let straight = json(&darkhex(
        d,
        &[
            &args[..],
            &["--iterations", "12", "--out", "straight.json", "--json"],
        ]
        .concat(),
    ));
    assert_eq!(straight["precision"], "f32");
    let e = straight["exploitability"].as_f64().unwrap();
    assert!(e > 0.0 && e < 0.5, "{e}");
    for n in ["5", "12"] {
        let v = json(&darkhex(
            d,
            &[
                &args[..],
                &["--iterations", n, "--checkpoint", "run.ckpt", "--resume"],
                &["--out", "resumed.json", "--json"],
            ]
            .concat(),
        ));
        assert_eq!(v["iterations"].as_u64().unwrap().to_string(), n);
    }
    let a = std::fs::read(d.join("straight.json")).unwrap();
    let b = std::fs::read(d.join("resumed.json")).unwrap();
    assert!(
        a == b,
        "the resumed policy differs from the uninterrupted one"
    );
    let x = json(&darkhex(d, &["exploit", game, "straight.json", "--json"]));
    assert!((x["exploitability"].as_f64().unwrap() - e).abs() < 1e-12);
    // A streaming checkpoint resumes as streaming even without --stream.
    let v = json(&darkhex(
        d,
        &[
            "train",
            game,
            "--iterations",
            "13",
            "--checkpoint",
            "run.ckpt",
            "--resume",
            "--json",
        ],
    ));
    assert_eq!(v["precision"], "f32");
    let resumed_as = [
        "train",
        game,
        "--checkpoint",
        "run.ckpt",
        "--resume",
        "--precision",
        "f64",
    ];
    for (bad, says) in [
        (resumed_as.to_vec(), "resumes only with --precision f32"),
        (
            vec!["train", "kuhn_poker", "--precision", "f32"],
            "--precision applies",
        ),
        (
            vec!["train", "kuhn_poker", "--stream", "--algo", "os-mccfr"],
            "does not stream",
        ),
        (vec!["train", "kuhn_poker", "--precision", "f16"], "f32"),
        (
            vec!["train", game, "--stream", "--max-memory-gb", "0.001"],
            "1.0 MB",
        ),
    ] {
        assert_refused(d, &bad, says);
    }
}

/// Full width, `train` and `train --stream` run the same algorithm to the
/// same bits, abrupt boards (where regrets cancel) included, and a
/// checkpoint resumes in its own order of sums; `--sum-order openspiel`
/// reproduces OpenSpiel's CFRSolver on the compiled tree instead.
#[test]
fn compiled_and_streamed_training_give_the_same_policy() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let game = "dark_hex(num_rows=2,num_cols=3,gameversion=adh)";
    let train = |extra: &[&str], out: &str| {
        let args = ["train", game, "--algo", "cfr", "--iterations", "10"];
        json(&darkhex(
            d,
            &[&args[..], extra, &["--out", out, "--json"]].concat(),
        ))
    };
    let compiled = train(&[], "compiled.json");
    let streamed = train(&["--stream"], "streamed.json");
    assert_eq!(compiled["sum_order"], "exact");
    assert_eq!(streamed["sum_order"], "exact");
    let (a, b) = (
        compiled["exploitability"].as_f64().unwrap(),
        streamed["exploitability"].as_f64().unwrap(),
    );
    assert!((a - b).abs() < 1e-12, "compiled {a}, streamed {b}");
    // The same probabilities: `exploit` gives both files the same bits.
    let exploit = |file: &str| json(&darkhex(d, &["exploit", game, file, "--json"]));
    assert_eq!(
        exploit("compiled.json")["best_response_values"],
        exploit("streamed.json")["best_response_values"]
    );
    let reference: serde_json::Value =
        serde_json::from_str(include_str!("../reference/openspiel.json")).unwrap();
    let want = reference["games"][game]["cfr_exploitability_at"]["10"]
        .as_f64()
        .unwrap();
    let openspiel = train(&["--sum-order", "openspiel"], "openspiel.json");
    let e = openspiel["exploitability"].as_f64().unwrap();
    assert!((e - want).abs() < 1e-14, "OpenSpiel's {want}, ours {e}");
    assert!(
        (e - a).abs() > 1e-3,
        "the orders of sums give different runs"
    );
    ok(&darkhex(
        d,
        &[
            "train",
            game,
            "--algo",
            "cfr",
            "--iterations",
            "4",
            "--sum-order",
            "openspiel",
            "--checkpoint",
            "os.ckpt",
            "--out",
            "os4.json",
        ],
    ));
    let resumed = [
        "train",
        game,
        "--iterations",
        "10",
        "--checkpoint",
        "os.ckpt",
        "--resume",
    ];
    let v = json(&darkhex(
        d,
        &[&resumed[..], &["--out", "os10.json", "--json"]].concat(),
    ));
    assert_eq!(v["sum_order"], "openspiel");
    assert_eq!(v["exploitability"].as_f64().unwrap(), e);
    for (bad, says) in [
        (
            [&resumed[..], &["--sum-order", "exact"]].concat(),
            "resumes only that way",
        ),
        (
            vec!["train", game, "--stream", "--sum-order", "openspiel"],
            "sum regrets only exactly",
        ),
        (
            vec!["train", game, "--algo", "os-mccfr", "--sum-order", "exact"],
            "does not take --sum-order",
        ),
    ] {
        assert_refused(d, &bad, says);
    }
}

#[test]
fn samplers_run_over_the_tables_unless_keyed_and_agree_with_the_keyed_path() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let game = "dark_hex(num_rows=2,num_cols=3,gameversion=adh)";
    let run = |extra: &[&str], out: &str| {
        let args = [
            "train",
            game,
            "--algo",
            "os-mccfr",
            "--iterations",
            "3000",
            "--threads",
            "2",
            "--seed",
            "4",
            "--out",
            out,
            "--json",
        ];
        json(&darkhex(d, &[&args[..], extra].concat()))
    };
    let tables = run(&["--checkpoint", "t.ckpt"], "tables.json");
    let keyed = run(&["--keyed"], "keyed.json");
    assert_eq!(tables["over_tables"], true);
    assert_eq!(keyed["over_tables"], false);
    // The same samples and sums: the same policy, so the same exploitability.
    let e = tables["exploitability"].as_f64().unwrap();
    assert!(e > 0.0 && e < 0.5, "{e}");
    assert_eq!(e, keyed["exploitability"].as_f64().unwrap());
    for file in ["tables.json", "keyed.json"] {
        let x = json(&darkhex(d, &["exploit", game, file, "--json"]));
        assert_eq!(x["exploitability"].as_f64().unwrap(), e, "{file}");
    }
    for (bad, says) in [
        (
            vec!["train", "kuhn_poker", "--algo", "cfr+", "--keyed"],
            "--keyed applies",
        ),
        // The sampler continues its own stream: another seed would be
        // silently ignored.
        (
            vec![
                "train",
                game,
                "--checkpoint",
                "t.ckpt",
                "--resume",
                "--seed",
                "5",
            ],
            "made with --seed 4; it resumes only with that (or without --seed), not 5",
        ),
        (
            vec![
                "train",
                game,
                "--checkpoint",
                "t.ckpt",
                "--resume",
                "--keyed",
            ],
            "resumes only without --keyed",
        ),
    ] {
        assert_refused(d, &bad, says);
    }
}

/// os-mccfr with compact keys and `flags` on `game` (2 threads, seed 4):
/// 3000 iterations whole, and 1280 then resumed to 3000; checks the two
/// policies equal and `exploit` reads the trainer's exploitability, and
/// returns the whole run's JSON and its policy file.
fn compact_run_resumed(
    d: &Path,
    game: &str,
    flags: &[&str],
) -> (serde_json::Value, serde_json::Value) {
    let run = |extra: &[&str]| {
        let args = [
            &["train", game, "--algo", "os-mccfr"][..],
            flags,
            &["--threads", "2", "--seed", "4", "--json"],
            extra,
        ];
        json(&darkhex(d, &args.concat()))
    };
    let whole = run(&["--iterations", "3000", "--out", "whole.json"]);
    let e = whole["exploitability"].as_f64().unwrap();
    assert!(e > 0.0 && e < 1.0, "{e}");
    let x = json(&darkhex(d, &["exploit", game, "whole.json", "--json"]));
    assert_eq!(x["exploitability"].as_f64().unwrap(), e);
    let ckpt = ["--checkpoint", "c.ckpt"];
    run(&[&ckpt[..], &["--iterations", "1280", "--out", "half.json"]].concat());
    let resumed = [
        &ckpt[..],
        &["--resume", "--iterations", "3000", "--out", "resumed.json"],
    ];
    assert_eq!(run(&resumed.concat())["abstraction"], whole["abstraction"]);
    let policy = |f: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(d.join(f)).unwrap()).unwrap()
    };
    let file = policy("whole.json");
    assert_eq!(file["infosets"], policy("resumed.json")["infosets"]);
    (whole, file)
}

#[test]
fn abstract_policies_name_their_abstraction_resume_bitwise_and_exploit_lifts_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let game = "dark_hex(num_rows=2,num_cols=3)";
    let (whole, file) = compact_run_resumed(d, game, &["--abstraction", "view-rot180"]);
    assert_eq!(whole["abstraction"], "view-rot180");
    assert_eq!(file["abstraction"], "view-rot180");
    for (bad, says) in [
        (
            vec![
                "train",
                "kuhn_poker",
                "--algo",
                "os-mccfr",
                "--abstraction",
                "view",
            ],
            "--abstraction trains dark_hex and dark_rex games, not kuhn_poker",
        ),
        (
            vec!["train", game, "--algo", "cfr+", "--abstraction", "view"],
            "--abstraction applies to os-mccfr",
        ),
        (
            vec![
                "train",
                game,
                "--algo",
                "os-mccfr",
                "--abstraction",
                "views",
            ],
            "view-rot180",
        ),
        (
            vec![
                "train",
                "dark_hex(num_rows=2,num_cols=2,disclosure=flash)",
                "--algo",
                "os-mccfr",
                "--abstraction",
                "perfect-recall",
            ],
            "compact keys hold perfect recall only with obstype=reveal-nothing and disclosure=none",
        ),
        (
            vec![
                "train",
                game,
                "--checkpoint",
                "c.ckpt",
                "--resume",
                "--abstraction",
                "view",
            ],
            "the checkpoint was trained with --abstraction view-rot180",
        ),
    ] {
        assert_refused(d, &bad, says);
    }
}

#[test]
fn pone_terminals_end_histories_at_sure_wins_resume_bitwise_and_exploit_reads_pone_moves() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let game = "dark_hex(num_rows=2,num_cols=3,gameversion=adh)";
    let (whole, file) = compact_run_resumed(d, game, &["--pone-terminals"]);
    assert_eq!(whole["abstraction"], "perfect-recall");
    assert_eq!(whole["pone_terminals"], true);
    assert!(whole["pone_terminal_histories"].as_u64().unwrap() > 0);
    assert_eq!(file["parameters"]["pone_terminals"], 1.0);
    darkhex(
        d,
        &[
            "train",
            game,
            "--algo",
            "os-mccfr",
            "--abstraction",
            "attempts",
            "--iterations",
            "100",
            "--checkpoint",
            "plain.ckpt",
        ],
    );
    for (bad, says) in [
        (
            vec!["train", game, "--algo", "cfr+", "--pone-terminals"],
            "--pone-terminals applies to os-mccfr",
        ),
        (
            vec![
                "train",
                game,
                "--algo",
                "os-mccfr",
                "--keyed",
                "--pone-terminals",
            ],
            "--pone-terminals samples with compact keys, --keyed with token keys",
        ),
        (
            vec![
                "train",
                game,
                "--algo",
                "os-mccfr",
                "--abstraction",
                "view",
                "--pone-terminals",
            ],
            "under --abstraction view a key does not tell how many opponent stones are hidden",
        ),
        (
            vec![
                "train",
                "dark_hex(num_rows=2,num_cols=3,disclosure=noise)",
                "--algo",
                "os-mccfr",
                "--abstraction",
                "attempts",
                "--pone-terminals",
            ],
            "PONE terminals need obstype=reveal-nothing and disclosure=none",
        ),
        (
            vec![
                "train",
                game,
                "--checkpoint",
                "plain.ckpt",
                "--resume",
                "--pone-terminals",
            ],
            "the checkpoint was trained without --pone-terminals",
        ),
    ] {
        assert_refused(d, &bad, says);
    }
}

#[test]
fn a_time_limited_run_ends_like_a_finished_one() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let v = json(&darkhex(
        d,
        &[
            "train",
            "leduc_poker",
            "--iterations",
            "100000000",
            "--time-limit",
            "1",
            "--evals-per-decade",
            "2",
            "--checkpoint",
            "l.ckpt",
            "--out",
            "l.json",
            "--json",
        ],
    ));
    let it = v["iterations"].as_u64().unwrap();
    assert!(it > 0 && it < 100_000_000, "{it}");
    assert!(v["exploitability"].as_f64().unwrap() > 0.0);
    let x = json(&darkhex(d, &["exploit", "leduc_poker", "l.json", "--json"]));
    assert_eq!(x["exploitability"], v["exploitability"]);
    assert!(d.join("l.ckpt").exists());
}

#[test]
fn exploit_measures_a_player_by_the_policy_it_induces() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let args = [
        "exploit",
        "dark_hex(num_rows=2,num_cols=3,gameversion=adh)",
        "--player",
        "ismcts(sims=100)",
        "--samples",
        "5",
        "--policy-out",
        "i.json",
        "--json",
    ];
    let v = json(&darkhex(d, &args));
    assert!(v["exploitability"].as_f64().unwrap() > 0.0);
    let x = json(&darkhex(
        d,
        &[
            "exploit",
            "dark_hex(num_rows=2,num_cols=3,gameversion=adh)",
            "i.json",
            "--json",
        ],
    ));
    assert_eq!(x["exploitability"], v["exploitability"]);
    // Over the streaming tables (the path 3x3 takes) the player's states are
    // found by walking its rows instead of the histories: the same answer.
    let mut streamed = args.to_vec();
    streamed.retain(|a| *a != "--policy-out" && *a != "i.json");
    streamed.push("--stream");
    let t = json(&darkhex(d, &streamed));
    let (a, b) = (
        v["exploitability"].as_f64().unwrap(),
        t["exploitability"].as_f64().unwrap(),
    );
    assert!((a - b).abs() < 1e-12, "{a} vs {b}");
    assert_eq!(t["method"], "streaming pass");
    // Seeds come from the information states: a second run says the same.
    assert_eq!(
        json(&darkhex(d, &args))["exploitability"],
        v["exploitability"]
    );
    let o = darkhex(d, &["exploit", "kuhn_poker"]);
    assert!(!o.status.success() && stderr(&o).contains("<POLICY>"));
}

/// RCFR with the network: the policy file is the same bits with one
/// thread and with two (the tensor library's matrix products thread by
/// RAYON_NUM_THREADS), a checkpointed run resumes to the same file, and
/// the network's settings are refused where they do not apply.
#[test]
fn mlp_rcfr_is_the_same_on_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let train = |threads: &str, out: &str, extra: &[&str]| {
        let mut args = vec![
            "train",
            "leduc_poker",
            "--algo",
            "rcfr",
            "--regressor",
            "mlp",
            "--hidden",
            "64,64",
            "--fit-steps",
            "4",
            "--iterations",
            "6",
            "--threads",
            threads,
            "--seed",
            "9",
            "--out",
            out,
            "--json",
        ];
        args.extend_from_slice(extra);
        let o = Command::new(env!("CARGO_BIN_EXE_darkhex"))
            .args(&args)
            .env("RAYON_NUM_THREADS", threads)
            .current_dir(d)
            .output()
            .unwrap();
        json(&o)
    };
    let one = train("1", "one.bin", &[]);
    let two = train("2", "two.bin", &[]);
    assert_eq!(one["exploitability"], two["exploitability"]);
    let read = |name: &str| std::fs::read(d.join(name)).unwrap();
    assert_eq!(read("one.bin"), read("two.bin"));
    // Three iterations, then on to six from the checkpoint.
    let mut args = [
        "train",
        "leduc_poker",
        "--algo",
        "rcfr",
        "--regressor",
        "mlp",
        "--fit-steps",
        "4",
        "--seed",
        "9",
        "--iterations",
        "3",
        "--checkpoint",
        "c.ckpt",
        "--json",
    ];
    json(&darkhex(d, &args));
    args[11] = "6";
    let resumed = json(&darkhex(
        d,
        &[&args[..], &["--resume", "--out", "resumed.bin"]].concat(),
    ));
    assert_eq!(resumed["exploitability"], one["exploitability"]);
    assert_eq!(read("resumed.bin"), read("one.bin"));
    for (bad, says) in [
        (&["--regressor", "mlp", "--ridge", "1"][..], "--ridge"),
        (&["--hidden", "8"][..], "--hidden"),
        (&["--regressor", "mlp", "--hidden", "8,0"][..], "width"),
        (&["--regressor", "svm"][..], "svm"),
    ] {
        let args = [&["train", "kuhn_poker", "--algo", "rcfr"][..], bad].concat();
        assert_refused(d, &args, says);
    }
    assert_refused(
        d,
        &["train", "kuhn_poker", "--algo", "cfr", "--regressor", "mlp"],
        "--regressor",
    );
}

/// Deep CFR from the command line: the same exploitability to the bit with
/// one thread and with two, the traversals it was asked for, the
/// exploitability computed on Kuhn's tree, and the options it does not
/// take refused (and its own refused elsewhere).
#[test]
fn deep_cfr_trains_the_same_on_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let train = |threads: &str| {
        let o = Command::new(env!("CARGO_BIN_EXE_darkhex"))
            .args([
                "train",
                "kuhn_poker",
                "--algo",
                "deep-cfr",
                "--iterations",
                "4",
                "--traversals",
                "20",
                "--hidden",
                "16,16",
                "--fit-steps",
                "16",
                "--threads",
                threads,
                "--seed",
                "3",
                "--json",
            ])
            .env("RAYON_NUM_THREADS", threads)
            .current_dir(d)
            .output()
            .unwrap();
        json(&o)
    };
    let one = train("1");
    let two = train("2");
    assert_eq!(one["exploitability"], two["exploitability"]);
    assert_eq!(one["traversals"], 4 * 20 * 2);
    let e = one["exploitability"].as_f64().unwrap();
    assert!((0.0..0.5).contains(&e), "{e}");
    for (bad, says) in [
        (&["--plot", "p.svg"][..], "--plot"),
        (&["--regressor", "mlp"][..], "--regressor"),
        (&["--traversals", "0"][..], "0"),
    ] {
        let args = [&["train", "kuhn_poker", "--algo", "deep-cfr"][..], bad].concat();
        assert_refused(d, &args, says);
    }
    assert_refused(
        d,
        &["train", "kuhn_poker", "--algo", "cfr", "--traversals", "10"],
        "--traversals",
    );
}

/// A Deep CFR model from the command line: `--out` writes it, `exploit`
/// reads it and finds the exploitability the training printed, to the bit;
/// `play` and a league-style spec play it; a cut file, a changed byte, a
/// model for another game and a policy path holding another kind of
/// darkhex file are refused in one line.
#[test]
fn deep_cfr_model_files_are_exploited_played_and_checked() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let deep = [
        "--algo",
        "deep-cfr",
        "--iterations",
        "3",
        "--traversals",
        "20",
        "--hidden",
        "16,16",
        "--fit-steps",
        "16",
        "--json",
    ];
    let trained = json(&darkhex(
        d,
        &[&["train", "kuhn_poker", "--out", "k.model"][..], &deep[..]].concat(),
    ));
    assert_eq!(trained["policy"], "k.model");
    let e = trained["exploitability"].as_f64().unwrap();
    assert!(e > 0.0);
    let head = std::fs::read(d.join("k.model")).unwrap();
    assert!(head.starts_with(b"{\"format\":\"darkhex-model\""));
    let x = json(&darkhex(d, &["exploit", "kuhn_poker", "k.model", "--json"]));
    assert_eq!(x["exploitability"].as_f64().unwrap(), e);
    assert_eq!(x["uniform_infosets"], 0);
    // Without --out, the default path under policies/.
    let v = json(&darkhex(
        d,
        &[&["train", "kuhn_poker"][..], &deep[..]].concat(),
    ));
    assert_eq!(v["policy"], "policies/kuhn_poker-deep-cfr.bin");
    assert_eq!(v["exploitability"], trained["exploitability"]);
    // A model plays: Kuhn against the equilibrium, and 3x3 Dark Hex, where
    // no table fits, against itself.
    let out = ok(&darkhex(
        d,
        &[
            "play",
            "kuhn_poker",
            "--p0",
            "policy(file=k.model)",
            "--p1",
            "lp",
            "--seed",
            "1",
        ],
    ));
    assert!(out.contains("wins"), "{out}");
    let dh3 = "dark_hex(num_rows=3,num_cols=3)";
    let small = [
        "--algo",
        "deep-cfr",
        "--iterations",
        "1",
        "--traversals",
        "1",
        "--hidden",
        "8",
        "--fit-steps",
        "4",
        "--out",
        "dh3.model",
    ];
    let out = ok(&darkhex(d, &[&["train", dh3][..], &small[..]].concat()));
    assert!(
        out.contains("not computed") && out.contains("dh3.model"),
        "{out}"
    );
    let out = ok(&darkhex(
        d,
        &[
            "play",
            dh3,
            "--p0",
            "policy(file=dh3.model)",
            "--p1",
            "policy(file=dh3.model)",
        ],
    ));
    assert!(out.contains("x wins") || out.contains("o wins"), "{out}");
    // Refusals.
    assert_refused(d, &["exploit", "leduc_poker", "k.model"], "kuhn_poker");
    assert_refused(
        d,
        &[
            "play",
            dh3,
            "--p0",
            "policy(file=k.model)",
            "--p1",
            "random",
        ],
        "is for kuhn_poker",
    );
    let good = std::fs::read(d.join("k.model")).unwrap();
    std::fs::write(d.join("cut.model"), &good[..good.len() - 10]).unwrap();
    assert_refused(d, &["exploit", "kuhn_poker", "cut.model"], "cut short");
    let mut flipped = good.clone();
    let at = good.len() - 20;
    flipped[at] ^= 4;
    std::fs::write(d.join("flipped.model"), &flipped).unwrap();
    assert_refused(d, &["exploit", "kuhn_poker", "flipped.model"], "checksum");
    // A model is not overwritten by a table policy, nor read as one.
    assert_refused(
        d,
        &[
            "train",
            "kuhn_poker",
            "--algo",
            "cfr",
            "--iterations",
            "2",
            "--out",
            "k.model",
        ],
        "would replace a darkhex policy model",
    );
}

/// Deep CFR stopped by --time-limit (or short of its iterations) and
/// resumed from its checkpoint writes the model an uninterrupted run
/// writes, byte for byte, with the same exploitability; another game's
/// checkpoint and another algorithm's are refused.
#[test]
fn deep_cfr_resumes_to_the_same_model() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let deep = |extra: &[&str]| {
        let base = [
            "train",
            "kuhn_poker",
            "--algo",
            "deep-cfr",
            "--traversals",
            "20",
            "--explore",
            "1",
            "--hidden",
            "16,16",
            "--fit-steps",
            "16",
            "--seed",
            "2",
            "--json",
        ];
        json(&darkhex(d, &[&base[..], extra].concat()))
    };
    let one = deep(&["--iterations", "4", "--out", "one.model"]);
    deep(&[
        "--iterations",
        "4",
        "--time-limit",
        "0.001",
        "--checkpoint",
        "t.ckpt",
        "--out",
        "t.model",
    ]);
    deep(&[
        "--iterations",
        "2",
        "--checkpoint",
        "i.ckpt",
        "--out",
        "i.model",
    ]);
    for ckpt in ["t.ckpt", "i.ckpt"] {
        let out = format!("{ckpt}.model");
        let resumed = deep(&[
            "--iterations",
            "4",
            "--checkpoint",
            ckpt,
            "--resume",
            "--out",
            &out,
        ]);
        assert_eq!(resumed["iterations"], 4);
        assert_eq!(resumed["traversals"], 4 * 20 * 2);
        assert_eq!(resumed["exploitability"], one["exploitability"]);
        let (a, b) = (
            std::fs::read(d.join(&out)).unwrap(),
            std::fs::read(d.join("one.model")).unwrap(),
        );
        assert!(
            a == b,
            "{ckpt}: the resumed model differs from the uninterrupted one"
        );
    }
    assert_refused(
        d,
        &[
            "train",
            "kuhn_poker",
            "--algo",
            "deep-cfr",
            "--checkpoint",
            "i.ckpt",
        ],
        "--resume",
    );
    assert_refused(
        d,
        &[
            "train",
            "leduc_poker",
            "--algo",
            "deep-cfr",
            "--checkpoint",
            "i.ckpt",
            "--resume",
        ],
        "kuhn_poker",
    );
    // A setting other than the checkpoint's is refused, naming it and
    // both values, not silently replaced by the checkpoint's.
    for (option, value, says) in [
        ("--traversals", "30", "--traversals 20"),
        ("--seed", "5", "--seed 2"),
        ("--hidden", "32", "--hidden 16,16"),
        ("--learning-rate", "0.01", "--learning-rate 0.003"),
        ("--policy-steps", "10", "--policy-steps 64"),
        ("--explore", "2", "--explore 1"),
    ] {
        let args = [
            "train",
            "kuhn_poker",
            "--algo",
            "deep-cfr",
            "--iterations",
            "4",
            "--checkpoint",
            "i.ckpt",
            "--resume",
            option,
            value,
        ];
        let says = format!("{says}; it resumes only with that (or without {option}), not {value}");
        assert_refused(d, &args, &says);
    }
    darkhex(
        d,
        &[
            "train",
            "kuhn_poker",
            "--algo",
            "cfr",
            "--iterations",
            "2",
            "--checkpoint",
            "cfr.ckpt",
        ],
    );
    assert_refused(
        d,
        &[
            "train",
            "kuhn_poker",
            "--algo",
            "deep-cfr",
            "--checkpoint",
            "cfr.ckpt",
            "--resume",
        ],
        "not a deep-cfr checkpoint but a cfr one (resume it with --algo cfr, or without --algo)",
    );
}

/// A Deep CFR checkpoint given where a tabular one is read (train without
/// --algo deep-cfr, plot) is named as what it is, with what to do
/// instead; a resumed run's totals are the whole run's and its rates this
/// session's, each labelled.
#[test]
fn deep_cfr_checkpoints_are_named_and_resumed_figures_labelled() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let deep = [
        "train",
        "kuhn_poker",
        "--algo",
        "deep-cfr",
        "--traversals",
        "10",
        "--hidden",
        "8",
        "--fit-steps",
        "4",
        "--policy-steps",
        "4",
        "--checkpoint",
        "d.ckpt",
        "--out",
        "d.model",
    ];
    let first = json(&darkhex(
        d,
        &[&deep[..], &["--iterations", "2", "--json"]].concat(),
    ));
    assert_eq!(first["traversals"], 2 * 10 * 2);
    let v = json(&darkhex(
        d,
        &[&deep[..], &["--iterations", "3", "--resume", "--json"]].concat(),
    ));
    assert_eq!(v["traversals"], 3 * 10 * 2);
    let session = &v["session"];
    assert_eq!(session["iterations"], 1);
    assert_eq!(session["traversals"], 10 * 2);
    assert!(session["seconds"].as_f64().unwrap() <= v["seconds"].as_f64().unwrap());
    // The rate is this session's traversals over this session's time.
    let rate = session["traversals_per_second"].as_f64().unwrap();
    let seconds = session["traversal_seconds"].as_f64().unwrap();
    assert!((rate * seconds - 20.0).abs() < 1e-6, "{v}");
    let out = ok(&darkhex(
        d,
        &[&deep[..], &["--iterations", "4", "--resume"]].concat(),
    ));
    assert!(
        out.contains("traversals       80 in the whole run; this session 20 ("),
        "{out}"
    );
    assert!(out.contains(" in the whole run; this session "), "{out}");
    assert_refused(
        d,
        &["train", "kuhn_poker", "--checkpoint", "d.ckpt", "--resume"],
        "d.ckpt is a Deep CFR checkpoint: resume it with --algo deep-cfr",
    );
    assert_refused(
        d,
        &["plot", "p.svg", "d.ckpt"],
        "d.ckpt is a Deep CFR checkpoint, which keeps no exploitability curve",
    );
}

/// RCFR, RCFR+ and f-RCFR over the information-state tables (`--stream`;
/// the default where the tree does not compile) play what they play on
/// the compiled tree, to the same bits; a run stopped and resumed, or on
/// another thread count, writes the same policy file; a network is
/// refused over the tables in one line.
#[test]
fn rcfr_streams_to_the_compiled_trees_policy() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let game = "dark_hex(num_rows=2,num_cols=3,gameversion=adh)";
    for algo in [
        &["--algo", "rcfr"][..],
        &["--algo", "rcfr+"],
        &["--algo", "f-rcfr", "--link", "exp", "--temperature", "0.5"],
    ] {
        let train = |extra: &[&str], out: &str| {
            let args = ["train", game, "--iterations", "8", "--out", out, "--json"];
            json(&darkhex(d, &[&args[..], algo, extra].concat()))
        };
        let compiled = train(&[], "compiled.json");
        let streamed = train(&["--stream", "--threads", "1"], "streamed.json");
        assert_eq!(streamed["over_tables"], true);
        assert_eq!(streamed["algo"], compiled["algo"]);
        let (a, b) = (
            compiled["exploitability"].as_f64().unwrap(),
            streamed["exploitability"].as_f64().unwrap(),
        );
        assert!(
            (a - b).abs() < 1e-12,
            "{algo:?}: compiled {a}, streamed {b}"
        );
        let exploit = |file: &str| json(&darkhex(d, &["exploit", game, file, "--json"]));
        assert_eq!(
            exploit("compiled.json")["best_response_values"],
            exploit("streamed.json")["best_response_values"],
            "{algo:?}"
        );
        let _ = std::fs::remove_file(d.join("run.ckpt"));
        for n in ["3", "8"] {
            let args = [
                "train",
                game,
                "--stream",
                "--threads",
                "2",
                "--iterations",
                n,
            ];
            let resumed = [
                "--checkpoint",
                "run.ckpt",
                "--resume",
                "--out",
                "resumed.json",
            ];
            ok(&darkhex(d, &[&args[..], algo, &resumed].concat()));
        }
        let a = std::fs::read(d.join("streamed.json")).unwrap();
        let b = std::fs::read(d.join("resumed.json")).unwrap();
        assert!(
            a == b,
            "{algo:?}: the resumed policy differs from the uninterrupted one"
        );
    }
    // A network over the tables, fitted to samples of 64 slots: resumed
    // on two threads, it is the uninterrupted run on one.
    let network = [
        "--algo",
        "rcfr",
        "--regressor",
        "mlp",
        "--fit-steps",
        "4",
        "--batch-size",
        "16",
    ];
    let args = [
        "train",
        game,
        "--stream",
        "--iterations",
        "8",
        "--threads",
        "1",
    ];
    let run = ["--out", "network.json", "--json"];
    let uninterrupted = json(&darkhex(d, &[&args[..], &network, &run].concat()));
    assert_eq!(uninterrupted["over_tables"], true);
    for n in ["3", "8"] {
        let args = [
            "train",
            game,
            "--stream",
            "--threads",
            "2",
            "--iterations",
            n,
        ];
        let resumed = [
            "--checkpoint",
            "network.ckpt",
            "--resume",
            "--out",
            "network-resumed.json",
        ];
        ok(&darkhex(d, &[&args[..], &network, &resumed].concat()));
    }
    let a = std::fs::read(d.join("network.json")).unwrap();
    let b = std::fs::read(d.join("network-resumed.json")).unwrap();
    assert!(
        a == b,
        "the resumed network run differs from the uninterrupted one"
    );
}

#[test]
fn a_sampler_whose_tables_outgrow_the_memory_limit_stops_and_resumes_to_the_same_policy() {
    // The keyed tables of 4x3 grow with every information state met; at
    // 4 MB the run stops early with a checkpoint, and resuming it under a
    // larger limit gives the uninterrupted run's policy.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let args = [
        "train",
        "dark_hex(num_rows=4,num_cols=3)",
        "--algo",
        "os-mccfr",
        "--keyed",
        "--iterations",
        "3000",
        "--threads",
        "2",
        "--seed",
        "1",
        "--json",
    ];
    let run = |extra: &[&str]| darkhex(d, &[&args[..], extra].concat());
    let o = run(&[
        "--max-memory-gb",
        "0.004",
        "--checkpoint",
        "c.ckpt",
        "--out",
        "resumed.bin",
    ]);
    let err = stderr(&o);
    assert!(
        err.contains("memory limit reached") && err.contains("--max-memory-gb"),
        "{err}"
    );
    let stopped = json(&o)["iterations"].as_u64().unwrap();
    assert!(stopped > 0 && stopped < 3000, "{stopped}");
    let resumed = json(&run(&[
        "--max-memory-gb",
        "1",
        "--checkpoint",
        "c.ckpt",
        "--resume",
        "--out",
        "resumed.bin",
    ]));
    assert_eq!(resumed["iterations"], 3000);
    let straight = run(&["--max-memory-gb", "1", "--out", "straight.bin"]);
    assert!(!stderr(&straight).contains("memory limit"));
    let a = std::fs::read(d.join("straight.bin")).unwrap();
    let b = std::fs::read(d.join("resumed.bin")).unwrap();
    assert!(
        a == b,
        "the resumed policy differs from the uninterrupted one"
    );
}
