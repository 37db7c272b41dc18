//! Function approximation for the CFR family: feature rows of
//! (information state, action) pairs ([`features`]) and regressors fitted
//! to regrets: linear least squares ([`regress`]) and a multilayer
//! perceptron ([`mlp`]); a policy computed a batch of information states
//! at a time ([`batch_policy`]); a trained network as such a policy and
//! its file ([`model`]); candle's thread setting, made once ([`threads`]); a
//! vectorised tanh for the reinforcement-learning networks ([`tanh`]).

pub mod batch_policy;
pub mod features;
pub mod mlp;
pub mod model;
pub mod regress;
pub mod tanh;
pub mod threads;
