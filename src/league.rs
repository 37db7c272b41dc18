//! `darkhex league`: run a tournament from a TOML file or from flags.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::Args;
use darkhex_games::spec::split_list;
use darkhex_league::{Tournament, run_league};
use indicatif::{ProgressBar, ProgressStyle};

use crate::output::outln;
use crate::progress::interrupt_flag;

#[derive(Args)]
pub struct LeagueArgs {
    /// Tournament file (TOML); or give --game and --players instead
    file: Option<PathBuf>,
    /// Game string
    #[arg(long, conflicts_with = "file")]
    game: Option<String>,
    /// Player specs, comma-separated: random,ismcts(sims=500),policy(file=p.json),lp
    #[arg(long, conflicts_with = "file")]
    players: Option<String>,
    /// Games per pair of players (seats alternate)
    #[arg(long, default_value_t = 20, conflicts_with = "file")]
    games: u32,
    /// Base seed of the games
    #[arg(long, default_value_t = 0, conflicts_with = "file")]
    seed: u64,
    /// Play this player against each of the others instead of a round-robin
    #[arg(long, conflicts_with = "file")]
    gauntlet: Option<String>,
    /// Directory for the results log and the reports (rerunning resumes)
    #[arg(long, default_value = "league")]
    out: PathBuf,
    /// Worker threads (default: all cores)
    #[arg(long)]
    threads: Option<usize>,
}

pub fn tournament(args: &LeagueArgs) -> Result<Tournament> {
    match (&args.file, &args.game, &args.players) {
        (Some(file), _, _) => {
            let text = std::fs::read_to_string(file)
                .with_context(|| format!("cannot read {}", file.display()))?;
            Ok(Tournament::from_toml(&text).with_context(|| file.display().to_string())?)
        }
        (None, Some(game), Some(players)) => Ok(Tournament::new(
            game,
            &split_list(players),
            args.games,
            args.seed,
            args.gauntlet.clone(),
        )?),
        _ => bail!("give a tournament file, or --game GAME --players SPEC,SPEC,..."),
    }
}

pub fn run(args: LeagueArgs) -> Result<()> {
    crate::train::set_threads(args.threads)?;
    let t = tournament(&args)?;
    let bar = ProgressBar::new(t.schedule().len() as u64);
    bar.set_style(ProgressStyle::with_template(
        "{bar:32.cyan/blue} {pos}/{len} games  {msg}  [{elapsed_precise} < {eta}]",
    )?);
    bar.set_message("preparing players");
    let stop = interrupt_flag();
    let progress = |p: &darkhex_league::Progress| {
        bar.set_position(p.done as u64);
        if let Some((name, score)) = &p.leader {
            bar.set_message(format!("leader {name} ({score:.2})"));
        }
    };
    let run = run_league(&t, &args.out, &progress, &stop)?;
    bar.finish_and_clear();
    outln!("{}", run.report.markdown());
    outln!(
        "{} games ({} played now); results and reports in {}",
        run.results.len(),
        run.played,
        args.out.display()
    );
    if run.stopped {
        bail!("stopped before the end: rerun the same command to play the missing games");
    }
    Ok(())
}
