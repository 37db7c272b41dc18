//! Full-width CFR over the streaming tables against the compiled solver
//! that `train` runs: the same regrets, average weights and current
//! policies, bit for bit, at every iteration from 1 to 20, for every
//! algorithm on every 2x2, 2x3 and 3x2 Dark Hex and Dark Rex variant, and
//! on poker; the same bits whatever the thread count, exact resumption
//! from a saved state, and f32 arrays close to f64 ones.
//!
//! Both solvers sum each information state's regret contributions exactly
//! (the compiled one's default, `SumOrder::Exact`), so nothing short of
//! equal bits is right: a difference in the last bit of one regret can
//! change a policy entirely where regrets cancel (abrupt boards), and
//! grows without bound under CFR+ (Leduc). The exploitability of the two
//! average policies, computed by the tree's best response and by a
//! streaming pass, must agree to 1e-12: both add up the same products of
//! probabilities and utilities of size at most 1, over at most 2.5e5
//! histories here, whose roundings (2^-53 relative each) add up to about
//! 1e-13 at most in practice, while one information state played
//! differently moves it by far more.

mod common;
use common::hex_and_rex_variants;

use darkhex_algorithms::cfr::rcfr::{Link, RcfrSettings, RcfrSolver, RegressorKind};
use darkhex_algorithms::cfr::streaming::{StreamRcfrState, StreamRun};
use darkhex_algorithms::cfr::tabular::{CfrSolver, CfrVariant};
use darkhex_algorithms::cfr::training::DEFAULT_RIDGE;
use darkhex_algorithms::fa::features::FeatureKind;
use darkhex_algorithms::fa::mlp::MlpSettings;
use darkhex_algorithms::stream::{
    AnyStream, BuildOptions, InfoStateTables, PassOptions, Precision, Real, RowPolicy, StreamCfr,
    StreamCfrState,
};
use darkhex_algorithms::{
    CompileOptions, GameTree, PolicyFile, Provenance, TreePolicy, exploitability,
};
use darkhex_games::{AnyGame, load_game};

struct Setup {
    game: AnyGame,
    stream: AnyStream,
    tables: InfoStateTables,
    tree: GameTree,
}

fn setup(name: &str) -> Setup {
    let game: AnyGame = load_game(name).unwrap();
    let stream = AnyStream::new(&game).unwrap();
    let tables = stream.build_tables(&BuildOptions::default()).unwrap();
    let tree = GameTree::build(&game, &CompileOptions::default()).unwrap();
    Setup {
        game,
        stream,
        tables,
        tree,
    }
}

fn iterate<T: Real>(s: &Setup, solver: &mut StreamCfr<T>) {
    solver
        .iterate(|policy, p| {
            s.stream
                .player_regrets(&s.tables, policy, p, &PassOptions::default())
                .map(|x| x.regrets)
        })
        .unwrap();
}

/// The compiled tree's policy on the tables' rows.
fn on_rows(s: &Setup, policy: &TreePolicy) -> RowPolicy {
    let file = PolicyFile::from_tree(&s.tree, policy, Provenance::default());
    let (rows, missing) = RowPolicy::from_file(&s.tables, &file).unwrap();
    assert_eq!(missing, [0, 0]);
    rows
}

fn max_difference(a: &RowPolicy, b: &RowPolicy) -> f64 {
    (0..2)
        .flat_map(|p| {
            a.probs[p]
                .iter()
                .zip(&b.probs[p])
                .map(|(x, y)| (x - y).abs())
        })
        .fold(0.0, f64::max)
}

/// For each player and slot of the tables, the compiled tree's slot of the
/// same information state and action.
fn slot_map(s: &Setup) -> [Vec<usize>; 2] {
    let index = TreePolicy {
        probs: std::array::from_fn(|p| {
            (0..s.tree.infosets(p).num_slots())
                .map(|k| k as f64)
                .collect()
        }),
    };
    on_rows(s, &index)
        .probs
        .map(|v| v.into_iter().map(|k| k as usize).collect())
}

/// Every full-width algorithm, with the iterations each is checked for on
/// poker (Leduc's CFR+ keeps equal bits to 1000; see below).
const ALGORITHMS: [CfrVariant; 5] = [
    CfrVariant::Vanilla,
    CfrVariant::Plus,
    CfrVariant::Linear,
    CfrVariant::DCFR_DEFAULT,
    CfrVariant::PCFR_DEFAULT,
];

/// Runs the compiled solver `train` runs and the streaming one side by
/// side: their regrets, averages and current policies are equal bitwise
/// after every iteration, and so (to 1e-12, see the module notes) are the
/// two computations of the final average policy's exploitability.
fn check_equal(s: &Setup, name: &str, variant: CfrVariant, iterations: u64) {
    let map = slot_map(s);
    let mut compiled = CfrSolver::new(&s.tree, variant);
    let mut streamed = StreamCfr::<f64>::new(&s.tables, variant);
    for it in 1..=iterations {
        compiled.iterate();
        iterate(s, &mut streamed);
        let (theirs, mine) = (compiled.state(), streamed.state());
        let current = compiled.current_policy();
        for (p, map) in map.iter().enumerate() {
            for (what, a, b) in [
                ("regret", &theirs.regrets[p], &mine.regrets[p]),
                ("average", &theirs.cumulative[p], &mine.cumulative[p]),
                (
                    "policy",
                    &current.probs[p],
                    &streamed.current_policy().probs[p],
                ),
            ] {
                for (slot, &k) in map.iter().enumerate() {
                    assert_eq!(
                        a[k].to_bits(),
                        b[slot].to_bits(),
                        "{name} {} iteration {it}: player {p}'s {what} {} against {}",
                        variant.name(),
                        a[k],
                        b[slot]
                    );
                }
            }
        }
    }
    let tree = exploitability(&s.tree, &compiled.average_policy());
    let stream = s
        .stream
        .exploitability(
            &s.tables,
            &streamed.average_policy(),
            &PassOptions::default(),
        )
        .unwrap()
        .exploitability;
    for (a, b, what) in [
        (tree.exploitability, stream.exploitability, "exploitability"),
        (tree.value_p0, stream.value_p0, "value"),
    ] {
        assert!(
            (a - b).abs() < 1e-12,
            "{name} {} after {iterations}: {what} {a} on the tree, {b} streamed",
            variant.name()
        );
    }
}

/// Every algorithm for 20 iterations on each Dark Hex and Dark Rex variant
/// of a board.
fn check_board(rows: usize, cols: usize) {
    for name in hex_and_rex_variants(rows, cols) {
        let s = setup(&name);
        for variant in ALGORITHMS {
            check_equal(&s, &name, variant, 20);
        }
    }
}

#[test]
fn streaming_solvers_equal_compiled_ones_on_every_2x2_variant() {
    check_board(2, 2);
}

#[test]
fn streaming_solvers_equal_compiled_ones_on_every_2x3_variant() {
    check_board(2, 3);
}

#[test]
fn streaming_solvers_equal_compiled_ones_on_every_3x2_variant() {
    check_board(3, 2);
}

/// On the chance games too (poker, Liar's Dice); on Leduc, CFR+ to 1000 iterations, far past the 30 or so
/// for which OpenSpiel's order of sums and the exact one agree to 1e-15
/// (they then separate: see `SumOrder`).
#[test]
fn streaming_solvers_equal_compiled_ones_on_the_chance_games() {
    for name in ["kuhn_poker", "leduc_poker", "liars_dice(dice_sides=3)"] {
        let s = setup(name);
        for variant in ALGORITHMS {
            check_equal(&s, name, variant, 30);
        }
    }
    check_equal(&setup("leduc_poker"), "leduc_poker", CfrVariant::Plus, 1000);
}

/// `f` run on a pool of `threads` threads.
fn with_threads<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

#[test]
fn any_thread_count_and_a_resumed_run_give_the_same_bits() {
    let s = setup("dark_hex(num_rows=3,num_cols=2,gameversion=adh,disclosure=noise)");
    let run = |threads: usize, iterations: u64| {
        with_threads(threads, || {
            let mut solver = StreamCfr::<f64>::new(&s.tables, CfrVariant::PCFR_DEFAULT);
            for _ in 0..iterations {
                iterate(&s, &mut solver);
            }
            solver.state().clone()
        })
    };
    let one = run(1, 12);
    assert_eq!(one, run(3, 12));
    // Stop at 5, save, load into a fresh solver, continue to 12.
    let saved: StreamCfrState<f64> =
        rmp_serde::from_slice(&rmp_serde::to_vec_named(&run(2, 5)).unwrap()).unwrap();
    let mut resumed = StreamCfr::with_state(&s.tables, saved).unwrap();
    for _ in 5..12 {
        iterate(&s, &mut resumed);
    }
    assert_eq!(resumed.state(), &one);
    // A state for other tables is refused.
    let other = setup("kuhn_poker");
    assert!(StreamCfr::with_state(&other.tables, one).is_none());
}

#[test]
fn f32_arrays_stay_close_to_f64_ones() {
    let s = setup("leduc_poker");
    let mut wide = StreamCfr::<f64>::new(&s.tables, CfrVariant::Plus);
    let mut narrow = StreamCfr::<f32>::new(&s.tables, CfrVariant::Plus);
    for _ in 0..100 {
        iterate(&s, &mut wide);
        iterate(&s, &mut narrow);
    }
    let exploit = |policy: &RowPolicy| {
        s.stream
            .exploitability(&s.tables, policy, &PassOptions::default())
            .unwrap()
            .exploitability
            .exploitability
    };
    let (a, b) = (
        exploit(&wide.average_policy()),
        exploit(&narrow.average_policy()),
    );
    assert!(a < 0.02, "CFR+ on Leduc after 100 iterations: {a}");
    assert!((a - b).abs() < 2e-3 * a, "f64 {a} against f32 {b}");
    assert!(max_difference(&wide.average_policy(), &narrow.average_policy()) < 1e-3);
}

/// On Kuhn poker the streaming solvers reach OpenSpiel's exploitability at
/// every iteration count of reference/openspiel.json.
#[test]
fn streaming_solvers_match_openspiel_on_kuhn_poker() {
    let reference: serde_json::Value =
        serde_json::from_str(include_str!("../../reference/openspiel.json")).unwrap();
    let facts = &reference["games"]["kuhn_poker"];
    let s = setup("kuhn_poker");
    let mut checked = 0;
    for (key, variant) in [
        ("cfr_exploitability_at", CfrVariant::Vanilla),
        ("cfrplus_exploitability_at", CfrVariant::Plus),
        ("lcfr_exploitability_at", CfrVariant::Linear),
        ("dcfr_exploitability_at", CfrVariant::DCFR_DEFAULT),
    ] {
        let mut cases: Vec<(u64, f64)> = facts[key]
            .as_object()
            .unwrap()
            .iter()
            .map(|(n, v)| (n.parse().unwrap(), v.as_f64().unwrap()))
            .collect();
        cases.sort_by_key(|c| c.0);
        let mut solver = StreamCfr::<f64>::new(&s.tables, variant);
        for (n, want) in cases {
            while solver.iteration() < n {
                iterate(&s, &mut solver);
            }
            let got = s
                .stream
                .exploitability(&s.tables, &solver.average_policy(), &PassOptions::default())
                .unwrap()
                .exploitability
                .exploitability;
            assert!((got - want).abs() < 1e-9, "{key} at {n}: {got} vs {want}");
            checked += 1;
        }
    }
    assert!(checked >= 8, "only {checked} reference runs");
}

/// RCFR, RCFR+ and f-RCFR (poly and exp links) with the default joint
/// features and ridge, and RCFR+ with one-hot features (exact: CFR+).
fn rcfr_settings() -> Vec<RcfrSettings> {
    let joint = |link, truncate| RcfrSettings {
        features: FeatureKind::Joint,
        link,
        ridge: DEFAULT_RIDGE,
        truncate,
        regressor: RegressorKind::LeastSquares,
    };
    vec![
        joint(Link::Rectified, false),
        joint(Link::Rectified, true),
        joint(Link::Polynomial { power: 2.0 }, false),
        joint(Link::Exponential { temperature: 1.0 }, false),
        RcfrSettings {
            features: FeatureKind::OneHot,
            ridge: 0.0,
            ..joint(Link::Rectified, true)
        },
    ]
}

/// RCFR over the tables (streamed normal equations) against RCFR on the
/// compiled tree (the design matrix in memory): the same current and
/// average policies after every iteration, to the bit, and the same
/// exploitability to 1e-12 (see the module notes). The regrets are CFR's
/// exactly in both, and the least-squares sums are exact, so the rows'
/// other order changes no weight. Any difference is a failure: where the
/// true regrets are zero, a fitted one off by a rounding flips the sign
/// the link reads, and the policy changes entirely.
fn check_rcfr_equal(s: &Setup, name: &str, settings: RcfrSettings, iterations: u64) {
    let mut tree = RcfrSolver::new(&s.tree, &s.game, settings).unwrap();
    let mut tables = StreamRun::regression(&s.game, &s.tables, settings, Precision::F64).unwrap();
    let what = format!("{name} {} {:?}", settings.name(), settings.link);
    for it in 1..=iterations {
        tree.iterate().unwrap();
        tables.run(1, None).unwrap();
        let current = on_rows(s, &tree.current_policy());
        let average = on_rows(s, &tree.average_policy());
        for (which, a, b) in [
            ("current", &current, tables.current_policy()),
            ("average", &average, &tables.average_policy()),
        ] {
            assert!(
                a.probs == b.probs,
                "{what} iteration {it}: the {which} policies differ by up to {:e}",
                max_difference(a, b)
            );
        }
        let e_tree = exploitability(&s.tree, &tree.average_policy()).exploitability;
        let e_tables = tables.exploitability(None, None).unwrap().exploitability;
        assert!(
            (e_tree - e_tables).abs() <= 1e-12,
            "{what} iteration {it}: exploitabilities {e_tree} and {e_tables}"
        );
    }
}

/// Small Dark Hex boards, classic and abrupt, and poker.
const RCFR_GAMES: [&str; 8] = [
    "dark_hex(num_rows=2,num_cols=2)",
    "dark_hex(num_rows=2,num_cols=2,gameversion=adh)",
    "dark_hex(num_rows=2,num_cols=3)",
    "dark_hex(num_rows=2,num_cols=3,gameversion=adh)",
    "dark_hex(num_rows=3,num_cols=2)",
    "dark_hex(num_rows=3,num_cols=2,gameversion=adh)",
    "kuhn_poker",
    "leduc_poker",
];

/// Every setting of [`rcfr_settings`] on each of `games`.
fn rcfr_equal_on(games: &[&str]) {
    for name in games {
        let s = setup(name);
        for settings in rcfr_settings() {
            check_rcfr_equal(&s, name, settings, 12);
        }
    }
}

// One test per pair of games, so that the runner spreads the work (about
// a minute in all) over the cores instead of ending on one long test.
#[test]
fn rcfr_over_the_tables_equals_rcfr_on_the_tree_on_2x2() {
    rcfr_equal_on(&RCFR_GAMES[0..2]);
}

#[test]
fn rcfr_over_the_tables_equals_rcfr_on_the_tree_on_2x3() {
    rcfr_equal_on(&RCFR_GAMES[2..4]);
}

#[test]
fn rcfr_over_the_tables_equals_rcfr_on_the_tree_on_3x2() {
    rcfr_equal_on(&RCFR_GAMES[4..6]);
}

#[test]
fn rcfr_over_the_tables_equals_rcfr_on_the_tree_on_poker() {
    rcfr_equal_on(&RCFR_GAMES[6..8]);
}

/// `iterations` of RCFR over the tables from the start: the state a
/// checkpoint would hold, and the current policy's bits.
fn run_rcfr(s: &Setup, settings: RcfrSettings, iterations: u64) -> (StreamRcfrState, Vec<u64>) {
    let mut run = StreamRun::regression(&s.game, &s.tables, settings, Precision::F64).unwrap();
    run.run(iterations, None).unwrap();
    let state = StreamRcfrState {
        settings,
        arrays: run.state(),
    };
    (state, policy_bits(run.current_policy()))
}

fn policy_bits(p: &RowPolicy) -> Vec<u64> {
    p.probs.iter().flatten().map(|x| x.to_bits()).collect()
}

/// `saved`, written to a checkpoint's bytes and read back, resumed and run
/// `more` iterations, ends with the arrays and current policy of the
/// `uninterrupted` run (as [`run_rcfr`] returns it).
fn assert_resumes(
    s: &Setup,
    saved: StreamRcfrState,
    more: u64,
    uninterrupted: &(StreamRcfrState, Vec<u64>),
) {
    let saved: StreamRcfrState =
        rmp_serde::from_slice(&rmp_serde::to_vec_named(&saved).unwrap()).unwrap();
    let mut resumed = StreamRun::resume_regression(&s.game, &s.tables, saved)
        .unwrap()
        .unwrap();
    resumed.run(more, None).unwrap();
    assert_eq!(resumed.state(), uninterrupted.0.arrays);
    assert_eq!(policy_bits(resumed.current_policy()), uninterrupted.1);
}

/// RCFR over the tables has the same bits with any thread count (the
/// sums of the fit are over fixed chunks), and a run resumed from its
/// checkpointed state retraces the uninterrupted one bitwise.
#[test]
fn rcfr_over_the_tables_resumes_and_ignores_the_thread_count() {
    let s = setup("dark_hex(num_rows=3,num_cols=2,gameversion=adh,disclosure=noise)");
    let settings = RcfrSettings {
        features: FeatureKind::Joint,
        link: Link::Polynomial { power: 1.5 },
        ridge: 1e-3,
        truncate: true,
        regressor: RegressorKind::LeastSquares,
    };
    let run = |threads: usize, iterations: u64| {
        with_threads(threads, || run_rcfr(&s, settings, iterations))
    };
    let one = run(1, 10);
    assert_eq!(one, run(3, 10));
    assert_resumes(&s, run(2, 4).0, 6, &one);
    // Another variant's arrays do not fit RCFR+.
    let mut other = one.0;
    other.settings.truncate = false;
    assert!(
        StreamRun::resume_regression(&s.game, &s.tables, other)
            .unwrap()
            .is_none()
    );
}

/// A network over the tables of a small game sees every slot (there are
/// fewer than its steps x batch) and starts from the weights it starts
/// from on the tree, so after the first iteration the two current policies
/// agree. Only the order of the gradient sums differs (the tables order
/// their rows otherwise), and the exponential link is continuous, so 1e-4
/// is loose for that and tight for a row fitted to another slot's target
/// or features. On the tree the network goes on from its weights; over the
/// tables each fit starts afresh, so later iterations differ.
#[test]
fn a_network_over_the_tables_fits_what_it_fits_on_the_tree() {
    for name in ["dark_hex(num_rows=2,num_cols=2)", "kuhn_poker"] {
        let s = setup(name);
        let settings = RcfrSettings {
            features: FeatureKind::Observation,
            link: Link::Exponential { temperature: 1.0 },
            ridge: 0.0,
            truncate: false,
            regressor: RegressorKind::Mlp(MlpSettings::new(3)),
        };
        let mut tree = RcfrSolver::new(&s.tree, &s.game, settings).unwrap();
        let mut tables =
            StreamRun::regression(&s.game, &s.tables, settings, Precision::F64).unwrap();
        tree.iterate().unwrap();
        tables.run(1, None).unwrap();
        let on_tree = on_rows(&s, &tree.current_policy());
        let d = max_difference(&on_tree, tables.current_policy());
        assert!(d < 1e-4, "{name}: the current policies differ by {d:e}");
        // Not vacuous: the fitted policy is far from uniform somewhere.
        let uniform = RowPolicy::uniform(&s.tables);
        let moved = max_difference(&uniform, tables.current_policy());
        assert!(
            moved > 1e-2,
            "{name}: the fit left the policy uniform ({moved:e})"
        );
    }
}

/// A network over the tables fitted to a sample (fewer draws than slots):
/// the same bits from the same seed with any thread count, other bits
/// from another seed, and a
/// run resumed from its checkpointed state (which holds no network: each
/// fit starts afresh) retraces the uninterrupted one bitwise.
#[test]
fn a_network_over_the_tables_samples_by_its_seed_and_resumes() {
    let s = setup("dark_hex(num_rows=3,num_cols=2,gameversion=adh)");
    let network = |seed| MlpSettings {
        steps: 4,
        batch: 16,
        ..MlpSettings::new(seed)
    };
    let settings = |seed| RcfrSettings {
        features: FeatureKind::Observation,
        link: Link::Rectified,
        ridge: 0.0,
        truncate: true,
        regressor: RegressorKind::Mlp(network(seed)),
    };
    assert!(s.tables.player(0).num_slots() > 64);
    let run = |seed: u64, iterations: u64| run_rcfr(&s, settings(seed), iterations);
    let one = run(1, 6);
    assert_eq!(one, with_threads(3, || run(1, 6)));
    assert_ne!(one.1, run(2, 6).1);
    assert_resumes(&s, run(1, 2).0, 4, &one);
}
