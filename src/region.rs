//! `darkhex region`: the combinatorial value of a Hex region drawn in a
//! text file (the format: docs/guide/regions.md).

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use darkhex_algorithms::bytes::readable_bytes;
use darkhex_local::LocalError;
use darkhex_local::expansion::{Limits, Progress, SizeEstimate};
use darkhex_local::region::Region;
use indicatif::{ProgressBar, ProgressStyle};

use crate::args::memory_limit;
use crate::help;
use crate::interrupt::{self, Status};
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
    let file = args.file.display().to_string();
    let mut arena = region.arena();
    let built = expand_guarded(
        &format!("the value of {file} ({} empty cells)", region.empty_cells()),
        region.estimate(),
        |limits| region.value_within(&mut arena, true, limits),
    )?;
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

/// Runs an expansion (`run`, given its limits) under the memory guard:
/// refused before it starts when `estimate` is past the memory limit,
/// stopped when what it holds passes the limit all the same, with a
/// spinner meanwhile, and ended by Ctrl-C saying how far it got (it has
/// nothing to save).
pub(crate) fn expand_guarded<T>(
    what: &str,
    estimate: SizeEstimate,
    run: impl FnOnce(&Limits) -> Result<T, LocalError>,
) -> Result<T> {
    let limit = memory_limit();
    let how = format!(
        "{:.1e} positions, estimated by random walks",
        estimate.positions
    );
    limit.check(what, estimate.bytes, &how)?;
    let status = Status::default();
    status.set(format!("while expanding {what}; nothing was printed"));
    interrupt::exit_saying(&status);
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{spinner} expanding: {msg} [{elapsed}]")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    let progress = |p: Progress| {
        let done = format!(
            "{} positions of about {:.1e}, {} forms, {}",
            p.positions,
            estimate.positions,
            p.forms,
            readable_bytes(p.bytes as f64)
        );
        status.set(format!(
            "while expanding {what}: {done}; nothing was printed"
        ));
        bar.set_message(done);
    };
    let limits = Limits {
        max_bytes: Some(limit.bytes()),
        progress: Some(&progress),
    };
    let result = run(&limits);
    bar.finish_and_clear();
    match result {
        Err(LocalError::OverLimit {
            positions, bytes, ..
        }) => {
            let how = format!(
                "at least: it held that much at {positions} positions stored, against an estimate of {:.1e} before it started",
                estimate.positions
            );
            Err(limit.check(what, bytes as f64, &how).err().map_or_else(
                || anyhow::anyhow!("{what}: the expansion stopped past the memory limit"),
                anyhow::Error::new,
            ))
        }
        other => Ok(other?),
    }
}
