//! The streaming tables and best response against the compiled tree: the
//! same information states, the same counts, and the same best-response
//! values, exploitability and expected value for random policies, whether
//! those are read from a JSON or a binary policy file.

mod common;
use common::{hex_and_rex_variants, variants};

use std::path::Path;

use std::collections::HashMap;

use darkhex_algorithms::memory::MemoryLimit;
use darkhex_algorithms::stream::{
    BuildOptions, DarkHexStream, InfoStateTables, PassOptions, RowPolicy, StateStream,
    build_by_walk, build_merged, build_tables, dark_hex_pass, player_regrets, policy_value,
    sequence_payoffs, stream_best_responses, stream_exploitability,
};
use darkhex_algorithms::{
    CompileOptions, GameTree, PolicyFile, Provenance, TreePolicy, exploitability,
};
use darkhex_games::{AnyGame, Token, load_game};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;

fn reference() -> Value {
    serde_json::from_str(include_str!("../../reference/openspiel.json")).unwrap()
}

/// A random profile with some exact zeros, so that pruned subtrees are exercised.
fn random_policy(tree: &GameTree, seed: u64) -> TreePolicy {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut policy = TreePolicy::uniform(tree);
    for p in 0..2 {
        let table = tree.infosets(p);
        for i in 0..table.len() {
            let slots = table.slots(i);
            let mut w: Vec<f64> = slots
                .clone()
                .map(|_| {
                    if rng.random_bool(0.2) {
                        0.0
                    } else {
                        rng.random::<f64>()
                    }
                })
                .collect();
            if w.iter().all(|&x| x == 0.0) {
                w[0] = 1.0;
            }
            let sum: f64 = w.iter().sum();
            for (slot, x) in slots.zip(w) {
                policy.probs[p][slot] = x / sum;
            }
        }
    }
    policy
}

/// The tables hold exactly the tree's information states, with its actions.
fn check_tables(name: &str, tree: &GameTree, tables: &InfoStateTables) {
    assert_eq!(
        tables.histories(),
        tree.num_nodes() as u64,
        "{name}: histories"
    );
    assert_eq!(
        tables.terminals(),
        tree.num_terminals() as u64,
        "{name}: terminals"
    );
    for p in 0..2 {
        let infosets = tree.infosets(p);
        let t = tables.player(p);
        assert_eq!(
            t.num_decision_rows(),
            infosets.len(),
            "{name}: player {p} infosets"
        );
        assert_eq!(
            t.num_slots(),
            infosets.num_slots(),
            "{name}: player {p} sequences"
        );
        for i in 0..infosets.len() {
            let row = tables
                .row_of_key(p, &infosets.keys[i])
                .unwrap_or_else(|| panic!("{name}: player {p} infoset {i} has no row"));
            assert_eq!(t.actions(row), infosets.actions_of(i), "{name}: actions");
            assert_eq!(tables.key_of_row(p, row), &*infosets.keys[i]);
        }
    }
}

/// The streaming numbers equal the tree's for two random profiles (to
/// 1e-12: the two add up the same products of probabilities and utilities
/// of size at most 1 in different orders), and each profile written as JSON
/// and as a binary file and read back gives the same numbers, bit for bit,
/// both ways.
fn check_best_response(
    name: &str,
    game: &AnyGame,
    tree: &GameTree,
    tables: &InfoStateTables,
    dir: &Path,
) {
    for seed in [1, 2] {
        let tree_policy = random_policy(tree, seed);
        let want = exploitability(tree, &tree_policy);
        let file = PolicyFile::from_tree(tree, &tree_policy, Provenance::default());
        let mut read_back = Vec::new();
        for path in [dir.join("p.json"), dir.join("p.bin")] {
            file.save(&path).unwrap();
            let loaded = PolicyFile::load_for(&path, game).unwrap();
            let (on_tree, missing) = loaded.to_tree_policy(tree).unwrap();
            assert_eq!(missing, 0, "{name} {}", path.display());
            let (on_rows, missing) = RowPolicy::from_file(tables, &loaded).unwrap();
            assert_eq!(missing, [0, 0]);
            let streamed = stream_exploitability(game, tables, &on_rows, &PassOptions::default())
                .unwrap()
                .exploitability;
            read_back.push((exploitability(tree, &on_tree), streamed));
        }
        let bits = |e: &darkhex_algorithms::Exploitability| {
            [
                e.best_response_values[0],
                e.best_response_values[1],
                e.value_p0,
            ]
            .map(f64::to_bits)
        };
        let (json, binary) = (&read_back[0], &read_back[1]);
        assert_eq!(
            bits(&json.0),
            bits(&binary.0),
            "{name} seed {seed}: compiled"
        );
        assert_eq!(
            bits(&json.1),
            bits(&binary.1),
            "{name} seed {seed}: streamed"
        );
        assert_eq!(bits(&json.0), bits(&want), "{name} seed {seed}: read back");
        let got = json.1;
        for (g, w, what) in [
            (
                got.best_response_values[0],
                want.best_response_values[0],
                "br0",
            ),
            (
                got.best_response_values[1],
                want.best_response_values[1],
                "br1",
            ),
            (got.nash_conv, want.nash_conv, "nash_conv"),
            (got.exploitability, want.exploitability, "exploitability"),
            (got.value_p0, want.value_p0, "value_p0"),
        ] {
            assert!(
                (g - w).abs() < 1e-12,
                "{name} seed {seed}: {what} {g} vs {w}"
            );
        }
    }
}

fn compile(game: &AnyGame) -> GameTree {
    GameTree::build(game, &CompileOptions::default()).unwrap()
}

/// Every Dark Hex and Dark Rex variant of a board.
fn check_board(rows: usize, cols: usize) {
    let dir = tempfile::tempdir().unwrap();
    for name in &hex_and_rex_variants(rows, cols) {
        let game = load_game(name).unwrap();
        let tree = compile(&game);
        let tables = build_tables(&game, &BuildOptions::default()).unwrap();
        check_tables(name, &tree, &tables);
        check_best_response(name, &game, &tree, &tables, dir.path());
    }
}

#[test]
fn tables_and_best_responses_equal_the_compiled_trees_on_2x2() {
    check_board(2, 2);
}

#[test]
fn tables_and_best_responses_equal_the_compiled_trees_on_2x3() {
    check_board(2, 3);
}

#[test]
fn tables_and_best_responses_equal_the_compiled_trees_on_3x2() {
    check_board(3, 2);
}

#[test]
fn chance_game_tables_and_best_responses_equal_the_compiled_trees() {
    let r = reference();
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "kuhn_poker",
        "leduc_poker",
        "liars_dice",
        "liars_dice(numdice=2,dice_sides=2)",
    ] {
        let game = load_game(name).unwrap();
        let tree = compile(&game);
        let tables = build_tables(&game, &BuildOptions::default()).unwrap();
        check_tables(name, &tree, &tables);
        check_best_response(name, &game, &tree, &tables, dir.path());
        let facts = &r["games"][name];
        for p in 0..2 {
            let want = facts["infosets"][p].as_u64().unwrap() as usize;
            assert_eq!(tables.player(p).num_decision_rows(), want, "{name}");
        }
        assert_eq!(tables.histories(), facts["histories"].as_u64().unwrap());
        // Uniform exploitability against OpenSpiel's.
        let uniform = RowPolicy::uniform(&tables);
        let e = stream_exploitability(&game, &tables, &uniform, &PassOptions::default()).unwrap();
        let want = facts["uniform_exploitability"].as_f64().unwrap();
        assert!(
            (e.exploitability.exploitability - want).abs() < 1e-12,
            "{name}"
        );
    }
}

#[test]
fn dark_hex_counts_equal_openspiels() {
    let r = reference();
    let mut checked = 0;
    for (name, facts) in r["games"].as_object().unwrap() {
        if !name.starts_with("dark_hex") {
            continue;
        }
        let Some(infosets) = facts.get("infosets") else {
            continue;
        };
        let game = load_game(name).unwrap();
        let tables = build_tables(&game, &BuildOptions::default()).unwrap();
        for p in 0..2 {
            assert_eq!(
                tables.player(p).num_decision_rows() as u64,
                infosets[p].as_u64().unwrap(),
                "{name} player {p}"
            );
        }
        if let Some(h) = facts.get("histories").and_then(Value::as_u64) {
            assert_eq!(tables.histories(), h, "{name}");
        }
        checked += 1;
    }
    assert!(checked >= 8, "only {checked} dark_hex entries checked");
}

/// The merging builder, the walk builder on the same stream, and the walk
/// builder on the State API number the same rows the same way.
#[test]
fn the_three_ways_of_building_tables_agree() {
    for name in variants(2, 3).iter().chain(&variants(3, 2)) {
        let AnyGame::DarkHex(g) = load_game(name).unwrap() else {
            unreachable!()
        };
        let stream = DarkHexStream::new(&g).unwrap();
        let by_levels = build_merged(&stream, &BuildOptions::default()).unwrap();
        let by_walk = build_by_walk(&stream, &BuildOptions::default()).unwrap();
        assert_eq!(by_levels, by_walk, "{name}");
        let state = StateStream::new(g).unwrap();
        let by_state = build_by_walk(&state, &BuildOptions::default()).unwrap();
        for p in 0..2 {
            let (a, b) = (by_levels.player(p), by_state.player(p));
            assert_eq!(a.num_rows(), b.num_rows(), "{name}");
            for row in (0..a.num_rows() as u32).step_by(7) {
                assert_eq!(by_levels.key_of_row(p, row), by_state.key_of_row(p, row));
                assert_eq!(a.actions(row), b.actions(row));
            }
        }
    }
}

/// A build estimated past its memory limit is refused before it starts,
/// with the estimate; a build the estimate let through stops where it
/// outgrows the limit, naming the game and where it stopped, whichever
/// builder it is (merging for Dark Hex, walking for Hex); a limit it fits
/// in changes nothing.
#[test]
fn a_build_past_its_memory_limit_stops_cleanly() {
    use darkhex_algorithms::stream::{AnyStream, StreamError};
    let limited = |bytes: u64| BuildOptions {
        limit: Some(MemoryLimit::bytes_given(bytes)),
        ..Default::default()
    };
    for name in [
        "dark_hex(num_rows=2,num_cols=3,gameversion=adh)",
        "hex(num_rows=3,num_cols=3)",
    ] {
        let game = load_game(name).unwrap();
        let free = build_tables(&game, &BuildOptions::default()).unwrap();
        assert_eq!(build_tables(&game, &limited(1 << 30)).unwrap(), free);
        let tight = limited(free.memory_bytes() as u64 / 4);
        let e = build_tables(&game, &tight).unwrap_err();
        let text = e.to_string();
        assert!(matches!(e, StreamError::Memory(_)), "{text}");
        assert!(
            text.contains("would need about")
                && text.contains("estimate")
                && text.contains("--max-memory-gb"),
            "{text}"
        );
        let e = AnyStream::new(&game)
            .unwrap()
            .build_tables(&tight)
            .unwrap_err();
        let text = e.to_string();
        assert!(
            matches!(e, StreamError::TablesTooLarge { depth, .. } if depth > 0),
            "{text}"
        );
        assert!(
            text.contains(&game.to_string()) && text.contains("--max-memory-gb"),
            "{text}"
        );
    }
}

/// A build whose caller raised its stop flag (a page closed, a Ctrl-C)
/// ends with `Stopped`, whichever builder it is (the walking builder looks
/// at the flag every 4096 histories; 3x3 Hex has far more).
#[test]
fn a_build_told_to_stop_stops() {
    use darkhex_algorithms::stream::StreamError;
    use std::sync::atomic::AtomicBool;
    let stop = AtomicBool::new(true);
    let stopped = BuildOptions {
        stop: Some(&stop),
        ..Default::default()
    };
    for name in [
        "dark_hex(num_rows=2,num_cols=3)",
        "hex(num_rows=3,num_cols=3)",
    ] {
        let game = load_game(name).unwrap();
        let e = build_tables(&game, &stopped).unwrap_err();
        assert!(matches!(e, StreamError::Stopped), "{name}: {e}");
    }
}

/// Same bits with one worker thread and no split as with three threads
/// and many subtrees; and the policy's value from either player's side agrees
/// with the value the pass computed.
#[test]
fn the_pass_does_not_depend_on_the_thread_count() {
    let name = "dark_hex(num_rows=3,num_cols=2,gameversion=adh,disclosure=noise)";
    let AnyGame::DarkHex(g) = load_game(name).unwrap() else {
        unreachable!()
    };
    let stream = DarkHexStream::new(&g).unwrap();
    let tables = build_merged(&stream, &BuildOptions::default()).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut policy = RowPolicy::uniform(&tables);
    for p in 0..2 {
        let t = tables.player(p);
        for row in t.decision_rows() {
            let slots = t.slots(row);
            let w: Vec<f64> = slots.clone().map(|_| rng.random::<f64>()).collect();
            let sum: f64 = w.iter().sum();
            for (s, x) in slots.zip(w) {
                policy.probs[p][s] = x / sum;
            }
        }
    }
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| {
                sequence_payoffs(&stream, &tables, &policy, &PassOptions::default()).unwrap()
            })
    };
    let (one, three) = (run(1), run(3));
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    for p in 0..2 {
        assert_eq!(bits(&one.slots[p]), bits(&three.slots[p]));
    }
    assert_eq!(one.value_p0.to_bits(), three.value_p0.to_bits());
    assert_eq!(one.histories, tables.histories());
    let v0 = policy_value(&tables, &one, &policy, 0);
    let v1 = policy_value(&tables, &one, &policy, 1);
    assert!((v0 - one.value_p0).abs() < 1e-12 && (v1 + one.value_p0).abs() < 1e-12);
    let e = stream_best_responses(&tables, &one);
    assert!(e.best_response_values[0] >= v0 - 1e-12 && e.best_response_values[1] >= v1 - 1e-12);
}

/// A policy file that lacks information states plays uniformly there and
/// says how many; one with a state the game lacks is refused.
#[test]
fn missing_states_play_uniformly_and_unknown_ones_are_refused() {
    let name = "dark_hex(num_rows=2,num_cols=3,gameversion=adh)";
    let game = load_game(name).unwrap();
    let tree = compile(&game);
    let tables = build_tables(&game, &BuildOptions::default()).unwrap();
    let tree_policy = random_policy(&tree, 3);
    let mut file = PolicyFile::from_tree(&tree, &tree_policy, Provenance::default());
    // Drop every third state of player 1; the tree's policy plays them uniformly.
    let mut kept = Vec::new();
    let mut uniform = tree_policy.clone();
    let by_key: HashMap<Vec<Token>, usize> = (0..tree.infosets(1).len())
        .map(|i| (tree.infosets(1).keys[i].to_vec(), i))
        .collect();
    for (k, e) in file.infosets[1].drain(..).enumerate() {
        if k % 3 == 0 {
            let i = by_key[&e.key];
            let slots = tree.infosets(1).slots(i);
            let u = 1.0 / slots.len() as f64;
            uniform.probs[1][slots].fill(u);
        } else {
            kept.push(e);
        }
    }
    let dropped = tree.infosets(1).len() - kept.len();
    file.infosets[1] = kept;
    let (policy, missing) = RowPolicy::from_file(&tables, &file).unwrap();
    assert_eq!(missing, [0, dropped]);
    let want = exploitability(&tree, &uniform);
    let got = stream_exploitability(&game, &tables, &policy, &PassOptions::default())
        .unwrap()
        .exploitability;
    assert!((got.exploitability - want.exploitability).abs() < 1e-12);

    let mut bad = file.clone();
    let mut extra = bad.infosets[0][0].clone();
    extra.key.push(extra.key.first().copied().unwrap_or(0));
    bad.infosets[0].push(extra);
    assert!(RowPolicy::from_file(&tables, &bad).is_err());

    let round_trip = policy.to_file(&tables, Provenance::default());
    let (again, none) = RowPolicy::from_file(&tables, &round_trip).unwrap();
    assert_eq!((again, none), (policy, [0, 0]));
}

/// A policy written row by row from the tables' arrays is the same file,
/// byte for byte, as the whole policy file written at once, in both forms.
#[test]
fn policies_written_row_by_row_equal_whole_files() {
    let game = load_game("dark_hex(num_rows=2,num_cols=3)").unwrap();
    let tree = compile(&game);
    let tables = build_tables(&game, &BuildOptions::default()).unwrap();
    let whole = PolicyFile::from_tree(&tree, &random_policy(&tree, 11), Provenance::default());
    let (policy, _) = RowPolicy::from_file(&tables, &whole).unwrap();
    let provenance = Provenance {
        algorithm: "cfr+".to_string(),
        iterations: 7,
        exploitability: Some(0.25),
        ..Provenance::default()
    };
    let dir = tempfile::tempdir().unwrap();
    for name in ["p.json", "p.bin"] {
        let (a, b) = (
            dir.path().join(format!("whole-{name}")),
            dir.path().join(name),
        );
        policy
            .to_file(&tables, provenance.clone())
            .save(&a)
            .unwrap();
        policy.save(&tables, &provenance, &b).unwrap();
        let bytes = std::fs::read(&b).unwrap();
        assert_eq!(std::fs::read(&a).unwrap(), bytes, "{name}");
        assert!(bytes.len() > 1000, "{name}: {} bytes", bytes.len());
        assert_eq!(
            PolicyFile::load(&b).unwrap(),
            policy.to_file(&tables, provenance.clone())
        );
    }
}

/// The uniform policy for seed 0, otherwise [`random_policy`] on the tables.
fn random_row_policy(game: &AnyGame, tables: &InfoStateTables, seed: u64) -> RowPolicy {
    if seed == 0 {
        return RowPolicy::uniform(tables);
    }
    let tree = compile(game);
    let file = PolicyFile::from_tree(&tree, &random_policy(&tree, seed), Provenance::default());
    RowPolicy::from_file(tables, &file).unwrap().0
}

/// The pass specialised to Dark Hex gives the generic walker's bits: both
/// players' sequence payoffs, each player's regrets, the values and the
/// history counts, on every variant of the small boards and Dark Rex, with
/// the top of the tree split into many subtrees or into none.
#[test]
fn the_dark_hex_kernel_equals_the_generic_walker_bit_for_bit() {
    let mut names = Vec::new();
    for (r, c) in [(2, 2), (2, 3), (3, 2)] {
        names.extend(variants(r, c));
    }
    names.push("dark_rex(num_rows=2,num_cols=3,gameversion=adh,disclosure=flash)".to_string());
    names.push("dark_rex(num_rows=3,num_cols=2,obstype=reveal-numturns)".to_string());
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    for name in &names {
        let game = load_game(name).unwrap();
        let AnyGame::DarkHex(g) = game else {
            unreachable!()
        };
        let stream = DarkHexStream::new(&g).unwrap();
        let tables = build_merged(&stream, &BuildOptions::default()).unwrap();
        for (seed, min_tasks) in [(0, 0), (1, 0), (2, 1), (3, 64)] {
            let policy = random_row_policy(&game, &tables, seed);
            let options = PassOptions {
                min_tasks,
                ..Default::default()
            };
            let generic = sequence_payoffs(&stream, &tables, &policy, &options).unwrap();
            let kernel =
                dark_hex_pass::sequence_payoffs(&stream, &tables, &policy, &options).unwrap();
            for p in 0..2 {
                assert_eq!(
                    bits(&generic.slots[p]),
                    bits(&kernel.slots[p]),
                    "{name} {seed}"
                );
            }
            assert_eq!(bits(&generic.empty), bits(&kernel.empty), "{name} {seed}");
            assert_eq!(generic.value_p0.to_bits(), kernel.value_p0.to_bits());
            assert_eq!(generic.histories, kernel.histories, "{name} {seed}");
            for p in 0..2 {
                let g = player_regrets(&stream, &tables, &policy, p, &options).unwrap();
                let k =
                    dark_hex_pass::player_regrets(&stream, &tables, &policy, p, &options).unwrap();
                assert_eq!(bits(&g.regrets), bits(&k.regrets), "{name} {seed} p{p}");
                assert_eq!(g.value.to_bits(), k.value.to_bits(), "{name} {seed} p{p}");
                assert_eq!(g.histories, k.histories, "{name} {seed} p{p}");
            }
        }
    }
}
