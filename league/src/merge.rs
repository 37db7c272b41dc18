//! A league's log written from games played elsewhere: the shards of
//! `darkhex league --shard I/N` joined by `darkhex league merge`, or the
//! games of Ray tasks. The log is the one a run in one piece on one thread
//! writes: the schedule's games in order, numbered from 1.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use darkhex_algorithms::shard::{Shard, check_complete};

use crate::LeagueError;
use crate::definition::Tournament;
use crate::log::{FileStamp, GameResult, ResultsLog, changed_file, incompatibility};
use crate::report::Report;
use crate::runner::LeagueRun;

/// Where a shard's log is: the file itself, or the `--out` directory holding it.
pub fn log_path(path: &Path) -> PathBuf {
    if path.is_dir() {
        path.join("results.jsonl")
    } else {
        path.to_path_buf()
    }
}

/// Writes the log and reports of `t` into `out_dir` from `games`, which
/// must hold every game of the schedule; a repeated game (a task run twice)
/// counts once when both records agree.
pub fn write_league(
    t: &Tournament,
    games: Vec<GameResult>,
    out_dir: &Path,
) -> Result<LeagueRun, LeagueError> {
    let schedule = t.schedule();
    let position: HashMap<(&str, &str, u32), usize> = schedule
        .iter()
        .enumerate()
        .map(|(i, m)| ((&*t.players[m.a].name, &*t.players[m.b].name, m.round), i))
        .collect();
    let mut placed: Vec<Option<GameResult>> = vec![None; schedule.len()];
    for g in games {
        let Some(&i) = position.get(&g.key()) else {
            return Err(LeagueError::Merge(format!(
                "{} vs {} round {} is not a game of this league",
                g.a, g.b, g.round
            )));
        };
        match &placed[i] {
            Some(old)
                if GameResult {
                    id: 0,
                    ..old.clone()
                } != GameResult { id: 0, ..g.clone() } =>
            {
                return Err(LeagueError::Merge(format!(
                    "{} vs {} round {} was played twice with different results: the players are not deterministic",
                    g.a, g.b, g.round
                )));
            }
            _ => placed[i] = Some(g),
        }
    }
    let missing = placed.iter().filter(|g| g.is_none()).count();
    if missing > 0 {
        return Err(LeagueError::Merge(format!(
            "{missing} of the league's {} games are missing",
            schedule.len()
        )));
    }
    let results: Vec<GameResult> = placed
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, g)| GameResult {
            id: i as u64 + 1,
            ..g
        })
        .collect();
    std::fs::create_dir_all(out_dir).map_err(|source| LeagueError::Io {
        path: out_dir.to_path_buf(),
        source,
    })?;
    let path = out_dir.join("results.jsonl");
    if path.exists() {
        // Only a log of this very league (whole, perhaps unfinished) is replaced.
        let held = ResultsLog::read_contents(&path)?;
        let reason = match (held.shard, incompatibility(&held.tournament, t)) {
            (Some(s), _) => Some(format!("it holds shard {s}, not a whole league")),
            (None, Some(why)) => Some(why),
            (None, None) if held.tournament != *t => {
                Some("it is a smaller league than this one".to_string())
            }
            (None, None) => None,
        };
        if let Some(reason) = reason {
            return Err(LeagueError::ForeignLog { path, reason });
        }
    }
    ResultsLog::write_whole(&path, t, &results)?;
    let report = Report::new(t, &results);
    report.write(out_dir)?;
    Ok(LeagueRun {
        played: 0,
        stopped: false,
        results,
        report,
        warnings: Vec::new(),
    })
}

/// Joins the logs of every shard of one league (files, or the shards'
/// `--out` directories) into `out_dir`. Refused: a log that is not a
/// shard's, shards of another league, a shard given twice or missing, and
/// a shard with games missing or not its own.
pub fn merge_shards(paths: &[PathBuf], out_dir: &Path) -> Result<LeagueRun, LeagueError> {
    let mut parts: Vec<(Shard, String)> = Vec::new();
    let mut games = Vec::new();
    let mut first: Option<(Tournament, BTreeMap<String, FileStamp>, PathBuf)> = None;
    for path in paths {
        let file = log_path(path);
        let contents = ResultsLog::read_contents(&file)?;
        let name = file.display().to_string();
        let Some(shard) = contents.shard else {
            return Err(LeagueError::Merge(format!(
                "{name} is the log of a whole league, not of a shard: `darkhex league merge` joins the logs of `darkhex league --shard I/N` runs"
            )));
        };
        let t = contents.tournament;
        match &first {
            None => first = Some((t.clone(), contents.files.clone(), file.clone())),
            Some((t0, files0, file0)) => {
                let why = if *t0 != t {
                    Some(
                        incompatibility(t0, &t)
                            .or_else(|| incompatibility(&t, t0))
                            .unwrap_or_else(|| {
                                "their players or games per pair differ".to_string()
                            }),
                    )
                } else {
                    changed_file(files0, &contents.files, &t).map(|c| {
                        format!(
                            "{}read {} as {} there and as {} here",
                            c.who, c.file, c.was, c.is
                        )
                    })
                };
                if let Some(why) = why {
                    return Err(LeagueError::Merge(format!(
                        "{name} is a shard of another league than {}: {why}",
                        file0.display()
                    )));
                }
            }
        }
        let own: Vec<(&str, &str, u32)> = t
            .schedule()
            .iter()
            .enumerate()
            .filter(|(i, _)| shard.holds(*i))
            .map(|(_, m)| (&*t.players[m.a].name, &*t.players[m.b].name, m.round))
            .collect();
        let held: std::collections::HashSet<(&str, &str, u32)> =
            contents.games.iter().map(GameResult::key).collect();
        if let Some(g) = contents.games.iter().find(|g| !own.contains(&g.key())) {
            return Err(LeagueError::Merge(format!(
                "{name} holds {} vs {} round {}, which is not a game of shard {shard}",
                g.a, g.b, g.round
            )));
        }
        let lacking = own.iter().filter(|k| !held.contains(*k)).count();
        if lacking > 0 {
            return Err(LeagueError::Merge(format!(
                "shard {shard} ({name}) lacks {lacking} of its {} games: rerun its `darkhex league ... --shard {shard}` command to finish it",
                own.len()
            )));
        }
        parts.push((shard, name));
        games.extend(contents.games);
    }
    check_complete(&parts)?;
    let (t, _, _) = first.ok_or(darkhex_algorithms::shard::ShardError::Nothing)?;
    write_league(&t, games, out_dir)
}
