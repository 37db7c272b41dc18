//! The exact exploitability of a network's policy as a run trains it (or
//! of any [`BatchPolicy`]): the network evaluated on every information
//! state in batches ([`batch_policy::tree_policy`],
//! [`batch_policy::row_policy_until`]), then the
//! exact best responses, on the compiled tree where it fits and by a
//! streaming pass over the information-state tables past it (3x3 Dark
//! Hex). [`CurvePoint`]s record it against steps and wall time.

use darkhex_games::{AnyGame, with_game};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::best_response::{Exploitability, exploitability};
use crate::fa::batch_policy::{self, BatchPolicy};
use crate::fa::regress::RegressError;
use crate::stream::{AnyStream, InfoStateTables, PassOptions, StreamError, stream_exploitability};
use crate::tree::{GameTree, estimate_histories};

/// Games of this many histories or fewer are evaluated on the compiled tree.
pub const TREE_HISTORIES: f64 = 3e7;

/// Past the tree, Dark Hex boards are evaluated over their tables up to
/// this many histories (3x3 has 1.9e10 to 2.9e10; a pass over 1e12 would
/// take hours).
pub const TABLES_HISTORIES: f64 = 1e12;

/// How a game's exact evaluations can run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExactMethod {
    Tree,
    Tables,
}

/// The compiled tree for small games, the tables for the Dark Hex boards
/// the streaming passes take, nothing past them (by the estimated number of
/// histories: a caller whose tree turns out too large for its memory may
/// still try the tables).
pub fn exact_method(game: &AnyGame) -> Option<ExactMethod> {
    let histories = with_game!(game, g => estimate_histories(g, 256, 0));
    if histories <= TREE_HISTORIES {
        Some(ExactMethod::Tree)
    } else if matches!(game, AnyGame::DarkHex(_))
        && histories <= TABLES_HISTORIES
        && AnyStream::new(game).is_ok()
    {
        Some(ExactMethod::Tables)
    } else {
        None
    }
}

#[derive(Debug, Error)]
pub enum ExactError {
    #[error(transparent)]
    Network(#[from] RegressError),
    #[error(transparent)]
    Stream(#[from] StreamError),
}

/// What the exact evaluation runs on.
pub enum ExactEvaluator {
    Tree(Box<GameTree>),
    Tables(Box<InfoStateTables>),
}

impl ExactEvaluator {
    /// The exploitability of `policy` (a network, or another policy of
    /// the game the tree or tables were built from); `options` drive the
    /// streaming pass.
    pub fn evaluate<P: BatchPolicy + ?Sized>(
        &self,
        policy: &P,
        options: &PassOptions,
    ) -> Result<Exploitability, ExactError> {
        match self {
            ExactEvaluator::Tree(tree) => Ok(exploitability(
                tree,
                &batch_policy::tree_policy(policy, tree)?,
            )),
            ExactEvaluator::Tables(tables) => {
                let rows = match options.stop {
                    Some(stop) => batch_policy::row_policy_until(policy, tables, stop)?
                        .ok_or(StreamError::Stopped)?,
                    None => batch_policy::row_policy_reporting(policy, tables, &|_| {})?,
                };
                Ok(stream_exploitability(policy.game(), tables, &rows, options)?.exploitability)
            }
        }
    }

    /// How the evaluation runs, for reports.
    pub fn method(&self) -> &'static str {
        match self {
            ExactEvaluator::Tree(_) => "compiled tree",
            ExactEvaluator::Tables(_) => "streaming pass",
        }
    }
}

/// One evaluation of a run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    pub steps: u64,
    /// The run's training seconds so far (evaluations excluded), over
    /// every session of it.
    pub seconds: f64,
    pub exploitability: f64,
    pub value_p0: f64,
    /// What this evaluation took.
    pub eval_seconds: f64,
}
