//! Reinforcement learning for two-player zero-sum games: many games
//! stepped at once in Rust ([`vector_env`], on pools the caller works in:
//! [`pool`]).

pub mod pool;
pub mod vector_env;
