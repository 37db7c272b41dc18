//! Named settings: `rudolph2026`, the best hyper-parameters of Rudolph et
//! al. ("Reevaluating Policy Gradient Methods for Imperfect-Information
//! Games", ICLR 2026) for each game and method, those that reached the
//! lowest exploitability after 10 million steps in their sweep
//! (IIG-RL-Benchmark, best_hyperparameters/min_final_expl_hparams, one
//! YAML per game and method), transcribed below value for value. Their
//! network (three hidden layers of 512) and every setting the YAMLs hold
//! come with the preset; steps and seed stay the caller's.

use darkhex_games::{AnyGame, Game, load_game};
use thiserror::Error;

use crate::rl::mmd::{MmdSettings, Schedule};
use crate::rl::network::BENCHMARK_HIDDEN;
use crate::rl::ppo::PpoSettings;

/// The preset's name.
pub const RUDOLPH2026: &str = "rudolph2026";
pub const NAMES: [&str; 1] = [RUDOLPH2026];

/// One YAML: a game, a method and their settings.
struct Entry {
    /// The benchmark's name for the game.
    benchmark: &'static str,
    /// The game as darkhex (and OpenSpiel) writes it.
    game: &'static str,
    algorithm: &'static str,
    num_envs: u32,
    num_steps: u32,
    num_minibatches: u32,
    update_epochs: u32,
    learning_rate: f64,
    clip_coef: f64,
    ent_coef: f64,
    vf_coef: f64,
    max_grad_norm: f64,
    /// MMD's `kl_coef`.
    kl_coef: Option<f64>,
}

pub(crate) const CDH: &str = "dark_hex(num_rows=3,num_cols=3)";
pub(crate) const ADH: &str = "dark_hex(num_rows=3,num_cols=3,gameversion=adh)";
pub(crate) const CPTTT: &str = "phantom_ttt(obstype=reveal-nothing)";
pub(crate) const APTTT: &str = "phantom_ttt(obstype=reveal-nothing,gameversion=abrupt)";
pub(crate) const LIARS: &str = "liars_dice";

/// Every YAML of PPO and MMD. The settings they all share (anneal_lr,
/// clip_vloss, gae, norm_adv true; gamma 0.99, gae_lambda 0.95, no
/// target_kl) are the defaults of [`PpoSettings::new`].
#[rustfmt::skip]
const ENTRIES: [Entry; 10] = [
    Entry { benchmark: "classical_dark_hex", game: CDH, algorithm: "ppo", num_envs: 8, num_steps: 512, num_minibatches: 4, update_epochs: 8, learning_rate: 0.002, clip_coef: 0.025, ent_coef: 0.05, vf_coef: 1.0, max_grad_norm: 2.0, kl_coef: None },
    Entry { benchmark: "abrupt_dark_hex", game: ADH, algorithm: "ppo", num_envs: 8, num_steps: 256, num_minibatches: 8, update_epochs: 4, learning_rate: 0.00025, clip_coef: 0.025, ent_coef: 0.05, vf_coef: 0.0625, max_grad_norm: 2.0, kl_coef: None },
    Entry { benchmark: "classical_phantom_ttt", game: CPTTT, algorithm: "ppo", num_envs: 8, num_steps: 128, num_minibatches: 4, update_epochs: 4, learning_rate: 0.00025, clip_coef: 0.1, ent_coef: 0.05, vf_coef: 0.5, max_grad_norm: 0.5, kl_coef: None },
    Entry { benchmark: "abrupt_phantom_ttt", game: APTTT, algorithm: "ppo", num_envs: 8, num_steps: 512, num_minibatches: 1, update_epochs: 4, learning_rate: 0.00025, clip_coef: 0.8, ent_coef: 0.2, vf_coef: 0.5, max_grad_norm: 1.0, kl_coef: None },
    Entry { benchmark: "liars_dice", game: LIARS, algorithm: "ppo", num_envs: 8, num_steps: 256, num_minibatches: 1, update_epochs: 8, learning_rate: 6.25e-05, clip_coef: 0.025, ent_coef: 0.1, vf_coef: 0.0625, max_grad_norm: 0.5, kl_coef: None },
    Entry { benchmark: "classical_dark_hex", game: CDH, algorithm: "mmd", num_envs: 8, num_steps: 128, num_minibatches: 4, update_epochs: 1, learning_rate: 6.25e-05, clip_coef: 0.1, ent_coef: 0.2, vf_coef: 2.0, max_grad_norm: 2.0, kl_coef: Some(0.025) },
    Entry { benchmark: "abrupt_dark_hex", game: ADH, algorithm: "mmd", num_envs: 8, num_steps: 32, num_minibatches: 32, update_epochs: 2, learning_rate: 6.25e-05, clip_coef: 0.8, ent_coef: 0.05, vf_coef: 0.0625, max_grad_norm: 0.5, kl_coef: Some(0.1) },
    Entry { benchmark: "classical_phantom_ttt", game: CPTTT, algorithm: "mmd", num_envs: 8, num_steps: 128, num_minibatches: 4, update_epochs: 4, learning_rate: 0.00025, clip_coef: 0.1, ent_coef: 0.05, vf_coef: 0.5, max_grad_norm: 0.5, kl_coef: Some(0.05) },
    Entry { benchmark: "abrupt_phantom_ttt", game: APTTT, algorithm: "mmd", num_envs: 8, num_steps: 16, num_minibatches: 1, update_epochs: 4, learning_rate: 0.00025, clip_coef: 0.8, ent_coef: 0.2, vf_coef: 1.0, max_grad_norm: 0.25, kl_coef: Some(0.2) },
    Entry { benchmark: "liars_dice", game: LIARS, algorithm: "mmd", num_envs: 8, num_steps: 256, num_minibatches: 1, update_epochs: 8, learning_rate: 6.25e-05, clip_coef: 0.025, ent_coef: 0.1, vf_coef: 0.0625, max_grad_norm: 0.5, kl_coef: Some(0.025) },
];

#[derive(Debug, Error, PartialEq)]
pub enum PresetError {
    #[error("unknown preset '{name}'; the presets are: {}", NAMES.join(", "))]
    Unknown { name: String },
    #[error("the preset {RUDOLPH2026} has no {algorithm} settings for {game}; it covers {covered}")]
    NotCovered {
        algorithm: String,
        game: String,
        covered: String,
    },
}

/// Refuses a preset name other than [`RUDOLPH2026`].
pub(crate) fn known(name: &str) -> Result<(), PresetError> {
    if name == RUDOLPH2026 {
        Ok(())
    } else {
        Err(PresetError::Unknown {
            name: name.to_string(),
        })
    }
}

/// Whether the game string `entry` is the game `ours` (as darkhex writes it).
pub(crate) fn same_game(entry: &str, ours: &str) -> bool {
    load_game(entry).is_ok_and(|g| g.game_string() == ours)
}

/// The preset `name`'s settings of `algorithm` (`ppo` or `mmd`) on
/// `game`, for a run of `steps` steps from `seed`.
pub fn preset(
    name: &str,
    game: &AnyGame,
    algorithm: &str,
    steps: u64,
    seed: u64,
) -> Result<PpoSettings, PresetError> {
    known(name)?;
    let ours = game.game_string();
    let Some(e) = ENTRIES
        .iter()
        .find(|e| e.algorithm == algorithm && same_game(e.game, &ours))
    else {
        let covered: Vec<String> = ENTRIES
            .iter()
            .filter(|e| e.algorithm == algorithm)
            .map(|e| format!("{} ('{}')", e.benchmark, e.game))
            .collect();
        return Err(PresetError::NotCovered {
            algorithm: algorithm.to_string(),
            game: ours,
            covered: covered.join(", "),
        });
    };
    Ok(PpoSettings {
        num_envs: e.num_envs,
        num_steps: e.num_steps,
        num_minibatches: e.num_minibatches,
        update_epochs: e.update_epochs,
        learning_rate: e.learning_rate,
        clip_coef: e.clip_coef,
        ent_coef: e.ent_coef,
        vf_coef: e.vf_coef,
        max_grad_norm: e.max_grad_norm,
        hidden: BENCHMARK_HIDDEN,
        mmd: e.kl_coef.map(|kl_coef| MmdSettings {
            kl_coef,
            schedule: Schedule::Constant,
        }),
        ..PpoSettings::new(steps, seed)
    })
}
