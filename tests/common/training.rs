//! What the tests of the network trainers share: a small run on Kuhn
//! poker, the bytes of files to compare, and checkpoints with their wall
//! times zeroed.

use std::path::Path;

use darkhex_algorithms::files::{self, Document};
use darkhex_algorithms::rl::checkpoint::{NfspCheckpoint, RlCheckpoint};
use darkhex_algorithms::rl::exact::CurvePoint;

use super::{darkhex, json};

/// The `--json` report of `darkhex train kuhn_poker --algo algo`, with
/// the test's `small` settings and then `extra`, run in `dir`.
pub fn train_kuhn(dir: &Path, algo: &str, small: &[&str], extra: &[&str]) -> serde_json::Value {
    let args = [
        &["train", "kuhn_poker", "--algo", algo][..],
        small,
        extra,
        &["--json"][..],
    ]
    .concat();
    json(&darkhex(dir, &args))
}

/// Whether files `a` and `b` in `dir` hold the same bytes.
pub fn same_bytes(dir: &Path, a: &str, b: &str) -> bool {
    std::fs::read(dir.join(a)).unwrap() == std::fs::read(dir.join(b)).unwrap()
}

/// A checkpoint that records the run's wall times.
pub trait Timed: Document {
    fn times(&mut self) -> (&mut f64, &mut Vec<CurvePoint>);
}

impl Timed for RlCheckpoint {
    fn times(&mut self) -> (&mut f64, &mut Vec<CurvePoint>) {
        (&mut self.seconds, &mut self.curve)
    }
}

impl Timed for NfspCheckpoint {
    fn times(&mut self) -> (&mut f64, &mut Vec<CurvePoint>) {
        (&mut self.seconds, &mut self.curve)
    }
}

/// The checkpoint at `path` with the wall times it records (the only
/// bytes two runs of one seed may differ in) zeroed, re-encoded.
pub fn without_times<C: Timed>(path: &Path) -> Vec<u8> {
    let mut c: C = files::load(path).unwrap();
    let (seconds, curve) = c.times();
    *seconds = 0.0;
    for p in curve {
        p.seconds = 0.0;
        p.eval_seconds = 0.0;
    }
    rmp_serde::to_vec_named(&c).unwrap()
}
