//! darkhex's half of the MCCFR comparison in `benches/scripts/side_by_side.py`:
//! wall and CPU seconds per 10^5 iterations of a Monte Carlo CFR run from
//! scratch on one thread (CPU seconds are the figure to read on a shared
//! machine), over the information-state tables (their build timed apart, on
//! every core) and, unless `--tables-only`, on the State API with keyed
//! tables; one JSON object on stdout.
//!
//! usage: mccfr_speed GAME es-mccfr|os-mccfr [ITERATIONS] [--tables-only]

use std::time::Instant;

use darkhex_algorithms::cfr::AnyTableMc;
use darkhex_algorithms::stream::{BuildOptions, build_tables};
use darkhex_algorithms::{Algorithm, AlgorithmParams, McSolver, McState, TableMcState};
use darkhex_benches::{cpu_seconds, peak_rss_mb};
use darkhex_games::load_game;

fn fail(message: impl std::fmt::Display) -> ! {
    eprintln!("{message}");
    std::process::exit(2);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let tables_only = args.iter().any(|a| a == "--tables-only");
    let positional: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let (Some(name), Some(algo)) = (positional.first(), positional.get(1)) else {
        fail("usage: mccfr_speed GAME es-mccfr|os-mccfr [ITERATIONS] [--tables-only]");
    };
    let iterations: u64 = positional
        .get(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let game = load_game(name).unwrap_or_else(|e| fail(e));
    let Ok(Algorithm::MonteCarlo(sampling)) = Algorithm::parse(algo, AlgorithmParams::default())
    else {
        fail(format!("{algo} is not es-mccfr or os-mccfr"));
    };
    let one_thread = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a thread pool");
    // Wall and CPU seconds per 10^5 iterations of `run`.
    let timed = |run: &mut (dyn FnMut() + Send)| {
        let (start, cpu) = (Instant::now(), cpu_seconds());
        one_thread.install(run);
        let scale = 1e5 / iterations as f64;
        (
            start.elapsed().as_secs_f64() * scale,
            (cpu_seconds() - cpu) * scale,
        )
    };

    let start = Instant::now();
    let tables = build_tables(&game, &BuildOptions::default()).unwrap_or_else(|e| fail(e));
    let build_s = start.elapsed().as_secs_f64();
    let state = TableMcState::new(&tables, sampling, 1, 1);
    let mut solver = AnyTableMc::new(&game, &tables, state)
        .unwrap_or_else(|e| fail(e))
        .expect("fresh arrays fit the tables");
    let tables_s = timed(&mut || solver.run(iterations));
    let rows_met = solver.state().visited_rows();

    let keyed_s = (!tables_only).then(|| {
        let mut keyed = McSolver::new(game, McState::new(sampling, 1, 1));
        timed(&mut || keyed.run(iterations))
    });
    let json = serde_json::json!({
        "game": name,
        "algo": algo,
        "iterations": iterations,
        "tables_build_s": build_s,
        "tables_s_per_1e5": tables_s.0,
        "tables_cpu_s_per_1e5": tables_s.1,
        "keyed_s_per_1e5": keyed_s.map(|k| k.0),
        "keyed_cpu_s_per_1e5": keyed_s.map(|k| k.1),
        "infosets_met": rows_met,
        "tables_mb": tables.memory_bytes() as f64 / 1e6,
        "peak_rss_mb": peak_rss_mb(),
    });
    println!("{json}");
}
