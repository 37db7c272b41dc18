//! `darkhex template`: whether a region drawn in a text file is a template
//! (Black connects its terminals with White moving first) and which White
//! probes into its carrier are provably inferior (the rules:
//! docs/guide/regions.md).

use std::cell::RefCell;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::Args;
use darkhex_local::region::Region;
use darkhex_local::template::{Probe, Template, TemplateReport};
use darkhex_local::witness::{SearchLimits, SearchProgress, find_all};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;

use crate::args::number_in;
use crate::help;
use crate::output::outln;
use crate::outputs::{Files, Holds};
use crate::region::{REGION_FORMAT, expand_guarded};

#[derive(Args)]
#[command(after_help = help::after(&[
    "darkhex template half-star.region",
    "darkhex template bolstered-bridge-left.region --json",
    "darkhex template ziggurat.region --witnesses witnesses --attempts 2000",
    "darkhex template ziggurat.region --witnesses climbed --probes e --climb 200 --max-side 7 --max-empty 8 --seed 7 --attempts 200",
], &[REGION_FORMAT]))]
pub struct TemplateArgs {
    /// The region file: the template's carrier, stones and terminals
    file: PathBuf,
    /// Print the report as one JSON object
    #[arg(long, conflicts_with = "witnesses")]
    json: bool,
    /// Search, for each probe not proven inferior, a witness position (the
    /// probe White's only winning move) and write it into DIR as
    /// TEMPLATE-CELL-witness.sgf and .txt; probes with a witness there
    /// already are skipped
    #[arg(long, value_name = "DIR")]
    witnesses: Option<PathBuf>,
    /// Witness search: the random generator's seed
    #[arg(long, default_value_t = 1, value_parser = crate::args::seed, requires = "witnesses")]
    seed: u64,
    /// Witness search: attempts per probe at most
    #[arg(long, default_value_t = 100_000, value_parser = crate::args::whole::<u64>(1, None), requires = "witnesses")]
    attempts: u64,
    /// Witness search: seconds per probe at most
    #[arg(long, default_value_t = 60.0, value_parser = number_in(0.001, 1e9, false), requires = "witnesses")]
    time_limit: f64,
    /// Witness search: boards from 3x3 up to this side
    #[arg(long, default_value_t = 6, value_parser = crate::args::whole::<usize>(3, Some(11)), requires = "witnesses")]
    max_side: usize,
    /// Witness search: cells outside the template left empty, at most
    #[arg(long, default_value_t = 6, value_parser = crate::args::whole::<usize>(0, Some(30)), requires = "witnesses")]
    max_empty: usize,
    /// Witness search: from each filling where the probe wins beside other
    /// moves, up to this many changes of one or two cells outside the
    /// template, each kept when White has no more other winning moves
    /// (0: random fillings only)
    #[arg(long, default_value_t = 0, value_parser = crate::args::whole::<u64>(0, None), requires = "witnesses")]
    climb: u64,
    /// Witness search: solve every filling, also those where the probe is
    /// not viable (its region's value is the same without it), which
    /// cannot be witnesses; for comparing the searches
    #[arg(long, requires = "witnesses")]
    no_viability: bool,
    /// Witness search: where the probe wins and White's other winning
    /// moves are all outside the template, up to this many times White
    /// plays one of them and Black answers outside, to reach a position
    /// where the probe wins alone; the climb then counts another winning
    /// move inside the template worse than any number outside (0: none)
    #[arg(long, default_value_t = 0, value_parser = crate::args::whole::<usize>(0, Some(8)), requires = "witnesses")]
    descend: usize,
    /// Witness search: only these probes, by their names in the region
    /// file, comma-separated (all by default)
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "CELLS",
        requires = "witnesses"
    )]
    probes: Option<Vec<String>>,
}

/// What `template` reads and writes, for the output guard.
pub fn files(args: &TemplateArgs) -> Files {
    Files::new()
        .reads("the region file", Some(&args.file))
        .writes(
            "--witnesses",
            args.witnesses.as_deref(),
            Holds::WitnessFolder,
        )
}

pub fn run(args: TemplateArgs) -> Result<()> {
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    let region =
        Region::parse(&text).with_context(|| format!("{} is no region", args.file.display()))?;
    let template =
        Template::new(region).with_context(|| format!("{} is no template", args.file.display()))?;
    let file = args.file.display().to_string();
    let report = expand_guarded(
        &format!(
            "the analysis of {file} ({} empty cells)",
            template.region().empty_cells()
        ),
        template.estimate(),
        |limits| template.analyse_within(limits),
    )?;
    if !report.is_template && args.witnesses.is_some() {
        bail!(
            "{file} is no template (White moving first keeps the terminals apart): no probe has a witness"
        );
    }
    if let Some(only) = &args.probes {
        let names: Vec<&str> = report.probes.iter().map(|p| p.cell.as_str()).collect();
        if let Some(bad) = only.iter().find(|c| !names.contains(&c.as_str())) {
            bail!(
                "--probes: {file} has no probe {bad:?}; its probes are {}",
                names.join(", ")
            );
        }
    }
    if args.json {
        outln!("{}", to_json(&file, &report));
        return Ok(());
    }
    outln!(
        "{file}: {} empty cells, {} terminals, {} context cells, {} outcomes",
        report.empty_cells,
        report.terminals,
        report.context_cells,
        report.outcomes
    );
    outln!(
        "template:  {}",
        if report.is_template {
            "yes (Black joins the terminals with White moving first)"
        } else {
            "no (White moving first keeps the terminals apart)"
        }
    );
    outln!("probes:");
    for probe in &report.probes {
        outln!("  {:<3} {}", probe.cell, status(probe));
    }
    outln!(
        "positions: {} expanded, {} forms stored, {:.3} s",
        report.positions,
        report.forms,
        report.seconds
    );
    if let Some(dir) = &args.witnesses {
        let limits = SearchLimits {
            seed: args.seed,
            attempts: args.attempts,
            time_limit: Duration::from_secs_f64(args.time_limit),
            max_side: args.max_side,
            max_empty: args.max_empty,
            climb: args.climb,
            viability: !args.no_viability,
            descend: args.descend,
            probes: args.probes.clone(),
        };
        outln!("witnesses:");
        let bar = ProbeBar::default();
        let found = find_all(
            &args.file,
            template.region(),
            &report.probes,
            dir,
            &limits,
            &bar,
        )?;
        for (cell, found) in found {
            outln!("  {cell:<3} {}", found.describe());
        }
    }
    Ok(())
}

/// A bar of attempts for the probe being searched.
#[derive(Default)]
struct ProbeBar(RefCell<Option<ProgressBar>>);

impl SearchProgress for ProbeBar {
    fn probe(&self, cell: &str, attempts: u64) {
        let bar = ProgressBar::new(attempts);
        bar.set_style(
            ProgressStyle::with_template(&format!(
                "{{bar:32.cyan/blue}} probe {cell}: {{human_pos}}/{{human_len}} attempts [{{elapsed_precise}}]"
            ))
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        *self.0.borrow_mut() = Some(bar);
    }

    fn attempt(&self, i: u64) {
        if let Some(bar) = &*self.0.borrow() {
            bar.set_position(i);
        }
    }

    fn done(&self) {
        if let Some(bar) = self.0.borrow_mut().take() {
            bar.finish_and_clear();
        }
    }
}

fn status(probe: &Probe) -> String {
    let mut parts = Vec::new();
    if !probe.dominated_by.is_empty() {
        parts.push(format!("dominated by {}", probe.dominated_by.join(", ")));
    }
    if !probe.equivalent_to.is_empty() {
        parts.push(format!("equivalent to {}", probe.equivalent_to.join(", ")));
    }
    if !probe.reversed_by.is_empty() {
        parts.push(format!(
            "strongly reversed by {}",
            probe.reversed_by.join(", ")
        ));
    }
    if parts.is_empty() {
        "not proven inferior".into()
    } else {
        parts.join("; ")
    }
}

fn to_json(file: &str, report: &TemplateReport) -> serde_json::Value {
    let probes: Vec<_> = report
        .probes
        .iter()
        .map(|p| {
            json!({
                "cell": p.cell,
                "inferior": p.is_inferior(),
                "dominated_by": p.dominated_by,
                "equivalent_to": p.equivalent_to,
                "strongly_reversed_by": p.reversed_by,
            })
        })
        .collect();
    json!({
        "file": file,
        "template": report.is_template,
        "empty_cells": report.empty_cells,
        "terminals": report.terminals,
        "context_cells": report.context_cells,
        "outcomes": report.outcomes,
        "probes": probes,
        "positions": report.positions,
        "forms": report.forms,
        "seconds": report.seconds,
    })
}
