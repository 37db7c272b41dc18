//! The NFSP entries of the preset `rudolph2026` (see
//! [`crate::rl::presets`]): IIG-RL-Benchmark's
//! best_hyperparameters/min_final_expl_hparams/nfsp YAMLs, transcribed
//! value for value; what they leave out is OpenSpiel's default (the inner
//! DQN's `min_buffer_size_to_learn`, 1000). Their `rl_learning_rate` is
//! not used by the benchmark's NFSP (the inner DQN takes its own
//! `learning_rate`), so it is not here either.

use darkhex_games::{AnyGame, Game};

use crate::rl::nfsp::NfspSettings;
use crate::rl::presets::{ADH, APTTT, CDH, CPTTT, LIARS, PresetError, known, same_game};

/// One YAML: the benchmark's game name, the game, then (anticipatory_param,
/// batch_size, learn_every, min_buffer_size_to_learn,
/// reservoir_buffer_capacity, sl_learning_rate) and the inner DQN's
/// (batch_size, epsilon_decay_duration, epsilon_end, epsilon_start,
/// learning_rate, replay_buffer_capacity, update_target_network_every).
type Entry = (
    &'static str,
    &'static str,
    (f64, u32, u32, u32, u32, f64),
    (u32, u64, f64, f64, f64, u32, u32),
);

#[rustfmt::skip]
const ENTRIES: [Entry; 5] = [
    ("abrupt_dark_hex", ADH, (0.1, 512, 256, 250, 2_000_000, 0.0025), (16, 160_000_000, 0.001, 0.06, 0.00125, 400_000, 4000)),
    ("abrupt_phantom_ttt", APTTT, (0.31622776601683794, 256, 256, 125, 2_000_000, 0.0025), (64, 5_000_000, 0.004, 0.12, 0.00125, 100_000, 500)),
    ("classical_dark_hex", CDH, (0.1, 64, 128, 8000, 4_000_000, 0.00125), (16, 20_000_000, 0.00025, 0.03, 0.0025, 500_000, 250)),
    ("classical_phantom_ttt", CPTTT, (0.5623413251903491, 128, 256, 4000, 250_000, 0.0025), (8, 10_000_000, 0.002, 0.015, 0.0025, 25_000, 125)),
    ("liars_dice", LIARS, (0.31622776601683794, 16, 128, 125, 500_000, 0.00125), (32, 40_000_000, 0.001, 0.03, 0.00125, 500_000, 4000)),
];

/// The preset `name`'s NFSP settings on `game`, for a run of `steps`
/// steps from `seed`.
pub fn nfsp_preset(
    name: &str,
    game: &AnyGame,
    steps: u64,
    seed: u64,
) -> Result<NfspSettings, PresetError> {
    known(name)?;
    let ours = game.game_string();
    let Some(&(_, _, nfsp, dqn)) = ENTRIES.iter().find(|e| same_game(e.1, &ours)) else {
        let covered: Vec<String> = ENTRIES
            .iter()
            .map(|e| format!("{} ('{}')", e.0, e.1))
            .collect();
        return Err(PresetError::NotCovered {
            algorithm: "nfsp".to_string(),
            game: ours,
            covered: covered.join(", "),
        });
    };
    let mut s = NfspSettings::new(steps, seed);
    (
        s.anticipatory_param,
        s.batch_size,
        s.learn_every,
        s.min_buffer_size_to_learn,
        s.reservoir_buffer_capacity,
        s.sl_learning_rate,
    ) = nfsp;
    (
        s.dqn.batch_size,
        s.dqn.epsilon_decay_duration,
        s.dqn.epsilon_end,
        s.dqn.epsilon_start,
        s.dqn.learning_rate,
        s.dqn.replay_buffer_capacity,
        s.dqn.update_target_network_every,
    ) = dqn;
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rl::presets::RUDOLPH2026;
    use darkhex_games::load_game;

    #[test]
    fn the_five_games_have_nfsp_settings_and_others_are_refused() {
        for (_, name, ..) in ENTRIES {
            let game = load_game(name).unwrap();
            let s = nfsp_preset(RUDOLPH2026, &game, 10, 0).unwrap();
            s.check().unwrap();
        }
        let cdh = load_game(CDH).unwrap();
        let s = nfsp_preset(RUDOLPH2026, &cdh, 10, 0).unwrap();
        assert_eq!(
            (
                s.batch_size,
                s.min_buffer_size_to_learn,
                s.dqn.update_target_network_every
            ),
            (64, 8000, 250)
        );
        let kuhn = load_game("kuhn_poker").unwrap();
        assert!(matches!(
            nfsp_preset(RUDOLPH2026, &kuhn, 10, 0),
            Err(PresetError::NotCovered { .. })
        ));
        assert!(nfsp_preset("other", &cdh, 10, 0).is_err());
    }
}
