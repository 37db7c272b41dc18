//! `darkhex train --algo nfsp`: the model it writes is one `exploit` reads
//! with the exploitability the run printed, and `play` takes; the same
//! seed gives the same model on one thread or two; a run stopped by its
//! time limit or its steps resumes to the uninterrupted run's model and
//! checkpoint, byte for byte; options it does not take, other
//! algorithms' checkpoints and changed settings are refused in one line.
#![cfg(unix)]

mod common;

use std::path::Path;

use common::training::{same_bytes, train_kuhn, without_times};
use common::{assert_refused, darkhex, json, ok};
use darkhex_algorithms::files;
use darkhex_algorithms::rl::checkpoint::NfspCheckpoint;

/// A small NFSP run on Kuhn poker: half its games played by the best
/// responders, so that both the DQNs and the average networks learn
/// within a few thousand steps.
const SMALL: [&str; 8] = [
    "--hidden",
    "16",
    "--anticipatory",
    "0.5",
    "--seed",
    "3",
    "--eval-every",
    "2000",
];

fn nfsp(d: &Path, extra: &[&str]) -> serde_json::Value {
    train_kuhn(d, "nfsp", &SMALL, extra)
}

#[test]
fn nfsp_resumes_to_the_same_model_and_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let straight = nfsp(
        d,
        &[
            "--steps",
            "8000",
            "--threads",
            "2",
            "--checkpoint",
            "s.ckpt",
            "--out",
            "s.model",
        ],
    );
    assert_eq!(straight["algo"], "nfsp");
    assert!(straight["steps"].as_u64().unwrap() >= 8000);
    assert_eq!(straight["curve"].as_array().unwrap().len(), 4);
    // The average networks learned: the curve moved.
    let curve: Vec<f64> = straight["curve"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["exploitability"].as_f64().unwrap())
        .collect();
    assert!(curve[0] != curve[3], "{curve:?}");
    let e = straight["exploitability"].as_f64().unwrap();
    // `exploit` reads the model and finds the exploitability the run printed.
    let exploit = json(&darkhex(d, &["exploit", "kuhn_poker", "s.model", "--json"]));
    let found = exploit["exploitability"].as_f64().unwrap();
    assert!((found - e).abs() < 1e-12, "{found} {e}");
    ok(&darkhex(
        d,
        &[
            "play",
            "kuhn_poker",
            "--p0",
            "policy(file=s.model)",
            "--p1",
            "random",
        ],
    ));
    // One thread gives the same model.
    nfsp(
        d,
        &["--steps", "8000", "--threads", "1", "--out", "one.model"],
    );
    assert!(
        same_bytes(d, "one.model", "s.model"),
        "one thread and two give different models"
    );
    // Stopped by its steps halfway, and by its time limit after a game.
    nfsp(
        d,
        &[
            "--steps",
            "4000",
            "--checkpoint",
            "h.ckpt",
            "--out",
            "h.model",
        ],
    );
    nfsp(
        d,
        &[
            "--steps",
            "8000",
            "--time-limit",
            "0.05",
            "--checkpoint",
            "t.ckpt",
            "--out",
            "t.model",
        ],
    );
    for ckpt in ["h.ckpt", "t.ckpt"] {
        let out = format!("{ckpt}.model");
        let resumed = nfsp(
            d,
            &[
                "--steps",
                "8000",
                "--checkpoint",
                ckpt,
                "--resume",
                "--out",
                &out,
            ],
        );
        assert_eq!(resumed["steps"], straight["steps"]);
        assert_eq!(resumed["exploitability"], straight["exploitability"]);
        assert!(
            same_bytes(d, &out, "s.model"),
            "{ckpt}: the resumed model differs from the uninterrupted one"
        );
        // The run stopped by its time limit evaluated where it stopped, a
        // point the straight run's curve does not have: its training state
        // is compared, the other's whole checkpoint.
        let state = |c: &str| files::load::<NfspCheckpoint>(&d.join(c)).unwrap().nfsp;
        if ckpt == "t.ckpt" {
            assert!(state(ckpt) == state("s.ckpt"), "{ckpt}: the states differ");
        } else {
            assert!(
                without_times::<NfspCheckpoint>(&d.join(ckpt))
                    == without_times::<NfspCheckpoint>(&d.join("s.ckpt")),
                "{ckpt}: the checkpoints differ"
            );
        }
    }
}

#[test]
fn what_nfsp_does_not_take_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let base = ["train", "kuhn_poker", "--algo", "nfsp"];
    for (extra, says) in [
        (
            &["--num-envs", "4"][..],
            "nfsp does not take --num-envs (of ppo and mmd)",
        ),
        (
            &["--traversals", "4"][..],
            "nfsp does not take --traversals",
        ),
        (
            &["--iterations", "4"][..],
            "nfsp does not take --iterations",
        ),
        (&["--anticipatory", "2"][..], "2 is out of range"),
        (
            &["--preset", "rudolph2026"][..],
            "the preset rudolph2026 has no nfsp settings for kuhn_poker",
        ),
    ] {
        assert_refused(d, &[&base[..], extra].concat(), says);
    }
    assert_refused(
        d,
        &[
            "train",
            "kuhn_poker",
            "--algo",
            "ppo",
            "--anticipatory",
            "0.5",
        ],
        "--anticipatory applies to --algo nfsp only",
    );
    // Another algorithm's checkpoint, and a changed setting.
    ok(&darkhex(
        d,
        &[
            "train",
            "kuhn_poker",
            "--algo",
            "ppo",
            "--hidden",
            "8",
            "--steps",
            "64",
            "--checkpoint",
            "p.ckpt",
            "--out",
            "p.model",
        ],
    ));
    assert_refused(
        d,
        &[
            &base[..],
            &["--hidden", "8", "--checkpoint", "p.ckpt", "--resume"],
        ]
        .concat(),
        "it is not an nfsp checkpoint but a ppo one (resume it with --algo ppo)",
    );
    nfsp(
        d,
        &[
            "--steps",
            "64",
            "--checkpoint",
            "n.ckpt",
            "--out",
            "n.model",
        ],
    );
    assert_refused(
        d,
        &[
            &base[..],
            &[
                "--steps",
                "128",
                "--anticipatory",
                "0.25",
                "--checkpoint",
                "n.ckpt",
                "--resume",
            ],
        ]
        .concat(),
        "the checkpoint was made with --anticipatory 0.5; it resumes only with that",
    );
}
