//! `darkhex info`: the size of a game tree and whether it has perfect
//! recall; for dark games too large to walk, the information-state counts
//! from the streaming tables.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use anyhow::Result;
use clap::Args;
use darkhex_algorithms::bytes::readable_bytes;
use darkhex_algorithms::memory::{MemoryLimit, TooLarge};
use darkhex_algorithms::stream::{
    self, BuildOptions, BuildProgress, EstimateOptions, InfoStateTables, StreamError,
    TablesEstimate, estimate_tables,
};
use darkhex_algorithms::tree::estimate_histories;
use darkhex_games::analysis::{WalkOptions, tree_stats};
use darkhex_games::{AnyGame, with_game};
use indicatif::{ProgressBar, ProgressStyle};

use crate::args::{memory_limit, set_threads};
use crate::help;
use crate::interrupt::{self, Status};
use crate::output::outln;

/// Random probes behind the size estimate made before counting.
const ESTIMATE_PROBES: usize = 2000;
/// Histories a second a full count walks on one core of a 2-core machine.
const WALK_RATE: f64 = 15e6;
#[derive(Args)]
#[command(after_help = help::after(&[
    "darkhex info 'dark_hex(num_rows=2,num_cols=3,gameversion=adh)'",
    "darkhex info leduc_poker --json",
    "darkhex info 'dark_hex(num_rows=3,num_cols=3)'        (too large to walk: counted from the streaming tables)",
], &[help::GAMES]))]
pub struct InfoArgs {
    /// Game string, e.g. 'dark_hex(num_rows=2,num_cols=3,gameversion=adh)'
    #[arg(value_parser = crate::parse_game)]
    game: AnyGame,
    /// Print one JSON object instead of a table
    #[arg(long)]
    json: bool,
    /// Walk only trees of at most this many histories (estimated first);
    /// larger dark games are counted from the streaming tables, others estimated
    #[arg(long, default_value_t = 100_000_000, allow_negative_numbers = true, value_parser = crate::args::whole::<u64>(1, None))]
    max_histories: u64,
    /// Only estimate the size of a game too large to walk
    #[arg(long)]
    estimate_only: bool,
    /// Worker threads for the streaming tables (default: all cores)
    #[arg(long, allow_negative_numbers = true, value_parser = crate::args::threads)]
    threads: Option<usize>,
}

/// Counts that would take longer than this (a week) are not offered.
const MAX_WALK_SECONDS: f64 = 7.0 * 86400.0;

/// What to do with a game whose tree cannot be walked.
fn instead(game: &AnyGame) -> &'static str {
    match game {
        AnyGame::Hex(_) => {
            "`darkhex solve` decides its positions by proof-number search without walking the tree"
        }
        _ => "the estimate above is what can be known of its size",
    }
}

/// A duration too long for [`duration`]: days or years.
fn long_duration(seconds: f64) -> String {
    let days = seconds / 86400.0;
    if days < 365.0 {
        format!("about {days:.0} days")
    } else {
        format!("about {:.0e} years", days / 365.25)
    }
}

/// `x` rounded up to two significant digits, as a whole number.
fn round_up(x: f64) -> u64 {
    let unit = 10f64.powi((x.max(1.0).log10().floor() as i32 - 1).max(0));
    ((x / unit).ceil() * unit) as u64
}

/// "13 s", "4.2 min", "3.1 h".
pub fn duration(seconds: f64) -> String {
    if seconds < 90.0 {
        format!("{seconds:.0} s")
    } else if seconds < 5400.0 {
        format!("{:.1} min", seconds / 60.0)
    } else {
        format!("{:.1} h", seconds / 3600.0)
    }
}

/// Builds the streaming tables of `game` with a spinner that names the
/// player and depth being numbered, through the memory guard: they are
/// estimated first, and refused with the estimate when building them, or
/// holding them with what the command keeps beside them (`beside`: bytes,
/// from the estimate; a pass's or a solver's arrays), would need more
/// than `limit`. `what` names the command's use of them in the refusal.
pub fn build_tables_with_spinner(
    game: &AnyGame,
    limit: MemoryLimit,
    what: &str,
    beside: impl Fn(&TablesEstimate) -> f64,
) -> Result<InfoStateTables> {
    let estimate = check_tables(game, limit, what, beside)?;
    build_with_spinner(game, limit, estimate)
}

/// [`build_tables_with_spinner`] telling `progress` how far the build is
/// instead of drawing a spinner (the browser interface's jobs).
pub fn build_tables_checked(
    game: &AnyGame,
    limit: MemoryLimit,
    what: &str,
    beside: impl Fn(&TablesEstimate) -> f64,
    progress: &(dyn Fn(BuildProgress) + Sync),
    stop: &AtomicBool,
) -> Result<InfoStateTables> {
    let estimate = check_tables(game, limit, what, beside)?;
    build_estimated(game, limit, estimate, progress, Some(stop))
}

/// The tables' estimate, refused past `limit`; see [`build_tables_with_spinner`].
fn check_tables(
    game: &AnyGame,
    limit: MemoryLimit,
    what: &str,
    beside: impl Fn(&TablesEstimate) -> f64,
) -> Result<TablesEstimate> {
    let estimate = estimate_tables(game, &EstimateOptions::default())?;
    let extra = beside(&estimate);
    limit.check(
        format!(
            "{what} (tables of {}, and {} beside them)",
            estimate.rows_text(),
            readable_bytes(extra)
        ),
        estimate.build_bytes().max(estimate.table_bytes() + extra),
        &estimate.how(),
    )?;
    Ok(estimate)
}

/// Builds the tables of `game`, estimated as `estimate`, with a spinner.
fn build_with_spinner(
    game: &AnyGame,
    limit: MemoryLimit,
    estimate: TablesEstimate,
) -> Result<InfoStateTables> {
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{spinner} information-state tables: {msg} [{elapsed}]")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    let progress = |p: BuildProgress| {
        bar.set_message(format!(
            "player {}, {} observations deep, {} rows, {} histories",
            p.player, p.depth, p.rows, p.histories
        ))
    };
    let tables = build_estimated(game, limit, estimate, &progress, None)?;
    bar.finish_and_clear();
    Ok(tables)
}

/// Builds the tables of `game`, estimated as `estimate`.
fn build_estimated(
    game: &AnyGame,
    limit: MemoryLimit,
    estimate: TablesEstimate,
    progress: &(dyn Fn(BuildProgress) + Sync),
    stop: Option<&AtomicBool>,
) -> Result<InfoStateTables> {
    let options = BuildOptions {
        progress: Some(progress),
        limit: Some(limit),
        estimate: Some(estimate),
        stop,
    };
    stream::build_tables(game, &options).map_err(|e| match e {
        // The refusal says what it refused.
        StreamError::Memory(_) => anyhow::Error::new(e),
        e => anyhow::Error::new(e)
            .context(format!("building the information-state tables of {game}")),
    })
}

/// The size of a dark game's tables, estimated, where they are not built
/// (`--estimate-only`, or `refused` by the memory guard).
fn tables_estimate_report(
    args: &InfoArgs,
    histories: f64,
    tables: &TablesEstimate,
    refused: Option<TooLarge>,
) -> Result<()> {
    let game = args.game.to_string();
    if args.json {
        let json = serde_json::json!({
            "game": game,
            "estimated_histories": histories,
            "estimated_observation_sequences": tables.rows,
            "estimated_sequences": tables.slots.map(|s| s + 1.0),
            "estimated_table_bytes": tables.table_bytes(),
            "estimated_build_bytes": tables.build_bytes(),
            "counted": false,
            "refused": refused.as_ref().map(ToString::to_string),
        });
        outln!("{json}");
        return Ok(());
    }
    outln!("game              {game}");
    outln!(
        "histories         about {histories:.2e} (Knuth's estimate from {ESTIMATE_PROBES} random paths)"
    );
    outln!(
        "observation seqs  about {:.2e} (player 0), {:.2e} (player 1) ({})",
        tables.rows[0],
        tables.rows[1],
        tables.how()
    );
    outln!(
        "table memory      about {} built, {} at the build's peak",
        readable_bytes(tables.table_bytes()),
        readable_bytes(tables.build_bytes())
    );
    match refused {
        Some(e) => outln!("not counted       {e}"),
        None => outln!(
            "not counted       rerun without --estimate-only to count it from the streaming tables"
        ),
    }
    Ok(())
}

fn tables_report(args: &InfoArgs, estimate: f64, sized: TablesEstimate) -> Result<()> {
    let start = Instant::now();
    let tables = build_with_spinner(&args.game, memory_limit(), sized)?;
    let seconds = start.elapsed().as_secs_f64();
    let game = args.game.to_string();
    let t = [tables.player(0), tables.player(1)];
    if args.json {
        let json = serde_json::json!({
            "game": game,
            "histories": tables.histories(),
            "terminals": tables.terminals(),
            "estimated_histories": estimate,
            "infosets": [t[0].num_decision_rows(), t[1].num_decision_rows()],
            "sequences": [1 + t[0].num_slots(), 1 + t[1].num_slots()],
            "observation_sequences": [t[0].num_rows(), t[1].num_rows()],
            "perfect_recall": true,
            "method": "streaming tables",
            "table_bytes": tables.memory_bytes(),
            "seconds": seconds,
        });
        outln!("{json}");
        return Ok(());
    }
    outln!("game              {game}");
    outln!(
        "histories         {} (counted without walking them: histories at the same board and information state merged)",
        tables.histories()
    );
    outln!("terminals         {}", tables.terminals());
    outln!(
        "infosets          {} (player 0), {} (player 1)",
        t[0].num_decision_rows(),
        t[1].num_decision_rows()
    );
    outln!(
        "sequences         {} (player 0), {} (player 1)",
        1 + t[0].num_slots(),
        1 + t[1].num_slots()
    );
    outln!(
        "observation seqs  {} (player 0), {} (player 1), decision or not",
        t[0].num_rows(),
        t[1].num_rows()
    );
    outln!("perfect recall    yes (information states are observation sequences)");
    outln!(
        "table memory      {}",
        readable_bytes(tables.memory_bytes() as f64)
    );
    outln!("seconds           {seconds:.3}");
    Ok(())
}

pub fn run(args: InfoArgs) -> Result<()> {
    set_threads(args.threads)?;
    let status = Status::default();
    status.set("while estimating the size of the tree; nothing was counted");
    interrupt::exit_saying(&status);
    // Knuth's estimator: exact on trees whose branching depends only on depth,
    // within a small factor on these; it decides before any long walk.
    let estimate = with_game!(&args.game, g => estimate_histories(g, ESTIMATE_PROBES, 0));
    if estimate > args.max_histories as f64 {
        // Dark games too large to walk are counted from the streaming tables.
        let by_tables = args.game.is_dark_board();
        if by_tables {
            status.set(format!(
                "while estimating the information-state tables of {}; nothing was counted",
                args.game
            ));
            let tables = estimate_tables(&args.game, &EstimateOptions::default())?;
            let refused = memory_limit()
                .check("building them", tables.build_bytes(), "the estimate above")
                .err();
            if !args.estimate_only && refused.is_none() {
                status.set(format!(
                    "while building the information-state tables of {} (about {estimate:.1e} histories); nothing was counted",
                    args.game
                ));
                return tables_report(&args, estimate, tables);
            }
            return tables_estimate_report(&args, estimate, &tables, refused);
        }
        let game = args.game.to_string();
        let seconds = estimate / WALK_RATE;
        if args.json {
            let json = serde_json::json!({
                "game": game,
                "estimated_histories": estimate,
                "counted": false,
                "estimated_count_seconds": seconds,
                "walkable": seconds <= MAX_WALK_SECONDS,
            });
            outln!("{json}");
            return Ok(());
        }
        outln!("game              {game}");
        outln!(
            "histories         about {estimate:.2e} (Knuth's estimate from {ESTIMATE_PROBES} random paths)"
        );
        if seconds > MAX_WALK_SECONDS {
            outln!(
                "not counted       the tree cannot be walked: at {:.0} million histories a second a count would take {}; {}",
                WALK_RATE / 1e6,
                long_duration(seconds),
                instead(&args.game)
            );
            return Ok(());
        }
        outln!(
            "not counted       a full count would take about {} at {:.0} million histories a second; \
             rerun with --max-histories {} to count anyway",
            duration(seconds),
            WALK_RATE / 1e6,
            round_up(estimate * 2.0)
        );
        return Ok(());
    }
    status.set(format!(
        "while walking the {estimate:.1e} histories of {}; nothing was counted",
        args.game
    ));
    let bar = ProgressBar::new_spinner();
    bar.set_style(ProgressStyle::with_template(
        "{spinner} {human_pos} histories, {per_sec}",
    )?);
    let progress = |n: u64| bar.set_position(n);
    let options = WalkOptions {
        max_histories: args.max_histories,
        progress: Some(&progress),
    };
    let start = Instant::now();
    let stats = with_game!(&args.game, g => tree_stats(g, &options))?;
    let seconds = start.elapsed().as_secs_f64();
    bar.finish_and_clear();
    let game = args.game.to_string();
    if args.json {
        let json = serde_json::json!({
            "game": game,
            "histories": stats.histories,
            "terminals": stats.terminals,
            "chance_nodes": stats.chance_nodes,
            "infosets": stats.infosets,
            "sequences": stats.sequences,
            "max_depth": stats.max_depth,
            "perfect_recall": stats.perfect_recall(),
            "seconds": seconds,
        });
        outln!("{json}");
        return Ok(());
    }
    outln!("game              {game}");
    outln!("histories         {}", stats.histories);
    outln!("terminals         {}", stats.terminals);
    outln!("chance nodes      {}", stats.chance_nodes);
    outln!(
        "infosets          {} (player 0), {} (player 1)",
        stats.infosets[0],
        stats.infosets[1]
    );
    outln!(
        "sequences         {} (player 0), {} (player 1)",
        stats.sequences[0],
        stats.sequences[1]
    );
    outln!("max depth         {}", stats.max_depth);
    match &stats.recall_violation {
        None => outln!("perfect recall    yes"),
        Some(v) => outln!(
            "perfect recall    no: player {} at [{}]: {}",
            v.player,
            v.info_state,
            v.reason
        ),
    }
    outln!("seconds           {seconds:.3}");
    Ok(())
}
