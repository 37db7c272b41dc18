//! darkhex-games: the Game and State traits and every game of darkhex: Hex and
//! Rex on any board up to 26x26, the Dark Hex variants (classic and abrupt,
//! with noise, flash and turn-count disclosure, and their misère forms),
//! phantom tic-tac-toe (classical and abrupt), and Kuhn poker, Leduc poker
//! and Liar's Dice, the reference games of the CFR literature.
//!
//! ```
//! use darkhex_games::{load_game, Game, State, Turn};
//!
//! let game = load_game("dark_hex(num_rows=2,num_cols=3,gameversion=adh)").unwrap();
//! let mut state = game.new_initial_state();
//! state.try_apply(game.parse_action("b1").unwrap()).unwrap();
//! assert_eq!(state.current_player(), Turn::Player(1));
//! // Player 1 does not see Black's stone, so b1 is still legal for them.
//! assert!(state.legal_actions().contains(&1));
//! ```

pub mod abstraction;
pub mod analysis;
pub mod board;
pub mod cellset;
pub mod dark_hex;
mod error;
mod game;
pub mod geometry;
pub mod hex;
pub mod kuhn;
pub mod leduc;
pub mod liars_dice;
pub mod moves;
pub mod phantom_ttt;
mod poker;
mod registry;
pub mod spec;
pub mod tensor;

pub use cellset::CellSet;
pub use error::{GameError, one_line};
pub use game::{Action, Game, NUM_PLAYERS, State, Token, Turn};
pub use geometry::Geometry;
pub use moves::parse_move;
pub use registry::{AnyGame, AnyState, EXAMPLE_GAME_STRINGS, GAME_NAMES, load_game};
pub use tensor::{TensorLayout, Tensors};
