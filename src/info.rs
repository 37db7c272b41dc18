//! `darkhex info`: the size of a game tree and whether it has perfect recall.

use std::time::Instant;

use anyhow::Result;
use clap::Args;
use darkhex_games::analysis::{WalkOptions, tree_stats};
use darkhex_games::{AnyGame, with_game};
use indicatif::{ProgressBar, ProgressStyle};

use crate::output::outln;

#[derive(Args)]
pub struct InfoArgs {
    /// Game string, e.g. 'dark_hex(num_rows=2,num_cols=3,gameversion=adh)'
    #[arg(value_parser = crate::parse_game)]
    game: AnyGame,
    /// Print one JSON object instead of a table
    #[arg(long)]
    json: bool,
    /// Stop with an error after this many histories (trees grow fast)
    #[arg(long, default_value_t = 100_000_000)]
    max_histories: u64,
}

pub fn run(args: InfoArgs) -> Result<()> {
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
