//! Regressors from feature rows to one number (a regret), and the linear
//! least-squares one, solved with faer.
//!
//! Least squares solves the normal equations `(XᵀX + λI) w = Xᵀy` by a
//! Cholesky factorisation, run sequentially so that the result is the same
//! bits whatever the thread count. `XᵀX` and `Xᵀy` are summed exactly
//! ([`crate::stream::fixed_point`], each product rounded to a multiple of
//! 2^-96) over each row's nonzero columns: their value depends on the rows
//! alone, not on their order, so the fit on the compiled tree and the one
//! streamed over the information-state tables ([`crate::cfr::table_rcfr`]),
//! whose rows come in another order, give the same weights to the bit. With
//! one-hot features (a diagonal Gram of ones) the fit gives back every
//! target of magnitude above 2^-44 exactly: RCFR with them is CFR to the
//! bit but for regrets that small. A design is fitted many times with new
//! targets (once per RCFR iteration), so its factorisation is kept.

use std::sync::atomic::{AtomicU64, Ordering};

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::cholesky::llt::factor::{
    LltError, LltRegularization, cholesky_in_place, cholesky_in_place_scratch,
};
use faer::linalg::triangular_solve::{
    solve_lower_triangular_in_place, solve_upper_triangular_in_place,
};
use faer::{Mat, Par};

use crate::stream::fixed_point::{MAX_TERM, to_f64, to_fixed};
use ndarray::Array2;
use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq)]
pub enum RegressError {
    #[error("{targets} targets for {rows} feature rows")]
    WrongLength { rows: usize, targets: usize },
    #[error(
        "the features' Gram matrix is singular (column {column} depends on the others); fit with a ridge term (--ridge) greater than zero"
    )]
    Singular { column: usize },
    #[error("a target, feature or weight is not a finite number")]
    NotFinite,
    #[error(
        "a feature times a target reaches {0:e}, over the {MAX_TERM:e} the exact sums of least squares take"
    )]
    TooLarge(f64),
    #[error("the model takes {expected} features, not {found}")]
    WrongWidth { expected: usize, found: usize },
    #[error(
        "the saved network holds {found} weights where a network of this shape needs {expected}"
    )]
    WrongWeights { expected: usize, found: usize },
    #[error("the tensor library failed: {0}")]
    Tensor(String),
    #[error("not an information state of the game: {0}")]
    BadKey(String),
    /// A policy computed outside the library failed or answered wrongly.
    #[error("the policy function: {0}")]
    Policy(String),
}

/// Feature rows that are fitted to again and again: the contiguous matrix,
/// and each row's nonzero columns.
#[derive(Clone, Debug)]
pub struct Design {
    id: u64,
    x: Array2<f64>,
    /// Row `r`'s nonzero columns: `nonzero[row_start[r]..row_start[r + 1]]`.
    row_start: Vec<usize>,
    nonzero: Vec<u32>,
    /// The largest feature's magnitude.
    largest: f64,
}

/// Tells designs apart for the regressors' caches.
static NEXT_DESIGN: AtomicU64 = AtomicU64::new(0);

impl Design {
    /// `x` must be in standard (row-major) layout, as batches are.
    pub fn new(x: Array2<f64>) -> Design {
        let x = if x.is_standard_layout() {
            x
        } else {
            x.as_standard_layout().into_owned()
        };
        let mut row_start = Vec::with_capacity(x.nrows() + 1);
        let mut nonzero = Vec::new();
        row_start.push(0);
        for row in x.rows() {
            nonzero.extend(
                row.iter()
                    .enumerate()
                    .filter(|&(_, &v)| v != 0.0)
                    .map(|(j, _)| j as u32),
            );
            row_start.push(nonzero.len());
        }
        let largest = x.iter().fold(0.0, |m: f64, v| m.max(v.abs()));
        Design {
            id: NEXT_DESIGN.fetch_add(1, Ordering::Relaxed),
            largest,
            x,
            row_start,
            nonzero,
        }
    }

    /// Tells this design from every other one made in the process.
    pub fn id(&self) -> u64 {
        self.id
    }

    pub fn rows(&self) -> usize {
        self.x.nrows()
    }

    pub fn columns(&self) -> usize {
        self.x.ncols()
    }

    pub fn matrix(&self) -> &Array2<f64> {
        &self.x
    }

    /// Row `r`'s nonzero (column, value) pairs, ascending column.
    pub fn row(&self, r: usize) -> impl Iterator<Item = (usize, f64)> + Clone + '_ {
        let row = self.x.row(r);
        self.nonzero[self.row_start[r]..self.row_start[r + 1]]
            .iter()
            .map(move |&j| (j as usize, row[j as usize]))
    }
}

/// A model from feature rows to numbers.
pub trait Regressor: Send {
    /// Fits the model to `targets`, one per row of `design`.
    fn fit(&mut self, design: &Design, targets: &[f64]) -> Result<(), RegressError>;

    /// The model's value of each row of `design`, into `out`.
    fn predict(&mut self, design: &Design, out: &mut [f64]) -> Result<(), RegressError>;
}

/// Linear least squares with an optional ridge term: see the module notes.
#[derive(Clone, Debug)]
pub struct LeastSquares {
    ridge: f64,
    weights: Vec<f64>,
    /// The design the factor belongs to, and the lower Cholesky factor of
    /// its regularised Gram matrix.
    factor: Option<(u64, Mat<f64>)>,
}

impl LeastSquares {
    /// `ridge` (λ ≥ 0) is added to the Gram matrix's diagonal.
    pub fn new(ridge: f64) -> LeastSquares {
        LeastSquares {
            ridge,
            weights: Vec::new(),
            factor: None,
        }
    }

    pub fn weights(&self) -> &[f64] {
        &self.weights
    }

    fn factorise(&self, design: &Design) -> Result<Mat<f64>, RegressError> {
        check_term(design.largest * design.largest)?;
        let mut gram = GramSums::new(design.columns());
        for r in 0..design.rows() {
            gram.add(design.row(r));
        }
        gram.factor(self.ridge)
    }
}

/// Refuses a product too large for the exact sums.
pub(crate) fn check_term(largest: f64) -> Result<(), RegressError> {
    if !largest.is_finite() {
        return Err(RegressError::NotFinite);
    }
    if largest > MAX_TERM {
        return Err(RegressError::TooLarge(largest));
    }
    Ok(())
}

/// The exact sum of rows' outer products: the lower triangle of `XᵀX`.
pub(crate) struct GramSums {
    columns: usize,
    /// Row `i`'s columns `0..=i` at `i * (i + 1) / 2`.
    lower: Vec<i128>,
}

impl GramSums {
    pub fn new(columns: usize) -> GramSums {
        GramSums {
            columns,
            lower: vec![0; columns * (columns + 1) / 2],
        }
    }

    /// Adds a row's outer product, from its nonzero (column, value)
    /// entries in ascending column order.
    pub fn add(&mut self, row: impl Iterator<Item = (usize, f64)> + Clone) {
        for (i, xi) in row.clone() {
            let base = i * (i + 1) / 2;
            for (j, xj) in row.clone() {
                if j > i {
                    break;
                }
                self.lower[base + j] += to_fixed(xi * xj);
            }
        }
    }

    /// The lower Cholesky factor of the sum plus `ridge` I.
    pub fn factor(self, ridge: f64) -> Result<Mat<f64>, RegressError> {
        let mut gram = Mat::<f64>::zeros(self.columns, self.columns);
        for i in 0..self.columns {
            let base = i * (i + 1) / 2;
            for j in 0..=i {
                gram[(i, j)] = to_f64(self.lower[base + j]);
            }
        }
        factor_gram(gram, ridge)
    }
}

/// Adds `y` times a row to `rhs`: one row's share of `Xᵀy`, summed exactly.
pub(crate) fn add_to_rhs(rhs: &mut [i128], row: impl Iterator<Item = (usize, f64)>, y: f64) {
    for (j, x) in row {
        rhs[j] += to_fixed(x * y);
    }
}

/// A linear model's value at a row (weights past the end count as zero).
pub(crate) fn dot(weights: &[f64], row: impl Iterator<Item = (usize, f64)>) -> f64 {
    let mut v = 0.0;
    for (j, x) in row {
        v += x * weights.get(j).copied().unwrap_or(0.0);
    }
    v
}

/// The lower Cholesky factor of `gram + ridge I` (only `gram`'s lower
/// triangle is read), or which column depends on the others.
fn factor_gram(mut gram: Mat<f64>, ridge: f64) -> Result<Mat<f64>, RegressError> {
    let d = gram.nrows();
    for i in 0..d {
        gram[(i, i)] += ridge;
    }
    let largest = (0..d).map(|i| gram[(i, i)]).fold(0.0, f64::max);
    let par = Par::Seq;
    let mut mem = MemBuffer::new(cholesky_in_place_scratch::<f64>(d, par, Default::default()));
    let stack = MemStack::new(&mut mem);
    let regularisation = LltRegularization {
        dynamic_regularization_delta: 0.0,
        dynamic_regularization_epsilon: 0.0,
    };
    if let Err(LltError::NonPositivePivot { index }) = cholesky_in_place(
        gram.as_mut(),
        regularisation,
        par,
        stack,
        Default::default(),
    ) {
        return Err(RegressError::Singular { column: index });
    }
    // Rounding leaves a dependent column a tiny positive pivot rather
    // than zero: one that small is no information, only noise.
    let tiny = largest * (d as f64) * f64::EPSILON;
    match (0..d).find(|&i| gram[(i, i)] * gram[(i, i)] <= tiny) {
        Some(column) => Err(RegressError::Singular { column }),
        None => Ok(gram),
    }
}

/// The weights `w` of `(XᵀX + λI) w = Xᵀy`, from the factor `l` that
/// [`GramSums::factor`] gave and the exact sums `rhs` of `Xᵀy`.
pub(crate) fn solve_factored(l: &Mat<f64>, rhs: &[i128]) -> Result<Vec<f64>, RegressError> {
    let d = rhs.len();
    let mut b = Mat::<f64>::from_fn(d, 1, |j, _| to_f64(rhs[j]));
    // Only the lower triangle of `l` holds the factor.
    let lower = l.as_ref();
    solve_lower_triangular_in_place(lower, b.as_mut(), Par::Seq);
    solve_upper_triangular_in_place(lower.transpose(), b.as_mut(), Par::Seq);
    let weights: Vec<f64> = (0..d).map(|j| b[(j, 0)]).collect();
    if !weights.iter().all(|w| w.is_finite()) {
        return Err(RegressError::NotFinite);
    }
    Ok(weights)
}

/// The checks every regressor's `fit` makes first: one finite target a row.
pub(crate) fn check_targets(design: &Design, targets: &[f64]) -> Result<(), RegressError> {
    if targets.len() != design.rows() {
        return Err(RegressError::WrongLength {
            rows: design.rows(),
            targets: targets.len(),
        });
    }
    if !targets.iter().all(|t| t.is_finite()) {
        return Err(RegressError::NotFinite);
    }
    Ok(())
}

impl Regressor for LeastSquares {
    fn fit(&mut self, design: &Design, targets: &[f64]) -> Result<(), RegressError> {
        check_targets(design, targets)?;
        if self.factor.as_ref().map(|(id, _)| *id) != Some(design.id) {
            self.factor = Some((design.id, self.factorise(design)?));
        }
        let (_, l) = self.factor.as_ref().expect("factorised above");
        let largest = targets.iter().fold(0.0, |m: f64, y| m.max(y.abs()));
        check_term(largest * design.largest)?;
        let mut rhs = vec![0; design.columns()];
        for (r, &y) in targets.iter().enumerate() {
            add_to_rhs(&mut rhs, design.row(r), y);
        }
        self.weights = solve_factored(l, &rhs)?;
        Ok(())
    }

    fn predict(&mut self, design: &Design, out: &mut [f64]) -> Result<(), RegressError> {
        for (r, o) in out.iter_mut().enumerate().take(design.rows()) {
            *o = dot(&self.weights, design.row(r));
        }
        Ok(())
    }
}
