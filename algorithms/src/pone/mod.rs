//! PONE: does a player of Dark Hex (or Dark Rex) win with probability one,
//! whatever the opponent does, and with which strategy?
//!
//! A player has a probability-one win from an information state if some
//! pure strategy wins every history consistent with it, against every
//! opponent strategy. [`search`] decides this over the player's knowledge
//! states ([`knowledge`]); [`strategy`] writes the winning strategy out per
//! information state, and [`verify`] checks such a strategy against every
//! history of the real game, independently of the search.

pub mod bitboard;
pub mod knowledge;
pub mod search;
pub mod strategy;
pub mod verify;

use std::time::Instant;

use darkhex_games::dark_hex::DarkHexGame;
use darkhex_games::{Game, State, Token};
use rayon::prelude::*;
use thiserror::Error;

use knowledge::{Knowledge, Rules, knowledge_of};
use search::Search;
pub use strategy::{Strategy, extract_strategy, strategy_moves};
pub use verify::{VerifyError, verify_strategy};

#[derive(Debug, Error, PartialEq, Eq)]
pub enum PoneError {
    #[error("PONE handles boards of up to {max} cells, not {0}", max = bitboard::MAX_CELLS)]
    BoardTooLarge(usize),
    #[error("player must be 0 or 1, not {0}")]
    BadPlayer(usize),
    #[error("the information state is not one of player {player}'s in {game}")]
    BadInfoState { player: usize, game: String },
}

/// PONE's answer for one player from one information state.
#[derive(Clone, Debug)]
pub struct PoneResult {
    pub player: usize,
    /// The information state searched from.
    pub from: Vec<Token>,
    pub wins: bool,
    /// Every first move that keeps a probability-one win, ascending.
    pub winning_moves: Vec<usize>,
    /// Distinct knowledge states evaluated (a state and its rotation once).
    pub states: u64,
    pub seconds: f64,
}

/// What `player` has observed at their first turn: nothing, except that the
/// second player sees the first player's turn when turn counts are shown.
pub fn first_turn(game: &DarkHexGame, player: usize) -> Vec<Token> {
    let mut s = game.new_initial_state();
    if player == 1 {
        // Any first move of player 0 shows player 1 the same thing.
        s.apply(0);
    }
    s.info_key(player).to_vec()
}

/// Decides whether `player` wins with probability one from the information
/// state `from` (empty: their first turn), trying every first move in parallel.
pub fn solve(
    game: &DarkHexGame,
    player: usize,
    from: &[Token],
) -> Result<(PoneResult, Search), PoneError> {
    let start = Instant::now();
    if player > 1 {
        return Err(PoneError::BadPlayer(player));
    }
    let first = first_turn(game, player);
    let from = if from.is_empty() { &first[..] } else { from };
    let rules = rules_for(game, player)?;
    let bad = || PoneError::BadInfoState {
        player,
        game: game.game_string(),
    };
    let root = knowledge_of(&rules, from).ok_or_else(bad)?;
    let search = Search::new(rules.clone());
    let worlds = root.worlds(&rules);
    if worlds.sets.is_empty() {
        return Err(bad());
    }
    let free = root.free(&rules);
    let moves: Vec<usize> = (0..rules.geometry.dims.cells())
        .filter(|&c| free >> c & 1 == 1)
        .collect();
    let winning_moves: Vec<usize> = moves
        .par_iter()
        .copied()
        .filter(|&c| search.move_wins(&root, &worlds, c))
        .collect();
    let result = PoneResult {
        player,
        from: from.to_vec(),
        wins: !winning_moves.is_empty(),
        winning_moves,
        states: search.states(),
        seconds: start.elapsed().as_secs_f64(),
    };
    Ok((result, search))
}

/// The search's rules for `player` on `game`, for callers that follow a
/// strategy move by move.
pub fn rules_for(game: &DarkHexGame, player: usize) -> Result<Rules, PoneError> {
    Rules::new(game, player).ok_or(PoneError::BoardTooLarge(game.dims().cells()))
}

pub fn knowledge(rules: &Rules, key: &[Token]) -> Option<Knowledge> {
    knowledge_of(rules, key)
}
