//! Solving Hex and Rex positions: virtual connections ([`vc`]), inferior
//! cells ([`inferior`]), and depth-first proof-number search ([`dfpn`]) over
//! a transposition table ([`tt`]), with plain minimax ([`minimax`]) as the
//! reference the tests hold them to. Rex has a rule set of its own
//! ([`rex`]); the search, the table and the geometry are shared.
//!
//! ```
//! use darkhex_hexengine::hexsolve::{DfpnParams, HexSolver, Position, Rules};
//! use darkhex_games::Geometry;
//! use darkhex_games::board::Dims;
//!
//! let dims = Dims::new("hex", 5, 5).unwrap();
//! let geom = Geometry::<1>::new(dims).unwrap();
//! let params = DfpnParams { threads: 2, ..DfpnParams::default() };
//! let solver = HexSolver::new(&geom, Rules::hex(), params);
//! let empty = Position::empty(&geom);
//! assert_eq!(solver.solve(&empty, &|_| {}).wins, Some(true));
//! // Every opening (one search per thread, one shared table).
//! let (values, _stats) = solver.move_values(&empty, &|_, _| {});
//! let wins = |name: &str| {
//!     let cell = dims.parse_cell(name).unwrap();
//!     values.iter().find(|v| v.0 == cell).unwrap().1
//! };
//! assert_eq!(wins("c3"), Some(true));
//! assert_eq!(wins("a1"), Some(false));
//! ```

pub mod captured_search;
pub mod check;
pub mod decompose;
pub mod dfpn;
pub mod edge_patterns;
pub mod edge_search;
pub mod inferior;
pub mod ladder_patterns;
pub mod minimax;
pub mod node;
pub mod openings;
pub mod position;
pub mod rex;
pub mod rules;
pub mod table_file;
pub mod tt;
pub mod vc;
pub mod verdict;
pub mod workspace;

pub use dfpn::{DfpnParams, HexSolver, Outcome, Progress, Stats};
pub use position::{Position, Stones};
pub use rules::Rules;
