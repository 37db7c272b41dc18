//! A Python function as a policy: called on a batch of one player's
//! information states as a network is, with their tensors (float32, one
//! row a state, in darkhex's layout or OpenSpiel's), legal-action masks
//! (bool) and the player (the tensors do not say whose they are: both
//! players' are empty at the start), it returns each state's action
//! probabilities, so `exploitability` can
//! measure a network trained elsewhere (a torch actor on OpenSpiel's
//! tensors) by the exact evaluation darkhex's own networks get.

use std::sync::{Arc, Mutex};

use darkhex_algorithms::fa::batch_policy::{self, BatchPolicy};
use darkhex_algorithms::fa::regress::RegressError;
use darkhex_games::{Action, AnyGame, Game, TensorLayout, Token};
use numpy::{PyArray2, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::prelude::*;

use crate::vector_env::matrix;

/// How far the legal actions' probabilities may sum from 1 before the
/// answer is taken for something else (logits, say): float32 softmaxes
/// sum to within about 1e-6.
const SUM_TOLERANCE: f64 = 1e-4;

pub struct FnPolicy {
    game: AnyGame,
    layout: TensorLayout,
    width: usize,
    function: Py<PyAny>,
    /// The function's own exception, raised again once the evaluation
    /// ends (with its traceback) rather than as a message.
    raised: Arc<Mutex<Option<PyErr>>>,
}

impl FnPolicy {
    /// `function` on `game`'s tensors in `layout`; the error says why the
    /// game has no such tensor.
    pub fn new(game: AnyGame, layout: TensorLayout, function: Py<PyAny>) -> Result<Self, String> {
        let width = game.information_state_tensor_size_in(layout)?;
        Ok(FnPolicy {
            game,
            layout,
            width,
            function,
            raised: Arc::default(),
        })
    }

    /// Where the function's first exception is kept.
    pub fn raised(&self) -> Arc<Mutex<Option<PyErr>>> {
        self.raised.clone()
    }

    /// The function's answer for `states`, as float64 rows of every action.
    fn call(
        &self,
        player: usize,
        states: &[(&[Token], &[Action])],
    ) -> Result<Vec<f64>, RegressError> {
        let rows = states.len();
        let actions = self.game.num_distinct_actions();
        let mut x = vec![0.0f32; rows * self.width];
        let mut mask = vec![false; rows * actions];
        for (i, &(key, legal)) in states.iter().enumerate() {
            self.game
                .information_state_tensor_of_key_in(
                    self.layout,
                    player,
                    key,
                    &mut x[i * self.width..(i + 1) * self.width],
                )
                .map_err(RegressError::BadKey)?;
            for &a in legal {
                mask[i * actions + a as usize] = true;
            }
        }
        let answer = Python::attach(|py| -> PyResult<Option<Vec<f64>>> {
            let x = matrix(py, rows, self.width, x)?;
            let mask = matrix(py, rows, actions, mask)?;
            let answer = self.function.bind(py).call1((x, mask, player))?;
            let numpy = py.import("numpy")?;
            let probs = numpy.call_method1("asarray", (answer, "float64"))?;
            let Ok(probs) = probs.cast_into::<PyArray2<f64>>() else {
                return Ok(None);
            };
            if probs.shape() != [rows, actions] {
                return Ok(None);
            }
            Ok(Some(probs.to_vec()?))
        });
        match answer {
            Ok(Some(probs)) => Ok(probs),
            Ok(None) => Err(RegressError::Policy(format!(
                "it must return a {rows} x {actions} array of probabilities for {rows} states of {actions} actions"
            ))),
            Err(e) => {
                let message = e.to_string();
                self.raised
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner())
                    .get_or_insert(e);
                Err(RegressError::Policy(message))
            }
        }
    }
}

/// The legal actions' probabilities of each state, normalised; negative,
/// non-finite or far from summing to one is refused.
impl BatchPolicy for FnPolicy {
    fn game(&self) -> &AnyGame {
        &self.game
    }

    fn write_policies(
        &self,
        player: usize,
        states: &[(&[Token], &[Action])],
        out: &mut [f64],
    ) -> Result<(), RegressError> {
        batch_policy::check_rows(states, out)?;
        let answer = self.call(player, states)?;
        let actions = self.game.num_distinct_actions();
        let mut at = 0;
        for (i, &(key, legal)) in states.iter().enumerate() {
            let row = &answer[i * actions..(i + 1) * actions];
            let probs = &mut out[at..at + legal.len()];
            for (o, &a) in probs.iter_mut().zip(legal) {
                *o = row[a as usize];
            }
            let sum: f64 = probs.iter().sum();
            if probs.iter().any(|p| !p.is_finite() || *p < 0.0) || (sum - 1.0).abs() > SUM_TOLERANCE
            {
                return Err(RegressError::Policy(format!(
                    "player {player}'s probabilities at {} are {probs:?} on the legal actions {legal:?}, \
                     which sum to {sum}: it must return probabilities (not logits) that sum to 1 over the legal actions",
                    self.game.describe_info_state(key)
                )));
            }
            probs.iter_mut().for_each(|p| *p /= sum);
            at += legal.len();
        }
        Ok(())
    }
}
