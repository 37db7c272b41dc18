//! Training runs as the `train` command drives them: any CFR-family
//! algorithm, periodic exact evaluation, checkpoints that resume bitwise.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use darkhex_games::{AnyGame, Game, NUM_PLAYERS, with_game};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::best_response::{Exploitability, exploitability};
use crate::cfr::compact_mccfr::{CompactError, CompactSolver, CompactState};
use crate::cfr::compact_table::CompactTable;
use crate::cfr::deep_cfr::DeepCfrState;
use crate::cfr::mccfr::{McSolver, McState, Sampling, external_sampling_cost};
use crate::cfr::rcfr::{Link, RcfrError, RcfrSettings, RcfrSolver, RcfrState, RegressorKind};
use crate::cfr::streaming::{
    ProgressFn, StreamRcfrState, StreamRun, StreamSolverState, exact_exploitability,
};
use crate::cfr::table_mccfr::{AnyTableMc, TableMcState};
use crate::cfr::tabular::{CfrSolver, CfrState, CfrVariant, SumOrder};
use crate::fa::features::FeatureKind;
use crate::fa::mlp::{MAX_HIDDEN, MlpSettings};
use crate::files::{self, Document, Encoding, FileError, FileKind};
use crate::memory::{MemoryLimit, TooLarge};
use crate::policy_file::{
    PolicyError, PolicyFile, Provenance, game_differences, require_game, same_game,
};
use crate::stream::{InfoStateTables, Precision, StreamError};
use crate::tree::GameTree;
use darkhex_games::abstraction::Abstraction;

pub const CHECKPOINT_FORMAT: &str = "darkhex-checkpoint";
pub const CHECKPOINT_VERSION: u32 = 1;

/// External sampling is refused on games where one iteration would visit
/// more histories than this: its tables would not fit in memory for long.
pub const MAX_EXTERNAL_SAMPLING_COST: f64 = 2e6;

/// Names `Algorithm::parse` accepts.
pub const ALGORITHM_NAMES: [&str; 10] = [
    "cfr", "cfr+", "lcfr", "dcfr", "pcfr+", "es-mccfr", "os-mccfr", "rcfr", "rcfr+", "f-rcfr",
];

/// f-RCFR's defaults: the polynomial link of power 2; the exponential
/// link's temperature.
pub const DEFAULT_POWER: f64 = 2.0;
pub const DEFAULT_TEMPERATURE: f64 = 1.0;
/// The ridge term of the observation and joint features, whose columns
/// depend on each other (an empty cell is one minus its stones); one-hot
/// features fit exactly without one.
pub const DEFAULT_RIDGE: f64 = 1e-6;

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Algorithm {
    Tabular(CfrVariant),
    MonteCarlo(Sampling),
    /// RCFR and f-RCFR, on the compiled tree or over the streaming tables.
    Regression(RcfrSettings),
}

/// Optional settings of the algorithms; `None` takes the default.
#[derive(Clone, Copy, Debug, Default)]
pub struct AlgorithmParams {
    pub alpha: Option<f64>,
    pub beta: Option<f64>,
    pub gamma: Option<f64>,
    pub exploration: Option<f64>,
    /// RCFR: feature map, link (f-RCFR), its power or temperature, ridge.
    pub features: Option<FeatureKind>,
    pub link: Option<&'static str>,
    pub power: Option<f64>,
    pub temperature: Option<f64>,
    pub ridge: Option<f64>,
    /// RCFR's regressor (`linear` or `mlp`) and the network's settings.
    pub regressor: Option<&'static str>,
    pub hidden: Option<[u32; MAX_HIDDEN]>,
    pub fit_steps: Option<u32>,
    pub batch_size: Option<u32>,
    pub learning_rate: Option<f64>,
    /// The network's initial weights (the run's `--seed`).
    pub seed: Option<u64>,
}

impl AlgorithmParams {
    fn network_params(&self) -> bool {
        self.hidden.is_some()
            || self.fit_steps.is_some()
            || self.batch_size.is_some()
            || self.learning_rate.is_some()
    }
}

#[derive(Debug, Error)]
pub enum TrainError {
    #[error("unknown algorithm '{0}': accepted algorithms are {names}", names = ALGORITHM_NAMES.join(", "))]
    UnknownAlgorithm(String),
    #[error("{0} does not take {1}")]
    UnusedParameter(&'static str, &'static str),
    #[error("unknown link '{0}': accepted links are {names}", names = Link::NAMES.join(", "))]
    UnknownLink(String),
    #[error("unknown regressor '{0}': accepted regressors are {names}", names = RegressorKind::NAMES.join(", "))]
    UnknownRegressor(String),
    #[error("exploration must be in [0, 1), not {0}")]
    BadExploration(f64),
    #[error("{0} needs the compiled game tree")]
    NeedsTree(&'static str),
    #[error(
        "es-mccfr would visit about {0:.1e} histories per iteration of {1} (it explores every action of the updating player); os-mccfr samples one history instead"
    )]
    TooWide(f64, String),
    #[error(transparent)]
    File(#[from] FileError),
    #[error(transparent)]
    Compact(#[from] CompactError),
    #[error("--abstraction trains dark_hex and dark_rex games, not {0}")]
    AbstractionNeedsDarkHex(String),
    #[error(transparent)]
    Policy(#[from] PolicyError),
    #[error(
        "{path} is a Deep CFR checkpoint: resume it with --algo deep-cfr (`darkhex train GAME --algo deep-cfr --checkpoint {path} --resume`)"
    )]
    DeepCfrCheckpoint { path: String },
    #[error("{path} holds {what} that are not finite numbers; it cannot be resumed")]
    NotFinite { path: String, what: &'static str },
    #[error("the checkpoint is for {file_game}, not {game}: {differences}")]
    WrongGame {
        file_game: String,
        game: String,
        differences: String,
    },
    #[error("the checkpoint was made by {found}; it resumes only as {found}, not {requested}")]
    WrongAlgorithm { found: String, requested: String },
    #[error("the checkpoint's arrays do not fit {0}'s tree")]
    WrongShape(String),
    #[error("the checkpoint's arrays do not fit {0}'s information-state tables")]
    WrongTables(String),
    #[error("the checkpoint does not fit {game}: {reason}")]
    Misfit { game: String, reason: String },
    #[error("the checkpoint was made by {found} training; it resumes only that way ({hint})")]
    WrongBackend {
        found: &'static str,
        hint: &'static str,
    },
    #[error("{0} trains on the compiled tree or by sampling, not over the streaming tables")]
    NotStreamable(&'static str),
    #[error(
        "the streaming passes sum regrets only exactly (--sum-order exact); the order {0} needs the compiled tree"
    )]
    StreamSumsExactly(&'static str),
    #[error(
        "the checkpoint sums regrets in the order {found}; it resumes only that way, not {requested}"
    )]
    WrongSumOrder {
        found: &'static str,
        requested: &'static str,
    },
    #[error(transparent)]
    Stream(#[from] StreamError),
    #[error(transparent)]
    Rcfr(#[from] RcfrError),
}

impl Algorithm {
    pub fn parse(name: &str, params: AlgorithmParams) -> Result<Algorithm, TrainError> {
        let no_discount = |algo: &'static str| {
            if params.alpha.is_some() || params.beta.is_some() || params.gamma.is_some() {
                Err(TrainError::UnusedParameter(
                    algo,
                    "--alpha, --beta or --gamma",
                ))
            } else {
                Ok(())
            }
        };
        let no_exploration = |algo: &'static str| {
            if params.exploration.is_some() {
                Err(TrainError::UnusedParameter(algo, "--exploration"))
            } else {
                Ok(())
            }
        };
        let algo = match name {
            "cfr" => Algorithm::Tabular(CfrVariant::Vanilla),
            "cfr+" => Algorithm::Tabular(CfrVariant::Plus),
            "lcfr" => Algorithm::Tabular(CfrVariant::Linear),
            "dcfr" => {
                let CfrVariant::Discounted { alpha, beta, gamma } = CfrVariant::DCFR_DEFAULT else {
                    unreachable!("the default is discounted")
                };
                Algorithm::Tabular(CfrVariant::Discounted {
                    alpha: params.alpha.unwrap_or(alpha),
                    beta: params.beta.unwrap_or(beta),
                    gamma: params.gamma.unwrap_or(gamma),
                })
            }
            "pcfr+" => {
                if params.alpha.is_some() || params.beta.is_some() {
                    return Err(TrainError::UnusedParameter("pcfr+", "--alpha or --beta"));
                }
                let CfrVariant::Predictive { gamma } = CfrVariant::PCFR_DEFAULT else {
                    unreachable!("the default is predictive")
                };
                Algorithm::Tabular(CfrVariant::Predictive {
                    gamma: params.gamma.unwrap_or(gamma),
                })
            }
            "rcfr" | "rcfr+" | "f-rcfr" => Algorithm::Regression(regression(name, params)?),
            "es-mccfr" => Algorithm::MonteCarlo(Sampling::External),
            "os-mccfr" => {
                let e = params.exploration.unwrap_or(Sampling::DEFAULT_EXPLORATION);
                if !(0.0..1.0).contains(&e) {
                    return Err(TrainError::BadExploration(e));
                }
                Algorithm::MonteCarlo(Sampling::Outcome { exploration: e })
            }
            other => return Err(TrainError::UnknownAlgorithm(other.to_string())),
        };
        let label = algo.name();
        if !matches!(
            algo,
            Algorithm::Tabular(CfrVariant::Discounted { .. } | CfrVariant::Predictive { .. })
        ) {
            no_discount(label)?;
        }
        if !matches!(algo, Algorithm::MonteCarlo(Sampling::Outcome { .. })) {
            no_exploration(label)?;
        }
        let regression_params = [params.power, params.temperature, params.ridge]
            .iter()
            .any(Option::is_some)
            || params.features.is_some()
            || params.link.is_some()
            || params.regressor.is_some()
            || params.network_params();
        if !matches!(algo, Algorithm::Regression(_)) && regression_params {
            return Err(TrainError::UnusedParameter(
                label,
                "--features, --link, --power, --temperature, --ridge, --regressor or the network's settings",
            ));
        }
        Ok(algo)
    }

    pub fn name(&self) -> &'static str {
        match self {
            Algorithm::Tabular(v) => v.name(),
            Algorithm::MonteCarlo(s) => s.name(),
            Algorithm::Regression(s) => s.name(),
        }
    }

    pub fn parameters(&self) -> BTreeMap<String, f64> {
        let mut m = BTreeMap::new();
        match *self {
            Algorithm::Tabular(CfrVariant::Discounted { alpha, beta, gamma }) => {
                m.insert("alpha".into(), alpha);
                m.insert("beta".into(), beta);
                m.insert("gamma".into(), gamma);
            }
            Algorithm::Tabular(CfrVariant::Predictive { gamma }) => {
                m.insert("gamma".into(), gamma);
            }
            Algorithm::MonteCarlo(Sampling::Outcome { exploration }) => {
                m.insert("exploration".into(), exploration);
            }
            Algorithm::Regression(s) => {
                // Parameters are numbers: the feature map is named in the key.
                m.insert(format!("features:{}", s.features.name()), 1.0);
                match s.regressor {
                    RegressorKind::LeastSquares => {
                        m.insert("ridge".into(), s.ridge);
                    }
                    RegressorKind::Mlp(n) => {
                        for (i, w) in n.layers().enumerate() {
                            m.insert(format!("hidden{}", i + 1), w as f64);
                        }
                        m.insert("fit_steps".into(), f64::from(n.steps));
                        m.insert("batch_size".into(), f64::from(n.batch));
                        m.insert("learning_rate".into(), n.learning_rate);
                        // Seeds past 2^53 print rounded; --seed is the exact one.
                        m.insert("seed".into(), n.seed as f64);
                    }
                }
                match s.link {
                    Link::Rectified => {}
                    Link::Polynomial { power } => {
                        m.insert("power".into(), power);
                    }
                    Link::Exponential { temperature } => {
                        m.insert("temperature".into(), temperature);
                    }
                }
            }
            _ => {}
        }
        m
    }

    pub fn needs_tree(&self) -> bool {
        matches!(self, Algorithm::Tabular(_) | Algorithm::Regression(_))
    }

    /// Whether the algorithm also runs over the streaming tables.
    pub fn streams(&self) -> bool {
        matches!(self, Algorithm::Tabular(_) | Algorithm::Regression(_))
    }
}

/// The settings of `rcfr`, `rcfr+` or `f-rcfr` from the options given.
fn regression(name: &str, params: AlgorithmParams) -> Result<RcfrSettings, TrainError> {
    let (name, f_rcfr) = match name {
        "rcfr" => ("rcfr", false),
        "rcfr+" => ("rcfr+", false),
        _ => ("f-rcfr", true),
    };
    let link = match (f_rcfr, params.link.unwrap_or("poly")) {
        (false, _) if params.link.is_some() => {
            return Err(TrainError::UnusedParameter(name, "--link (f-rcfr's)"));
        }
        (false, _) => Link::Rectified,
        (true, "rectified") => Link::Rectified,
        (true, "poly") => Link::Polynomial {
            power: params.power.unwrap_or(DEFAULT_POWER),
        },
        (true, "exp") => Link::Exponential {
            temperature: params.temperature.unwrap_or(DEFAULT_TEMPERATURE),
        },
        (true, other) => {
            return Err(TrainError::UnknownLink(other.to_string()));
        }
    };
    if params.power.is_some() && !matches!(link, Link::Polynomial { .. }) {
        return Err(TrainError::UnusedParameter(
            name,
            "--power (the poly link's)",
        ));
    }
    if params.temperature.is_some() && !matches!(link, Link::Exponential { .. }) {
        return Err(TrainError::UnusedParameter(
            name,
            "--temperature (the exp link's)",
        ));
    }
    let regressor = match params.regressor.unwrap_or("linear") {
        "linear" => {
            if params.network_params() {
                return Err(TrainError::UnusedParameter(
                    "the linear regressor",
                    "--hidden, --fit-steps, --batch-size or --learning-rate (--regressor mlp's)",
                ));
            }
            RegressorKind::LeastSquares
        }
        "mlp" => {
            if params.ridge.is_some() {
                return Err(TrainError::UnusedParameter(
                    "the mlp regressor",
                    "--ridge (the linear regressor's)",
                ));
            }
            let mut n = MlpSettings::new(params.seed.unwrap_or(0));
            n.hidden = params.hidden.unwrap_or(n.hidden);
            n.steps = params.fit_steps.unwrap_or(n.steps);
            n.batch = params.batch_size.unwrap_or(n.batch);
            n.learning_rate = params.learning_rate.unwrap_or(n.learning_rate);
            RegressorKind::Mlp(n)
        }
        other => return Err(TrainError::UnknownRegressor(other.to_string())),
    };
    // A network reads the observations and the action as separate inputs
    // and finds their interactions itself; a linear model needs them crossed.
    let features = params.features.unwrap_or(match regressor {
        RegressorKind::LeastSquares => FeatureKind::Joint,
        RegressorKind::Mlp(_) => FeatureKind::Observation,
    });
    let default_ridge = match (regressor, features) {
        (RegressorKind::LeastSquares, FeatureKind::OneHot) | (RegressorKind::Mlp(_), _) => 0.0,
        _ => DEFAULT_RIDGE,
    };
    let settings = RcfrSettings {
        features,
        link,
        ridge: params.ridge.unwrap_or(default_ridge),
        truncate: name == "rcfr+",
        regressor,
    };
    settings.check()?;
    Ok(settings)
}

/// One evaluation during training.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EvalPoint {
    pub iteration: u64,
    /// Training time so far (evaluation excluded), across resumed runs.
    pub seconds: f64,
    pub exploitability: Option<f64>,
    pub value_p0: Option<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum SolverState {
    Tabular(CfrState),
    MonteCarlo(Box<McState>),
    Stream(Box<StreamSolverState>),
    /// Monte Carlo CFR over the information-state tables.
    MonteCarloTables(Box<TableMcState>),
    /// Outcome sampling with compact keys, under an abstraction.
    Compact(Box<CompactState>),
    /// RCFR and f-RCFR on the compiled tree.
    Regression(Box<RcfrState>),
    /// RCFR and f-RCFR over the streaming tables.
    StreamRegression(Box<StreamRcfrState>),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    pub format: String,
    pub version: u32,
    pub game: String,
    pub solver: SolverState,
    pub history: Vec<EvalPoint>,
    pub seconds: f64,
}

impl Document for Checkpoint {
    const KIND: FileKind = FileKind::Checkpoint;
    const VERSION: u32 = CHECKPOINT_VERSION;
    fn game(&self) -> &str {
        &self.game
    }
}

impl Checkpoint {
    /// Checkpoints are always the checksummed binary form, whatever the name.
    pub fn save(&self, path: &Path) -> Result<(), TrainError> {
        Ok(files::save(path, self, Encoding::Binary)?)
    }

    pub fn load(path: &Path) -> Result<Checkpoint, TrainError> {
        // Deep CFR's checkpoints share the format name (every checkpoint
        // resumes through `train --checkpoint`), so the decoder would only
        // say that the tabular solver's state is missing.
        let mut c: Checkpoint = files::load(path).map_err(|e| match e {
            FileError::Malformed { .. } if files::load::<DeepCheckpoint>(path).is_ok() => {
                TrainError::DeepCfrCheckpoint {
                    path: crate::files::shown(path),
                }
            }
            e => e.into(),
        })?;
        let finite = |v: &[f64]| v.iter().all(|x| x.is_finite());
        let ok = match &c.solver {
            SolverState::Tabular(s) => {
                s.regrets.iter().all(|v| finite(v)) && s.cumulative.iter().all(|v| finite(v))
            }
            SolverState::MonteCarlo(s) => s.is_finite(),
            SolverState::Stream(s) => s.is_finite(),
            SolverState::MonteCarloTables(s) => s.is_finite(),
            SolverState::Compact(s) => s.tables.iter().all(CompactTable::is_finite),
            SolverState::Regression(s) => s.is_finite(),
            SolverState::StreamRegression(s) => s.arrays.is_finite(),
        };
        if !ok {
            return Err(TrainError::NotFinite {
                path: crate::files::shown(path),
                what: "regrets or average weights",
            });
        }
        if let SolverState::MonteCarlo(s) = &mut c.solver {
            s.restore().map_err(|reason| FileError::Malformed {
                path: path.to_path_buf(),
                what: "training checkpoint",
                reason,
            })?;
        }
        Ok(c)
    }

    pub fn algorithm(&self) -> Algorithm {
        match &self.solver {
            SolverState::Tabular(s) => Algorithm::Tabular(s.variant),
            SolverState::MonteCarlo(s) => Algorithm::MonteCarlo(s.sampling),
            SolverState::Stream(s) => Algorithm::Tabular(s.variant()),
            SolverState::MonteCarloTables(s) => Algorithm::MonteCarlo(s.sampling),
            SolverState::Compact(s) => Algorithm::MonteCarlo(Sampling::Outcome {
                exploration: s.exploration,
            }),
            SolverState::Regression(s) => Algorithm::Regression(s.settings),
            SolverState::StreamRegression(s) => Algorithm::Regression(s.settings),
        }
    }

    /// The abstraction of a compact-key run (see [`Trainer::compact`]).
    pub fn abstraction(&self) -> Option<Abstraction> {
        match &self.solver {
            SolverState::Compact(s) => Abstraction::parse(&s.abstraction).ok(),
            _ => None,
        }
    }

    /// Whether a compact-key run ended histories at PONE's sure wins.
    pub fn pone_terminals(&self) -> bool {
        matches!(&self.solver, SolverState::Compact(s) if s.pone_terminals)
    }

    /// The seed a checkpoint's run draws from: a sampler's, or the
    /// network's of RCFR with the network; none where nothing is drawn.
    pub fn seed(&self) -> Option<u64> {
        match &self.solver {
            SolverState::MonteCarlo(s) => Some(s.seed),
            SolverState::MonteCarloTables(s) => Some(s.seed),
            SolverState::Compact(s) => Some(s.seed),
            SolverState::Regression(s) => match s.settings.regressor {
                RegressorKind::Mlp(n) => Some(n.seed),
                RegressorKind::LeastSquares => None,
            },
            SolverState::Tabular(_) | SolverState::Stream(_) | SolverState::StreamRegression(_) => {
                None
            }
        }
    }

    /// The precision of a streaming checkpoint's arrays.
    pub fn stream_precision(&self) -> Option<Precision> {
        match &self.solver {
            SolverState::Stream(s) => Some(s.precision()),
            SolverState::StreamRegression(s) => Some(s.arrays.precision()),
            _ => None,
        }
    }

    /// Whether the checkpoint continues full width on the streaming tables.
    pub fn is_streaming(&self) -> bool {
        matches!(
            self.solver,
            SolverState::Stream(_) | SolverState::StreamRegression(_)
        )
    }

    /// Whether the checkpoint continues on the information-state tables
    /// (full width, or sampling over them).
    pub fn needs_tables(&self) -> bool {
        matches!(
            self.solver,
            SolverState::Stream(_)
                | SolverState::StreamRegression(_)
                | SolverState::MonteCarloTables(_)
        )
    }
}

enum Engine<'t> {
    Tabular(CfrSolver<'t>),
    MonteCarlo(McSolver<AnyGame>),
    Stream(Box<StreamRun<'t>>),
    MonteCarloTables(Box<AnyTableMc<'t>>),
    Regression(Box<RcfrSolver<'t>>),
    Compact(Box<CompactSolver>),
}

/// A training run. `tree` is needed by the tabular algorithms and, when
/// given, lets every algorithm report exact exploitability.
pub struct Trainer<'t> {
    game: AnyGame,
    tree: Option<&'t GameTree>,
    algorithm: Algorithm,
    engine: Engine<'t>,
    history: Vec<EvalPoint>,
    seconds: f64,
    progress: Option<Box<ProgressFn>>,
    /// Ends an evaluation's streaming pass early when raised.
    stop: Option<Arc<AtomicBool>>,
}

impl<'t> Trainer<'t> {
    /// Full-width training over the streaming tables (`tables` built for
    /// `game`), with arrays stored at `precision`.
    pub fn streaming(
        game: AnyGame,
        tables: &'t InfoStateTables,
        algorithm: Algorithm,
        precision: Precision,
    ) -> Result<Self, TrainError> {
        let run = match algorithm {
            Algorithm::Tabular(variant) => StreamRun::new(&game, tables, variant, precision)?,
            Algorithm::Regression(settings) => {
                StreamRun::regression(&game, tables, settings, precision)?
            }
            Algorithm::MonteCarlo(_) => return Err(TrainError::NotStreamable(algorithm.name())),
        };
        Ok(Self::with_engine(
            game,
            None,
            algorithm,
            Engine::Stream(Box::new(run)),
        ))
    }

    fn with_engine(
        game: AnyGame,
        tree: Option<&'t GameTree>,
        algorithm: Algorithm,
        engine: Engine<'t>,
    ) -> Self {
        Trainer {
            game,
            tree,
            algorithm,
            engine,
            history: Vec::new(),
            seconds: 0.0,
            progress: None,
            stop: None,
        }
    }

    /// Monte Carlo CFR over the information-state tables (`tables` built
    /// for `game`); `tree`, when given, is for exact evaluation, which
    /// otherwise takes a streaming pass.
    pub fn sampling_over_tables(
        game: AnyGame,
        tree: Option<&'t GameTree>,
        tables: &'t InfoStateTables,
        sampling: Sampling,
        seed: u64,
        workers: usize,
    ) -> Result<Self, TrainError> {
        check_sampling_cost(&game, sampling, seed)?;
        let state = TableMcState::new(tables, sampling, seed, workers);
        let run = AnyTableMc::new(&game, tables, state)?
            .ok_or_else(|| TrainError::WrongTables(game.game_string()))?;
        Ok(Self::with_engine(
            game,
            tree,
            Algorithm::MonteCarlo(sampling),
            Engine::MonteCarloTables(Box::new(run)),
        ))
    }

    /// Continues a checkpoint of streaming training on `tables`.
    pub fn resume_streaming(
        game: AnyGame,
        tables: &'t InfoStateTables,
        checkpoint: Checkpoint,
        requested: Option<Algorithm>,
    ) -> Result<Self, TrainError> {
        Self::resume_over_tables(game, None, tables, checkpoint, requested)
    }

    /// Continues a checkpoint of training on `tables`: full width, or
    /// sampling over them (`tree`, when given, is for exact evaluation).
    pub fn resume_over_tables(
        game: AnyGame,
        tree: Option<&'t GameTree>,
        tables: &'t InfoStateTables,
        checkpoint: Checkpoint,
        requested: Option<Algorithm>,
    ) -> Result<Self, TrainError> {
        let algorithm = check_resumable(&game, &checkpoint, requested)?;
        let wrong_tables = || TrainError::WrongTables(game.game_string());
        let engine = match checkpoint.solver {
            SolverState::Stream(state) => Engine::Stream(Box::new(
                StreamRun::resume(&game, tables, *state)?.ok_or_else(wrong_tables)?,
            )),
            SolverState::StreamRegression(state) => Engine::Stream(Box::new(
                StreamRun::resume_regression(&game, tables, *state)?.ok_or_else(wrong_tables)?,
            )),
            SolverState::MonteCarloTables(state) => Engine::MonteCarloTables(Box::new(
                AnyTableMc::new(&game, tables, *state)?.ok_or_else(wrong_tables)?,
            )),
            _ => {
                return Err(TrainError::WrongBackend {
                    found: "compiled-tree or keyed sampling",
                    hint: "without the information-state tables",
                });
            }
        };
        let mut trainer = Self::with_engine(game, tree, algorithm, engine);
        trainer.history = checkpoint.history;
        trainer.seconds = checkpoint.seconds;
        Ok(trainer)
    }

    /// Reports the passes of streaming training as they go.
    pub fn set_progress(&mut self, progress: Box<ProgressFn>) {
        self.progress = Some(progress);
    }

    /// Lets `stop` end an evaluation's streaming pass (minutes on 3x3 Dark
    /// Hex) early: [`Trainer::evaluate`] then fails with
    /// [`StreamError::Stopped`] and records nothing. Iterations are not
    /// cut short: a run stops between them.
    pub fn set_stop(&mut self, stop: Arc<AtomicBool>) {
        self.stop = Some(stop);
    }

    /// `workers` fixes the Monte Carlo batch structure (see `mccfr`).
    pub fn new(
        game: AnyGame,
        tree: Option<&'t GameTree>,
        algorithm: Algorithm,
        seed: u64,
        workers: usize,
    ) -> Result<Self, TrainError> {
        let engine = match algorithm {
            Algorithm::Tabular(v) => {
                let tree = tree.ok_or(TrainError::NeedsTree(algorithm.name()))?;
                Engine::Tabular(CfrSolver::new(tree, v))
            }
            Algorithm::MonteCarlo(s) => {
                check_sampling_cost(&game, s, seed)?;
                Engine::MonteCarlo(McSolver::new(game, McState::new(s, seed, workers)))
            }
            Algorithm::Regression(settings) => {
                let tree = tree.ok_or(TrainError::NeedsTree(algorithm.name()))?;
                Engine::Regression(Box::new(RcfrSolver::new(tree, &game, settings)?))
            }
        };
        Ok(Self::with_engine(game, tree, algorithm, engine))
    }

    /// Outcome sampling with compact keys under `abstraction` (Dark Hex
    /// and Dark Rex only), histories ending at PONE's sure wins when
    /// `pone_terminals`; `tree`, when given, evaluates the policy lifted
    /// to the perfect-recall game.
    pub fn compact(
        game: AnyGame,
        tree: Option<&'t GameTree>,
        abstraction: Abstraction,
        exploration: f64,
        pone_terminals: bool,
        seed: u64,
        workers: usize,
    ) -> Result<Self, TrainError> {
        let AnyGame::DarkHex(g) = game else {
            return Err(TrainError::AbstractionNeedsDarkHex(game.game_string()));
        };
        let state = CompactState::new(abstraction, exploration, seed, workers)
            .with_pone_terminals(pone_terminals);
        let solver = CompactSolver::new(g, state)?;
        Ok(Self::with_engine(
            game,
            tree,
            Algorithm::MonteCarlo(Sampling::Outcome { exploration }),
            Engine::Compact(Box::new(solver)),
        ))
    }

    /// The abstraction a compact-key run trains under; `None` for the
    /// others (the game's own information states).
    pub fn abstraction(&self) -> Option<Abstraction> {
        match &self.engine {
            Engine::Compact(s) => Some(s.abstraction()),
            _ => None,
        }
    }

    /// Whether the run ends histories at PONE's sure wins (compact keys only).
    pub fn pone_terminals(&self) -> bool {
        self.pone_ends().is_some()
    }

    /// With PONE terminals, how many sampled histories ended at one.
    pub fn pone_ends(&self) -> Option<u64> {
        match &self.engine {
            Engine::Compact(s) if s.pone_terminals() => Some(s.state().decided.ends),
            _ => None,
        }
    }

    /// Continues a checkpoint. A `requested` algorithm must be the checkpoint's.
    pub fn resume(
        game: AnyGame,
        tree: Option<&'t GameTree>,
        checkpoint: Checkpoint,
        requested: Option<Algorithm>,
    ) -> Result<Self, TrainError> {
        let algorithm = check_resumable(&game, &checkpoint, requested)?;
        let ours = game.game_string();
        let engine = match checkpoint.solver {
            SolverState::Tabular(state) => {
                let tree = tree.ok_or(TrainError::NeedsTree(algorithm.name()))?;
                Engine::Tabular(
                    CfrSolver::with_state(tree, state).ok_or(TrainError::WrongShape(ours))?,
                )
            }
            SolverState::MonteCarlo(state) => {
                if let Some(reason) = state.misfit(&game) {
                    return Err(TrainError::Misfit { game: ours, reason });
                }
                Engine::MonteCarlo(McSolver::new(game, *state))
            }
            SolverState::Regression(state) => {
                let tree = tree.ok_or(TrainError::NeedsTree(algorithm.name()))?;
                Engine::Regression(Box::new(
                    RcfrSolver::with_state(tree, &game, *state)?
                        .ok_or(TrainError::WrongShape(ours))?,
                ))
            }
            SolverState::Stream(_) | SolverState::StreamRegression(_) => {
                return Err(TrainError::WrongBackend {
                    found: "streaming",
                    hint: "with --stream",
                });
            }
            SolverState::MonteCarloTables(_) => {
                return Err(TrainError::WrongBackend {
                    found: "table-sampling",
                    hint: "over the information-state tables",
                });
            }
            SolverState::Compact(state) => {
                let AnyGame::DarkHex(g) = game else {
                    return Err(TrainError::AbstractionNeedsDarkHex(ours));
                };
                Engine::Compact(Box::new(CompactSolver::new(g, *state)?))
            }
        };
        let mut trainer = Self::with_engine(game, tree, algorithm, engine);
        trainer.history = checkpoint.history;
        trainer.seconds = checkpoint.seconds;
        Ok(trainer)
    }

    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// How full-width training adds up regrets ([`SumOrder`]); `None` for
    /// the samplers.
    pub fn sum_order(&self) -> Option<SumOrder> {
        match &self.engine {
            Engine::Tabular(s) => Some(s.sum_order()),
            Engine::Stream(_) => Some(SumOrder::Exact),
            Engine::Regression(s) => Some(s.sum_order()),
            Engine::MonteCarlo(_) | Engine::MonteCarloTables(_) | Engine::Compact(_) => None,
        }
    }

    /// Sums regrets in `order` from now on: full-width training on the
    /// compiled tree before its first iteration (a resumed run keeps its
    /// checkpoint's order and only accepts that one; the streaming passes
    /// sum only exactly).
    pub fn use_sum_order(&mut self, order: SumOrder) -> Result<(), TrainError> {
        match &mut self.engine {
            Engine::Tabular(s) if s.sum_order() == order => Ok(()),
            Engine::Tabular(s) if s.iteration() == 0 => {
                *s = CfrSolver::with_sum_order(s.tree(), s.variant(), order);
                Ok(())
            }
            Engine::Tabular(s) => Err(TrainError::WrongSumOrder {
                found: s.sum_order().name(),
                requested: order.name(),
            }),
            Engine::Regression(s) => match s.use_sum_order(order) {
                true => Ok(()),
                false => Err(TrainError::WrongSumOrder {
                    found: s.sum_order().name(),
                    requested: order.name(),
                }),
            },
            Engine::Stream(_) if order == SumOrder::Exact => Ok(()),
            Engine::Stream(_) => Err(TrainError::StreamSumsExactly(order.name())),
            Engine::MonteCarlo(_) | Engine::MonteCarloTables(_) | Engine::Compact(_) => Err(
                TrainError::UnusedParameter(self.algorithm.name(), "--sum-order"),
            ),
        }
    }

    /// Runs stop only at multiples of this (Monte Carlo batches) for a
    /// resumed run to retrace an uninterrupted one.
    pub fn batch_size(&self) -> u64 {
        match &self.engine {
            Engine::Tabular(_) | Engine::Stream(_) | Engine::Regression(_) => 1,
            Engine::MonteCarlo(s) => s.batch_size(),
            Engine::MonteCarloTables(s) => s.batch_size(),
            Engine::Compact(s) => s.batch_size(),
        }
    }

    /// The Monte Carlo batch's worker count, on which sampled results
    /// depend; `None` for full-width algorithms, whose results do not.
    pub fn workers(&self) -> Option<usize> {
        match &self.engine {
            Engine::Tabular(_) | Engine::Stream(_) | Engine::Regression(_) => None,
            Engine::MonteCarlo(s) => Some(s.state().workers),
            Engine::MonteCarloTables(s) => Some(s.state().workers),
            Engine::Compact(s) => Some(s.state().workers),
        }
    }

    pub fn has_tree(&self) -> bool {
        self.tree.is_some()
    }

    /// Whether [`Trainer::evaluate`] computes exploitability: on the tree,
    /// or by a streaming pass (minutes on 3x3 Dark Hex).
    pub fn can_evaluate(&self) -> bool {
        self.tree.is_some() || self.uses_tables()
    }

    /// Whether the run is over the information-state tables.
    pub fn uses_tables(&self) -> bool {
        matches!(self.engine, Engine::Stream(_) | Engine::MonteCarloTables(_))
    }

    /// The streaming tables' precision, for streaming runs.
    pub fn precision(&self) -> Option<Precision> {
        match &self.engine {
            Engine::Stream(s) => Some(s.state().precision()),
            _ => None,
        }
    }

    /// Bytes held by tables that grow with the information states met
    /// (the keyed and compact samplers'); `None` for the engines whose
    /// memory is fixed at the start and checked then.
    pub fn growing_bytes(&self) -> Option<usize> {
        match &self.engine {
            Engine::MonteCarlo(s) => Some(s.state().memory_bytes()),
            Engine::Compact(s) => Some(s.memory_bytes()),
            Engine::Tabular(_)
            | Engine::Stream(_)
            | Engine::MonteCarloTables(_)
            | Engine::Regression(_) => None,
        }
    }

    /// Refuses to go on once the growing tables have outgrown `limit`: a
    /// checkpoint clones them and encodes the clone, and the policy file
    /// is built beside them, so a run stops once three times its tables
    /// would pass the limit.
    pub fn check_growth(&self, limit: MemoryLimit) -> Result<(), TooLarge> {
        const TABLE_COPIES: usize = 3;
        let Some(bytes) = self.growing_bytes() else {
            return Ok(());
        };
        limit.check(
            format!(
                "the sampler's tables after {} iterations, with a checkpoint and the policy,",
                self.iteration()
            ),
            (TABLE_COPIES * bytes) as f64,
            &format!(
                "three times the tables' {}",
                crate::bytes::readable_bytes(bytes as f64)
            ),
        )
    }

    pub fn iteration(&self) -> u64 {
        match &self.engine {
            Engine::Tabular(s) => s.iteration(),
            Engine::MonteCarlo(s) => s.iteration(),
            Engine::Stream(s) => s.iteration(),
            Engine::MonteCarloTables(s) => s.iteration(),
            Engine::Regression(s) => s.iteration(),
            Engine::Compact(s) => s.iteration(),
        }
    }

    /// Training seconds so far, across resumed runs.
    pub fn seconds(&self) -> f64 {
        self.seconds
    }

    pub fn history(&self) -> &[EvalPoint] {
        &self.history
    }

    /// Runs `iterations` more iterations.
    pub fn run(&mut self, iterations: u64) -> Result<(), TrainError> {
        let start = std::time::Instant::now();
        match &mut self.engine {
            Engine::Tabular(s) => s.run(iterations),
            Engine::MonteCarlo(s) => s.run(iterations),
            Engine::Stream(s) => s.run(iterations, self.progress.as_deref())?,
            Engine::MonteCarloTables(s) => s.run(iterations),
            Engine::Regression(s) => s.run(iterations)?,
            Engine::Compact(s) => s.run(iterations),
        }
        self.seconds += start.elapsed().as_secs_f64();
        Ok(())
    }

    /// The average policy, with its provenance.
    pub fn policy(&self) -> PolicyFile {
        let provenance = self.provenance();
        match &self.engine {
            Engine::Tabular(s) => PolicyFile::from_tree(s.tree(), &s.average_policy(), provenance),
            Engine::Regression(s) => {
                PolicyFile::from_tree(s.tree(), &s.average_policy(), provenance)
            }
            Engine::Stream(s) => s.policy_file(provenance),
            Engine::MonteCarlo(s) => {
                let p = sampling_provenance(provenance, s.state().seed, s.state().workers);
                s.state().average_policy(&self.game.game_string(), p)
            }
            Engine::MonteCarloTables(s) => {
                let p = sampling_provenance(provenance, s.state().seed, s.state().workers);
                s.state().policy_file(s.tables(), p)
            }
            Engine::Compact(s) => s.average_policy(sampling_provenance(
                provenance,
                s.state().seed,
                s.state().workers,
            )),
        }
    }

    /// Writes [`Trainer::policy`] to `path`; a streaming run writes it row
    /// by row instead of holding the whole file's information states.
    pub fn save_policy(&self, path: &Path) -> Result<(), TrainError> {
        match &self.engine {
            Engine::Stream(s) => {
                Ok(s.average_policy()
                    .save(s.tables(), &self.provenance(), path)?)
            }
            _ => Ok(self.policy().save(path)?),
        }
    }

    /// The number of information states the policy file lists.
    pub fn policy_infosets(&self) -> usize {
        match &self.engine {
            Engine::Stream(s) => (0..NUM_PLAYERS)
                .map(|p| s.tables().player(p).num_decision_rows())
                .sum(),
            _ => self.policy().infosets.iter().map(Vec::len).sum(),
        }
    }

    fn provenance(&self) -> Provenance {
        Provenance {
            algorithm: self.algorithm.name().to_string(),
            parameters: self.algorithm.parameters(),
            iterations: self.iteration(),
            exploitability: self.history.last().and_then(|e| {
                (e.iteration == self.iteration())
                    .then_some(e.exploitability)
                    .flatten()
            }),
        }
    }

    /// Exact exploitability of the average policy when the tree is known,
    /// recorded in the history.
    pub fn evaluate(&mut self) -> Result<Option<Exploitability>, TrainError> {
        let stop = self.stop.as_deref();
        let e = match (&self.engine, self.tree) {
            (Engine::Stream(s), _) => Some(s.exploitability(self.progress.as_deref(), stop)?),
            (Engine::Tabular(s), Some(tree)) => Some(exploitability(tree, &s.average_policy())),
            (Engine::Regression(s), Some(tree)) => Some(exploitability(tree, &s.average_policy())),
            (
                Engine::MonteCarlo(_) | Engine::MonteCarloTables(_) | Engine::Compact(_),
                Some(tree),
            ) => {
                let (policy, _) = self.policy().to_tree_policy(tree)?;
                Some(exploitability(tree, &policy))
            }
            (Engine::MonteCarloTables(s), None) => Some(exact_exploitability(
                &s.any_stream(),
                s.tables(),
                &s.state().average_policy(s.tables()),
                self.progress.as_deref(),
                stop,
            )?),
            (_, None) => None,
        };
        let point = EvalPoint {
            iteration: self.iteration(),
            seconds: self.seconds,
            exploitability: e.map(|e| e.exploitability),
            value_p0: e.map(|e| e.value_p0),
        };
        if self.history.last().map(|h| h.iteration) != Some(point.iteration) {
            self.history.push(point);
        }
        Ok(e)
    }

    pub fn checkpoint(&self) -> Checkpoint {
        let solver = match &self.engine {
            Engine::Tabular(s) => SolverState::Tabular(s.state().clone()),
            Engine::MonteCarlo(s) => SolverState::MonteCarlo(Box::new(s.state().clone())),
            Engine::Stream(s) => match s.regression_settings() {
                None => SolverState::Stream(Box::new(s.state())),
                Some(settings) => SolverState::StreamRegression(Box::new(StreamRcfrState {
                    settings,
                    arrays: s.state(),
                })),
            },
            Engine::MonteCarloTables(s) => {
                SolverState::MonteCarloTables(Box::new(s.state().clone()))
            }
            Engine::Regression(s) => SolverState::Regression(Box::new(s.state())),
            Engine::Compact(s) => SolverState::Compact(Box::new(s.state().clone())),
        };
        Checkpoint {
            format: CHECKPOINT_FORMAT.to_string(),
            version: CHECKPOINT_VERSION,
            game: self.game.game_string(),
            solver,
            history: self.history.clone(),
            seconds: self.seconds,
        }
    }
}

/// A Deep CFR checkpoint file: a training checkpoint (`darkhex train
/// --checkpoint`) holding a [`DeepCfrState`], always the checksummed binary
/// form.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeepCheckpoint {
    pub format: String,
    pub version: u32,
    pub game: String,
    pub deep_cfr: DeepCfrState,
    /// Training seconds so far, across resumed runs.
    pub seconds: f64,
}

impl Document for DeepCheckpoint {
    const KIND: FileKind = FileKind::Checkpoint;
    const VERSION: u32 = CHECKPOINT_VERSION;
    fn game(&self) -> &str {
        &self.game
    }
}

impl DeepCheckpoint {
    pub fn new(game: &AnyGame, deep_cfr: DeepCfrState, seconds: f64) -> DeepCheckpoint {
        DeepCheckpoint {
            format: FileKind::Checkpoint.format().to_string(),
            version: CHECKPOINT_VERSION,
            game: game.game_string(),
            deep_cfr,
            seconds,
        }
    }

    pub fn save(&self, path: &Path) -> Result<(), FileError> {
        files::save(path, self, Encoding::Binary)
    }

    /// Reads a Deep CFR checkpoint for `game`: another game's, or another
    /// algorithm's checkpoint, is refused saying so.
    pub fn load_for(path: &Path, game: &AnyGame) -> Result<DeepCheckpoint, PolicyError> {
        let c: DeepCheckpoint = files::load(path).map_err(|e| match e {
            FileError::Malformed { path, what, .. } => {
                // Naming the algorithm that made it says how to resume it.
                let reason = match Checkpoint::load(&path) {
                    Ok(c) => format!(
                        "it is not a deep-cfr checkpoint but a {0} one (resume it with --algo {0}, or without --algo)",
                        c.algorithm().name()
                    ),
                    Err(_) => "it is not a deep-cfr checkpoint (resume it with the --algo it was made with)"
                        .into(),
                };
                PolicyError::File(FileError::Malformed { path, what, reason })
            }
            e => PolicyError::File(e),
        })?;
        require_game(&c.game, game)?;
        Ok(c)
    }
}

/// Refuses external sampling on games where one iteration is too wide.
fn check_sampling_cost(game: &AnyGame, sampling: Sampling, seed: u64) -> Result<(), TrainError> {
    if sampling == Sampling::External {
        let cost = with_game!(game, g => external_sampling_cost(g, 64, seed));
        if cost > MAX_EXTERNAL_SAMPLING_COST {
            return Err(TrainError::TooWide(cost, game.game_string()));
        }
    }
    Ok(())
}

/// A sampled policy's provenance: its seed and worker count reproduce it.
fn sampling_provenance(mut provenance: Provenance, seed: u64, workers: usize) -> Provenance {
    provenance.parameters.insert("seed".into(), seed as f64);
    provenance
        .parameters
        .insert("workers".into(), workers as f64);
    provenance
}

/// The checkpoint's algorithm, if it is for `game` and is the one requested.
fn check_resumable(
    game: &AnyGame,
    checkpoint: &Checkpoint,
    requested: Option<Algorithm>,
) -> Result<Algorithm, TrainError> {
    let ours = game.game_string();
    if !same_game(&checkpoint.game, game) {
        return Err(TrainError::WrongGame {
            differences: game_differences(&checkpoint.game, &ours),
            file_game: checkpoint.game.clone(),
            game: ours,
        });
    }
    let algorithm = checkpoint.algorithm();
    if let Some(r) = requested
        && r != algorithm
    {
        return Err(TrainError::WrongAlgorithm {
            found: describe(algorithm),
            requested: describe(r),
        });
    }
    Ok(algorithm)
}

fn describe(a: Algorithm) -> String {
    let params: Vec<String> = a
        .parameters()
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    if params.is_empty() {
        a.name().to_string()
    } else {
        format!("{}({})", a.name(), params.join(","))
    }
}
