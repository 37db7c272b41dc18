use darkhex_algorithms::*;
use std::time::Instant;
fn main() {
    for name in std::env::args().skip(1) {
        let g = darkhex_games::load_game(&name).unwrap();
        let t0 = Instant::now();
        let t = GameTree::build(
            &g,
            &CompileOptions {
                max_bytes: 20 << 30,
                progress: None,
            },
        )
        .unwrap();
        eprintln!("compiled in {:.1}s", t0.elapsed().as_secs_f64());
        let t1 = Instant::now();
        let s = solve_sequence_form(&t, LpOptions::default(), &|m| {
            eprintln!("{:.1}s {m}", t1.elapsed().as_secs_f64())
        })
        .unwrap();
        println!(
            "{name}: value {:.9} expl {:.2e} vars {} cons {} rounds {} support {:?} solve {:.3}s total {:.3}s",
            s.value_p0,
            s.exploitability.exploitability,
            s.variables,
            s.constraints,
            s.rounds,
            s.support,
            s.solve_seconds,
            t1.elapsed().as_secs_f64()
        );
    }
}
