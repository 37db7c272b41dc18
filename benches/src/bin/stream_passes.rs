//! The streaming passes of full-width CFR on a game too large to compile
//! (3x3 Dark Hex): for the tables and for each pass, wall and CPU seconds
//! and histories walked, then the process's peak memory; one JSON line per
//! step on stdout, so that a shared machine's load shows as CPU time apart
//! from wall time.
//!
//! usage: stream_passes GAME [ITERATIONS] [ALGO] [f32|f64] [exploit]

use std::time::Instant;

use darkhex_algorithms::cfr::tabular::CfrVariant;
use darkhex_algorithms::stream::{
    AnyStream, BuildOptions, PassOptions, Real, StreamCfr, StreamError,
};
use darkhex_algorithms::{Algorithm, AlgorithmParams};
use darkhex_benches::{cpu_seconds, peak_rss_mb};
use darkhex_games::load_game;

struct Clock {
    wall: Instant,
    cpu: f64,
}

impl Clock {
    fn start() -> Clock {
        Clock {
            wall: Instant::now(),
            cpu: cpu_seconds(),
        }
    }

    fn report(&self, step: &str, histories: u64) {
        let wall = self.wall.elapsed().as_secs_f64();
        let cpu = cpu_seconds() - self.cpu;
        let json = serde_json::json!({
            "step": step,
            "wall_s": wall,
            "cpu_s": cpu,
            "histories": histories,
            "histories_per_cpu_s": if cpu > 0.0 { histories as f64 / cpu } else { 0.0 },
            "threads": rayon::current_num_threads(),
            "peak_rss_mb": peak_rss_mb(),
        });
        println!("{json}");
    }
}

fn run<T: Real>(
    stream: &AnyStream,
    tables: &darkhex_algorithms::stream::InfoStateTables,
    variant: CfrVariant,
    iterations: u64,
    exploit: bool,
) -> Result<(), StreamError> {
    let mut solver = StreamCfr::<T>::new(tables, variant);
    for it in 1..=iterations {
        solver.iterate(|policy, p| {
            let clock = Clock::start();
            let r = stream.player_regrets(tables, policy, p, &PassOptions::default())?;
            clock.report(
                &format!("iteration {it}, player {p}'s regrets"),
                r.histories,
            );
            Ok::<_, StreamError>(r.regrets)
        })?;
    }
    if exploit {
        let clock = Clock::start();
        let r = stream.exploitability(tables, &solver.average_policy(), &PassOptions::default())?;
        clock.report(
            &format!(
                "exploitability {:.6} of the average policy",
                r.exploitability.exploitability
            ),
            r.histories,
        );
    }
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(name) = args.first() else {
        eprintln!("usage: stream_passes GAME [ITERATIONS] [ALGO] [f32|f64] [exploit]");
        std::process::exit(2);
    };
    let iterations: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    let algo = args.get(2).map_or("cfr+", String::as_str);
    let f32 = args.get(3).is_some_and(|p| p == "f32");
    let exploit = args.get(4).is_some_and(|e| e == "exploit");
    let fail = |e: &dyn std::fmt::Display| -> ! {
        eprintln!("{e}");
        std::process::exit(2)
    };
    let game = load_game(name).unwrap_or_else(|e| fail(&e));
    let Algorithm::Tabular(variant) =
        Algorithm::parse(algo, AlgorithmParams::default()).unwrap_or_else(|e| fail(&e))
    else {
        fail(&"a full-width algorithm: cfr, cfr+, lcfr, dcfr or pcfr+")
    };
    let stream = AnyStream::new(&game).unwrap_or_else(|e| fail(&e));
    let clock = Clock::start();
    let tables = stream
        .build_tables(&BuildOptions::default())
        .unwrap_or_else(|e| fail(&e));
    clock.report("tables", tables.histories());
    let result = if f32 {
        run::<f32>(&stream, &tables, variant, iterations, exploit)
    } else {
        run::<f64>(&stream, &tables, variant, iterations, exploit)
    };
    result.unwrap_or_else(|e| fail(&e));
}
