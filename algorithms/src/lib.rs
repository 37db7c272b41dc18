//! darkhex-algorithms: solvers over the games of `darkhex-games`: game-tree
//! compilation, the CFR family and Monte Carlo CFR, exact best response and
//! exploitability, sequence-form and normal-form LP, PONE (probability-one
//! wins in Dark Hex), and perfect-information Hex/Rex solvers.

pub mod best_response;
pub mod cfr;
pub mod policy;
pub mod tree;

pub use best_response::{
    BestResponse, Exploitability, best_response, expected_value, exploitability,
};
pub use cfr::{CfrSolver, CfrState, CfrVariant};
pub use policy::TreePolicy;
pub use tree::{CompileOptions, GameTree, TreeError};
