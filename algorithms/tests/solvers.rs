//! Best response, thread-count independence, checkpoints, Monte Carlo CFR and
//! policy files.

use darkhex_algorithms::best_response::response_values;
use darkhex_algorithms::memory::MemoryLimit;
use darkhex_algorithms::{
    Algorithm, AlgorithmParams, CfrSolver, CfrVariant, CompileOptions, GameTree, McSolver, McState,
    PolicyFile, Sampling, TrainError, Trainer, TreePolicy, exploitability,
};
use darkhex_games::{AnyGame, load_game};
use serde_json::Value;

fn reference() -> Value {
    serde_json::from_str(include_str!("../../reference/openspiel.json")).unwrap()
}

fn compile(name: &str) -> (AnyGame, GameTree) {
    let game = load_game(name).unwrap();
    let tree = GameTree::build(&game, &CompileOptions::default()).unwrap();
    (game, tree)
}

fn bits(p: &TreePolicy) -> Vec<u64> {
    p.probs.iter().flatten().map(|x| x.to_bits()).collect()
}

#[test]
fn uniform_exploitability_matches_openspiel() {
    let r = reference();
    let mut checked = 0;
    for (name, facts) in r["games"].as_object().unwrap() {
        let Some(want) = facts.get("uniform_exploitability").and_then(Value::as_f64) else {
            continue;
        };
        let (_, tree) = compile(name);
        let got = exploitability(&tree, &TreePolicy::uniform(&tree)).exploitability;
        assert!((got - want).abs() < 1e-12, "{name}: {got} vs {want}");
        checked += 1;
    }
    assert!(checked >= 5);
}

#[test]
fn best_response_values_at_kuhn_infosets_are_the_ones_worked_by_hand() {
    // Player 0 against player 1's uniform policy, at the deal: with J a
    // bet earns 1/2 * 1 + 1/2 * -2 and a pass -1 (a check loses the
    // showdown; against a bet, folding loses 1); with Q a bet earns
    // 1/2 * 1 + 1/2 * 0, a pass 0; with K both earn 1.5.
    let (_, tree) = compile("kuhn_poker");
    let policy = TreePolicy::uniform(&tree);
    let r = response_values(&tree, &policy, 0);
    let table = tree.infosets(0);
    let mut first: Vec<(f64, f64, f64)> = (0..table.len())
        .filter(|&i| table.parent[i] == 0)
        .map(|i| {
            let s = table.slots(i);
            (
                r.reach[i],
                r.action_values[s.start],
                r.action_values[s.start + 1],
            )
        })
        .collect();
    first.sort_by(|a, b| a.1.total_cmp(&b.1));
    let want = [
        (1.0 / 3.0, -1.0, -0.5),
        (1.0 / 3.0, 0.0, 0.5),
        (1.0 / 3.0, 1.5, 1.5),
    ];
    assert_eq!(first.len(), 3);
    for (got, want) in first.iter().zip(want) {
        assert!(
            (got.0 - want.0).abs() < 1e-12
                && (got.1 - want.1).abs() < 1e-12
                && (got.2 - want.2).abs() < 1e-12,
            "{got:?} vs {want:?}"
        );
    }
    assert!((r.value - 0.5).abs() < 1e-12, "{}", r.value);
}

#[test]
fn best_response_values_add_up_to_the_best_response() {
    // The responder's first infosets, weighted by their reach, hold the
    // whole best-response value (no game here ends before a player's
    // first move), against a policy that is not uniform.
    for name in ["dark_hex(num_rows=2,num_cols=2)", "leduc_poker"] {
        let (_, tree) = compile(name);
        // Each infoset's first action three times as likely as each other.
        let mut policy = TreePolicy::uniform(&tree);
        for p in 0..2 {
            let table = tree.infosets(p);
            for i in 0..table.len() {
                let s = table.slots(i);
                let n = s.len() as f64;
                for (k, x) in policy.probs[p][s].iter_mut().enumerate() {
                    *x = if k == 0 { 3.0 } else { 1.0 } / (n + 2.0);
                }
            }
        }
        for responder in 0..2 {
            let r = response_values(&tree, &policy, responder);
            let table = tree.infosets(responder);
            let total: f64 = (0..table.len())
                .filter(|&i| table.parent[i] == 0 && r.reach[i] > 0.0)
                .map(|i| r.reach[i] * r.infoset_value(&tree, responder, i))
                .sum();
            let br = darkhex_algorithms::best_response(&tree, &policy, responder).value;
            assert!(
                (total - br).abs() < 1e-9,
                "{name} responder {responder}: {total} vs {br}"
            );
            assert!((r.value - br).abs() < 1e-15);
        }
    }
}

#[test]
fn the_kuhn_equilibrium_is_unexploitable() {
    // Player 0 with J bets 1/3 of the time (alpha = 1/3), Q checks, K bets
    // 3 alpha; the known equilibrium family of Kuhn poker.
    let (_, tree) = compile("kuhn_poker");
    let mut policy = TreePolicy::uniform(&tree);
    let a = 1.0 / 3.0;
    let p0 = [
        ("J", [1.0 - a, a]),
        ("Q", [1.0, 0.0]),
        ("K", [1.0 - 3.0 * a, 3.0 * a]),
        ("Jpb", [1.0, 0.0]),
        ("Qpb", [1.0 - (a + 1.0 / 3.0), a + 1.0 / 3.0]),
        ("Kpb", [0.0, 1.0]),
    ];
    let p1 = [
        ("Jp", [2.0 / 3.0, 1.0 / 3.0]),
        ("Qp", [1.0, 0.0]),
        ("Kp", [0.0, 1.0]),
        ("Jb", [1.0, 0.0]),
        ("Qb", [2.0 / 3.0, 1.0 / 3.0]),
        ("Kb", [0.0, 1.0]),
    ];
    for (p, table) in [(0, &p0[..]), (1, &p1[..])] {
        let infosets = tree.infosets(p);
        for (name, probs) in table {
            let card = 0x100 + "JQK".find(&name[..1]).unwrap() as u16;
            let mut key = vec![card];
            key.extend(name[1..].chars().map(|c| if c == 'p' { 0 } else { 1 }));
            let i = infosets.keys.iter().position(|k| **k == key[..]).unwrap();
            policy.probs[p][infosets.slots(i)].copy_from_slice(probs);
        }
    }
    let e = exploitability(&tree, &policy);
    assert!(e.exploitability.abs() < 1e-12, "{e:?}");
    assert!((e.value_p0 + 1.0 / 18.0).abs() < 1e-12, "{e:?}");
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    for name in [
        "leduc_poker",
        "dark_hex(num_rows=2,num_cols=3,gameversion=adh)",
    ] {
        let (_, tree) = compile(name);
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                let mut s = CfrSolver::new(&tree, CfrVariant::Plus);
                s.run(30);
                (bits(&s.average_policy()), bits(&s.current_policy()))
            })
        };
        assert_eq!(run(1), run(2), "{name}");
        assert_eq!(run(1), run(3), "{name}");
    }
}

#[test]
fn a_resumed_run_equals_an_uninterrupted_one() {
    let dir = tempfile::tempdir().unwrap();
    let (game, tree) = compile("leduc_poker");
    for (algo, path) in [
        ("cfr+", "cfr.ckpt"),
        ("dcfr", "dcfr.json"),
        ("es-mccfr", "es.ckpt"),
        ("os-mccfr", "os.ckpt"),
    ] {
        let algorithm = Algorithm::parse(algo, AlgorithmParams::default()).unwrap();
        let path = dir.path().join(path);
        let mut straight = Trainer::new(game, Some(&tree), algorithm, 7, 2).unwrap();
        straight.run(40).unwrap();
        let mut first = Trainer::new(game, Some(&tree), algorithm, 7, 2).unwrap();
        first.run(16).unwrap();
        first.checkpoint().save(&path).unwrap();
        drop(first);
        let loaded = darkhex_algorithms::Checkpoint::load(&path).unwrap();
        let mut resumed = Trainer::resume(game, Some(&tree), loaded, None).unwrap();
        assert_eq!(resumed.algorithm(), algorithm, "{algo} resumes as itself");
        resumed.run(24).unwrap();
        assert_eq!(resumed.iteration(), 40);
        let (a, b) = (straight.policy(), resumed.policy());
        let flat = |p: &PolicyFile| -> Vec<u64> {
            p.infosets
                .iter()
                .flatten()
                .flat_map(|e| e.probs.iter().map(|x| x.to_bits()))
                .collect()
        };
        assert!(flat(&a) == flat(&b), "{algo}: the resumed policy differs");
    }
}

#[test]
fn a_checkpoint_refuses_another_game_or_algorithm() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.ckpt");
    let (game, tree) = compile("kuhn_poker");
    let plus = Algorithm::parse("cfr+", AlgorithmParams::default()).unwrap();
    let mut t = Trainer::new(game, Some(&tree), plus, 0, 1).unwrap();
    t.run(3).unwrap();
    t.checkpoint().save(&path).unwrap();
    let c = darkhex_algorithms::Checkpoint::load(&path).unwrap();
    let vanilla = Algorithm::parse("cfr", AlgorithmParams::default()).unwrap();
    let e = Trainer::resume(game, Some(&tree), c.clone(), Some(vanilla))
        .err()
        .unwrap();
    assert!(matches!(e, TrainError::WrongAlgorithm { .. }), "{e}");
    assert!(e.to_string().contains("cfr+"), "{e}");
    let (leduc, leduc_tree) = compile("leduc_poker");
    let e = Trainer::resume(leduc, Some(&leduc_tree), c, None)
        .err()
        .unwrap();
    assert!(e.to_string().contains("kuhn_poker"), "{e}");
    std::fs::write(&path, b"\x93garbage").unwrap();
    assert!(darkhex_algorithms::Checkpoint::load(&path).is_err());
}

#[test]
fn monte_carlo_cfr_converges_and_is_reproducible() {
    let (game, tree) = compile("kuhn_poker");
    for (sampling, iterations, bound) in [
        (Sampling::External, 20_000, 0.01),
        (Sampling::OUTCOME_DEFAULT, 100_000, 0.03),
    ] {
        let run = |seed| {
            let mut s = McSolver::new(game, McState::new(sampling, seed, 2));
            s.run(iterations);
            s.into_state()
        };
        let a = run(3);
        assert_eq!(a, run(3), "{sampling:?} is reproducible");
        let file = a.average_policy("kuhn_poker", Default::default());
        let (policy, missing) = file.to_tree_policy(&tree).unwrap();
        assert_eq!(missing, 0);
        let e = exploitability(&tree, &policy).exploitability;
        assert!(e < bound, "{sampling:?}: {e}");
    }
}

#[test]
fn policy_files_round_trip_and_check_their_game() {
    let dir = tempfile::tempdir().unwrap();
    let (game, tree) = compile("dark_hex(num_rows=2,num_cols=2,gameversion=adh)");
    let mut s = CfrSolver::new(&tree, CfrVariant::Plus);
    s.run(50);
    let file = PolicyFile::from_tree(&tree, &s.average_policy(), Default::default());
    for name in ["p.json", "p.bin"] {
        let path = dir.path().join(name);
        file.save(&path).unwrap();
        let back = PolicyFile::load(&path).unwrap();
        assert!(back == file, "{name}: the policy changed on the way");
        back.check_game(&game).unwrap();
        let (policy, missing) = back.to_tree_policy(&tree).unwrap();
        assert_eq!((bits(&policy), missing), (bits(&s.average_policy()), 0));
    }
    let other = load_game("dark_hex(num_rows=2,num_cols=3,gameversion=adh)").unwrap();
    let e = file.check_game(&other).unwrap_err().to_string();
    assert!(
        e.contains("num_cols 2 vs 3") || e.contains("board_size"),
        "{e}"
    );
    let path = dir.path().join("p.json");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, &text[..text.len() / 2]).unwrap();
    let e = PolicyFile::load(&path).unwrap_err().to_string();
    assert!(e.contains("not a valid policy file"), "{e}");
    std::fs::write(&path, "{\"format\":\"something\"}").unwrap();
    assert!(PolicyFile::load(&path).is_err());
}

#[test]
fn trees_over_the_memory_limit_are_refused_with_an_estimate() {
    let game = load_game("dark_hex(num_rows=3,num_cols=3)").unwrap();
    let options = CompileOptions {
        limit: MemoryLimit::bytes_given(1 << 30),
        progress: None,
    };
    let e = GameTree::build(&game, &options).unwrap_err().to_string();
    assert!(
        e.contains("histories") && e.contains("GB") && e.contains("--max-memory-gb"),
        "{e}"
    );
}

/// A streaming run stopped, saved, loaded and continued equals one that
/// ran straight through, at either precision; checkpoints of one kind are
/// refused by the other.
#[test]
fn a_streaming_run_resumes_bitwise() {
    use darkhex_algorithms::stream::{BuildOptions, Precision, build_tables};
    let dir = tempfile::tempdir().unwrap();
    let (game, tree) = compile("leduc_poker");
    let tables = build_tables(&game, &BuildOptions::default()).unwrap();
    for (algo, precision) in [("pcfr+", Precision::F32), ("dcfr", Precision::F64)] {
        let algorithm = Algorithm::parse(algo, AlgorithmParams::default()).unwrap();
        let path = dir.path().join(format!("{algo}.ckpt"));
        let mut straight = Trainer::streaming(game, &tables, algorithm, precision).unwrap();
        straight.run(9).unwrap();
        let mut first = Trainer::streaming(game, &tables, algorithm, precision).unwrap();
        first.run(4).unwrap();
        first.evaluate().unwrap();
        first.checkpoint().save(&path).unwrap();
        drop(first);
        let loaded = darkhex_algorithms::Checkpoint::load(&path).unwrap();
        assert!(loaded.is_streaming());
        let e = Trainer::resume(game, Some(&tree), loaded.clone(), None)
            .err()
            .unwrap();
        assert!(matches!(e, TrainError::WrongBackend { .. }), "{e}");
        let mut resumed = Trainer::resume_streaming(game, &tables, loaded, None).unwrap();
        assert_eq!(resumed.precision(), Some(precision));
        assert_eq!(resumed.history().len(), 1);
        resumed.run(5).unwrap();
        assert_eq!(
            resumed.checkpoint().solver,
            straight.checkpoint().solver,
            "{algo}"
        );
        let e = resumed.evaluate().unwrap().unwrap().exploitability;
        assert!(e > 0.0 && e < 1.0, "{algo}: {e}");
    }
    let plus = Algorithm::parse("cfr+", AlgorithmParams::default()).unwrap();
    let mut compiled = Trainer::new(game, Some(&tree), plus, 0, 1).unwrap();
    compiled.run(2).unwrap();
    let e = Trainer::resume_streaming(game, &tables, compiled.checkpoint(), None)
        .err()
        .unwrap();
    assert!(matches!(e, TrainError::WrongBackend { .. }), "{e}");
    let os = Algorithm::parse("os-mccfr", AlgorithmParams::default()).unwrap();
    let e = Trainer::streaming(game, &tables, os, Precision::F64)
        .err()
        .unwrap();
    assert!(e.to_string().contains("os-mccfr"), "{e}");
}
