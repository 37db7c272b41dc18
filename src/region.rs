//! `darkhex region`: the combinatorial value of a Hex region drawn in a
//! text file (the format: docs/guide/regions.md).

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use darkhex_local::region::Region;

use crate::help;
use crate::output::outln;

#[derive(Args)]
#[command(after_help = help::after(&[
    "darkhex region figure9.region",
    "darkhex region bridge.region --form",
], &[REGION_FORMAT]))]
pub struct RegionArgs {
    /// The region file: a diagram of cells, stones and terminals
    file: PathBuf,
    /// Also print the full game form before reduction (small regions)
    #[arg(long)]
    form: bool,
}

/// Empty cells up to which `--form` expands the whole game tree (3^n positions).
const MAX_FORM_CELLS: usize = 10;

pub(crate) const REGION_FORMAT: &str = "\
Region file: one board row a line, one cell a token, tokens apart by spaces
  .  a-z      an empty cell (a letter names it)
  1  2  3     a black stone of terminal 1, 2 or 3
  B  W        a black stone of no terminal, a white stone
  -           no cell
  poset NAME  boolean (2 terminals), p3, corner or fork (3 terminals)
  # ...       a comment";

pub fn run(args: RegionArgs) -> Result<()> {
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    let region =
        Region::parse(&text).with_context(|| format!("{} is no region", args.file.display()))?;
    let mut arena = region.arena();
    let built = region.value(&mut arena, true);
    let passable = arena.is_passable(built.value);
    outln!(
        "{}: {} empty cells, {} terminals, outcome poset {}",
        args.file.display(),
        region.empty_cells(),
        region.terminals(),
        region.poset().name()
    );
    if args.form {
        if region.empty_cells() > MAX_FORM_CELLS {
            anyhow::bail!(
                "--form prints the full game tree, which for {} empty cells is too large: at most {MAX_FORM_CELLS}",
                region.empty_cells()
            );
        }
        let mut raw_arena = region.arena();
        let raw = region.value(&mut raw_arena, false);
        outln!("form:      {}", raw_arena.display(raw.value));
    }
    outln!("value:     {}", arena.display(built.value));
    outln!("passable:  {}", if passable { "yes" } else { "no" });
    outln!(
        "positions: {} expanded, {} distinct once reduced, {} forms stored, {:.3} s",
        built.positions,
        built.games,
        arena.len(),
        built.seconds
    );
    Ok(())
}
