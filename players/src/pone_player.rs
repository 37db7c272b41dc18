//! The PONE player: plays a probability-one winning move whenever its own
//! information state has one, and its fallback player otherwise.

use std::sync::Arc;

use darkhex_algorithms::pone::knowledge;
use darkhex_algorithms::pone::search::Search;
use darkhex_games::{Action, Token};

use crate::player::{Player, PlayerError, PlayerView};

pub struct PonePlayer {
    search: Arc<Search>,
    fallback: Box<dyn Player>,
    /// Decisions taken by the probability-one strategy.
    pub sure_moves: usize,
}

impl PonePlayer {
    /// `search` is for this player's seat; it may be shared by many games.
    pub fn new(search: Arc<Search>, fallback: Box<dyn Player>) -> Self {
        PonePlayer {
            search,
            fallback,
            sure_moves: 0,
        }
    }

    fn sure_move(&self, key: &[Token]) -> Option<Action> {
        let k = knowledge(&self.search.rules, key)?;
        self.search.winning_move(&k).map(|c| c as Action)
    }
}

impl Player for PonePlayer {
    fn name(&self) -> String {
        format!("pone(fallback={})", self.fallback.name())
    }

    fn act(&mut self, view: &PlayerView) -> Result<Action, PlayerError> {
        match self.sure_move(view.info_key) {
            Some(a) if view.legal.contains(&a) => {
                self.sure_moves += 1;
                Ok(a)
            }
            _ => self.fallback.act(view),
        }
    }

    fn uniform_fallbacks(&self) -> u32 {
        self.fallback.uniform_fallbacks()
    }

    fn game_over(&mut self, info_key: &[Token], returns: [f64; 2]) -> Result<(), PlayerError> {
        self.fallback.game_over(info_key, returns)
    }
}
