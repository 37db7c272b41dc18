//! Reinforcement learning for two-player zero-sum games, one module per
//! method over shared pieces:
//!
//! - [`vector_env`]: many games stepped at once on rayon's threads, the
//!   information-state tensors as the networks' input, legal-action bits,
//!   each game's chance from its own seeded stream; [`pool`]: the pools
//!   the callers work in.
//! - [`network`]: the actor-critic towers on candle; [`adam`]: Adam with
//!   its moments in reach of a checkpoint; [`rollout`]: the rollout
//!   buffer and GAE.
//! - [`ppo`]: PPO in self-play, as the benchmark of Rudolph et al. runs
//!   it; [`mmd`]: magnetic mirror descent, PPO with a magnet and a
//!   proximal term; [`presets`]: the benchmark's best hyper-parameters;
//!   [`options`]: what a user gives, over the defaults or a preset;
//!   [`checkpoint`]: a run's file, to resume it bit for bit.
//! - [`dqn`]: DQN, NFSP's best-response learner and the approximate
//!   best response's ([`dqn_response`]); [`replay`]: its replay buffer and NFSP's reservoir;
//!   [`nfsp`]: neural fictitious self-play on them, [`nfsp_presets`] the
//!   benchmark's settings of it.
//! - [`exact`]: the exact exploitability of a trained network as a run
//!   goes, by the compiled tree or the information-state tables.

pub mod adam;
pub mod checkpoint;
pub mod dqn;
pub mod dqn_response;
pub mod exact;
pub mod mmd;
pub mod network;
pub mod nfsp;
pub mod nfsp_presets;
pub mod nfsp_settings;
pub mod options;
pub mod pool;
pub mod ppo;
pub mod ppo_settings;
pub mod presets;
pub mod replay;
pub mod rollout;
pub mod vector_env;
