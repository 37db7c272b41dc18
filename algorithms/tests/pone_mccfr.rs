//! Outcome sampling with PONE terminals: histories end where PONE proves
//! the player to move wins surely, the policy file plays PONE's strategy
//! from there, and the result, evaluated in the real game, converges to
//! the game value like the plain sampler's.

use darkhex_algorithms::cfr::compact_mccfr::{PONE_ENDS, PONE_TERMINALS};
use darkhex_algorithms::cfr::pone_terminals::PoneTerminalsError;
use darkhex_algorithms::cfr::{CompactError, CompactSolver, CompactState};
use darkhex_algorithms::pone;
use darkhex_algorithms::restricted_br::{Missing, Settings, best_response_to};
use darkhex_algorithms::{
    CompileOptions, GameTree, PolicyFile, PolicyTable, Provenance, exploitability,
};
use darkhex_games::abstraction::Abstraction;
use darkhex_games::dark_hex::DarkHexGame;
use darkhex_games::{AnyGame, load_game};

fn dark_hex(name: &str) -> (AnyGame, DarkHexGame) {
    let game = load_game(name).unwrap();
    let AnyGame::DarkHex(g) = game else {
        panic!("{name} is no Dark Hex game")
    };
    (game, g)
}

fn solver(name: &str, abstraction: &str, pone: bool, seed: u64, workers: usize) -> CompactSolver {
    let (_, g) = dark_hex(name);
    let state = CompactState::new(Abstraction::parse(abstraction).unwrap(), 0.6, seed, workers)
        .with_pone_terminals(pone);
    CompactSolver::new(g, state).unwrap()
}

fn trained(name: &str, abstraction: &str, pone: bool, n: u64) -> PolicyFile {
    let mut s = solver(name, abstraction, pone, 3, 2);
    s.run(n);
    s.average_policy(Provenance::default())
}

/// Exploitability and player 0's value of a policy file in the compiled
/// game, states the file lacks playing uniformly.
fn evaluate(name: &str, file: &PolicyFile) -> (f64, f64) {
    let (game, _) = dark_hex(name);
    let tree = GameTree::build(&game, &CompileOptions::default()).unwrap();
    let (policy, _) = file.to_tree_policy(&tree).unwrap();
    let e = exploitability(&tree, &policy);
    (e.exploitability, e.value_p0)
}

#[test]
fn where_pone_wins_from_the_start_the_policy_is_exact_at_once() {
    // PONE: the first player wins 2x3 classic surely, the second 3x2.
    for (name, value) in [
        ("dark_hex(num_rows=2,num_cols=3)", 1.0),
        ("dark_hex(num_rows=3,num_cols=2)", -1.0),
    ] {
        for abstraction in ["perfect-recall", "view-rot180"] {
            let n = 50;
            let file = trained(name, abstraction, true, n);
            let p = &file.provenance.parameters;
            assert_eq!(p.get(PONE_TERMINALS), Some(&1.0), "{name}");
            // Both walks of every iteration end at the winner's first turn.
            assert_eq!(p.get(PONE_ENDS), Some(&(2.0 * n as f64)), "{name}");
            let (e, v) = evaluate(name, &file);
            assert!(e.abs() < 1e-12, "{name} {abstraction}: exploitability {e}");
            assert!((v - value).abs() < 1e-12, "{name} {abstraction}: value {v}");
        }
    }
}

#[test]
fn three_by_three_classic_is_won_surely_by_the_written_policy() {
    // Too large for the tree: White's exact best response to Black's
    // policy, restricted to its support, shows Black's value is 1, the
    // most there is, so the profile is exact whatever White plays.
    let name = "dark_hex(num_rows=3,num_cols=3)";
    let (game, _) = dark_hex(name);
    let file = trained(name, "view-rot180", true, 20);
    let table = PolicyTable::new(&file);
    let settings = Settings {
        missing: Missing::Uniform,
        record: false,
        keep: false,
    };
    let white = best_response_to(&game, &table, 1, settings).unwrap();
    assert!((white.value + 1.0).abs() < 1e-12, "{}", white.value);
}

#[test]
fn abrupt_boards_converge_to_the_game_value_like_the_plain_sampler() {
    // Values from docs/results/small-boards.md (the LP).
    for (name, value) in [
        (
            "dark_hex(num_rows=2,num_cols=3,gameversion=adh)",
            9.0 / 11.0,
        ),
        ("dark_hex(num_rows=3,num_cols=2,gameversion=adh)", -0.125),
        ("dark_hex(num_rows=2,num_cols=2,gameversion=adh)", f64::NAN),
    ] {
        for abstraction in ["perfect-recall", "attempts-rot180"] {
            let early = evaluate(name, &trained(name, abstraction, true, 500)).0;
            let file = trained(name, abstraction, true, 20_000);
            let (e, v) = evaluate(name, &file);
            let plain = evaluate(name, &trained(name, abstraction, false, 20_000)).0;
            assert!(
                file.provenance.parameters[PONE_ENDS] > 0.0,
                "{name}: no PONE terminal met"
            );
            assert!(e < early / 2.0, "{name} {abstraction}: {early} then {e}");
            assert!(
                e < 2.0 * plain + 0.01,
                "{name} {abstraction}: {e}, plain {plain}"
            );
            // The profile's value lies within the exploitability's reach
            // of the game value: -br1 <= value <= br0.
            if !value.is_nan() {
                assert!((v - value).abs() <= 2.0 * e, "{name}: {v} vs {value}, {e}");
            }
        }
    }
}

#[test]
fn a_state_pone_decides_is_never_trained_and_plays_a_winning_move() {
    for name in [
        "dark_hex(num_rows=3,num_cols=3,gameversion=adh)",
        "dark_hex(num_rows=2,num_cols=3,gameversion=adh)",
        "dark_rex(num_rows=3,num_cols=3,gameversion=adh)",
    ] {
        let (_, g) = dark_hex(name);
        let plain = trained(name, "perfect-recall", false, 2000);
        let file = trained(name, "perfect-recall", true, 2000);
        let mut decided = 0;
        for p in 0..2 {
            let ours: std::collections::BTreeMap<_, _> = file.infosets[p]
                .iter()
                .map(|e| (e.key.clone(), e))
                .collect();
            assert_eq!(ours.len(), file.infosets[p].len(), "{name}: a key twice");
            for e in &file.infosets[p] {
                let (r, _) = pone::solve(&g, p, &e.key).unwrap();
                let one_hot = e.probs.iter().filter(|&&x| x == 1.0).count() == 1
                    && e.probs.iter().all(|&x| x == 0.0 || x == 1.0);
                if r.wins {
                    decided += 1;
                    assert!(one_hot, "{name}: {:?} is PONE's but mixed", e.key);
                    let a = e.actions[e.probs.iter().position(|&x| x == 1.0).unwrap()];
                    assert!(
                        r.winning_moves.contains(&(a as usize)),
                        "{name}: {:?} plays {a}",
                        e.key
                    );
                }
            }
            // The plain sampler trains states PONE decides; with PONE
            // terminals none of them is trained (met, they carry PONE's
            // move; or never met, beyond a decided state).
            for e in &plain.infosets[p] {
                let (r, _) = pone::solve(&g, p, &e.key).unwrap();
                if let (true, Some(ours)) = (r.wins, ours.get(&e.key)) {
                    let a = ours.actions[ours.probs.iter().position(|&x| x == 1.0).unwrap()];
                    assert!(r.winning_moves.contains(&(a as usize)), "{name}");
                }
            }
        }
        assert!(decided > 0, "{name}: no decided state in the file");
    }
}

#[test]
fn a_resumed_run_equals_an_uninterrupted_one_on_any_thread_count() {
    for (name, abstraction) in [
        (
            "dark_hex(num_rows=3,num_cols=3,gameversion=adh)",
            "perfect-recall-rot180",
        ),
        ("dark_hex(num_rows=4,num_cols=3)", "view-rot180"),
    ] {
        let run = |threads: usize, stops: &[u64]| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                let mut s = solver(name, abstraction, true, 7, 3);
                for &n in stops {
                    s.run(n);
                    // Through the checkpoint's encoding.
                    let bytes = rmp_serde::to_vec(s.state()).unwrap();
                    let state: CompactState = rmp_serde::from_slice(&bytes).unwrap();
                    let (_, g) = dark_hex(name);
                    s = CompactSolver::new(g, state).unwrap();
                }
                (s.state().clone(), s.average_policy(Provenance::default()))
            })
        };
        // Interrupted at a batch's end (3 workers of 64 iterations), as
        // the trainer's checkpoints are.
        let whole = run(1, &[700]);
        assert!(whole.0.decided.ends > 0, "{name}");
        assert_eq!(whole, run(3, &[192, 384, 124]), "{name}");
    }
}

#[test]
fn games_whose_keys_cannot_tell_pone_apart_are_refused() {
    for (name, abstraction) in [
        ("dark_hex(num_rows=3,num_cols=3,gameversion=adh)", "view"),
        (
            "dark_hex(num_rows=3,num_cols=3,obstype=reveal-numturns)",
            "attempts",
        ),
        ("dark_hex(num_rows=3,num_cols=3,disclosure=flash)", "view"),
    ] {
        let (_, g) = dark_hex(name);
        let state = CompactState::new(Abstraction::parse(abstraction).unwrap(), 0.6, 0, 1)
            .with_pone_terminals(true);
        match CompactSolver::new(g, state) {
            Err(CompactError::Pone(
                PoneTerminalsError::AbstractionTooCoarse { .. }
                | PoneTerminalsError::Observations { .. },
            )) => {}
            other => panic!("{name} {abstraction}: {:?}", other.err()),
        }
    }
}
