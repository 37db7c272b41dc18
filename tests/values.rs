//! `darkhex values`: building the database round by round (resumed or
//! not, the same file), looking values up, and one-line errors for a
//! damaged file or a bad value.

mod common;

use std::path::Path;
use std::process::Output;

use common::{darkhex, ok, stderr};

/// `darkhex values build --max-atoms 6` with these arguments more.
fn build(d: &Path, more: &[&str]) -> Output {
    darkhex(
        d,
        &[&["values", "build", "--max-atoms", "6"], more].concat(),
    )
}

#[test]
fn a_resumed_build_writes_what_a_whole_one_does_and_queries_find_values() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = ok(&build(d, &["--rounds", "1", "--out", "a.txt"]));
    assert!(out.contains("round 0: 8 seeds, 18 values"), "{out}");
    ok(&build(d, &["--rounds", "2", "--out", "a.txt", "--resume"]));
    ok(&build(d, &["--rounds", "2", "--out", "b.txt"]));
    let a = std::fs::read_to_string(d.join("a.txt")).unwrap();
    let b = std::fs::read_to_string(d.join("b.txt")).unwrap();
    assert_eq!(a, b);
    let q = ok(&darkhex(
        d,
        &[
            "values",
            "query",
            "a.txt",
            "{a, b | a}",
            "{bot | top}",
            "{{T | T} | F}",
        ],
    ));
    let lines: Vec<&str> = q.lines().collect();
    assert!(
        lines[0].starts_with("{a, b | a}: value ") && lines[0].contains("round 2"),
        "{q}"
    );
    assert!(lines[1].contains("pinwheel("), "{q}");
    assert_eq!(lines[2], "{bot | top}: not in the database");
    // {⊤ | ⊤} is ⊤: the query reduces to canonical form.
    assert!(lines[3].starts_with("{⊤ | ⊥}: value "), "{q}");
}

#[test]
fn a_damaged_database_or_a_bad_value_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&build(d, &["--rounds", "1", "--out", "a.txt"]));
    let text = std::fs::read_to_string(d.join("a.txt")).unwrap();
    std::fs::write(d.join("bad.txt"), text.replacen("{a | ⊥}", "{b | ⊥}", 1)).unwrap();
    std::fs::write(d.join("short.txt"), &text[..40]).unwrap();
    for (args, says) in [
        (vec!["values", "query", "bad.txt", "a"], "checksum"),
        (
            vec!["values", "query", "short.txt", "a"],
            "no checksum line",
        ),
        (vec!["values", "query", "missing.txt", "a"], "missing.txt"),
        (vec!["values", "query", "a.txt", "{a |"], "is no value"),
        (vec!["values", "query", "a.txt", "q"], "accepted"),
        (
            vec![
                "values",
                "build",
                "--out",
                "a.txt",
                "--resume",
                "--max-atoms",
                "7",
            ],
            "--max-atoms 6",
        ),
    ] {
        let o = darkhex(d, &args);
        assert!(!o.status.success(), "{args:?}");
        let err = stderr(&o);
        assert!(
            err.contains(says) && err.trim().lines().count() == 1,
            "{args:?}: {err}"
        );
    }
    let o = darkhex(d, &["values", "build", "--max-atoms", "0"]);
    assert!(!o.status.success() && stderr(&o).contains("accepted: 1 to 1000"));
}
