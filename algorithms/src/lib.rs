//! darkhex-algorithms: solvers over the games of `darkhex-games`: game-tree
//! compilation, the CFR family and Monte Carlo CFR, exact best response and
//! exploitability, sequence-form and normal-form LP, PONE (probability-one
//! wins in Dark Hex). The perfect-information Hex/Rex engine is
//! darkhex-hexengine.
//!
//! ```
//! use darkhex_algorithms::{CfrSolver, CfrVariant, CompileOptions, GameTree, exploitability};
//! use darkhex_games::load_game;
//!
//! let game = load_game("kuhn_poker").unwrap();
//! let tree = GameTree::build(&game, &CompileOptions::default()).unwrap();
//! let mut solver = CfrSolver::new(&tree, CfrVariant::Plus);
//! solver.run(1000);
//! let e = exploitability(&tree, &solver.average_policy());
//! assert!(e.exploitability < 1e-4);
//! assert!((e.value_p0 + 1.0 / 18.0).abs() < 1e-3);
//! ```

pub mod approximate_br;
pub mod best_response;
pub mod cfr;
pub mod double_oracle;
pub mod driver;
pub mod fa;
pub mod huge_pages;
pub mod lp;
pub mod policy;
pub mod policy_file;
pub mod pone;
pub mod restricted_br;
pub mod rl;
pub mod stream;
pub mod tree;

// Moved to darkhex-base and darkhex-hexengine; importable from here for
// one release.
pub use darkhex_base::{bytes, files, memory, shard};
pub use darkhex_hexengine::{analyst, eval, hexsolve};

pub use best_response::{
    BestResponse, Exploitability, best_response, expected_value, exploitability,
};
pub use cfr::{
    Algorithm, AlgorithmParams, CfrSolver, CfrState, CfrVariant, Checkpoint, EvalPoint, McSolver,
    McState, Sampling, SumOrder, TableMcSolver, TableMcState, TrainError, Trainer,
};
pub use lp::{LpBackend, LpError, LpOptions, LpSolution, solve_sequence_form};
pub use policy::TreePolicy;
pub use policy_file::{PolicyError, PolicyFile, PolicyTable, Provenance};
pub use tree::{CompileOptions, GameTree, TreeError};
