//! Evaluations of Hex positions: electric resistance ([`resistance`]), and
//! Honjo et al.'s position networks ([`network`]), their k-shortest path
//! sets ([`paths`]) and the distance evaluations E and E_k ([`distance`]).

pub mod distance;
pub mod network;
pub mod paths;
pub mod resistance;

pub use distance::{Exact, NetworkValue, Weight, WeightError};
pub use network::Network;
pub use paths::{PathLimits, PathSets, path_sets};
pub use resistance::{Circuit, Resistance, evaluate};
