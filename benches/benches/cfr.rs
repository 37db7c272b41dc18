//! One CFR+ iteration and one exact exploitability computation:
//! `cargo bench -p darkhex-benches --bench cfr`. The solver runs 100
//! iterations first, so the timed ones are typical of a run, not of its start.

use criterion::{Criterion, criterion_group, criterion_main};
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

criterion_group!(benches, cfr);
criterion_main!(benches);
