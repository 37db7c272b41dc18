//! GTP lines, and the SGF files `loadsgf` reads, through the engine itself:
//! every command gets one well-framed answer, none of them an internal
//! error, and the engine ends when told to.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use proptest::prelude::*;

use super::{HANG, each_seed, guarded, mutated, run, seed_files, seed_lines, text};

const COMMANDS: &[&str] = &[
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "boardsize",
    "clear_board",
    "showboard",
    "play",
    "genmove",
    "reg_genmove",
    "undo",
    "all_legal_moves",
    "final_score",
    "loadsgf",
    "dfpn-solve-state",
    "dfpn-solver-find-winning",
    "dfpn-clear-tt",
    "vc-build",
    "vc-get-mustplay",
    "compute-inferior",
    "eval-resist",
    "vc-between-cells-full",
    "vc-between-cells-semi",
    "param_dfpn",
    "param_player",
    "hexgui-analyze_commands",
    "nonsense",
];

const ARGUMENTS: &[&str] = &[
    "b",
    "w",
    "black",
    "white",
    "x",
    "a1",
    "b2",
    "c3",
    "e5",
    "i9",
    "z26",
    "a0",
    "swap-pieces",
    "pass",
    "north",
    "south",
    "east",
    "west",
    "1",
    "2",
    "5",
    "9",
    "0",
    "-3",
    "4294967296",
    "timelimit",
    "threads",
    "tt_mb",
    "tt_size",
    "move_time",
    "eval",
    "resistance",
    "network(eval=e)",
    "network(eval=ek,k=1,x=0.01)",
    "f0.sgf",
    "f1.sgf",
    "f2.sgf",
    "missing.sgf",
    "0.1",
];

/// One command from the grammar, with an id now and then.
fn grammar_line() -> impl Strategy<Value = String> {
    (
        prop::option::weighted(0.2, 0..100u32),
        prop::sample::select(COMMANDS),
        prop::collection::vec(prop::sample::select(ARGUMENTS), 0..4),
    )
        .prop_map(|(id, name, args)| {
            let id = id.map(|i| format!("{i} ")).unwrap_or_default();
            format!("{id}{name} {}", args.join(" "))
        })
}

/// The words of a line as the engine reads them: up to a `#` comment.
fn words(line: &str) -> Vec<&str> {
    line.split('#')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect()
}

/// Whether a line keeps the engine within the harness's time: no time
/// limit above half a second (or none at all), no table over 64 MB, no
/// board over 9x9.
fn bounded(line: &str) -> bool {
    let words = words(line);
    let number = |w: &str| w.parse::<f64>().ok();
    let after = |key: &str| {
        words
            .iter()
            .position(|w| *w == key)
            .and_then(|i| words.get(i + 1))
            .and_then(|w| number(w))
    };
    if words
        .iter()
        .any(|w| w.contains("timelimit") || w.contains("move_time"))
    {
        return matches!(after("timelimit").or(after("move_time")), Some(t) if t > 0.0 && t <= 0.5);
    }
    if words
        .iter()
        .any(|w| w.contains("tt_mb") || w.contains("tt_size") || w.contains("threads"))
    {
        return matches!(after("tt_mb").or(after("tt_size")).or(after("threads")), Some(v) if v <= 64.0);
    }
    if words.iter().any(|w| w.contains("boardsize")) {
        return words.iter().all(|w| number(w).is_none_or(|n| n <= 9.0));
    }
    // Move numbers of loadsgf and ids are fine; nothing else takes a size.
    true
}

/// A GTP session: lines to send and the SGF files beside them.
#[derive(Clone, Debug)]
struct Session {
    lines: Vec<String>,
    sgf: Vec<Vec<u8>>,
}

fn session() -> impl Strategy<Value = Session> {
    let script = mutated(seed_lines("gtp")).prop_map(|b| text(&b));
    let line = prop_oneof![3 => grammar_line(), 2 => script];
    (
        prop::collection::vec(line, 1..25),
        prop::collection::vec(mutated(seed_files("sgf")), 3),
    )
        .prop_map(|(lines, sgf)| Session {
            lines: lines
                .into_iter()
                .flat_map(|l| l.lines().map(String::from).collect::<Vec<_>>())
                .filter(|l| bounded(l))
                .collect(),
            sgf,
        })
}

/// How many answers `lines` ask for: one per line with a command in it,
/// up to and including a `quit` or `exit`.
fn answers_expected(lines: &[String]) -> (usize, bool) {
    let mut n = 0;
    for line in lines {
        let words = words(line);
        if words.is_empty() {
            continue;
        }
        n += 1;
        let name = if words[0].chars().all(|c| c.is_ascii_digit()) {
            words.get(1)
        } else {
            words.first()
        };
        if matches!(name, Some(&"quit") | Some(&"exit")) {
            return (n, true);
        }
    }
    (n, false)
}

fn check_session(s: &Session) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    for (i, bytes) in s.sgf.iter().enumerate() {
        std::fs::write(dir.path().join(format!("f{i}.sgf")), bytes).unwrap();
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_darkhex"))
        .args([
            "gtp",
            "--game",
            "hex(board_size=5)",
            "--threads",
            "1",
            "--tt-mb",
            "16",
            "--time-limit",
            "0.2",
            "--move-time",
            "0.1",
        ])
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let mut input = s.lines.join("\n");
    input.push_str("\nquit\n");
    // The answers are read while the engine runs: a session of many lines
    // answers more than a pipe holds, and an engine blocked on a full pipe
    // would look hung.
    let readers = [
        drain(child.stdout.take().unwrap()),
        drain(child.stderr.take().unwrap()),
    ];
    let mut stdin = child.stdin.take().unwrap();
    // The engine may stop reading at a quit among the lines.
    let _ = stdin.write_all(input.as_bytes());
    drop(stdin);
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break status;
        }
        if start.elapsed() > HANG - Duration::from_secs(2) {
            let _ = child.kill();
            let _ = child.wait();
            return Err("the engine did not end".into());
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let [stdout, stderr] = readers.map(|r| r.join().unwrap_or_default());
    let stdout = String::from_utf8(stdout).map_err(|_| "stdout is not UTF-8".to_string())?;
    let stderr = String::from_utf8_lossy(&stderr);
    if !status.success() || stderr.contains("panicked") {
        return Err(format!("the engine failed: {stderr}"));
    }
    if !stdout.ends_with("\n\n") {
        return Err(format!(
            "an answer is not ended by a blank line: {stdout:?}"
        ));
    }
    let answers: Vec<&str> = stdout[..stdout.len() - 2].split("\n\n").collect();
    let mut lines = s.lines.clone();
    lines.push("quit".into());
    let (expected, _) = answers_expected(&lines);
    if answers.len() != expected {
        return Err(format!(
            "{} answers to {expected} commands: {answers:?}",
            answers.len()
        ));
    }
    for a in &answers {
        if !(a.starts_with('=') || a.starts_with('?')) {
            return Err(format!("an answer starts with neither = nor ?: {a:?}"));
        }
        if a.contains("internal error") {
            return Err(format!("{a} (stderr: {stderr})"));
        }
    }
    Ok(())
}

/// Reads a pipe to its end on a thread of its own.
fn drain(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        bytes
    })
}

#[test]
fn gtp_sessions() {
    // Each script as it is, with the SGF files in turn as f0 to f2.
    let lines: Vec<String> = seed_lines("gtp").iter().map(|b| text(b)).collect();
    let sgf = seed_files("sgf");
    let sessions = (0..sgf.len()).map(|i| Session {
        lines: lines.clone(),
        sgf: (0..3).map(|k| sgf[(i + k) % sgf.len()].clone()).collect(),
    });
    each_seed("gtp", sessions, check_session);
    // Answers longer than a pipe holds (a harness that read them only at
    // the end once took this for a hang).
    let long = Session {
        lines: vec!["l-re".to_string(); 3000],
        sgf: sgf[..3].to_vec(),
    };
    each_seed("gtp", [long], check_session);
    run("GTP sessions", 120, session(), |input| {
        guarded("gtp", input, check_session)
    });
}
