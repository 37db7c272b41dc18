//! The streaming computations for a game chosen at run time: Dark Hex and
//! Dark Rex on their dedicated stream (tables built level by level), every
//! other game through its State API (tables built by a walk).

use darkhex_games::AnyGame;

use super::best_response::stream_best_responses;
use super::build_levels::build_by_levels;
use super::build_walk::build_by_walk;
use super::dark_hex::DarkHexStream;
use super::error::StreamError;
use super::payoffs::{PassOptions, sequence_payoffs};
use super::row_policy::RowPolicy;
use super::state_stream::StateStream;
use super::tables::{BuildOptions, InfoStateTables};
use crate::best_response::Exploitability;

/// What [`stream_exploitability`] measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StreamReport {
    pub exploitability: Exploitability,
    /// Histories the pass walked.
    pub histories: u64,
}

pub fn build_tables(
    game: &AnyGame,
    options: &BuildOptions,
) -> Result<InfoStateTables, StreamError> {
    match game {
        AnyGame::DarkHex(g) => build_by_levels(&DarkHexStream::new(g)?, options),
        other => build_by_walk(&StateStream::new(*other)?, options),
    }
}

/// Exact exploitability of `policy` by one streaming pass; `tables` come
/// from [`build_tables`] for the same game.
pub fn stream_exploitability(
    game: &AnyGame,
    tables: &InfoStateTables,
    policy: &RowPolicy,
    options: &PassOptions,
) -> Result<StreamReport, StreamError> {
    let payoffs = match game {
        AnyGame::DarkHex(g) => sequence_payoffs(&DarkHexStream::new(g)?, tables, policy, options)?,
        other => sequence_payoffs(&StateStream::new(*other)?, tables, policy, options)?,
    };
    Ok(StreamReport {
        exploitability: stream_best_responses(tables, &payoffs),
        histories: payoffs.histories,
    })
}
