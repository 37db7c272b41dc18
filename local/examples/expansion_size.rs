//! The estimate of an expansion's size against the real one, for the
//! regions (or, with --template, the templates) named on the command line:
//! `cargo run --release -p darkhex-local --example expansion_size -- FILE...`.
//! Run one file a process under `/usr/bin/time -f %M` for its peak memory.

use std::cell::Cell;
use std::time::Instant;

use darkhex_local::expansion::{Limits, Progress};
use darkhex_local::region::Region;
use darkhex_local::template::Template;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (mut template, mut estimate_only) = (false, false);
    println!(
        "file\tcells\testimate\tstd_error\testimate_s\tpositions\tstored/estimate\tforms\tcounted_bytes\tseconds"
    );
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--template" => template = true,
            "--estimate-only" => estimate_only = true,
            _ => {}
        }
        if arg.starts_with("--") {
            continue;
        }
        let region = Region::parse(&std::fs::read_to_string(&arg)?)?;
        let cells = region.empty_cells();
        let peak = Cell::new(0u64);
        let progress = |p: Progress| peak.set(peak.get().max(p.bytes));
        let limits = Limits {
            max_bytes: None,
            progress: Some(&progress),
        };
        let start = Instant::now();
        let (estimate, positions, forms, seconds) = if template {
            let t = Template::new(region)?;
            let estimate = t.estimate();
            let estimate_s = start.elapsed().as_secs_f64();
            if estimate_only {
                println!(
                    "{arg}\t{cells}\t{:.4e}\t{:.2e}\t{estimate_s:.3}",
                    estimate.positions, estimate.std_error
                );
                continue;
            }
            let report = t.analyse_within(&limits)?;
            (
                (estimate, estimate_s),
                report.positions,
                report.forms,
                report.seconds,
            )
        } else {
            let estimate = region.estimate();
            let estimate_s = start.elapsed().as_secs_f64();
            if estimate_only {
                println!(
                    "{arg}\t{cells}\t{:.4e}\t{:.2e}\t{estimate_s:.3}",
                    estimate.positions, estimate.std_error
                );
                continue;
            }
            let mut arena = region.arena();
            let built = region.value_within(&mut arena, true, &limits)?;
            (
                (estimate, estimate_s),
                built.positions,
                arena.len(),
                built.seconds,
            )
        };
        let ((e, estimate_s), p) = (estimate, positions as f64);
        println!(
            "{arg}\t{cells}\t{:.4e}\t{:.2e}\t{estimate_s:.3}\t{positions}\t{:.3}\t{forms}\t{}\t{seconds:.2}",
            e.positions,
            e.std_error,
            p / e.positions,
            peak.get()
        );
    }
    Ok(())
}
