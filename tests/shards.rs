//! `--shard I/N` runs as separate processes, as a Slurm array or a
//! Kubernetes indexed Job starts them, and the merge that joins them: the
//! merged league log equals the run in one piece line for line, the merged
//! openings equal the single run's values, and broken sets of shards are
//! refused with the reason.

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
    let values = |j: &serde_json::Value| -> Vec<(String, bool)> {
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
    };
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
