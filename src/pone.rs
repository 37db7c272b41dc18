//! `darkhex pone`: does a player win Dark Hex with probability one?

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Result, bail};
use clap::Args;
use darkhex_algorithms::files::FileKind;
use darkhex_algorithms::pone::{self, Strategy, extract_strategy, verify_strategy};
use darkhex_games::{AnyGame, Game};
use indicatif::{ProgressBar, ProgressStyle};

use crate::args::{set_threads, whole};
use crate::help;
use crate::interrupt::{self, Status};
use crate::output::outln;
use crate::outputs::{Files, Holds};

#[derive(Args)]
#[command(after_help = help::after(&[
    "darkhex pone 'dark_hex(num_rows=3,num_cols=3)' --strategy-out dh33.json --verify",
    "darkhex pone 'dark_rex(num_rows=3,num_cols=3)' --player 1 --json",
    "darkhex pone 'dark_hex(num_rows=3,num_cols=3)' --check-strategy dh33.json",
], &[help::GAMES]))]
pub struct PoneArgs {
    /// A dark game, e.g. 'dark_hex(num_rows=3,num_cols=4)' or 'dark_rex(board_size=3,gameversion=adh)'
    #[arg(value_parser = crate::parse_game)]
    game: AnyGame,
    /// The player to decide for: 0 moves first (default 0; with
    /// --check-strategy, the file's player, which --player must match)
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u8>(0, Some(1)))]
    player: Option<u8>,
    /// Write the winning strategy (one move per information state) here
    #[arg(long)]
    strategy_out: Option<PathBuf>,
    /// Check the strategy on every history of the game (exhaustive; small boards)
    #[arg(long)]
    verify: bool,
    /// Check a strategy file written by --strategy-out against every history
    /// of the game, instead of searching
    #[arg(long, conflicts_with_all = ["strategy_out", "verify"])]
    check_strategy: Option<PathBuf>,
    /// Stop the check after this many histories
    #[arg(long, default_value_t = 100_000_000, allow_negative_numbers = true, value_parser = whole::<u64>(1, None))]
    verify_limit: u64,
    /// Print one JSON object
    #[arg(long)]
    json: bool,
    /// Worker threads (default: all cores); the answer, the figures and the
    /// strategy do not depend on it
    #[arg(long, allow_negative_numbers = true, value_parser = crate::args::threads)]
    threads: Option<usize>,
}

/// What `pone` reads and writes, for the output guard.
pub fn files(args: &PoneArgs) -> Files {
    Files::new()
        .reads("--check-strategy", args.check_strategy.as_deref())
        .writes(
            "--strategy-out",
            args.strategy_out.as_deref(),
            Holds::Document(FileKind::PoneStrategy),
        )
}

pub fn run(args: PoneArgs) -> Result<()> {
    let AnyGame::DarkHex(game) = args.game else {
        bail!(
            "pone decides dark games (dark_hex, dark_rex), not {}",
            args.game
        );
    };
    set_threads(args.threads)?;
    let player = args.player.map_or(0, usize::from);
    let status = Status::default();
    interrupt::exit_saying(&status);
    if let Some(path) = &args.check_strategy {
        status.set(format!(
            "while checking {} on every history",
            path.display()
        ));
        let strategy = Strategy::load(path)?;
        // The file says whose strategy it is: checking it as the other
        // player's would answer a question nobody asked.
        if let Some(asked) = args.player
            && usize::from(asked) != strategy.player
        {
            bail!(
                "--player {asked} does not match {}, a strategy for player {}: --check-strategy checks the player the file was written for (give --player {} or leave it out)",
                path.display(),
                strategy.player,
                strategy.player
            );
        }
        let start = Instant::now();
        let report = verify_strategy(&game, &strategy, args.verify_limit)?;
        outln!(
            "{}: player {}'s strategy for {} wins all {} endings of {} histories ({:.2} s)",
            path.display(),
            strategy.player,
            strategy.game,
            report.terminals,
            report.histories,
            start.elapsed().as_secs_f64()
        );
        return Ok(());
    }
    let bar = ProgressBar::new_spinner();
    bar.set_style(ProgressStyle::with_template("{spinner} {msg} [{elapsed}]")?);
    bar.set_message("searching");
    status.set("while searching; nothing was written");
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    let (result, search) = pone::solve(&game, player, &[])?;
    let names: Vec<String> = result
        .winning_moves
        .iter()
        .map(|&c| game.dims().cell_name(c))
        .collect();
    let mut strategy_line = None;
    let mut verified = None;
    if result.wins && (args.strategy_out.is_some() || args.verify) {
        bar.set_message("writing out the strategy");
        status.set("while writing out the strategy");
        let strategy = extract_strategy(&search, &game, &result.from);
        if let Some(path) = &args.strategy_out {
            strategy.save(path)?;
            strategy_line = Some(format!(
                "{} ({} information states)",
                path.display(),
                strategy.moves.len()
            ));
        }
        if args.verify {
            bar.set_message("checking the strategy on every history");
            status.set(match &args.strategy_out {
                Some(p) => format!(
                    "while checking the strategy on every history (it is in {})",
                    p.display()
                ),
                None => "while checking the strategy on every history".into(),
            });
            let start = Instant::now();
            let report = verify_strategy(&game, &strategy, args.verify_limit)?;
            verified = Some((
                report.histories,
                report.terminals,
                start.elapsed().as_secs_f64(),
            ));
        }
    }
    bar.finish_and_clear();
    // Without a win there is no strategy to write: say so rather than
    // leave the user looking for a file that never came.
    let not_written = (args.strategy_out.is_some() && !result.wins)
        .then(|| format!("no strategy written: player {player} does not win with probability one"));
    if let Some(note) = &not_written {
        eprintln!("{note}");
    }
    if args.json {
        let mut json = serde_json::json!({
            "game": game.game_string(),
            "player": player,
            "wins": result.wins,
            "winning_moves": names,
            "states": result.states,
            "seconds": result.seconds,
        });
        if let Some((histories, terminals, _)) = verified {
            json["verified_histories"] = histories.into();
            json["verified_terminals"] = terminals.into();
        }
        if let Some(path) = &args.strategy_out {
            json["strategy"] = match &not_written {
                None => path.display().to_string().into(),
                Some(_) => serde_json::Value::Null,
            };
        }
        if let Some(note) = not_written {
            json["strategy_not_written"] = note.into();
        }
        outln!("{json}");
        return Ok(());
    }
    outln!("game             {}", game.game_string());
    outln!(
        "player           {player} ({})",
        if player == 0 { "x, first" } else { "o, second" }
    );
    outln!(
        "probability one  {}",
        if result.wins { "yes" } else { "no" }
    );
    if result.wins {
        outln!("winning moves    {}", names.join(", "));
    }
    outln!("states searched  {}", result.states);
    outln!("seconds          {:.3}", result.seconds);
    if let Some(line) = strategy_line {
        outln!("strategy         {line}");
    }
    if let Some((histories, terminals, secs)) = verified {
        outln!(
            "verified         all {terminals} endings of {histories} histories are wins ({secs:.2} s)"
        );
    }
    Ok(())
}
