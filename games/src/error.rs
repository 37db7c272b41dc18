//! Errors for everything a user can hand to this crate: game strings, moves, sizes.

use thiserror::Error;

/// Every message is one line that names the problem and, where there is a fixed
/// set, the accepted values.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GameError {
    #[error("unknown game '{name}': accepted games are {accepted}")]
    UnknownGame { name: String, accepted: String },

    #[error("'{game}' has no parameter '{param}': accepted parameters are {accepted}")]
    UnknownParameter {
        game: String,
        param: String,
        accepted: String,
    },

    #[error("parameter '{param}' of '{game}' cannot be '{value}': accepted values are {accepted}")]
    BadValue {
        game: String,
        param: String,
        value: String,
        accepted: String,
    },

    #[error("parameter '{param}' is given twice in '{text}'")]
    DuplicateParameter { param: String, text: String },

    #[error("malformed game string '{text}': {reason}")]
    Syntax { text: String, reason: String },

    #[error("cannot read move '{text}': {expected}")]
    BadMove { text: String, expected: String },

    #[error("move {name} is not legal here: {reason}")]
    IllegalMove { name: String, reason: String },

    #[error("the game is over: no more moves can be played")]
    GameOver,
}
