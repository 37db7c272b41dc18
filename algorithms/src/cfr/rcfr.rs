//! Regression CFR (Waugh, Morrill, Bagnell and Bowling 2015) and f-RCFR
//! (D'Orazio, Morrill, Wright and Bowling 2020) on a compiled tree.
//!
//! Each iteration is a CFR iteration of [`CfrSolver`], whose passes give
//! each player's exact cumulative counterfactual regrets; after a player's
//! pass a regressor is fitted to those regrets over the feature rows of
//! every (information state, action) pair, and the player's next policy is
//! the link of the fitted regrets instead of regret matching on the true
//! ones: rectified (regret matching, RCFR), a polynomial of power p of the
//! positive part, or the exponential with a temperature (Hedge), f-RCFR's
//! links. The regression targets are the exact cumulative regrets (as in
//! OpenSpiel's RCFR without bootstrapping), or RCFR+'s: clipped at zero
//! after each pass.
//!
//! The average policy is the tabular one OpenSpiel's RCFR keeps: each
//! iteration's played policy weighted by the player's own reach, uniformly
//! over iterations (by t for RCFR+, as CFR+ averages), so a run's policy
//! file is a tabular policy every command reads.
//!
//! The regressor is linear least squares ([`crate::fa::regress`]) or a
//! multilayer perceptron ([`crate::fa::mlp`]). Both fits are
//! deterministic. The least-squares fit depends on the regrets alone, so
//! its checkpoint holds only the CFR state and resuming refits the last
//! regrets; a network's fit starts from its previous weights, so its
//! checkpoint holds those too and resuming predicts with them. Either way
//! a resumed run plays the same bits. With one-hot features and no ridge
//! the least-squares fit returns every regret above 2^-44 in magnitude
//! exactly (see [`crate::fa::regress`]), and RCFR is CFR (RCFR+ is CFR+)
//! to the bit but for regrets that small. Over the information-state
//! tables, [`super::table_rcfr`] fits the same least squares to the same
//! bits without the design matrix in memory.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use darkhex_games::{AnyGame, NUM_PLAYERS};

use crate::cfr::tabular::{CfrSolver, CfrState, CfrVariant, SumOrder};
use crate::fa::features::{FeatureKind, FeatureMap, table_pairs};
use crate::fa::mlp::{Mlp, MlpParams, MlpSettings};
use crate::fa::regress::{Design, LeastSquares, RegressError, Regressor};
use crate::policy::{TreePolicy, regret_matching};
use crate::tree::GameTree;

/// Feature matrices larger than this many numbers (8 bytes each) are refused.
pub const MAX_FEATURE_CELLS: usize = 1 << 27;

/// How fitted regrets become a policy.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Link {
    /// Regret matching: positive parts normalised.
    Rectified,
    /// `max(y, 0)^power` normalised.
    Polynomial { power: f64 },
    /// `exp(y / temperature)` normalised (Hedge).
    Exponential { temperature: f64 },
}

impl Link {
    pub const NAMES: [&'static str; 3] = ["rectified", "poly", "exp"];

    pub fn name(self) -> &'static str {
        match self {
            Link::Rectified => "rectified",
            Link::Polynomial { .. } => "poly",
            Link::Exponential { .. } => "exp",
        }
    }

    /// The policy at one information state from its fitted regrets `y`;
    /// uniform when no regret is positive (rectified and polynomial).
    pub fn apply(self, y: &[f64], out: &mut [f64]) {
        match self {
            Link::Rectified => regret_matching(y, out),
            Link::Polynomial { power } => {
                // The same sums as regret matching's, so that power 1 is it.
                let positive: f64 = y.iter().filter(|&&r| r > 0.0).map(|r| r.powf(power)).sum();
                if positive > 0.0 {
                    for (o, &r) in out.iter_mut().zip(y) {
                        *o = if r > 0.0 {
                            r.powf(power) / positive
                        } else {
                            0.0
                        };
                    }
                } else {
                    out.fill(1.0 / y.len() as f64);
                }
            }
            Link::Exponential { temperature } => {
                let top = y.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                for (o, &r) in out.iter_mut().zip(y) {
                    *o = ((r - top) / temperature).exp();
                }
                let sum: f64 = out.iter().sum();
                out.iter_mut().for_each(|o| *o /= sum);
            }
        }
    }
}

/// What fits the regrets.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum RegressorKind {
    /// Linear least squares with [`RcfrSettings::ridge`].
    LeastSquares,
    /// A multilayer perceptron trained by Adam.
    Mlp(MlpSettings),
}

impl RegressorKind {
    pub const NAMES: [&'static str; 2] = ["linear", "mlp"];

    pub fn name(self) -> &'static str {
        match self {
            RegressorKind::LeastSquares => "linear",
            RegressorKind::Mlp(_) => "mlp",
        }
    }
}

/// What an RCFR run is: features, link, regressor settings, targets.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RcfrSettings {
    pub features: FeatureKind,
    pub link: Link,
    /// The least-squares ridge term λ (0: exact least squares).
    pub ridge: f64,
    /// RCFR+: cumulative regrets clipped at zero after each pass, the
    /// average weighted by iteration (CFR+'s rules).
    pub truncate: bool,
    pub regressor: RegressorKind,
}

impl RcfrSettings {
    pub fn name(&self) -> &'static str {
        match (self.link, self.truncate) {
            (Link::Rectified, false) => "rcfr",
            (Link::Rectified, true) => "rcfr+",
            (_, false) => "f-rcfr",
            (_, true) => "f-rcfr+",
        }
    }

    /// The CFR rules the run follows besides the link.
    pub fn variant(&self) -> CfrVariant {
        if self.truncate {
            CfrVariant::Plus
        } else {
            CfrVariant::Vanilla
        }
    }
}

#[derive(Debug, Error, Clone, PartialEq)]
pub enum RcfrError {
    #[error(transparent)]
    Regress(#[from] RegressError),
    #[error(
        "{features} features of {game} need {rows} rows of {columns} numbers, over the limit of {limit}; use --features joint or obs"
    )]
    TooWide {
        features: &'static str,
        game: String,
        rows: usize,
        columns: usize,
        limit: usize,
    },
    #[error(
        "{features} features of {game} have {columns} columns, whose Gram matrix is over the limit of {limit} numbers; use --features joint or obs"
    )]
    GramTooLarge {
        features: &'static str,
        game: String,
        columns: usize,
        limit: usize,
    },
    #[error("the link's {what} must be a finite number above zero, not {value}")]
    BadLink { what: &'static str, value: f64 },
    #[error("the ridge term must be a finite number at least zero, not {0}")]
    BadRidge(f64),
    #[error("{0}")]
    BadNetwork(String),
}

impl RcfrSettings {
    pub fn check(&self) -> Result<(), RcfrError> {
        match self.link {
            Link::Polynomial { power } if !(power.is_finite() && power > 0.0) => {
                return Err(RcfrError::BadLink {
                    what: "power",
                    value: power,
                });
            }
            Link::Exponential { temperature }
                if !(temperature.is_finite() && temperature > 0.0) =>
            {
                return Err(RcfrError::BadLink {
                    what: "temperature",
                    value: temperature,
                });
            }
            _ => {}
        }
        if !(self.ridge.is_finite() && self.ridge >= 0.0) {
            return Err(RcfrError::BadRidge(self.ridge));
        }
        if let RegressorKind::Mlp(network) = self.regressor {
            network.check().map_err(RcfrError::BadNetwork)?;
        }
        Ok(())
    }
}

/// What a checkpoint of an RCFR run holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RcfrState {
    pub settings: RcfrSettings,
    pub cfr: CfrState,
    /// Each player's network after the last iteration (none for least
    /// squares, and before the first iteration).
    pub networks: Vec<MlpParams>,
}

impl RcfrState {
    pub fn is_finite(&self) -> bool {
        let finite = |v: &[Vec<f64>; NUM_PLAYERS]| v.iter().flatten().all(|x| x.is_finite());
        finite(&self.cfr.regrets)
            && finite(&self.cfr.cumulative)
            && self
                .networks
                .iter()
                .all(|n| n.scale.is_finite() && n.weights.iter().all(|w| w.is_finite()))
    }
}

/// One player's regressor.
enum Model {
    LeastSquares(LeastSquares),
    Mlp(Box<Mlp>),
}

impl Model {
    fn regressor(&mut self) -> &mut dyn Regressor {
        match self {
            Model::LeastSquares(m) => m,
            Model::Mlp(m) => m.as_mut(),
        }
    }
}

/// RCFR or f-RCFR over a compiled tree.
pub struct RcfrSolver<'t> {
    cfr: CfrSolver<'t>,
    settings: RcfrSettings,
    designs: [Design; NUM_PLAYERS],
    models: [Model; NUM_PLAYERS],
    /// Scratch: the fitted regrets of one player.
    fitted: Vec<f64>,
}

impl<'t> RcfrSolver<'t> {
    /// A fresh run on `tree`, compiled from `game`.
    pub fn new(
        tree: &'t GameTree,
        game: &AnyGame,
        settings: RcfrSettings,
    ) -> Result<RcfrSolver<'t>, RcfrError> {
        let state = RcfrState {
            settings,
            cfr: CfrSolver::new(tree, settings.variant()).state().clone(),
            networks: Vec::new(),
        };
        Ok(Self::with_state(tree, game, state)?.expect("fresh arrays fit the tree"))
    }

    /// Continues from a saved state; `Ok(None)` if its arrays do not fit
    /// the tree.
    pub fn with_state(
        tree: &'t GameTree,
        game: &AnyGame,
        state: RcfrState,
    ) -> Result<Option<RcfrSolver<'t>>, RcfrError> {
        let settings = state.settings;
        settings.check()?;
        if state.cfr.variant != settings.variant() {
            return Ok(None);
        }
        let slots = std::array::from_fn(|p| tree.infosets(p).num_slots());
        let map = FeatureMap::new(settings.features, game, slots);
        for (p, &rows) in slots.iter().enumerate() {
            let columns = map.width(p);
            if rows.saturating_mul(columns) > MAX_FEATURE_CELLS {
                return Err(RcfrError::TooWide {
                    features: settings.features.name(),
                    game: tree.game().to_string(),
                    rows,
                    columns,
                    limit: MAX_FEATURE_CELLS,
                });
            }
        }
        let designs =
            std::array::from_fn(|p| Design::new(map.batch(p, table_pairs(tree.infosets(p)))));
        let iteration = state.cfr.iteration;
        let Some(cfr) = CfrSolver::with_state(tree, state.cfr) else {
            return Ok(None);
        };
        let models = match settings.regressor {
            RegressorKind::LeastSquares => {
                if !state.networks.is_empty() {
                    return Ok(None);
                }
                std::array::from_fn(|_| Model::LeastSquares(LeastSquares::new(settings.ridge)))
            }
            RegressorKind::Mlp(network) => {
                let saved = match state.networks.len() {
                    0 if iteration == 0 => None,
                    NUM_PLAYERS => Some(state.networks),
                    _ => return Ok(None),
                };
                let mut models = Vec::with_capacity(NUM_PLAYERS);
                for (p, design) in designs.iter().enumerate() {
                    let inputs = design.columns();
                    let model = match &saved {
                        None => Mlp::new(network, inputs, p as u64),
                        Some(saved) => Mlp::with_params(network, inputs, saved[p].clone()),
                    };
                    match model {
                        Ok(m) => models.push(Model::Mlp(Box::new(m))),
                        Err(RegressError::WrongWeights { .. }) => return Ok(None),
                        Err(e) => return Err(e.into()),
                    }
                }
                match models.try_into() {
                    Ok(models) => models,
                    Err(_) => unreachable!("one network per player"),
                }
            }
        };
        let mut solver = RcfrSolver {
            cfr,
            settings,
            designs,
            models,
            fitted: Vec::new(),
        };
        if solver.cfr.iteration() > 0 {
            // Least squares refits the regrets it was last fitted to; a
            // network already holds that fit.
            let refit = settings.regressor == RegressorKind::LeastSquares;
            let (cfr, mut policy) = solver.parts(refit);
            cfr.replace_current(&mut policy)?;
        }
        Ok(Some(solver))
    }

    /// The CFR solver, and the policy-from-regrets step that makes it RCFR.
    #[allow(clippy::type_complexity)] // an opaque closure type cannot be named
    fn parts(
        &mut self,
        fit: bool,
    ) -> (
        &mut CfrSolver<'t>,
        impl FnMut(usize, &[f64], &mut [f64]) -> Result<(), RcfrError> + '_,
    ) {
        let tree = self.cfr.tree();
        let link = self.settings.link;
        let (designs, models, fitted) = (&self.designs, &mut self.models, &mut self.fitted);
        let policy = move |p: usize, regrets: &[f64], current: &mut [f64]| {
            let model = models[p].regressor();
            if fit {
                model.fit(&designs[p], regrets)?;
            }
            fitted.resize(regrets.len(), 0.0);
            model.predict(&designs[p], fitted)?;
            let table = tree.infosets(p);
            for i in 0..table.len() {
                let s = table.slots(i);
                link.apply(&fitted[s.clone()], &mut current[s]);
            }
            Ok(())
        };
        (&mut self.cfr, policy)
    }

    pub fn settings(&self) -> RcfrSettings {
        self.settings
    }

    pub fn iteration(&self) -> u64 {
        self.cfr.iteration()
    }

    /// How the CFR passes add up regrets ([`SumOrder`]).
    pub fn sum_order(&self) -> SumOrder {
        self.cfr.sum_order()
    }

    /// Sums regrets in `order` from now on; only before the first
    /// iteration (`false` after it, when the run keeps its order).
    pub fn use_sum_order(&mut self, order: SumOrder) -> bool {
        if self.cfr.sum_order() == order {
            return true;
        }
        if self.cfr.iteration() > 0 {
            return false;
        }
        self.cfr = CfrSolver::with_sum_order(self.cfr.tree(), self.settings.variant(), order);
        true
    }

    pub fn tree(&self) -> &GameTree {
        self.cfr.tree()
    }

    pub fn iterate(&mut self) -> Result<(), RcfrError> {
        let (cfr, mut policy) = self.parts(true);
        cfr.iterate_with(&mut policy)
    }

    pub fn run(&mut self, iterations: u64) -> Result<(), RcfrError> {
        for _ in 0..iterations {
            self.iterate()?;
        }
        Ok(())
    }

    /// The policy the next iteration plays: the link of the fitted regrets.
    pub fn current_policy(&self) -> TreePolicy {
        self.cfr.current_policy()
    }

    /// The tabular average policy (see the module notes).
    pub fn average_policy(&self) -> TreePolicy {
        self.cfr.average_policy()
    }

    /// The exact cumulative regrets the regressors are fitted to.
    pub fn regrets(&self, player: usize) -> &[f64] {
        &self.cfr.state().regrets[player]
    }

    /// The number of regressor weights per player.
    pub fn model_size(&self, player: usize) -> usize {
        let columns = self.designs[player].columns();
        match self.settings.regressor {
            RegressorKind::LeastSquares => columns,
            RegressorKind::Mlp(network) => network.parameters(columns),
        }
    }

    pub fn state(&self) -> RcfrState {
        let networks = match self.cfr.iteration() {
            0 => Vec::new(),
            _ => self
                .models
                .iter()
                .filter_map(|m| match m {
                    Model::Mlp(m) => Some(m.params().clone()),
                    Model::LeastSquares(_) => None,
                })
                .collect(),
        };
        RcfrState {
            settings: self.settings,
            cfr: self.cfr.state().clone(),
            networks,
        }
    }
}
