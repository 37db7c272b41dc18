//! Random playouts per second: `cargo bench -p darkhex-benches --bench playouts`.
//! Criterion reports the throughput in playouts (elements) per second.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use darkhex_games::{Game, load_game};
use darkhex_players::random_playout;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn playouts(c: &mut Criterion) {
    let mut group = c.benchmark_group("random_playout");
    group.throughput(Throughput::Elements(1));
    for name in ["hex(board_size=11)", "dark_hex(num_rows=3,num_cols=3)"] {
        let game = load_game(name).expect("a valid game string");
        let root = game.new_initial_state();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut buf = Vec::new();
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut state = root.clone();
                random_playout(&mut state, &mut rng, &mut buf)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, playouts);
criterion_main!(benches);
