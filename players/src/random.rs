//! The uniform random player.

use darkhex_games::Action;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::player::{Player, PlayerError, PlayerView};

/// Picks uniformly among the legal actions.
pub struct RandomPlayer {
    rng: ChaCha8Rng,
}

impl RandomPlayer {
    pub fn new(seed: u64) -> Self {
        RandomPlayer {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

impl Player for RandomPlayer {
    fn name(&self) -> String {
        "random".to_string()
    }

    fn act(&mut self, view: &PlayerView) -> Result<Action, PlayerError> {
        Ok(view.legal[self.rng.random_range(0..view.legal.len())])
    }
}
