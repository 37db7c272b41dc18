//! darkhex-players: the Player trait and every player: uniform random, trained
//! and solver-backed policies, MCTS and information-set MCTS, and humans.
//! A player sees only its own observations, never the real board of a dark game:
//! the [`referee`] hands each player its own information state and nothing else.

pub mod hex_players;
pub mod human;
pub mod induced;
pub mod network_player;
pub mod player;
pub mod policy_player;
pub mod pone_player;
pub mod random;
pub mod referee;
pub mod registry;
pub mod rollout;
pub mod sampler;
pub mod search;
pub mod search_players;

pub use human::HumanPlayer;
pub use player::{Player, PlayerError, PlayerView};
pub use random::RandomPlayer;
pub use referee::{GameRecord, play_game, play_game_from, sample_chance};
pub use registry::{PLAYER_NAMES, PlayerFactory, SpecError, prepare, prepare_in};
pub use rollout::random_playout;
