//! darkhex's half of `benches/scripts/side_by_side.py`: for one game, the mean
//! time of CFR+ iterations 1 to N with 1 and 2 threads, of compiling the
//! tree, and of one exact exploitability computation, and the process's peak
//! memory; one JSON object on stdout.

use std::time::Instant;

use darkhex_algorithms::{CfrSolver, CfrVariant, CompileOptions, GameTree, exploitability};
use darkhex_benches::peak_rss_mb;
use darkhex_games::load_game;

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(name), iterations) = (args.next(), args.next()) else {
        eprintln!("usage: side_by_side GAME [ITERATIONS]");
        std::process::exit(2);
    };
    let iterations: u64 = iterations.and_then(|s| s.parse().ok()).unwrap_or(50);
    let game = match load_game(&name) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let start = Instant::now();
    let tree = match GameTree::build(&game, &CompileOptions::default()) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let compile_s = start.elapsed().as_secs_f64();
    let mut per_iteration = Vec::new();
    let mut policy = None;
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a thread pool");
        let mut solver = CfrSolver::new(&tree, CfrVariant::Plus);
        let start = Instant::now();
        pool.install(|| solver.run(iterations));
        per_iteration.push(start.elapsed().as_secs_f64() / iterations as f64);
        policy = Some(solver.average_policy());
    }
    let policy = policy.expect("two runs");
    let start = Instant::now();
    let e = exploitability(&tree, &policy);
    let exploit_s = start.elapsed().as_secs_f64();
    let json = serde_json::json!({
        "game": name,
        "iterations": iterations,
        "cfr_plus_s_per_iteration_1_thread": per_iteration[0],
        "cfr_plus_s_per_iteration_2_threads": per_iteration[1],
        "compile_s": compile_s,
        "exploitability_s": exploit_s,
        "exploitability": e.exploitability,
        "peak_rss_mb": peak_rss_mb(),
        "tree_mb": tree.memory_bytes() as f64 / 1e6,
    });
    println!("{json}");
}
