//! The actor-critic network of PPO and MMD, as the benchmark of Rudolph et
//! al. builds it (after CleanRL): two towers of tanh layers on the
//! information-state tensor, the actor's giving one logit per action of
//! the game, the critic's one value (player 0's expected return: the
//! trainers play both seats with one network). Weights start orthogonal,
//! scaled by √2 in the hidden layers, 0.01 in the actor's last layer (a
//! near-uniform first policy) and 1 in the critic's; biases start at 0.
//!
//! Each tower is a [`Mlp`] of [`Activation::Tanh`]: the model file and
//! every reader of it run the actor as they run Deep CFR's networks.

use candle_core::{Tensor, Var};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::fa::mlp::{Activation, MAX_HIDDEN, Mlp, MlpParams, MlpSettings};
use crate::fa::regress::RegressError;

/// The benchmark's towers: three hidden layers of 512.
pub const BENCHMARK_HIDDEN: [u32; MAX_HIDDEN] = [512, 512, 512, 0];

/// The two towers.
pub struct ActorCritic {
    pub actor: Mlp,
    pub critic: Mlp,
}

/// The settings a tower is built with: its shape and seed. (`steps`,
/// `batch` and `learning_rate` describe a regressor's fit, which these
/// networks do not use; the trainer fills them with its own for the file.)
pub fn tower_settings(hidden: [u32; MAX_HIDDEN], seed: u64) -> MlpSettings {
    MlpSettings {
        hidden,
        activation: Activation::Tanh,
        ..MlpSettings::new(seed)
    }
}

impl ActorCritic {
    /// Towers of `hidden` widths on `inputs` features, for `actions`
    /// actions, their weights drawn from `seed` (the actor's on stream 0,
    /// the critic's on stream 1).
    pub fn new(
        settings: MlpSettings,
        inputs: usize,
        actions: usize,
    ) -> Result<ActorCritic, RegressError> {
        let actor = orthogonal_params(&settings, inputs, actions, 0.01, 0);
        let critic = orthogonal_params(&settings, inputs, 1, 1.0, 1);
        Self::with_params(settings, inputs, actor, critic)
    }

    /// Towers with saved weights.
    pub fn with_params(
        settings: MlpSettings,
        inputs: usize,
        actor: MlpParams,
        critic: MlpParams,
    ) -> Result<ActorCritic, RegressError> {
        Ok(ActorCritic {
            actor: Mlp::with_params(settings, inputs, actor)?,
            critic: Mlp::with_params(settings, inputs, critic)?,
        })
    }

    /// The actor's then the critic's weights and biases, layer by layer:
    /// the order of the optimiser's moments.
    pub fn vars(&self) -> Vec<Var> {
        self.actor
            .vars()
            .chain(self.critic.vars())
            .cloned()
            .collect()
    }

    /// The logits `[rows, actions]` and values `[rows]` of the rows of `x`.
    pub fn forward(&self, x: &Tensor) -> candle_core::Result<(Tensor, Tensor)> {
        let logits = self.actor.forward(x)?;
        let values = self.critic.forward(x)?.squeeze(1)?;
        Ok((logits, values))
    }

    /// The logits (`rows` rows of one per action) and values of `rows`
    /// rows of `x`, as [`ActorCritic::forward`] computes them, without
    /// candle's graph, on `threads` threads (see [`Mlp::forward_rows`]).
    pub fn forward_rows(
        &self,
        x: &[f32],
        rows: usize,
        threads: usize,
    ) -> Result<(Vec<f32>, Vec<f32>), RegressError> {
        Ok((
            self.actor.forward_rows(x, rows, threads)?,
            self.critic.forward_rows(x, rows, threads)?,
        ))
    }

    /// Records the current weights as each tower's saved ones.
    pub fn keep_params(&mut self) -> Result<(), RegressError> {
        self.actor.keep_params()?;
        self.critic.keep_params()
    }
}

/// A tower's initial weights (layout of [`MlpParams`]): each weight matrix
/// orthogonal (see [`orthogonal`]) times √2, the last one times `gain`,
/// biases zero.
fn orthogonal_params(
    settings: &MlpSettings,
    inputs: usize,
    outputs: usize,
    gain: f64,
    stream: u64,
) -> MlpParams {
    let mut rng = ChaCha8Rng::seed_from_u64(settings.seed);
    rng.set_stream(stream);
    let widths: Vec<usize> = settings.layers().chain([outputs]).collect();
    let mut weights = Vec::with_capacity(settings.parameters_with(inputs, outputs));
    let mut fan_in = inputs;
    for (i, &width) in widths.iter().enumerate() {
        let scale = if i + 1 == widths.len() {
            gain
        } else {
            std::f64::consts::SQRT_2
        };
        weights.extend(
            orthogonal(fan_in, width, &mut rng)
                .into_iter()
                .map(|w| (w * scale) as f32),
        );
        weights.extend(std::iter::repeat_n(0.0f32, width));
        fan_in = width;
    }
    MlpParams {
        weights,
        scale: 1.0,
        outputs,
    }
}

/// A `rows x cols` matrix, row-major, whose columns are orthonormal when
/// `rows >= cols` and whose rows are otherwise: a Gaussian matrix made
/// orthonormal along its shorter side by Gram-Schmidt, which is the Q of
/// its QR factorisation with R's diagonal positive, as PyTorch's
/// `orthogonal_` draws it.
fn orthogonal(rows: usize, cols: usize, rng: &mut ChaCha8Rng) -> Vec<f64> {
    let (long, short) = (rows.max(cols), rows.min(cols));
    // `short` vectors of length `long`, one after the other.
    let mut q: Vec<f64> = (0..long * short).map(|_| gaussian(rng)).collect();
    for j in 0..short {
        let (done, rest) = q.split_at_mut(j * long);
        let v = &mut rest[..long];
        for u in done.chunks_exact(long) {
            let dot: f64 = u.iter().zip(v.iter()).map(|(a, b)| a * b).sum();
            v.iter_mut().zip(u).for_each(|(x, &a)| *x -= dot * a);
        }
        let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        // A Gaussian vector in the span of the others has probability 0.
        let norm = if norm > 0.0 { norm } else { 1.0 };
        v.iter_mut().for_each(|x| *x /= norm);
    }
    let mut out = vec![0.0; rows * cols];
    for (j, v) in q.chunks_exact(long).enumerate() {
        for (i, &x) in v.iter().enumerate() {
            // Vector j is column j of a tall matrix, row j of a wide one.
            let at = if rows >= cols {
                i * cols + j
            } else {
                j * cols + i
            };
            out[at] = x;
        }
    }
    out
}

/// A standard normal draw (Box-Muller).
fn gaussian(rng: &mut ChaCha8Rng) -> f64 {
    let u: f64 = 1.0 - rng.random::<f64>();
    let v: f64 = rng.random();
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orthogonal_matrices_are_orthonormal_along_their_shorter_side() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for (rows, cols) in [(5, 3), (3, 5), (4, 4), (1, 6)] {
            let m = orthogonal(rows, cols, &mut rng);
            let (n, stride, step) = if rows >= cols {
                (cols, cols, 1)
            } else {
                (rows, 1, cols)
            };
            let len = rows.max(cols);
            let vector = |k: usize| -> Vec<f64> {
                (0..len)
                    .map(|i| {
                        if rows >= cols {
                            m[i * stride + k]
                        } else {
                            m[k * step + i]
                        }
                    })
                    .collect()
            };
            for a in 0..n {
                for b in 0..n {
                    let dot: f64 = vector(a).iter().zip(vector(b)).map(|(x, y)| x * y).sum();
                    let want = if a == b { 1.0 } else { 0.0 };
                    assert!((dot - want).abs() < 1e-12, "{rows}x{cols}: {a}.{b} = {dot}");
                }
            }
        }
    }
}
