//! NFSP: its average policy's exact exploitability on Kuhn poker falls
//! below a stated threshold for several seeds (small networks, 80,000
//! steps), and a run stopped and
//! resumed from its state equals one that never stopped, bit for bit.

use darkhex_algorithms::rl::nfsp::{NfspSettings, NfspTrainer};
use darkhex_algorithms::{CompileOptions, GameTree, exploitability};
use darkhex_games::load_game;

/// Small networks and frequent learning, for a run of seconds.
fn small(steps: u64, seed: u64) -> NfspSettings {
    let mut s = NfspSettings::new(steps, seed);
    s.hidden = [64, 0, 0, 0];
    s.learn_every = 16;
    s.min_buffer_size_to_learn = 500;
    s.reservoir_buffer_capacity = 100_000;
    s.sl_learning_rate = 0.005;
    s.dqn.replay_buffer_capacity = 20_000;
    s.dqn.min_buffer_size_to_learn = 500;
    s.dqn.batch_size = 64;
    s.dqn.learn_every = 8;
    s.dqn.update_target_network_every = 500;
    s.dqn.epsilon_start = 0.2;
    s.dqn.epsilon_end = 0.01;
    s.dqn.epsilon_decay_duration = steps / 2;
    s.dqn.learning_rate = 0.005;
    s
}

#[test]
fn nfsp_on_kuhn_poker_falls_below_the_threshold() {
    let game = load_game("kuhn_poker").unwrap();
    let tree = GameTree::build(&game, &CompileOptions::default()).unwrap();
    for seed in [1, 2, 3] {
        let mut t = NfspTrainer::new(game, small(STEPS, seed)).unwrap();
        while !t.done() {
            t.play_game().unwrap();
        }
        let model = t.model().unwrap();
        let e = exploitability(&tree, &model.tree_policy(&tree).unwrap()).exploitability;
        assert!(e < THRESHOLD, "seed {seed}: exploitability {e}");
    }
}

/// The uniform policy's exploitability is 0.458, and an untrained
/// average network's about that; seed 1 measured 0.378 after 11,000
/// steps, 0.176 after 45,000 and 0.129 after 80,000.
const STEPS: u64 = 80_000;
const THRESHOLD: f64 = 0.2;

#[test]
fn a_resumed_run_equals_an_uninterrupted_one() {
    let game = load_game("dark_hex(num_rows=2,num_cols=2)").unwrap();
    let settings = small(6000, 5);
    let mut whole = NfspTrainer::new(game, settings).unwrap();
    while !whole.done() {
        whole.play_game().unwrap();
    }
    let mut first = NfspTrainer::new(game, settings.with_steps(2500)).unwrap();
    while !first.done() {
        first.play_game().unwrap();
    }
    let state = first.state().unwrap();
    let bytes = rmp_serde::to_vec(&state).unwrap();
    let state = rmp_serde::from_slice(&bytes).unwrap();
    let mut second = NfspTrainer::resume(game, state, 6000).unwrap();
    while !second.done() {
        second.play_game().unwrap();
    }
    assert_eq!(whole.state().unwrap(), second.state().unwrap());
}

#[test]
fn nfsp_is_the_same_on_any_thread_count() {
    let game = load_game("kuhn_poker").unwrap();
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| {
                let mut t = NfspTrainer::new(game, small(3000, 9)).unwrap();
                while !t.done() {
                    t.play_game().unwrap();
                }
                t.state().unwrap()
            })
    };
    assert_eq!(run(1), run(2));
}
