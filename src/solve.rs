//! `darkhex solve`: exact equilibria of small games by sequence-form or
//! normal-form linear programming.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use anyhow::{Result, bail};
use clap::{Args, Subcommand};
use darkhex_algorithms::files::FileKind;
use darkhex_algorithms::lp::normal_form::{
    DEFAULT_MAX_STRATEGIES, NormalForm, normal_form, solve_normal_form,
};
use darkhex_algorithms::lp::{LpBackend, LpOptions, LpSolution, solve_sequence_form};
use darkhex_algorithms::{GameTree, PolicyFile, Provenance};
use darkhex_games::{AnyGame, Game};

use crate::args::memory_limit;
use crate::help;
use crate::output::outln;
use crate::outputs::{Files, Holds};
use crate::progress::{compile, default_policy_path, spinner};

#[derive(Args)]
#[command(after_help = help::after(&[
    "darkhex solve 'hex(board_size=6)' --moves c3 --all-moves        (Hex and Rex: proof-number search)",
    "darkhex solve 'hex(board_size=7)' --openings --json",
    "darkhex solve 'dark_hex(num_rows=2,num_cols=3,gameversion=adh)'      (dark games and poker: LP)",
    "darkhex solve kuhn_poker --json",
    "darkhex solve 'dark_hex(num_rows=2,num_cols=2,gameversion=adh)' --method nf-lp --matrix",
    "darkhex solve 'hex(board_size=8)' --openings --shard 3/16 --out openings-3.jsonl   (one of 16 parts)",
    "darkhex solve merge openings-*.jsonl                  (the parts joined: the table of every opening)",
    "darkhex solve 'rex(board_size=5)' --replies --out rex5-replies.jsonl   (each reply to each opening, logged as solved)",
], &[help::GAMES]), args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct SolveArgs {
    #[command(subcommand)]
    command: Option<SolveCommand>,
    /// Game string, e.g. 'dark_hex(num_rows=2,num_cols=3,gameversion=adh)'
    #[arg(value_parser = crate::parse_game, required = true)]
    game: Option<AnyGame>,
    /// lp: sequence-form LP (the default); nf-lp: the normal form as a
    /// matrix game (tiny games)
    #[arg(long, value_parser = ["lp", "nf-lp"])]
    method: Option<String>,
    /// LP solver (default clarabel)
    #[arg(long, value_parser = LpBackend::NAMES)]
    backend: Option<String>,
    /// Solve the full sequence-form LPs, not restricted supports
    #[arg(long)]
    full: bool,
    /// Policy file to write (default: policies/<game>-<method>.json); Hex
    /// and Rex with --openings or --replies: the log of solved openings (or
    /// replies), written as each is solved (rerunning the command resumes
    /// it; required with --shard)
    #[arg(long)]
    out: Option<PathBuf>,
    /// Print one JSON object
    #[arg(long)]
    json: bool,
    /// nf-lp: print the payoff matrix with strategy labels
    #[arg(long)]
    matrix: bool,
    /// nf-lp: refuse games with more reduced pure strategies per player
    /// (default 5000)
    #[arg(long, allow_negative_numbers = true, value_parser = crate::args::whole::<usize>(1, None))]
    max_strategies: Option<usize>,
    #[command(flatten)]
    hex: crate::solve_hex::HexSolveArgs,
}

#[derive(Subcommand)]
enum SolveCommand {
    /// Join the logs of every `solve --openings --shard I/N` run of one
    /// board into the table of every opening
    Merge(crate::solve_hex::MergeArgs),
}

/// A close simple fraction, when there is one: exact values of small games
/// are rationals with small denominators.
fn as_fraction(x: f64) -> Option<String> {
    (1..=1000u32).find_map(|d| {
        // `+ 0.0` turns a negative zero into zero.
        let n = (x * d as f64).round() + 0.0;
        ((x - n / d as f64).abs() < 1e-7).then(|| {
            if d == 1 {
                format!("{n}")
            } else {
                format!("{n}/{d}")
            }
        })
    })
}

fn print_matrix(game: &AnyGame, tree: &GameTree, nf: &NormalForm) -> Result<()> {
    let label = |p: usize, s: &Vec<(u32, u32)>| -> String {
        let table = tree.infosets(p);
        let parts: Vec<String> = s
            .iter()
            .map(|&(i, k)| {
                let key: Vec<String> = table.keys[i as usize]
                    .iter()
                    .map(|&t| game.describe_token(t))
                    .collect();
                let at = if key.is_empty() {
                    "start".to_string()
                } else {
                    key.join(", ")
                };
                format!(
                    "[{at}] {}",
                    game.action_name(table.actions_of(i as usize)[k as usize])
                )
            })
            .collect();
        parts.join("; ")
    };
    for p in 0..2 {
        outln!("player {p}'s reduced pure strategies:");
        for (i, s) in nf.strategies[p].iter().enumerate() {
            outln!("  {}{i:<4} {}", if p == 0 { "r" } else { "c" }, label(p, s));
        }
    }
    outln!("payoff to player 0 (rows: player 0, columns: player 1):");
    let cols = nf.strategies[1].len();
    let header: String = (0..cols)
        .map(|j| format!("{:>6}", format!("c{j}")))
        .collect();
    outln!("       {header}");
    for i in 0..nf.strategies[0].len() {
        let row: String = (0..cols)
            .map(|j| {
                let v = nf.payoff(i, j);
                format!("{:>6}", as_fraction(v).unwrap_or_else(|| format!("{v:.3}")))
            })
            .collect();
        outln!("{:<7}{row}", format!("r{i}"));
    }
    Ok(())
}

impl SolveArgs {
    /// The LP's options given, which a Hex or Rex position does not take.
    fn lp_options(&self) -> Vec<&'static str> {
        let given = [
            ("--method", self.method.is_some()),
            ("--backend", self.backend.is_some()),
            ("--full", self.full),
            ("--out", self.out.is_some()),
            ("--matrix", self.matrix),
            ("--max-strategies", self.max_strategies.is_some()),
        ];
        given.into_iter().filter(|g| g.1).map(|g| g.0).collect()
    }
}

/// Where the LP writes its policy: `--out`, or a path named after the game
/// and method.
fn lp_policy_path(args: &SolveArgs, game: &AnyGame) -> PathBuf {
    args.out
        .clone()
        .unwrap_or_else(|| default_policy_path(game, args.method.as_deref().unwrap_or("lp"), false))
}

/// What `solve` reads and writes, for the output guard.
pub fn files(args: &SolveArgs) -> Files {
    match (&args.command, &args.game) {
        (Some(SolveCommand::Merge(merge)), _) => crate::solve_hex::merge_files(merge),
        (None, Some(AnyGame::Hex(_))) => crate::solve_hex::files(&args.hex, args.out.as_deref()),
        (None, Some(game)) => Files::new().writes(
            if args.out.is_some() {
                "--out"
            } else {
                "the policy's default path"
            },
            Some(&lp_policy_path(args, game)),
            Holds::Document(FileKind::Policy),
        ),
        (None, None) => Files::new(),
    }
}

pub fn run(args: SolveArgs) -> Result<()> {
    let game = match (&args.command, args.game) {
        (Some(SolveCommand::Merge(merge)), _) => return crate::solve_hex::merge(merge),
        (None, Some(game)) => game,
        (None, None) => bail!("give a game string, e.g. 'hex(board_size=5)'"),
    };
    if let AnyGame::Hex(hex) = &game {
        // --out names the log of --openings and --replies too.
        let lp_only = args.lp_options().into_iter().find(|o| *o != "--out");
        if let Some(option) = lp_only {
            bail!(
                "{option} is an option of the LP, which solves dark games and poker; {} is solved by proof-number search, which takes {}",
                game,
                crate::solve_hex::OPTIONS.join(", ")
            );
        }
        return crate::solve_hex::run(hex, &args.hex, args.out.as_deref(), args.json);
    }
    if let Some(option) = args.hex.given().first() {
        bail!(
            "{option} is an option of the Hex and Rex solver; {} is solved by LP, which takes --method, --backend, --full, --out, --matrix, --max-strategies",
            game
        );
    }
    let method = args.method.clone().unwrap_or_else(|| "lp".into());
    let backend = args
        .backend
        .as_deref()
        .and_then(LpBackend::from_name)
        .unwrap_or(LpBackend::Clarabel);
    let path = lp_policy_path(&args, &game);
    let start = Instant::now();
    let limit = memory_limit();
    let (tree, _) = compile(&game, limit)?;
    let bar = spinner("");
    bar.set_style(indicatif::ProgressStyle::with_template(
        "{spinner} {msg} [{elapsed}]",
    )?);
    bar.enable_steady_tick(std::time::Duration::from_millis(250));
    // A signal stops the solver wherever it is and says how far it got
    // (the step under way, the bounds on the value found so far).
    let status = Arc::new(Mutex::new((String::new(), None::<String>)));
    {
        let status = status.clone();
        let bar = bar.clone();
        crate::interrupt::on_interrupt(move || {
            bar.finish_and_clear();
            let (step, bounds) = status.lock().map(|s| s.clone()).unwrap_or_default();
            eprintln!(
                "interrupted during: {step}; nothing was written\n{}",
                bounds.unwrap_or_else(|| "no LP had finished".into())
            );
            std::process::exit(crate::interrupt::EXIT_INTERRUPTED.into());
        });
    }
    let progress = |m: &str| {
        bar.set_message(m.to_string());
        if let Ok(mut s) = status.lock() {
            if m.starts_with("after") {
                s.1 = Some(m.to_string());
            } else {
                s.0 = m.to_string();
            }
        }
    };
    let solution: LpSolution = if method == "nf-lp" {
        progress("enumerating reduced pure strategies");
        let nf = normal_form(&tree, args.max_strategies.unwrap_or(DEFAULT_MAX_STRATEGIES))?;
        progress(&format!(
            "solving the {} x {} matrix game",
            nf.strategies[0].len(),
            nf.strategies[1].len()
        ));
        let s = solve_normal_form(&tree, &nf, backend)?;
        if args.matrix {
            bar.finish_and_clear();
            print_matrix(&game, &tree, &nf)?;
        }
        s
    } else {
        solve_sequence_form(
            &tree,
            LpOptions {
                backend,
                full: args.full,
                max_bytes: limit.less(tree.memory_bytes() as u64).bytes(),
            },
            &progress,
        )?
    };
    bar.finish_and_clear();
    let seconds = start.elapsed().as_secs_f64();
    let e = solution.exploitability.exploitability;
    if e > 1e-6 {
        eprintln!("warning: the solution's exploitability is {e:.2e}, above 1e-6");
    }
    let mut parameters = std::collections::BTreeMap::new();
    parameters.insert("rounds".to_string(), solution.rounds as f64);
    let provenance = Provenance {
        algorithm: format!("{method}/{}", backend.name()),
        parameters,
        iterations: 0,
        exploitability: Some(e),
    };
    PolicyFile::from_tree(&tree, &solution.policy, provenance).save(&path)?;
    if args.json {
        let json = serde_json::json!({
            "game": game.to_string(),
            "method": method,
            "backend": backend.name(),
            "value_p0": solution.value_p0,
            "exploitability": e,
            "seconds": seconds,
            "variables": solution.variables,
            "constraints": solution.constraints,
            "rounds": solution.rounds,
            "policy": path.display().to_string(),
        });
        outln!("{json}");
        return Ok(());
    }
    let exact = as_fraction(solution.value_p0)
        .map(|f| format!(" (= {f})"))
        .unwrap_or_default();
    outln!("game             {game}");
    outln!("method           {method} ({})", backend.name());
    outln!("value for p0     {:.9}{exact}", solution.value_p0);
    outln!("exploitability   {e:.3e}");
    outln!(
        "LP size          {} variables, {} constraints (largest LP solved)",
        solution.variables,
        solution.constraints
    );
    if method == "lp" {
        let [s0, s1] = solution.support;
        outln!(
            "supports         {} of {} and {} of {} sequences, {} round(s)",
            s0.0,
            s0.1,
            s1.0,
            s1.1,
            solution.rounds
        );
    }
    outln!(
        "seconds          {seconds:.3} (LP build {:.3}, solve {:.3})",
        solution.build_seconds,
        solution.solve_seconds
    );
    outln!("policy           {}", path.display());
    Ok(())
}
