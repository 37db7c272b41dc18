//! Evaluations of Hex positions: electric resistance ([`resistance`]).

pub mod resistance;

pub use resistance::{Circuit, Resistance, evaluate};
