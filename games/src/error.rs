//! Errors for everything a user can hand to this crate: game strings, moves, sizes.

use thiserror::Error;

/// Every message is one line that names the problem and, where there is a fixed
/// set, the accepted values. What a user typed is quoted with its control
/// characters escaped, so that a line break in it cannot break the line.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GameError {
    #[error("unknown game '{}': accepted games are {accepted}", one_line(.name))]
    UnknownGame { name: String, accepted: String },

    #[error("'{game}' has no parameter '{}': accepted parameters are {accepted}", one_line(.param))]
    UnknownParameter {
        game: String,
        param: String,
        accepted: String,
    },

    #[error("parameter '{param}' of '{game}' cannot be '{}': accepted values are {accepted}", one_line(.value))]
    BadValue {
        game: String,
        param: String,
        value: String,
        accepted: String,
    },

    #[error("parameter '{}' is given twice in '{}'", one_line(.param), one_line(.text))]
    DuplicateParameter { param: String, text: String },

    #[error("malformed game string '{}': {}", one_line(.text), one_line(.reason))]
    Syntax { text: String, reason: String },

    #[error("cannot read move '{}': {expected}", one_line(.text))]
    BadMove { text: String, expected: String },

    #[error("move {name} is not legal here: {reason}")]
    IllegalMove { name: String, reason: String },

    #[error("the game is over: no more moves can be played")]
    GameOver,
}

/// `text` as quoted in a one-line message: control characters (a line
/// break above all) escaped, everything else as typed (quotes included,
/// which `escape_debug` would backslash).
pub fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}
