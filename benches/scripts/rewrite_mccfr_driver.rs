//! Runs the Dark Hex thesis author's Rust rewrite (github BedirT/darkhex,
//! crate darkhex-core) for the side-by-side measurement in
//! docs/results/compact-mccfr.md: outcome-sampling MCCFR on classic Dark Hex,
//! keyed on the board view with the 180-degree symmetry (its only keying), then
//! its own checkpoint written, as darkhex writes its policy file.
//! Not part of the darkhex workspace: rewrite_side_by_side.sh builds it
//! against a rewrite tree given on its command line.
//!
//! usage: rewrite-mccfr ROWS COLS ITERATIONS SEED OUT
//! (OUT `-` writes nothing: the rewrite's save clones its whole table first,
//! which doubles its peak memory.)
use std::time::Instant;

use darkhex_core::solver::mccfr::{MCCFRSolver, Sampling};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [rows, cols, iterations, seed, out] = args.as_slice() else {
        return Err("usage: rewrite-mccfr ROWS COLS ITERATIONS SEED OUT".into());
    };
    let (rows, cols): (usize, usize) = (rows.parse()?, cols.parse()?);
    let iterations: usize = iterations.parse()?;
    // Exploration 0.6 is the rewrite's default and darkhex's.
    let mut solver = MCCFRSolver::new(
        rows,
        cols,
        Some(Sampling::Outcome),
        Some(0.6),
        Some(seed.parse()?),
    )?;
    let start = Instant::now();
    // One iteration of solve() is one walk for Black then one for White.
    solver.solve(iterations);
    let trained = start.elapsed().as_secs_f64();
    if out != "-" {
        solver.save(out)?;
    }
    let saved = start.elapsed().as_secs_f64() - trained;
    println!(
        "{rows}x{cols}: {} iterations, {} information states, {trained:.2} s training, {saved:.2} s saving",
        solver.iterations(),
        solver.num_info_states()
    );
    Ok(())
}
