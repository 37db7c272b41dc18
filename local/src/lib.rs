//! Local Hex theory: the combinatorial value of a region of a Hex board
//! over its outcome poset, after Selinger, "On the combinatorial value of
//! Hex positions" (2022) and Demer and Selinger, "On 3-terminal positions
//! in Hex".
//!
//! - [`poset`]: outcome posets (boolean, P3, corner, fork);
//! - [`form`]: game forms in a hash-consing arena, the relations <= and ◁,
//!   monotone and passable tests;
//! - [`canonical`]: canonical forms;
//! - [`sum`]: sums G +_f H;
//! - [`region`]: Hex regions read from a text diagram, and their values;
//! - [`template`]: templates, and which probes into them are inferior;
//! - [`database`]: a database of Hex-realizable 3-terminal values;
//! - [`expansion`]: how large an expansion grows, estimated before it
//!   starts and counted while it runs;
//! - [`witness`]: positions on a small board where a probe is White's only
//!   winning move, found by the Hex solver (darkhex-hexengine).

pub mod canonical;
pub mod database;
pub mod expansion;
pub mod form;
pub mod poset;
pub mod region;
pub mod sum;
pub mod template;
pub mod witness;

pub use form::{Arena, GameId};
pub use poset::{Atom, Connection, Poset};

/// What can go wrong reading or combining local games.
#[derive(Debug, thiserror::Error)]
pub enum LocalError {
    #[error("poset: {0}")]
    Poset(String),
    #[error("game form: {0}")]
    Form(String),
    #[error("outcome map: {0}")]
    Map(String),
    #[error("region file, {0}")]
    Region(String),
    #[error("value database: {0}")]
    Database(String),
    /// An expansion stopped at its memory limit ([`expansion::Limits`]).
    #[error(
        "the expansion stopped at {positions} positions: its tables held {:.2} GB, more than the {:.2} GB allowed",
        *.bytes as f64 / 1e9,
        *.limit as f64 / 1e9
    )]
    OverLimit {
        positions: usize,
        bytes: u64,
        limit: u64,
    },
}
