//! 10^5 outcome-sampling iterations on 4x3 Dark Hex from scratch, with
//! compact keys under each abstraction, on two threads:
//! `cargo bench -p darkhex-benches --bench compact_mccfr`. A run's tables
//! grow with the states met, so each sample is a whole fresh run.

use criterion::{Criterion, criterion_group, criterion_main};
use darkhex_algorithms::cfr::mccfr::Sampling;
use darkhex_algorithms::cfr::{CompactSolver, CompactState};
use darkhex_games::abstraction::Abstraction;
use darkhex_games::{AnyGame, load_game};

const GAME: &str = "dark_hex(num_rows=4,num_cols=3)";
const ITERATIONS: u64 = 100_000;
const THREADS: usize = 2;

fn compact_mccfr(c: &mut Criterion) {
    let Ok(AnyGame::DarkHex(game)) = load_game(GAME) else {
        panic!("{GAME} is a Dark Hex game");
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(THREADS)
        .build()
        .expect("a thread pool");
    let mut group = c.benchmark_group("os-mccfr 1e5 iterations 4x3");
    group.sample_size(10);
    for name in Abstraction::NAMES {
        let abstraction = Abstraction::parse(name).expect("a listed name");
        group.bench_function(name, |b| {
            pool.install(|| {
                b.iter(|| {
                    let state =
                        CompactState::new(abstraction, Sampling::DEFAULT_EXPLORATION, 1, THREADS);
                    let mut solver = CompactSolver::new(game, state).expect("keys fit 4x3");
                    solver.run(ITERATIONS);
                    solver.state().memory_bytes()
                })
            })
        });
    }
    group.finish();
}

criterion_group!(benches, compact_mccfr);
criterion_main!(benches);
