//! `darkhex solve` as a user runs it.

mod common;

use common::{darkhex, json, ok, stderr};

#[test]
fn solve_reports_the_value_and_writes_a_policy_exploit_accepts() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let v = json(&darkhex(
        d,
        &["solve", "kuhn_poker", "--out", "k.json", "--json"],
    ));
    for key in [
        "game",
        "method",
        "value_p0",
        "exploitability",
        "seconds",
        "variables",
        "constraints",
    ] {
        assert!(v.get(key).is_some(), "{key} missing from {v}");
    }
    assert!((v["value_p0"].as_f64().unwrap() + 1.0 / 18.0).abs() < 1e-7);
    assert!(v["exploitability"].as_f64().unwrap() < 1e-6);
    let x = json(&darkhex(d, &["exploit", "kuhn_poker", "k.json", "--json"]));
    assert!(x["exploitability"].as_f64().unwrap() < 1e-6);

    let v = json(&darkhex(
        d,
        &[
            "solve",
            "dark_hex(num_rows=2,num_cols=3,gameversion=adh)",
            "--out",
            "adh.bin",
            "--json",
        ],
    ));
    assert!(
        (v["value_p0"].as_f64().unwrap() - 9.0 / 11.0).abs() < 1e-7,
        "{v}"
    );
    let x = json(&darkhex(
        d,
        &[
            "exploit",
            "dark_hex(num_rows=2,num_cols=3,gameversion=adh)",
            "adh.bin",
            "--json",
        ],
    ));
    assert!(x["exploitability"].as_f64().unwrap() < 1e-6);
}

#[test]
fn the_normal_form_prints_its_matrix() {
    let dir = tempfile::tempdir().unwrap();
    let out = ok(&darkhex(
        dir.path(),
        &[
            "solve",
            "dark_hex(num_rows=2,num_cols=2,gameversion=adh)",
            "--method",
            "nf-lp",
            "--matrix",
        ],
    ));
    assert!(out.contains("player 0's reduced pure strategies"), "{out}");
    assert!(out.contains("r0    [start] a1"), "{out}");
    assert!(out.contains("payoff to player 0"), "{out}");
    assert!(out.contains("value for p0     0.5"), "{out}");
    let o = darkhex(
        dir.path(),
        &[
            "solve",
            "leduc_poker",
            "--method",
            "nf-lp",
            "--max-strategies",
            "100",
        ],
    );
    let err = stderr(&o);
    assert!(
        !o.status.success() && err.contains("more than 100") && err.contains("--method lp"),
        "{err}"
    );
}
