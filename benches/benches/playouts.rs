//! Random playouts per second: `cargo bench -p darkhex-benches --bench playouts`.
//! Criterion reports the throughput in playouts (elements) per second.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use darkhex_games::{Game, State, Tensors, Turn, load_game};
use darkhex_players::random_playout;
use rand::Rng;
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

/// The game's share of one `VectorEnv` step of 3x3 Dark Hex, on one thread
/// and without Python: per game, a uniformly random legal action, its check,
/// the step, a restart when the game ends, and the mover's 189-float
/// information-state tensor. Throughput in game steps.
fn vector_steps(c: &mut Criterion) {
    const GAMES: usize = 4096;
    let game = load_game("dark_hex(num_rows=3,num_cols=3)").expect("a valid game string");
    let initial = game.new_initial_state();
    let size = game.information_state_tensor_size();
    let mut states = vec![initial.clone(); GAMES];
    let mut obs = vec![0.0f32; GAMES * size];
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut legal = Vec::new();
    let mut group = c.benchmark_group("vector_env");
    group.throughput(Throughput::Elements(GAMES as u64));
    group.bench_function("dark_hex(num_rows=3,num_cols=3)", |b| {
        b.iter(|| {
            for (state, out) in states.iter_mut().zip(obs.chunks_mut(size)) {
                let a = state
                    .pick_legal_action(&mut legal, |n| rng.random_range(0..n))
                    .expect("a game in play has a legal move");
                if state.check_action(a).is_ok() {
                    state.apply(a);
                }
                if state.is_terminal() {
                    state.clone_from(&initial);
                }
                out.fill(0.0);
                if let Turn::Player(p) = state.current_player() {
                    game.information_state_tensor(state, p, out);
                }
            }
        })
    });
    group.finish();
}

criterion_group!(benches, playouts, vector_steps);
criterion_main!(benches);
