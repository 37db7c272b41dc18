//! The tensors of learning code tell information states apart exactly as
//! the information-state keys do, and their decision-point counts are
//! OpenSpiel's (reference/openspiel.json, its tensor partition for dark_hex).

use std::collections::HashMap;

use darkhex_games::{
    Action, AnyGame, AnyState, Game, State, TensorLayout, Tensors, Token, Turn, load_game,
};

/// Receives a player, their information-state key and tensor (as bits),
/// and whether they move there.
type Visit<'a> = dyn FnMut(usize, &[Token], Vec<u32>, bool) + 'a;

/// Every history's two information states.
fn every_information_state(game: &AnyGame, mut visit: impl FnMut(usize, &[Token], Vec<u32>, bool)) {
    fn go(game: &AnyGame, state: &AnyState, visit: &mut Visit) {
        let turn = state.current_player();
        if turn == Turn::Terminal {
            return;
        }
        for p in 0..2 {
            let mut tensor = vec![0.0; game.information_state_tensor_size()];
            game.information_state_tensor(state, p, &mut tensor);
            assert!(
                tensor.iter().all(|&x| x == 0.0 || x == 1.0),
                "{game}: every entry of an information-state tensor is 0 or 1"
            );
            let bits = tensor.iter().map(|x| x.to_bits()).collect();
            visit(p, state.info_key(p), bits, turn == Turn::Player(p));
        }
        let children: Vec<_> = match turn {
            Turn::Chance => state
                .chance_outcomes()
                .into_iter()
                .map(|(a, _)| a)
                .collect(),
            _ => state.legal_actions(),
        };
        for a in children {
            let mut child = state.clone();
            child.apply(a);
            go(game, &child, visit);
        }
    }
    go(game, &game.new_initial_state(), &mut visit);
}

fn reference_infosets(name: &str) -> Option<[u64; 2]> {
    let text = include_str!("../../reference/openspiel.json");
    let r: serde_json::Value = serde_json::from_str(text).unwrap();
    let facts = r["games"].get(name)?;
    let counts = facts["infosets"].as_array()?;
    Some([counts[0].as_u64()?, counts[1].as_u64()?])
}

#[test]
fn information_state_tensors_split_histories_as_the_keys_do() {
    let games = [
        "dark_hex(num_rows=2,num_cols=2)",
        "dark_hex(num_rows=2,num_cols=3)",
        "dark_hex(num_rows=3,num_cols=2)",
        "dark_hex(num_rows=2,num_cols=3,gameversion=adh)",
        "dark_hex(num_rows=3,num_cols=2,gameversion=adh)",
        "dark_hex(num_rows=2,num_cols=3,obstype=reveal-numturns)",
        "dark_hex(num_rows=2,num_cols=3,disclosure=noise)",
        "dark_hex(num_rows=2,num_cols=3,gameversion=adh,disclosure=flash)",
        "dark_hex(num_rows=2,num_cols=2,disclosure=flash,obstype=reveal-numturns)",
        "dark_rex(num_rows=2,num_cols=3,disclosure=noise,obstype=reveal-numturns)",
        "kuhn_poker",
        "leduc_poker",
        "liars_dice(dice_sides=3)",
        "liars_dice(numdice=2,dice_sides=2)",
    ];
    let mut compared = 0;
    for name in games {
        let game = load_game(name).unwrap();
        let mut by_key: HashMap<(usize, Vec<Token>), Vec<u32>> = HashMap::new();
        let mut by_tensor: HashMap<(usize, Vec<u32>), Vec<Token>> = HashMap::new();
        let mut decisions: [std::collections::HashSet<Vec<u32>>; 2] = Default::default();
        every_information_state(&game, |p, key, tensor, moves| {
            let old = by_key.insert((p, key.to_vec()), tensor.clone());
            assert!(
                old.is_none_or(|t| t == tensor),
                "{name}: one information state of player {p}, two tensors"
            );
            let old = by_tensor.insert((p, tensor.clone()), key.to_vec());
            if let Some(old) = old {
                assert_eq!(
                    old,
                    key,
                    "{name}: one tensor of player {p} for {} and {}",
                    game.describe_info_state(&old),
                    game.describe_info_state(key)
                );
            }
            if moves {
                let mut from_key = vec![0.0; game.information_state_tensor_size()];
                game.information_state_tensor_of_key(p, key, &mut from_key)
                    .unwrap_or_else(|e| panic!("{name}: player {p}'s key refused: {e}"));
                let from_key: Vec<u32> = from_key.iter().map(|x| x.to_bits()).collect();
                assert_eq!(from_key, tensor, "{name}: player {p}'s tensor from the key");
                decisions[p].insert(tensor);
            }
        });
        if let Some(reference) = reference_infosets(name) {
            assert_eq!(
                [decisions[0].len() as u64, decisions[1].len() as u64],
                reference,
                "{name}: decision points told apart by the tensor"
            );
            compared += 1;
        }
    }
    assert!(compared >= 5, "only {compared} games had reference counts");
}

#[test]
fn hex_tensors_are_the_board_in_three_planes() {
    let game = load_game("hex(num_rows=2,num_cols=3)").unwrap();
    assert_eq!(game.observation_tensor_shape(), vec![3, 2, 3]);
    let mut state = game.new_initial_state();
    for cell in ["b1", "a2", "c1"] {
        state.apply(game.parse_action(cell).unwrap());
    }
    let mut t = vec![0.0; 18];
    game.observation_tensor(&state, 1, &mut t);
    let plane = |k: usize| -> Vec<f32> { t[6 * k..6 * k + 6].to_vec() };
    assert_eq!(plane(0), [1., 0., 0., 0., 1., 1.]);
    assert_eq!(plane(1), [0., 1., 1., 0., 0., 0.]);
    assert_eq!(plane(2), [0., 0., 0., 1., 0., 0.]);
}

#[test]
fn dark_hex_observations_show_the_view_and_the_variant_extras() {
    let game =
        load_game("dark_hex(num_rows=2,num_cols=2,obstype=reveal-numturns,disclosure=noise)")
            .unwrap();
    // 12 view columns, 8 turn counts (0 to 7), 5 noise counts (0 to 4).
    assert_eq!(game.observation_tensor_shape(), vec![12 + 8 + 5]);
    let mut state = game.new_initial_state();
    // Black a1, White hits a1 (Black hears a noise; classic: White goes on), White b1.
    for cell in ["a1", "a1", "b1"] {
        state.apply(game.parse_action(cell).unwrap());
    }
    let mut t = vec![0.0; 25];
    game.observation_tensor(&state, 0, &mut t);
    assert_eq!(&t[..12], &[0., 1., 1., 1., 1., 0., 0., 0., 0., 0., 0., 0.]);
    assert_eq!(t[12 + 3], 1.0, "three turns so far");
    assert_eq!(t[20 + 1], 1.0, "one noise heard");
    assert_eq!(t.iter().sum::<f32>(), 6.0);
    let mut t = vec![0.0; 25];
    game.observation_tensor(&state, 1, &mut t);
    // White sees its b1 and the Black stone it found on a1.
    assert_eq!(&t[..12], &[0., 0., 1., 1., 1., 0., 0., 0., 0., 1., 0., 0.]);
    assert_eq!(t[20], 1.0, "White heard no noise");
}

#[test]
fn hex_tensors_from_keys_are_the_positions_and_bad_keys_are_refused() {
    let game = load_game("hex(num_rows=2,num_cols=3)").unwrap();
    let mut checked = 0;
    every_information_state(&game, |p, key, tensor, moves| {
        if moves {
            let mut from_key = vec![0.0; game.information_state_tensor_size()];
            game.information_state_tensor_of_key(p, key, &mut from_key)
                .unwrap();
            let from_key: Vec<u32> = from_key.iter().map(|x| x.to_bits()).collect();
            assert_eq!(from_key, tensor, "{key:?}");
            checked += 1;
        }
    });
    assert!(checked > 100, "{checked} positions");
    let mut out = vec![0.0; game.information_state_tensor_size()];
    assert!(
        game.information_state_tensor_of_key(0, &[9], &mut out)
            .is_err()
    );
    let dark = load_game("dark_hex(num_rows=2,num_cols=2)").unwrap();
    let mut out = vec![0.0; dark.information_state_tensor_size()];
    let e = dark
        .information_state_tensor_of_key(0, &[7], &mut out)
        .unwrap_err();
    assert!(e.contains("outside the 4 cells"), "{e}");
    let kuhn = load_game("kuhn_poker").unwrap();
    let mut out = vec![0.0; kuhn.information_state_tensor_size()];
    assert!(
        kuhn.information_state_tensor_of_key(0, &[], &mut out)
            .is_err()
    );
}

/// Phantom tic-tac-toe is too large to walk here: its tensors from keys
/// are held to the states' along many pseudo-random games, both variants
/// and both observation types.
#[test]
fn phantom_ttt_tensors_from_keys_are_the_states() {
    for name in [
        "phantom_ttt",
        "phantom_ttt(gameversion=abrupt)",
        "phantom_ttt(obstype=reveal-numturns)",
        "phantom_ttt(gameversion=abrupt,obstype=reveal-numturns)",
    ] {
        let game = load_game(name).unwrap();
        let size = game.information_state_tensor_size();
        let mut seed: u64 = 7;
        let mut checked = 0;
        for _ in 0..300 {
            let mut state = game.new_initial_state();
            while let Turn::Player(p) = state.current_player() {
                let mut tensor = vec![0.0; size];
                game.information_state_tensor(&state, p, &mut tensor);
                let mut from_key = vec![0.0; size];
                game.information_state_tensor_of_key(p, state.info_key(p), &mut from_key)
                    .unwrap_or_else(|e| panic!("{name}: key refused: {e}"));
                assert_eq!(from_key, tensor, "{name}: player {p}'s tensor from the key");
                checked += 1;
                let legal = state.legal_actions();
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                state.apply(legal[(seed >> 33) as usize % legal.len()]);
            }
        }
        assert!(checked > 1000, "{name}: {checked}");
    }
}

/// OpenSpiel's dark_hex tensor layout, value for value against pyspiel's
/// tensors at the states of reference/openspiel_dark_hex_tensors.json
/// (scripts/openspiel_dark_hex_tensors.py), from the keys as a network's
/// evaluation over the tables meets them.
#[test]
fn openspiel_dark_hex_tensors_are_pyspiels() {
    let text = include_str!("../../reference/openspiel_dark_hex_tensors.json");
    let fixture: serde_json::Value = serde_json::from_str(text).unwrap();
    let mut compared = 0;
    for g in fixture["games"].as_array().unwrap() {
        let name = g["game"].as_str().unwrap();
        let game = load_game(name).unwrap();
        let size = g["size"].as_u64().unwrap() as usize;
        assert_eq!(
            game.information_state_tensor_size_in(TensorLayout::OpenSpiel),
            Ok(size),
            "{name}"
        );
        for s in g["states"].as_array().unwrap() {
            let mut state = game.new_initial_state();
            for a in s["history"].as_array().unwrap() {
                state.apply(a.as_u64().unwrap() as Action);
            }
            for (p, theirs) in s["tensors"].as_array().unwrap().iter().enumerate() {
                let mut want = vec![0.0f32; size];
                for entry in theirs.as_array().unwrap() {
                    want[entry[0].as_u64().unwrap() as usize] = entry[1].as_f64().unwrap() as f32;
                }
                let mut ours = vec![0.0f32; size];
                let written = game.information_state_tensor_of_key_in(
                    TensorLayout::OpenSpiel,
                    p,
                    state.info_key(p),
                    &mut ours,
                );
                // A player who sees no empty cell has no information state.
                if state.current_player() != Turn::Player(p) && written.is_err() {
                    continue;
                }
                written.unwrap_or_else(|e| panic!("{name}: player {p}'s key refused: {e}"));
                assert_eq!(ours, want, "{name}, {:?}, player {p}", state.history());
                compared += 1;
            }
        }
    }
    assert!(compared > 80, "{compared}");
}

#[test]
fn games_openspiel_has_no_tensor_for_are_refused() {
    for name in [
        "hex(board_size=3)",
        "dark_rex(num_rows=2,num_cols=2)",
        "dark_hex(num_rows=2,num_cols=2,disclosure=flash)",
    ] {
        let game = load_game(name).unwrap();
        let e = game
            .information_state_tensor_size_in(TensorLayout::OpenSpiel)
            .unwrap_err();
        assert!(e.contains("OpenSpiel"), "{name}: {e}");
        assert!(
            game.information_state_tensor_of_key_in(
                TensorLayout::OpenSpiel,
                0,
                &[],
                &mut [0.0; 64]
            )
            .is_err(),
            "{name}"
        );
    }
    // Where darkhex's tensor is OpenSpiel's, the two layouts are one.
    let kuhn = load_game("kuhn_poker").unwrap();
    assert_eq!(
        kuhn.information_state_tensor_size_in(TensorLayout::OpenSpiel),
        Ok(kuhn.information_state_tensor_size())
    );
    // The wrong length is refused, not written past.
    let dh = load_game("dark_hex(num_rows=3,num_cols=3)").unwrap();
    assert!(
        dh.information_state_tensor_of_key_in(TensorLayout::OpenSpiel, 0, &[], &mut [0.0; 161])
            .is_err()
    );
}
