use thiserror::Error;

use crate::memory::{MemoryLimit, TooLarge};

#[derive(Debug, Error, Clone, PartialEq)]
pub enum StreamError {
    #[error(
        "{game} shows {symbols} distinct observations; the tables hold at most {max} (boards of at most 20 cells)"
    )]
    TooManyObservations {
        game: String,
        symbols: usize,
        max: usize,
    },
    #[error(
        "{game} has {cells} cells; the streaming passes take Dark Hex boards of at most {max} cells"
    )]
    BoardTooLarge {
        game: String,
        cells: usize,
        max: usize,
    },
    #[error(
        "{game}: a move shows player {player} more than one observation, which the tables do not support"
    )]
    SeveralObservations { game: String, player: usize },
    #[error(
        "{game}: player {player} learns nothing of their own move, so their observations do not identify their information state"
    )]
    SilentOwnMove { game: String, player: usize },
    #[error("{game} does not have perfect recall for player {player}: {reason}")]
    NotPerfectRecall {
        game: String,
        player: usize,
        reason: String,
    },
    #[error("{game} has a move with {actions} outcomes; at most {max} are supported")]
    TooManyActions {
        game: String,
        actions: usize,
        max: usize,
    },
    #[error(
        "{game} is not zero-sum (returns {returns:?}); the streaming best response needs zero-sum games"
    )]
    NotZeroSum { game: String, returns: [f64; 2] },
    #[error("{game}: utilities up to {max_abs} are too large for the exact sums (at most 2^30)")]
    UtilityTooLarge { game: String, max_abs: f64 },
    #[error(
        "the information-state tables of {game} outgrew {} at player {player}'s observation depth {depth} ({rows} rows so far)",
        .limit.describe()
    )]
    TablesTooLarge {
        game: String,
        player: usize,
        depth: usize,
        rows: u64,
        limit: MemoryLimit,
    },
    /// Refused before the build by the estimate.
    #[error(transparent)]
    Memory(#[from] TooLarge),
    #[error("the tables were built for {tables}, not for {game}")]
    WrongTables { tables: String, game: String },
    #[error("the work was stopped before its end")]
    Stopped,
    /// RCFR over the tables: a fit between the passes failed.
    #[error(transparent)]
    Regression(#[from] crate::cfr::rcfr::RcfrError),
}
