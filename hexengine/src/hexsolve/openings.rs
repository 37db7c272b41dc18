//! The openings of a Hex or Rex board, and the log a run over them keeps:
//! one JSON line per solved opening after a header naming the game and the
//! shard, appended as each is solved, so a killed run resumes and the logs
//! of `--shard I/N` runs merge into the table of a run in one piece. A run
//! over the second player's replies to each opening keeps the same log,
//! one line per solved opening and reply.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use darkhex_games::board::Dims;
use darkhex_games::hex::HexGame;
use darkhex_games::{Action, Game, GameError, Geometry, State, with_cell_words};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::analyst::Budget;
use crate::hexsolve::tt::Bounds;
use crate::hexsolve::{DfpnParams, HexSolver, Outcome, Position, Progress, Rules};
use darkhex_base::files::{FileError, FileKind, write_atomically};
use darkhex_base::shard::{Shard, ShardError, check_complete};

pub const OPENINGS_LOG_VERSION: u32 = 1;

/// One cell of each pair of 180-degree images, ascending: an opening and
/// its image have the same value.
pub fn opening_cells(dims: Dims) -> Vec<usize> {
    let n = dims.cells();
    (0..n).filter(|&c| c <= n - 1 - c).collect()
}

/// The replies worth solving after `opening`: every other cell, but only
/// one of each pair of 180-degree images when the opening is its own image
/// (the centre), where a reply and its image have the same value.
pub fn reply_cells(dims: Dims, opening: usize) -> Vec<usize> {
    let n = dims.cells();
    let centre = n - 1 - opening == opening;
    (0..n)
        .filter(|&r| r != opening && (!centre || r <= n - 1 - r))
        .collect()
}

/// What a log holds: the value of each opening, or of each second-player
/// reply to each opening.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    Openings,
    Replies,
}

/// One solved opening, or one solved reply to an opening.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OpeningValue {
    /// The opening's cell name, such as `c3`.
    pub opening: String,
    /// The second player's reply, in a log of replies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply: Option<String>,
    /// Black's value of the position: after an opening White is to move,
    /// after a reply Black.
    pub black_wins: bool,
    pub seconds: f64,
    /// Positions the search expanded.
    pub expansions: u64,
}

#[derive(Debug, Error)]
pub enum OpeningsError {
    #[error(transparent)]
    File(#[from] FileError),
    #[error(transparent)]
    Shard(#[from] ShardError),
    #[error("{path} cannot go on with this run: {reason}. The log was left untouched")]
    Foreign { path: PathBuf, reason: String },
    #[error("line {line} of {path} is damaged ({reason}); it was left untouched")]
    Damaged {
        path: PathBuf,
        line: usize,
        reason: String,
    },
    #[error("{0}")]
    Merge(String),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Header {
    format: String,
    version: u32,
    game: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    shard: Option<Shard>,
    /// A log of replies; absent in a log of openings.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    replies: bool,
}

/// What a log holds.
pub struct OpeningsContents {
    pub game: String,
    pub shard: Option<Shard>,
    pub table: Table,
    /// Each solved opening (or reply) once, in the order they were solved.
    pub values: Vec<OpeningValue>,
}

/// An open log of solved openings, appending.
pub struct OpeningsLog {
    path: PathBuf,
    file: File,
}

/// Reads a log: the header, then every whole line (a torn last line, a
/// write cut short, is not a solved opening and is dropped).
fn read(path: &Path) -> Result<(OpeningsContents, bool), OpeningsError> {
    let text = darkhex_base::files::read_text(path)?;
    let foreign = |reason: &str| OpeningsError::Foreign {
        path: path.to_path_buf(),
        reason: reason.to_string(),
    };
    let mut lines = text.lines();
    let header: Header = lines
        .next()
        .and_then(|l| serde_json::from_str(l).ok())
        .ok_or_else(|| foreign("its first line is not the header of a log of openings"))?;
    if header.format != FileKind::OpeningsLog.format() || header.version != OPENINGS_LOG_VERSION {
        return Err(foreign(&format!(
            "it is a '{} {}' file",
            header.format, header.version
        )));
    }
    let lines: Vec<&str> = lines.collect();
    let mut values: Vec<OpeningValue> = Vec::new();
    let mut torn = false;
    for (i, line) in lines.iter().enumerate() {
        match serde_json::from_str::<OpeningValue>(line) {
            Ok(v) => {
                if !values
                    .iter()
                    .any(|w| w.opening == v.opening && w.reply == v.reply)
                {
                    values.push(v);
                }
            }
            Err(_) if i + 1 == lines.len() && !text.ends_with('\n') => torn = true,
            Err(e) => {
                return Err(OpeningsError::Damaged {
                    path: path.to_path_buf(),
                    line: i + 2,
                    reason: e.to_string(),
                });
            }
        }
    }
    let contents = OpeningsContents {
        game: header.game,
        shard: header.shard,
        table: if header.replies {
            Table::Replies
        } else {
            Table::Openings
        },
        values,
    };
    Ok((contents, torn))
}

impl OpeningsLog {
    /// Opens the log of `table` of `game` (its canonical string) and
    /// `shard` at `path`, creating it, and returns the values it already
    /// holds; a log of another game, shard or table is refused.
    pub fn open(
        path: &Path,
        game: &str,
        shard: Option<Shard>,
        table: Table,
    ) -> Result<(OpeningsLog, Vec<OpeningValue>), OpeningsError> {
        let header = Header {
            format: FileKind::OpeningsLog.format().to_string(),
            version: OPENINGS_LOG_VERSION,
            game: game.to_string(),
            shard,
            replies: table == Table::Replies,
        };
        let header_line = serde_json::to_string(&header).map_err(|e| FileError::Write {
            path: path.to_path_buf(),
            source: std::io::Error::other(e),
        })? + "\n";
        let done = if path.exists() {
            let (held, torn) = read(path)?;
            let foreign = |reason: String| OpeningsError::Foreign {
                path: path.to_path_buf(),
                reason,
            };
            if held.game != game {
                return Err(foreign(format!(
                    "it holds openings of {}, not {game}; choose another --out",
                    held.game
                )));
            }
            if held.table != table {
                let what = |t: Table| match t {
                    Table::Openings => "the values of openings (--openings)",
                    Table::Replies => "the values of replies to openings (--replies)",
                };
                return Err(foreign(format!(
                    "it holds {} and this run solves {}; choose another --out",
                    what(held.table),
                    what(table)
                )));
            }
            if held.shard != shard {
                let part = |s: Option<Shard>| {
                    s.map_or("all openings".to_string(), |s| format!("shard {s}"))
                };
                return Err(foreign(format!(
                    "it holds {} and this run solves {}; give each shard an --out of its own",
                    part(held.shard),
                    part(shard)
                )));
            }
            if torn {
                let mut fresh = header_line;
                for v in &held.values {
                    fresh += &serde_json::to_string(v).unwrap_or_default();
                    fresh.push('\n');
                }
                write_atomically(path, fresh.as_bytes())?;
            }
            held.values
        } else {
            write_atomically(path, header_line.as_bytes())?;
            Vec::new()
        };
        let file = OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|source| FileError::Write {
                path: path.to_path_buf(),
                source,
            })?;
        Ok((
            OpeningsLog {
                path: path.to_path_buf(),
                file,
            },
            done,
        ))
    }

    /// Appends one solved opening with a single write of a whole line.
    pub fn append(&mut self, value: &OpeningValue) -> Result<(), OpeningsError> {
        let write = |source| FileError::Write {
            path: self.path.clone(),
            source,
        };
        let mut line = serde_json::to_string(value).map_err(|e| write(std::io::Error::other(e)))?;
        line.push('\n');
        self.file.write_all(line.as_bytes()).map_err(write)?;
        Ok(())
    }
}

/// Joins the logs of every shard of one run over the openings of `dims`'s
/// board: returns the game and every opening's value, by cell. Refused: a
/// log that is not a shard's, shards of another game, shards given twice or
/// missing, and a shard lacking openings or holding another shard's.
pub fn merge_openings(
    paths: &[PathBuf],
) -> Result<(String, BTreeMap<usize, OpeningValue>), OpeningsError> {
    let mut parts = Vec::new();
    let mut values = BTreeMap::new();
    let mut first: Option<(String, PathBuf)> = None;
    for path in paths {
        let (held, _) = read(path)?;
        let name = darkhex_base::files::shown(path);
        if held.table == Table::Replies {
            return Err(OpeningsError::Merge(format!(
                "{name} is a log of replies (--replies): `darkhex solve merge` joins the logs of `--openings --shard I/N` runs"
            )));
        }
        let Some(shard) = held.shard else {
            return Err(OpeningsError::Merge(format!(
                "{name} is the log of a whole run, not of a shard: `darkhex solve merge` joins the logs of `--shard I/N` runs"
            )));
        };
        match &first {
            None => first = Some((held.game.clone(), path.clone())),
            Some((game, path0)) if *game != held.game => {
                return Err(OpeningsError::Merge(format!(
                    "{name} holds openings of {}, and {} of {game}: shards of one run solve one game",
                    held.game,
                    darkhex_base::files::shown(path0)
                )));
            }
            Some(_) => {}
        }
        let game = darkhex_games::load_game(&held.game).map_err(|e| {
            OpeningsError::Merge(format!("{name} names a game darkhex cannot load: {e}"))
        })?;
        let Some(dims) = game.dims() else {
            return Err(OpeningsError::Merge(format!(
                "{name} holds openings of {}, which has no board",
                held.game
            )));
        };
        let own: Vec<usize> = opening_cells(dims)
            .into_iter()
            .enumerate()
            .filter(|(i, _)| shard.holds(*i))
            .map(|(_, c)| c)
            .collect();
        let mut found = 0;
        for v in held.values {
            let cell = dims.parse_cell(&v.opening).ok().filter(|c| own.contains(c));
            let Some(cell) = cell else {
                return Err(OpeningsError::Merge(format!(
                    "{name} holds the opening {}, which is not one of shard {shard}",
                    v.opening
                )));
            };
            found += 1;
            values.insert(cell, v);
        }
        if found < own.len() {
            return Err(OpeningsError::Merge(format!(
                "shard {shard} ({name}) lacks {} of its {} openings: rerun its command to finish it",
                own.len() - found,
                own.len()
            )));
        }
        parts.push((shard, name));
    }
    check_complete(&parts)?;
    let (game, _) = first.ok_or(ShardError::Nothing)?;
    Ok((game, values))
}

/// The value of one position, as [`solve_positions`] found it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PositionValue {
    pub to_move: usize,
    /// The winner with best play; `None` when the time ran out or a stop
    /// came first.
    pub winner: Option<usize>,
    /// A winning move of the player to move, when they win.
    pub winning_move: Option<usize>,
    /// Positions the search expanded.
    pub expansions: u64,
    pub seconds: f64,
    /// The root's proof and disproof numbers when the search ended, for the
    /// player to move (0 and [`INF`](crate::hexsolve::tt::INF) when they win): an unfinished
    /// search's estimate of how hard each side's proof is.
    pub bounds: Bounds,
}

/// Solves each position, given as moves from the empty board (Black
/// first), as `solve --openings` solves the openings: each thread solves
/// positions of its own sharing one table, and `budget.time_limit` bounds
/// each search. `done` hears of each position as it is solved; setting
/// `stop` ends every search (the unfinished ones then have no winner).
pub fn solve_positions(
    game: &HexGame,
    positions: &[Vec<usize>],
    budget: Budget,
    stop: &AtomicBool,
    done: &(dyn Fn(usize, &PositionValue) + Sync),
) -> Result<Vec<PositionValue>, GameError> {
    for moves in positions {
        let mut state = game.new_initial_state();
        for &cell in moves {
            state.try_apply(Action::try_from(cell).unwrap_or(Action::MAX))?;
        }
    }
    Ok(with_cell_words!(game.dims().cells(), W => solve_width::<W>(
        game, positions, budget, stop, done
    )))
}

fn solve_width<const W: usize>(
    game: &HexGame,
    positions: &[Vec<usize>],
    budget: Budget,
    stop: &AtomicBool,
    done: &(dyn Fn(usize, &PositionValue) + Sync),
) -> Vec<PositionValue> {
    let Some(geom) = Geometry::<W>::new(game.dims()) else {
        return Vec::new();
    };
    let params = DfpnParams {
        threads: budget.threads.max(1),
        tt_mb: budget.tt_mb.max(1),
        time_limit: budget.time_limit,
        max_expansions: budget.max_expansions,
        ..DfpnParams::for_game(game.is_misere())
    };
    let solver = HexSolver::new(&geom, Rules::for_game(game.is_misere()), params);
    let flag = solver.stop_flag();
    let empty = Position::empty(&geom);
    let children: Vec<Position<W>> = positions
        .iter()
        .map(|moves| moves.iter().fold(empty, |p, &c| p.play(&geom, c)))
        .collect();
    let values: Mutex<Vec<PositionValue>> = Mutex::new(
        children
            .iter()
            .map(|p| PositionValue {
                to_move: p.to_move,
                winner: None,
                winning_move: None,
                expansions: 0,
                seconds: 0.0,
                bounds: Bounds::NEW,
            })
            .collect(),
    );
    // Searches report about four times a second: soon enough to pass a stop on.
    let progress = |_: usize, _: &Progress| {
        if stop.load(Ordering::Relaxed) {
            flag.store(true, Ordering::SeqCst);
        }
    };
    let finished = |i: usize, out: Outcome| {
        let mut values = values.lock().unwrap_or_else(|e| e.into_inner());
        let v = &mut values[i];
        v.winner = out.wins.map(|w| if w { v.to_move } else { 1 - v.to_move });
        v.winning_move = out.winning_move;
        v.expansions = out.stats.expansions;
        v.seconds = out.stats.seconds;
        v.bounds = out.root;
        done(i, v);
    };
    if !stop.load(Ordering::SeqCst) {
        solver.solve_each(&children, &progress, &finished);
    }
    values.into_inner().unwrap_or_else(|e| e.into_inner())
}
