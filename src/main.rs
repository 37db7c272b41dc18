//! The `darkhex` command line.

mod analyze;
mod args;
mod bounds;
mod exploit;
mod gtp;
mod heatmap;
mod help;
mod info;
mod interrupt;
mod league;
mod output;
mod outputs;
mod play;
mod plot;
mod plot_runs;
mod pone;
mod progress;
mod region;
mod run_flags;
mod serve;
mod sgf;
mod showcase;
mod solve;
mod solve_hex;
mod solve_table;
mod template;
mod train;
mod train_deep;
mod train_escher;
mod train_loop;
mod train_nfsp;
mod train_rl;
mod values;

use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};
use darkhex_games::{AnyGame, load_game};

#[derive(Parser)]
#[command(
    name = "darkhex",
    version,
    after_help = help::after(&[
        "darkhex                                      (the showcase: solve, train and rate on a small board)",
        "darkhex train leduc_poker --iterations 1000",
        "darkhex solve 'dark_hex(num_rows=2,num_cols=3,gameversion=adh)'",
        "darkhex league --game 'dark_hex(num_rows=3,num_cols=3)' --players 'random,ismcts(sims=500)'",
    ], &[help::GAMES]),
    about = "Hex, Rex and Dark Hex: games, equilibrium solvers, players and a league",
    long_about = "Hex, Rex and Dark Hex: games, equilibrium solvers, players and a league.\n\
                  Run without arguments for the showcase: a small Dark Hex board solved, \
                  trained on and played in a league."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Refuse, before it starts, any build estimated to need more memory
    /// than this many GB: a game tree, information-state tables and the
    /// passes over them, an LP, Deep CFR's reservoirs, a region's game
    /// (default: 60% of the memory available)
    #[arg(long, global = true, value_name = "GB", allow_negative_numbers = true, value_parser = args::memory_gb)]
    max_memory_gb: Option<f64>,
}

#[derive(Subcommand)]
enum Command {
    /// Enumerate a game tree: histories, information states, sequences, perfect recall
    Info(info::InfoArgs),
    /// Play against the random player, or replay a list of moves
    Play(play::PlayArgs),
    /// Train a policy: the CFR family, Deep CFR, or PPO and MMD in self-play
    // Boxed: its many options make it far larger than the other commands.
    Train(Box<train::TrainArgs>),
    /// Exact exploitability of a policy file
    Exploit(exploit::ExploitArgs),
    /// Several training runs in one exploitability-against-time SVG chart
    Plot(plot_runs::PlotArgs),
    /// Solve a game: Hex and Rex positions by proof-number search, dark games and poker by LP
    Solve(solve::SolveArgs),
    /// Run a tournament between players and rate them
    League(league::LeagueArgs),
    /// Decide whether a player wins a dark game with probability one
    Pone(pone::PoneArgs),
    /// Certified bounds on the first player's value: strategies against exact best responses
    Bounds(bounds::BoundsArgs),
    /// A GTP engine for Hex and Rex in Benzene's dialect (HexGui, scripts)
    Gtp(gtp::GtpArgs),
    /// Honjo et al.'s position networks of a Hex position: distances, path counts, E, E_k
    Analyze(analyze::AnalyzeArgs),
    /// The combinatorial value of a Hex region drawn in a file, and whether it is passable
    Region(region::RegionArgs),
    /// Whether a region is a template, and which probes into it are inferior
    Template(template::TemplateArgs),
    /// A database of Hex-realizable 3-terminal values: build it, look values up
    Values(values::ValuesArgs),
    /// The browser interface: play, watch leagues, inspect policies, chart runs
    Serve(serve::ServeArgs),
}

impl Command {
    /// What the command reads and writes, which the output guard
    /// ([`outputs`]) checks before any work starts.
    fn files(&self) -> Result<outputs::Files> {
        use outputs::Files;
        Ok(match self {
            Command::Train(args) => train::files(args)?,
            Command::Exploit(args) => exploit::files(args),
            Command::Plot(args) => plot_runs::files(args),
            Command::Solve(args) => solve::files(args),
            Command::League(args) => league::files(args),
            Command::Pone(args) => pone::files(args),
            Command::Bounds(args) => bounds::files(args),
            Command::Analyze(args) => analyze::files(args),
            Command::Template(args) => template::files(args),
            Command::Values(args) => values::files(args),
            Command::Serve(args) => serve::files(args),
            // They write nothing.
            Command::Info(_) | Command::Play(_) | Command::Gtp(_) | Command::Region(_) => {
                Files::new()
            }
        })
    }
}

/// Clap value parser for game strings; the error names the accepted values.
pub fn parse_game(text: &str) -> Result<AnyGame, String> {
    load_game(text).map_err(|e| e.to_string())
}

/// Exit statuses: 0 success, 1 any error (usage errors included), 130
/// interrupted (Ctrl-C, SIGTERM or SIGHUP; see [`interrupt`]).
fn main() -> ExitCode {
    darkhex_algorithms::fa::threads::settle();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    interrupt::install();
    if let Some(gb) = cli.max_memory_gb {
        darkhex_algorithms::memory::set_process_limit(Some(((gb * 1e9) as u64, "--max-memory-gb")));
    }
    let checked = match &cli.command {
        Some(command) => command.files().and_then(|files| files.check()),
        None => Ok(()),
    };
    let result = checked.and_then(|()| match cli.command {
        None => showcase::run(),
        Some(Command::Info(args)) => info::run(args),
        Some(Command::Play(args)) => play::run(args),
        Some(Command::Train(args)) => train::run(*args),
        Some(Command::Exploit(args)) => exploit::run(args),
        Some(Command::Plot(args)) => plot_runs::run(args),
        Some(Command::Solve(args)) => solve::run(args),
        Some(Command::League(args)) => league::run(args),
        Some(Command::Pone(args)) => pone::run(args),
        Some(Command::Bounds(args)) => bounds::run(args),
        Some(Command::Gtp(args)) => gtp::run(args),
        Some(Command::Analyze(args)) => analyze::run(args),
        Some(Command::Region(args)) => region::run(args),
        Some(Command::Template(args)) => template::run(args),
        Some(Command::Values(args)) => values::run(args),
        Some(Command::Serve(args)) => serve::run(args),
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{}", error_lines(&e));
            if interrupt::is_interruption(&e) {
                ExitCode::from(interrupt::EXIT_INTERRUPTED)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}

/// An error as at most two lines: what failed, then why. Causes that the
/// message above them already quotes are left out, and a message's own
/// line breaks are kept.
fn error_lines(e: &anyhow::Error) -> String {
    let mut shown: Vec<String> = Vec::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if !shown.iter().any(|s| s.contains(text.trim())) {
            shown.push(text);
        }
    }
    let (what, why) = shown
        .split_first()
        .map_or((String::new(), &[][..]), |(w, r)| (w.clone(), r));
    // Later lines of a message (a TOML error's snippet and caret) are
    // indented together, so they stay aligned under the line above.
    let indent = |text: String| text.trim_end().replace('\n', "\n    ");
    if why.is_empty() {
        format!("error: {}", indent(what))
    } else {
        format!(
            "error: {}\n  because: {}",
            indent(what),
            indent(why.join(": "))
        )
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

#[cfg(test)]
#[path = "../tests/common/commands.rs"]
#[allow(dead_code)] // the tables' contents are for tests/guards.rs
mod commands;

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::PathBuf;

    use clap::CommandFactory;

    use super::*;

    /// Every (subcommand, option id) whose value is a path, and every
    /// command that runs (a subcommand with none of its own).
    fn walk(
        cmd: &clap::Command,
        prefix: &str,
        paths: &mut BTreeSet<(String, String)>,
        commands: &mut BTreeSet<String>,
    ) {
        for arg in cmd.get_arguments() {
            if arg.get_value_parser().type_id() == std::any::TypeId::of::<PathBuf>() {
                paths.insert((prefix.to_string(), arg.get_id().to_string()));
            }
        }
        // `league` and `solve` run on their own as well as through their
        // subcommands; `values` only through its own.
        let own = cmd
            .get_arguments()
            .any(|a| !a.is_global_set() && !["help", "version"].contains(&a.get_id().as_str()));
        if !prefix.is_empty() && (own || cmd.get_subcommands().next().is_none()) {
            commands.insert(prefix.to_string());
        }
        for sub in cmd.get_subcommands() {
            let name = if prefix.is_empty() {
                sub.get_name().to_string()
            } else {
                format!("{prefix} {}", sub.get_name())
            };
            walk(sub, &name, paths, commands);
        }
    }

    fn walked() -> (BTreeSet<(String, String)>, BTreeSet<String>) {
        let (mut paths, mut commands) = (BTreeSet::new(), BTreeSet::new());
        walk(&Cli::command(), "", &mut paths, &mut commands);
        (paths, commands)
    }

    /// The output guard's tests (tests/guards.rs) run every writer of the
    /// table against every other kind of file: a command or option that
    /// names a path and is missing from the table would go unchecked.
    #[test]
    fn every_option_naming_a_path_is_in_the_guard_tests_table() {
        let found = walked().0;
        let listed: BTreeSet<(String, String)> = commands::PATH_OPTIONS
            .iter()
            .map(|(c, o, _)| (c.to_string(), o.to_string()))
            .collect();
        let missing: Vec<_> = found.difference(&listed).collect();
        let stale: Vec<_> = listed.difference(&found).collect();
        assert!(
            missing.is_empty() && stale.is_empty(),
            "options naming a path that tests/common/commands.rs lacks: {missing:?}; listed there but gone: {stale:?}"
        );
    }

    /// The memory guard's tests (tests/guards.rs) run every command that
    /// builds on an input too large for it: a command missing from the
    /// table would go unchecked.
    #[test]
    fn every_command_is_in_the_memory_guard_tests_table() {
        let found = walked().1;
        let listed: BTreeSet<String> = commands::BUILDS
            .iter()
            .map(|(c, _)| c.to_string())
            .collect();
        assert_eq!(
            found, listed,
            "the commands and tests/common/commands.rs's BUILDS differ"
        );
    }
}
