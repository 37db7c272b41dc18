//! The streaming computations for a game chosen at run time: Dark Hex, Dark
//! Rex and phantom tic-tac-toe on their dedicated stream (tables built by
//! merging histories), Leduc
//! on its own, every other game through its State API (tables built by a
//! walk).

use darkhex_games::AnyGame;

use super::best_response::stream_best_responses;
use super::build_merged::build_merged;
use super::build_walk::build_by_walk;
use super::dark_hex::DarkHexStream;
use super::dark_hex_pass;
use super::error::StreamError;
use super::estimate::{EstimateOptions, estimate_tables};
use super::leduc::LeducStream;
use super::payoffs::{
    PassOptions, PlayerRegrets, SequencePayoffs, player_regrets, sequence_payoffs,
};
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

/// The stream of a game chosen at run time.
#[derive(Clone, Debug)]
pub enum AnyStream {
    DarkHex(DarkHexStream),
    Leduc(LeducStream),
    State(StateStream<AnyGame>),
}

impl AnyStream {
    pub fn new(game: &AnyGame) -> Result<AnyStream, StreamError> {
        Ok(match game {
            AnyGame::DarkHex(g) => AnyStream::DarkHex(DarkHexStream::new(g)?),
            AnyGame::PhantomTtt(g) => AnyStream::DarkHex(DarkHexStream::phantom_ttt(g)?),
            AnyGame::Leduc(_) => AnyStream::Leduc(LeducStream::new()),
            other => AnyStream::State(StateStream::new(*other)?),
        })
    }

    pub fn build_tables(&self, options: &BuildOptions) -> Result<InfoStateTables, StreamError> {
        match self {
            AnyStream::DarkHex(s) => build_merged(s, options),
            AnyStream::Leduc(s) => build_by_walk(s, options),
            AnyStream::State(s) => build_by_walk(s, options),
        }
    }

    /// See [`sequence_payoffs`].
    pub fn sequence_payoffs(
        &self,
        tables: &InfoStateTables,
        policy: &RowPolicy,
        options: &PassOptions,
    ) -> Result<SequencePayoffs, StreamError> {
        match self {
            AnyStream::DarkHex(s) => dark_hex_pass::sequence_payoffs(s, tables, policy, options),
            AnyStream::Leduc(s) => sequence_payoffs(s, tables, policy, options),
            AnyStream::State(s) => sequence_payoffs(s, tables, policy, options),
        }
    }

    /// See [`player_regrets`].
    pub fn player_regrets(
        &self,
        tables: &InfoStateTables,
        policy: &RowPolicy,
        player: usize,
        options: &PassOptions,
    ) -> Result<PlayerRegrets, StreamError> {
        match self {
            AnyStream::DarkHex(s) => {
                dark_hex_pass::player_regrets(s, tables, policy, player, options)
            }
            AnyStream::Leduc(s) => player_regrets(s, tables, policy, player, options),
            AnyStream::State(s) => player_regrets(s, tables, policy, player, options),
        }
    }

    /// Exact exploitability of `policy` by one streaming pass.
    pub fn exploitability(
        &self,
        tables: &InfoStateTables,
        policy: &RowPolicy,
        options: &PassOptions,
    ) -> Result<StreamReport, StreamError> {
        let payoffs = self.sequence_payoffs(tables, policy, options)?;
        Ok(StreamReport {
            exploitability: stream_best_responses(tables, &payoffs),
            histories: payoffs.histories,
        })
    }
}

/// Builds the tables of `game`. With a memory limit, they are estimated
/// first ([`estimate_tables`]) and refused at once when the build would
/// need more; the build itself stops too where it outgrows the limit.
pub fn build_tables(
    game: &AnyGame,
    options: &BuildOptions,
) -> Result<InfoStateTables, StreamError> {
    if let Some(limit) = options.limit {
        let e = match options.estimate {
            Some(e) => e,
            None => estimate_tables(game, &EstimateOptions::default())?,
        };
        limit.check(
            format!(
                "building the information-state tables of {game} ({})",
                e.rows_text()
            ),
            e.build_bytes(),
            &e.how(),
        )?;
    }
    AnyStream::new(game)?.build_tables(options)
}

/// Exact exploitability of `policy` by one streaming pass; `tables` come
/// from [`build_tables`] for the same game.
pub fn stream_exploitability(
    game: &AnyGame,
    tables: &InfoStateTables,
    policy: &RowPolicy,
    options: &PassOptions,
) -> Result<StreamReport, StreamError> {
    AnyStream::new(game)?.exploitability(tables, policy, options)
}
