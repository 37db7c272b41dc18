//! `darkhex region`, `template` and `values build` against their memory
//! limit: a region whose expansion is estimated past it is refused before
//! anything is built, in one line that gives the estimate.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{darkhex, ok, stderr};

/// A parallelogram of `rows` x `cols` empty cells between terminal 1
/// above and terminal 2 below.
fn parallelogram(rows: usize, cols: usize) -> String {
    let mut text = format!("{}\n", vec!["1"; cols].join(" "));
    for r in 0..rows {
        text += &format!("{}{}\n", " ".repeat(r + 1), vec!["."; cols].join(" "));
    }
    text + &format!("{}{}\n", " ".repeat(rows + 1), vec!["2"; cols].join(" "))
}

/// Runs `args` in `dir` and requires a refusal in one line holding each of
/// `needles`, within `seconds`: long before the expansion could have run.
fn refused_at_once(dir: &Path, args: &[&str], needles: &[&str], seconds: f64) {
    let start = Instant::now();
    let o = darkhex(dir, args);
    let took = start.elapsed();
    let err = stderr(&o);
    assert!(!o.status.success(), "{args:?} ran: {err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{args:?}: {err}");
    assert!(lines[0].starts_with("error: "), "{args:?}: {err}");
    for n in needles {
        assert!(lines[0].contains(n), "{args:?}: '{n}' missing from: {err}");
    }
    assert!(
        took < Duration::from_secs_f64(seconds),
        "{args:?}: refused after {took:?}"
    );
}

#[test]
fn regions_too_large_for_the_memory_limit_are_refused_before_expanding() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // 64 empty cells: far past any machine, whatever its memory.
    std::fs::write(d.join("huge.region"), parallelogram(8, 8)).unwrap();
    refused_at_once(
        d,
        &["region", "huge.region"],
        &[
            "the value of huge.region (64 empty cells) would need about",
            "e28 positions, estimated by random walks",
            "allowed here (60% of the memory available; --max-memory-gb, or darkhex.set_memory_limit in Python, sets another limit)",
        ],
        10.0,
    );
    // 16 cells, which expand in seconds; the estimate alone is refused.
    std::fs::write(d.join("sixteen.region"), parallelogram(4, 4)).unwrap();
    refused_at_once(
        d,
        &["region", "sixteen.region", "--max-memory-gb", "0.05"],
        &[
            "the value of sixteen.region (16 empty cells) would need about",
            "e6 positions, estimated by random walks), more than the 50.0 MB that --max-memory-gb allows",
        ],
        3.0,
    );
    // Fifteen cells between three terminals, as a template and as a seed
    // region of the value database.
    std::fs::write(
        d.join("fifteen.region"),
        "W 1 1 1 1 1 W\n 2 . . . . . 3\n  2 . . . . . 3\n   2 . . . . . 3\n    W W W W W W\n",
    )
    .unwrap();
    refused_at_once(
        d,
        &["template", "fifteen.region", "--max-memory-gb", "0.05"],
        &[
            "the analysis of fifteen.region (15 empty cells) would need about",
            "e7 positions, estimated by random walks), more than the 50.0 MB that --max-memory-gb allows",
        ],
        3.0,
    );
    refused_at_once(
        d,
        &[
            "values",
            "build",
            "--rounds",
            "0",
            "--seed-region",
            "fifteen.region",
            "--max-memory-gb",
            "0.01",
        ],
        &["the values of the seed regions would need about"],
        3.0,
    );
    assert!(!d.join("values.txt").exists(), "a refused build wrote");
}

#[test]
fn small_regions_expand_under_a_small_limit() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("six.region"), parallelogram(2, 3)).unwrap();
    let out = ok(&darkhex(
        d,
        &["region", "six.region", "--max-memory-gb", "0.01"],
    ));
    // A 2x3 parallelogram between the terminals: Black joins them
    // whoever starts (the two-bridge chain).
    assert!(out.contains("value:     ⊤\n"), "{out}");
    assert!(out.contains("positions: 349 expanded"), "{out}");
    let out = ok(&darkhex(
        d,
        &["template", "six.region", "--max-memory-gb", "0.01"],
    ));
    assert!(out.contains("template:  yes"), "{out}");
}
