//! PPO's steps a second: `cargo bench -p darkhex-benches --bench ppo`.
//! One update (a rollout of 8 games x 256 steps, then 4 epochs of 8
//! minibatches) of PPO on abrupt 3x3 Dark Hex with the benchmark's best
//! settings and network (towers of three layers of 512 units: preset
//! rudolph2026), and the same rollout alone; throughput in steps (actions
//! in all games), as the benchmark counts them.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use darkhex_algorithms::rl::pool::with_threads;
use darkhex_algorithms::rl::ppo::PpoTrainer;
use darkhex_algorithms::rl::presets::{RUDOLPH2026, preset};
use darkhex_games::load_game;

fn ppo_update(c: &mut Criterion) {
    let game = load_game("dark_hex(num_rows=3,num_cols=3,gameversion=adh)").expect("a game string");
    let settings = preset(RUDOLPH2026, &game, "ppo", 10_000_000, 0).expect("the preset's game");
    let threads = rayon::current_num_threads();
    let mut group = c.benchmark_group("ppo_abrupt_3x3_dark_hex");
    group.sample_size(10);
    group.throughput(Throughput::Elements(settings.batch_size()));
    // Each update runs inside a pool it works in, as the CLI's run does.
    let update = |trainer: &mut PpoTrainer| {
        with_threads(threads, || {
            trainer.update().expect("an update");
        })
    };
    let mut trainer = PpoTrainer::new(game, settings).expect("the preset's settings");
    group.bench_function("one update of rudolph2026's settings (2,048 steps)", |b| {
        b.iter(|| update(&mut trainer))
    });
    let mut rollout_only = settings;
    rollout_only.update_epochs = 1;
    rollout_only.num_minibatches = 1;
    let mut trainer = PpoTrainer::new(game, rollout_only).expect("valid settings");
    group.bench_function("a rollout and one minibatch of the whole rollout", |b| {
        b.iter(|| update(&mut trainer))
    });
    group.finish();
}

criterion_group!(benches, ppo_update);
criterion_main!(benches);
