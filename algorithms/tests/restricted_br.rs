//! The support-restricted best response against the compiled tree's exact
//! best response, on every small board and variant, for pure, sparse
//! mixed, PONE and thresholded CFR+ strategies, and for policies cut to a
//! threshold as they are read and completed by a pure default.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};

use darkhex_algorithms::policy_file::InfosetPolicy;
use darkhex_algorithms::pone::{self, extract_strategy};
use darkhex_algorithms::restricted_br::{
    self, FixedPolicy, Missing, Outcome, Partial, PoneMoves, RestrictedBrError, Settings,
    Thresholded, best_response_to, profile_value, restricted_best_response,
};
use darkhex_algorithms::{
    CfrSolver, CfrVariant, CompileOptions, GameTree, PolicyFile, PolicyTable, Provenance,
    TreePolicy, best_response, expected_value,
};
use darkhex_games::{AnyGame, Game, State, Token, Turn, load_game};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const EXACT: Settings = Settings {
    missing: Missing::Error,
    record: true,
    keep: false,
};

/// [`EXACT`], keeping the fixed player's distributions as walked.
const KEEP: Settings = Settings {
    keep: true,
    ..EXACT
};

fn variants() -> Vec<String> {
    let mut out = Vec::new();
    for (r, c) in [(2, 2), (2, 3), (3, 2)] {
        for v in ["cdh", "adh"] {
            out.push(format!(
                "dark_hex(num_rows={r},num_cols={c},gameversion={v})"
            ));
        }
    }
    // What the responder observes besides its own moves changes how
    // beliefs split: the other observation types, on the smallest boards.
    for extra in [
        "obstype=reveal-numturns",
        "disclosure=noise",
        "disclosure=flash",
    ] {
        out.push(format!("dark_hex(num_rows=2,num_cols=2,{extra})"));
        out.push(format!(
            "dark_rex(num_rows=2,num_cols=3,gameversion=adh,{extra})"
        ));
    }
    out
}

/// A strategy for both players on every infoset of `tree`: `support`
/// actions at most, with random weights (1: pure).
fn random_policy(tree: &GameTree, support: usize, seed: u64) -> TreePolicy {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut policy = TreePolicy::uniform(tree);
    for p in 0..2 {
        let table = tree.infosets(p);
        for i in 0..table.len() {
            let slots = table.slots(i);
            let n = slots.len();
            let mut w = vec![0.0; n];
            for _ in 0..support.min(n) {
                w[rng.random_range(0..n)] += rng.random_range(1..4) as f64;
            }
            let total: f64 = w.iter().sum();
            for (k, s) in slots.enumerate() {
                policy.probs[p][s] = w[k] / total;
            }
        }
    }
    policy
}

/// CFR+'s average after a few iterations, with every probability below
/// `floor` removed and the rest renormalised.
fn thresholded_cfr(tree: &GameTree, iterations: u64, floor: f64) -> TreePolicy {
    let mut solver = CfrSolver::new(tree, CfrVariant::Plus);
    solver.run(iterations);
    let mut policy = solver.average_policy();
    for p in 0..2 {
        let table = tree.infosets(p);
        for i in 0..table.len() {
            let slots = table.slots(i);
            let probs = &mut policy.probs[p][slots];
            let max = probs.iter().copied().fold(0.0, f64::max);
            for x in probs.iter_mut() {
                if *x < floor && *x < max {
                    *x = 0.0;
                }
            }
            let total: f64 = probs.iter().sum();
            for x in probs.iter_mut() {
                *x /= total;
            }
        }
    }
    policy
}

fn check(game: &AnyGame, tree: &GameTree, policy: &TreePolicy, what: &str) {
    let file = PolicyFile::from_tree(tree, policy, Provenance::default());
    let table = PolicyTable::new(&file);
    for responder in 0..2 {
        let expected = best_response(tree, policy, responder).value;
        let got = best_response_to(game, &table, responder, EXACT).unwrap();
        assert!(
            (got.value - expected).abs() < 1e-12,
            "{} {what}, player {responder} responding: {} restricted, {expected} on the tree",
            game.game_string(),
            got.value
        );
        assert_eq!(got.lacking, 0);
        // The recorded choices, played against the policy, earn the value.
        let mut both = file.clone();
        both.infosets[responder] = got
            .choices
            .iter()
            .map(|c| {
                let mut probs = vec![0.0; c.actions.len()];
                probs[c.best as usize] = 1.0;
                InfosetPolicy {
                    key: c.key.clone(),
                    actions: c.actions.clone(),
                    probs,
                }
            })
            .collect();
        let (v0, _) = profile_value(game, &PolicyTable::new(&both), Missing::Error).unwrap();
        let earned = if responder == 0 { v0 } else { -v0 };
        assert!(
            (earned - expected).abs() < 1e-12,
            "{} {what}: the written response earns {earned}, not {expected}",
            game.game_string()
        );
    }
    let (v0, _) = profile_value(game, &table, Missing::Error).unwrap();
    assert!((v0 - expected_value(tree, policy)).abs() < 1e-12);
}

#[test]
fn the_restricted_best_response_equals_the_tree_s_for_pure_and_sparse_strategies() {
    for name in variants() {
        let game = load_game(&name).unwrap();
        let tree = GameTree::build(&game, &CompileOptions::default()).unwrap();
        for seed in 0..3 {
            check(&game, &tree, &random_policy(&tree, 1, seed), "pure");
            check(&game, &tree, &random_policy(&tree, 2, seed), "sparse");
        }
        check(&game, &tree, &thresholded_cfr(&tree, 100, 0.1), "CFR+");
    }
}

/// `policy` with the probabilities below `threshold` removed, or, where
/// none reaches it, all but the first most likely action; renormalised.
fn cut_to(tree: &GameTree, policy: &TreePolicy, threshold: f64) -> TreePolicy {
    let mut cut = policy.clone();
    for p in 0..2 {
        let table = tree.infosets(p);
        for i in 0..table.len() {
            let probs = &mut cut.probs[p][table.slots(i)];
            let first_max = (0..probs.len())
                .rev()
                .max_by(|&a, &b| probs[a].total_cmp(&probs[b]))
                .unwrap();
            let some = probs.iter().any(|&x| x >= threshold);
            for (k, x) in probs.iter_mut().enumerate() {
                let keep = if some {
                    *x >= threshold
                } else {
                    k == first_max
                };
                if !keep {
                    *x = 0.0;
                }
            }
            let total: f64 = probs.iter().sum();
            probs.iter_mut().for_each(|x| *x /= total);
        }
    }
    cut
}

/// `bounds --threshold`: CFR+'s average read whole and cut as the walk
/// asks for it, against the tree's best response to the average cut
/// beforehand (by [`cut_to`], on its own).
#[test]
fn a_policy_cut_as_it_is_read_is_best_responded_to_as_the_cut_policy() {
    for name in variants().iter().take(6) {
        let game = load_game(name).unwrap();
        let tree = GameTree::build(&game, &CompileOptions::default()).unwrap();
        let mut solver = CfrSolver::new(&tree, CfrVariant::Plus);
        solver.run(100);
        let file = PolicyFile::from_tree(&tree, &solver.average_policy(), Provenance::default());
        let table = PolicyTable::new(&file);
        for threshold in [0.1, 0.3, 0.5, 0.9] {
            let cut = Thresholded {
                source: &table,
                threshold,
            };
            let expected = cut_to(&tree, &solver.average_policy(), threshold);
            for responder in 0..2 {
                let want = best_response(&tree, &expected, responder).value;
                let got = best_response_to(&game, &cut, responder, EXACT).unwrap();
                assert!(
                    (got.value - want).abs() < 1e-12,
                    "{name} cut at {threshold}, player {responder} responding: {} restricted, {want} on the tree",
                    got.value
                );
            }
        }
    }
}

/// `--missing lowest`: a pure strategy with a third of its entries
/// dropped is the same strategy with the lowest legal action there.
#[test]
fn the_lowest_action_default_plays_the_lowest_action_where_entries_lack() {
    for name in variants().iter().take(6) {
        let game = load_game(name).unwrap();
        let tree = GameTree::build(&game, &CompileOptions::default()).unwrap();
        for seed in 0..2 {
            let mut policy = random_policy(&tree, 1, seed);
            let mut file = PolicyFile::from_tree(&tree, &policy, Provenance::default());
            for p in 0..2 {
                let table = tree.infosets(p);
                for i in (0..table.len()).step_by(3) {
                    for (k, s) in table.slots(i).enumerate() {
                        policy.probs[p][s] = f64::from(u8::from(k == 0));
                    }
                }
                let mut i = 0;
                file.infosets[p].retain(|_| {
                    i += 1;
                    (i - 1) % 3 != 0
                });
            }
            let table = PolicyTable::new(&file);
            let lowest = Settings {
                missing: Missing::Lowest,
                record: false,
                keep: false,
            };
            for responder in 0..2 {
                let want = best_response(&tree, &policy, responder).value;
                let got = best_response_to(&game, &table, responder, lowest).unwrap();
                assert!(
                    (got.value - want).abs() < 1e-12,
                    "{name} seed {seed}, player {responder} responding: {} restricted, {want} on the tree",
                    got.value
                );
                assert!(got.lacking > 0, "{name}: no entry lacked");
            }
            let (v0, _) = profile_value(&game, &table, Missing::Lowest).unwrap();
            assert!((v0 - expected_value(&tree, &policy)).abs() < 1e-12);
        }
    }
}

#[test]
fn a_pone_strategy_is_best_responded_to_by_a_sure_loss() {
    let mut checked = 0;
    for name in variants() {
        let AnyGame::DarkHex(dark) = load_game(&name).unwrap() else {
            unreachable!()
        };
        let game = AnyGame::DarkHex(dark);
        let tree = GameTree::build(&game, &CompileOptions::default()).unwrap();
        for player in 0..2 {
            let (result, search) = pone::solve(&dark, player, &[]).unwrap();
            if !result.wins {
                continue;
            }
            let strategy = extract_strategy(&search, &dark, &pone::first_turn(&dark, player));
            let moves = PoneMoves::new(&strategy);
            let got = best_response_to(&game, &moves, 1 - player, EXACT).unwrap();
            assert_eq!(got.value, -1.0, "{name}: player {player}'s sure win");
            // The same strategy on the tree (uniform where it never goes).
            let mut infosets: [Vec<InfosetPolicy>; 2] = Default::default();
            infosets[player] = strategy
                .moves
                .iter()
                .map(|(key, a)| {
                    let actions = game.info_state_actions(player, key).unwrap();
                    let probs = actions
                        .iter()
                        .map(|b| f64::from(u8::from(b == a)))
                        .collect();
                    InfosetPolicy {
                        key: key.clone(),
                        actions,
                        probs,
                    }
                })
                .collect();
            let file = PolicyFile::new(&name, Provenance::default(), infosets);
            let (policy, _) = file.to_tree_policy(&tree).unwrap();
            assert_eq!(best_response(&tree, &policy, 1 - player).value, -1.0);
            checked += 1;
        }
    }
    assert!(checked >= 2, "only {checked} sure wins among the variants");
}

#[test]
fn threads_and_interruptions_change_nothing() {
    let game = load_game("dark_hex(num_rows=3,num_cols=2,gameversion=adh)").unwrap();
    let tree = GameTree::build(&game, &CompileOptions::default()).unwrap();
    let policy = random_policy(&tree, 2, 7);
    let table = PolicyTable::new(&PolicyFile::from_tree(
        &tree,
        &policy,
        Provenance::default(),
    ));
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| best_response_to(&game, &table, 1, KEEP).unwrap())
    };
    let one = run(1);
    assert!(one.units > 4, "{} units", one.units);
    let two = run(2);
    assert_eq!(one.value.to_bits(), two.value.to_bits());
    assert_eq!(one.choices, two.choices);
    assert_eq!(one.work, two.work);
    assert!(!one.kept().is_empty());
    assert_eq!(one.kept(), two.kept());

    // Stopped after the third unit, then resumed.
    let stop = AtomicBool::new(false);
    let outcome = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(|| {
            restricted_best_response(&game, &table, 1, KEEP, None, &stop, &|p| {
                if p.units_done == 3 {
                    stop.store(true, Ordering::SeqCst);
                }
            })
            .unwrap()
        });
    let Outcome::Stopped(partial) = outcome else {
        panic!("the walk did not stop")
    };
    assert_eq!(partial.finished(), 3);
    let fresh = AtomicBool::new(false);
    // Parts walked without keeping the strategy's states cannot make its cut.
    let unkept = Partial {
        kept: None,
        ..partial.clone()
    };
    assert!(matches!(
        restricted_best_response(&game, &table, 1, KEEP, Some(unkept), &fresh, &|_| {}),
        Err(RestrictedBrError::Resume(_))
    ));
    let resumed =
        restricted_best_response(&game, &table, 1, KEEP, Some(partial), &fresh, &|_| {}).unwrap();
    let Outcome::Done(resumed) = resumed else {
        panic!("the resumed walk stopped")
    };
    assert_eq!(resumed.value.to_bits(), one.value.to_bits());
    assert_eq!(resumed.choices, one.choices);
    assert_eq!(resumed.work, one.work);
    assert_eq!(resumed.kept(), one.kept());
}

#[test]
fn a_state_the_policy_lacks_is_named_or_played_uniformly_and_counted() {
    let name = "dark_hex(num_rows=2,num_cols=2)";
    let game = load_game(name).unwrap();
    let tree = GameTree::build(&game, &CompileOptions::default()).unwrap();
    let mut file = PolicyFile::from_tree(&tree, &random_policy(&tree, 1, 3), Provenance::default());
    let dropped = file.infosets[0].len() / 2;
    file.infosets[0].truncate(dropped);
    let table = PolicyTable::new(&file);
    let err = best_response_to(&game, &table, 1, EXACT).unwrap_err();
    assert!(
        matches!(err, RestrictedBrError::Uncovered { player: 0, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("--missing uniform"), "{err}");
    let uniform = Settings {
        missing: Missing::Uniform,
        record: false,
        keep: false,
    };
    let got = best_response_to(&game, &table, 1, uniform).unwrap();
    let (policy, missing) = file.to_tree_policy(&tree).unwrap();
    assert!(missing > 0);
    assert!((got.value - best_response(&tree, &policy, 1).value).abs() < 1e-12);
    assert!(
        got.lacking > 0 && got.lacking <= missing,
        "{} of {missing}",
        got.lacking
    );
}

#[test]
fn the_estimate_counts_the_walk_s_histories() {
    let game = load_game("dark_hex(num_rows=2,num_cols=3,gameversion=adh)").unwrap();
    let tree = GameTree::build(&game, &CompileOptions::default()).unwrap();
    let table = PolicyTable::new(&PolicyFile::from_tree(
        &tree,
        &random_policy(&tree, 2, 5),
        Provenance::default(),
    ));
    for responder in 0..2 {
        let exact = best_response_to(&game, &table, responder, EXACT).unwrap();
        let e = restricted_br::estimate(
            &game,
            &table,
            responder,
            Missing::Error,
            20_000,
            20_000,
            std::time::Duration::from_secs(60),
            1,
        )
        .unwrap();
        let (h, i) = (exact.work.histories as f64, exact.work.info_states as f64);
        assert!(
            (e.histories / h - 1.0).abs() < 0.1,
            "{e:?} vs {:?}",
            exact.work
        );
        assert!(
            (e.info_states / i - 1.0).abs() < 0.1,
            "{e:?} vs {:?}",
            exact.work
        );
    }
}

/// `seat`'s information states that its play on `policy`'s support
/// reaches against any play of the other side's, under the policy's
/// recall, with their distributions: every such history, one by one.
fn reached(
    game: &AnyGame,
    policy: &dyn FixedPolicy,
    seat: usize,
) -> BTreeMap<Vec<Token>, Vec<f64>> {
    fn walk<S: State>(
        s: &S,
        policy: &dyn FixedPolicy,
        seat: usize,
        out: &mut BTreeMap<Vec<Token>, Vec<f64>>,
    ) {
        let (actions, probs): (Vec<_>, Vec<f64>) = match s.current_player() {
            Turn::Terminal => return,
            Turn::Chance => s.chance_outcomes().into_iter().unzip(),
            Turn::Player(p) if p == seat => {
                let actions = s.legal_actions();
                let probs = policy
                    .distribution(p, s.info_key(p), &actions)
                    .unwrap()
                    .expect("the file lacks a state its play reaches")
                    .into_owned();
                let mut key = s.info_key(p).to_vec();
                if let Some(a) = policy.recall() {
                    a.abstract_key(0, s.info_key(p), &mut key);
                }
                out.insert(key, probs.clone());
                (actions, probs)
            }
            Turn::Player(_) => {
                let actions = s.legal_actions();
                let all = vec![1.0; actions.len()];
                (actions, all)
            }
        };
        for (a, q) in actions.into_iter().zip(probs) {
            if q > 0.0 {
                let mut child = s.clone();
                child.apply(a);
                walk(&child, policy, seat, out);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(&game.new_initial_state(), policy, seat, &mut out);
    out
}

/// `bounds --cut-black`: the strategy as the walk played it (cut at a
/// threshold, the lowest action where the source lacks a state), written
/// at the states the walk met, read back as a policy file, proves the same
/// bound on its own, bit for bit; the compiled tree's best response to
/// it, and to the source cut on the tree, agrees; and it holds exactly the
/// states its play reaches. For perfect-recall CFR+ policies and for
/// view-rot180 MCCFR policies (written under the view's keys).
#[test]
fn the_strategy_kept_as_walked_proves_the_same_bound_and_holds_only_reached_states() {
    let dir = tempfile::tempdir().unwrap();
    let threshold = 0.3;
    for name in variants().iter().take(6) {
        let game = load_game(name).unwrap();
        let tree = GameTree::build(&game, &CompileOptions::default()).unwrap();
        let mut solver = CfrSolver::new(&tree, CfrVariant::Plus);
        solver.run(100);
        let average = solver.average_policy();
        let sources = [
            PolicyFile::from_tree(&tree, &average, Provenance::default()),
            crate::compact_mccfr::compact(name, "view-rot180", 1, 1, 20_000),
        ];
        for (s, source) in sources.iter().enumerate() {
            let table = PolicyTable::new(source);
            let cut = Thresholded {
                source: &table,
                threshold,
            };
            for seat in 0..2 {
                let responder = 1 - seat;
                let what = format!("{name}, source {s}, seat {seat}");
                let keep = Settings {
                    missing: Missing::Lowest,
                    record: false,
                    keep: true,
                };
                let walked = best_response_to(&game, &cut, responder, keep).unwrap();
                let mut file = PolicyFile::new(name, Provenance::default(), Default::default());
                file.infosets[seat] = walked.kept().to_vec();
                file.abstraction = table.lift().map(|a| a.name());
                let path = dir.path().join("cut.json");
                file.save(&path).unwrap();
                let read = PolicyFile::load_for(&path, &game).unwrap();
                let written = PolicyTable::new(&read);
                let again = best_response_to(&game, &written, responder, EXACT).unwrap();
                assert_eq!(
                    again.value.to_bits(),
                    walked.value.to_bits(),
                    "{what}: {} from the file, {} cut as read",
                    again.value,
                    walked.value
                );
                let (on_tree, _) = read.to_tree_policy(&tree).unwrap();
                let want = best_response(&tree, &on_tree, responder).value;
                assert!(
                    (again.value - want).abs() < 1e-12,
                    "{what}: {want} on the tree"
                );
                if s == 0 {
                    let cut_on_tree = cut_to(&tree, &average, threshold);
                    let want = best_response(&tree, &cut_on_tree, responder).value;
                    assert!(
                        (again.value - want).abs() < 1e-12,
                        "{what}: {want} cut on the tree"
                    );
                }
                let kept: BTreeMap<Vec<Token>, Vec<f64>> = walked
                    .kept()
                    .iter()
                    .map(|e| (e.key.clone(), e.probs.clone()))
                    .collect();
                assert_eq!(kept.len(), walked.kept().len());
                assert_eq!(reached(&game, &written, seat), kept, "{what}");
            }
        }
    }
}
