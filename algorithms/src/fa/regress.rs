//! Regressors from feature rows to one number (a regret), and the linear
//! least-squares one, solved with faer.
//!
//! Least squares solves the normal equations `(XᵀX + λI) w = Xᵀy` by a
//! Cholesky factorisation, run sequentially so that the result is the same
//! bits whatever the thread count. The Gram matrix is accumulated row by
//! row over each row's nonzero columns only, in row order, so that one-hot
//! features (a diagonal Gram of ones) give back the targets exactly: RCFR
//! with them then is CFR to the bit. A design is fitted many times with new
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
    #[error("the model takes {expected} features, not {found}")]
    WrongWidth { expected: usize, found: usize },
    #[error("the model has {expected} weights, not {found}")]
    WrongWeights { expected: usize, found: usize },
    #[error("the tensor library failed: {0}")]
    Tensor(String),
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
        Design {
            id: NEXT_DESIGN.fetch_add(1, Ordering::Relaxed),
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
    pub fn row(&self, r: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
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
        let d = design.columns();
        let mut gram = Mat::<f64>::zeros(d, d);
        for r in 0..design.rows() {
            for (i, xi) in design.row(r) {
                for (j, xj) in design.row(r) {
                    if j > i {
                        break;
                    }
                    gram[(i, j)] += xi * xj;
                }
            }
        }
        for i in 0..d {
            gram[(i, i)] += self.ridge;
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
        let d = design.columns();
        let mut rhs = Mat::<f64>::zeros(d, 1);
        for (r, &y) in targets.iter().enumerate() {
            for (j, x) in design.row(r) {
                rhs[(j, 0)] += x * y;
            }
        }
        // Only the lower triangle of `l` holds the factor.
        let lower = l.as_ref();
        solve_lower_triangular_in_place(lower, rhs.as_mut(), Par::Seq);
        solve_upper_triangular_in_place(lower.transpose(), rhs.as_mut(), Par::Seq);
        self.weights = (0..d).map(|j| rhs[(j, 0)]).collect();
        if !self.weights.iter().all(|w| w.is_finite()) {
            return Err(RegressError::NotFinite);
        }
        Ok(())
    }

    fn predict(&mut self, design: &Design, out: &mut [f64]) -> Result<(), RegressError> {
        for (r, o) in out.iter_mut().enumerate().take(design.rows()) {
            let mut v = 0.0;
            for (j, x) in design.row(r) {
                v += x * self.weights.get(j).copied().unwrap_or(0.0);
            }
            *o = v;
        }
        Ok(())
    }
}
