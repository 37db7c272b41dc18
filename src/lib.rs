//! darkhex: Hex, Rex and Dark Hex with equilibrium solvers, players and a
//! league. This crate is the `darkhex` command and a facade over the crates
//! that do the work:
//!
//! - [`games`]: the Game/State traits, every game, game strings;
//! - [`base`]: files written atomically, shards, the memory guard;
//! - [`hexengine`]: the Hex and Rex solver, evaluations and the analyst;
//! - [`algorithms`]: CFR family, best response, LP, PONE;
//! - [`players`]: the Player trait and every player;
//! - [`league`]: tournaments and ratings.
//!
//! ```
//! use darkhex::games::{analysis, load_game};
//!
//! let game = load_game("dark_hex(num_rows=2,num_cols=2)").unwrap();
//! let stats = analysis::tree_stats(&game, &Default::default()).unwrap();
//! assert_eq!(stats.histories, 441);
//! assert!(stats.perfect_recall());
//! ```

pub use darkhex_algorithms as algorithms;
pub use darkhex_base as base;
pub use darkhex_games as games;
pub use darkhex_hexengine as hexengine;
pub use darkhex_league as league;
pub use darkhex_players as players;

/// The Rust examples of the user guide (docs/guide/library.md), compiled
/// and run as doc tests so that the guide cannot drift from the crates.
#[cfg(doctest)]
#[doc = include_str!("../docs/guide/library.md")]
pub struct GuideLibraryExamples;
