//! The results log: one JSON line per finished game after a header naming
//! the tournament. Lines are appended as games finish, so a killed run loses
//! nothing it finished, and a rerun plays only what the log lacks. A
//! tournament may grow (more games per pair, more players) over an existing
//! log; a log of a different tournament, or with a damaged line, is reported
//! with what differs and left alone.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use darkhex_algorithms::files::{FileKind, write_atomically};
use darkhex_algorithms::shard::Shard;
use serde::{Deserialize, Serialize};

use crate::LeagueError;
use crate::definition::Tournament;

pub const LOG_VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Header {
    format: String,
    version: u32,
    tournament: Tournament,
    /// The part of the schedule a `--shard` run plays; none for a whole league.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    shard: Option<Shard>,
}

impl Header {
    fn new(tournament: &Tournament, shard: Option<Shard>) -> Header {
        Header {
            format: FileKind::LeagueLog.format().into(),
            version: LOG_VERSION,
            tournament: tournament.clone(),
            shard,
        }
    }
}

/// What a log holds: the tournament, the shard it plays (if a part), its games.
pub struct LogContents {
    pub tournament: Tournament,
    pub shard: Option<Shard>,
    pub games: Vec<GameResult>,
}

/// One finished game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameResult {
    /// The game's number in its log, from 1 (`league show ID` replays it).
    #[serde(default)]
    pub id: u64,
    /// The pairing's players, by name, and the game's round in the pairing.
    pub a: String,
    pub b: String,
    pub round: u32,
    /// Who sat where.
    pub seats: [String; 2],
    pub returns: [f64; 2],
    /// The number of actions, chance outcomes included.
    pub moves: usize,
    /// Every action, comma-separated as `darkhex play --moves` reads them.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub history: String,
    pub seed: u64,
    /// Decisions each seat took, and how many of them its player took
    /// uniformly at random for want of a policy entry.
    #[serde(default)]
    pub decisions: [u32; 2],
    #[serde(default)]
    pub uniform_fallbacks: [u32; 2],
}

impl GameResult {
    /// `a`'s score: 1 for a win, 0.5 for a tie, 0 for a loss.
    pub fn score_a(&self) -> f64 {
        let a_seat = usize::from(self.seats[1] == self.a);
        let (mine, theirs) = (self.returns[a_seat], self.returns[1 - a_seat]);
        if mine > theirs {
            1.0
        } else if mine < theirs {
            0.0
        } else {
            0.5
        }
    }

    /// The game's place in its tournament: the pairing and the round.
    pub fn key(&self) -> (&str, &str, u32) {
        (&self.a, &self.b, self.round)
    }
}

/// An open results log, appending.
pub struct ResultsLog {
    path: PathBuf,
    file: File,
    next_id: u64,
}

/// What opening a log found.
pub struct Opened {
    pub log: ResultsLog,
    /// The finished games, each once.
    pub done: Vec<GameResult>,
    /// Things the user should hear about (duplicates skipped, a grown tournament).
    pub warnings: Vec<String>,
}

/// Why `now` cannot continue a log of `then`, or `None` when it can: the
/// same game, seed and format, and every logged player with the same spec;
/// games per pair and players may only be added.
pub(crate) fn incompatibility(then: &Tournament, now: &Tournament) -> Option<String> {
    let other_out = "or choose another --out for a new league";
    if then.game != now.game {
        return Some(format!(
            "it is a league of {}, not {}; {other_out}",
            then.game, now.game
        ));
    }
    if then.seed != now.seed {
        return Some(format!(
            "its seed is {} and this run's is {}: the games would differ; use --seed {} to continue it, {other_out}",
            then.seed, now.seed, then.seed
        ));
    }
    if then.format != now.format || then.challenger != now.challenger {
        return Some(format!(
            "it is a {} and this run is a {}; {other_out}",
            then.format_name(),
            now.format_name()
        ));
    }
    for p in &then.players {
        match now.players.iter().find(|q| q.name == p.name) {
            None => {
                return Some(format!(
                    "its player '{}' is not in this run: players can be added, not removed; {other_out}",
                    p.name
                ));
            }
            Some(q) if q.spec != p.spec => {
                return Some(format!(
                    "its player '{}' is '{}', not '{}'; give the new player another name, {other_out}",
                    p.name, p.spec, q.spec
                ));
            }
            Some(_) => {}
        }
    }
    if now.games_per_pair < then.games_per_pair {
        return Some(format!(
            "it plays {} games per pair and this run {}: a league can grow, not shrink; use --games {} (or games_per_pair = {}) to continue it, {other_out}",
            then.games_per_pair, now.games_per_pair, then.games_per_pair, then.games_per_pair
        ));
    }
    None
}

/// How `now` extends `then`, in words.
fn growth(then: &Tournament, now: &Tournament) -> Option<String> {
    let mut parts = Vec::new();
    if now.games_per_pair > then.games_per_pair {
        parts.push(format!(
            "games per pair {} -> {}",
            then.games_per_pair, now.games_per_pair
        ));
    }
    let added: Vec<&str> = now
        .players
        .iter()
        .filter(|q| then.players.iter().all(|p| p.name != q.name))
        .map(|q| q.name.as_str())
        .collect();
    if !added.is_empty() {
        parts.push(format!("new players {}", added.join(", ")));
    }
    (!parts.is_empty()).then(|| format!("extending the league: {}", parts.join("; ")))
}

impl ResultsLog {
    /// Opens or creates the log of `tournament` at `path`, returning the
    /// games it already holds. A torn last line (a write cut short) is
    /// dropped: it is not a finished game. An empty file starts afresh.
    pub fn open(path: &Path, tournament: &Tournament) -> Result<Opened, LeagueError> {
        Self::open_part(path, tournament, None)
    }

    /// [`ResultsLog::open`] for the log of one shard of the tournament
    /// (`None`: the whole of it); a log of another shard is refused.
    pub fn open_part(
        path: &Path,
        tournament: &Tournament,
        shard: Option<Shard>,
    ) -> Result<Opened, LeagueError> {
        let io = |source| LeagueError::Io {
            path: path.to_path_buf(),
            source,
        };
        let text = match std::fs::read(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(io(e)),
        };
        let mut warnings = Vec::new();
        let mut done: Vec<GameResult> = Vec::new();
        if text.iter().all(u8::is_ascii_whitespace) {
            let header = serde_json::to_string(&Header::new(tournament, shard))
                .map_err(|e| io(std::io::Error::other(e)))?;
            write_atomically(path, format!("{header}\n").as_bytes())?;
        } else {
            let foreign = |reason: String| LeagueError::ForeignLog {
                path: path.to_path_buf(),
                reason,
            };
            let complete = text.ends_with(b"\n");
            let text = String::from_utf8_lossy(&text);
            let lines: Vec<&str> = text.lines().collect();
            let header: Header = serde_json::from_str(lines[0]).map_err(|_| {
                foreign(
                    "its first line is not a darkhex league header; choose another --out".into(),
                )
            })?;
            if header.format != FileKind::LeagueLog.format() || header.version != LOG_VERSION {
                return Err(foreign(format!(
                    "it is a '{} {}' file; choose another --out",
                    header.format, header.version
                )));
            }
            if let Some(reason) = incompatibility(&header.tournament, tournament) {
                return Err(foreign(reason));
            }
            if header.shard != shard {
                let part = |s: Option<Shard>| match s {
                    Some(s) => format!("shard {s} of the league"),
                    None => "the whole league".to_string(),
                };
                return Err(foreign(format!(
                    "it holds {} and this run plays {}; give each shard an --out of its own, and join them with `darkhex league merge`",
                    part(header.shard),
                    part(shard)
                )));
            }
            let mut kept: Vec<&str> = Vec::new();
            let mut torn = false;
            let mut seen: HashMap<(String, String, u32), usize> = HashMap::new();
            for (i, line) in lines.iter().enumerate().skip(1) {
                let mut r = match serde_json::from_str::<GameResult>(line) {
                    Ok(r) => r,
                    // A torn last line: drop it.
                    Err(_) if i + 1 == lines.len() && !complete => {
                        torn = true;
                        break;
                    }
                    Err(e) => {
                        return Err(LeagueError::MalformedLog {
                            path: path.to_path_buf(),
                            line: i + 1,
                            reason: e.to_string(),
                        });
                    }
                };
                kept.push(line);
                if r.id == 0 {
                    // Logs written before games had ids: number them by line.
                    r.id = i as u64;
                }
                let key = (r.a.clone(), r.b.clone(), r.round);
                match seen.get(&key) {
                    Some(&j) if same_game(&done[j], &r) => {
                        warnings.push(format!(
                            "line {} of {} repeats game {} ({} vs {}, round {}); it is counted once",
                            i + 1,
                            path.display(),
                            done[j].id,
                            r.a,
                            r.b,
                            r.round
                        ));
                    }
                    Some(&j) => {
                        return Err(LeagueError::MalformedLog {
                            path: path.to_path_buf(),
                            line: i + 1,
                            reason: format!(
                                "it records {} vs {} round {} differently from game {}",
                                r.a, r.b, r.round, done[j].id
                            ),
                        });
                    }
                    None => {
                        seen.insert(key, done.len());
                        done.push(r);
                    }
                }
            }
            let grown = header.tournament != *tournament;
            if grown {
                warnings.extend(growth(&header.tournament, tournament));
            }
            // Rewrite the log when it grew (a new header) or has a torn tail.
            if grown || torn || !complete {
                let header = if grown {
                    serde_json::to_string(&Header::new(tournament, shard))
                        .map_err(|e| io(std::io::Error::other(e)))?
                } else {
                    lines[0].to_string()
                };
                let mut fresh = header + "\n";
                for line in kept {
                    fresh.push_str(line);
                    fresh.push('\n');
                }
                write_atomically(path, fresh.as_bytes())?;
            }
        }
        let file = OpenOptions::new().append(true).open(path).map_err(io)?;
        let next_id = done.iter().map(|r| r.id).max().unwrap_or(0) + 1;
        Ok(Opened {
            log: ResultsLog {
                path: path.to_path_buf(),
                file,
                next_id,
            },
            done,
            warnings,
        })
    }

    /// Numbers `result` and appends it with a single write of a whole line.
    pub fn append(&mut self, result: &mut GameResult) -> Result<(), LeagueError> {
        result.id = self.next_id;
        let mut line = serde_json::to_string(result).map_err(|e| LeagueError::Io {
            path: self.path.clone(),
            source: std::io::Error::other(e),
        })?;
        line.push('\n');
        self.file
            .write_all(line.as_bytes())
            .map_err(|source| LeagueError::Io {
                path: self.path.clone(),
                source,
            })?;
        self.next_id += 1;
        Ok(())
    }

    /// Writes, replacing any file at `path` at once, the log of `tournament`
    /// holding `games` in the given order.
    pub fn write_whole(
        path: &Path,
        tournament: &Tournament,
        games: &[GameResult],
    ) -> Result<(), LeagueError> {
        let io = |e: serde_json::Error| LeagueError::Io {
            path: path.to_path_buf(),
            source: std::io::Error::other(e),
        };
        let mut text = serde_json::to_string(&Header::new(tournament, None)).map_err(io)? + "\n";
        for g in games {
            text += &serde_json::to_string(g).map_err(io)?;
            text.push('\n');
        }
        write_atomically(path, text.as_bytes())?;
        Ok(())
    }

    /// The tournament and games of a log, for reading without running.
    pub fn read(path: &Path) -> Result<(Tournament, Vec<GameResult>), LeagueError> {
        let contents = Self::read_contents(path)?;
        Ok((contents.tournament, contents.games))
    }

    /// [`ResultsLog::read`], with the shard the log plays.
    pub fn read_contents(path: &Path) -> Result<LogContents, LeagueError> {
        let text = std::fs::read_to_string(path).map_err(|source| LeagueError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let mut lines = text.lines();
        let header: Header = lines
            .next()
            .and_then(|l| serde_json::from_str(l).ok())
            .filter(|h: &Header| h.format == FileKind::LeagueLog.format())
            .ok_or_else(|| LeagueError::ForeignLog {
                path: path.to_path_buf(),
                reason: "its first line is not a league header".into(),
            })?;
        let mut games = Vec::new();
        for (i, line) in lines.enumerate() {
            if let Ok(mut r) = serde_json::from_str::<GameResult>(line) {
                if r.id == 0 {
                    r.id = i as u64 + 1;
                }
                games.push(r);
            }
        }
        Ok(LogContents {
            tournament: header.tournament,
            shard: header.shard,
            games,
        })
    }
}

/// Two records of one game that agree on everything but their numbering.
fn same_game(a: &GameResult, b: &GameResult) -> bool {
    GameResult { id: 0, ..a.clone() } == GameResult { id: 0, ..b.clone() }
}
