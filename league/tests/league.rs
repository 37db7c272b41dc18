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

#[test]
fn a_resumed_run_plays_exactly_the_missing_games() {
    let t = Tournament::new(
        "dark_hex(num_rows=2,num_cols=3)",
        &specs(&["random", "lp", "ismcts(sims=50)"]),
        30,
        11,
        None,
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    // Stop after about 25 of the 90 games, as if killed.
    let stop = AtomicBool::new(false);
    let first = run_league(
        &t,
        dir.path(),
        &|p| {
            if p.done >= 25 {
                stop.store(true, Ordering::SeqCst);
            }
        },
        &stop,
    )
    .unwrap();
    assert!(first.stopped && first.results.len() >= 25 && first.results.len() < 90);
    // A write cut short by the kill leaves half a line: it is no finished game.
    let log = dir.path().join("results.jsonl");
    let mut text = std::fs::read_to_string(&log).unwrap();
    text.push_str("{\"a\":\"random\",\"b\":\"lp\",\"rou");
    std::fs::write(&log, text).unwrap();
    let second = run_league(&t, dir.path(), &|_| {}, &AtomicBool::new(false)).unwrap();
    assert_eq!(second.played, 90 - first.results.len());
    assert_eq!(second.results.len(), 90);
    let mut keys: Vec<_> = second.results.iter().map(key).collect();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), 90, "every game exactly once");
    // The same games as an uninterrupted run, result for result.
    let other = tempfile::tempdir().unwrap();
    let straight = run_league(&t, other.path(), &|_| {}, &AtomicBool::new(false)).unwrap();
    let mut a: Vec<_> = second
        .results
        .iter()
        .map(|r| (key(r), r.returns, r.seed))
        .collect();
    let mut b: Vec<_> = straight
        .results
        .iter()
        .map(|r| (key(r), r.returns, r.seed))
        .collect();
    a.sort_by(|x, y| x.0.cmp(&y.0));
    b.sort_by(|x, y| x.0.cmp(&y.0));
    assert_eq!(a, b);
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
