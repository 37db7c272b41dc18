//! Ctrl-C, SIGTERM and the exit status: an interrupted command keeps what
//! it finished, says what it was doing and exits with 130; an error exits
//! with 1, success with 0.
#![cfg(unix)]

mod common;

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{darkhex, json, ok, stderr};

const INTERRUPTED: i32 = 130;

fn spawn(dir: &Path, args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_darkhex"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the darkhex binary runs")
}

/// Sends `signal` (INT, TERM) to the running `child`.
fn signal(child: &Child, signal: &str) {
    let status = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// Waits until `path` exists (at most `limit`), while `child` runs.
fn wait_for(path: &Path, child: &mut Child, limit: Duration) {
    let start = Instant::now();
    while !path.exists() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before writing {}",
            path.display()
        );
        assert!(start.elapsed() < limit, "{} never appeared", path.display());
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The first line of a darkhex binary file: its header, naming its kind.
fn header(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap();
    let end = bytes.iter().position(|&b| b == b'\n').unwrap();
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

/// Waits for `child`, its input kept open until it ends (closed input
/// would end the GTP engine on its own).
fn finish(mut child: Child) -> Output {
    let _input = child.stdin.take();
    child.wait_with_output().unwrap()
}

fn interrupted(o: &Output) -> String {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(INTERRUPTED), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

/// A Monte Carlo run too large to compile writes its policy and checkpoint
/// before the final exact evaluation (a pass over 2.4e8 histories); a
/// SIGTERM during that pass stops it at once, keeps both files and says
/// how to get the evaluation; the resumed run then only evaluates.
#[test]
fn sigterm_during_the_final_evaluation_keeps_the_policy_and_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let game = "dark_hex(num_rows=4,num_cols=2)";
    let args = [
        "train",
        game,
        "--algo",
        "os-mccfr",
        "--iterations",
        "2000",
        "--checkpoint",
        "c.ckpt",
        "--out",
        "p.bin",
    ];
    let mut child = spawn(d, &args);
    // The policy is written when the evaluation starts.
    wait_for(&d.join("p.bin"), &mut child, Duration::from_secs(300));
    let sent = Instant::now();
    signal(&child, "TERM");
    let o = finish(child);
    let stopped_in = sent.elapsed();
    let err = interrupted(&o);
    assert!(
        err.contains("interrupted during the final evaluation, at iteration 2000")
            && err.contains("p.bin")
            && err.contains("--resume"),
        "{err}"
    );
    // The pass over the histories takes seconds; stopping it, moments.
    assert!(stopped_in < Duration::from_secs(5), "{stopped_in:?}");
    assert!(header(&d.join("p.bin")).contains("\"format\":\"darkhex-policy\""));
    assert!(header(&d.join("c.ckpt")).contains("\"format\":\"darkhex-checkpoint\""));
    let resumed = json(&darkhex(d, &[&args[..], &["--resume", "--json"]].concat()));
    assert_eq!(resumed["iterations"], 2000);
    let e = resumed["exploitability"].as_f64().unwrap();
    assert!(e > 0.0 && e < 1.0, "{resumed}");
}

/// Ctrl-C in the middle of training saves the checkpoint and the policy;
/// the run resumed from it writes the uninterrupted run's policy, bit for
/// bit.
#[test]
fn a_run_stopped_by_ctrl_c_resumes_to_the_uninterrupted_policy() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let args = [
        "train",
        "leduc_poker",
        "--algo",
        "cfr+",
        "--iterations",
        "20000",
        "--eval-every",
        "500",
    ];
    let mut child = spawn(
        d,
        &[
            &args[..],
            &["--checkpoint", "run.ckpt", "--out", "resumed.json"],
        ]
        .concat(),
    );
    wait_for(&d.join("run.ckpt"), &mut child, Duration::from_secs(120));
    signal(&child, "INT");
    let err = interrupted(&finish(child));
    assert!(
        err.contains("interrupted at iteration") && err.contains("resumed.json"),
        "{err}"
    );
    let at: u64 = err
        .split("interrupted at iteration ")
        .nth(1)
        .and_then(|s| s.split(':').next())
        .and_then(|s| s.parse().ok())
        .unwrap();
    assert!(at < 20000, "{err}");
    let resumed = json(&darkhex(
        d,
        &[
            &args[..],
            &[
                "--checkpoint",
                "run.ckpt",
                "--resume",
                "--out",
                "resumed.json",
                "--json",
            ],
        ]
        .concat(),
    ));
    let straight = json(&darkhex(
        d,
        &[&args[..], &["--out", "straight.json", "--json"]].concat(),
    ));
    assert_eq!(resumed["iterations"], 20000);
    assert_eq!(resumed["exploitability"], straight["exploitability"]);
    let a = std::fs::read(d.join("straight.json")).unwrap();
    let b = std::fs::read(d.join("resumed.json")).unwrap();
    assert!(
        a == b,
        "the resumed policy differs from the uninterrupted one"
    );
}

/// `exploit --player` shows its progress, and an interruption says how far
/// it got and that nothing was written.
#[test]
fn an_interrupted_exploit_says_what_it_had_done() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut child = spawn(
        d,
        &[
            "exploit",
            "dark_hex(num_rows=2,num_cols=3)",
            "--player",
            "ismcts(sims=1000)",
            "--samples",
            "500",
            "--policy-out",
            "induced.json",
        ],
    );
    std::thread::sleep(Duration::from_millis(2500));
    assert!(child.try_wait().unwrap().is_none(), "finished too early");
    signal(&child, "INT");
    let err = interrupted(&finish(child));
    assert!(
        err.contains("interrupted while asking ismcts(sims=1000) as player 0")
            && err.contains("information states answered")
            && err.contains("nothing was written"),
        "{err}"
    );
    assert!(!d.join("induced.json").exists());
}

/// Commands with nothing to save end at once on SIGTERM or SIGINT, with
/// the status of an interruption; those that search say what they proved.
#[test]
fn every_command_ends_on_sigterm_with_the_interrupted_status() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // The GTP engine waiting for a command.
    let child = spawn(d, &["gtp"]);
    std::thread::sleep(Duration::from_millis(500));
    signal(&child, "TERM");
    interrupted(&finish(child));
    // Building 3x3 Dark Hex's tables, which takes seconds to minutes.
    let child = spawn(d, &["info", "dark_hex(num_rows=3,num_cols=3)"]);
    std::thread::sleep(Duration::from_millis(1000));
    signal(&child, "TERM");
    let err = interrupted(&finish(child));
    assert!(
        err.contains("interrupted while building the information-state tables"),
        "{err}"
    );
    // A Hex search that takes minutes stops and prints what it knows.
    let child = spawn(d, &["solve", "hex(board_size=8)", "--threads", "1"]);
    std::thread::sleep(Duration::from_millis(1500));
    signal(&child, "TERM");
    let o = finish(child);
    let err = interrupted(&o);
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("not proved (stopped)"),
        "{err}"
    );
    // A league keeps the games it finished.
    let child = spawn(
        d,
        &[
            "league",
            "--game",
            "hex(board_size=7)",
            "--players",
            "mcts(sims=3000),mcts(sims=3001)",
            "--games",
            "50",
            "--out",
            "L",
        ],
    );
    std::thread::sleep(Duration::from_millis(2000));
    signal(&child, "INT");
    let err = interrupted(&finish(child));
    assert!(err.contains("rerun the same command"), "{err}");
    assert!(d.join("L/results.jsonl").exists());
    // The browser interface's server, with a page's long job under way
    // (solving the empty 9x9 Hex board), stops it and ends.
    let mut child = spawn(d, &["serve", "--port", "0"]);
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stderr.as_mut().unwrap()),
        &mut line,
    )
    .unwrap();
    let port: u16 = line
        .split("127.0.0.1:")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    let mut page = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    std::io::Write::write_all(
        &mut page,
        b"GET /api/hex/verdict?game=hex(board_size=9) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(1000));
    let sent = Instant::now();
    signal(&child, "TERM");
    let err = interrupted(&finish(child));
    assert!(err.contains("the server stopped"), "{err}");
    assert!(
        sent.elapsed() < Duration::from_secs(10),
        "{:?}",
        sent.elapsed()
    );
    let mut events = String::new();
    let _ = std::io::Read::read_to_string(&mut page, &mut events);
    assert!(events.contains("cancelled"), "{events}");
}

#[test]
fn exit_status_is_0_on_success_1_on_any_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert_eq!(darkhex(d, &["info", "kuhn_poker"]).status.code(), Some(0));
    assert_eq!(darkhex(d, &["--help"]).status.code(), Some(0));
    for args in [
        &["info", "chess"][..],
        &["nonsense"],
        &["train", "kuhn_poker", "--iterations", "x"],
        &["exploit", "kuhn_poker", "missing.json"],
        &["train"],
    ] {
        let o = darkhex(d, args);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
    }
    ok(&darkhex(
        d,
        &["play", "hex(board_size=2)", "--moves", "a1,b1,a2"],
    ));
}

/// Ctrl-C during Deep CFR training stops after the iteration under way and
/// saves the checkpoint; the run resumed from it writes the model an
/// uninterrupted run writes, byte for byte.
#[test]
fn deep_cfr_stopped_by_ctrl_c_saves_its_checkpoint_and_resumes_to_the_same_model() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let args = [
        "train",
        "kuhn_poker",
        "--algo",
        "deep-cfr",
        "--traversals",
        "20",
        "--hidden",
        "16,16",
        "--fit-steps",
        "16",
        "--seed",
        "4",
    ];
    let mut child = spawn(
        d,
        &[
            &args[..],
            &["--checkpoint", "deep.ckpt", "--out", "resumed.model"],
        ]
        .concat(),
    );
    // A few iterations in (each takes a fraction of a second).
    std::thread::sleep(Duration::from_secs(3));
    assert!(child.try_wait().unwrap().is_none(), "the run ended early");
    assert!(!d.join("deep.ckpt").exists());
    signal(&child, "INT");
    let err = interrupted(&finish(child));
    assert!(
        err.contains("interrupted at iteration")
            && err.contains("deep.ckpt holds iteration")
            && err.contains("--resume"),
        "{err}"
    );
    let at: u64 = err
        .split("interrupted at iteration ")
        .nth(1)
        .and_then(|s| s.split(':').next())
        .and_then(|s| s.parse().ok())
        .unwrap();
    // Stopped short of the default 1,000 iterations (how far it got in the
    // 3 seconds depends on the machine's load).
    assert!(at < 1000, "{err}");
    assert!(header(&d.join("deep.ckpt")).contains("\"format\":\"darkhex-checkpoint\""));
    assert!(!d.join("resumed.model").exists());
    // Resumed to a few iterations past the stop, and the same run straight.
    let target = (at + 3).to_string();
    let resumed = json(&darkhex(
        d,
        &[
            &args[..],
            &[
                "--iterations",
                &target,
                "--checkpoint",
                "deep.ckpt",
                "--resume",
                "--out",
                "resumed.model",
                "--json",
            ],
        ]
        .concat(),
    ));
    let straight = json(&darkhex(
        d,
        &[
            &args[..],
            &["--iterations", &target, "--out", "straight.model", "--json"],
        ]
        .concat(),
    ));
    assert_eq!(resumed["iterations"], at + 3);
    assert_eq!(resumed["exploitability"], straight["exploitability"]);
    let a = std::fs::read(d.join("straight.model")).unwrap();
    let b = std::fs::read(d.join("resumed.model")).unwrap();
    assert!(
        a == b,
        "the resumed model differs from the uninterrupted one"
    );
}

/// GNU `timeout` (without `--foreground`) signals its child and then the
/// whole process group, and Slurm signals a job step the same way: the
/// two arrive within moments and are one request. A multi-threaded
/// training run so signalled stops after the iteration under way and
/// saves its checkpoint, instead of taking the second copy for a second
/// Ctrl-C and stopping at once with nothing kept.
#[test]
fn one_signal_to_the_process_group_is_one_request() {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (algo, extra) in [
        ("deep-cfr", &["--traversals", "40", "--hidden", "16,16"][..]),
        ("cfr+", &["--eval-every", "100000"][..]),
    ] {
        let ckpt = format!("{algo}.ckpt");
        let mut child = Command::new(env!("CARGO_BIN_EXE_darkhex"))
            .args(["train", "leduc_poker", "--algo", algo, "--threads", "2"])
            .args(["--iterations", "1000000", "--checkpoint", &ckpt])
            .args(["--out", &format!("{algo}.out")])
            .args(extra)
            .current_dir(d)
            .process_group(0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_secs(2));
        assert!(child.try_wait().unwrap().is_none(), "{algo} ended early");
        let pid = child.id().to_string();
        for target in [pid.clone(), format!("-{pid}")] {
            let sent = Command::new("kill")
                .args(["-INT", "--", &target])
                .status()
                .unwrap();
            assert!(sent.success());
        }
        let err = interrupted(&finish(child));
        assert!(!err.contains("stopping at once"), "{algo}: {err}");
        assert!(err.contains("interrupted at iteration"), "{algo}: {err}");
        assert!(
            header(&d.join(&ckpt)).contains("\"format\":\"darkhex-checkpoint\""),
            "{algo}: {err}"
        );
    }
}

/// The double oracle stopped by a signal keeps its sets in its checkpoint
/// and writes its best certificates so far, as policy files.
#[test]
fn an_interrupted_double_oracle_writes_its_best_certificates() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let game = "dark_hex(num_rows=3,num_cols=2,gameversion=adh)";
    let mut child = spawn(
        d,
        &[
            "bounds",
            game,
            "--double-oracle",
            "--threads",
            "1",
            "--checkpoint",
            "c.progress",
            "--out-black",
            "b.json",
            "--out-white",
            "w.json",
        ],
    );
    // The checkpoint is written after the first of about a hundred
    // iterations.
    wait_for(&d.join("c.progress"), &mut child, Duration::from_secs(60));
    signal(&child, "TERM");
    let err = interrupted(&finish(child));
    assert!(
        err.contains(
            "the same command resumes; the best certificates so far are in b.json and w.json"
        ),
        "{err}"
    );
    for (file, seat) in [("b.json", 0), ("w.json", 1)] {
        let policy: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(d.join(file)).unwrap()).unwrap();
        assert_eq!(policy["format"], "darkhex-policy", "{file}");
        assert_eq!(policy["algorithm"], "double-oracle", "{file}");
        let infosets = policy["infosets"][seat].as_array().map_or(0, Vec::len);
        assert!(infosets > 0, "{file}: {policy}");
    }
}
