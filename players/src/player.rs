//! The Player trait: what a player is told and what it answers.

use darkhex_games::{Action, Token};
use thiserror::Error;

/// Everything a player learns at one of its decision points: its seat, its
/// own information state (the sequence of its own observations) and the
/// legal actions, which that information state determines.
#[derive(Clone, Copy, Debug)]
pub struct PlayerView<'a> {
    pub seat: usize,
    pub info_key: &'a [Token],
    pub legal: &'a [Action],
}

#[derive(Debug, Error)]
pub enum PlayerError {
    #[error("input ended before the game did")]
    InputEnded,
    #[error("the human player quit")]
    Quit,
    #[error("reading or writing the terminal failed: {0}")]
    Io(#[from] std::io::Error),
    #[error("player {name} chose {action}, which is not among the legal actions {legal:?}")]
    IllegalChoice {
        name: String,
        action: Action,
        legal: Vec<Action>,
    },
    #[error("player {name}'s policy model failed: {reason}")]
    Model { name: String, reason: String },
}

/// A player of one seat in one game. Deterministic given its seed: the same
/// sequence of views yields the same actions.
pub trait Player: Send {
    /// A short name for logs and tables.
    fn name(&self) -> String;

    /// Picks one of `view.legal`.
    fn act(&mut self, view: &PlayerView) -> Result<Action, PlayerError>;

    /// Decisions so far at which the player had no policy for its
    /// information state and played uniformly at random (policy players).
    fn uniform_fallbacks(&self) -> u32 {
        0
    }

    /// Told once at the end with the player's final information state and returns.
    fn game_over(&mut self, _info_key: &[Token], _returns: [f64; 2]) -> Result<(), PlayerError> {
        Ok(())
    }
}
