//! Function approximation for the CFR family: feature rows of
//! (information state, action) pairs ([`features`]) and regressors fitted
//! to regrets: linear least squares ([`regress`]) and a multilayer
//! perceptron ([`mlp`]); a trained network as a policy and its file
//! ([`model`]); candle's thread setting, made once ([`threads`]); a
//! vectorised tanh for the reinforcement-learning networks ([`tanh`]).

pub mod features;
pub mod mlp;
pub mod model;
pub mod regress;
pub mod tanh;
pub mod threads;
