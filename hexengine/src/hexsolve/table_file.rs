//! The solver's transposition table on disk: saved when a long search
//! stops (a signal, a time limit, periodically) and loaded by the rerun,
//! which goes on from the positions already examined instead of from
//! nothing.
//!
//! Every entry is kept with its expansion (moves, fill-in, semis): an
//! expansion is the H-search of a new position, the cost of nearly all of a
//! search's time, so recomputing them would repeat most of the work.
//! Entries are facts about positions under one set of rules (a solved
//! position stays solved, an expansion is what the rules found), so a
//! table is refused for another game, board or rule set, and is good for
//! any search settings (threads, ε, focus).

use std::path::Path;
use std::sync::Arc;

use darkhex_base::files::{self, Document, Encoding, FileError, FileKind, shown};
use darkhex_base::memory::{MemoryLimit, TooLarge};
use darkhex_games::CellSet;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::dfpn::HexSolver;
use super::tt::{Bounds, Entry, Expansion, INF};

/// The version of the file's layout.
const VERSION: u32 = 1;

/// An entry: key, phi, delta, work, best move, proof set (its words), and
/// the expansion of an unsolved position. Tuples are written as arrays,
/// without the field names a struct repeats in every entry.
type SavedEntry = (u64, u32, u32, u64, u16, Vec<u64>, Option<SavedExpansion>);

/// An expansion: moves, each player's fill-in, dominated moves with their
/// dominators, semis, mirrored and dead cells, and the filled form's key
/// and orientation.
type SavedExpansion = (
    Vec<u16>,
    [Vec<u64>; 2],
    Vec<(u16, u16)>,
    Vec<Vec<u64>>,
    Vec<u64>,
    Vec<u64>,
    Option<(u64, bool)>,
);

#[derive(Serialize, Deserialize)]
pub struct SolverTable {
    format: String,
    version: u32,
    game: String,
    /// The solver's rules as `Rules`' debug form: entries found under
    /// other rules (another fill-in, no proof sets) would mislead.
    rules: String,
    rows: usize,
    cols: usize,
    entries: Vec<SavedEntry>,
}

impl Document for SolverTable {
    const KIND: FileKind = FileKind::SolverTable;
    const VERSION: u32 = VERSION;
    fn game(&self) -> &str {
        &self.game
    }
}

#[derive(Debug, Error)]
pub enum TableFileError {
    #[error(transparent)]
    File(#[from] FileError),
    #[error(transparent)]
    TooLarge(#[from] TooLarge),
    #[error(
        "{} is the solver table of {found}, not of {wanted}: what it holds is true of that game under those rules only (give another file, or the game and settings it was saved with)",
        shown(.path)
    )]
    Other {
        path: std::path::PathBuf,
        found: String,
        wanted: String,
    },
    #[error("{} is not a valid solver table: {reason}", shown(.path))]
    Invalid {
        path: std::path::PathBuf,
        reason: String,
    },
}

/// What a save or a load moved.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TableCount {
    pub positions: usize,
    pub solved: usize,
}

impl TableCount {
    fn of<const W: usize>(entries: &[Entry<W>]) -> Self {
        TableCount {
            positions: entries.len(),
            solved: entries.iter().filter(|e| e.bounds.is_solved()).count(),
        }
    }
}

/// The rules as the file keeps them.
fn rules_text(rules: &super::Rules) -> String {
    format!("{rules:?}")
}

/// The settings in which `a` and `b` differ (`name: value` parts of the
/// rules' debug forms), so that a refusal names them instead of two long
/// lists.
fn differences(a: &str, b: &str) -> (String, String) {
    let parts = |s: &str| -> Vec<String> {
        s.replace(['{', '}'], ",")
            .split(',')
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty())
            .collect()
    };
    let (pa, pb) = (parts(a), parts(b));
    let only = |x: &[String], y: &[String]| -> String {
        x.iter()
            .filter(|p| !y.contains(p))
            .cloned()
            .collect::<Vec<_>>()
            .join(", ")
    };
    (only(&pa, &pb), only(&pb, &pa))
}

fn set_words<const W: usize>(s: CellSet<W>) -> Vec<u64> {
    s.0.to_vec()
}

fn save_entry<const W: usize>(e: &Entry<W>) -> SavedEntry {
    let expansion = e.expansion.as_ref().map(|x| {
        (
            x.children.to_vec(),
            [set_words(x.fill[0]), set_words(x.fill[1])],
            x.dominated.to_vec(),
            x.semis.iter().map(|s| set_words(*s)).collect(),
            set_words(x.mirrored),
            set_words(x.dead),
            x.filled_form,
        )
    });
    (
        e.key,
        e.bounds.phi,
        e.bounds.delta,
        e.work,
        e.best,
        set_words(e.proof),
        expansion,
    )
}

/// Reads entries back, refusing any that would index past the board.
struct Reader<'a, const W: usize> {
    path: &'a Path,
    all: CellSet<W>,
    cells: usize,
}

impl<const W: usize> Reader<'_, W> {
    fn invalid(&self, reason: String) -> TableFileError {
        TableFileError::Invalid {
            path: self.path.to_path_buf(),
            reason,
        }
    }

    fn set(&self, words: &[u64]) -> Result<CellSet<W>, TableFileError> {
        let words: [u64; W] = words.try_into().map_err(|_| {
            self.invalid(format!(
                "a set of cells has {} words, not the board's {W}",
                words.len()
            ))
        })?;
        let set = CellSet(words);
        if !(set - self.all).is_empty() {
            return Err(self.invalid(format!(
                "a set of cells holds cells past the board's {}",
                self.cells
            )));
        }
        Ok(set)
    }

    fn cell(&self, c: u16) -> Result<u16, TableFileError> {
        if (c as usize) < self.cells {
            Ok(c)
        } else {
            Err(self.invalid(format!(
                "a move names cell {c}; the board has {}",
                self.cells
            )))
        }
    }

    fn entry(&self, saved: SavedEntry) -> Result<Entry<W>, TableFileError> {
        let (key, phi, delta, work, best, proof, expansion) = saved;
        if phi > INF || delta > INF {
            return Err(self.invalid(format!("bounds {phi}, {delta} are past the infinite {INF}")));
        }
        let expansion = match expansion {
            None => None,
            Some((children, fill, dominated, semis, mirrored, dead, filled_form)) => {
                let children = children
                    .into_iter()
                    .map(|c| self.cell(c))
                    .collect::<Result<_, _>>()?;
                let dominated = dominated
                    .into_iter()
                    .map(|(c, by)| Ok((self.cell(c)?, self.cell(by)?)))
                    .collect::<Result<_, TableFileError>>()?;
                let semis = semis
                    .iter()
                    .map(|s| self.set(s))
                    .collect::<Result<_, _>>()?;
                Some(Arc::new(Expansion {
                    children,
                    fill: [self.set(&fill[0])?, self.set(&fill[1])?],
                    dominated,
                    semis,
                    mirrored: self.set(&mirrored)?,
                    dead: self.set(&dead)?,
                    filled_form,
                }))
            }
        };
        Ok(Entry {
            key,
            bounds: Bounds { phi, delta },
            work,
            best: if best == u16::MAX {
                best
            } else {
                self.cell(best)?
            },
            proof: self.set(&proof)?,
            expansion,
        })
    }
}

impl<const W: usize> HexSolver<'_, W> {
    /// Writes the table to `path` atomically, for `game` (its game string).
    pub fn save_table(&self, path: &Path, game: &str) -> Result<TableCount, TableFileError> {
        let entries = self.table().entries();
        let dims = self.geometry().dims();
        let count = TableCount::of(&entries);
        let doc = SolverTable {
            format: FileKind::SolverTable.format().to_string(),
            version: VERSION,
            game: game.to_string(),
            rules: rules_text(&self.rules),
            rows: dims.rows(),
            cols: dims.cols(),
            entries: entries.iter().map(save_entry).collect(),
        };
        drop(entries);
        files::save(path, &doc, Encoding::Binary)?;
        Ok(count)
    }

    /// Loads a table saved by [`HexSolver::save_table`] for the same `game`
    /// and rules into this solver's table (which keeps what fits, by its
    /// own replacement policy). Refuses, in one line, a file of another
    /// game, board or rule set, a damaged one, and one whose reading would
    /// pass `limit`.
    pub fn load_table(
        &self,
        path: &Path,
        game: &str,
        limit: MemoryLimit,
    ) -> Result<TableCount, TableFileError> {
        let size = std::fs::metadata(path)
            .map_err(|source| FileError::Read {
                path: path.to_path_buf(),
                source,
            })?
            .len();
        // The file's bytes and its entries decoded are held at once, beside
        // the table itself (allocated as it fills, up to its size).
        let table_bytes = self.params.tt_mb as f64 * 1e6;
        limit.check(
            format!("loading the solver table {}", shown(path)),
            3.0 * size as f64 + table_bytes,
            "three times the file's size, read and decoded, and the table's size",
        )?;
        let doc: SolverTable = files::load(path)?;
        let dims = self.geometry().dims();
        let rules = rules_text(&self.rules);
        if doc.game != game || (doc.rows, doc.cols) != (dims.rows(), dims.cols()) {
            return Err(TableFileError::Other {
                path: path.to_path_buf(),
                found: format!("{} ({}x{})", doc.game, doc.rows, doc.cols),
                wanted: format!("{game} ({}x{})", dims.rows(), dims.cols()),
            });
        }
        if doc.rules != rules {
            let (found, wanted) = differences(&doc.rules, &rules);
            return Err(TableFileError::Other {
                path: path.to_path_buf(),
                found: format!("{} with rules {found}", doc.game),
                wanted: format!("{game} with rules {wanted}"),
            });
        }
        let reader = Reader::<W> {
            path,
            all: self.geometry().all(),
            cells: self.geometry().cells(),
        };
        // All read before any is stored: a bad entry leaves the table as it was.
        let entries: Vec<Entry<W>> = doc
            .entries
            .into_iter()
            .map(|saved| reader.entry(saved))
            .collect::<Result<_, _>>()?;
        let count = TableCount::of(&entries);
        for entry in entries {
            self.table().store(entry);
        }
        Ok(count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_names_the_rules_that_differ() {
        let a = "Rules { misere: false, fill_in: true, rex: RexRules { pairings: true } }";
        let b = "Rules { misere: false, fill_in: false, rex: RexRules { pairings: true } }";
        assert_eq!(
            differences(a, b),
            ("fill_in: true".to_string(), "fill_in: false".to_string())
        );
    }
}
