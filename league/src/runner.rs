//! Running a tournament: games in parallel, each appended to the results
//! log as it finishes; a rerun of the same tournament plays only the games
//! the log lacks.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use darkhex_algorithms::shard::Shard;
use darkhex_games::{AnyGame, Game, State, Turn, load_game};
use darkhex_players::{PlayerFactory, play_game, prepare_in};

use crate::LeagueError;
use crate::definition::{Match, Numbered, Tournament, mix};
use crate::log::{GameResult, ResultsLog};
use crate::report::Report;

/// Where a run stands, for progress displays.
#[derive(Clone, Debug)]
pub struct Progress {
    pub done: usize,
    pub total: usize,
    /// The player with the best mean score so far, and that score.
    pub leader: Option<(String, f64)>,
}

pub struct LeagueRun {
    /// Every finished game, by id.
    pub results: Vec<GameResult>,
    /// Games this run played (the others came from the log).
    pub played: usize,
    pub report: Report,
    /// Whether the run stopped early (see `run_league`'s `stop`).
    pub stopped: bool,
    /// What the log and the players' preparation had to say (duplicate
    /// lines skipped, a grown tournament, policies lacking states).
    pub warnings: Vec<String>,
}

struct Shared {
    log: ResultsLog,
    /// Logged games, by id.
    results: Vec<GameResult>,
    points: Vec<(f64, usize)>,
    /// Finished games waiting for an earlier one, by their place in the
    /// list of games to play.
    waiting: BTreeMap<usize, GameResult>,
    /// The place of the next game to log.
    next: usize,
    failed: Option<LeagueError>,
}

impl Shared {
    /// Logs the finished games that no unfinished game precedes.
    fn write_ready(&mut self) -> Result<(), LeagueError> {
        while let Some(result) = self.waiting.remove(&self.next) {
            self.log.append(&result)?;
            self.results.push(result);
            self.next += 1;
        }
        Ok(())
    }
}

/// Adds one game to both players' (points, games): `score` to `a`, the rest to `b`.
fn credit(points: &mut [(f64, usize)], a: usize, b: usize, score: f64) {
    points[a].0 += score;
    points[a].1 += 1;
    points[b].0 += 1.0 - score;
    points[b].1 += 1;
}

fn leader(t: &Tournament, points: &[(f64, usize)]) -> Option<(String, f64)> {
    points
        .iter()
        .enumerate()
        .filter(|(_, p)| p.1 > 0)
        .map(|(i, p)| (i, p.0 / p.1 as f64))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, s)| (t.players[i].name.clone(), s))
}

/// Prepares every player of the tournament (loading files, solving LPs).
pub fn prepare_players(
    t: &Tournament,
    game: &AnyGame,
) -> Result<Vec<Arc<dyn PlayerFactory>>, LeagueError> {
    t.players
        .iter()
        .map(|p| {
            prepare_in(&p.spec, game, &t.base_dir).map_err(|source| LeagueError::Player {
                name: p.name.clone(),
                source: Box::new(source),
            })
        })
        .collect()
}

/// Plays the games of `t` that `out_dir/results.jsonl` lacks, in parallel,
/// and writes the reports. Games start in the order of their ids and are
/// logged in that order, so the log is the same however many threads
/// played it and wherever a run was interrupted. `stop` ends the run early
/// (no game starts after it; the games under way finish and are logged);
/// `on_progress` sees every finished game.
pub fn run_league(
    t: &Tournament,
    out_dir: &Path,
    on_progress: &(dyn Fn(&Progress) + Sync),
    stop: &AtomicBool,
) -> Result<LeagueRun, LeagueError> {
    run_league_part(t, None, out_dir, on_progress, stop)
}

/// [`run_league`] for one shard of the schedule (`None`: all of it): the
/// log in `out_dir` holds that shard's games only, for
/// [`crate::merge::merge_shards`] to join with the others'.
pub fn run_league_part(
    t: &Tournament,
    shard: Option<Shard>,
    out_dir: &Path,
    on_progress: &(dyn Fn(&Progress) + Sync),
    stop: &AtomicBool,
) -> Result<LeagueRun, LeagueError> {
    let game = load_game(&t.game)?;
    std::fs::create_dir_all(out_dir).map_err(|source| LeagueError::Io {
        path: out_dir.to_path_buf(),
        source,
    })?;
    // Players first: a spec that fails must not leave a log behind.
    let factories = prepare_players(t, &game)?;
    let opened = ResultsLog::open_part(&out_dir.join("results.jsonl"), t, shard)?;
    let (log, done, schedule) = (opened.log, opened.done, opened.schedule);
    let mut warnings = opened.warnings;
    warnings.extend(factories.iter().flat_map(|f| f.notes()));
    let finished: std::collections::HashSet<u64> = done.iter().map(|r| r.id).collect();
    // A shard's games are chosen by their place in the schedule.
    let part: Vec<Numbered> = schedule
        .iter()
        .enumerate()
        .filter(|(i, _)| shard.is_none_or(|s| s.holds(*i)))
        .map(|(_, n)| *n)
        .collect();
    let missing: Vec<Numbered> = part
        .iter()
        .filter(|n| !finished.contains(&n.id))
        .copied()
        .collect();
    let already = done.len();
    let mut points = vec![(0.0, 0); t.players.len()];
    for r in &done {
        if let (Some(a), Some(b)) = (t.index_of(&r.a), t.index_of(&r.b)) {
            credit(&mut points, a, b, r.score_a());
        }
    }
    let total = part.len();
    on_progress(&Progress {
        done: done.len(),
        total,
        leader: leader(t, &points),
    });
    let shared = Mutex::new(Shared {
        log,
        results: done,
        points,
        waiting: BTreeMap::new(),
        next: 0,
        failed: None,
    });
    let started = AtomicUsize::new(0);
    let play = |n: &Numbered| {
        play_match(t, &game, &factories, &n.game).map(|r| GameResult { id: n.id, ..r })
    };
    // Each worker takes the next game to start; a finished game waits
    // until every game before it is logged.
    let worker = || {
        loop {
            if stop.load(Ordering::SeqCst) {
                return;
            }
            let i = started.fetch_add(1, Ordering::SeqCst);
            let Some(n) = missing.get(i) else {
                return;
            };
            let played = play(n);
            let mut s = shared.lock().unwrap_or_else(|e| e.into_inner());
            if s.failed.is_some() {
                return;
            }
            match played {
                Ok(result) => {
                    credit(&mut s.points, n.game.a, n.game.b, result.score_a());
                    s.waiting.insert(i, result);
                    if let Err(e) = s.write_ready() {
                        s.failed = Some(e);
                        stop.store(true, Ordering::SeqCst);
                        return;
                    }
                    on_progress(&Progress {
                        done: s.results.len() + s.waiting.len(),
                        total,
                        leader: leader(t, &s.points),
                    });
                }
                Err(e) => {
                    s.failed = Some(e);
                    // Nothing starts after a failed game.
                    started.fetch_add(missing.len(), Ordering::SeqCst);
                    return;
                }
            }
        }
    };
    let threads = rayon::current_num_threads().clamp(1, missing.len().max(1));
    rayon::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|_| worker());
        }
    });
    let shared = shared.into_inner().unwrap_or_else(|e| e.into_inner());
    if let Some(e) = shared.failed {
        return Err(e);
    }
    let mut results = shared.results;
    results.sort_by_key(|r| r.id);
    let report = Report::new(t, &results);
    report.write(out_dir)?;
    Ok(LeagueRun {
        stopped: results.len() < total,
        played: results.len() - already,
        results,
        report,
        warnings,
    })
}

/// Plays one game of the schedule with the prepared players; its id is
/// left 0 for the log to number. The seeds come from the game's place in
/// the tournament, so the result is the same on any thread or machine.
pub fn play_match(
    t: &Tournament,
    game: &AnyGame,
    factories: &[Arc<dyn PlayerFactory>],
    m: &Match,
) -> Result<GameResult, LeagueError> {
    let seed = t.game_seed(m);
    let seats = m.seats();
    let mut players = [
        factories[seats[0]].create(0, mix(seed ^ 1)),
        factories[seats[1]].create(1, mix(seed ^ 2)),
    ];
    let record = play_game(game, &mut players, seed, |_, _, _| {})?;
    Ok(GameResult {
        id: 0,
        a: t.players[m.a].name.clone(),
        b: t.players[m.b].name.clone(),
        round: m.round,
        seats: seats.map(|i| t.players[i].name.clone()),
        returns: record.returns,
        moves: record.history.len(),
        history: move_names(game, &record.history),
        seed,
        decisions: record.decisions,
        uniform_fallbacks: record.uniform_fallbacks,
    })
}

/// A game's actions as `darkhex play --moves` reads them: cell or action
/// names, and card names for chance outcomes.
pub fn move_names<G: Game>(game: &G, history: &[darkhex_games::Action]) -> String {
    let mut state = game.new_initial_state();
    let mut names = Vec::with_capacity(history.len());
    for &a in history {
        names.push(if state.current_player() == Turn::Chance {
            game.chance_outcome_name(a)
        } else {
            game.action_name(a)
        });
        state.apply(a);
    }
    names.join(",")
}
