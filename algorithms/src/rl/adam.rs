//! Adam (Kingma and Ba 2015) as PyTorch's `torch.optim.Adam` computes it,
//! with the gradients first clipped to a global norm as
//! `clip_grad_norm_` does: the optimiser of the benchmark's PPO and MMD.
//!
//! candle's own AdamW keeps its moments out of reach; these are plain
//! vectors, so a checkpoint holds them ([`AdamState`]) and a resumed run
//! takes the same steps. The weights' master copies live here too, and
//! each step writes them into the network's variables.
//!
//! Every element is updated on its own, and the norm is summed over
//! chunks of a fixed size in a fixed order: the bits do not depend on the
//! thread count.

use candle_core::backprop::GradStore;
use candle_core::{Tensor, Var};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::fa::mlp::with_values;
use crate::fa::regress::RegressError;

/// PyTorch's defaults, and the benchmark's epsilon.
pub const BETA1: f64 = 0.9;
pub const BETA2: f64 = 0.999;
pub const EPSILON: f64 = 1e-5;

/// Elements a task takes: the norm's partial sums are over these.
const CHUNK: usize = 1 << 14;

/// What a checkpoint keeps of the optimiser.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AdamState {
    /// Steps taken (the bias corrections' exponent).
    pub steps: u64,
    /// Each variable's first and second moments, in the variables' order.
    pub first: Vec<Vec<f32>>,
    pub second: Vec<Vec<f32>>,
}

pub struct Adam {
    vars: Vec<Var>,
    weights: Vec<Vec<f32>>,
    state: AdamState,
}

fn tensor_error(e: candle_core::Error) -> RegressError {
    RegressError::Tensor(e.to_string())
}

fn values(t: &Tensor) -> Result<Vec<f32>, RegressError> {
    t.flatten_all()
        .and_then(|t| t.to_vec1::<f32>())
        .map_err(tensor_error)
}

impl Adam {
    /// An optimiser of `vars` with zero moments.
    pub fn new(vars: Vec<Var>) -> Result<Adam, RegressError> {
        let weights = vars
            .iter()
            .map(|v| values(v.as_tensor()))
            .collect::<Result<Vec<_>, _>>()?;
        let zeros: Vec<Vec<f32>> = weights.iter().map(|w| vec![0.0; w.len()]).collect();
        Ok(Adam {
            vars,
            weights,
            state: AdamState {
                steps: 0,
                first: zeros.clone(),
                second: zeros,
            },
        })
    }

    /// An optimiser of `vars` that goes on from `state`; `None` when the
    /// moments are not the variables' sizes.
    pub fn resume(vars: Vec<Var>, state: AdamState) -> Result<Option<Adam>, RegressError> {
        let mut adam = Adam::new(vars)?;
        let sizes = |m: &[Vec<f32>]| m.iter().map(Vec::len).collect::<Vec<_>>();
        let want = sizes(&adam.state.first);
        if sizes(&state.first) != want || sizes(&state.second) != want {
            return Ok(None);
        }
        adam.state = state;
        Ok(Some(adam))
    }

    pub fn state(&self) -> &AdamState {
        &self.state
    }

    /// One step at learning rate `lr` on the gradients of `grads` (a
    /// variable without one has a zero gradient), clipped first to the
    /// global norm `max_norm`; returns the norm before clipping.
    pub fn step(&mut self, grads: &GradStore, lr: f64, max_norm: f64) -> Result<f64, RegressError> {
        let grads: Vec<Option<Tensor>> = self
            .vars
            .iter()
            .map(|v| grads.get(v).map(|g| g.contiguous()).transpose())
            .collect::<Result<_, _>>()
            .map_err(tensor_error)?;
        let mut squares = 0.0f64;
        for g in grads.iter().flatten() {
            squares += with_values(g, |g| {
                let partial: Vec<f64> = g
                    .par_chunks(CHUNK)
                    .map(|c| c.iter().map(|&x| f64::from(x) * f64::from(x)).sum::<f64>())
                    .collect();
                partial.into_iter().sum::<f64>()
            })?;
        }
        let norm = squares.sqrt();
        // clip_grad_norm_: scaled only when the norm is past the bound.
        let clip = max_norm / (norm + 1e-6);
        let factor = if clip < 1.0 { clip as f32 } else { 1.0 };
        self.state.steps += 1;
        let t = self.state.steps as f64;
        let step_size = (lr / (1.0 - BETA1.powf(t))) as f32;
        let correction2 = (1.0 - BETA2.powf(t)).sqrt() as f32;
        let coefficients = Coefficients {
            factor,
            step_size,
            correction2,
        };
        for (k, var) in self.vars.iter().enumerate() {
            let weights = &mut self.weights[k];
            let (m, v) = (&mut self.state.first[k], &mut self.state.second[k]);
            match &grads[k] {
                Some(g) => with_values(g, |g| coefficients.apply(weights, m, v, g))?,
                None => {
                    let zeros = vec![0.0; weights.len()];
                    coefficients.apply(weights, m, v, &zeros)
                }
            }
            let shaped =
                Tensor::from_slice(weights, var.shape(), var.device()).map_err(tensor_error)?;
            var.set(&shaped).map_err(tensor_error)?;
        }
        Ok(norm)
    }
}

/// One step's numbers, the same for every element.
struct Coefficients {
    /// The gradients' clipping factor.
    factor: f32,
    /// The learning rate over the first moment's bias correction.
    step_size: f32,
    /// The square root of the second moment's bias correction.
    correction2: f32,
}

impl Coefficients {
    /// Updates the moments and the weights of one variable from its
    /// gradient `g`, element by element, in chunks on rayon's threads.
    fn apply(&self, weights: &mut [f32], m: &mut [f32], v: &mut [f32], g: &[f32]) {
        let (b1, b2, eps) = (BETA1 as f32, BETA2 as f32, EPSILON as f32);
        weights
            .par_chunks_mut(CHUNK)
            .zip(m.par_chunks_mut(CHUNK))
            .zip(v.par_chunks_mut(CHUNK))
            .zip(g.par_chunks(CHUNK))
            .for_each(|(((w, m), v), g)| {
                for (((w, m), v), &g) in w.iter_mut().zip(m).zip(v).zip(g) {
                    let g = g * self.factor;
                    *m = b1 * *m + (1.0 - b1) * g;
                    *v = b2 * *v + (1.0 - b2) * g * g;
                    *w -= self.step_size * *m / (v.sqrt() / self.correction2 + eps);
                }
            });
    }
}
