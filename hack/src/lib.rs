//! Empty: this crate exists for the features its Cargo.toml asks of its
//! dependencies (see there).
