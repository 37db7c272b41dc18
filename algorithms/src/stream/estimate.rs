//! What the information-state tables of a game will hold, estimated before
//! they are built, so that a build that cannot fit is refused at once with
//! the estimate instead of growing to the memory limit (or the OOM killer).
//!
//! Games whose tables are built by merging (Dark Hex, Dark Rex, phantom
//! tic-tac-toe) are estimated by Knuth's method on each player's table
//! itself: random paths from the root row, each row expanded exactly as the
//! build expands it, the counts weighted by the product of the branching
//! factors above.
//! The mean over paths is unbiased. The other games are walked history by
//! history, and a player's rows are at most the game's histories (equal
//! where every move is seen by both, as in Hex and Rex), so Knuth's
//! estimate of the histories bounds them.

use std::time::{Duration, Instant};

use darkhex_games::{Action, AnyGame, Game, NUM_PLAYERS, with_game};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::build_merged::knuth_probe;
use super::dark_hex::DarkHexStream;
use super::error::StreamError;
use super::tables::Row;
use crate::tree::estimate_histories;

/// Bytes a row holds in the built tables: its hot fields, its parent, its
/// symbol and its first slot's sequence.
const ROW_BYTES: f64 = (size_of::<Row>() + 4 + 1 + 4) as f64;

/// Bytes a row costs at the peak of a merging build (see
/// `build_merged::FOUND_ROW_BYTES`) and of a walking one (its entry in the
/// hash map of edges, its fields and its boxed list of actions).
const MERGED_BUILD_ROW_BYTES: f64 = 30.0;
pub(super) const WALK_BUILD_ROW_BYTES: f64 = 100.0;

/// How an estimate was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Knuth's estimate of each player's rows, from this many random paths
    /// per player.
    RowPaths(usize),
    /// At most the game's histories, by Knuth's estimate from this many
    /// random paths.
    Histories(usize),
}

/// The estimated size of a game's information-state tables.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TablesEstimate {
    pub rows: [f64; NUM_PLAYERS],
    /// Actions at decision rows: the unit of policy and payoff arrays.
    pub slots: [f64; NUM_PLAYERS],
    pub method: Method,
}

impl TablesEstimate {
    /// Bytes of the built tables.
    pub fn table_bytes(&self) -> f64 {
        (0..NUM_PLAYERS)
            .map(|p| self.rows[p] * ROW_BYTES + self.slots[p] * size_of::<Action>() as f64)
            .sum()
    }

    /// Bytes the build holds at its peak.
    pub fn build_bytes(&self) -> f64 {
        let per_row = match self.method {
            Method::RowPaths(_) => MERGED_BUILD_ROW_BYTES,
            Method::Histories(_) => WALK_BUILD_ROW_BYTES,
        };
        (0..NUM_PLAYERS)
            .map(|p| self.rows[p] * per_row + self.slots[p] * 2.0 * size_of::<Action>() as f64)
            .sum::<f64>()
            .max(self.table_bytes())
    }

    /// Both players' rows, for messages: "about 8.1e6 and 7.7e6 rows", or
    /// "at most 2.2e13 rows each".
    pub fn rows_text(&self) -> String {
        match self.method {
            Method::RowPaths(_) => {
                format!("about {:.1e} and {:.1e} rows", self.rows[0], self.rows[1])
            }
            Method::Histories(_) => format!("at most {:.1e} rows each", self.rows[0]),
        }
    }

    /// How it was estimated, for messages: "from 200 random paths".
    pub fn how(&self) -> String {
        match self.method {
            Method::RowPaths(n) => format!("Knuth's estimate from {n} random paths a player"),
            Method::Histories(n) => {
                format!("at most the histories, by Knuth's estimate from {n} random paths")
            }
        }
    }
}

/// How long an estimate may take and how many paths it draws.
#[derive(Clone, Copy, Debug)]
pub struct EstimateOptions {
    /// Paths per player at most.
    pub paths: usize,
    /// Paths per player at least, whatever the time.
    pub min_paths: usize,
    /// Stop drawing paths (past `min_paths`) after this long.
    pub time: Duration,
    pub seed: u64,
}

impl Default for EstimateOptions {
    fn default() -> Self {
        EstimateOptions {
            paths: 1000,
            min_paths: 16,
            time: Duration::from_secs(1),
            seed: 0,
        }
    }
}

/// At most the game's histories, by Knuth's estimate, for the games whose
/// tables are built by a walk.
fn estimate_by_histories(game: &AnyGame, options: &EstimateOptions) -> TablesEstimate {
    let paths = options.paths.max(1);
    let histories = with_game!(game, g => estimate_histories(g, paths, options.seed));
    TablesEstimate {
        rows: [histories; NUM_PLAYERS],
        // A row has at most the game's distinct actions.
        slots: [histories * game.num_distinct_actions() as f64; NUM_PLAYERS],
        method: Method::Histories(paths),
    }
}

/// Estimates the tables of `game` (see the module documentation).
pub fn estimate_tables(
    game: &AnyGame,
    options: &EstimateOptions,
) -> Result<TablesEstimate, StreamError> {
    // Not through `AnyStream`: a game's general stream walks the whole
    // tree once to learn its observations.
    let stream = &match game {
        AnyGame::DarkHex(dark) => DarkHexStream::new(dark)?,
        AnyGame::PhantomTtt(ttt) => DarkHexStream::phantom_ttt(ttt)?,
        _ => return Ok(estimate_by_histories(game, options)),
    };
    let start = Instant::now();
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    let mut rows = [0.0; NUM_PLAYERS];
    let mut slots = [0.0; NUM_PLAYERS];
    let mut paths = 0;
    while paths < options.paths.max(1)
        && (paths < options.min_paths || start.elapsed() < options.time)
    {
        for p in 0..NUM_PLAYERS {
            let mut pick = |k: usize| rng.random_range(0..k);
            knuth_probe(stream, p, &mut pick, &mut rows[p], &mut slots[p])?;
        }
        paths += 1;
    }
    let n = paths as f64;
    Ok(TablesEstimate {
        rows: rows.map(|r| r / n),
        slots: slots.map(|s| s / n),
        method: Method::RowPaths(paths),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::build_tables;
    use crate::stream::tables::BuildOptions;
    use darkhex_games::load_game;

    /// Knuth's estimate against the counts of the built tables.
    #[test]
    fn row_paths_estimate_the_rows_and_slots_of_the_tables() {
        for game in [
            "dark_hex(num_rows=2,num_cols=3)",
            "dark_hex(num_rows=3,num_cols=2,gameversion=adh)",
            "dark_hex(num_rows=2,num_cols=3,obstype=reveal-numturns)",
            "dark_hex(num_rows=2,num_cols=3,disclosure=noise)",
            "dark_rex(num_rows=3,num_cols=2,disclosure=flash)",
        ] {
            let g = load_game(game).unwrap();
            let t = build_tables(&g, &BuildOptions::default()).unwrap();
            let options = EstimateOptions {
                paths: 20_000,
                time: Duration::from_secs(60),
                ..Default::default()
            };
            let e = estimate_tables(&g, &options).unwrap();
            for p in 0..NUM_PLAYERS {
                let rows = t.player(p).num_rows() as f64;
                let slots = t.player(p).num_slots() as f64;
                assert!(
                    (e.rows[p] / rows - 1.0).abs() < 0.1,
                    "{game} player {p}: {e:?}, {rows} rows"
                );
                assert!(
                    (e.slots[p] / slots - 1.0).abs() < 0.1,
                    "{game} player {p}: {e:?}, {slots} slots"
                );
            }
        }
    }
}
