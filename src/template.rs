//! `darkhex template`: whether a region drawn in a text file is a template
//! (Black connects its terminals with White moving first) and which White
//! probes into its carrier are provably inferior (the rules:
//! docs/guide/regions.md).

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use darkhex_local::region::Region;
use darkhex_local::template::{Probe, Template, TemplateReport};
use serde_json::json;

use crate::help;
use crate::output::outln;
use crate::region::REGION_FORMAT;

#[derive(Args)]
#[command(after_help = help::after(&[
    "darkhex template half-star.region",
    "darkhex template bolstered-bridge-left.region --json",
], &[REGION_FORMAT]))]
pub struct TemplateArgs {
    /// The region file: the template's carrier, stones and terminals
    file: PathBuf,
    /// Print the report as one JSON object
    #[arg(long)]
    json: bool,
}

pub fn run(args: TemplateArgs) -> Result<()> {
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    let region =
        Region::parse(&text).with_context(|| format!("{} is no region", args.file.display()))?;
    let template =
        Template::new(region).with_context(|| format!("{} is no template", args.file.display()))?;
    let report = template.analyse();
    let file = args.file.display().to_string();
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
    Ok(())
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
