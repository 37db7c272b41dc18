//! Search players: MCTS (UCT with random playouts) for Hex and Rex, and
//! information-set MCTS for Dark Hex, which searches from real boards
//! sampled to agree with its own observations.

use darkhex_games::dark_hex::DarkHexGame;
use darkhex_games::hex::HexGame;
use darkhex_games::{Action, Game, State};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::player::{Player, PlayerError, PlayerView};
use crate::sampler::sample_consistent;
use crate::search::{SearchConfig, search};

pub struct MctsPlayer {
    game: HexGame,
    config: SearchConfig,
    rng: ChaCha8Rng,
}

impl MctsPlayer {
    pub fn new(game: HexGame, config: SearchConfig, seed: u64) -> Self {
        MctsPlayer {
            game,
            config,
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

impl Player for MctsPlayer {
    fn name(&self) -> String {
        format!("mcts(sims={})", self.config.simulations)
    }

    fn act(&mut self, view: &PlayerView) -> Result<Action, PlayerError> {
        // In Hex the information state is the whole move sequence.
        let mut root = self.game.new_initial_state();
        for &a in view.info_key {
            root.apply(a);
        }
        Ok(search(
            self.config,
            view.legal,
            |_| Some(root.clone()),
            &mut self.rng,
        ))
    }
}

pub struct IsmctsPlayer {
    game: DarkHexGame,
    config: SearchConfig,
    rng: ChaCha8Rng,
    /// Simulations skipped because no consistent board was found.
    pub failed_samples: u64,
}

impl IsmctsPlayer {
    pub fn new(game: DarkHexGame, config: SearchConfig, seed: u64) -> Self {
        IsmctsPlayer {
            game,
            config,
            rng: ChaCha8Rng::seed_from_u64(seed),
            failed_samples: 0,
        }
    }
}

impl Player for IsmctsPlayer {
    fn name(&self) -> String {
        format!("ismcts(sims={})", self.config.simulations)
    }

    fn act(&mut self, view: &PlayerView) -> Result<Action, PlayerError> {
        let (game, seat, key) = (self.game, view.seat, view.info_key);
        let mut failed = 0;
        let action = search(
            self.config,
            view.legal,
            |rng| {
                let s = sample_consistent(&game, seat, key, rng);
                failed += u64::from(s.is_none());
                s
            },
            &mut self.rng,
        );
        self.failed_samples += failed;
        Ok(action)
    }
}
