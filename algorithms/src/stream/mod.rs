//! Exact computations on games whose history tree is too large to compile:
//! information-state tables built without the tree, and passes that stream
//! over every history once, depth first, without storing any.
//!
//! - [`walkable`]: what a pass needs of a game ([`StreamGame`]): a compact
//!   node, its moves, and the observation each move shows each player as a
//!   small symbol.
//! - [`dark_hex`]: Dark Hex and Dark Rex on bit boards ([`DarkHexStream`]).
//! - [`dark_hex_pass`]: the pass below, specialised to Dark Hex.
//! - [`leduc`]: Leduc poker on a compact node ([`LeducStream`]).
//! - [`state_stream`]: any [`darkhex_games::Game`] through its `State` API
//!   ([`StateStream`]), for poker and for cross-checks on small boards.
//! - [`tables`]: each player's observation sequences numbered densely, with
//!   the child of a row under a symbol found in constant time
//!   ([`InfoStateTables`]).
//! - [`build_merged`] and [`build_walk`]: the two ways of building them.
//! - [`row_policy`]: a policy profile as flat arrays over the tables' slots.
//! - [`payoffs`]: the streaming pass: every sequence's payoff against the
//!   opponent's policy, for both players at once, in parallel.
//! - [`fixed_point`]: the exact sums that make the pass deterministic.
//! - [`best_response`]: best responses, exploitability and the policy's
//!   value from those payoffs.
//! - [`stream_cfr`]: CFR, CFR+, DCFR and predictive CFR+ over the tables,
//!   one one-sided pass per player and iteration, with arrays stored at the
//!   [`precision`] chosen; [`memory`] says what a run needs.
//! - [`estimate`]: the tables' size, estimated before they are built.
//! - [`any_game`]: the entry points for a game chosen at run time.

pub mod any_game;
pub mod best_response;
pub mod build_merged;
pub mod build_walk;
pub mod dark_hex;
pub mod dark_hex_pass;
mod error;
pub mod estimate;
pub mod fixed_point;
pub mod leduc;
pub mod memory;
pub mod payoffs;
pub mod precision;
pub(crate) mod prefetch;
pub mod row_policy;
pub mod state_stream;
pub mod stream_cfr;
pub mod tables;
pub mod walkable;

pub use any_game::{AnyStream, StreamReport, build_tables, stream_exploitability};
pub use best_response::{best_response_value, policy_value, stream_best_responses};
pub use build_merged::build_merged;
pub use build_walk::build_by_walk;
pub use dark_hex::DarkHexStream;
pub use error::StreamError;
pub use estimate::{EstimateOptions, TablesEstimate, estimate_tables};
pub use leduc::LeducStream;
pub use memory::CfrMemory;
pub use payoffs::{PassOptions, PlayerRegrets, SequencePayoffs, player_regrets, sequence_payoffs};
pub use precision::{PRECISION_NAMES, Precision, Real};
pub use row_policy::RowPolicy;
pub use state_stream::StateStream;
pub use stream_cfr::{StreamCfr, StreamCfrState};
pub use tables::BuildProgress;
pub use tables::{BuildOptions, InfoStateTables, PlayerTable};
pub use walkable::{Moves, NO_SYMBOL, PackedStream, Shown, StreamGame};
