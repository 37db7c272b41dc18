//! One CFR+ iteration and one exact exploitability computation:
//! `cargo bench -p darkhex-benches --bench cfr`. The solver runs 100
//! iterations first, so the timed ones are typical of a run, not of its start.
//! Then one Deep CFR iteration whose fit is a single Adam step: the
//! traversals and their network calls, each player's strategies computed
//! afresh after its fit as in a run.

use criterion::{Criterion, criterion_group, criterion_main};
use darkhex_algorithms::cfr::deep_cfr::{DeepCfrSettings, DeepCfrSolver};
use darkhex_algorithms::{CfrSolver, CfrVariant, CompileOptions, GameTree, exploitability};
use darkhex_games::load_game;

pub const GAMES: [&str; 3] = [
    "leduc_poker",
    "dark_hex(num_rows=2,num_cols=3,gameversion=adh)",
    "dark_hex(num_rows=3,num_cols=2)",
];

fn cfr(c: &mut Criterion) {
    for name in GAMES {
        let game = load_game(name).expect("a valid game string");
        let tree = GameTree::build(&game, &CompileOptions::default()).expect("the tree fits");
        let mut solver = CfrSolver::new(&tree, CfrVariant::Plus);
        solver.run(100);
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("a thread pool");
            c.bench_function(&format!("cfr+ iteration/{threads} threads/{name}"), |b| {
                pool.install(|| b.iter(|| solver.iterate()))
            });
        }
        let policy = solver.average_policy();
        c.bench_function(&format!("exploitability/{name}"), |b| {
            b.iter(|| exploitability(&tree, &policy))
        });
    }
}

fn deep_cfr(c: &mut Criterion) {
    for name in [
        "leduc_poker",
        "dark_hex(num_rows=2,num_cols=3,gameversion=adh)",
    ] {
        let game = load_game(name).expect("a valid game string");
        let mut s = DeepCfrSettings::new(u64::MAX, 0);
        s.advantage_network.steps = 1;
        // Small reservoirs: the timed fits stay one step on few rows.
        s.advantage_capacity = 1000;
        s.strategy_capacity = 1000;
        let mut solver = DeepCfrSolver::new(game, s).expect("valid settings");
        solver.iterate().expect("an iteration");
        let mut group = c.benchmark_group("deep-cfr");
        group.sample_size(10);
        group.bench_function(
            format!("iteration of 100 traversals a player, 1 fit step/{name}"),
            |b| b.iter(|| solver.iterate().expect("an iteration")),
        );
        group.finish();
    }
}

criterion_group!(benches, cfr, deep_cfr);
criterion_main!(benches);
