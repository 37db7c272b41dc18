//! Running the `darkhex` binary the way a user does, for the CLI tests.

// Each test binary compiles this module and uses only part of it.
#![allow(dead_code)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Runs `darkhex args` in `dir`, where it reads and writes its files.
pub fn darkhex(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_darkhex"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the darkhex binary runs")
}

/// Runs `darkhex args` where the tests run, with `input` on its standard
/// input (a GTP session, answers to `play`).
pub fn darkhex_with_input(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_darkhex"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the darkhex binary runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs `darkhex args` in `dir` and checks that it fails saying `says`.
pub fn assert_refused(dir: &Path, args: &[&str], says: &str) {
    let o = darkhex(dir, args);
    assert!(!o.status.success(), "{args:?}");
    let err = stderr(&o);
    assert!(err.contains(says), "{args:?}: {err}");
}

/// The standard output of a run that must have succeeded.
pub fn ok(o: &Output) -> String {
    assert!(o.status.success(), "{}", stderr(o));
    stdout(o)
}

/// The `--json` object of a run that must have succeeded.
pub fn json(o: &Output) -> serde_json::Value {
    serde_json::from_str(&ok(o)).unwrap()
}
pub mod commands;
pub mod training;
