//! darkhex-league: round-robin and gauntlet tournaments between players,
//! played in parallel into an append-only results log that a rerun resumes,
//! and rated with a Bradley-Terry fit on the Elo scale.
//!
//! ```no_run
//! use std::sync::atomic::AtomicBool;
//! use darkhex_league::{Tournament, run_league};
//!
//! let t = Tournament::new(
//!     "dark_hex(num_rows=3,num_cols=3)",
//!     &["random".to_string(), "ismcts(sims=500)".to_string()],
//!     20,
//!     1,
//!     None,
//! )?;
//! let run = run_league(&t, "league-out".as_ref(), &|_| {}, &AtomicBool::new(false))?;
//! println!("{}", run.report.markdown());
//! # Ok::<(), darkhex_league::LeagueError>(())
//! ```

pub mod definition;
pub mod log;
pub mod merge;
pub mod ratings;
pub mod report;
pub mod runner;

use std::path::PathBuf;

use darkhex_algorithms::files::FileError;
use darkhex_algorithms::shard::ShardError;
use darkhex_games::GameError;
use darkhex_players::{PlayerError, SpecError};
use thiserror::Error;

pub use definition::{Entry, Format, Match, Numbered, Stage, Tournament};
pub use log::{GameResult, ResultsLog};
pub use merge::{merge_shards, write_league};
pub use report::Report;
pub use runner::{LeagueRun, Progress, move_names, play_match, run_league, run_league_part};

#[derive(Debug, Error)]
pub enum LeagueError {
    #[error("tournament definition: {0}")]
    Definition(String),
    #[error(transparent)]
    Game(#[from] GameError),
    #[error("player '{name}': {source}")]
    Player {
        name: String,
        source: Box<SpecError>,
    },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    File(#[from] FileError),
    #[error("{path} cannot go on with this league: {reason}. The log was left untouched")]
    ForeignLog { path: PathBuf, reason: String },
    #[error("line {line} of {path} is damaged ({reason}); it was left untouched")]
    MalformedLog {
        path: PathBuf,
        line: usize,
        reason: String,
    },
    #[error("a game failed: {0}")]
    Play(#[from] PlayerError),
    #[error(transparent)]
    Shard(#[from] ShardError),
    #[error("{0}")]
    Merge(String),
}
