//! `darkhex train --algo deep-cfr`: a Deep CFR run with a progress bar, and
//! the exact exploitability of the learned policy where the tree compiles,
//! and the policy networks saved as a model file (`darkhex-model`).

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::Instant;

use anyhow::Result;
use darkhex_algorithms::cfr::deep_cfr::{DeepCfrSettings, DeepCfrSolver, DeepCheckpoint};
use darkhex_algorithms::exploitability;
use darkhex_algorithms::memory::MemoryLimit;
use darkhex_algorithms::tree::estimate_histories;
use darkhex_games::{AnyGame, Game, with_game};

use crate::checkpoint_clock::CheckpointClock;
use crate::interrupt::{self, Interrupted};
use crate::output::outln;
use crate::progress::{bar, compile};
use crate::train::resumed_checkpoint;

/// What a Deep CFR run takes from the command line.
pub struct DeepArgs {
    pub game: AnyGame,
    pub settings: DeepCfrSettings,
    /// The options of `settings` given on the command line: a resumed run
    /// refuses those that differ from its checkpoint's.
    pub given: Vec<&'static str>,
    /// Where the model goes.
    pub out: PathBuf,
    pub checkpoint: Option<PathBuf>,
    /// Continue from the checkpoint if it exists.
    pub resume: bool,
    pub json: bool,
    pub time_limit: Option<f64>,
    pub limit: MemoryLimit,
    pub eval_histories: f64,
}

pub fn run(a: DeepArgs) -> Result<()> {
    let target = a.settings.iterations;
    let resumed = resumed_checkpoint(&a.checkpoint, a.resume, |path| {
        Ok(DeepCheckpoint::load_for(path, &a.game)?)
    })?;
    let resuming = resumed.is_some();
    let (mut solver, earlier) = match resumed {
        Some(c) => {
            refuse_conflicts(&a.given, &a.settings, &c.deep_cfr.settings)?;
            eprintln!(
                "resuming at iteration {} with the checkpoint's settings",
                c.deep_cfr.iteration
            );
            (
                DeepCfrSolver::resume(a.game, c.deep_cfr, target)?,
                c.seconds,
            )
        }
        None => (DeepCfrSolver::new(a.game, a.settings)?, 0.0),
    };
    // The reservoirs fill as the run goes: their full size is refused now.
    solver.settings().check_memory(&a.game, a.limit)?;
    // The first signal stops after the iteration under way, which is then
    // saved; a second ends the process at once.
    let interrupted = interrupt::flag();
    let status = interrupt::Status::default();
    let progress = bar(target);
    progress.set_position(solver.iteration());
    let start = Instant::now();
    // A resumed solver carries the whole run's traversal and node counts
    // but only this session's times: a rate takes both from this session.
    let before = solver.stats();
    let before_iteration = solver.iteration();
    let out_of_time = || {
        a.time_limit
            .is_some_and(|limit| start.elapsed().as_secs_f64() >= limit)
    };
    let save = |solver: &DeepCfrSolver| -> Result<()> {
        if let Some(path) = &a.checkpoint {
            status.set("while writing the checkpoint");
            let seconds = earlier + start.elapsed().as_secs_f64();
            DeepCheckpoint::new(&a.game, solver.state(), seconds).save(path)?;
        }
        Ok(())
    };
    let mut clock = CheckpointClock::start();
    let saved = |at: u64| match &a.checkpoint {
        Some(p) => format!("the checkpoint {} holds iteration {at}", p.display()),
        None => "nothing was saved: --checkpoint FILE makes runs resumable".to_string(),
    };
    let mut last_saved = solver.iteration();
    let stop = || interrupted.load(Ordering::SeqCst);
    while solver.iteration() < target && !out_of_time() && !stop() {
        status.set(format!(
            "at iteration {} of deep-cfr ({})",
            solver.iteration() + 1,
            saved(last_saved)
        ));
        solver.iterate()?;
        progress.set_position(solver.iteration());
        if a.checkpoint.is_some() && clock.due() {
            clock.save(|| save(&solver))?;
            last_saved = solver.iteration();
        }
    }
    progress.finish_and_clear();
    if stop() {
        save(&solver)?;
        return Err(Interrupted(format!(
            "interrupted at iteration {}: {}\n{}",
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
    save(&solver)?;
    // A signal from here on ends the process at once, saying what was
    // under way: the checkpoint holds every iteration.
    interrupt::exit_saying(&status);
    status.set("while fitting deep-cfr's policy networks (the model is not written yet)");
    solver.train_policy()?;
    // The session's time and the whole run's end at the same instant: the
    // run's is the checkpoints' clock, which stops before the evaluation.
    let session_seconds = start.elapsed().as_secs_f64();
    let seconds = earlier + session_seconds;
    status.set("during the exploitability of deep-cfr's policy");
    let fits = with_game!(&a.game, g => estimate_histories(g, 256, 0)) <= a.eval_histories;
    let eval = match fits.then(|| compile(&a.game, a.limit)) {
        Some(Ok((tree, _))) => {
            let e = exploitability(&tree, &solver.model()?.tree_policy(&tree)?);
            Some((e.exploitability, e.value_p0))
        }
        _ => None,
    };
    status.set("while writing the model");
    let model = solver.model()?;
    model.save(&a.out, solver.provenance(eval.map(|e| e.0)))?;
    let stats = solver.stats();
    let session_traversals = stats.traversals - before.traversals;
    let rate = session_traversals as f64 / stats.traversal_time.as_secs_f64().max(1e-9);
    let game = a.game.game_string();
    if a.json {
        let (advantages, strategies) = solver.reservoirs(0);
        let json = serde_json::json!({
            "game": game,
            "algo": "deep-cfr",
            "iterations": solver.iteration(),
            "exploitability": eval.map(|e| e.0),
            "value_p0": eval.map(|e| e.1),
            "seconds": seconds,
            "traversals": stats.traversals,
            "nodes": stats.nodes,
            "session": {
                "iterations": solver.iteration() - before_iteration,
                "seconds": session_seconds,
                "traversals": session_traversals,
                "nodes": stats.nodes - before.nodes,
                "traversals_per_second": rate,
                "network_calls": stats.network_calls,
                "traversal_seconds": stats.traversal_time.as_secs_f64(),
                "fit_seconds": stats.fit_time.as_secs_f64(),
            },
            "advantage_samples_p0": advantages.items().len(),
            "strategy_samples_p0": strategies.items().len(),
            "policy": a.out.display().to_string(),
        });
        outln!("{json}");
        return Ok(());
    }
    crate::train::print_summary(
        &game,
        "deep-cfr",
        solver.iteration(),
        eval,
        " (`darkhex exploit GAME MODEL` computes it by a streaming pass where the tables fit)",
    )?;
    let times = format!(
        "{:.3} traversing, {:.3} fitting networks",
        stats.traversal_time.as_secs_f64(),
        stats.fit_time.as_secs_f64()
    );
    if resuming {
        outln!(
            "traversals       {} in the whole run; this session {session_traversals} ({rate:.0} a second, {} network calls)",
            stats.traversals,
            stats.network_calls
        );
        outln!(
            "seconds          {seconds:.3} in the whole run; this session {session_seconds:.3} ({times})"
        );
    } else {
        outln!(
            "traversals       {} ({rate:.0} a second, {} network calls)",
            stats.traversals,
            stats.network_calls
        );
        outln!("seconds          {seconds:.3} ({times})");
    }
    outln!("policy           {} (a model)", a.out.display());
    Ok(())
}

/// Refuses a resumed run whose command line gives a setting other than
/// the checkpoint's: the run would otherwise go on with the checkpoint's
/// and the option would be silently ignored.
fn refuse_conflicts(given: &[&str], asked: &DeepCfrSettings, held: &DeepCfrSettings) -> Result<()> {
    let hidden = |s: &DeepCfrSettings| {
        let widths: Vec<String> = s
            .advantage_network
            .hidden
            .iter()
            .filter(|&&h| h > 0)
            .map(u32::to_string)
            .collect();
        widths.join(",")
    };
    for &name in given {
        let value = |s: &DeepCfrSettings| match name {
            "--traversals" => s.traversals.to_string(),
            "--explore" => s.explored_actions.to_string(),
            "--advantage-capacity" => s.advantage_capacity.to_string(),
            "--strategy-capacity" => s.strategy_capacity.to_string(),
            "--hidden" => hidden(s),
            "--fit-steps" => s.advantage_network.steps.to_string(),
            "--policy-steps" => s.policy_network.steps.to_string(),
            "--batch-size" => s.advantage_network.batch.to_string(),
            "--learning-rate" => s.advantage_network.learning_rate.to_string(),
            "--seed" => s.seed.to_string(),
            _ => String::new(),
        };
        crate::train::refuse_conflict(name, &value(asked), &value(held))?;
    }
    Ok(())
}
