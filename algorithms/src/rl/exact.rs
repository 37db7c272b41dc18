//! The exact exploitability of a network's policy as a run trains it: the
//! network evaluated on every information state in batches
//! ([`PolicyModel::tree_policy`], [`PolicyModel::row_policy`]), then the
//! exact best responses, on the compiled tree where it fits and by a
//! streaming pass over the information-state tables past it (3x3 Dark
//! Hex). [`CurvePoint`]s record it against steps and wall time.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::best_response::{Exploitability, exploitability};
use crate::fa::model::PolicyModel;
use crate::fa::regress::RegressError;
use crate::stream::{InfoStateTables, PassOptions, StreamError, stream_exploitability};
use crate::tree::GameTree;

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
    /// The exploitability of `model`'s policy (a model of the game the
    /// tree or tables were built from); `options` drive the streaming pass.
    pub fn evaluate(
        &self,
        model: &PolicyModel,
        options: &PassOptions,
    ) -> Result<Exploitability, ExactError> {
        match self {
            ExactEvaluator::Tree(tree) => Ok(exploitability(tree, &model.tree_policy(tree)?)),
            ExactEvaluator::Tables(tables) => {
                let policy = model.row_policy(tables)?;
                Ok(stream_exploitability(model.game(), tables, &policy, options)?.exploitability)
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
