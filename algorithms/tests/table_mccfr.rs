//! Monte Carlo CFR over the information-state tables against the keyed
//! sampler on the State API: the same seed and worker count give the same
//! regrets, average weights and policy, bit for bit; thread counts do not
//! matter; a resumed run equals an uninterrupted one.

mod common;
use common::hex_and_rex_variants;

use std::collections::BTreeMap;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use darkhex_algorithms::cfr::AnyTableMc;
use darkhex_algorithms::stream::{
    BuildOptions, InfoStateTables, LeducStream, StateStream, build_by_walk, build_tables,
};
use darkhex_algorithms::{
    Algorithm, AlgorithmParams, Checkpoint, McSolver, McState, PolicyFile, Sampling, TableMcState,
    Trainer,
};
use darkhex_games::{AnyGame, NUM_PLAYERS, Token, load_game};

fn game_and_tables(name: &str) -> (AnyGame, InfoStateTables) {
    let game = load_game(name).unwrap();
    let tables = build_tables(&game, &BuildOptions::default()).unwrap();
    (game, tables)
}

/// Each infoset's actions and probability bits, by player and key.
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

fn run_tables(
    game: &AnyGame,
    tables: &InfoStateTables,
    sampling: Sampling,
    seed: u64,
    workers: usize,
    iterations: u64,
) -> TableMcState {
    let state = TableMcState::new(tables, sampling, seed, workers);
    let mut solver = AnyTableMc::new(game, tables, state).unwrap().unwrap();
    solver.run(iterations);
    solver.state().clone()
}

/// The keyed run's regrets and average weights at each infoset it met
/// equal the table run's at the infoset's row, and the table run met
/// exactly those rows.
fn assert_same_run(name: &str, tables: &InfoStateTables, keyed: &McState, rows: &TableMcState) {
    for p in 0..NUM_PLAYERS {
        let t = &keyed.tables[p];
        let table = tables.player(p);
        let mut met = 0;
        for i in 0..t.len() {
            let row = tables
                .row_of_key(p, t.key(i))
                .expect("a row for every infoset");
            assert!(
                rows.is_visited(p, row),
                "{name}: player {p} row {row} not met"
            );
            assert_eq!(t.actions(i), table.actions(row), "{name}");
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            let (keyed_slots, row_slots) = (t.slots(i), table.slots(row));
            assert_eq!(
                bits(&t.regrets[keyed_slots.clone()]),
                bits(&rows.regrets[p][row_slots.clone()]),
                "{name}: player {p}'s regrets at row {row}"
            );
            assert_eq!(
                bits(&t.average[keyed_slots]),
                bits(&rows.average[p][row_slots]),
                "{name}: player {p}'s average weights at row {row}"
            );
            met += 1;
        }
        assert_eq!(met, rows.visited_rows()[p], "{name}: player {p}'s rows met");
    }
}

#[test]
fn table_sampling_equals_keyed_sampling_bit_for_bit() {
    let cases: [(&str, &[Sampling]); 8] = [
        (
            "kuhn_poker",
            &[Sampling::External, Sampling::OUTCOME_DEFAULT],
        ),
        (
            "liars_dice(dice_sides=3)",
            &[Sampling::External, Sampling::OUTCOME_DEFAULT],
        ),
        (
            "leduc_poker",
            &[Sampling::External, Sampling::OUTCOME_DEFAULT],
        ),
        (
            "dark_hex(num_rows=2,num_cols=2)",
            &[Sampling::External, Sampling::OUTCOME_DEFAULT],
        ),
        (
            "dark_hex(num_rows=2,num_cols=2,gameversion=adh,disclosure=flash)",
            &[Sampling::External, Sampling::Outcome { exploration: 0.3 }],
        ),
        (
            "dark_hex(num_rows=2,num_cols=3,obstype=reveal-numturns,disclosure=noise)",
            &[Sampling::OUTCOME_DEFAULT],
        ),
        (
            "dark_hex(num_rows=3,num_cols=2)",
            &[Sampling::OUTCOME_DEFAULT],
        ),
        (
            "dark_rex(num_rows=2,num_cols=3,gameversion=adh)",
            &[Sampling::OUTCOME_DEFAULT],
        ),
    ];
    for (name, samplings) in cases {
        let (game, tables) = game_and_tables(name);
        for &sampling in samplings {
            for workers in [1, 3] {
                let label = format!("{name} {sampling:?} {workers} workers");
                // Not a whole number of batches: the last one is partial.
                let iterations = 301;
                let mut keyed = McSolver::new(game, McState::new(sampling, 5, workers));
                keyed.run(iterations);
                let rows = run_tables(&game, &tables, sampling, 5, workers, iterations);
                assert_same_run(&label, &tables, keyed.state(), &rows);
                let keyed_file = keyed.state().average_policy(name, Default::default());
                let rows_file = rows.policy_file(&tables, Default::default());
                assert!(
                    by_key(&keyed_file) == by_key(&rows_file),
                    "{label}: the policies differ"
                );
            }
        }
    }
}

/// On every 2x2, 2x3 and 3x2 Dark Hex and Dark Rex variant, a sampler, a
/// worker count and an iteration count drawn at random (seeded) give the
/// same run both ways.
#[test]
fn table_sampling_equals_keyed_sampling_on_every_small_variant() {
    let mut rng = ChaCha8Rng::seed_from_u64(30);
    for (rows, cols) in [(2, 2), (2, 3), (3, 2)] {
        for name in hex_and_rex_variants(rows, cols) {
            let (game, tables) = game_and_tables(&name);
            let sampling = if rng.random_bool(0.5) {
                Sampling::External
            } else {
                Sampling::Outcome {
                    exploration: rng.random_range(0.05..0.95),
                }
            };
            let workers = rng.random_range(1..=3);
            let iterations = rng.random_range(20..120);
            let seed = rng.random();
            let label = format!("{name} {sampling:?} {workers} workers {iterations} iterations");
            let mut keyed = McSolver::new(game, McState::new(sampling, seed, workers));
            keyed.run(iterations);
            let rows = run_tables(&game, &tables, sampling, seed, workers, iterations);
            assert_same_run(&label, &tables, keyed.state(), &rows);
            assert!(
                by_key(&keyed.state().average_policy(&name, Default::default()))
                    == by_key(&rows.policy_file(&tables, Default::default())),
                "{label}: the policies differ"
            );
        }
    }
}

#[test]
fn table_sampling_does_not_depend_on_the_thread_count() {
    let (game, tables) = game_and_tables("leduc_poker");
    for sampling in [Sampling::External, Sampling::OUTCOME_DEFAULT] {
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| run_tables(&game, &tables, sampling, 9, 4, 500))
        };
        let one = run(1);
        assert!(one == run(2) && one == run(3), "{sampling:?}");
    }
}

#[test]
fn a_resumed_table_run_equals_an_uninterrupted_one() {
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "leduc_poker",
        "dark_hex(num_rows=2,num_cols=3,gameversion=adh)",
    ] {
        let (game, tables) = game_and_tables(name);
        for algo in ["es-mccfr", "os-mccfr"] {
            let Algorithm::MonteCarlo(sampling) =
                Algorithm::parse(algo, AlgorithmParams::default()).unwrap()
            else {
                unreachable!("a sampler")
            };
            let path = dir.path().join(format!("{algo}.ckpt"));
            let start = || Trainer::sampling_over_tables(game, None, &tables, sampling, 7, 2);
            let mut straight = start().unwrap();
            straight.run(80).unwrap();
            let mut first = start().unwrap();
            first.run(32).unwrap();
            first.checkpoint().save(&path).unwrap();
            drop(first);
            let loaded = Checkpoint::load(&path).unwrap();
            assert!(loaded.needs_tables() && !loaded.is_streaming());
            let mut resumed =
                Trainer::resume_over_tables(game, None, &tables, loaded, None).unwrap();
            resumed.run(48).unwrap();
            assert_eq!(resumed.iteration(), 80);
            assert!(
                straight.checkpoint().solver == resumed.checkpoint().solver,
                "{name} {algo}: the resumed state differs"
            );
            assert!(by_key(&straight.policy()) == by_key(&resumed.policy()));
            // The keyed path refuses the checkpoint instead of starting over.
            let loaded = Checkpoint::load(&path).unwrap();
            assert!(Trainer::resume(game, None, loaded, None).is_err());
        }
    }
}

#[test]
fn table_sampling_reports_exact_exploitability_without_a_tree() {
    let (game, tables) = game_and_tables("kuhn_poker");
    let mut t =
        Trainer::sampling_over_tables(game, None, &tables, Sampling::External, 3, 1).unwrap();
    assert!(t.can_evaluate());
    t.run(20_000).unwrap();
    let e = t
        .evaluate()
        .unwrap()
        .expect("a streaming pass")
        .exploitability;
    assert!(e < 0.01, "{e}");
}

#[test]
fn leducs_compact_stream_builds_the_state_apis_tables() {
    let game = load_game("leduc_poker").unwrap();
    let options = BuildOptions::default();
    let via_state = build_by_walk(&StateStream::new(game).unwrap(), &options).unwrap();
    let compact = build_by_walk(&LeducStream::new(), &options).unwrap();
    assert!(via_state == compact);
}
