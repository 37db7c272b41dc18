//! The CFR family against OpenSpiel's numbers in reference/openspiel.json:
//! with regrets summed in OpenSpiel's order, every one to 1e-14; with the
//! default exact sums, Leduc's CFR+ converges as far.

use darkhex_algorithms::{
    CfrSolver, CfrVariant, CompileOptions, GameTree, SumOrder, exploitability,
};
use darkhex_games::load_game;
use serde_json::Value;

fn reference() -> Value {
    serde_json::from_str(include_str!("../../reference/openspiel.json")).unwrap()
}

fn tree(name: &str) -> GameTree {
    GameTree::build(&load_game(name).unwrap(), &CompileOptions::default()).unwrap()
}

const VARIANTS: [(&str, CfrVariant); 4] = [
    ("cfr_exploitability_at", CfrVariant::Vanilla),
    ("cfrplus_exploitability_at", CfrVariant::Plus),
    ("lcfr_exploitability_at", CfrVariant::Linear),
    ("dcfr_exploitability_at", CfrVariant::DCFR_DEFAULT),
];

#[test]
fn every_reference_run_matches_openspiel_to_1e14() {
    let r = reference();
    let (mut checked, mut largest) = (0, 0.0f64);
    for (game, facts) in r["games"].as_object().unwrap() {
        let mut compiled = None;
        for (key, variant) in VARIANTS {
            let Some(cases) = facts.get(key).and_then(Value::as_object) else {
                continue;
            };
            let t = compiled.get_or_insert_with(|| tree(game));
            let mut cases: Vec<(u64, f64)> = cases
                .iter()
                .map(|(n, v)| (n.parse().unwrap(), v.as_f64().unwrap()))
                .collect();
            cases.sort_by_key(|c| c.0);
            let mut solver = CfrSolver::with_sum_order(t, variant, SumOrder::OpenSpiel);
            for (n, want) in cases {
                solver.run(n - solver.iteration());
                let got = exploitability(t, &solver.average_policy()).exploitability;
                assert!(
                    (got - want).abs() < 1e-14,
                    "{game} {key} at {n}: {got} vs {want}"
                );
                largest = largest.max((got - want).abs());
                checked += 1;
            }
        }
    }
    assert!(checked >= 30, "only {checked} reference runs");
    eprintln!("{checked} reference runs, at most {largest:e} apart");
}

#[test]
fn leduc_cfr_plus_converges_to_the_game_value() {
    let leduc = tree("leduc_poker");
    let mut solver = CfrSolver::new(&leduc, CfrVariant::Plus);
    solver.run(1000);
    let e = exploitability(&leduc, &solver.average_policy());
    assert!(e.exploitability < 3e-4, "{e:?}");
    let value = reference()["games"]["leduc_poker"]["value_p0"]
        .as_f64()
        .unwrap();
    assert!((e.value_p0 - value).abs() < 2.0 * e.exploitability, "{e:?}");
}
