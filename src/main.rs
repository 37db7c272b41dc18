//! The `darkhex` command line.

mod exploit;
mod info;
mod league;
mod output;
mod play;
mod plot;
mod pone;
mod progress;
mod showcase;
mod solve;
mod train;

use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};
use darkhex_games::{AnyGame, load_game};

#[derive(Parser)]
#[command(
    name = "darkhex",
    version,
    about = "Hex, Rex and Dark Hex: games, equilibrium solvers, players and a league",
    long_about = "Hex, Rex and Dark Hex: games, equilibrium solvers, players and a league.\n\
                  Run without arguments for the showcase: a small Dark Hex board solved,
                  trained on and played in a league."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Enumerate a game tree: histories, information states, sequences, perfect recall
    Info(info::InfoArgs),
    /// Play against the random player, or replay a list of moves
    Play(play::PlayArgs),
    /// Train a policy with a CFR-family algorithm
    Train(train::TrainArgs),
    /// Exact exploitability of a policy file
    Exploit(exploit::ExploitArgs),
    /// Exact equilibrium of a small game by linear programming
    Solve(solve::SolveArgs),
    /// Run a tournament between players and rate them
    League(league::LeagueArgs),
    /// Decide whether a player wins a dark game with probability one
    Pone(pone::PoneArgs),
}

/// Clap value parser for game strings; the error names the accepted values.
pub fn parse_game(text: &str) -> Result<AnyGame, String> {
    load_game(text).map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        None => showcase::run(),
        Some(Command::Info(args)) => info::run(args),
        Some(Command::Play(args)) => play::run(args),
        Some(Command::Train(args)) => train::run(args),
        Some(Command::Exploit(args)) => exploit::run(args),
        Some(Command::Solve(args)) => solve::run(args),
        Some(Command::League(args)) => league::run(args),
        Some(Command::Pone(args)) => pone::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
