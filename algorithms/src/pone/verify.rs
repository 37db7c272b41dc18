//! An independent check of a probability-one strategy: every history of the
//! real game in which the owner follows the strategy and the opponent plays
//! anything must end in the owner's win. It uses only the game's rules and
//! the strategy file, nothing of the search.

use darkhex_games::dark_hex::DarkHexGame;
use darkhex_games::{Action, AnyGame, Game, State, Token, Turn};
use rustc_hash::FxHashMap;
use thiserror::Error;

use super::strategy::Strategy;
use crate::policy_file::same_game;

#[derive(Debug, Error, PartialEq, Eq)]
pub enum VerifyError {
    #[error("the strategy is for {file} and player {player}, not {game}")]
    WrongGame {
        file: String,
        game: String,
        player: usize,
    },
    #[error("the strategy has no move after the history {history:?}")]
    Missing { history: Vec<Action> },
    #[error("the strategy's move {action} is illegal after the history {history:?}")]
    Illegal {
        history: Vec<Action>,
        action: Action,
    },
    #[error("the owner does not win the history {history:?}")]
    Loses { history: Vec<Action> },
    #[error("more than {0} histories: the check stopped")]
    TooMany(u64),
}

/// Histories checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VerifyReport {
    pub histories: u64,
    pub terminals: u64,
}

struct Walk<'a> {
    owner: usize,
    from: &'a [Token],
    table: FxHashMap<&'a [Token], Action>,
    report: VerifyReport,
    limit: u64,
}

impl Walk<'_> {
    /// Whether the owner's information state `key` leads to or lies below
    /// the starting one.
    fn on_path(&self, key: &[Token]) -> bool {
        let n = key.len().min(self.from.len());
        key[..n] == self.from[..n]
    }

    fn visit(&mut self, state: &darkhex_games::dark_hex::DarkHexState) -> Result<(), VerifyError> {
        self.report.histories += 1;
        if self.report.histories > self.limit {
            return Err(VerifyError::TooMany(self.limit));
        }
        let history = || state.history().to_vec();
        match state.current_player() {
            Turn::Terminal => {
                self.report.terminals += 1;
                let r = state.returns();
                if r[self.owner] <= r[1 - self.owner] {
                    return Err(VerifyError::Loses { history: history() });
                }
                Ok(())
            }
            Turn::Player(p) if p == self.owner => {
                let key = state.info_key(p);
                let action = if key.len() < self.from.len() {
                    // Still on the way to the starting information state:
                    // the owner repeats the moves that led there.
                    if !self.from.starts_with(key) {
                        return Ok(());
                    }
                    self.from[key.len()] & darkhex_games::dark_hex::token::CELL_MASK
                } else if key.starts_with(self.from) {
                    *self
                        .table
                        .get(key)
                        .ok_or_else(|| VerifyError::Missing { history: history() })?
                } else {
                    return Ok(());
                };
                if state.check_action(action).is_err() {
                    if key.len() < self.from.len() {
                        return Ok(());
                    }
                    return Err(VerifyError::Illegal {
                        history: history(),
                        action,
                    });
                }
                let mut next = state.clone();
                next.apply(action);
                // Histories that leave the starting information state are not the strategy's.
                if !self.on_path(next.info_key(p)) {
                    return Ok(());
                }
                self.visit(&next)
            }
            Turn::Player(_) => {
                for a in state.legal_actions() {
                    let mut next = state.clone();
                    next.apply(a);
                    if !self.on_path(next.info_key(self.owner)) {
                        continue;
                    }
                    self.visit(&next)?;
                }
                Ok(())
            }
            Turn::Chance => unreachable!("Dark Hex has no chance"),
        }
    }
}

/// Checks `strategy` on every history of `game` that reaches its starting
/// information state, up to `limit` histories.
pub fn verify_strategy(
    game: &DarkHexGame,
    strategy: &Strategy,
    limit: u64,
) -> Result<VerifyReport, VerifyError> {
    if !same_game(&strategy.game, &AnyGame::DarkHex(*game)) || strategy.player > 1 {
        return Err(VerifyError::WrongGame {
            file: strategy.game.clone(),
            game: game.game_string(),
            player: strategy.player,
        });
    }
    let mut walk = Walk {
        owner: strategy.player,
        from: &strategy.from,
        table: strategy.table(),
        report: VerifyReport {
            histories: 0,
            terminals: 0,
        },
        limit,
    };
    walk.visit(&game.new_initial_state())?;
    Ok(walk.report)
}
