//! `darkhex train --algo escher`: an ESCHER run with a progress bar over its
//! iterations, the exact exploitability of its average policy (the policy
//! networks fitted for the purpose) every `--eval-every` iterations, on the
//! compiled tree or by a streaming pass over the information-state tables,
//! checkpoints that resume bit for bit, and the policy networks saved as a
//! model file (`darkhex-model`).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use anyhow::{Result, bail};
use clap::Args;
use darkhex_algorithms::Exploitability;
use darkhex_algorithms::cfr::escher::{EscherCheckpoint, EscherSettings, EscherSolver};
use darkhex_algorithms::memory::MemoryLimit;
use darkhex_algorithms::rl::exact::{CurvePoint, ExactEvaluator};
use darkhex_algorithms::rl::pool::with_threads;
use darkhex_algorithms::stream::{PassOptions, StreamError};
use darkhex_games::{AnyGame, Game};

use crate::args::{number_in, whole};
use crate::checkpoint_clock::CheckpointClock;
use crate::interrupt::{self, Interrupted, Status};
use crate::output::outln;
use crate::progress::{bar, histories_bar};
use crate::train::resumed_checkpoint;

/// The options of `train` that only ESCHER takes.
#[derive(Args, Clone, Default)]
pub struct EscherOptions {
    /// escher: history-value trajectories per iteration, 1 to 1e7
    /// (default 1000; --traversals counts each player's regret ones)
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>(1, Some(10_000_000)))]
    pub value_traversals: Option<u32>,
    /// escher: Adam steps of the history value network's fit each
    /// iteration, 1 to 1e6 (default --fit-steps)
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>(1, Some(1_000_000)))]
    pub value_steps: Option<u32>,
    /// escher: the uniform policy's share in the value trajectories'
    /// sampling, 0 to 1 (default 0.01)
    #[arg(long, allow_negative_numbers = true, value_parser = number_in(0.0, 1.0, false))]
    pub value_exploration: Option<f64>,
}

impl EscherOptions {
    pub fn given(&self) -> Vec<&'static str> {
        let given = [
            ("--value-traversals", self.value_traversals.is_some()),
            ("--value-steps", self.value_steps.is_some()),
            ("--value-exploration", self.value_exploration.is_some()),
        ];
        given.iter().filter(|g| g.1).map(|g| g.0).collect()
    }
}

/// What an ESCHER run takes from the command line.
pub struct EscherArgs {
    pub game: AnyGame,
    pub settings: EscherSettings,
    /// The options of `settings` given on the command line: a resumed run
    /// refuses those that differ from its checkpoint's.
    pub given: Vec<&'static str>,
    pub out: PathBuf,
    pub checkpoint: Option<PathBuf>,
    pub resume: bool,
    pub json: bool,
    pub plot: Option<PathBuf>,
    pub eval_every: Option<u64>,
    pub no_eval: bool,
    pub time_limit: Option<f64>,
    pub threads: usize,
    pub limit: MemoryLimit,
}

/// What an evaluation gave.
enum Evaluation {
    Done(Exploitability, f64),
    Stopped,
}

fn evaluate(
    evaluator: &ExactEvaluator,
    solver: &mut EscherSolver,
    status: &Status,
    stop: &AtomicBool,
) -> Result<Evaluation> {
    let start = Instant::now();
    status.set(format!(
        "during the exact evaluation at iteration {} ({})",
        solver.iteration(),
        evaluator.method()
    ));
    solver.train_policy()?;
    let bar = match evaluator {
        ExactEvaluator::Tables(t) => Some(histories_bar(t.histories())),
        ExactEvaluator::Tree(_) => None,
    };
    let progress = |n: u64| {
        if let Some(b) = &bar {
            b.set_position(n);
        }
    };
    let options = PassOptions {
        progress: Some(&progress),
        stop: Some(stop),
        ..PassOptions::default()
    };
    let result = evaluator.evaluate(solver.model()?, &options);
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    match result {
        Ok(e) => Ok(Evaluation::Done(e, start.elapsed().as_secs_f64())),
        Err(darkhex_algorithms::rl::exact::ExactError::Stream(StreamError::Stopped)) => {
            Ok(Evaluation::Stopped)
        }
        Err(e) => Err(e.into()),
    }
}

pub fn run(a: EscherArgs) -> Result<()> {
    with_threads(a.threads, || run_on_pool(a))
}

fn run_on_pool(a: EscherArgs) -> Result<()> {
    let target = a.settings.iterations;
    let resumed = resumed_checkpoint(&a.checkpoint, a.resume, |path| {
        Ok(EscherCheckpoint::load_for(path, &a.game)?)
    })?;
    let resuming = resumed.is_some();
    let (mut solver, earlier, mut curve) = match resumed {
        Some(c) => {
            refuse_conflicts(&a.given, &a.settings, &c.escher.settings)?;
            eprintln!(
                "resuming at iteration {} with the checkpoint's settings",
                c.escher.iteration
            );
            (
                EscherSolver::resume(a.game, c.escher, target)?,
                c.seconds,
                c.curve,
            )
        }
        None => (EscherSolver::new(a.game, a.settings)?, 0.0, Vec::new()),
    };
    solver.settings().check_memory(&a.game, a.limit)?;
    let evaluator = if a.no_eval {
        None
    } else {
        crate::train_rl::evaluator(&a.game, a.limit)?
    };
    if a.plot.is_some() && evaluator.is_none() {
        bail!(
            "--plot draws exact exploitability, which {} is too large to compute; train without --plot",
            a.game
        );
    }
    // By default ten times a run on the compiled tree, and only at the end
    // over the tables (a pass takes minutes).
    let every = a.eval_every.or(match &evaluator {
        Some(ExactEvaluator::Tree(_)) => Some((target / 10).max(1)),
        _ => None,
    });
    let interrupted = interrupt::flag();
    let status = Status::default();
    let progress = bar(target);
    progress.set_position(solver.iteration());
    let start = Instant::now();
    let before = solver.stats();
    let before_iteration = solver.iteration();
    let out_of_time = || {
        a.time_limit
            .is_some_and(|limit| start.elapsed().as_secs_f64() >= limit)
    };
    // Training seconds of this session, evaluations excluded.
    let mut training = 0.0f64;
    let save = |solver: &EscherSolver, curve: &[CurvePoint], training: f64| -> Result<()> {
        if let Some(path) = &a.checkpoint {
            status.set("while writing the checkpoint");
            EscherCheckpoint::new(&a.game, solver.state(), earlier + training, curve.to_vec())
                .save(path)?;
        }
        Ok(())
    };
    let saved = |at: u64| match &a.checkpoint {
        Some(p) => format!("the checkpoint {} holds iteration {at}", p.display()),
        None => "nothing was saved: --checkpoint FILE makes runs resumable".to_string(),
    };
    let mut clock = CheckpointClock::start();
    let mut last_saved = solver.iteration();
    let stop = || interrupted.load(Ordering::SeqCst);
    let mut stopped_in_eval = false;
    while solver.iteration() < target && !out_of_time() && !stop() {
        status.set(format!(
            "at iteration {} of escher ({})",
            solver.iteration() + 1,
            saved(last_saved)
        ));
        let t = Instant::now();
        solver.iterate()?;
        training += t.elapsed().as_secs_f64();
        progress.set_position(solver.iteration());
        let due = every.is_some_and(|k| solver.iteration() % k == 0) && solver.iteration() < target;
        if let (true, Some(ev)) = (due, &evaluator) {
            match evaluate(ev, &mut solver, &status, &interrupted)? {
                Evaluation::Done(e, took) => {
                    progress.set_message(format!("exploitability {:.4}", e.exploitability));
                    curve.push(point(&solver, earlier + training, &e, took));
                }
                Evaluation::Stopped => {
                    stopped_in_eval = true;
                    break;
                }
            }
            if a.checkpoint.is_some() {
                clock.save(|| save(&solver, &curve, training))?;
                last_saved = solver.iteration();
            }
        } else if a.checkpoint.is_some() && clock.due() {
            clock.save(|| save(&solver, &curve, training))?;
            last_saved = solver.iteration();
        }
    }
    progress.finish_and_clear();
    if stop() {
        save(&solver, &curve, training)?;
        let during = if stopped_in_eval {
            " during an exact evaluation"
        } else {
            ""
        };
        return Err(Interrupted(format!(
            "interrupted at iteration {}{during}: {}\n{}",
            solver.iteration(),
            saved(solver.iteration()),
            match &a.checkpoint {
                Some(p) => format!("rerun with --resume to continue from {}", p.display()),
                None => "use --checkpoint FILE --resume to make runs resumable".to_string(),
            }
        ))
        .into());
    }
    if solver.iteration() < target {
        eprintln!(
            "time limit reached: stopped at iteration {} of {target}",
            solver.iteration()
        );
    }
    save(&solver, &curve, training)?;
    status.set("while fitting escher's policy networks (the model is not written yet)");
    solver.train_policy()?;
    solver.model()?.save(&a.out, solver.provenance(None))?;
    let last = match (&evaluator, curve.last()) {
        (_, Some(p)) if p.steps == solver.iteration() => Some(*p),
        (Some(ev), _) => match evaluate(ev, &mut solver, &status, &interrupted)? {
            Evaluation::Done(e, took) => {
                let p = point(&solver, earlier + training, &e, took);
                curve.push(p);
                save(&solver, &curve, training)?;
                Some(p)
            }
            Evaluation::Stopped => {
                return Err(Interrupted(format!(
                    "interrupted during the final evaluation, at iteration {}: the model is in {}, its exploitability was not computed (`darkhex exploit GAME {}` computes it)",
                    solver.iteration(),
                    a.out.display(),
                    a.out.display()
                ))
                .into());
            }
        },
        (None, _) => None,
    };
    // A signal from here on ends the process at once: everything is saved.
    interrupt::exit_saying(&status);
    status.set("while writing the model");
    let exploitability = last.map(|p| p.exploitability);
    solver
        .model()?
        .save(&a.out, solver.provenance(exploitability))?;
    if let Some(plot) = &a.plot {
        let points: Vec<(f64, f64, f64)> = curve
            .iter()
            .map(|p| (p.steps as f64, p.seconds, p.exploitability))
            .collect();
        crate::plot::curve(plot, &a.game.game_string(), "escher", "iterations", &points)?;
    }
    let seconds = earlier + training;
    let stats = solver.stats();
    let session_traversals = stats.traversals - before.traversals;
    let rate = session_traversals as f64 / stats.traversal_time.as_secs_f64().max(1e-9);
    let game = a.game.game_string();
    if a.json {
        let (regrets, policies) = solver.reservoirs(0);
        let json = serde_json::json!({
            "game": game,
            "algo": "escher",
            "iterations": solver.iteration(),
            "exploitability": exploitability,
            "value_p0": last.map(|p| p.value_p0),
            "seconds": seconds,
            "traversals": stats.traversals,
            "nodes": stats.nodes,
            "session": {
                "iterations": solver.iteration() - before_iteration,
                "seconds": training,
                "traversals": session_traversals,
                "traversals_per_second": rate,
                "traversal_seconds": stats.traversal_time.as_secs_f64(),
                "fit_seconds": stats.fit_time.as_secs_f64(),
            },
            "threads": rayon::current_num_threads(),
            "regret_samples_p0": regrets.items().len(),
            "policy_samples_p0": policies.items().len(),
            "value_samples": stats.value_samples,
            "settings": solver.settings(),
            "curve": curve,
            "policy": a.out.display().to_string(),
        });
        outln!("{json}");
        return Ok(());
    }
    let eval = last.map(|p| (p.exploitability, p.value_p0));
    let too_large = if a.no_eval {
        " (--no-eval)"
    } else {
        " (`darkhex exploit GAME MODEL` computes it by a streaming pass where the tables fit)"
    };
    crate::train::print_summary(&game, "escher", solver.iteration(), eval, too_large)?;
    let times = format!(
        "{:.3} traversing, {:.3} fitting networks",
        stats.traversal_time.as_secs_f64(),
        stats.fit_time.as_secs_f64()
    );
    let whole = if resuming {
        format!(" in the whole run; this session {training:.3}")
    } else {
        String::new()
    };
    outln!("trajectories     {} ({rate:.0} a second)", stats.traversals);
    outln!("seconds          {seconds:.3}{whole} ({times})");
    outln!("policy           {} (a model)", a.out.display());
    if let Some(plot) = &a.plot {
        outln!("plot             {}", plot.display());
    }
    Ok(())
}

fn point(solver: &EscherSolver, seconds: f64, e: &Exploitability, took: f64) -> CurvePoint {
    CurvePoint {
        steps: solver.iteration(),
        seconds,
        exploitability: e.exploitability,
        value_p0: e.value_p0,
        eval_seconds: took,
    }
}

/// Refuses a resumed run whose command line gives a setting other than
/// the checkpoint's.
fn refuse_conflicts(given: &[&str], asked: &EscherSettings, held: &EscherSettings) -> Result<()> {
    for &name in given {
        if name == "--preset" {
            if asked.with_iterations(0) != held.with_iterations(0) {
                bail!("the checkpoint's settings are not the preset's; resume it without --preset");
            }
            continue;
        }
        let value = |s: &EscherSettings| match name {
            "--traversals" => s.regret_traversals.to_string(),
            "--value-traversals" => s.value_traversals.to_string(),
            "--value-exploration" => s.value_exploration.to_string(),
            "--advantage-capacity" => s.regret_capacity.to_string(),
            "--strategy-capacity" => s.policy_capacity.to_string(),
            "--hidden" => format!("{:?}", s.regret_network.hidden),
            "--fit-steps" => s.regret_network.steps.to_string(),
            "--value-steps" => s.value_network.steps.to_string(),
            "--policy-steps" => s.policy_network.steps.to_string(),
            "--batch-size" => s.regret_network.batch.to_string(),
            "--learning-rate" => s.regret_network.learning_rate.to_string(),
            "--seed" => s.seed.to_string(),
            _ => String::new(),
        };
        crate::train::refuse_conflict(name, &value(asked), &value(held))?;
    }
    Ok(())
}
