//! `darkhex values`: build a database of Hex-realizable 3-terminal values
//! (seed regions closed under renumbering, duals and pinwheels, round by
//! round) and look values up in it (docs/guide/regions.md).

use std::path::PathBuf;

use anyhow::{Result, anyhow, bail};
use clap::{Args, Subcommand};
use darkhex_algorithms::files::{read_text, write_atomically};
use darkhex_local::database::{Database, default_seeds};
use darkhex_local::region::Region;
use indicatif::{ProgressBar, ProgressStyle};

use crate::help;
use crate::output::outln;
use crate::outputs::{Files, Holds};
use crate::region::expand_guarded;

#[derive(Args)]
pub struct ValuesArgs {
    #[command(subcommand)]
    command: ValuesCommand,
}

#[derive(Subcommand)]
enum ValuesCommand {
    /// Build the database: seeds, then rounds of pinwheels, saved after each round
    #[command(after_help = help::after(&[
        "darkhex values build --rounds 1 --max-atoms 8 --out values.txt",
        "darkhex values build --rounds 2 --max-atoms 8 --out values.txt --resume",
    ], &[]))]
    Build(BuildArgs),
    /// Look values up: whether each is in the database, and how it is built
    #[command(after_help = help::after(&[
        "darkhex values query values.txt '{a, b | a}' '{⊤ | {a | ⊥}}' '{⊥ | ⊤}'",
    ], &[]))]
    Query(QueryArgs),
}

#[derive(Args)]
struct BuildArgs {
    /// Rounds of pinwheel composition after the seeds
    #[arg(long, default_value_t = 1, value_parser = crate::args::whole::<usize>(0, Some(10)))]
    rounds: usize,
    /// Keep values whose canonical form has at most this many atoms
    #[arg(long, default_value_t = 12, value_parser = crate::args::whole::<u64>(1, Some(1000)))]
    max_atoms: u64,
    /// The database file (text, checksummed)
    #[arg(long, default_value = "values.txt")]
    out: PathBuf,
    /// More seed regions (3-terminal region files) besides the built-in ones
    #[arg(long = "seed-region", value_name = "FILE")]
    seed_regions: Vec<PathBuf>,
    /// Continue the rounds of the database in --out (same --max-atoms)
    #[arg(long)]
    resume: bool,
}

#[derive(Args)]
struct QueryArgs {
    /// The database file
    file: PathBuf,
    /// Values in the notation darkhex region prints, e.g. '{a, b | a}'
    /// (top/T and bot/F also stand for ⊤ and ⊥)
    #[arg(required = true)]
    values: Vec<String>,
}

/// What `values` reads and writes, for the output guard.
pub fn files(args: &ValuesArgs) -> Files {
    match &args.command {
        ValuesCommand::Build(b) => b
            .seed_regions
            .iter()
            .fold(Files::new(), |f, s| f.reads("--seed-region", Some(s)))
            .writes("--out", Some(&b.out), Holds::ValueDatabase),
        ValuesCommand::Query(_) => Files::new(),
    }
}

pub fn run(args: ValuesArgs) -> Result<()> {
    match args.command {
        ValuesCommand::Build(a) => build(a),
        ValuesCommand::Query(a) => query(a),
    }
}

fn load(path: &std::path::Path) -> Result<Database> {
    let text = read_text(path)?;
    Database::from_text(&text).map_err(|e| anyhow!("{} is no good {e}", path.display()))
}

fn build(args: BuildArgs) -> Result<()> {
    let mut db = if args.resume && args.out.exists() {
        let db = load(&args.out)?;
        if db.max_atoms() != args.max_atoms {
            bail!(
                "{} keeps values of at most {} atoms; resume it with --max-atoms {}",
                args.out.display(),
                db.max_atoms(),
                db.max_atoms()
            );
        }
        outln!(
            "{}: {} values after round {}",
            args.out.display(),
            db.entries().len(),
            db.counts().len() - 1
        );
        db
    } else {
        let mut seeds = default_seeds()?;
        for path in &args.seed_regions {
            let text = read_text(path)?;
            let region =
                Region::parse(&text).map_err(|e| anyhow!("{} is no seed: {e}", path.display()))?;
            seeds.push((path.display().to_string(), region));
        }
        // The seeds are expanded one after the other, and the largest
        // decides the memory: each one's tables go when it is done.
        let largest = seeds
            .iter()
            .map(|(_, region)| region.estimate())
            .max_by(|a, b| a.bytes.total_cmp(&b.bytes))
            .ok_or_else(|| anyhow!("no seed regions"))?;
        let mut db = Database::new(args.max_atoms);
        expand_guarded("the values of the seed regions", largest, |limits| {
            db.seed(&seeds, limits)
        })?;
        outln!(
            "round 0: {} seeds, {} values once renumbered and dualised",
            seeds.len() + 5,
            db.entries().len()
        );
        write_atomically(&args.out, db.to_text().as_bytes())?;
        db
    };
    while db.counts().len() <= args.rounds {
        let round = db.counts().len();
        let bar = ProgressBar::new(db.entries().len() as u64);
        bar.set_style(
            ProgressStyle::with_template(&format!(
                "{{bar:32.cyan/blue}} round {round}: {{human_pos}}/{{human_len}} first components [{{elapsed_precise}} < {{eta}}]"
            ))
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        let report = db.round_with(&mut |done, _| bar.set_position(done as u64))?;
        bar.finish_and_clear();
        outln!(
            "round {}: {} pinwheels, {} values, {:.2} s",
            report.round,
            report.pinwheels,
            report.values,
            report.seconds
        );
        // Saved after every round: an interrupted build resumes from it.
        write_atomically(&args.out, db.to_text().as_bytes())?;
    }
    outln!(
        "{}: {} values of at most {} atoms",
        args.out.display(),
        db.entries().len(),
        db.max_atoms()
    );
    Ok(())
}

fn query(args: QueryArgs) -> Result<()> {
    let mut db = load(&args.file)?;
    for text in &args.values {
        let found = db
            .lookup(text)
            .map_err(|e| anyhow!("'{text}' is no value: {e}"))?
            .map(|e| (e.value, e.round, e.atoms));
        match found {
            Some((value, round, atoms)) => {
                let index = db
                    .entries()
                    .iter()
                    .position(|e| e.value == value)
                    .unwrap_or_default();
                outln!(
                    "{}: value {index}, round {round}, {atoms} atoms",
                    db.display(value)
                );
                outln!("  {}", db.recipe(index));
            }
            None => outln!("{text}: not in the database"),
        }
    }
    Ok(())
}
