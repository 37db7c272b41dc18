//! `--shard I/N` runs as separate processes, as a Slurm array or a
//! Kubernetes indexed Job starts them, and the merge that joins them: the
//! merged league log equals the run in one piece line for line, the merged
//! openings equal the single run's values, and broken sets of shards are
//! refused with the reason. Runs killed halfway (their logs cut after a
//! torn line, as a kill leaves them) resume into what an uninterrupted run
//! gives.

mod common;

use std::path::Path;
use std::process::{Child, Command, Stdio};

use common::{assert_refused, darkhex, json, ok};

const LEAGUE: [&str; 10] = [
    "league",
    "--game",
    "dark_hex(num_rows=3,num_cols=3)",
    "--players",
    "random,ismcts(sims=20),ismcts(sims=60)",
    "--games",
    "4",
    "--seed",
    "7",
    "--threads",
];

fn spawn(dir: &Path, args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_darkhex"))
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the darkhex binary starts")
}

fn wait_all(children: Vec<Child>) {
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

fn league_args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = LEAGUE.to_vec();
    args.push("1");
    args.extend_from_slice(extra);
    args
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

/// A log as a kill leaves it: the header and `kept` whole lines after it,
/// then half of the next line.
fn torn_after(log: &str, kept: usize) -> String {
    let lines: Vec<&str> = log.lines().collect();
    assert!(lines.len() > kept + 1, "{log}");
    let mut cut: String = lines[..=kept].iter().map(|l| format!("{l}\n")).collect();
    let next = lines[kept + 1];
    cut.push_str(&next[..next.len() / 2]);
    cut
}

/// Each opening of a `--json` table with Black's value.
fn opening_values(j: &serde_json::Value) -> Vec<(String, bool)> {
    j["openings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o["opening"].as_str().unwrap().to_string(),
                o["black_wins"].as_bool().unwrap(),
            )
        })
        .collect()
}

#[test]
fn league_shards_merge_into_the_single_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&darkhex(d, &league_args(&["--out", "whole"])));
    let shards: Vec<Child> = (1..=3)
        .map(|i| {
            let (shard, out) = (format!("{i}/3"), format!("part-{i}"));
            spawn(d, &league_args(&["--shard", &shard, "--out", &out]))
        })
        .collect();
    wait_all(shards);
    // Each shard holds its third of the 12 games.
    let part = read(&d.join("part-2/results.jsonl"));
    assert_eq!(part.lines().count(), 1 + 4, "{part}");
    assert!(
        part.lines()
            .next()
            .unwrap()
            .contains(r#""shard":{"index":2,"count":3}"#)
    );
    let merged = ok(&darkhex(
        d,
        &[
            "league",
            "merge",
            "part-3",
            "part-1",
            "part-2/results.jsonl",
            "--out",
            "merged",
        ],
    ));
    assert!(merged.contains("12 games"), "{merged}");
    assert_eq!(
        read(&d.join("merged/results.jsonl")),
        read(&d.join("whole/results.jsonl"))
    );
    assert_eq!(
        read(&d.join("merged/report.json")),
        read(&d.join("whole/report.json"))
    );
    // A shard killed after two of its games, the third line half written,
    // resumes into the log of the shard that ran through.
    let cut = d.join("killed/results.jsonl");
    std::fs::create_dir_all(d.join("killed")).unwrap();
    std::fs::write(&cut, torn_after(&part, 2)).unwrap();
    ok(&darkhex(
        d,
        &league_args(&["--shard", "2/3", "--out", "killed"]),
    ));
    assert_eq!(read(&cut), part);
    // A rerun of a finished shard plays nothing and changes nothing.
    ok(&darkhex(
        d,
        &league_args(&["--shard", "2/3", "--out", "part-2"]),
    ));
    assert_eq!(read(&d.join("part-2/results.jsonl")), part);

    let refuse = |args: &[&str], says: &str| assert_refused(d, args, says);
    refuse(
        &["league", "merge", "part-1", "part-3", "--out", "m2"],
        "shard 2/3 is missing",
    );
    refuse(
        &[
            "league", "merge", "part-1", "part-2", "part-2", "part-3", "--out", "m2",
        ],
        "shard 2/3 is given twice",
    );
    refuse(
        &["league", "merge", "part-1", "whole", "--out", "m2"],
        "not of a shard",
    );
    refuse(
        &league_args(&["--shard", "1/3", "--out", "part-2"]),
        "it holds shard 2/3 of the league and this run plays shard 1/3",
    );
    refuse(
        &league_args(&["--shard", "4/3", "--out", "x"]),
        "I from 1 to N",
    );
    // A shard of the same players with another seed is another league.
    let mut other = LEAGUE.to_vec();
    other[8] = "8";
    other.extend(["1", "--shard", "2/3", "--out", "other-2"]);
    ok(&darkhex(d, &other));
    refuse(
        &[
            "league", "merge", "part-1", "other-2", "part-3", "--out", "m2",
        ],
        "another league",
    );
    // A shard cut short: its game lines lost, say by a node that died.
    let cut: String = part.lines().take(3).map(|l| format!("{l}\n")).collect();
    std::fs::create_dir_all(d.join("cut")).unwrap();
    std::fs::write(d.join("cut/results.jsonl"), cut).unwrap();
    refuse(
        &["league", "merge", "part-1", "cut", "part-3", "--out", "m2"],
        "lacks 2 of its 4 games",
    );
}

#[test]
fn opening_shards_merge_into_the_values_of_the_single_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let game = "hex(board_size=4)";
    let whole = json(&darkhex(
        d,
        &["solve", game, "--openings", "--threads", "1", "--json"],
    ));
    let shards: Vec<Child> = (1..=3)
        .map(|i| {
            let (shard, out) = (format!("{i}/3"), format!("openings-{i}.jsonl"));
            let args = [
                "solve",
                game,
                "--openings",
                "--threads",
                "1",
                "--shard",
                &shard,
                "--out",
                &out,
            ];
            spawn(d, &args)
        })
        .collect();
    wait_all(shards);
    let merged = json(&darkhex(
        d,
        &[
            "solve",
            "merge",
            "openings-2.jsonl",
            "openings-3.jsonl",
            "openings-1.jsonl",
            "--json",
        ],
    ));
    let values = opening_values;
    assert_eq!(values(&merged).len(), 16);
    assert_eq!(values(&merged), values(&whole));
    assert_eq!(merged["game"], whole["game"]);
    // 4x4: Black wins exactly with the short diagonal's four cells.
    let wins: Vec<String> = values(&merged)
        .into_iter()
        .filter(|v| v.1)
        .map(|v| v.0)
        .collect();
    assert_eq!(wins, ["d1", "c2", "b3", "a4"]);

    let refuse = |args: &[&str], says: &str| assert_refused(d, args, says);
    refuse(
        &["solve", "merge", "openings-1.jsonl", "openings-3.jsonl"],
        "shard 2/3 is missing",
    );
    refuse(
        &["solve", game, "--openings", "--shard", "1/2"],
        "give it with --out FILE",
    );
    refuse(
        &[
            "solve",
            game,
            "--openings",
            "--shard",
            "2/3",
            "--out",
            "openings-1.jsonl",
        ],
        "it holds shard 1/3 and this run solves shard 2/3",
    );
    refuse(
        &[
            "solve",
            "hex(board_size=3)",
            "--openings",
            "--shard",
            "1/3",
            "--out",
            "openings-2.jsonl",
        ],
        "it holds openings of hex(board_size=4), not hex(board_size=3)",
    );
}

#[test]
fn an_interrupted_openings_run_resumes_into_the_uninterrupted_values() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let game = "hex(board_size=6)";
    let run = |out: &str| {
        json(&darkhex(
            d,
            &[
                "solve",
                game,
                "--openings",
                "--threads",
                "1",
                "--json",
                "--out",
                out,
            ],
        ))
    };
    let whole = run("whole.jsonl");
    let log = read(&d.join("whole.jsonl"));
    // One line per opening of the table (one of each pair of images) after
    // the header, which names no shard.
    assert_eq!(log.lines().count(), 1 + 18, "{log}");
    assert!(!log.lines().next().unwrap().contains("shard"), "{log}");
    // Killed after 5 openings, the sixth half written.
    let cut = torn_after(&log, 5);
    std::fs::write(d.join("resumed.jsonl"), &cut).unwrap();
    let resumed = run("resumed.jsonl");
    assert_eq!(opening_values(&resumed), opening_values(&whole));
    assert_eq!(opening_values(&whole).len(), 36);
    assert_eq!(resumed["game"], whole["game"]);
    // The five finished openings were kept as they were (their times
    // included), not solved again; the rest were added once each.
    let after = read(&d.join("resumed.jsonl"));
    let kept: Vec<&str> = cut.lines().take(6).collect();
    assert_eq!(after.lines().take(6).collect::<Vec<_>>(), kept);
    assert_eq!(after.lines().count(), 1 + 18, "{after}");
    // A rerun of a finished run solves nothing and leaves its log alone.
    let again = run("resumed.jsonl");
    assert_eq!(opening_values(&again), opening_values(&whole));
    assert_eq!(read(&d.join("resumed.jsonl")), after);
    assert_refused(
        d,
        &[
            "solve",
            game,
            "--openings",
            "--shard",
            "1/2",
            "--out",
            "whole.jsonl",
        ],
        "it holds all openings and this run solves shard 1/2",
    );
}

/// `--replies --out`: one line per solved reply; a run killed halfway
/// resumes into the values of the run in one piece, keeping what it had;
/// a log of replies is refused by `--openings` and by `solve merge`.
#[test]
fn an_interrupted_replies_run_resumes_into_the_uninterrupted_values() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let game = "rex(board_size=4)";
    let run = |out: &str| {
        json(&darkhex(
            d,
            &[
                "solve",
                game,
                "--replies",
                "--threads",
                "1",
                "--json",
                "--out",
                out,
            ],
        ))
    };
    let values = |j: &serde_json::Value| -> Vec<(String, String, bool)> {
        j["replies"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["opening"].as_str().unwrap().to_string(),
                    r["reply"].as_str().unwrap().to_string(),
                    r["white_wins"].as_bool().unwrap(),
                )
            })
            .collect()
    };
    let whole = run("whole.jsonl");
    let log = read(&d.join("whole.jsonl"));
    // 8 openings (one of each pair of images), 15 replies each.
    assert_eq!(log.lines().count(), 1 + 8 * 15, "{log}");
    let cut = torn_after(&log, 40);
    std::fs::write(d.join("resumed.jsonl"), &cut).unwrap();
    let resumed = run("resumed.jsonl");
    assert_eq!(values(&resumed), values(&whole));
    let after = read(&d.join("resumed.jsonl"));
    let kept: Vec<&str> = cut.lines().take(41).collect();
    assert_eq!(after.lines().take(41).collect::<Vec<_>>(), kept);
    assert_eq!(after.lines().count(), 1 + 8 * 15, "{after}");
    let again = run("resumed.jsonl");
    assert_eq!(values(&again), values(&whole));
    assert_eq!(read(&d.join("resumed.jsonl")), after);
    assert_refused(
        d,
        &["solve", game, "--openings", "--out", "whole.jsonl"],
        "it holds the values of replies to openings (--replies) and this run solves the values of openings (--openings)",
    );
    assert_refused(
        d,
        &["solve", "merge", "whole.jsonl"],
        "is a log of replies (--replies)",
    );
}
