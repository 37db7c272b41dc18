//! `darkhex train`: run a CFR-family algorithm, with progress, periodic exact
//! evaluation, checkpoints, a policy file and a convergence plot.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::Args;
use darkhex_algorithms::training::ALGORITHM_NAMES;
use darkhex_algorithms::tree::estimate_histories;
use darkhex_algorithms::{Algorithm, AlgorithmParams, Checkpoint, GameTree, PolicyFile, Trainer};
use darkhex_games::{AnyGame, Game, with_game};

use crate::output::outln;
use crate::progress::{bar, compile, default_policy_path, interrupt_flag, max_bytes};

/// Monte Carlo runs compile the tree for exact evaluation up to this size.
const EVAL_TREE_HISTORIES: f64 = 3e7;

#[derive(Args)]
pub struct TrainArgs {
    /// Game string, e.g. 'leduc_poker' or 'dark_hex(num_rows=2,num_cols=3)'
    #[arg(value_parser = crate::parse_game)]
    game: AnyGame,
    /// Algorithm (default cfr+; a resumed run keeps its checkpoint's)
    #[arg(long, value_parser = ALGORITHM_NAMES)]
    algo: Option<String>,
    /// Total iterations to reach (a resumed run continues up to this)
    #[arg(long, default_value_t = 1000)]
    iterations: u64,
    /// Worker threads (default: all cores); full-width results do not depend on it
    #[arg(long)]
    threads: Option<usize>,
    /// Seed of the Monte Carlo samplers
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Policy file to write: .json, or anything else for compact binary
    /// (default: policies/<game>-<algo>.json, or .bin past 100000 information states)
    #[arg(long)]
    out: Option<PathBuf>,
    /// Save the solver state here at every evaluation and at the end
    #[arg(long)]
    checkpoint: Option<PathBuf>,
    /// Continue from --checkpoint if it exists
    #[arg(long, requires = "checkpoint")]
    resume: bool,
    /// Evaluate exploitability every K iterations (default: 10 times a run)
    #[arg(long)]
    eval_every: Option<u64>,
    /// Draw exploitability against iterations and seconds into this SVG file
    #[arg(long)]
    plot: Option<PathBuf>,
    /// Print one JSON object at the end
    #[arg(long)]
    json: bool,
    /// DCFR: discount of positive regrets (default 1.5)
    #[arg(long)]
    alpha: Option<f64>,
    /// DCFR: discount of negative regrets (default 0)
    #[arg(long)]
    beta: Option<f64>,
    /// DCFR: weight of the average policy (default 2)
    #[arg(long)]
    gamma: Option<f64>,
    /// Outcome sampling: exploration of the updating player (default 0.6)
    #[arg(long)]
    exploration: Option<f64>,
    /// Refuse game trees that need more memory than this many GB (default 8.6)
    #[arg(long)]
    max_memory_gb: Option<f64>,
}

/// Policies with more information states than this default to the compact
/// binary form rather than JSON.
const JSON_MAX_INFOSETS: usize = 100_000;

fn policy_is_large(policy: &PolicyFile) -> bool {
    policy.infosets.iter().map(Vec::len).sum::<usize>() > JSON_MAX_INFOSETS
}

pub fn set_threads(threads: Option<usize>) -> Result<()> {
    if let Some(t) = threads {
        if t == 0 {
            bail!("--threads must be at least 1");
        }
        rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build_global()
            .context("setting up the worker threads")?;
    }
    Ok(())
}

pub fn run(args: TrainArgs) -> Result<()> {
    set_threads(args.threads)?;
    let params = AlgorithmParams {
        alpha: args.alpha,
        beta: args.beta,
        gamma: args.gamma,
        exploration: args.exploration,
    };
    let requested = args
        .algo
        .as_deref()
        .map(|a| Algorithm::parse(a, params))
        .transpose()?;
    let checkpoint = match (&args.checkpoint, args.resume) {
        (Some(path), true) if path.exists() => Some(Checkpoint::load(path)?),
        (Some(path), true) => {
            eprintln!(
                "no checkpoint at {} yet: starting a new run",
                path.display()
            );
            None
        }
        _ => None,
    };
    let algorithm = match (&checkpoint, requested) {
        (Some(c), _) => c.algorithm(),
        (None, Some(a)) => a,
        (None, None) => Algorithm::parse("cfr+", params)?,
    };
    let game = args.game;
    let limit = max_bytes(args.max_memory_gb);
    let wants_tree = algorithm.needs_tree()
        || with_game!(&game, g => estimate_histories(g, 256, 0)) <= EVAL_TREE_HISTORIES;
    let tree: Option<GameTree> = if wants_tree {
        match compile(&game, limit) {
            Ok((t, _)) => Some(t),
            Err(e) if algorithm.needs_tree() => return Err(e.into()),
            Err(_) => None,
        }
    } else {
        None
    };
    if args.plot.is_some() && tree.is_none() {
        bail!(
            "--plot draws exact exploitability, which {game} is too large to compute; train without --plot"
        );
    }
    let workers = rayon::current_num_threads();
    let mut trainer = match checkpoint {
        Some(c) => Trainer::resume(game, tree.as_ref(), c, requested)?,
        None => Trainer::new(game, tree.as_ref(), algorithm, args.seed, workers)?,
    };
    let target = args.iterations;
    let batch = trainer.batch_size();
    let eval_every = args
        .eval_every
        .unwrap_or((target / 10).max(1))
        .max(1)
        .div_ceil(batch)
        * batch;

    let interrupted = interrupt_flag();
    let progress = bar(target);
    progress.set_position(trainer.iteration().min(target));
    if trainer.iteration() == 0 && trainer.has_tree() {
        trainer.evaluate()?;
    }
    let mut chunk = batch;
    while trainer.iteration() < target && !interrupted.load(Ordering::SeqCst) {
        let it = trainer.iteration();
        let next_eval = (it / eval_every + 1) * eval_every;
        let n = chunk.min(next_eval - it).min(target - it);
        let start = Instant::now();
        trainer.run(n);
        // Aim at about four progress updates a second.
        let secs = start.elapsed().as_secs_f64();
        if secs < 0.1 {
            chunk = (chunk * 2).min(eval_every);
        } else if secs > 0.5 && chunk > batch {
            chunk = (chunk / 2).div_ceil(batch) * batch;
        }
        progress.set_position(trainer.iteration());
        if trainer.iteration() % eval_every == 0 || trainer.iteration() == target {
            if let Some(e) = trainer.evaluate()? {
                progress.set_message(format!("exploitability {:.3e}", e.exploitability));
            }
            if let Some(path) = &args.checkpoint {
                trainer.checkpoint().save(path)?;
            }
        }
    }
    progress.finish_and_clear();
    if let Some(path) = &args.checkpoint {
        trainer.checkpoint().save(path)?;
    }
    if interrupted.load(Ordering::SeqCst) {
        let saved = match &args.checkpoint {
            Some(p) => format!(
                "; the checkpoint {} holds it: rerun with --resume to continue",
                p.display()
            ),
            None => "; use --checkpoint FILE --resume to make runs resumable".to_string(),
        };
        bail!("interrupted at iteration {}{saved}", trainer.iteration());
    }
    let e = trainer.evaluate()?;
    let policy = trainer.policy();
    let path = args
        .out
        .clone()
        .unwrap_or_else(|| default_policy_path(&game, algorithm.name(), policy_is_large(&policy)));
    policy.save(&path)?;
    if let Some(plot) = &args.plot {
        crate::plot::convergence(
            plot,
            &game.game_string(),
            algorithm.name(),
            trainer.history(),
        )?;
    }
    report(
        &args,
        &trainer,
        e.map(|e| (e.exploitability, e.value_p0)),
        &path,
    )
}

fn report(
    args: &TrainArgs,
    trainer: &Trainer,
    eval: Option<(f64, f64)>,
    path: &Path,
) -> Result<()> {
    let game = args.game.game_string();
    let algo = trainer.algorithm().name();
    if args.json {
        let json = serde_json::json!({
            "game": game,
            "algo": algo,
            "iterations": trainer.iteration(),
            "exploitability": eval.map(|e| e.0),
            "value_p0": eval.map(|e| e.1),
            "seconds": trainer.seconds(),
            "policy": path.display().to_string(),
        });
        outln!("{json}");
        return Ok(());
    }
    outln!("game             {game}");
    outln!("algorithm        {algo}");
    outln!("iterations       {}", trainer.iteration());
    match eval {
        Some((e, v)) => {
            outln!("exploitability   {e:.6e}");
            outln!("value for p0     {v:.6}");
        }
        None => outln!("exploitability   not computed: the game tree is too large"),
    }
    outln!("seconds          {:.3}", trainer.seconds());
    outln!("policy           {}", path.display());
    if let Some(plot) = &args.plot {
        outln!("plot             {}", plot.display());
    }
    Ok(())
}
