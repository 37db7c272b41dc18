//! League definitions (TOML) and results logs.

use std::sync::atomic::AtomicBool;

use darkhex::league::{ResultsLog, Tournament, run_league};
use proptest::prelude::*;

use super::{Bytes, documents, each_seed, guarded, mutated, one_line, run, seed_files, text};

fn check_toml(input: &str) -> Result<(), String> {
    match Tournament::from_toml(input) {
        Ok(t) => {
            let schedule = t.numbered_schedule(&[]);
            if schedule.len() != t.schedule().len() {
                return Err("the numbered schedule lost games".into());
            }
            Ok(())
        }
        Err(e) => toml_error(&e),
    }
}

/// A TOML syntax error keeps the parser's picture of the line, with a
/// caret under the column (a choice of the CLI): a few lines, the first
/// naming the place. Every other error is one line.
fn toml_error(e: &dyn std::fmt::Display) -> Result<(), String> {
    let s = e.to_string();
    if s.contains("TOML parse error at line") {
        let lines = s.lines().count();
        return if lines <= 8 {
            Ok(())
        } else {
            Err(format!("a TOML error of {lines} lines: {s}"))
        };
    }
    one_line(e)
}

#[test]
fn league_definitions() {
    each_seed(
        "league-toml",
        seed_files("league-toml").iter().map(|b| text(b)),
        |s| check_toml(s),
    );
    let strategy = mutated(seed_files("league-toml")).prop_map(|b| text(&b));
    run("league definitions", 2000, strategy, |input| {
        guarded("league-toml", input, |s| check_toml(s))
    });
}

/// The league the log seeds were written by.
const LEAGUE: &str = "game = \"kuhn_poker\"\ngames_per_pair = 4\nseed = 7\n\
                      [[players]]\nspec = \"random\"\n[[players]]\nname = \"nash\"\nspec = \"lp\"\n";

fn check_log(Bytes(bytes): &Bytes) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("results.jsonl");
    std::fs::write(&path, bytes).unwrap();
    // What `league show` reads.
    if let Err(e) = ResultsLog::read(&path) {
        one_line(&e)?;
    }
    // What a rerun of the league does with it: resume, or refuse it.
    let t = Tournament::from_toml(LEAGUE).map_err(|e| e.to_string())?;
    match run_league(&t, dir.path(), &|_| {}, &AtomicBool::new(false)) {
        Ok(run) => {
            let ids: Vec<u64> = run.results.iter().map(|r| r.id).collect();
            let all = t.schedule().len() as u64;
            if ids != (1..=all).collect::<Vec<_>>() {
                return Err(format!("ids {ids:?} after a full run of {all} games"));
            }
            Ok(())
        }
        Err(e) => one_line(&e),
    }
}

#[test]
fn league_logs() {
    each_seed(
        "league-logs",
        seed_files("league-logs").into_iter().map(Bytes),
        check_log,
    );
    run(
        "league logs",
        300,
        documents("league-logs").prop_map(Bytes),
        |input| guarded("league-logs", input, check_log),
    );
}
