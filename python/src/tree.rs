//! The compiled game tree the Python runs evaluate on.

use darkhex_algorithms::{CompileOptions, GameTree};
use darkhex_games::{AnyGame, with_game};

use crate::errors::Failure;

/// Monte Carlo runs compile the tree for exact evaluation up to this many
/// histories, as `darkhex train` does.
pub const EVAL_TREE_HISTORIES: f64 = 3e7;

pub fn compile(game: &AnyGame) -> Result<GameTree, Failure> {
    Ok(with_game!(game, g => GameTree::build(g, &CompileOptions::default()))?)
}
