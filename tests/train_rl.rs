//! `darkhex train --algo ppo|mmd`: the model it writes is one `exploit`
//! and `play` read, with the exploitability the run printed; the same seed
//! gives the same model on one thread or two; a run stopped by Ctrl-C
//! resumes to the uninterrupted run's model and checkpoint; the options it
//! does not take, the preset's games and mismatched checkpoints are
//! refused in one line.
#![cfg(unix)]

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::training::{same_bytes, train_kuhn, without_times};
use common::{assert_refused, darkhex, json, ok, stderr};
use darkhex_algorithms::rl::checkpoint::RlCheckpoint;

/// A small PPO run on Kuhn poker: towers of 16, an update every 256 steps.
const SMALL: [&str; 8] = [
    "--hidden",
    "16",
    "--num-envs",
    "8",
    "--rollout-steps",
    "32",
    "--seed",
    "3",
];

fn train(d: &Path, extra: &[&str]) -> serde_json::Value {
    train_kuhn(d, "ppo", &SMALL, extra)
}

#[test]
fn a_ppo_model_is_exploited_and_played_with_the_runs_exploitability() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = train(
        d,
        &[
            "--steps",
            "4096",
            "--eval-every",
            "1024",
            "--plot",
            "k.svg",
            "--out",
            "k.model",
        ],
    );
    assert_eq!(run["algo"], "ppo");
    assert_eq!(run["steps"], 4096);
    assert_eq!(run["updates"], 16);
    let curve = run["curve"].as_array().unwrap();
    let steps: Vec<u64> = curve.iter().map(|p| p["steps"].as_u64().unwrap()).collect();
    assert_eq!(steps, [1024, 2048, 3072, 4096]);
    let e = run["exploitability"].as_f64().unwrap();
    assert!(e > 0.0 && e < 0.5, "{e}");
    assert!(
        std::fs::read_to_string(d.join("k.svg"))
            .unwrap()
            .contains("<svg")
    );
    let x = json(&darkhex(d, &["exploit", "kuhn_poker", "k.model", "--json"]));
    assert_eq!(x["exploitability"].as_f64(), Some(e));
    // `plot` draws the run's curve (steps, not iterations) beside a solver's.
    std::fs::write(d.join("ppo.json"), run.to_string()).unwrap();
    let cfr = darkhex(
        d,
        &[
            "train",
            "kuhn_poker",
            "--algo",
            "cfr+",
            "--iterations",
            "30",
            "--out",
            "c.json",
            "--json",
        ],
    );
    std::fs::write(d.join("cfr.json"), ok(&cfr)).unwrap();
    let plotted = ok(&darkhex(d, &["plot", "both.svg", "ppo.json", "cfr.json"]));
    assert!(
        plotted.contains("ppo ") && plotted.contains("4 evaluation(s)"),
        "{plotted}"
    );
    let svg = std::fs::read_to_string(d.join("both.svg")).unwrap();
    assert!(svg.contains("ppo") && svg.contains("cfr+") && svg.matches("polyline").count() >= 2);
    let played = ok(&darkhex(
        d,
        &[
            "play",
            "kuhn_poker",
            "--p0",
            "policy(file=k.model)",
            "--p1",
            "random",
        ],
    ));
    assert!(played.contains("wins"), "{played}");
    // The default model path is named after the game and the algorithm.
    let run = json(&darkhex(
        d,
        &[
            "train",
            "kuhn_poker",
            "--algo",
            "mmd",
            "--hidden",
            "8",
            "--steps",
            "1024",
            "--json",
        ],
    ));
    assert_eq!(run["policy"], "policies/kuhn_poker-mmd.bin");
    assert_eq!(run["settings"]["mmd"]["kl_coef"], 0.05);
    assert!(d.join("policies/kuhn_poker-mmd.bin").exists());
}

#[test]
fn the_same_seed_trains_the_same_model_on_one_thread_or_two() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = |threads: &str| {
        let out = format!("t{threads}.model");
        let args = [
            &["train", "dark_hex(num_rows=2,num_cols=2)", "--algo", "mmd"][..],
            &[
                "--num-envs",
                "200",
                "--rollout-steps",
                "4",
                "--hidden",
                "64,64",
            ],
            &[
                "--steps",
                "8000",
                "--threads",
                threads,
                "--out",
                &out,
                "--json",
            ],
        ]
        .concat();
        let o = Command::new(env!("CARGO_BIN_EXE_darkhex"))
            .args(&args)
            .env("RAYON_NUM_THREADS", threads)
            .current_dir(d)
            .output()
            .unwrap();
        let v = json(&o);
        assert_eq!(v["threads"], threads.parse::<u64>().unwrap());
        std::fs::read(d.join(out)).unwrap()
    };
    assert!(run("1") == run("2"), "the models differ");
}

/// Ctrl-C stops after the update under way and saves the checkpoint and
/// the network so far; the run resumed from it writes the model of the run
/// that never stopped, byte for byte, and the same checkpoint but for the
/// wall times it records.
#[test]
fn a_run_stopped_by_ctrl_c_resumes_to_the_uninterrupted_model_and_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let args = [
        &["train", "kuhn_poker", "--algo", "mmd"][..],
        &["--rollout-steps", "32", "--seed", "3"],
        &[
            "--hidden",
            "64,64",
            "--steps",
            "200000",
            "--eval-every",
            "50000",
        ],
    ]
    .concat();
    let with = |extra: &[&'static str]| [&args[..], extra].concat();
    let mut child = Command::new(env!("CARGO_BIN_EXE_darkhex"))
        .args(with(&["--checkpoint", "r.ckpt", "--out", "resumed.model"]))
        .current_dir(d)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(1));
    assert!(child.try_wait().unwrap().is_none(), "the run ended early");
    let sent = Instant::now();
    Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(sent.elapsed() < Duration::from_secs(10), "{err}");
    assert!(
        err.contains("interrupted at step")
            && err.contains("r.ckpt holds step")
            && err.contains("--resume"),
        "{err}"
    );
    let resumed = json(&darkhex(
        d,
        &with(&[
            "--checkpoint",
            "r.ckpt",
            "--resume",
            "--out",
            "resumed.model",
            "--json",
        ]),
    ));
    let straight = json(&darkhex(
        d,
        &with(&[
            "--checkpoint",
            "s.ckpt",
            "--out",
            "straight.model",
            "--json",
        ]),
    ));
    assert_eq!(resumed["steps"], straight["steps"]);
    assert_eq!(resumed["exploitability"], straight["exploitability"]);
    assert!(
        same_bytes(d, "resumed.model", "straight.model"),
        "the resumed model differs from the uninterrupted one"
    );
    assert!(
        without_times::<RlCheckpoint>(&d.join("r.ckpt"))
            == without_times::<RlCheckpoint>(&d.join("s.ckpt")),
        "the checkpoints differ"
    );
}

#[test]
fn what_ppo_and_mmd_do_not_take_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ppo = ["train", "kuhn_poker", "--algo", "ppo"];
    for (extra, says) in [
        (
            &["--iterations", "10"][..],
            "ppo does not take --iterations",
        ),
        (
            &["--gamma", "1"][..],
            "ppo and mmd's discount is --discount",
        ),
        (
            &["--kl-coef", "0.1"][..],
            "--kl-coef and --mmd-schedule apply to --algo mmd only",
        ),
        (&["--steps", "0"][..], "0 is out of range"),
        (
            &[
                "--num-envs",
                "1",
                "--rollout-steps",
                "2",
                "--minibatches",
                "3",
            ][..],
            "3 minibatches of a rollout of 2 steps (1 games x 2) leave none a step",
        ),
        (
            &["--preset", "rudolph2026"][..],
            "the preset rudolph2026 has no ppo settings for kuhn_poker; it covers classical_dark_hex ('dark_hex(num_rows=3,num_cols=3)'), abrupt_dark_hex",
        ),
        (&["--preset", "other"][..], "[possible values: rudolph2026]"),
    ] {
        assert_refused(d, &[&ppo[..], extra].concat(), says);
    }
    assert_refused(
        d,
        &["train", "kuhn_poker", "--algo", "cfr", "--steps", "10"],
        "--steps applies to --algo ppo, mmd and nfsp only",
    );
    assert_refused(
        d,
        &[
            "train",
            "dark_hex(num_rows=4,num_cols=3)",
            "--algo",
            "ppo",
            "--hidden",
            "8",
            "--plot",
            "x.svg",
        ],
        "--plot draws exact exploitability, which dark_hex(num_rows=4,num_cols=3) is too large to compute",
    );
    // Checkpoints: another algorithm's, another setting, another kind.
    train(
        d,
        &[
            "--steps",
            "512",
            "--checkpoint",
            "p.ckpt",
            "--out",
            "p.model",
        ],
    );
    assert_refused(
        d,
        &[
            "train",
            "kuhn_poker",
            "--algo",
            "mmd",
            "--steps",
            "1024",
            "--checkpoint",
            "p.ckpt",
            "--resume",
        ],
        "the checkpoint holds a run of ppo; resume it with --algo ppo",
    );
    assert_refused(
        d,
        &[
            &ppo[..],
            &[
                "--steps",
                "1024",
                "--clip",
                "0.3",
                "--checkpoint",
                "p.ckpt",
                "--resume",
            ],
        ]
        .concat(),
        "the checkpoint was made with --clip 0.1; it resumes only with that (or without --clip), not 0.3",
    );
    assert_refused(
        d,
        &["train", "kuhn_poker", "--checkpoint", "p.ckpt", "--resume"],
        "p.ckpt holds a run of ppo: resume it with --algo ppo",
    );
    ok(&darkhex(
        d,
        &[
            "train",
            "kuhn_poker",
            "--iterations",
            "5",
            "--checkpoint",
            "c.ckpt",
        ],
    ));
    assert_refused(
        d,
        &[&ppo[..], &["--checkpoint", "c.ckpt", "--resume"]].concat(),
        "c.ckpt is not a valid training checkpoint file: it is not a ppo or mmd checkpoint but a cfr+ one (resume it with --algo cfr+)",
    );
    // A resumed run goes on to more steps with the checkpoint's settings.
    let more = train(
        d,
        &[
            "--steps",
            "1024",
            "--checkpoint",
            "p.ckpt",
            "--resume",
            "--out",
            "p.model",
        ],
    );
    assert_eq!(more["steps"], 1024);
}
