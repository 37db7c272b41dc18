//! Exact equilibria by linear programming: the sequence form of a game
//! ([`sequence_form`]), its LPs solved whole or over restricted supports
//! ([`solve`]), and the normal form of tiny games ([`normal_form`]).

pub mod normal_form;
pub mod sequence_form;
pub mod solve;

pub use solve::{
    LpBackend, LpError, LpOptions, LpSolution, lp_bytes, solve_player_lp, solve_sequence_form,
};
