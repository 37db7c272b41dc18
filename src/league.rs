//! `darkhex league`: run a tournament from a TOML file or from flags, and
//! `darkhex league show ID`: replay one of its games from the results log.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use darkhex_algorithms::shard::Shard;
use darkhex_games::load_game;
use darkhex_games::spec::split_list;
use darkhex_league::{LeagueRun, ResultsLog, Tournament, merge_shards, run_league_part};
use indicatif::{ProgressBar, ProgressStyle};

use crate::args::set_threads;
use crate::help;
use crate::interrupt::{self, Interrupted};
use crate::output::outln;
use crate::outputs::{Files, Holds};

#[derive(Args)]
#[command(
    args_conflicts_with_subcommands = true,
    after_help = help::after(&[
        "darkhex league --game 'dark_hex(num_rows=3,num_cols=3)' --players 'random,ismcts(sims=1000)' --games 100 --out league-dh33",
        "darkhex league tournament.toml --out league-adh      (rerun to resume, or to extend with more games or players)",
        "darkhex league show 17 --out league-dh33             (replay game 17 of the log)",
        "darkhex league tournament.toml --shard 2/8 --out part-2   (one of 8 parts, e.g. a Slurm array task)",
        "darkhex league merge part-1 part-2 ... part-8 --out league-adh   (the parts joined: the run in one piece)",
    ], &[help::TOURNAMENT, help::PLAYERS, help::GAMES])
)]
pub struct LeagueArgs {
    #[command(subcommand)]
    command: Option<LeagueCommand>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Subcommand)]
enum LeagueCommand {
    /// Replay one game of a league's results log, move by move
    Show(ShowArgs),
    /// Join the logs of every `--shard I/N` run of one league into its log
    /// and reports, as a run in one piece on one thread writes them
    Merge(MergeArgs),
}

#[derive(Args)]
struct MergeArgs {
    /// Every shard's --out directory (or its results.jsonl), in any order
    #[arg(required = true)]
    shards: Vec<PathBuf>,
    /// Directory for the merged results log and the reports
    #[arg(long, default_value = "league-results")]
    out: PathBuf,
}

#[derive(Args)]
struct ShowArgs {
    /// The game's id (its number in results.jsonl, shown by the reports)
    id: u64,
    /// The league's output directory
    #[arg(long, default_value = "league-results")]
    out: PathBuf,
}

#[derive(Args)]
struct RunArgs {
    /// Tournament file (TOML); or give --game and --players instead
    file: Option<PathBuf>,
    /// Game string
    #[arg(long, conflicts_with = "file")]
    game: Option<String>,
    /// Player specs, comma-separated: random,ismcts(sims=500),policy(file=p.json),lp;
    /// a spec given twice is named spec#1, spec#2
    #[arg(long, conflicts_with = "file")]
    players: Option<String>,
    /// Games per pair of players (seats alternate); raise it to extend a finished league
    #[arg(long, default_value_t = 20, conflicts_with = "file", allow_negative_numbers = true, value_parser = crate::args::whole::<u32>(1, None))]
    games: u32,
    /// Base seed of the games
    #[arg(long, default_value_t = 0, conflicts_with = "file", allow_negative_numbers = true, value_parser = crate::args::seed)]
    seed: u64,
    /// Play this player against each of the others instead of a round-robin
    #[arg(long, conflicts_with = "file")]
    gauntlet: Option<String>,
    /// Directory for the results log and the reports (rerunning resumes)
    #[arg(long, default_value = "league-results")]
    out: PathBuf,
    /// Worker threads (default: all cores)
    #[arg(long, allow_negative_numbers = true, value_parser = crate::args::threads)]
    threads: Option<usize>,
    /// Play only part I of N of the schedule (games I, I+N, I+2N, ...),
    /// for clusters; `darkhex league merge` joins the parts' logs
    #[arg(long, value_name = "I/N")]
    shard: Option<Shard>,
}

fn tournament(args: &RunArgs) -> Result<Tournament> {
    match (&args.file, &args.game, &args.players) {
        (Some(file), _, _) => Tournament::from_toml_file(file)
            .with_context(|| format!("cannot use the tournament file {}", file.display())),
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

/// What `league` reads and writes, for the output guard.
pub fn files(args: &LeagueArgs) -> Files {
    match &args.command {
        Some(LeagueCommand::Show(_)) => Files::new(),
        Some(LeagueCommand::Merge(m)) => m
            .shards
            .iter()
            .fold(Files::new(), |f, s| f.reads("the shard", Some(s)))
            .writes("--out", Some(&m.out), Holds::LeagueFolder),
        None => Files::new()
            .reads("the tournament file", args.run.file.as_deref())
            .writes("--out", Some(&args.run.out), Holds::LeagueFolder),
    }
}

pub fn run(args: LeagueArgs) -> Result<()> {
    match args.command {
        Some(LeagueCommand::Show(show_args)) => show(&show_args),
        Some(LeagueCommand::Merge(merge_args)) => merge(&merge_args),
        None => run_tournament(&args.run),
    }
}

fn run_tournament(args: &RunArgs) -> Result<()> {
    set_threads(args.threads)?;
    let t = tournament(args)?;
    let bar = ProgressBar::new(t.schedule().len() as u64);
    bar.set_style(ProgressStyle::with_template(
        "{bar:32.cyan/blue} {pos}/{len} games  {msg}  [{elapsed_precise} < {eta}]",
    )?);
    bar.set_message("preparing players");
    let stop = interrupt::flag();
    let progress = |p: &darkhex_league::Progress| {
        bar.set_position(p.done as u64);
        if let Some((name, score)) = &p.leader {
            bar.set_message(format!("leader {name} ({score:.2})"));
        }
    };
    let run = run_league_part(&t, args.shard, &args.out, &progress, &stop)?;
    bar.finish_and_clear();
    for w in &run.warnings {
        eprintln!("note: {w}");
    }
    print_run(&run, &args.out)?;
    if let Some(shard) = args.shard {
        outln!(
            "this is shard {shard} of the league: once every shard has run, `darkhex league merge DIR... --out DIR` joins them"
        );
    }
    if run.stopped {
        return Err(Interrupted(
            "interrupted before the end: the games played are in the log; rerun the same command to play the missing ones".into(),
        )
        .into());
    }
    Ok(())
}

fn print_run(run: &LeagueRun, out: &std::path::Path) -> Result<()> {
    outln!("{}", run.report.markdown());
    outln!(
        "{} games ({} played now); results and reports in {}; `darkhex league show ID --out {}` replays a game",
        run.results.len(),
        run.played,
        out.display(),
        out.display()
    );
    Ok(())
}

fn merge(args: &MergeArgs) -> Result<()> {
    let run = merge_shards(&args.shards, &args.out)?;
    print_run(&run, &args.out)
}

fn show(args: &ShowArgs) -> Result<()> {
    let path = args.out.join("results.jsonl");
    let (t, games) = ResultsLog::read(&path)
        .with_context(|| format!("cannot read the league in {}", args.out.display()))?;
    let Some(g) = games.iter().find(|g| g.id == args.id) else {
        let last = games.iter().map(|g| g.id).max().unwrap_or(0);
        bail!(
            "{} has no game {}: its games are numbered 1 to {last}",
            path.display(),
            args.id
        );
    };
    if g.history.is_empty() {
        bail!(
            "game {} was logged before darkhex kept the moves of games; only its result is known",
            g.id
        );
    }
    let game = load_game(&t.game)?;
    outln!(
        "game {} of {}: {} (first) against {} (second), round {} of {} vs {}, seed {}",
        g.id,
        t.game,
        g.seats[0],
        g.seats[1],
        g.round,
        g.a,
        g.b,
        g.seed
    );
    crate::play::replay(&game, &g.history)?;
    outln!(
        "replay it with: darkhex play '{}' --moves {}",
        t.game,
        g.history
    );
    Ok(())
}
