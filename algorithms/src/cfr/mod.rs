//! The CFR family: tabular CFR, CFR+, Linear and Discounted CFR on a
//! compiled tree ([`tabular`]), Monte Carlo CFR with external and outcome
//! sampling on the State API ([`mccfr`], over [`info_table`]'s keyed
//! tables) and over the information-state tables ([`table_mccfr`], walking
//! [`sampled_walk`], or [`dark_hex_outcome`] for outcome sampling on Dark
//! Hex, with [`sparse_updates`] per worker), outcome sampling on Dark Hex
//! with packed keys under any imperfect-recall abstraction
//! ([`compact_mccfr`], over [`compact_table`]), full-width
//! training on the streaming tables for games too large to compile
//! ([`streaming`]), regression CFR and f-RCFR on the compiled tree
//! ([`rcfr`], over [`crate::fa`]'s features and regressors) and over the
//! streaming tables ([`table_rcfr`]), Deep CFR on
//! the State API with networks and reservoirs only ([`deep_cfr`]), ESCHER
//! on Deep CFR's pieces with a history value function ([`escher`]), and training runs with checkpoints that resume bitwise
//! ([`training`]).

pub mod compact_mccfr;
pub mod compact_table;
pub mod compact_updates;
mod dark_hex_outcome;
pub mod deep_cfr;
pub mod deep_cfr_settings;
pub mod escher;
pub mod escher_options;
pub mod escher_settings;
pub mod info_table;
pub mod mccfr;
pub mod pone_terminals;
pub mod rcfr;
mod sampled_walk;
mod sparse_updates;
pub mod streaming;
pub mod table_mccfr;
pub mod table_rcfr;
pub mod tabular;
pub mod training;

pub use compact_mccfr::{CompactError, CompactSolver, CompactState};
pub use mccfr::{McSolver, McState, Sampling};
pub use rcfr::{Link, RcfrSettings, RcfrSolver, RcfrState, RegressorKind};
pub use table_mccfr::{AnyTableMc, TableMcSolver, TableMcState};
pub use tabular::{CfrSolver, CfrState, CfrVariant, SumOrder};
pub use training::{Algorithm, AlgorithmParams, Checkpoint, EvalPoint, TrainError, Trainer};
