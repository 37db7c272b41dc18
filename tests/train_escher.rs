//! `darkhex train --algo escher`: the model it writes is one `exploit`
//! reads with the exploitability the run printed; the same seed gives the
//! same model on one thread or two; a run stopped by its time limit or
//! its iterations resumes to the uninterrupted run's model byte for byte;
//! options it does not take and mismatched checkpoints are refused.
#![cfg(unix)]

mod common;

use std::path::Path;

use common::training::{same_bytes, train_kuhn};
use common::{assert_refused, darkhex, json, ok};

/// A small ESCHER run on Kuhn poker.
const SMALL: [&str; 12] = [
    "--traversals",
    "40",
    "--value-traversals",
    "40",
    "--hidden",
    "16,16",
    "--fit-steps",
    "16",
    "--seed",
    "2",
    "--eval-every",
    "2",
];

fn escher(d: &Path, extra: &[&str]) -> serde_json::Value {
    train_kuhn(d, "escher", &SMALL, extra)
}

#[test]
fn escher_resumes_to_the_same_model() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let one = escher(
        d,
        &["--iterations", "4", "--threads", "2", "--out", "one.model"],
    );
    assert_eq!(one["algo"], "escher");
    assert_eq!(one["curve"].as_array().unwrap().len(), 2);
    let e = one["exploitability"].as_f64().unwrap();
    assert!(e > 0.0 && e < 0.46, "{e}");
    // `exploit` reads the model and finds the exploitability the run printed.
    let exploit = json(&darkhex(
        d,
        &["exploit", "kuhn_poker", "one.model", "--json"],
    ));
    let found = exploit["exploitability"].as_f64().unwrap();
    assert!((found - e).abs() < 1e-12, "{found} {e}");
    // One thread gives the same model.
    let single = escher(
        d,
        &[
            "--iterations",
            "4",
            "--threads",
            "1",
            "--out",
            "single.model",
        ],
    );
    assert_eq!(single["exploitability"], one["exploitability"]);
    escher(
        d,
        &[
            "--iterations",
            "4",
            "--time-limit",
            "0.001",
            "--checkpoint",
            "t.ckpt",
            "--out",
            "t.model",
        ],
    );
    escher(
        d,
        &[
            "--iterations",
            "2",
            "--checkpoint",
            "i.ckpt",
            "--out",
            "i.model",
        ],
    );
    for ckpt in ["t.ckpt", "i.ckpt"] {
        let out = format!("{ckpt}.model");
        let resumed = escher(
            d,
            &[
                "--iterations",
                "4",
                "--checkpoint",
                ckpt,
                "--resume",
                "--out",
                &out,
            ],
        );
        assert_eq!(resumed["iterations"], 4);
        assert_eq!(resumed["exploitability"], one["exploitability"]);
        assert!(
            same_bytes(d, &out, "one.model"),
            "{ckpt}: the resumed model differs from the uninterrupted one"
        );
    }
    let base = ["train", "kuhn_poker", "--algo", "escher"];
    assert_refused(d, &[&base[..], &["--steps", "10"]].concat(), "--steps");
    assert_refused(d, &[&base[..], &["--explore", "1"]].concat(), "--explore");
    assert_refused(
        d,
        &[
            "train",
            "kuhn_poker",
            "--algo",
            "deep-cfr",
            "--value-steps",
            "3",
        ],
        "--algo escher only",
    );
    assert_refused(
        d,
        &[&base[..], &["--preset", "rudolph2026"]].concat(),
        "classical_dark_hex",
    );
    assert_refused(
        d,
        &[
            &base[..],
            &["--checkpoint", "i.ckpt", "--resume", "--seed", "5"],
        ]
        .concat(),
        "--seed 2",
    );
    // A Deep CFR checkpoint is not resumed as ESCHER's.
    ok(&darkhex(
        d,
        &[
            "train",
            "kuhn_poker",
            "--algo",
            "deep-cfr",
            "--iterations",
            "1",
            "--traversals",
            "5",
            "--hidden",
            "8",
            "--fit-steps",
            "2",
            "--checkpoint",
            "deep.ckpt",
            "--out",
            "deep.model",
        ],
    ));
    assert_refused(
        d,
        &[&base[..], &["--checkpoint", "deep.ckpt", "--resume"]].concat(),
        "not an escher checkpoint",
    );
}
