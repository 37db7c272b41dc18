//! Function approximation for the CFR family: feature rows of
//! (information state, action) pairs ([`features`]) and regressors fitted
//! to regrets ([`regress`]).

pub mod features;
pub mod regress;
