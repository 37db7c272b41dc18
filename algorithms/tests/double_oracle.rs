//! The double oracle against the full sequence-form LP on every small
//! Dark Hex variant (and Kuhn poker, which has chance), its certificates
//! against the compiled tree's best response, PONE seeds, and a run
//! resumed from its sets.

use std::sync::atomic::AtomicBool;

use darkhex_algorithms::double_oracle::{self, Finish, Options, Oracle, Pure, Restricted};
use darkhex_algorithms::lp::{LpOptions, solve_sequence_form};
use darkhex_algorithms::pone::{self, extract_strategy};
use darkhex_algorithms::restricted_br::{Missing, Settings, best_response_to};
use darkhex_algorithms::{
    CompileOptions, GameTree, PolicyFile, PolicyTable, Provenance, best_response,
};
use darkhex_games::{AnyGame, Game, load_game};

fn games() -> Vec<String> {
    let mut out = vec!["kuhn_poker".to_string()];
    for (r, c) in [(2, 2), (2, 3), (3, 2)] {
        for v in ["cdh", "adh"] {
            out.push(format!(
                "dark_hex(num_rows={r},num_cols={c},gameversion={v})"
            ));
        }
    }
    out
}

fn run(game: &AnyGame, oracle: &mut Oracle, options: Options) -> Finish {
    let stop = AtomicBool::new(false);
    double_oracle::run(game, oracle, options, &stop, &mut |_, _| Ok(())).unwrap()
}

/// Each certificate, read back as a policy file, proves its bound twice:
/// by the restricted best response from the file alone (as `bounds
/// --verify` does), and by the compiled tree's best response.
fn check_certificates(name: &str, game: &AnyGame, tree: &GameTree, oracle: &Oracle) {
    for p in 0..2 {
        let c = oracle.best[p].as_ref().unwrap();
        let mut infosets: [Vec<_>; 2] = Default::default();
        infosets[p] = c.infosets.clone();
        let file = PolicyFile::new(name, Provenance::default(), infosets);
        let settings = Settings {
            missing: Missing::Error,
            record: false,
            keep: false,
        };
        let r = best_response_to(game, &PolicyTable::new(&file), 1 - p, settings).unwrap();
        let bound = if p == 0 { -r.value } else { r.value };
        assert!(
            (bound - c.bound).abs() < 1e-12,
            "{name}: player {p}'s certificate proves {bound} from its file, not {}",
            c.bound
        );
        let (policy, _) = file.to_tree_policy(tree).unwrap();
        let v = best_response(tree, &policy, 1 - p).value;
        let bound = if p == 0 { -v } else { v };
        assert!(
            (bound - c.bound).abs() < 1e-12,
            "{name}: player {p}'s certificate proves {bound} on the tree, not {}",
            c.bound
        );
    }
}

/// Both restricted games close on the LP value of every small variant,
/// and the sequence form, which holds every combination of the sets'
/// sequences, in no more iterations than the normal form over the same
/// pure strategies.
#[test]
fn the_double_oracle_closes_on_the_lp_value_of_every_small_variant() {
    for name in games() {
        let game = load_game(&name).unwrap();
        let tree = GameTree::build(&game, &CompileOptions::default()).unwrap();
        let lp = solve_sequence_form(&tree, LpOptions::default(), &|_| {}).unwrap();
        let mut iterations = Vec::new();
        for restricted in [Restricted::Normal, Restricted::Sequence] {
            let mut oracle = Oracle::new([Vec::new(), Vec::new()]);
            let options = Options {
                restricted,
                ..Options::default()
            };
            let finish = run(&game, &mut oracle, options);
            assert_ne!(finish, Finish::MaxIterations, "{name}");
            let (lower, upper) = (oracle.lower().unwrap(), oracle.upper().unwrap());
            // The bounds are exact best responses' values and meet to 1e-12;
            // the interior-point LP's value is accurate to a few 1e-9 (-0.1249999985
            // for abrupt 3x2, whose value is -1/8).
            assert!(
                upper - lower <= 1e-12,
                "{name} {restricted:?}: [{lower}, {upper}]"
            );
            assert!(
                (lower - lp.value_p0).abs() < 1e-8,
                "{name} {restricted:?}: the double oracle's [{lower}, {upper}] after {} iterations, the LP's value {}",
                oracle.iterations,
                lp.value_p0
            );
            check_certificates(&name, &game, &tree, &oracle);
            iterations.push(oracle.iterations);
        }
        eprintln!(
            "{name}: iterations normal {}, sequence {}",
            iterations[0], iterations[1]
        );
        assert!(
            iterations[1] <= iterations[0],
            "{name}: the sequence form took {} iterations, the normal form {}",
            iterations[1],
            iterations[0]
        );
    }
}

#[test]
fn a_pone_sure_win_closes_the_loop_at_once() {
    let name = "dark_hex(num_rows=2,num_cols=2)";
    let AnyGame::DarkHex(dark) = load_game(name).unwrap() else {
        unreachable!()
    };
    let (result, search) = pone::solve(&dark, 0, &[]).unwrap();
    assert!(result.wins, "Black wins classic 2x2 surely");
    let strategy = extract_strategy(&search, &dark, &pone::first_turn(&dark, 0));
    let seed = Pure::from_pone(&dark, &strategy).unwrap();
    let game = AnyGame::DarkHex(dark);
    let mut oracle = Oracle::new([vec![seed], Vec::new()]);
    assert_eq!(run(&game, &mut oracle, Options::default()), Finish::Closed);
    assert_eq!(oracle.iterations, 1);
    assert_eq!((oracle.lower(), oracle.upper()), (Some(1.0), Some(1.0)));
}

#[test]
fn a_run_resumed_from_its_sets_ends_where_an_unbroken_one_does() {
    let name = "dark_hex(num_rows=3,num_cols=2,gameversion=adh)";
    let game = load_game(name).unwrap();
    let mut whole = Oracle::new([Vec::new(), Vec::new()]);
    run(&game, &mut whole, Options::default());
    let mut first = Oracle::new([Vec::new(), Vec::new()]);
    let short = Options {
        max_iterations: 2,
        ..Options::default()
    };
    assert_eq!(run(&game, &mut first, short), Finish::MaxIterations);
    // What a checkpoint keeps: the sets as move lists, the certificates.
    let mut resumed = Oracle::new(
        first
            .strategies
            .clone()
            .map(|set| set.iter().map(|s| Pure::from_moves(s.moves())).collect()),
    );
    resumed.iterations = first.iterations;
    resumed.best = first.best.clone();
    run(&game, &mut resumed, Options::default());
    assert_eq!(resumed.iterations, whole.iterations);
    assert_eq!(resumed.lower(), whole.lower());
    assert_eq!(resumed.upper(), whole.upper());
    assert_eq!(resumed.best, whole.best);
    assert!(game.game_string().contains("adh") || game.game_string().contains("abrupt"));
}
