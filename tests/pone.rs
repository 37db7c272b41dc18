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
