//! Deep CFR: its learned policy against exact exploitability, its
//! determinism, its reservoirs and its weighted fits.

use darkhex_algorithms::cfr::deep_cfr::{DeepCfrError, DeepCfrSettings, DeepCfrSolver, Reservoir};
use darkhex_algorithms::fa::mlp::{Mlp, MlpSettings};
use darkhex_algorithms::fa::regress::{Design, RegressError, Regressor};
use darkhex_algorithms::{CompileOptions, GameTree, TreePolicy, exploitability};
use darkhex_games::{AnyGame, AnyState, Game, State, Token, Turn, load_game};
use hashbrown::HashMap;
use ndarray::Array2;

fn kuhn() -> (AnyGame, GameTree) {
    let game = load_game("kuhn_poker").unwrap();
    let tree = GameTree::build(&game, &CompileOptions::default()).unwrap();
    (game, tree)
}

fn bits(p: &TreePolicy) -> Vec<u64> {
    p.probs.iter().flatten().map(|x| x.to_bits()).collect()
}

/// A small run's learned policy on `tree`.
fn learn(game: &AnyGame, tree: &GameTree, s: DeepCfrSettings) -> TreePolicy {
    let mut solver = DeepCfrSolver::new(*game, s).unwrap();
    solver.run().unwrap();
    let policy = solver.tree_policy(tree).unwrap();
    assert!(policy.is_valid(tree, 1e-9));
    policy
}

fn settings(
    iterations: u64,
    seed: u64,
    traversals: u32,
    steps: u32,
    hidden: u32,
) -> DeepCfrSettings {
    let mut s = DeepCfrSettings::new(iterations, seed);
    s.traversals = traversals;
    s.advantage_network.hidden = [hidden, hidden, 0, 0];
    s.advantage_network.steps = steps;
    s.advantage_network.batch = 256;
    s.policy_network.hidden = [hidden, hidden, 0, 0];
    s.policy_network.steps = steps * 4;
    s.policy_network.batch = 256;
    s
}

/// Deep CFR learns Kuhn poker: 30 iterations of 100 traversals a player,
/// networks of two hidden layers of 64 fitted by 100 Adam steps of 256 rows
/// (400 for the policy), and the learned policy's exploitability, computed
/// exactly on the tree, is below 0.05, from the uniform policy's 0.4583
/// (seeds 0, 1, 2: 0.010, 0.030, 0.041; with the advantages' sign flipped
/// seed 0 gives 0.83).
#[test]
fn deep_cfr_learns_kuhn() {
    let (game, tree) = kuhn();
    let uniform = exploitability(&tree, &TreePolicy::uniform(&tree)).exploitability;
    assert!((uniform - 0.458333).abs() < 1e-6, "{uniform}");
    let mut solver = DeepCfrSolver::new(game, settings(30, 0, 100, 100, 64)).unwrap();
    solver.run().unwrap();
    assert_eq!(solver.iteration(), 30);
    let stats = solver.stats();
    assert_eq!(stats.traversals, 30 * 100 * 2);
    let (advantages, strategies) = solver.reservoirs(0);
    assert!(advantages.seen() > 0 && strategies.seen() > 0);
    // Network calls are one per information state per fit, not one per
    // action nor per visit: Kuhn has 6 information states a player.
    assert!(stats.network_calls <= 30 * 2 * 6, "{stats:?}");
    let policy = solver.tree_policy(&tree).unwrap();
    assert!(policy.is_valid(&tree, 1e-9));
    let e = exploitability(&tree, &policy).exploitability;
    assert!(e < 0.05, "{e}");
}

/// The same seed gives the same bits (the tensor library's threads are set
/// by RAYON_NUM_THREADS, which tests/train.rs varies; here rayon's pool);
/// another seed another policy.
#[test]
fn same_seed_same_policy() {
    let (game, tree) = kuhn();
    let s = |seed| settings(4, seed, 20, 16, 16);
    let in_pool = |threads: usize, seed: u64| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| bits(&learn(&game, &tree, s(seed))))
    };
    let a = in_pool(1, 3);
    assert_eq!(a, in_pool(1, 3));
    assert_eq!(a, in_pool(3, 3));
    assert_ne!(a, in_pool(1, 4));
}

/// Algorithm R keeps a uniform sample: of 100,000 items offered to room
/// for 1,000, each tenth of the stream keeps 100 expected (standard
/// deviation 9.5; the bound is five of them); and over 4,000 seeds each of
/// 12 items is among the 3 kept 1,000 times expected (deviation 27; bound
/// 150). Keeping the first or the last items fails both.
#[test]
fn reservoir_keeps_a_uniform_sample() {
    let mut r = Reservoir::new(1000, 7, 0);
    for i in 0..100_000u32 {
        r.push(i);
    }
    assert_eq!(r.seen(), 100_000);
    assert_eq!(r.items().len(), 1000);
    let mut kept = r.items().to_vec();
    kept.sort_unstable();
    kept.dedup();
    assert_eq!(kept.len(), 1000, "an item kept twice");
    let mut tenths = [0i64; 10];
    for &i in r.items() {
        tenths[i as usize / 10_000] += 1;
    }
    for (k, &n) in tenths.iter().enumerate() {
        assert!((n - 100).abs() <= 47, "tenth {k} keeps {n}: {tenths:?}");
    }
    let mut counts = [0i64; 12];
    for seed in 0..4000 {
        let mut r = Reservoir::new(3, seed, 1);
        (0..12usize).for_each(|i| r.push(i));
        r.items().iter().for_each(|&i| counts[i] += 1);
    }
    for (i, &n) in counts.iter().enumerate() {
        assert!(
            (n - 1000).abs() <= 150,
            "item {i} kept {n} times: {counts:?}"
        );
    }
}

/// Two rows of the same features with targets 1 and 0: the weighted fit
/// learns their weighted mean, the unweighted one their mean; weights all
/// 1 are the unweighted fit to the bit.
#[test]
fn weighted_fit() {
    let x = Array2::from_shape_fn((8, 3), |(r, c)| match c {
        0 => (r / 2) as f64 / 4.0,
        1 => 1.0,
        _ => ((r / 2) % 2) as f64,
    });
    let design = Design::new(x);
    let targets: Vec<f64> = (0..8).map(|r| (r % 2 == 0) as u8 as f64).collect();
    let mut network = MlpSettings::new(1);
    network.steps = 1500;
    let fit = |weights: Option<&[f64]>| {
        let mut mlp = Mlp::new(network, 3, 0).unwrap();
        match weights {
            None => mlp.fit(&design, &targets).unwrap(),
            Some(w) => mlp.fit_weighted(&design, &targets, w).unwrap(),
        }
        let mut y = vec![0.0; 8];
        mlp.predict(&design, &mut y).unwrap();
        (
            y,
            mlp.params()
                .weights
                .iter()
                .map(|w| w.to_bits())
                .collect::<Vec<_>>(),
        )
    };
    let (plain, plain_bits) = fit(None);
    let (ones, ones_bits) = fit(Some(&[1.0; 8]));
    assert_eq!(plain_bits, ones_bits);
    assert_eq!(plain, ones);
    for y in &plain {
        assert!((y - 0.5).abs() < 0.02, "{plain:?}");
    }
    let three_to_one: Vec<f64> = (0..8).map(|r| if r % 2 == 0 { 3.0 } else { 1.0 }).collect();
    let (weighted, _) = fit(Some(&three_to_one));
    for y in &weighted {
        assert!((y - 0.75).abs() < 0.02, "{weighted:?}");
    }
    let mut mlp = Mlp::new(network, 3, 0).unwrap();
    assert!(matches!(
        mlp.fit_weighted(&design, &targets, &[1.0; 7]),
        Err(RegressError::WrongLength { .. })
    ));
    assert!(matches!(
        mlp.fit_weighted(&design, &targets, &[-1.0; 8]),
        Err(RegressError::NotFinite)
    ));
    assert!(matches!(
        mlp.fit_weighted(&design, &targets, &[0.0; 8]),
        Err(RegressError::NotFinite)
    ));
}

/// A network of two outputs fitted on the first only: the second's
/// targets change nothing (to the bit), and the first learns its targets;
/// fitted on both, each output learns its own.
#[test]
fn legal_outputs_fit() {
    let x = Array2::from_shape_fn((4, 3), |(r, c)| match c {
        0 => (r % 2) as f64,
        1 => 1.0,
        _ => (r / 2) as f64,
    });
    let design = Design::new(x);
    let first = [0.5, -0.5, 1.0, 0.0];
    let second = [1.0, 0.25, -1.0, 0.5];
    let mut network = MlpSettings::new(2);
    network.steps = 1500;
    let fit = |targets: &[f64], legal: &[bool]| {
        let mut mlp = Mlp::with_outputs(network, 3, 2, 0).unwrap();
        mlp.fit_legal(&design, targets, legal, &[1.0; 4]).unwrap();
        let mut y = vec![0.0; 8];
        mlp.predict(&design, &mut y).unwrap();
        let bits: Vec<u32> = mlp.params().weights.iter().map(|w| w.to_bits()).collect();
        (y, bits)
    };
    let interleave = |a: &[f64], b: &[f64]| -> Vec<f64> {
        a.iter().zip(b).flat_map(|(&a, &b)| [a, b]).collect()
    };
    let first_only = [true, false].repeat(4);
    let (y, bits) = fit(&interleave(&first, &[0.0; 4]), &first_only);
    let (y_other, bits_other) = fit(&interleave(&first, &[9.0; 4]), &first_only);
    assert_eq!(bits, bits_other);
    assert_eq!(y, y_other);
    for (r, &t) in first.iter().enumerate() {
        assert!((y[2 * r] - t).abs() < 0.05, "{y:?}");
    }
    let (both, _) = fit(&interleave(&first, &second), &[true; 8]);
    for (r, (&a, &b)) in first.iter().zip(&second).enumerate() {
        assert!((both[2 * r] - a).abs() < 0.05, "{both:?}");
        assert!((both[2 * r + 1] - b).abs() < 0.05, "{both:?}");
    }
    let mut mlp = Mlp::with_outputs(network, 3, 2, 0).unwrap();
    assert!(matches!(
        mlp.fit_legal(&design, &first, &[true; 4], &[1.0; 4]),
        Err(RegressError::WrongLength { .. })
    ));
}

#[test]
fn bad_settings_are_refused() {
    let game = load_game("kuhn_poker").unwrap();
    let mut s = DeepCfrSettings::new(1, 0);
    s.traversals = 0;
    assert!(matches!(
        DeepCfrSolver::new(game, s),
        Err(DeepCfrError::BadSettings(_))
    ));
    let mut s = DeepCfrSettings::new(1, 0);
    s.strategy_capacity = 0;
    assert!(DeepCfrSolver::new(game, s).is_err());
    let mut s = DeepCfrSettings::new(1, 0);
    s.policy_network.steps = 0;
    assert!(DeepCfrSolver::new(game, s).is_err());
    let (game, tree) = kuhn();
    let solver = DeepCfrSolver::new(game, DeepCfrSettings::new(1, 0)).unwrap();
    assert_eq!(solver.tree_policy(&tree), Err(DeepCfrError::NoPolicy));
}

/// The value of `state` to `player` when both players play uniformly.
fn uniform_value(state: &AnyState, player: usize) -> f64 {
    let child = |a| {
        let mut c = state.clone();
        c.apply(a);
        uniform_value(&c, player)
    };
    match state.current_player() {
        Turn::Terminal => state.returns()[player],
        Turn::Chance => state
            .chance_outcomes()
            .into_iter()
            .map(|(a, p)| p * child(a))
            .sum(),
        Turn::Player(_) => {
            let actions = state.legal_actions();
            actions.iter().map(|&a| child(a)).sum::<f64>() / actions.len() as f64
        }
    }
}

/// Robust sampling keeps the advantage targets unbiased: exploring one of
/// the two actions of each of the traverser's Kuhn decisions, the mean of
/// the first iteration's samples (both players uniform) at each of
/// player 0's first decisions is each action's counterfactual advantage,
/// computed exactly here: the average over the opponent's cards of the
/// action's value less the decision's. 60,000 traversals give each card
/// 20,000 samples, each within 4 of its mean, so a standard error under
/// 0.03; the bound is 0.1. Leaving out the explored value's weight of
/// n / k = 2 halves the targets (errors of 0.25 to 0.5).
#[test]
fn explored_actions_keep_the_advantages_unbiased() {
    let (game, _) = kuhn();
    let mut exact: HashMap<Vec<Token>, (usize, Vec<f64>)> = HashMap::new();
    let root = game.new_initial_state();
    for (c0, _) in root.chance_outcomes() {
        let mut s0 = root.clone();
        s0.apply(c0);
        for (c1, _) in s0.chance_outcomes() {
            let mut s = s0.clone();
            s.apply(c1);
            assert_eq!(s.current_player(), Turn::Player(0));
            let values: Vec<f64> = s
                .legal_actions()
                .iter()
                .map(|&a| {
                    let mut c = s.clone();
                    c.apply(a);
                    uniform_value(&c, 0)
                })
                .collect();
            let mean = values.iter().sum::<f64>() / values.len() as f64;
            let entry = exact
                .entry(s.info_key(0).to_vec())
                .or_insert((0, vec![0.0; values.len()]));
            entry.0 += 1;
            entry
                .1
                .iter_mut()
                .zip(&values)
                .for_each(|(e, v)| *e += v - mean);
        }
    }
    assert_eq!(exact.len(), 3);
    let mut s = settings(1, 9, 60_000, 1, 4);
    s.explored_actions = 1;
    let mut solver = DeepCfrSolver::new(game, s).unwrap();
    solver.iterate().unwrap();
    let mut sampled: HashMap<Vec<Token>, (usize, Vec<f64>)> = HashMap::new();
    for sample in solver.reservoirs(0).0.items() {
        if let Some((_, e)) = exact.get(&sample.key[..]) {
            let entry = sampled
                .entry(sample.key.to_vec())
                .or_insert((0, vec![0.0; e.len()]));
            entry.0 += 1;
            entry
                .1
                .iter_mut()
                .zip(&sample.values)
                .for_each(|(m, v)| *m += v);
        }
    }
    for (key, (n, sum)) in &exact {
        let (m, got) = &sampled[key];
        assert!(*m > 15_000, "{m} samples");
        for (e, g) in sum.iter().zip(got) {
            let (e, g) = (e / *n as f64, g / *m as f64);
            assert!((e - g).abs() < 0.1, "exact {e}, sampled {g}");
        }
    }
}

/// Exploring at least as many actions as the widest decision has is
/// external sampling, bit for bit.
#[test]
fn exploring_every_action_is_external_sampling() {
    let (game, tree) = kuhn();
    let mut wide = settings(3, 2, 20, 16, 16);
    wide.explored_actions = 2;
    let external = bits(&learn(&game, &tree, settings(3, 2, 20, 16, 16)));
    assert_eq!(external, bits(&learn(&game, &tree, wide)));
    let mut narrow = wide;
    narrow.explored_actions = 1;
    assert_ne!(external, bits(&learn(&game, &tree, narrow)));
}
