//! One batched forward pass of Deep CFR's network: `cargo bench -p
//! darkhex-benches --bench mlp`. The inputs are the observation features
//! of 4,096 information states met in random playouts of 3x3 Dark Hex
//! (what Deep CFR's networks read), the network has the default shape
//! (hidden layers 64 and 64) and one output per action; also the same
//! rows turned into features, so that the two costs can be compared.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use darkhex_algorithms::fa::features::{FeatureKind, FeatureMap};
use darkhex_algorithms::fa::mlp::{Mlp, MlpSettings};
use darkhex_games::{Game, NUM_PLAYERS, State, Token, Turn, load_game};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const STATES: usize = 4096;

fn mlp_forward(c: &mut Criterion) {
    let game = load_game("dark_hex(num_rows=3,num_cols=3)").expect("a valid game string");
    let map = FeatureMap::new(FeatureKind::Observation, &game, [0; NUM_PLAYERS]);
    let width = map.observation_width();
    let outputs = game.num_distinct_actions();
    // The keys of the players to move, as a traversal meets them.
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut keys: Vec<(usize, Vec<Token>)> = Vec::with_capacity(STATES);
    while keys.len() < STATES {
        let mut state = game.new_initial_state();
        while let Turn::Player(p) = state.current_player() {
            keys.push((p, state.info_key(p).to_vec()));
            let legal = state.legal_actions();
            state.apply(legal[rng.random_range(0..legal.len())]);
        }
    }
    keys.truncate(STATES);
    let features = |keys: &[(usize, Vec<Token>)]| {
        let mut x = vec![0.0f32; keys.len() * width];
        let mut row = vec![0.0f64; width];
        for ((p, key), out) in keys.iter().zip(x.chunks_mut(width)) {
            map.write_observation(*p, key, &mut row);
            for (o, &v) in out.iter_mut().zip(&row) {
                *o = v as f32;
            }
        }
        x
    };
    let x = features(&keys);
    let net = Mlp::with_outputs(MlpSettings::new(0), width, outputs, 0).expect("a valid shape");
    let mut out = vec![0.0f64; STATES * outputs];
    let mut group = c.benchmark_group("deep_cfr_network");
    group.throughput(Throughput::Elements(STATES as u64));
    group.bench_function("forward 4,096 states of 3x3 Dark Hex", |b| {
        b.iter(|| {
            net.predict_rows(black_box(x.clone()), &mut out)
                .expect("rows of the network's width");
        })
    });
    group.bench_function("features of 4,096 states of 3x3 Dark Hex", |b| {
        b.iter(|| features(black_box(&keys)))
    });
    group.finish();
}

criterion_group!(benches, mlp_forward);
criterion_main!(benches);
