//! A multilayer perceptron regressor: rectified hidden layers (tanh ones
//! for the reinforcement-learning networks, [`Activation`]), linear
//! outputs (one as a [`Regressor`]; one per action for Deep CFR, which
//! fits only the legal actions' outputs of each row), trained by Adam on
//! the mean squared error with candle's CPU tensors and autodiff.
//!
//! Deterministic by construction: the initial weights come from a seeded
//! ChaCha generator (uniform in ±1/√fan-in, as PyTorch's default), every
//! step sees the same rows in the same order (contiguous minibatches of the
//! design, starting from the first at each fit), and candle's matrix
//! products split rows and columns, never the sum, among threads, so the
//! bits do not depend on the thread count either.
//!
//! A fit starts from the previous fit's weights (RCFR's targets move a
//! little each iteration) with fresh Adam moments, so the weights and the
//! target scale ([`MlpParams`]) are all a checkpoint needs to carry on bit
//! for bit. Targets are divided by their largest magnitude before fitting
//! (cumulative regrets grow with the iterations; the network sees numbers
//! in [-1, 1]) and predictions multiplied back.

use candle_core::{Device, Tensor, Var};
use candle_nn::{AdamW, Optimizer, ParamsAdamW};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::fa::regress::{Design, RegressError, Regressor, check_targets};

/// The most hidden layers a network has.
pub const MAX_HIDDEN: usize = 4;

/// The hidden layers' nonlinearity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Activation {
    /// Rectified linear units: the regressors' and Deep CFR's.
    #[default]
    Relu,
    /// Hyperbolic tangent: the actor-critic networks of PPO and MMD, as
    /// the benchmark of Rudolph et al. builds them.
    Tanh,
}

/// The shape and training of a network.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MlpSettings {
    /// Hidden layer widths, first to last; zeros after the last.
    pub hidden: [u32; MAX_HIDDEN],
    /// Adam steps per fit.
    pub steps: u32,
    /// Rows per Adam step (all of them when there are fewer).
    pub batch: u32,
    pub learning_rate: f64,
    pub seed: u64,
    /// Files written before networks had a choice have rectified units.
    #[serde(default)]
    pub activation: Activation,
}

impl MlpSettings {
    pub const DEFAULT_HIDDEN: [u32; MAX_HIDDEN] = [64, 64, 0, 0];
    pub const DEFAULT_STEPS: u32 = 32;
    pub const DEFAULT_BATCH: u32 = 4096;
    pub const DEFAULT_LEARNING_RATE: f64 = 3e-3;

    pub fn new(seed: u64) -> MlpSettings {
        MlpSettings {
            hidden: Self::DEFAULT_HIDDEN,
            steps: Self::DEFAULT_STEPS,
            batch: Self::DEFAULT_BATCH,
            learning_rate: Self::DEFAULT_LEARNING_RATE,
            seed,
            activation: Activation::Relu,
        }
    }

    /// The hidden widths in use.
    pub fn layers(&self) -> impl Iterator<Item = usize> + '_ {
        self.hidden
            .iter()
            .take_while(|&&w| w > 0)
            .map(|&w| w as usize)
    }

    /// Hidden widths from a list such as `64,64`.
    pub fn parse_hidden(text: &str) -> Result<[u32; MAX_HIDDEN], String> {
        let widths: Vec<&str> = text.split(',').map(str::trim).collect();
        if widths.len() > MAX_HIDDEN {
            return Err(format!(
                "at most {MAX_HIDDEN} hidden layers, not {}",
                widths.len()
            ));
        }
        let mut hidden = [0; MAX_HIDDEN];
        for (h, w) in hidden.iter_mut().zip(widths) {
            *h = match w.parse::<u32>() {
                Ok(n) if (1..=4096).contains(&n) => n,
                _ => {
                    return Err(format!(
                        "a hidden layer's width is a whole number from 1 to 4096, not '{w}'"
                    ));
                }
            };
        }
        Ok(hidden)
    }

    /// Why the settings cannot train, if they cannot.
    pub fn check(&self) -> Result<(), String> {
        if self.hidden[0] == 0 {
            return Err("the network needs at least one hidden layer".into());
        }
        if self.steps == 0 || self.batch == 0 {
            return Err("the network needs at least one step and one row per step".into());
        }
        if !(self.learning_rate.is_finite() && self.learning_rate > 0.0) {
            return Err(format!(
                "the learning rate must be a finite number above zero, not {}",
                self.learning_rate
            ));
        }
        Ok(())
    }

    /// The number of weights of a network on `inputs` features with one output.
    pub fn parameters(&self, inputs: usize) -> usize {
        self.parameters_with(inputs, 1)
    }

    /// The number of weights of a network on `inputs` features with
    /// `outputs` outputs.
    pub fn parameters_with(&self, inputs: usize, outputs: usize) -> usize {
        let mut fan_in = inputs;
        let mut n = 0;
        for width in self.layers().chain([outputs]) {
            n += (fan_in + 1) * width;
            fan_in = width;
        }
        n
    }
}

/// What a checkpoint keeps of a network: its weights (each layer's
/// `[inputs, outputs]` matrix then its biases, first layer first), the
/// scale its outputs are multiplied by, and its number of outputs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MlpParams {
    pub weights: Vec<f32>,
    pub scale: f64,
    /// Files written before networks had several outputs had one.
    #[serde(default = "one_output")]
    pub outputs: usize,
}

fn one_output() -> usize {
    1
}

/// The network, fitted by [`Regressor::fit`].
pub struct Mlp {
    settings: MlpSettings,
    inputs: usize,
    outputs: usize,
    /// Each layer's weight `[inputs, outputs]` and bias `[outputs]`.
    layers: Vec<(Var, Var)>,
    scale: f64,
    /// The weights as the last fit left them, for checkpoints.
    saved: MlpParams,
    /// The design the input tensor was built from.
    input: Option<(u64, Tensor)>,
}

fn tensor_error(e: candle_core::Error) -> RegressError {
    RegressError::Tensor(e.to_string())
}

/// Runs `f` on a contiguous f32 tensor's elements where they lie (a copy
/// for any other layout).
pub(crate) fn with_values<R>(t: &Tensor, f: impl FnOnce(&[f32]) -> R) -> Result<R, RegressError> {
    let (storage, layout) = t.storage_and_layout();
    match (&*storage, layout.contiguous_offsets()) {
        (candle_core::Storage::Cpu(candle_core::CpuStorage::F32(data)), Some((start, end))) => {
            Ok(f(&data[start..end]))
        }
        _ => {
            drop(storage);
            let copy = t
                .flatten_all()
                .and_then(|t| t.to_vec1::<f32>())
                .map_err(tensor_error)?;
            Ok(f(&copy))
        }
    }
}

impl Mlp {
    /// A network on `inputs` features, its weights drawn from the
    /// settings' seed on stream `stream` (one per player).
    pub fn new(settings: MlpSettings, inputs: usize, stream: u64) -> Result<Mlp, RegressError> {
        Self::with_outputs(settings, inputs, 1, stream)
    }

    /// A network on `inputs` features with `outputs` outputs, its weights
    /// drawn as [`Mlp::new`] draws them.
    pub fn with_outputs(
        settings: MlpSettings,
        inputs: usize,
        outputs: usize,
        stream: u64,
    ) -> Result<Mlp, RegressError> {
        let mut rng = ChaCha8Rng::seed_from_u64(settings.seed);
        rng.set_stream(stream);
        let mut weights = Vec::with_capacity(settings.parameters_with(inputs, outputs));
        let mut fan_in = inputs;
        for width in settings.layers().chain([outputs]) {
            let bound = 1.0 / (fan_in.max(1) as f32).sqrt();
            weights.extend((0..(fan_in + 1) * width).map(|_| rng.random_range(-bound..bound)));
            fan_in = width;
        }
        Self::with_params(
            settings,
            inputs,
            MlpParams {
                weights,
                scale: 1.0,
                outputs,
            },
        )
    }

    /// A network with saved weights; `WrongLength` if they are not this
    /// shape's.
    pub fn with_params(
        settings: MlpSettings,
        inputs: usize,
        params: MlpParams,
    ) -> Result<Mlp, RegressError> {
        super::threads::settle();
        let outputs = params.outputs;
        let expected = settings.parameters_with(inputs, outputs);
        if outputs == 0 || params.weights.len() != expected {
            return Err(RegressError::WrongWeights {
                expected,
                found: params.weights.len(),
            });
        }
        if !params.weights.iter().all(|w| w.is_finite()) || !params.scale.is_finite() {
            return Err(RegressError::NotFinite);
        }
        let mut layers = Vec::new();
        let mut fan_in = inputs;
        let mut at = 0;
        for width in settings.layers().chain([outputs]) {
            let w = &params.weights[at..at + fan_in * width];
            let b = &params.weights[at + fan_in * width..at + (fan_in + 1) * width];
            at += (fan_in + 1) * width;
            let w = Tensor::from_slice(w, (fan_in, width), &Device::Cpu).map_err(tensor_error)?;
            let b = Tensor::from_slice(b, width, &Device::Cpu).map_err(tensor_error)?;
            layers.push((
                Var::from_tensor(&w).map_err(tensor_error)?,
                Var::from_tensor(&b).map_err(tensor_error)?,
            ));
            fan_in = width;
        }
        Ok(Mlp {
            settings,
            inputs,
            outputs,
            layers,
            scale: params.scale,
            saved: params,
            input: None,
        })
    }

    /// The weights and scale as the last fit left them.
    pub fn params(&self) -> &MlpParams {
        &self.saved
    }

    /// Each layer's weight `[inputs, outputs]` and bias, first layer
    /// first: what a trainer with its own loss differentiates.
    pub(crate) fn vars(&self) -> impl Iterator<Item = &Var> {
        self.layers.iter().flat_map(|(w, b)| [w, b])
    }

    /// Records the weights as they are now (a trainer of its own changed
    /// them) as the ones [`Mlp::params`] gives.
    pub(crate) fn keep_params(&mut self) -> Result<(), RegressError> {
        self.saved = self.read_params()?;
        Ok(())
    }

    fn read_params(&self) -> Result<MlpParams, RegressError> {
        let mut weights =
            Vec::with_capacity(self.settings.parameters_with(self.inputs, self.outputs));
        for (w, b) in &self.layers {
            for t in [w, b] {
                let values = t
                    .as_tensor()
                    .flatten_all()
                    .and_then(|t| t.to_vec1::<f32>())
                    .map_err(tensor_error)?;
                weights.extend(values);
            }
        }
        Ok(MlpParams {
            weights,
            scale: self.scale,
            outputs: self.outputs,
        })
    }

    pub fn settings(&self) -> MlpSettings {
        self.settings
    }

    pub fn inputs(&self) -> usize {
        self.inputs
    }

    pub fn outputs(&self) -> usize {
        self.outputs
    }

    /// The design's rows as an f32 tensor, built once per design.
    fn input(&mut self, design: &Design) -> Result<Tensor, RegressError> {
        if let Some((id, x)) = &self.input
            && *id == design.id()
        {
            return Ok(x.clone());
        }
        if design.columns() != self.inputs {
            return Err(RegressError::WrongWidth {
                expected: self.inputs,
                found: design.columns(),
            });
        }
        let values: Vec<f32> = design.matrix().iter().map(|&v| v as f32).collect();
        let x = Tensor::from_vec(values, (design.rows(), design.columns()), &Device::Cpu)
            .map_err(tensor_error)?;
        self.input = Some((design.id(), x.clone()));
        Ok(x)
    }

    /// The outputs for the rows of `x`, `[rows, outputs]`.
    pub(crate) fn forward(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        let mut h = x.clone();
        let last = self.layers.len() - 1;
        for (i, (w, b)) in self.layers.iter().enumerate() {
            h = h.matmul(w.as_tensor())?.broadcast_add(b.as_tensor())?;
            if i < last {
                h = match self.settings.activation {
                    Activation::Relu => h.relu()?,
                    Activation::Tanh => super::tanh::tanh(&h)?,
                };
            }
        }
        Ok(h)
    }

    /// The outputs for `rows` rows of `x` (row-major), as
    /// [`Mlp::forward`] computes them (the same products, then the biases
    /// added, then the activation), without candle's graph and on
    /// `threads` threads (1: the caller's alone): a rollout's batches are
    /// a few rows, too small to share, and on a busy machine a product
    /// split between threads waits for whichever one is descheduled.
    pub(crate) fn forward_rows(
        &self,
        x: &[f32],
        rows: usize,
        threads: usize,
    ) -> Result<Vec<f32>, RegressError> {
        if x.len() != rows * self.inputs {
            return Err(RegressError::WrongWidth {
                expected: self.inputs,
                found: x.len().checked_div(rows).unwrap_or(0),
            });
        }
        let parallelism = if threads > 1 {
            gemm::Parallelism::Rayon(threads)
        } else {
            gemm::Parallelism::None
        };
        let last = self.layers.len() - 1;
        let mut h = x.to_vec();
        let mut fan_in = self.inputs;
        for (i, (w, b)) in self.layers.iter().enumerate() {
            let width = b.as_tensor().dim(0).map_err(tensor_error)?;
            let mut out = vec![0.0f32; rows * width];
            with_values(w.as_tensor(), |w| {
                // SAFETY: `h` is rows x fan_in, `w` fan_in x width and
                // `out` rows x width, all row-major and of those lengths.
                unsafe {
                    gemm::gemm(
                        rows,
                        width,
                        fan_in,
                        out.as_mut_ptr(),
                        1,
                        width as isize,
                        false,
                        h.as_ptr(),
                        1,
                        fan_in as isize,
                        w.as_ptr(),
                        1,
                        width as isize,
                        0.0,
                        1.0,
                        false,
                        false,
                        false,
                        parallelism,
                    )
                }
            })?;
            with_values(b.as_tensor(), |b| {
                for row in out.chunks_exact_mut(width) {
                    row.iter_mut().zip(b).for_each(|(o, &bias)| *o += bias);
                }
            })?;
            if i < last {
                match self.settings.activation {
                    Activation::Relu => out.iter_mut().for_each(|o| *o = o.max(0.0)),
                    Activation::Tanh => super::tanh::tanh_in_place(&mut out),
                }
            }
            h = out;
            fan_in = width;
        }
        Ok(h)
    }

    /// Adam on the mean squared error, each row's error multiplied by its
    /// weight in `w` when there are weights, and each output's by its entry
    /// of `mask` (1 or 0) when there is a mask.
    fn train(
        &self,
        x: &Tensor,
        y: &Tensor,
        w: Option<&Tensor>,
        mask: Option<&Tensor>,
    ) -> candle_core::Result<()> {
        let vars = self
            .layers
            .iter()
            .flat_map(|(w, b)| [w.clone(), b.clone()])
            .collect();
        let mut adam = AdamW::new(
            vars,
            ParamsAdamW {
                lr: self.settings.learning_rate,
                weight_decay: 0.0,
                ..ParamsAdamW::default()
            },
        )?;
        let rows = x.dim(0)?;
        let batch = (self.settings.batch as usize).min(rows);
        let batches = rows.div_ceil(batch);
        for step in 0..self.settings.steps as usize {
            let start = (step % batches) * batch;
            let len = batch.min(rows - start);
            let rows_of = |t: &Tensor| {
                if len == rows {
                    Ok(t.clone())
                } else {
                    t.narrow(0, start, len)
                }
            };
            let (xb, yb) = (rows_of(x)?, rows_of(y)?);
            let mut squared = (self.forward(&xb)? - yb)?.sqr()?;
            if let Some(mask) = mask {
                squared = (squared * rows_of(mask)?)?;
            }
            let loss = match w {
                None => squared.mean_all()?,
                Some(w) => squared.broadcast_mul(&rows_of(w)?)?.mean_all()?,
            };
            adam.backward_step(&loss)?;
        }
        Ok(())
    }
}

impl Mlp {
    /// Fits as [`Regressor::fit`] does, each row's squared error weighted
    /// by `weights` (one a row, finite, at least zero, not all zero; Deep
    /// CFR's weight is the iteration a sample was drawn at). The weights
    /// are divided by their mean first, so that the loss keeps the scale of
    /// the unweighted one and weights all 1 are that fit to the bit.
    pub fn fit_weighted(
        &mut self,
        design: &Design,
        targets: &[f64],
        weights: &[f64],
    ) -> Result<(), RegressError> {
        let w = self.row_weights(design, weights)?;
        self.fit_with(design, targets, w.as_ref(), None)
    }

    /// Fits a network of several outputs: `targets` and `legal` hold one
    /// entry per (row, output), row-major, and only the outputs marked
    /// legal are fitted (Deep CFR's rows are information states, its
    /// outputs actions); each row's errors are weighted by `weights` as in
    /// [`Mlp::fit_weighted`].
    pub fn fit_legal(
        &mut self,
        design: &Design,
        targets: &[f64],
        legal: &[bool],
        weights: &[f64],
    ) -> Result<(), RegressError> {
        if legal.len() != targets.len() {
            return Err(RegressError::WrongLength {
                rows: targets.len(),
                targets: legal.len(),
            });
        }
        let w = self.row_weights(design, weights)?;
        let mask: Vec<f32> = legal.iter().map(|&l| f32::from(u8::from(l))).collect();
        self.fit_with(design, targets, w.as_ref(), Some(mask))
    }

    /// The weights as a column divided by their mean; none for no rows.
    fn row_weights(
        &self,
        design: &Design,
        weights: &[f64],
    ) -> Result<Option<Tensor>, RegressError> {
        if weights.len() != design.rows() {
            return Err(RegressError::WrongLength {
                rows: design.rows(),
                targets: weights.len(),
            });
        }
        if !weights.iter().all(|w| w.is_finite() && *w >= 0.0) {
            return Err(RegressError::NotFinite);
        }
        if design.rows() == 0 {
            return Ok(None);
        }
        let mean = weights.iter().sum::<f64>() / weights.len() as f64;
        if !(mean > 0.0 && mean.is_finite()) {
            return Err(RegressError::NotFinite);
        }
        let w: Vec<f32> = weights.iter().map(|&w| (w / mean) as f32).collect();
        Tensor::from_vec(w, (design.rows(), 1), &Device::Cpu)
            .map(Some)
            .map_err(tensor_error)
    }

    /// The network's outputs for each row of `x` (row-major, as many
    /// columns as the network has inputs) into `out` (row-major, as many
    /// columns as it has outputs), without a [`Design`]: for the many
    /// small batches of a traversal.
    pub fn predict_rows(&self, x: Vec<f32>, out: &mut [f64]) -> Result<(), RegressError> {
        let rows = out.len() / self.outputs;
        if self.inputs == 0
            || !out.len().is_multiple_of(self.outputs)
            || x.len() != rows * self.inputs
        {
            return Err(RegressError::WrongWidth {
                expected: self.inputs,
                found: x.len().checked_div(rows).unwrap_or(0),
            });
        }
        if out.is_empty() {
            return Ok(());
        }
        let x = Tensor::from_vec(x, (rows, self.inputs), &Device::Cpu).map_err(tensor_error)?;
        self.write_predictions(&x, out)
    }

    /// [`Mlp::predict_rows`] on the caller's thread alone, without candle's
    /// graph ([`Mlp::forward_rows`]): for traversals that run on many
    /// threads at once, each calling the network on a few rows.
    pub(crate) fn predict_here(&self, x: &[f32], out: &mut [f64]) -> Result<(), RegressError> {
        let rows = out.len() / self.outputs;
        let y = self.forward_rows(x, rows, 1)?;
        for (o, v) in out.iter_mut().zip(y) {
            *o = f64::from(v) * self.scale;
        }
        Ok(())
    }

    fn write_predictions(&self, x: &Tensor, out: &mut [f64]) -> Result<(), RegressError> {
        let y = self
            .forward(x)
            .and_then(|y| y.flatten_all())
            .and_then(|y| y.to_vec1::<f32>())
            .map_err(tensor_error)?;
        for (o, v) in out.iter_mut().zip(y) {
            *o = f64::from(v) * self.scale;
        }
        Ok(())
    }

    fn fit_with(
        &mut self,
        design: &Design,
        targets: &[f64],
        weights: Option<&Tensor>,
        mask: Option<Vec<f32>>,
    ) -> Result<(), RegressError> {
        if self.outputs == 1 {
            check_targets(design, targets)?;
        } else if targets.len() != design.rows() * self.outputs {
            return Err(RegressError::WrongLength {
                rows: design.rows() * self.outputs,
                targets: targets.len(),
            });
        } else if !targets.iter().all(|t| t.is_finite()) {
            return Err(RegressError::NotFinite);
        }
        if design.rows() == 0 {
            return Ok(());
        }
        let x = self.input(design)?;
        let shape = (design.rows(), self.outputs);
        // The scale is the fitted targets' only: an output left out must
        // not shrink the others.
        let fitted = |i: usize| mask.as_ref().is_none_or(|m| m[i] > 0.0);
        let largest = (targets.iter().enumerate())
            .filter(|&(i, _)| fitted(i))
            .fold(0.0f64, |m, (_, t)| m.max(t.abs()));
        self.scale = if largest > 0.0 { largest } else { 1.0 };
        let y: Vec<f32> = (targets.iter().enumerate())
            .map(|(i, &t)| {
                if fitted(i) {
                    (t / self.scale) as f32
                } else {
                    0.0
                }
            })
            .collect();
        let y = Tensor::from_vec(y, shape, &Device::Cpu).map_err(tensor_error)?;
        let mask = mask
            .map(|m| Tensor::from_vec(m, shape, &Device::Cpu))
            .transpose()
            .map_err(tensor_error)?;
        self.train(&x, &y, weights, mask.as_ref())
            .map_err(tensor_error)?;
        self.saved = self.read_params()?;
        if self.saved.weights.iter().all(|w| w.is_finite()) {
            Ok(())
        } else {
            Err(RegressError::NotFinite)
        }
    }
}

impl Regressor for Mlp {
    fn fit(&mut self, design: &Design, targets: &[f64]) -> Result<(), RegressError> {
        self.fit_with(design, targets, None, None)
    }

    fn predict(&mut self, design: &Design, out: &mut [f64]) -> Result<(), RegressError> {
        if design.rows() == 0 {
            return Ok(());
        }
        let x = self.input(design)?;
        self.write_predictions(&x, out)
    }
}
