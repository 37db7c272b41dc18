//! DQN's best response against a frozen policy where the exact one is
//! known: what the frozen greedy responder earns never exceeds the exact
//! best-response value beyond its interval, and comes within a stated
//! tolerance of it; the same bits with any thread count.

use darkhex_algorithms::approximate_br::UniformPolicy;
use darkhex_algorithms::memory::MemoryLimit;
use darkhex_algorithms::rl::dqn_response::{DqnResponse, DqnResponseSettings, dqn_best_response};
use darkhex_algorithms::{
    CfrSolver, CfrVariant, CompileOptions, GameTree, PolicyFile, PolicyTable, Provenance,
    TreePolicy, exploitability,
};
use darkhex_games::{AnyGame, NUM_PLAYERS, load_game};

fn respond(game: &AnyGame, table: &PolicyTable, steps: u64, seed: u64) -> DqnResponse {
    let s = DqnResponseSettings::new(steps, 10_000, seed);
    dqn_best_response(game, table, &s, MemoryLimit::new(None), &|_| {}).unwrap()
}

/// Kuhn poker and 2x2 Dark Hex, classic and abrupt, against the uniform
/// policy and a few iterations of CFR+: each seat's value is at most the
/// exact best response plus twice its 95% interval, and at least the
/// exact value less the interval and the tolerance.
#[test]
fn the_dqn_responder_reaches_the_exact_best_response() {
    for (name, iterations, steps, tolerance) in [
        ("kuhn_poker", 0, 12_000, 0.02),
        ("kuhn_poker", 10, 12_000, 0.02),
        ("dark_hex(num_rows=2,num_cols=2)", 5, 12_000, 0.02),
        (
            "dark_hex(num_rows=2,num_cols=2,gameversion=adh)",
            5,
            12_000,
            0.02,
        ),
    ] {
        let game = load_game(name).unwrap();
        let tree = GameTree::build(&game, &CompileOptions::default()).unwrap();
        let policy = match iterations {
            0 => TreePolicy::uniform(&tree),
            n => {
                let mut solver = CfrSolver::new(&tree, CfrVariant::Plus);
                solver.run(n);
                solver.average_policy()
            }
        };
        let exact = exploitability(&tree, &policy);
        let table = PolicyTable::new(&PolicyFile::from_tree(
            &tree,
            &policy,
            Provenance::default(),
        ));
        let r = respond(&game, &table, steps, 1);
        for p in 0..NUM_PLAYERS {
            let (best, s) = (exact.best_response_values[p], r.seats[p]);
            assert!(
                s.value <= best + 2.0 * s.half_width,
                "{name} seat {p}: {} +- {} above the best response {best}",
                s.value,
                s.half_width
            );
            assert!(
                s.value >= best - s.half_width - tolerance,
                "{name} seat {p}: {} +- {} short of the best response {best}",
                s.value,
                s.half_width
            );
        }
        assert!(r.lower_bound <= exact.exploitability + 2.0 * r.half_width);
    }
}

#[test]
fn the_dqn_responder_is_the_same_on_any_thread_count() {
    let game = load_game("dark_hex(num_rows=2,num_cols=2)").unwrap();
    let s = DqnResponseSettings::new(3000, 2000, 7);
    let run = |threads: usize, s: DqnResponseSettings| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| {
                dqn_best_response(&game, &UniformPolicy, &s, MemoryLimit::new(None), &|_| {})
                    .unwrap()
            })
    };
    let one = run(1, s);
    assert_eq!(one, run(2, s));
    let mut other = s;
    other.dqn.seed = 8;
    assert_ne!(one, run(2, other));
}
