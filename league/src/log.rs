//! The results log: one JSON line per finished game after a header naming
//! the tournament. Lines are appended as games finish, so a killed run loses
//! nothing it finished, and a rerun plays only what the log lacks. A log of
//! another tournament, or with a damaged line, is reported and left alone.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::LeagueError;
use crate::definition::Tournament;

pub const LOG_FORMAT: &str = "darkhex-league-log";
pub const LOG_VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Header {
    format: String,
    version: u32,
    tournament: Tournament,
}

/// One finished game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameResult {
    /// The pairing's players, by name, and the game's round in the pairing.
    pub a: String,
    pub b: String,
    pub round: u32,
    /// Who sat where.
    pub seats: [String; 2],
    pub returns: [f64; 2],
    pub moves: usize,
    pub seed: u64,
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
}

/// An open results log, appending.
pub struct ResultsLog {
    path: PathBuf,
    file: File,
}

impl ResultsLog {
    /// Opens or creates the log of `tournament` at `path`, returning the
    /// games it already holds. A torn last line (a write cut short) is
    /// dropped: it is not a finished game.
    pub fn open(
        path: &Path,
        tournament: &Tournament,
    ) -> Result<(ResultsLog, Vec<GameResult>), LeagueError> {
        let io = |source| LeagueError::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut done = Vec::new();
        if path.exists() {
            let text = std::fs::read(path).map_err(io)?;
            let complete = text.ends_with(b"\n");
            let reader = BufReader::new(&text[..]);
            let lines: Vec<String> = reader.lines().collect::<Result<_, _>>().map_err(io)?;
            let foreign = |reason: String| LeagueError::ForeignLog {
                path: path.to_path_buf(),
                reason,
            };
            let Some(first) = lines.first() else {
                return Err(foreign("it is empty, not a results log".into()));
            };
            let header: Header = serde_json::from_str(first)
                .map_err(|e| foreign(format!("its first line is not a league header ({e})")))?;
            if header.format != LOG_FORMAT || header.version != LOG_VERSION {
                return Err(foreign(format!(
                    "it is a '{} {}' file",
                    header.format, header.version
                )));
            }
            if header.tournament != *tournament {
                return Err(foreign(format!(
                    "it holds another tournament ({} with {})",
                    header.tournament.game,
                    header
                        .tournament
                        .players
                        .iter()
                        .map(|p| p.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
            let mut keep = text.len();
            for (i, line) in lines.iter().enumerate().skip(1) {
                match serde_json::from_str::<GameResult>(line) {
                    Ok(r) => done.push(r),
                    Err(_) if i + 1 == lines.len() && !complete => {
                        keep = text.len() - line.len();
                    }
                    Err(e) => {
                        return Err(LeagueError::MalformedLog {
                            path: path.to_path_buf(),
                            line: i + 1,
                            reason: e.to_string(),
                        });
                    }
                }
            }
            if keep < text.len() {
                let f = OpenOptions::new().write(true).open(path).map_err(io)?;
                f.set_len(keep as u64).map_err(io)?;
            }
        } else {
            let header = Header {
                format: LOG_FORMAT.into(),
                version: LOG_VERSION,
                tournament: tournament.clone(),
            };
            let line =
                serde_json::to_string(&header).map_err(|e| io(std::io::Error::other(e)))? + "\n";
            std::fs::write(path, line).map_err(io)?;
        }
        let file = OpenOptions::new().append(true).open(path).map_err(io)?;
        Ok((
            ResultsLog {
                path: path.to_path_buf(),
                file,
            },
            done,
        ))
    }

    /// Appends one game with a single write of a whole line.
    pub fn append(&mut self, result: &GameResult) -> Result<(), LeagueError> {
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
            })
    }
}
