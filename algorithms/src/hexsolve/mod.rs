//! Solving Hex and Rex positions: virtual connections ([`vc`]), inferior
//! cells ([`inferior`]), and depth-first proof-number search ([`dfpn`]) over
//! a transposition table ([`tt`]), with plain minimax ([`minimax`]) as the
//! reference the tests hold them to.

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
pub mod position;
pub mod tt;
pub mod vc;

pub use dfpn::{DfpnParams, HexSolver, Outcome, Progress, Stats};
pub use node::Rules;
pub use position::{Position, Stones};
