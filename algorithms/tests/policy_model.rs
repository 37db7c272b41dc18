//! Policy model files: a trained network saved and loaded plays the same
//! policy to the bit, and damaged files, files for another game and
//! feature maps the game does not have are refused.

use std::path::Path;

use darkhex_algorithms::cfr::deep_cfr::{DeepCfrSettings, DeepCfrSolver};
use darkhex_algorithms::fa::features::{FeatureKind, FeatureMap};
use darkhex_algorithms::fa::mlp::{Mlp, MlpSettings};
use darkhex_algorithms::fa::model::{ModelProvenance, PolicyHead, PolicyModel, Training};
use darkhex_algorithms::stream::{BuildOptions, PassOptions, build_tables, stream_exploitability};
use darkhex_algorithms::{CompileOptions, GameTree, TreePolicy, exploitability};
use darkhex_games::{Action, AnyGame, Game, NUM_PLAYERS, State, Token, Turn, load_game};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn bits(p: &TreePolicy) -> Vec<u64> {
    p.probs.iter().flatten().map(|x| x.to_bits()).collect()
}

fn small_settings(iterations: u64) -> DeepCfrSettings {
    let mut s = DeepCfrSettings::new(iterations, 5);
    s.traversals = 20;
    for n in [&mut s.advantage_network, &mut s.policy_network] {
        n.hidden = [16, 16, 0, 0];
        n.steps = 16;
    }
    s
}

/// A Kuhn model trained, saved in both encodings and loaded: every
/// information state's probabilities are the trained ones to the bit, and
/// so is the exploitability; one state at a time (as a player asks) gives
/// the bits of the whole table at once.
#[test]
fn a_saved_model_plays_the_trained_policy_to_the_bit() {
    let game = load_game("kuhn_poker").unwrap();
    let tree = GameTree::build(&game, &CompileOptions::default()).unwrap();
    let mut solver = DeepCfrSolver::new(game, small_settings(3)).unwrap();
    solver.run().unwrap();
    let trained = solver.tree_policy(&tree).unwrap();
    let e = exploitability(&tree, &trained).exploitability;
    let dir = tempfile::tempdir().unwrap();
    for name in ["kuhn.bin", "kuhn.json"] {
        let path = dir.path().join(name);
        solver
            .model()
            .unwrap()
            .save(&path, solver.provenance(Some(e)))
            .unwrap();
        let (model, file) = PolicyModel::load_for(&path, &game).unwrap();
        assert_eq!(file.exploitability, Some(e));
        assert_eq!(file.iterations, 3);
        assert_eq!(file.training, Training::DeepCfr(solver.settings()));
        assert_eq!(file.features, "obs");
        let loaded = model.tree_policy(&tree).unwrap();
        assert_eq!(bits(&loaded), bits(&trained), "{name}");
        assert_eq!(exploitability(&tree, &loaded).exploitability, e);
        for p in 0..NUM_PLAYERS {
            let table = tree.infosets(p);
            for i in 0..table.len() {
                let one = model
                    .policy(p, &table.keys[i], table.actions_of(i))
                    .unwrap();
                let one: Vec<u64> = one.iter().map(|x| x.to_bits()).collect();
                let all: Vec<u64> = trained
                    .infoset(&tree, p, i)
                    .iter()
                    .map(|x| x.to_bits())
                    .collect();
                assert_eq!(one, all, "player {p} infoset {i}");
            }
        }
    }
    // The learned policy is not the uniform one: the test would not notice
    // a model that forgot its weights otherwise.
    assert_ne!(bits(&trained), bits(&TreePolicy::uniform(&tree)));
}

/// A model file written before networks had a head and an activation
/// (neither field present) is read as one of rectified units with clipped
/// outputs, which is what such files hold: it plays the same policy.
#[test]
fn model_files_from_before_heads_and_activations_are_read_as_they_were() {
    let game = load_game("kuhn_poker").unwrap();
    let tree = GameTree::build(&game, &CompileOptions::default()).unwrap();
    let mut solver = DeepCfrSolver::new(game, small_settings(2)).unwrap();
    solver.run().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.json");
    solver
        .model()
        .unwrap()
        .save(&path, solver.provenance(None))
        .unwrap();
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(json["head"], "clipped");
    json.as_object_mut().unwrap().remove("head");
    for net in json["networks"].as_array_mut().unwrap() {
        assert_eq!(net["settings"]["activation"], "relu");
        net["settings"]
            .as_object_mut()
            .unwrap()
            .remove("activation");
    }
    for key in ["advantage_network", "policy_network"] {
        json["training"][key]
            .as_object_mut()
            .unwrap()
            .remove("activation");
    }
    std::fs::write(&path, json.to_string()).unwrap();
    let (old, file) = PolicyModel::load_for(&path, &game).unwrap();
    assert_eq!(file.head, PolicyHead::Clipped);
    assert_eq!(file.training, Training::DeepCfr(solver.settings()));
    assert_eq!(
        bits(&old.tree_policy(&tree).unwrap()),
        bits(&solver.tree_policy(&tree).unwrap())
    );
}

/// Information states met on random playouts of `game`, with their legal
/// actions and player.
fn random_states(game: &AnyGame, count: usize, seed: u64) -> Vec<(usize, Vec<Token>, Vec<Action>)> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let mut state = game.new_initial_state();
        loop {
            match state.current_player() {
                Turn::Terminal => break,
                Turn::Chance => {
                    let outcomes = state.chance_outcomes();
                    state.apply(outcomes[rng.random_range(0..outcomes.len())].0);
                }
                Turn::Player(p) => {
                    let actions = state.legal_actions();
                    out.push((p, state.info_key(p).to_vec(), actions.clone()));
                    state.apply(actions[rng.random_range(0..actions.len())]);
                }
            }
        }
    }
    out
}

fn dark_hex_3x3() -> AnyGame {
    load_game("dark_hex(num_rows=3,num_cols=3)").unwrap()
}

/// A 3x3 Dark Hex model with networks of drawn weights (no table of the
/// game fits in a test, nor does it need one).
fn drawn_model(game: AnyGame) -> PolicyModel {
    let map = FeatureMap::new(FeatureKind::Observation, &game, [0; NUM_PLAYERS]);
    let networks = std::array::from_fn(|p| {
        let settings = MlpSettings {
            hidden: [32, 16, 0, 0],
            ..MlpSettings::new(11)
        };
        let actions = game.num_distinct_actions();
        Some(Mlp::with_outputs(settings, map.observation_width(), actions, p as u64).unwrap())
    });
    PolicyModel::new(game, map, networks)
}

fn provenance() -> ModelProvenance {
    ModelProvenance {
        algorithm: "deep-cfr".into(),
        iterations: 0,
        exploitability: None,
        training: Training::DeepCfr(DeepCfrSettings::new(0, 11)),
    }
}

/// On 3x3 Dark Hex, 3,000 information states of random playouts: the
/// loaded model's probabilities are the saved one's to the bit, and they
/// are distributions that differ from state to state.
#[test]
fn a_saved_dark_hex_model_gives_the_same_bits_on_random_states() {
    let game = dark_hex_3x3();
    let model = drawn_model(game);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dh3.bin");
    model.save(&path, provenance()).unwrap();
    let (loaded, _) = PolicyModel::load_for(&path, &game).unwrap();
    let states = random_states(&game, 3000, 1);
    let mut distinct = std::collections::HashSet::new();
    for (p, key, actions) in &states {
        let a = model.policy(*p, key, actions).unwrap();
        let b = loaded.policy(*p, key, actions).unwrap();
        let (a, b): (Vec<u64>, Vec<u64>) = (
            a.iter().map(|x| x.to_bits()).collect(),
            b.iter().map(|x| x.to_bits()).collect(),
        );
        assert_eq!(a, b, "player {p} at {}", game.describe_info_state(key));
        let sum: f64 = loaded.policy(*p, key, actions).unwrap().iter().sum();
        assert!((sum - 1.0).abs() < 1e-12, "{sum}");
        distinct.insert(a);
    }
    assert!(distinct.len() > 100, "{}", distinct.len());
}

fn refused(path: &Path, game: &AnyGame) -> String {
    match PolicyModel::load_for(path, game) {
        Ok(_) => panic!("{} was accepted", path.display()),
        Err(e) => e.to_string(),
    }
}

/// A cut file, a changed byte, a model of another game and a feature map
/// the game does not have (or not at the networks' width) are refused in
/// one line that says which.
#[test]
fn damaged_and_foreign_models_are_refused() {
    let game = dark_hex_3x3();
    let model = drawn_model(game);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.bin");
    model.save(&path, provenance()).unwrap();
    let good = std::fs::read(&path).unwrap();
    let bad = dir.path().join("bad.bin");
    std::fs::write(&bad, &good[..good.len() - 100]).unwrap();
    let e = refused(&bad, &game);
    assert!(e.contains("cut short") && !e.contains('\n'), "{e}");
    let mut flipped = good.clone();
    let at = good.len() - 50;
    flipped[at] ^= 1;
    std::fs::write(&bad, &flipped).unwrap();
    assert!(refused(&bad, &game).contains("checksum"));
    let other = load_game("dark_hex(num_rows=3,num_cols=4)").unwrap();
    let e = refused(&path, &other);
    assert!(e.contains("num_cols 3 vs 4"), "{e}");
    let e = refused(&path, &load_game("kuhn_poker").unwrap());
    assert!(e.contains("is for dark_hex"), "{e}");
    // The JSON form, edited: the feature map renamed, then the game.
    let json = dir.path().join("m.json");
    model.save(&json, provenance()).unwrap();
    let text = std::fs::read_to_string(&json).unwrap();
    for (from, to, says) in [
        (
            "\"features\":\"obs\"",
            "\"features\":\"one-hot\"",
            "'one-hot'",
        ),
        (
            "\"features\":\"obs\"",
            "\"features\":\"pixels\"",
            "'pixels'",
        ),
        ("\"features\":\"obs\"", "\"features\":\"joint\"", "'joint'"),
    ] {
        assert!(text.contains(from));
        std::fs::write(&bad, text.replace(from, to)).unwrap();
        let e = refused(&bad, &game);
        assert!(e.contains(says), "{e}");
    }
    let four = "dark_hex(num_cols=4,num_rows=3)";
    std::fs::write(&bad, text.replace(&game.game_string(), four)).unwrap();
    let e = refused(&bad, &other);
    assert!(
        e.contains("takes 41 features") && e.contains("53 wide"),
        "{e}"
    );
    // One weight dropped from a network: the message says which count is
    // the file's and which the network's.
    let at = text.find("\"weights\":[").unwrap() + "\"weights\":[".len();
    let comma = at + text[at..].find(',').unwrap();
    std::fs::write(&bad, format!("{}{}", &text[..at], &text[comma + 1..])).unwrap();
    let e = refused(&bad, &game);
    assert!(
        e.contains("holds 2024 weights where a network of this shape needs 2025"),
        "{e}"
    );
    let model_json = std::fs::read_to_string(&json).unwrap();
    assert!(model_json.starts_with("{\"format\":\"darkhex-model\""));
}

/// A model's exact exploitability by the streaming pass (what `exploit`
/// does where the tree does not compile, 3x3 Dark Hex) equals the one on
/// the compiled tree, on Dark Hex 2x3 and 3x2 (classic and abrupt) with
/// networks of drawn weights and on Kuhn with a trained model: the
/// tables' rows get the same policy as the tree's information states.
#[test]
fn a_model_streamed_has_the_exploitability_of_the_model_on_the_tree() {
    let kuhn = load_game("kuhn_poker").unwrap();
    let mut solver = DeepCfrSolver::new(kuhn, small_settings(2)).unwrap();
    solver.run().unwrap();
    let trained = solver.model().unwrap();
    let mut models = vec![("kuhn_poker".to_string(), kuhn, None)];
    for name in [
        "dark_hex(num_rows=2,num_cols=3)",
        "dark_hex(num_rows=3,num_cols=2)",
        "dark_hex(num_rows=3,num_cols=2,gameversion=adh)",
    ] {
        let game = load_game(name).unwrap();
        models.push((name.to_string(), game, Some(drawn_model(game))));
    }
    for (name, game, drawn) in &models {
        let model = drawn.as_ref().unwrap_or(trained);
        let tree = GameTree::build(game, &CompileOptions::default()).unwrap();
        let on_tree = exploitability(&tree, &model.tree_policy(&tree).unwrap());
        let tables = build_tables(game, &BuildOptions::default()).unwrap();
        let rows = model.row_policy(&tables).unwrap();
        let streamed = stream_exploitability(game, &tables, &rows, &PassOptions::default())
            .unwrap()
            .exploitability;
        assert!(on_tree.exploitability > 0.01, "{name}: {on_tree:?}");
        for (s, t, what) in [
            (
                streamed.exploitability,
                on_tree.exploitability,
                "exploitability",
            ),
            (streamed.value_p0, on_tree.value_p0, "value for player 0"),
            (
                streamed.best_response_values[0],
                on_tree.best_response_values[0],
                "player 0's best response",
            ),
            (
                streamed.best_response_values[1],
                on_tree.best_response_values[1],
                "player 1's best response",
            ),
        ] {
            assert!(
                (s - t).abs() < 1e-12,
                "{name}: {what} streamed {s}, on the tree {t}"
            );
        }
    }
}

/// The network's policy over the tables, reported as it goes (what
/// `exploit MODEL` shows in a bar on 3x3 Dark Hex): the rows done rise a
/// batch at a time to every decision row of both players, and the policy
/// is `row_policy`'s to the bit.
#[test]
fn a_model_over_the_tables_reports_its_rows_as_it_goes() {
    use darkhex_algorithms::fa::model::CHUNK;
    use std::cell::RefCell;
    let game = load_game("dark_hex(num_rows=3,num_cols=2,gameversion=adh)").unwrap();
    let model = drawn_model(game);
    let tables = build_tables(&game, &BuildOptions::default()).unwrap();
    let rows = (0..NUM_PLAYERS)
        .map(|p| tables.player(p).num_decision_rows() as u64)
        .sum::<u64>();
    let seen = RefCell::new(Vec::new());
    let reported = model
        .row_policy_reporting(&tables, &|n| seen.borrow_mut().push(n))
        .unwrap();
    let seen = seen.into_inner();
    assert!(seen.len() > 2, "{rows} rows in {} reports", seen.len());
    assert_eq!(seen.last(), Some(&rows));
    let mut before = 0;
    for &n in &seen {
        assert!(n > before && n - before <= CHUNK as u64, "{seen:?}");
        before = n;
    }
    let plain = model.row_policy(&tables).unwrap();
    for p in 0..NUM_PLAYERS {
        let bits = |r: &[f64]| r.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&reported.probs[p]), bits(&plain.probs[p]));
    }
}

/// A policy that is no network (what a Python function is to the
/// library): probabilities drawn from a hash of the key. Its exact
/// exploitability on the compiled tree and streamed over the tables agree.
#[test]
fn any_batch_policy_is_evaluated_on_the_tree_and_the_tables_alike() {
    use darkhex_algorithms::fa::batch_policy::{self, BatchPolicy};
    use darkhex_algorithms::fa::regress::RegressError;
    use darkhex_algorithms::rl::exact::ExactEvaluator;

    struct Hashed(AnyGame);
    impl BatchPolicy for Hashed {
        fn game(&self) -> &AnyGame {
            &self.0
        }
        fn write_policies(
            &self,
            player: usize,
            states: &[(&[Token], &[Action])],
            out: &mut [f64],
        ) -> Result<(), RegressError> {
            let mut at = 0;
            for (key, actions) in states {
                let mut h = 0x9e37_79b9_7f4a_7c15u64 ^ player as u64;
                for &t in key.iter() {
                    h = (h ^ u64::from(t)).wrapping_mul(0x100_0000_01b3);
                }
                let w: Vec<f64> = actions
                    .iter()
                    .map(|&a| 1.0 + ((h >> (a as u64 % 48)) & 0xff) as f64)
                    .collect();
                let sum: f64 = w.iter().sum();
                for (o, x) in out[at..at + w.len()].iter_mut().zip(&w) {
                    *o = x / sum;
                }
                at += w.len();
            }
            Ok(())
        }
    }
    let game = load_game("dark_hex(num_rows=3,num_cols=2,gameversion=adh)").unwrap();
    let policy = Hashed(game);
    let tree = GameTree::build(&game, &CompileOptions::default()).unwrap();
    let on_tree = exploitability(&tree, &batch_policy::tree_policy(&policy, &tree).unwrap());
    let tables = build_tables(&game, &BuildOptions::default()).unwrap();
    let streamed = ExactEvaluator::Tables(Box::new(tables))
        .evaluate(&policy, &PassOptions::default())
        .unwrap();
    let uniform = exploitability(&tree, &TreePolicy::uniform(&tree)).exploitability;
    assert!(
        (on_tree.exploitability - uniform).abs() > 1e-3,
        "not the uniform policy"
    );
    assert!(
        (streamed.exploitability - on_tree.exploitability).abs() < 1e-12,
        "streamed {}, on the tree {}",
        streamed.exploitability,
        on_tree.exploitability
    );
}
