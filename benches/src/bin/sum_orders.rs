//! How far two CFR runs that differ only in rounding drift apart: the
//! default exact sums against OpenSpiel's order of sums, and OpenSpiel's
//! order against itself with one regret moved by one ulp after the first
//! iteration. Prints, at each iteration of a log-spaced list, the three
//! runs' exploitability and the largest difference between average
//! policies (the figures in docs/guide/train.md).
//!
//! `sum_orders GAME ALGO ITERATIONS`, e.g. `sum_orders leduc_poker cfr+ 1000`.

use darkhex_algorithms::{
    Algorithm, AlgorithmParams, CfrSolver, CompileOptions, GameTree, SumOrder, TreePolicy,
    exploitability,
};
use darkhex_games::load_game;

fn largest_difference(a: &TreePolicy, b: &TreePolicy) -> f64 {
    (0..2)
        .flat_map(|p| {
            a.probs[p]
                .iter()
                .zip(&b.probs[p])
                .map(|(x, y)| (x - y).abs())
        })
        .fold(0.0, f64::max)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [game, algo, iterations] = &args[..] else {
        eprintln!("usage: sum_orders GAME ALGO ITERATIONS (e.g. leduc_poker cfr+ 1000)");
        std::process::exit(2);
    };
    let fail = |e: String| -> ! {
        eprintln!("{e}");
        std::process::exit(2)
    };
    let game = load_game(game).unwrap_or_else(|e| fail(e.to_string()));
    let Ok(Algorithm::Tabular(variant)) = Algorithm::parse(algo, AlgorithmParams::default()) else {
        fail(format!("{algo}: one of cfr, cfr+, lcfr, dcfr, pcfr+"))
    };
    let iterations: u64 = iterations
        .parse()
        .unwrap_or_else(|_| fail(format!("{iterations}: a number of iterations")));
    let tree =
        GameTree::build(&game, &CompileOptions::default()).unwrap_or_else(|e| fail(e.to_string()));
    let mut exact = CfrSolver::with_sum_order(&tree, variant, SumOrder::Exact);
    let mut openspiel = CfrSolver::with_sum_order(&tree, variant, SumOrder::OpenSpiel);
    exact.iterate();
    openspiel.iterate();
    let mut moved = openspiel.state().clone();
    let Some(k) = moved.regrets[0].iter().position(|&r| r > 0.0) else {
        fail("no positive regret after the first iteration".to_string())
    };
    moved.regrets[0][k] = f64::from_bits(moved.regrets[0][k].to_bits() + 1);
    let mut nudged = CfrSolver::with_state(&tree, moved).expect("the same tree's arrays");
    println!(
        "| iteration | exact sums | OpenSpiel's order | OpenSpiel's, one ulp moved | policies: exact against OpenSpiel's | OpenSpiel's against one ulp moved |"
    );
    println!("| --- | --- | --- | --- | --- | --- |");
    let mut report_at = (0..)
        .flat_map(|d| [1, 2, 3, 5, 7].map(|m| m * 10u64.pow(d)))
        .skip_while(|&n| n < 10)
        .peekable();
    for it in 2..=iterations {
        exact.iterate();
        openspiel.iterate();
        nudged.iterate();
        if Some(&it) != report_at.peek() && it != iterations {
            continue;
        }
        while report_at.peek().is_some_and(|&n| n <= it) {
            report_at.next();
        }
        let (a, b, c) = (
            exact.average_policy(),
            openspiel.average_policy(),
            nudged.average_policy(),
        );
        let e = |p: &TreePolicy| exploitability(&tree, p).exploitability;
        println!(
            "| {it} | {:.6e} | {:.6e} | {:.6e} | {:.1e} | {:.1e} |",
            e(&a),
            e(&b),
            e(&c),
            largest_difference(&a, &b),
            largest_difference(&b, &c)
        );
    }
}
