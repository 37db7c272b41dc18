//! ESCHER: its learned policy against exact exploitability, its
//! determinism with any number of threads, and resumed runs equal to
//! uninterrupted ones.

use darkhex_algorithms::cfr::escher::{EscherSettings, EscherSolver, escher_preset};
use darkhex_algorithms::fa::model::Training;
use darkhex_algorithms::{CompileOptions, GameTree, TreePolicy, exploitability};
use darkhex_games::{AnyGame, load_game};

fn tree(game: &AnyGame) -> GameTree {
    GameTree::build(game, &CompileOptions::default()).unwrap()
}

fn bits(p: &TreePolicy) -> Vec<u64> {
    p.probs.iter().flatten().map(|x| x.to_bits()).collect()
}

/// Small networks and short fits: seconds on Kuhn.
fn settings(iterations: u64, seed: u64) -> EscherSettings {
    let mut s = EscherSettings::new(iterations, seed);
    s.regret_traversals = 300;
    s.value_traversals = 300;
    for n in [&mut s.regret_network, &mut s.value_network] {
        n.hidden = [64, 64, 0, 0];
        n.steps = 100;
    }
    s.policy_network.hidden = [64, 64, 0, 0];
    s.policy_network.steps = 400;
    s
}

fn learn(game: &AnyGame, tree: &GameTree, s: EscherSettings) -> TreePolicy {
    let mut solver = EscherSolver::new(*game, s).unwrap();
    solver.run().unwrap();
    let policy = solver.model().unwrap().tree_policy(tree).unwrap();
    assert!(policy.is_valid(tree, 1e-9));
    policy
}

/// ESCHER learns Kuhn poker: 30 iterations of 300 value and 300 regret
/// trajectories a player, networks of two hidden layers of 64 fitted by 100
/// Adam steps of 256 rows (400 for the policy), and the learned policy's
/// exploitability, exact on the tree, falls below 0.1 for seeds 0, 1 and
/// 2 (0.063, 0.085, 0.044), from the uniform policy's 0.4583.
#[test]
fn escher_learns_kuhn() {
    let game = load_game("kuhn_poker").unwrap();
    let tree = tree(&game);
    let found: Vec<f64> = (0..3)
        .map(|seed| exploitability(&tree, &learn(&game, &tree, settings(30, seed))).exploitability)
        .collect();
    assert!(found.iter().all(|&e| e < 0.1), "{found:?}");
}

/// The same seed gives the same bits with one thread and with four;
/// another seed another policy.
#[test]
fn same_seed_same_policy_with_any_threads() {
    let game = load_game("kuhn_poker").unwrap();
    let tree = tree(&game);
    let on = |threads: usize, seed: u64| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| bits(&learn(&game, &tree, settings(4, seed))))
    };
    let one = on(1, 5);
    assert_eq!(one, on(4, 5));
    assert_ne!(one, on(1, 6));
}

/// A run stopped after 3 iterations, saved, loaded and continued to 6
/// gives the same state and policy, bit for bit, as 6 iterations without
/// a stop; the checkpoint file round-trips.
#[test]
fn resumed_run_equals_uninterrupted() {
    use darkhex_algorithms::cfr::escher::EscherCheckpoint;
    let game = load_game("kuhn_poker").unwrap();
    let tree = tree(&game);
    let mut whole = EscherSolver::new(game, settings(6, 3)).unwrap();
    whole.run().unwrap();
    let mut first = EscherSolver::new(game, settings(6, 3)).unwrap();
    for _ in 0..3 {
        first.iterate().unwrap();
    }
    // A policy fitted between iterations (an evaluation) changes nothing.
    first.train_policy().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("escher.ckpt");
    EscherCheckpoint::new(&game, first.state(), 1.5, Vec::new())
        .save(&path)
        .unwrap();
    let loaded = EscherCheckpoint::load_for(&path, &game).unwrap();
    assert_eq!(loaded.escher, first.state());
    let mut resumed = EscherSolver::resume(game, loaded.escher, 6).unwrap();
    resumed.run().unwrap();
    assert_eq!(resumed.state(), whole.state());
    let policy = |s: &EscherSolver| bits(&s.model().unwrap().tree_policy(&tree).unwrap());
    assert_eq!(policy(&resumed), policy(&whole));
    // Another game's checkpoint is refused.
    let leduc = load_game("leduc_poker").unwrap();
    assert!(EscherCheckpoint::load_for(&path, &leduc).is_err());
}

/// The model records ESCHER's settings, and its file reads back as
/// ESCHER's (not as Deep CFR's, whose settings it would otherwise pass for).
#[test]
fn model_file_names_escher() {
    use darkhex_algorithms::fa::model::PolicyModel;
    let game = load_game("kuhn_poker").unwrap();
    let mut solver = EscherSolver::new(game, settings(2, 0)).unwrap();
    solver.run().unwrap();
    let dir = tempfile::tempdir().unwrap();
    for name in ["m.json", "m.bin"] {
        let path = dir.path().join(name);
        solver
            .model()
            .unwrap()
            .save(&path, solver.provenance(Some(0.25)))
            .unwrap();
        let (_, file) = PolicyModel::load_for(&path, &game).unwrap();
        assert_eq!(file.algorithm, "escher");
        assert_eq!(file.training, Training::Escher(solver.settings()));
    }
}

/// The benchmark's settings for classic 3x3 Dark Hex, value for value;
/// a game it has none for is refused naming those it has.
#[test]
fn rudolph2026_preset() {
    let game = load_game("dark_hex(num_rows=3,num_cols=3)").unwrap();
    let s = escher_preset("rudolph2026", &game, 10, 4).unwrap();
    assert_eq!((s.regret_traversals, s.value_traversals), (8000, 250));
    assert_eq!(s.value_exploration, 0.04);
    assert_eq!(s.regret_network.hidden, [512, 512, 512, 0]);
    assert_eq!(
        (s.regret_network.steps, s.regret_network.batch),
        (20000, 1024)
    );
    assert_eq!((s.value_network.steps, s.value_network.batch), (5000, 8192));
    assert_eq!(s.policy_network.steps, 80000);
    assert_eq!(s.policy_network.learning_rate, 0.002);
    assert_eq!((s.iterations, s.seed), (10, 4));
    let kuhn = load_game("kuhn_poker").unwrap();
    let e = escher_preset("rudolph2026", &kuhn, 10, 0).unwrap_err();
    assert!(e.to_string().contains("classical_dark_hex"), "{e}");
    assert!(escher_preset("nope", &game, 10, 0).is_err());
}

/// Settings that cannot run are refused.
#[test]
fn bad_settings_are_refused() {
    let game = load_game("kuhn_poker").unwrap();
    let mut s = settings(1, 0);
    s.value_traversals = 0;
    assert!(EscherSolver::new(game, s).is_err());
    let mut s = settings(1, 0);
    s.value_exploration = 1.5;
    assert!(EscherSolver::new(game, s).is_err());
    let mut s = settings(1, 0);
    s.regret_capacity = 0;
    assert!(EscherSolver::new(game, s).is_err());
}
