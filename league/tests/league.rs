//! Tournaments: what players achieve, resuming, and the results log's safety.

use std::sync::atomic::{AtomicBool, Ordering};

use darkhex_league::{GameResult, LeagueError, Tournament, run_league};

fn specs(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn key(r: &GameResult) -> (String, String, u32) {
    (r.a.clone(), r.b.clone(), r.round)
}

#[test]
fn the_equilibrium_player_gets_at_least_the_game_value_from_each_seat() {
    // Abrupt 2x3 Dark Hex has value 9/11 for the first player.
    let value = 9.0 / 11.0;
    let game = "dark_hex(num_rows=2,num_cols=3,gameversion=adh)";
    let t = Tournament::new(
        game,
        &specs(&["lp", "random", "ismcts(sims=200)"]),
        200,
        7,
        Some("lp".into()),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let run = run_league(&t, dir.path(), &|_| {}, &AtomicBool::new(false)).unwrap();
    for opponent in ["random", "ismcts(sims=200)"] {
        for seat in 0..2 {
            let returns: Vec<f64> = run
                .results
                .iter()
                .filter(|r| r.b == opponent && r.seats[seat] == "lp")
                .map(|r| r.returns[seat])
                .collect();
            assert_eq!(returns.len(), 100);
            let mean = returns.iter().sum::<f64>() / returns.len() as f64;
            let guaranteed = if seat == 0 { value } else { -value };
            // Returns are +-1, so three standard errors are at most 0.3.
            assert!(
                mean >= guaranteed - 0.3,
                "lp in seat {seat} against {opponent}: {mean} < {guaranteed}"
            );
        }
    }
}

#[test]
fn ismcts_beats_random_on_the_3x3_board() {
    let t = Tournament::new(
        "dark_hex(num_rows=3,num_cols=3)",
        &specs(&["ismcts(sims=500)", "random"]),
        100,
        3,
        None,
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let run = run_league(&t, dir.path(), &|_| {}, &AtomicBool::new(false)).unwrap();
    let wins = run.results.iter().filter(|r| r.score_a() == 1.0).count();
    assert!(wins >= 80, "ismcts won {wins} of 100");
}

/// Runs `t` into `dir` on a pool of `threads`, stopping once `stop_at`
/// games are done (if given).
fn run_on(
    t: &Tournament,
    dir: &std::path::Path,
    threads: usize,
    stop_at: Option<usize>,
) -> darkhex_league::LeagueRun {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let stop = AtomicBool::new(false);
    let progress = |p: &darkhex_league::Progress| {
        if stop_at.is_some_and(|n| p.done >= n) {
            stop.store(true, Ordering::SeqCst);
        }
    };
    pool.install(|| run_league(t, dir, &progress, &stop))
        .unwrap()
}

/// Every file a league writes, by name.
fn outputs(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    files.sort();
    files
}

fn three_players() -> Tournament {
    Tournament::new(
        "dark_hex(num_rows=2,num_cols=3)",
        &specs(&["random", "lp", "ismcts(sims=50)"]),
        30,
        11,
        None,
    )
    .unwrap()
}

#[test]
fn a_resumed_run_plays_exactly_the_missing_games_and_writes_the_same_log() {
    let t = three_players();
    let dir = tempfile::tempdir().unwrap();
    // Stop after about 25 of the 90 games, as if killed.
    let first = run_on(&t, dir.path(), 2, Some(25));
    assert!(first.stopped && first.results.len() >= 25 && first.results.len() < 90);
    // Logged games are a prefix of the schedule: nothing after a gap.
    let ids: Vec<u64> = first.results.iter().map(|r| r.id).collect();
    assert_eq!(ids, (1..=ids.len() as u64).collect::<Vec<_>>());
    // A write cut short by the kill leaves half a line: it is no finished game.
    let log = dir.path().join("results.jsonl");
    let mut text = std::fs::read_to_string(&log).unwrap();
    text.push_str("{\"a\":\"random\",\"b\":\"lp\",\"rou");
    std::fs::write(&log, text).unwrap();
    let second = run_on(&t, dir.path(), 2, None);
    assert_eq!(second.played, 90 - first.results.len());
    assert_eq!(second.results.len(), 90);
    let mut keys: Vec<_> = second.results.iter().map(key).collect();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), 90, "every game exactly once");
    // An uninterrupted run, on another number of threads: the same log and
    // reports, byte for byte.
    let other = tempfile::tempdir().unwrap();
    let straight = run_on(&t, other.path(), 1, None);
    assert_eq!(straight.results, second.results);
    assert_eq!(outputs(other.path()), outputs(dir.path()));
}

#[test]
fn game_ids_are_fixed_by_pair_and_round_and_survive_growth() {
    let t = Tournament::new(
        "dark_hex(num_rows=2,num_cols=2)",
        &specs(&["random", "lp", "ismcts(sims=20)"]),
        4,
        3,
        None,
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let run = run_on(&t, dir.path(), 2, None);
    // Pair by pair, round by round: (random, lp) 1-4, (random, ismcts) 5-8, (lp, ismcts) 9-12.
    let got: Vec<(u64, String, String, u32)> = run
        .results
        .iter()
        .map(|r| (r.id, r.a.clone(), r.b.clone(), r.round))
        .collect();
    let pairs = [
        ("random", "lp"),
        ("random", "ismcts(sims=20)"),
        ("lp", "ismcts(sims=20)"),
    ];
    let want: Vec<(u64, String, String, u32)> = pairs
        .iter()
        .flat_map(|(a, b)| (0..4).map(move |r| (a.to_string(), b.to_string(), r)))
        .enumerate()
        .map(|(i, (a, b, r))| (i as u64 + 1, a, b, r))
        .collect();
    assert_eq!(got, want);
    let before: Vec<GameResult> = run.results.clone();

    // Grown by a player in the middle and two more rounds: the old games
    // keep their ids, the new ones come after them.
    let mut grown = t.clone();
    grown.players.insert(
        1,
        darkhex_league::Entry {
            name: "uniform".into(),
            spec: "random".into(),
        },
    );
    grown.games_per_pair = 6;
    let second = run_on(&grown, dir.path(), 2, None);
    assert_eq!(second.results.len(), 6 * 6);
    for old in &before {
        assert!(second.results.contains(old), "game {} changed", old.id);
    }
    let ids: Vec<u64> = second.results.iter().map(|r| r.id).collect();
    assert_eq!(ids, (1..=36).collect::<Vec<_>>());
    // The same growth from nothing, in one run, gives the same ids: the
    // log's header keeps the stages.
    let fresh = tempfile::tempdir().unwrap();
    run_on(&t, fresh.path(), 1, Some(5));
    let third = run_on(&grown, fresh.path(), 1, None);
    assert_eq!(third.results, second.results);
    assert_eq!(
        std::fs::read(fresh.path().join("results.jsonl")).unwrap(),
        std::fs::read(dir.path().join("results.jsonl")).unwrap()
    );

    // Reordering the players would change who sits first: refused.
    let mut reordered = grown.clone();
    reordered.players.swap(0, 2);
    let e = run_league(&reordered, dir.path(), &|_| {}, &AtomicBool::new(false))
        .err()
        .unwrap();
    assert!(e.to_string().contains("keep their order"), "{e}");
}

#[test]
fn a_log_numbered_as_games_finished_is_renumbered_by_pair_and_round() {
    let t = Tournament::new("kuhn_poker", &specs(&["random", "lp"]), 6, 0, None).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let run = run_on(&t, dir.path(), 1, None);
    let log = dir.path().join("results.jsonl");
    let text = std::fs::read_to_string(&log).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    // As version 1 wrote it: the header at version 1, games in the order
    // they finished, numbered 1, 2, ... in that order; two left unplayed.
    lines[0] = lines[0].replace("\"version\":2", "\"version\":1");
    let mut games: Vec<serde_json::Value> = lines[1..]
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    games.reverse();
    games.truncate(4);
    let mut old = vec![lines[0].clone()];
    for (i, g) in games.iter_mut().enumerate() {
        g["id"] = (i as u64 + 1).into();
        old.push(g.to_string());
    }
    std::fs::write(&log, old.join("\n") + "\n").unwrap();
    // `league show` reads it with the new ids already.
    let (_, read) = darkhex_league::ResultsLog::read(&log).unwrap();
    let read_ids: Vec<u64> = read.iter().map(|r| r.id).collect();
    assert_eq!(read_ids, [3, 4, 5, 6]);
    let again = run_on(&t, dir.path(), 2, None);
    assert_eq!(again.played, 2);
    assert!(
        again
            .warnings
            .iter()
            .any(|w| w.contains("numbered by pair and round")),
        "{:?}",
        again.warnings
    );
    assert_eq!(again.results, run.results);
    // The same lines as a log written by this version; the two games
    // missing before come after the ones it held.
    let sorted = |t: &str| {
        let mut lines: Vec<String> = t.lines().map(String::from).collect();
        lines.sort();
        lines
    };
    let now = std::fs::read_to_string(&log).unwrap();
    assert_eq!(sorted(&now), sorted(&text));
    assert!(
        now.lines().nth(1).unwrap().starts_with("{\"id\":3,"),
        "{now}"
    );
}

#[test]
fn foreign_or_damaged_logs_are_reported_and_left_alone() {
    let t = Tournament::new("kuhn_poker", &specs(&["random", "lp"]), 4, 0, None).unwrap();
    let dir = tempfile::tempdir().unwrap();
    run_league(&t, dir.path(), &|_| {}, &AtomicBool::new(false)).unwrap();
    let log = dir.path().join("results.jsonl");

    let twins = Tournament::new("kuhn_poker", &specs(&["random", "random"]), 4, 0, None).unwrap();
    let names: Vec<&str> = twins.players.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["random#1", "random#2"]);
    let other = Tournament::new("leduc_poker", &specs(&["random", "lp"]), 4, 0, None).unwrap();
    let before = std::fs::read(&log).unwrap();
    let e = run_league(&other, dir.path(), &|_| {}, &AtomicBool::new(false))
        .err()
        .unwrap();
    assert!(matches!(e, LeagueError::ForeignLog { .. }), "{e}");
    assert!(e.to_string().contains("kuhn_poker"), "{e}");
    assert_eq!(std::fs::read(&log).unwrap(), before);

    let mut lines: Vec<String> = String::from_utf8(before)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    lines[2] = "{not json".into();
    let damaged = lines.join("\n") + "\n";
    std::fs::write(&log, &damaged).unwrap();
    let e = run_league(&t, dir.path(), &|_| {}, &AtomicBool::new(false))
        .err()
        .unwrap();
    assert!(
        matches!(e, LeagueError::MalformedLog { line: 3, .. }),
        "{e}"
    );
    assert_eq!(std::fs::read_to_string(&log).unwrap(), damaged);

    std::fs::write(&log, "hello\n").unwrap();
    let e = run_league(&t, dir.path(), &|_| {}, &AtomicBool::new(false))
        .err()
        .unwrap();
    assert!(matches!(e, LeagueError::ForeignLog { .. }), "{e}");
}

#[test]
fn definitions_are_checked() {
    let ok = r#"
        game = "dark_hex(num_rows=3,num_cols=3)"
        games_per_pair = 10
        format = "gauntlet"
        challenger = "smart"
        [[players]]
        name = "smart"
        spec = "ismcts(sims=100)"
        [[players]]
        spec = "random"
    "#;
    let t = Tournament::from_toml(ok).unwrap();
    assert_eq!(t.players[1].name, "random");
    assert_eq!(t.schedule().len(), 10);
    for (bad, needle) in [
        (
            ok.replace("games_per_pair = 10", "games_per_pair = 0"),
            "at least 1",
        ),
        (
            ok.replace("challenger = \"smart\"", "challenger = \"nobody\""),
            "smart, random",
        ),
        (
            ok.replace("games_per_pair", "games_per_pear"),
            "games_per_pear",
        ),
        (ok.replace("\"gauntlet\"", "\"swiss\""), "swiss"),
    ] {
        let e = Tournament::from_toml(&bad).unwrap_err().to_string();
        assert!(e.contains(needle), "{needle}: {e}");
    }
    let t = Tournament::new("leduc_poker", &specs(&["random", "mcts"]), 2, 0, None).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = run_league(&t, dir.path(), &|_| {}, &AtomicBool::new(false))
        .err()
        .unwrap();
    assert!(e.to_string().contains("mcts"), "{e}");
}
