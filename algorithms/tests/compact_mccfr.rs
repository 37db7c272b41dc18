//! Outcome sampling with compact keys: under perfect recall the keyed
//! sampler's policy, bit for bit; under the abstractions, a policy that
//! lifts to the perfect-recall game consistently (one distribution per
//! abstract state, turned with the board) and whose exploitability by the
//! compiled tree equals the support-restricted best response's.

use std::collections::BTreeMap;

use darkhex_algorithms::cfr::{CompactSolver, CompactState, mccfr};
use darkhex_algorithms::restricted_br::{Missing, Settings, best_response_to};
use darkhex_algorithms::{
    CompileOptions, GameTree, McSolver, McState, PolicyFile, PolicyTable, Provenance, Sampling,
    best_response,
};
use darkhex_games::abstraction::Abstraction;
use darkhex_games::{AnyGame, Token, load_game};

fn dark_hex(name: &str) -> (AnyGame, darkhex_games::dark_hex::DarkHexGame) {
    let game = load_game(name).unwrap();
    let AnyGame::DarkHex(g) = game else {
        panic!("{name} is no Dark Hex game")
    };
    (game, g)
}

pub fn compact(name: &str, abstraction: &str, seed: u64, workers: usize, n: u64) -> PolicyFile {
    compact_batches(
        name,
        abstraction,
        seed,
        workers,
        n,
        CompactState::ITERATIONS_PER_WORKER,
    )
}

fn compact_batches(
    name: &str,
    abstraction: &str,
    seed: u64,
    workers: usize,
    n: u64,
    per_worker: u64,
) -> PolicyFile {
    let (_, g) = dark_hex(name);
    let state = CompactState::new(Abstraction::parse(abstraction).unwrap(), 0.6, seed, workers)
        .with_iterations_per_worker(per_worker);
    let mut solver = CompactSolver::new(g, state).unwrap();
    solver.run(n);
    solver.average_policy(Provenance::default())
}

type PolicyBits = BTreeMap<(usize, Vec<Token>), (Vec<u16>, Vec<u64>)>;

fn by_key(file: &PolicyFile) -> PolicyBits {
    let mut m = BTreeMap::new();
    for (p, infosets) in file.infosets.iter().enumerate() {
        for e in infosets {
            let probs = e.probs.iter().map(|x| x.to_bits()).collect();
            m.insert((p, e.key.clone()), (e.actions.clone(), probs));
        }
    }
    m
}

#[test]
fn perfect_recall_gives_the_keyed_samplers_policy_bit_for_bit() {
    for name in [
        "dark_hex(num_rows=2,num_cols=3)",
        "dark_hex(num_rows=3,num_cols=2,gameversion=adh)",
        "dark_rex(num_rows=3,num_cols=3)",
    ] {
        for workers in [1, 3] {
            // Not a whole number of batches: the last one is partial.
            let iterations = 301;
            let (game, _) = dark_hex(name);
            let mut keyed =
                McSolver::new(game, McState::new(Sampling::OUTCOME_DEFAULT, 5, workers));
            keyed.run(iterations);
            let keyed = by_key(&keyed.state().average_policy(name, Default::default()));
            let ours = by_key(&compact_batches(
                name,
                "perfect-recall",
                5,
                workers,
                iterations,
                mccfr::ITERATIONS_PER_WORKER,
            ));
            // The keyed tables also list the opponent's states met, never
            // updated: uniform there, as the compact tables' absence is.
            for (key, (actions, probs)) in &keyed {
                match ours.get(key) {
                    Some(entry) => {
                        assert_eq!(entry, &(actions.clone(), probs.clone()), "{name} {key:?}")
                    }
                    None => {
                        let uniform = (1.0 / actions.len() as f64).to_bits();
                        assert!(probs.iter().all(|&p| p == uniform), "{name}: {key:?} lacks");
                    }
                }
            }
            assert!(ours.keys().all(|k| keyed.contains_key(k)), "{name}");
            assert!(ours.len() * 3 > keyed.len(), "{name}: too few states met");
        }
    }
}

#[test]
fn runs_are_reproducible_whatever_the_thread_count() {
    let name = "dark_hex(num_rows=3,num_cols=3)";
    let run = |threads| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| by_key(&compact(name, "view-rot180", 9, 4, 500)))
    };
    assert_eq!(run(1), run(3));
}

/// `key` turned by 180 degrees, token by token (a perfect-recall key).
fn turned(cells: usize, key: &[Token]) -> Vec<Token> {
    key.iter()
        .map(|&t| match t & 0xF000 {
            0x0000 | 0x1000 | 0x4000 => (t & 0xF000) | (cells as Token - 1 - (t & 0x0FFF)),
            _ => t,
        })
        .collect()
}

#[test]
fn lifted_abstract_policies_play_alike_where_the_abstraction_cannot_tell() {
    let name = "dark_hex(num_rows=2,num_cols=3)";
    let (game, _) = dark_hex(name);
    let tree = GameTree::build(&game, &CompileOptions::default()).unwrap();
    let cells = 6;
    for abstraction in ["view", "view-rot180", "attempts-rot180"] {
        let a = Abstraction::parse(abstraction).unwrap();
        let file = compact(name, abstraction, 2, 2, 2000);
        assert_eq!(file.abstraction.as_deref(), Some(abstraction));
        let table = PolicyTable::new(&file);
        let (policy, missing) = file.to_tree_policy(&tree).unwrap();
        for p in 0..2 {
            let infosets = tree.infosets(p);
            let mut by_abstract: BTreeMap<Vec<Token>, Vec<f64>> = BTreeMap::new();
            for i in 0..infosets.len() {
                let key = &infosets.keys[i];
                let probs = policy.probs[p][infosets.slots(i)].to_vec();
                let mut abstract_key = Vec::new();
                let flipped = a.abstract_key(cells, key, &mut abstract_key);
                let mut canonical = probs.clone();
                if flipped {
                    canonical.reverse();
                }
                // A state that the rotation maps to itself keeps its own
                // orientation, its distribution need not be symmetric.
                let symmetric = a.turned(cells, &abstract_key) == abstract_key;
                let earlier = by_abstract.entry(abstract_key).or_insert(canonical.clone());
                assert_eq!(*earlier, canonical, "{abstraction}: {key:?}");
                if a.rotate && !symmetric {
                    let twin = table.get(p, &turned(cells, key));
                    let mut reversed = probs.clone();
                    reversed.reverse();
                    if let Some((_, twin)) = twin {
                        assert_eq!(twin, reversed.as_slice(), "{abstraction}: {key:?}");
                    }
                }
            }
            // The abstraction merges states: fewer entries than states.
            assert!(by_abstract.len() < infosets.len(), "{abstraction}");
        }
        assert!(missing < tree.infosets(0).len() + tree.infosets(1).len());
    }
}

#[test]
fn lifted_exploitability_by_the_tree_equals_the_restricted_best_responses() {
    let exact = Settings {
        missing: Missing::Uniform,
        record: false,
        keep: false,
    };
    for name in [
        "dark_hex(num_rows=2,num_cols=2)",
        "dark_hex(num_rows=2,num_cols=3)",
        "dark_hex(num_rows=3,num_cols=2,gameversion=adh)",
    ] {
        let (game, _) = dark_hex(name);
        let tree = GameTree::build(&game, &CompileOptions::default()).unwrap();
        for abstraction in ["view-rot180", "attempts", "perfect-recall-rot180"] {
            let file = compact(name, abstraction, 4, 2, 3000);
            let table = PolicyTable::new(&file);
            let (policy, _) = file.to_tree_policy(&tree).unwrap();
            for responder in 0..2 {
                let on_tree = best_response(&tree, &policy, responder).value;
                let restricted = best_response_to(&game, &table, responder, exact).unwrap();
                assert!(
                    (restricted.value - on_tree).abs() < 1e-12,
                    "{name} {abstraction}, player {responder} responding: {} restricted, {on_tree} on the tree",
                    restricted.value
                );
            }
        }
    }
}

/// A state's number of actions in the table test: any width a 4x3 board has.
fn width_of(key: u128) -> usize {
    1 + (key % 12) as usize
}

/// Keys spread as packed views are: high words used too.
fn spread(k: u64) -> u128 {
    let key = u128::from(k.wrapping_mul(0x9e37_79b9_7f4a_7c15)) << 40 | u128::from(k);
    key - key % 12 + u128::from(k % 12)
}

#[test]
fn the_table_keeps_insertion_order_and_sums_through_growth_merges_and_files() {
    use darkhex_algorithms::cfr::compact_table::{CompactTable, hash};
    use darkhex_algorithms::cfr::compact_updates::{NOT_FOUND, UpdateTable};

    // Two workers' batches: the second names states the first batch
    // added (hints) and adds new ones; enough states to grow every width
    // several times.
    let first: Vec<u128> = (0..3000).map(spread).collect();
    let second: Vec<u128> = (2000..4500).map(spread).collect();
    let weight =
        |key: u128, a: usize, batch: u64| (key % 1000) as f64 + a as f64 / 16.0 + batch as f64;
    let mut table = CompactTable::default();
    let fill = |u: &mut UpdateTable, keys: &[u128], table: &CompactTable, batch: u64| {
        for &key in keys {
            let w = width_of(key);
            let hint = table.find(key, hash(key), w).unwrap_or(NOT_FOUND);
            let slots = u.find_or_insert(key, w, hint);
            for (a, s) in slots.enumerate() {
                u.regrets[s] = -weight(key, a, batch);
                u.average[s] = weight(key, a, batch);
            }
        }
    };
    let mut u = UpdateTable::default();
    fill(&mut u, &first[..1500], &table, 0);
    let mut v = UpdateTable::default();
    fill(&mut v, &first[1000..], &table, 1);
    table.add(&[&u, &v]);
    // Worker 1's states 1000..1500 were new in both tables: inserted once,
    // by worker 0, and summed in the workers' order.
    assert_eq!(table.len(), 3000);
    for (i, &key) in first.iter().enumerate() {
        assert_eq!(table.key(i), key);
        assert_eq!(table.width(i), width_of(key));
        let expected: Vec<f64> = (0..width_of(key))
            .map(|a| match i {
                ..1000 => weight(key, a, 0),
                1000..1500 => weight(key, a, 0) + weight(key, a, 1),
                _ => weight(key, a, 1),
            })
            .collect();
        assert_eq!(table.average(i), &expected[..], "state {i}");
    }
    u.clear();
    fill(&mut u, &second, &table, 2);
    table.add(&[&u]);
    assert_eq!(table.len(), 4500);
    for (i, &key) in first.iter().chain(&second[1000..]).enumerate() {
        assert_eq!(table.key(i), key, "state {i}");
        let slot = table.find(key, hash(key), width_of(key)).unwrap();
        let regrets = table.regrets(width_of(key), slot);
        assert_eq!(regrets.len(), width_of(key));
        let batches: &[u64] = match i {
            ..1000 => &[0],
            1000..1500 => &[0, 1],
            1500..2000 => &[1],
            2000..3000 => &[1, 2],
            _ => &[2],
        };
        for (a, &r) in regrets.iter().enumerate() {
            let sum = batches.iter().fold(0.0, |s, &b| s + -weight(key, a, b));
            assert_eq!(r, sum, "state {i} action {a}");
        }
    }
    assert!(
        table
            .find(spread(9999), hash(spread(9999)), width_of(spread(9999)))
            .is_none()
    );

    // Written and read back, it is the same table, found the same way.
    let bytes = rmp_serde::to_vec(&table).unwrap();
    let mut read: CompactTable = rmp_serde::from_slice(&bytes).unwrap();
    read.restore(|k| Ok(width_of(k))).unwrap();
    assert!(read == table);
    assert_eq!(rmp_serde::to_vec(&read).unwrap(), bytes);
    let key = second[2000];
    let (a, b) = (
        table.find(key, hash(key), width_of(key)),
        read.find(key, hash(key), width_of(key)),
    );
    assert_eq!(
        table.regrets(width_of(key), a.unwrap()),
        read.regrets(width_of(key), b.unwrap())
    );

    // A file naming a state twice, or a state with the wrong number of
    // actions, is refused.
    let twice = [spread(1), spread(1)];
    let w = width_of(twice[0]);
    let damaged = (
        twice,
        [w as u32, 2 * w as u32],
        vec![0.0; 2 * w],
        vec![0.0; 2 * w],
    );
    let mut read: CompactTable =
        rmp_serde::from_slice(&rmp_serde::to_vec(&damaged).unwrap()).unwrap();
    assert_eq!(
        read.restore(|k| Ok(width_of(k))),
        Err("an information state appears twice".into())
    );
    let mut read: CompactTable = rmp_serde::from_slice(&bytes).unwrap();
    assert!(
        read.restore(|k| Ok(width_of(k) + 1))
            .unwrap_err()
            .contains("has slots 0 to")
    );
}
