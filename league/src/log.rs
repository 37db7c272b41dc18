//! The results log: one JSON line per finished game after a header naming
//! the tournament. Lines are appended as games finish, in the order of
//! their ids, so a killed run loses (at most) the games that finished
//! before an earlier one, a rerun plays only what the log lacks, and a run
//! interrupted and resumed leaves the same log as one that was not. Game
//! ids are fixed by pair and round (see [`Tournament::numbered_schedule`]).
//! A tournament may grow (more games per pair, more players) over an
//! existing log; the header keeps the stages it grew through, so the ids
//! given before stay. A log of a different tournament, or with a damaged
//! line, is reported with what differs and left alone.

use std::collections::{BTreeMap, HashMap};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use darkhex_algorithms::files::{FileKind, write_atomically};
use darkhex_algorithms::shard::Shard;
use serde::{Deserialize, Serialize};

use crate::LeagueError;
use crate::definition::{Numbered, Stage, Tournament};

/// Version 2 numbers games by pair and round; version 1 numbered them in
/// the order they finished, and is renumbered when a run opens it.
pub const LOG_VERSION: u32 = 2;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Header {
    format: String,
    version: u32,
    tournament: Tournament,
    /// The tournament's earlier stages, oldest first, when it grew.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    earlier: Vec<Stage>,
    /// The part of the schedule a `--shard` run plays; none for a whole league.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    shard: Option<Shard>,
    /// The files the players read (by the path their spec gives), as they
    /// were when the games were played.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    files: BTreeMap<String, FileStamp>,
}

/// A file's length and CRC-32: enough to tell a retrained policy file from
/// the one a log's games were played with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileStamp {
    pub bytes: u64,
    pub crc32: u32,
}

impl std::fmt::Display for FileStamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} bytes, CRC-32 {:08x}", self.bytes, self.crc32)
    }
}

/// The stamps of the files `tournament`'s players read. A file that cannot
/// be read is left out: preparing its player reports it.
fn file_stamps(tournament: &Tournament) -> BTreeMap<String, FileStamp> {
    let mut stamps = BTreeMap::new();
    for p in &tournament.players {
        for file in darkhex_players::registry::files_named(&p.spec) {
            if let Ok(bytes) = std::fs::read(tournament.base_dir.join(&file)) {
                let stamp = FileStamp {
                    bytes: bytes.len() as u64,
                    crc32: crc32fast::hash(&bytes),
                };
                stamps.insert(file, stamp);
            }
        }
    }
    stamps
}

/// A file whose stamp differs between two records of one league.
pub(crate) struct ChangedFile {
    /// "its player 'NAME' " for a player that reads it, else empty.
    pub who: String,
    pub file: String,
    pub was: FileStamp,
    pub is: FileStamp,
}

/// The first file both `then` and `now` stamp, differently; `None` when
/// every file both know is unchanged.
pub(crate) fn changed_file(
    then: &BTreeMap<String, FileStamp>,
    now: &BTreeMap<String, FileStamp>,
    tournament: &Tournament,
) -> Option<ChangedFile> {
    let (file, was, is) = then
        .iter()
        .find_map(|(f, was)| now.get(f).filter(|is| *is != was).map(|is| (f, was, is)))?;
    let who = tournament
        .players
        .iter()
        .find(|p| darkhex_players::registry::files_named(&p.spec).contains(file))
        .map_or_else(String::new, |p| format!("its player '{}' ", p.name));
    Some(ChangedFile {
        who,
        file: file.clone(),
        was: *was,
        is: *is,
    })
}

impl Header {
    fn new(
        tournament: &Tournament,
        earlier: Vec<Stage>,
        shard: Option<Shard>,
        files: BTreeMap<String, FileStamp>,
    ) -> Header {
        Header {
            format: FileKind::LeagueLog.format().into(),
            version: LOG_VERSION,
            tournament: tournament.clone(),
            earlier,
            shard,
            files,
        }
    }

    fn line(&self, path: &Path) -> Result<String, LeagueError> {
        serde_json::to_string(self).map_err(|e| LeagueError::Io {
            path: path.to_path_buf(),
            source: std::io::Error::other(e),
        })
    }
}

/// What a log holds: the tournament, the shard it plays (if a part), its games.
pub struct LogContents {
    pub tournament: Tournament,
    pub shard: Option<Shard>,
    pub games: Vec<GameResult>,
    /// The files its players read, as its games were played.
    pub files: BTreeMap<String, FileStamp>,
}

/// One finished game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameResult {
    /// The game's id, fixed by its pair and round (`league show ID` replays it).
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
}

/// What opening a log found.
pub struct Opened {
    pub log: ResultsLog,
    /// The finished games, each once, by id.
    pub done: Vec<GameResult>,
    /// Every game of the tournament with its id, by id.
    pub schedule: Vec<Numbered>,
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
    let kept: Vec<&str> = now
        .players
        .iter()
        .map(|q| q.name.as_str())
        .filter(|n| then.players.iter().any(|p| p.name == *n))
        .collect();
    let before: Vec<&str> = then.players.iter().map(|p| p.name.as_str()).collect();
    if kept != before {
        return Some(format!(
            "its players come in the order {}, and this run has {}: the order decides who sits first, so new players may be added anywhere but the others must keep their order; {other_out}",
            before.join(", "),
            kept.join(", ")
        ));
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
    /// games it already holds and the numbered schedule. A torn last line
    /// (a write cut short) is dropped: it is not a finished game. An empty
    /// file starts afresh. A version 1 log is renumbered by pair and round.
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
        let text = if path.exists() {
            darkhex_algorithms::files::read_bytes(path)?
        } else {
            Vec::new()
        };
        let mut warnings = Vec::new();
        // Read once: a policy file may hold hundreds of MB.
        let stamps = file_stamps(tournament);
        let mut done: Vec<GameResult> = Vec::new();
        let schedule;
        if text.iter().all(u8::is_ascii_whitespace) {
            schedule = tournament.numbered_schedule(&[]);
            write_log(
                path,
                &Header::new(tournament, Vec::new(), shard, stamps),
                &[],
            )?;
        } else {
            let foreign = |reason: String| LeagueError::ForeignLog {
                path: path.to_path_buf(),
                reason,
            };
            let malformed = |line: usize, reason: String| LeagueError::MalformedLog {
                path: path.to_path_buf(),
                line,
                reason,
            };
            let complete = text.ends_with(b"\n");
            let text = String::from_utf8_lossy(&text);
            let lines: Vec<&str> = text.lines().collect();
            let header: Header = lines
                .first()
                .and_then(|l| serde_json::from_str(l).ok())
                .ok_or_else(|| {
                    foreign(
                        "its first line is not a darkhex league header; choose another --out"
                            .into(),
                    )
                })?;
            let renumbering = header.version == 1;
            if header.format != FileKind::LeagueLog.format()
                || !(renumbering || header.version == LOG_VERSION)
            {
                return Err(foreign(format!(
                    "it is a '{} {}' file; choose another --out",
                    header.format, header.version
                )));
            }
            if let Some(reason) = incompatibility(&header.tournament, tournament) {
                return Err(foreign(reason));
            }
            if let Some(c) = changed_file(&header.files, &stamps, tournament) {
                return Err(foreign(format!(
                    "{}played with {} as {}, and it is now {}: its games were played by another policy; give the new one another name or path, or choose another --out for a new league",
                    c.who, c.file, c.was, c.is
                )));
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
            let grown = header.tournament != *tournament;
            let mut earlier = header.earlier.clone();
            if grown {
                earlier.push(header.tournament.stage());
                warnings.extend(growth(&header.tournament, tournament));
            }
            schedule = tournament.numbered_schedule(&earlier);
            let id_of: HashMap<(&str, &str, u32), u64> = schedule
                .iter()
                .map(|n| {
                    let m = &n.game;
                    let names = (
                        &*tournament.players[m.a].name,
                        &*tournament.players[m.b].name,
                    );
                    ((names.0, names.1, m.round), n.id)
                })
                .collect();
            let mut kept: Vec<&str> = Vec::new();
            let mut torn = false;
            let mut renumbered = 0;
            let mut seen: HashMap<(String, String, u32), usize> = HashMap::new();
            for (i, line) in lines.iter().enumerate().skip(1) {
                let mut r = match serde_json::from_str::<GameResult>(line) {
                    Ok(r) => r,
                    // A torn last line: drop it.
                    Err(_) if i + 1 == lines.len() && !complete => {
                        torn = true;
                        break;
                    }
                    Err(e) => return Err(malformed(i + 1, e.to_string())),
                };
                let Some(&id) = id_of.get(&r.key()) else {
                    return Err(malformed(
                        i + 1,
                        format!(
                            "it records {} vs {} round {}, which is not a game of this league",
                            r.a, r.b, r.round
                        ),
                    ));
                };
                if r.id != id {
                    if !renumbering {
                        return Err(malformed(
                            i + 1,
                            format!(
                                "it numbers {} vs {} round {} as game {} where this league's id is {id}",
                                r.a, r.b, r.round, r.id
                            ),
                        ));
                    }
                    r.id = id;
                    renumbered += 1;
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
                        return Err(malformed(
                            i + 1,
                            format!(
                                "it records {} vs {} round {} differently from game {}",
                                r.a, r.b, r.round, done[j].id
                            ),
                        ));
                    }
                    None => {
                        kept.push(line);
                        seen.insert(key, done.len());
                        done.push(r);
                    }
                }
            }
            done.sort_by_key(|r| r.id);
            if renumbered > 0 {
                warnings.push(format!(
                    "{} numbered its games in the order they finished; they are numbered by pair and round now ({renumbered} of {} ids changed: `league show` takes the new ones)",
                    path.display(),
                    done.len()
                ));
            }
            // Rewrite the log when it grew (a new header), has a torn tail
            // or is renumbered (every line again, by id).
            if grown || renumbering {
                write_log(
                    path,
                    &Header::new(tournament, earlier, shard, stamps),
                    &done,
                )?;
            } else if torn || !complete {
                let mut fresh = lines[0].to_string() + "\n";
                for line in kept {
                    fresh.push_str(line);
                    fresh.push('\n');
                }
                write_atomically(path, fresh.as_bytes())?;
            }
        }
        let file = OpenOptions::new().append(true).open(path).map_err(io)?;
        Ok(Opened {
            log: ResultsLog {
                path: path.to_path_buf(),
                file,
            },
            done,
            schedule,
            warnings,
        })
    }

    /// Appends `result` with a single write of a whole line.
    pub fn append(&mut self, result: &GameResult) -> Result<(), LeagueError> {
        let line = result_line(&self.path, result)?;
        self.file
            .write_all(line.as_bytes())
            .map_err(|source| LeagueError::Io {
                path: self.path.clone(),
                source,
            })
    }

    /// Writes, replacing any file at `path` at once, the log of `tournament`
    /// holding `games` in the given order.
    pub fn write_whole(
        path: &Path,
        tournament: &Tournament,
        games: &[GameResult],
    ) -> Result<(), LeagueError> {
        write_log(
            path,
            &Header::new(tournament, Vec::new(), None, file_stamps(tournament)),
            games,
        )
    }

    /// The tournament and games of a log, for reading without running.
    pub fn read(path: &Path) -> Result<(Tournament, Vec<GameResult>), LeagueError> {
        let contents = Self::read_contents(path)?;
        Ok((contents.tournament, contents.games))
    }

    /// [`ResultsLog::read`], with the shard the log plays.
    pub fn read_contents(path: &Path) -> Result<LogContents, LeagueError> {
        let text = darkhex_algorithms::files::read_text(path)?;
        let mut lines = text.lines();
        let header: Header = lines
            .next()
            .and_then(|l| serde_json::from_str(l).ok())
            .filter(|h: &Header| h.format == FileKind::LeagueLog.format())
            .ok_or_else(|| LeagueError::ForeignLog {
                path: path.to_path_buf(),
                reason: "its first line is not a league header".into(),
            })?;
        header
            .tournament
            .validate()
            .map_err(|e| LeagueError::ForeignLog {
                path: path.to_path_buf(),
                reason: format!("its header is not a tournament darkhex runs: {e}"),
            })?;
        // A version 1 log numbered games as they finished: read with the
        // ids a run gives them when it renumbers the log.
        let id_of: Option<HashMap<(String, String, u32), u64>> = (header.version == 1).then(|| {
            let t = &header.tournament;
            t.numbered_schedule(&header.earlier)
                .iter()
                .map(|n| {
                    let m = &n.game;
                    let key = (
                        t.players[m.a].name.clone(),
                        t.players[m.b].name.clone(),
                        m.round,
                    );
                    (key, n.id)
                })
                .collect()
        });
        let mut games = Vec::new();
        for line in lines {
            if let Ok(mut r) = serde_json::from_str::<GameResult>(line) {
                if let Some(&id) = id_of
                    .as_ref()
                    .and_then(|ids| ids.get(&(r.a.clone(), r.b.clone(), r.round)))
                {
                    r.id = id;
                }
                games.push(r);
            }
        }
        games.sort_by_key(|r| r.id);
        Ok(LogContents {
            tournament: header.tournament,
            shard: header.shard,
            games,
            files: header.files,
        })
    }
}

/// One game as a line of the log.
/// Writes, replacing any file at `path` at once, a log of `header` and
/// `games` in the given order.
fn write_log(path: &Path, header: &Header, games: &[GameResult]) -> Result<(), LeagueError> {
    let mut text = header.line(path)? + "\n";
    for g in games {
        text += &result_line(path, g)?;
    }
    write_atomically(path, text.as_bytes())?;
    Ok(())
}

fn result_line(path: &Path, result: &GameResult) -> Result<String, LeagueError> {
    let mut line = serde_json::to_string(result).map_err(|e| LeagueError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    })?;
    line.push('\n');
    Ok(line)
}

/// Two records of one game that agree on everything but their numbering.
fn same_game(a: &GameResult, b: &GameResult) -> bool {
    GameResult { id: 0, ..a.clone() } == GameResult { id: 0, ..b.clone() }
}
