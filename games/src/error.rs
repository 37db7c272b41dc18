//! Errors for everything a user can hand to this crate: game strings, moves, sizes.

use thiserror::Error;

/// Every message is one line that names the problem and, where there is a fixed
/// set, the accepted values. What a user typed is quoted with its control
/// characters escaped, so that a line break in it cannot break the line.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GameError {
    #[error("unknown game '{}': accepted games are {accepted}", .name.escape_debug())]
    UnknownGame { name: String, accepted: String },

    #[error("'{game}' has no parameter '{}': accepted parameters are {accepted}", .param.escape_debug())]
    UnknownParameter {
        game: String,
        param: String,
        accepted: String,
    },

    #[error("parameter '{param}' of '{game}' cannot be '{}': accepted values are {accepted}", .value.escape_debug())]
    BadValue {
        game: String,
        param: String,
        value: String,
        accepted: String,
    },

    #[error("parameter '{}' is given twice in '{}'", .param.escape_debug(), .text.escape_debug())]
    DuplicateParameter { param: String, text: String },

    #[error("malformed game string '{}': {}", .text.escape_debug(), .reason.escape_debug())]
    Syntax { text: String, reason: String },

    #[error("cannot read move '{}': {expected}", .text.escape_debug())]
    BadMove { text: String, expected: String },

    #[error("move {name} is not legal here: {reason}")]
    IllegalMove { name: String, reason: String },

    #[error("the game is over: no more moves can be played")]
    GameOver,
}
