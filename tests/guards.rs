//! What a user can destroy or mistype: outputs that would replace a
//! checkpoint, each other, an input or another kind of darkhex file are
//! refused before any work, and every numeric option outside its range is
//! refused with the range, in the user's words.

mod common;

use std::path::{Path, PathBuf};

use common::commands::{BUILDS, Build, FIFTEEN_REGION, HUGE_REGION, Kind, PATH_OPTIONS, Role};
use common::{darkhex, darkhex_with_input, json, ok, stderr, stdout};

/// Fails unless `args` fails (status 1) with an error mentioning every
/// needle and none of `absent`.
fn refused(dir: &Path, args: &[&str], needles: &[&str]) -> String {
    let o = darkhex(dir, args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: '{n}' missing from {err}");
    }
    err
}

/// `train kuhn_poker` with `extra`, 50 iterations unless they say otherwise.
fn train_kuhn(dir: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["train", "kuhn_poker"];
    if !extra.contains(&"--iterations") {
        args.extend(["--iterations", "50"]);
    }
    args.extend_from_slice(extra);
    darkhex(dir, &args)
}

#[test]
fn a_checkpoint_is_replaced_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    json(&train_kuhn(
        d,
        &["--checkpoint", "r.ckpt", "--out", "a.json", "--json"],
    ));
    let before = std::fs::read(d.join("r.ckpt")).unwrap();
    let err = refused(
        d,
        &[
            "train",
            "kuhn_poker",
            "--iterations",
            "10",
            "--checkpoint",
            "r.ckpt",
        ],
        &["r.ckpt already exists", "--resume", "--overwrite"],
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(std::fs::read(d.join("r.ckpt")).unwrap(), before);
    // --overwrite starts again; --resume continues.
    let v = json(&train_kuhn(
        d,
        &[
            "--iterations",
            "10",
            "--checkpoint",
            "r.ckpt",
            "--overwrite",
            "--out",
            "b.json",
            "--json",
        ],
    ));
    assert_eq!(v["iterations"], 10);
    let v = json(&train_kuhn(
        d,
        &[
            "--iterations",
            "30",
            "--checkpoint",
            "r.ckpt",
            "--resume",
            "--out",
            "b.json",
            "--json",
        ],
    ));
    assert_eq!(v["iterations"], 30);
    refused(
        d,
        &[
            "train",
            "kuhn_poker",
            "--checkpoint",
            "r.ckpt",
            "--resume",
            "--overwrite",
        ],
        &["--overwrite", "--resume"],
    );
}

#[test]
fn outputs_that_would_destroy_each_other_or_an_input_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    json(&train_kuhn(
        d,
        &[
            "--checkpoint",
            "run.ckpt",
            "--out",
            "p.json",
            "--eval-every",
            "5",
            "--json",
        ],
    ));
    let policy = std::fs::read(d.join("p.json")).unwrap();
    std::fs::create_dir(d.join("sub")).unwrap();
    for (args, needles) in [
        (
            &["--checkpoint", "c.ckpt", "--out", "c.ckpt"][..],
            &["--checkpoint c.ckpt and --out c.ckpt are the same file"][..],
        ),
        // The same file by another name.
        (
            &["--checkpoint", "c.ckpt", "--out", "sub/../c.ckpt"],
            &["are the same file"],
        ),
        (
            &["--plot", "k.json", "--out", "k.json"],
            &["--plot k.json", ".svg"],
        ),
        (
            &["--plot", "k.svg", "--out", "k.svg"],
            &["are the same file"],
        ),
        (
            &["--out", "run.ckpt"],
            &["--out run.ckpt would replace a darkhex training checkpoint with a policy"],
        ),
        (
            &["--checkpoint", "p.json", "--overwrite"],
            &["would replace a darkhex policy with a training checkpoint"],
        ),
    ] {
        refused(
            d,
            &[&["train", "kuhn_poker", "--iterations", "10"][..], args].concat(),
            needles,
        );
    }
    for f in ["c.ckpt", "k.json", "k.svg"] {
        assert!(!d.join(f).exists(), "{f} was written");
    }
    // `plot` with its arguments swapped, or drawing over a run it reads.
    refused(
        d,
        &["plot", "p.json", "run.ckpt"],
        &["p.json", "SVG", ".svg"],
    );
    refused(
        d,
        &["plot", "run.svg", "run.ckpt", "./run.svg"],
        &["would overwrite the run ./run.svg, which this command reads"],
    );
    std::fs::copy(d.join("run.ckpt"), d.join("x.svg")).unwrap();
    refused(
        d,
        &["plot", "x.svg", "run.ckpt"],
        &["would replace a darkhex training checkpoint"],
    );
    assert_eq!(std::fs::read(d.join("p.json")).unwrap(), policy);
    ok(&darkhex(d, &["plot", "run.svg", "run.ckpt"]));
    // The other commands that write go through the same guard.
    refused(
        d,
        &["solve", "kuhn_poker", "--out", "run.ckpt"],
        &["would replace a darkhex training checkpoint with a policy"],
    );
    refused(
        d,
        &[
            "exploit",
            "kuhn_poker",
            "--player",
            "random",
            "--policy-out",
            "run.ckpt",
        ],
        &["would replace a darkhex training checkpoint with a policy"],
    );
    refused(
        d,
        &[
            "pone",
            "dark_hex(num_rows=2,num_cols=2)",
            "--strategy-out",
            "p.json",
        ],
        &["would replace a darkhex policy with a PONE strategy"],
    );
    refused(
        d,
        &[
            "analyze",
            "hex(board_size=3)",
            "--moves",
            "b2",
            "--svg",
            "heat.png",
        ],
        &["--svg heat.png", ".svg"],
    );
    refused(
        d,
        &["solve", "hex(board_size=3)", "--learn-edges", "p.json"],
        &["would replace a darkhex policy with edge patterns"],
    );
    assert_eq!(std::fs::read(d.join("p.json")).unwrap(), policy);
    // Writing a policy over a policy is what reruns do.
    json(&train_kuhn(d, &["--out", "p.json", "--json"]));
}

/// Copies a file, or a folder and what it holds.
fn copy_all(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            copy_all(&e.path(), &to.join(e.file_name()));
        }
    } else {
        std::fs::copy(from, to).unwrap();
    }
}

/// A file's bytes, or a folder's files with their bytes, to compare.
fn contents(path: &Path) -> Vec<(String, Vec<u8>)> {
    if !path.is_dir() {
        return vec![(String::new(), std::fs::read(path).unwrap())];
    }
    let mut all: Vec<(String, Vec<u8>)> = std::fs::read_dir(path)
        .unwrap()
        .flat_map(|e| {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            contents(&e.path())
                .into_iter()
                .map(move |(inner, bytes)| (format!("{name}/{inner}"), bytes))
        })
        .collect();
    all.sort();
    all
}

/// Where the sample of each kind is, under `samples/`.
fn sample_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Policy => "policy.json",
        Kind::Model => "deep.model",
        Kind::Checkpoint => "run.ckpt",
        Kind::PoneStrategy => "pone.json",
        Kind::LeagueLog => "league/results.jsonl",
        Kind::OpeningsLog => "openings.log",
        Kind::BoundsProgress => "bounds.progress",
        Kind::SolverTable => "hex3.table",
        Kind::Svg => "chart.svg",
        Kind::EdgePatterns => "edges.txt",
        Kind::ValueDatabase => "values.txt",
        Kind::Witness => "witness.sgf",
        Kind::LeagueFolder => "league",
        Kind::WitnessFolder => "witnesses",
        Kind::Foreign => "notes.txt",
    }
}

/// A command line of the table with `{}` replaced by `path`.
fn at_path(run: &[&str], path: &str) -> Vec<String> {
    run.iter().map(|a| a.replace("{}", path)).collect()
}

/// One file or folder of every kind, under `samples/`, written by the
/// table's first writer of the kind (witnesses: the committed ones the
/// witness search wrote), and the inputs the writers of the table read.
fn samples(d: &Path) -> Vec<(Kind, PathBuf)> {
    let s = d.join("samples");
    std::fs::create_dir(&s).unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    copy_all(
        &repo.join("local/regions/bridge.region"),
        &s.join("bridge.region"),
    );
    let mut made = Vec::new();
    for (_, _, role) in PATH_OPTIONS {
        let Role::Writes(kind, run) = role else {
            continue;
        };
        if made.contains(kind) || *kind == Kind::WitnessFolder {
            continue;
        }
        let args = at_path(run, &format!("samples/{}", sample_name(*kind)));
        ok(&darkhex(
            d,
            &args.iter().map(String::as_str).collect::<Vec<_>>(),
        ));
        made.push(*kind);
    }
    // The inputs of `league merge`: the two shards of one league.
    for shard in ["1", "2"] {
        ok(&darkhex(
            d,
            &[
                "league",
                "--game",
                "kuhn_poker",
                "--players",
                "random,random",
                "--games",
                "2",
                "--shard",
                &format!("{shard}/2"),
                "--out",
                &format!("samples/shard-{shard}"),
            ],
        ));
    }
    std::fs::create_dir(s.join("witnesses")).unwrap();
    for ext in ["sgf", "txt"] {
        let name = format!("bridge-a-witness.{ext}");
        copy_all(
            &repo.join("local/witnesses").join(&name),
            &s.join("witnesses").join(&name),
        );
    }
    copy_all(
        &repo.join("local/witnesses/bridge-a-witness.sgf"),
        &s.join("witness.sgf"),
    );
    std::fs::write(s.join("notes.txt"), "my notes on the runs\n").unwrap();
    Kind::ALL
        .into_iter()
        .map(|k| (k, s.join(sample_name(k))))
        .collect()
}

/// Every command that writes, run on every option that writes, against an
/// existing file or folder of each other kind (and a file darkhex did not
/// write) at that path: each is refused in one line naming the path,
/// before any work (nothing printed), and what was there is left as it
/// was. The same command lines with nothing at the path succeed, so the
/// refusals are the guard's, and succeed again over what they wrote.
#[test]
fn every_writer_refuses_every_other_kind_of_file_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let samples = samples(d);
    let writers: Vec<(&str, &str, Kind, &[&str])> = PATH_OPTIONS
        .iter()
        .filter_map(|(command, option, role)| match role {
            Role::Writes(kind, run) => Some((*command, *option, *kind, *run)),
            Role::Reads => None,
        })
        .collect();
    for (i, (command, option, kind, run)) in writers.iter().enumerate() {
        let name = if *kind == Kind::Svg {
            "target.svg"
        } else {
            "target"
        };
        let fresh = format!("fresh-{i}/{name}");
        let line =
            |path: &str| -> Vec<String> { run.iter().map(|a| a.replace("{}", path)).collect() };
        let args = line(&fresh);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        ok(&darkhex(d, &args));
        assert!(
            d.join(&fresh).exists(),
            "{command} {option}: nothing at {fresh}"
        );
        // A rerun replaces (or resumes) its own kind.
        ok(&darkhex(d, &args));
        for (other, sample) in &samples {
            if other == kind {
                continue;
            }
            let target = format!("t-{i}-{other:?}/{name}");
            std::fs::create_dir_all(d.join(&target).parent().unwrap()).unwrap();
            copy_all(sample, &d.join(&target));
            let before = contents(&d.join(&target));
            let args = line(&target);
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let o = darkhex(d, &args);
            let err = stderr(&o);
            let what = format!("{command} {option} ({kind:?}) over {other:?}");
            assert_eq!(o.status.code(), Some(1), "{what}: {err}");
            assert_eq!(stdout(&o), "", "{what}: worked before refusing; {err}");
            assert!(
                err.starts_with("error: ") && err.lines().count() == 1 && err.contains(&target),
                "{what}: {err}"
            );
            assert_eq!(contents(&d.join(&target)), before, "{what}: {err}");
        }
    }
}

/// Every command that builds something whose size grows with its input,
/// on an input too large for any machine (or for the limit given): the
/// memory guard refuses it at once (well within a minute, where building would take days and the
/// machine's memory), naming the estimate and `--max-memory-gb`; `info`
/// reports the estimate instead of counting.
#[test]
fn every_builder_refuses_what_no_machine_holds_at_once() {
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("huge.region"), HUGE_REGION).unwrap();
    std::fs::write(d.join("fifteen.region"), FIFTEEN_REGION).unwrap();
    for (command, build) in BUILDS {
        let Build::TooLarge(runs) = build else {
            continue;
        };
        for args in runs.iter() {
            let start = Instant::now();
            let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_darkhex"))
                .args(args.iter())
                .current_dir(d)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            while child.try_wait().unwrap().is_none() {
                if start.elapsed() > Duration::from_secs(60) {
                    child.kill().unwrap();
                    panic!("{command}: {args:?} was not refused within a minute");
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let o = child.wait_with_output().unwrap();
            let (out, err) = (stdout(&o), stderr(&o));
            let said = if *command == "info" {
                assert_eq!(o.status.code(), Some(0), "{args:?}: {err}");
                out
            } else {
                assert_eq!(o.status.code(), Some(1), "{args:?}: {out}");
                err
            };
            assert!(
                said.contains("would need about") && said.contains("--max-memory-gb"),
                "{args:?}: {said}"
            );
            assert!(!said.contains("panicked"), "{said}");
        }
    }
}

#[test]
fn numbers_outside_their_range_are_refused_with_the_range() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let hex = "hex(board_size=3)";
    for (args, needles) in [
        (
            &["solve", hex, "--threads", "0"][..],
            &["--threads", "accepted: 1 or more"][..],
        ),
        (
            &["train", "kuhn_poker", "--threads", "0"],
            &["accepted: 1 or more"],
        ),
        (
            &["solve", hex, "--tt-mb", "0"],
            &["--tt-mb", "accepted: 1 to"],
        ),
        (
            &["solve", hex, "--tt-mb", "99999999"],
            &["99999999 is out of range", "machine's memory"],
        ),
        (&["gtp", "--tt-mb", "0"], &["accepted: 1 to"]),
        (&["gtp", "--threads", "0"], &["accepted: 1 or more"]),
        (
            &["gtp", "--eval", "resistance(depth=3)"],
            &[
                "takes resistance or a network(...) spec",
                "is a player for play",
            ],
        ),
        (
            &[
                "train",
                "kuhn_poker",
                "--algo",
                "os-mccfr",
                "--exploration",
                "0",
            ],
            &["0 to 1, both excluded"],
        ),
        (
            &["train", "kuhn_poker", "--eval-every", "0"],
            &["accepted: 1 or more"],
        ),
        (
            &["train", "kuhn_poker", "--eval-every", "-3"],
            &["-3 is out of range"],
        ),
        (
            &["train", "kuhn_poker", "--iterations", "0"],
            &["accepted: 1 or more"],
        ),
        (
            &["train", "kuhn_poker", "--time-limit", "0"],
            &["0 excluded"],
        ),
        (
            &["train", "kuhn_poker", "--evals-per-decade", "0"],
            &["accepted: 1 to 100"],
        ),
        (
            &["info", "kuhn_poker", "--max-histories", "0"],
            &["accepted: 1 or more"],
        ),
        (
            &[
                "exploit",
                "kuhn_poker",
                "--player",
                "random",
                "--samples",
                "0",
            ],
            &["accepted: 1 to 100000"],
        ),
        (
            &[
                "pone",
                "dark_hex(num_rows=2,num_cols=2)",
                "--verify-limit",
                "0",
            ],
            &["accepted: 1 or more"],
        ),
        (
            &["pone", "dark_hex(num_rows=2,num_cols=2)", "--player", "2"],
            &["accepted: 0 to 1"],
        ),
        (&["play", hex, "--seat", "2"], &["accepted: 0 to 1"]),
        (
            &[
                "solve",
                "kuhn_poker",
                "--method",
                "nf-lp",
                "--max-strategies",
                "0",
            ],
            &["accepted: 1 or more"],
        ),
        (&["analyze", hex, "--paths", "0"], &["accepted: 1 or more"]),
        (&["analyze", hex, "--k", "9"], &["accepted: 0 to 4"]),
        (
            &[
                "league",
                "--game",
                hex,
                "--players",
                "random,random",
                "--games",
                "0",
            ],
            &["accepted: 1 or more"],
        ),
        (
            &["train", "kuhn_poker", "--iterations", "1.5"],
            &["'1.5' is not a whole number"],
        ),
        (
            &["train", "kuhn_poker", "--seed", "-1"],
            &["-1 is out of range; accepted: 0 to 18446744073709551615"],
        ),
    ] {
        refused(d, args, needles);
    }
    // Options of one solver given to the other are not ignored.
    refused(
        d,
        &["solve", "kuhn_poker", "--threads", "2"],
        &["--threads is an option of the Hex and Rex solver"],
    );
    refused(
        d,
        &["solve", hex, "--out", "x.json"],
        &["--out is the log of --openings"],
    );
}

fn gtp(input: &str) -> String {
    let o = darkhex_with_input(&["gtp"], input);
    assert!(o.status.success());
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn gtp_refuses_values_out_of_range_in_the_users_words() {
    let out = gtp(
        "boardsize 0\nboardsize 27 3\nparam_dfpn tt_mb 0\nparam_dfpn threads 0\n\
         param_dfpn tt_size 0\nparam_dfpn timelimit -1\nparam_dfpn\n",
    );
    let answers: Vec<&str> = out.split("\n\n").collect();
    assert!(
        answers[0].starts_with("? boardsize 0 is out of range; accepted: 1 to 26"),
        "{out}"
    );
    assert!(
        answers[1].starts_with("? boardsize 27 is out of range"),
        "{out}"
    );
    assert!(
        answers[2].starts_with("? param_dfpn tt_mb 0 is out of range; accepted: 1 to"),
        "{out}"
    );
    assert!(
        answers[3].starts_with("? param_dfpn threads 0 is out of range"),
        "{out}"
    );
    assert!(
        answers[4].starts_with("? param_dfpn tt_size 0 is out of range"),
        "{out}"
    );
    assert!(
        answers[5].starts_with("? param_dfpn timelimit -1 is out of range"),
        "{out}"
    );
    // Nothing was changed by the refusals.
    assert!(
        answers[6].contains("tt_mb 1024") && !answers[6].contains("threads 0"),
        "{out}"
    );
    assert!(!out.contains("num_rows") && !out.contains("'hex'"), "{out}");
}

/// Every command `list_commands` names is documented, in the help and in
/// docs/guide/hex.md, and works.
#[test]
fn every_gtp_command_is_documented() {
    let listed = gtp("list_commands\n");
    let listed: Vec<&str> = listed
        .trim_start_matches("= ")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    assert!(listed.contains(&"reg_genmove") && listed.contains(&"exit"));
    let help = ok(&darkhex(Path::new("."), &["gtp", "--help"]));
    let page =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/guide/hex.md"))
            .unwrap();
    for c in &listed {
        assert!(help.contains(c), "{c} is not in gtp --help");
        assert!(
            page.contains(&format!("`{c}")),
            "{c} is not in docs/guide/hex.md"
        );
    }
    // reg_genmove answers genmove's move without playing it; exit ends.
    let out = gtp("boardsize 3\nreg_genmove b\nall_legal_moves\nexit\nname\n");
    let answers: Vec<&str> = out.split("\n\n").collect();
    assert_eq!(answers[1], "= b2", "{out}");
    assert_eq!(answers[2].split_whitespace().count(), 10, "{out}");
    assert_eq!(answers.len(), 5, "nothing answered after exit: {out}");
}

#[test]
fn info_says_plainly_when_a_tree_cannot_be_walked() {
    let o = darkhex(Path::new("."), &["info", "hex(board_size=5)"]);
    let out = ok(&o);
    assert!(
        out.contains("cannot be walked") && out.contains("darkhex solve"),
        "{out}"
    );
    assert!(
        !out.contains("--max-histories") && !out.contains(" h;"),
        "{out}"
    );
    // A tree that a short walk would count still gets the offer.
    let out = ok(&darkhex(
        Path::new("."),
        &["info", "hex(board_size=3)", "--max-histories", "1000"],
    ));
    assert!(
        out.contains("rerun with --max-histories") && !out.contains("cannot be walked"),
        "{out}"
    );
}

#[test]
fn tournament_file_errors_keep_their_lines() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("t.toml"),
        "game = \"hex(board_size=3)\"\ngames_per_pair = \"many\"\n",
    )
    .unwrap();
    let err = refused(
        d,
        &["league", "t.toml", "--out", "L"],
        &["t.toml", "line 2"],
    );
    // The parser's snippet: the line, then a caret under the value.
    let lines: Vec<&str> = err.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("games_per_pair = \"many\""))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(lines[at + 1].contains('^'), "{err}");
}

#[test]
fn region_files_that_are_no_region_are_refused_with_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cases: [(&str, &[&str]); 5] = [
        (
            "1 . 2\n. Z .\n",
            &["line 2", "'Z' is not a cell", "accepted"],
        ),
        ("1 . .\n", &["terminals must be 1 and 2"]),
        (
            "poset klein\n1 . 2\n",
            &["unknown poset 'klein'", "accepted boolean, p3"],
        ),
        ("\u{0}\u{1}binary", &["is not"]),
        ("", &["terminals must be"]),
    ];
    for (i, (text, needles)) in cases.iter().enumerate() {
        let name = format!("r{i}.region");
        std::fs::write(d.join(&name), text).unwrap();
        refused(d, &["region", &name], needles);
    }
    refused(
        d,
        &["region", "missing.region"],
        &["cannot read missing.region"],
    );
    let big = format!("1 {} 2\n", ["."; 11].join(" "));
    std::fs::write(d.join("big.region"), big).unwrap();
    refused(d, &["region", "big.region", "--form"], &["at most 10"]);
}

#[test]
fn template_files_that_are_no_template_are_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cases: [(&str, &[&str]); 3] = [
        (
            "1 . 2\n. Z .\n",
            &["line 2", "'Z' is not a cell", "accepted"],
        ),
        ("1 . .\n", &["terminals must be 1 and 2"]),
        (
            "1 . . . . . . . . . . . . . . . . . 2\n",
            &["17 empty cells", "at most 16"],
        ),
    ];
    for (i, (text, needles)) in cases.iter().enumerate() {
        let name = format!("t{i}.region");
        std::fs::write(d.join(&name), text).unwrap();
        refused(d, &["template", &name], needles);
    }
    refused(
        d,
        &["template", "missing.region"],
        &["cannot read missing.region"],
    );
}
