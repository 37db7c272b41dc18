//! The policy a player induces: equal to a pure policy file's where that
//! file's own play goes, with the same exploitability, and the same on any
//! number of threads.

use darkhex_algorithms::policy_file::{InfosetPolicy, PolicyFile, Provenance};
use darkhex_algorithms::{CompileOptions, GameTree, exploitability};
use darkhex_games::{AnyGame, load_game, with_game};
use darkhex_players::induced::induced_policy;
use darkhex_players::prepare;

fn tree_of(game: &AnyGame) -> GameTree {
    with_game!(game, g => GameTree::build(g, &CompileOptions::default())).unwrap()
}

/// A pure policy: at each information state one action, picked by a hash of the key.
fn pure_policy(game: &AnyGame, tree: &GameTree) -> PolicyFile {
    let uniform = darkhex_algorithms::TreePolicy::uniform(tree);
    let mut file = PolicyFile::from_tree(tree, &uniform, Provenance::default());
    for infosets in &mut file.infosets {
        for InfosetPolicy { key, probs, .. } in infosets.iter_mut() {
            let h = key
                .iter()
                .fold(7u64, |h, &t| h.wrapping_mul(31).wrapping_add(u64::from(t)));
            let pick = (h % probs.len() as u64) as usize;
            for (i, p) in probs.iter_mut().enumerate() {
                *p = f64::from(u8::from(i == pick));
            }
        }
    }
    file.game = game.to_string();
    file
}

fn induce_both(game: &AnyGame, spec: &str, samples: u32) -> PolicyFile {
    let factory = prepare(spec, game).unwrap();
    let infosets = std::array::from_fn(|seat| {
        induced_policy(game, factory.as_ref(), seat, samples, 5, &|_| {}).unwrap()
    });
    PolicyFile::new(&game.to_string(), Provenance::default(), infosets)
}

#[test]
fn a_pure_policy_player_induces_its_own_policy_and_exploitability() {
    let mut left_out = 0;
    for name in [
        "kuhn_poker",
        "leduc_poker",
        "dark_hex(num_rows=2,num_cols=2)",
    ] {
        let game = load_game(name).unwrap();
        let tree = tree_of(&game);
        let file = pure_policy(&game, &tree);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pure.json");
        file.save(&path).unwrap();
        let induced = induce_both(&game, &format!("policy(file={})", path.display()), 1);
        for seat in 0..2 {
            let all = &file.infosets[seat];
            let reached = &induced.infosets[seat];
            assert!(!reached.is_empty() && reached.len() <= all.len(), "{name}");
            left_out += all.len() - reached.len();
            for s in reached {
                let own = all.iter().find(|f| f.key == s.key).unwrap();
                assert_eq!((&own.actions, &own.probs), (&s.actions, &s.probs), "{name}");
            }
        }
        let (pure, _) = file.to_tree_policy(&tree).unwrap();
        let (from_player, _) = induced.to_tree_policy(&tree).unwrap();
        let a = exploitability(&tree, &pure);
        let b = exploitability(&tree, &from_player);
        assert!(a.exploitability > 0.0, "{name}");
        assert!(
            (a.exploitability - b.exploitability).abs() < 1e-12,
            "{name}: {a:?} vs {b:?}"
        );
    }
    // A pure policy's own play leaves some information states out.
    assert!(left_out > 0);
}

#[test]
fn many_questions_of_a_random_player_approach_the_uniform_policy() {
    let game = load_game("kuhn_poker").unwrap();
    let tree = tree_of(&game);
    let induced = induce_both(&game, "random", 4000);
    let (policy, missing) = induced.to_tree_policy(&tree).unwrap();
    assert_eq!(missing, 0);
    let e = exploitability(&tree, &policy).exploitability;
    // The uniform policy's exploitability in Kuhn poker is 11/24.
    assert!((e - 11.0 / 24.0).abs() < 0.01, "{e}");
}

#[test]
fn an_induced_search_policy_is_the_same_on_any_number_of_threads() {
    let game = load_game("dark_hex(num_rows=2,num_cols=2,gameversion=adh)").unwrap();
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| induce_both(&game, "ismcts(sims=50)", 3))
    };
    let one = run(1);
    assert!(
        one.infosets[1]
            .iter()
            .any(|s| s.probs.iter().any(|&p| p > 0.0 && p < 1.0))
    );
    assert_eq!(one, run(2));
}

#[test]
fn walking_the_tables_finds_what_walking_the_histories_finds() {
    use darkhex_algorithms::stream::{BuildOptions, build_tables};
    use darkhex_players::induced::induced_policy_over_tables;
    for (name, spec) in [
        ("kuhn_poker", "random"),
        ("leduc_poker", "random"),
        ("dark_hex(num_rows=2,num_cols=3)", "ismcts(sims=40)"),
        (
            "dark_hex(num_rows=3,num_cols=2,gameversion=adh,disclosure=noise)",
            "ismcts(sims=40)",
        ),
    ] {
        let game = load_game(name).unwrap();
        let tables = build_tables(&game, &BuildOptions::default()).unwrap();
        let factory = prepare(spec, &game).unwrap();
        for seat in 0..2 {
            let walked = induced_policy(&game, factory.as_ref(), seat, 3, 9, &|_| {}).unwrap();
            let tabled =
                induced_policy_over_tables(&tables, factory.as_ref(), seat, 3, 9, &|_| {}).unwrap();
            assert!(!walked.is_empty(), "{name}");
            assert_eq!(walked, tabled, "{name} seat {seat}");
        }
    }
}
