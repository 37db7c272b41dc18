//! `darkhex train --algo deep-cfr`: a Deep CFR run with a progress bar, and
//! the exact exploitability of the learned policy where the tree compiles,
//! and the policy networks saved as a model file (`darkhex-model`).

use anyhow::Result;
use darkhex_algorithms::cfr::deep_cfr::{DeepCfrSettings, DeepCfrSolver};
use darkhex_algorithms::cfr::training::DeepCheckpoint;
use darkhex_algorithms::driver::trainers::DeepCfr;
use darkhex_algorithms::rl::exact::ExactEvaluator;
use darkhex_algorithms::tree::estimate_histories;
use darkhex_games::{Game, with_game};

use crate::output::outln;
use crate::progress::compile;
use crate::run_flags::NetworkRun;
use crate::train_loop::{print_summary, refuse_conflict, train};

/// What a Deep CFR run takes from the command line.
pub struct DeepArgs {
    /// Its evaluation is its own: once at the end where the tree compiles.
    pub run: NetworkRun,
    pub settings: DeepCfrSettings,
    /// The options of `settings` given on the command line: a resumed run
    /// refuses those that differ from its checkpoint's.
    pub given: Vec<&'static str>,
    pub eval_histories: f64,
}

pub fn run(a: DeepArgs) -> Result<()> {
    let r = &a.run;
    let target = a.settings.iterations;
    let resumed = r.resumed(|path| Ok(DeepCheckpoint::load_for(path, &r.game)?))?;
    let resuming = resumed.is_some();
    let (solver, earlier) = match resumed {
        Some(c) => {
            refuse_conflicts(&a.given, &a.settings, &c.deep_cfr.settings)?;
            eprintln!(
                "resuming at iteration {} with the checkpoint's settings",
                c.deep_cfr.iteration
            );
            (
                DeepCfrSolver::resume(r.game, c.deep_cfr, target)?,
                c.seconds,
            )
        }
        None => (DeepCfrSolver::new(r.game, a.settings)?, 0.0),
    };
    // The reservoirs fill as the run goes: their full size is refused now.
    solver.settings().check_memory(&r.game, r.limit)?;
    // The exploitability of the end, where the tree compiles.
    let fits = with_game!(&r.game, g => estimate_histories(g, 256, 0)) <= a.eval_histories;
    let evaluator = match fits.then(|| compile(&r.game, r.limit)) {
        Some(Ok((tree, _))) => Some(ExactEvaluator::Tree(Box::new(tree))),
        _ => None,
    };
    // A resumed solver carries the whole run's traversal and node counts
    // but only this session's times: a rate takes both from this session.
    let before = solver.stats();
    let mut run = DeepCfr::new(solver, r.game);
    let o = train(
        &mut run,
        r.loop_args((evaluator, None), earlier, Vec::new()),
    )?;
    let solver = &run.solver;
    let eval = o.last.map(|p| (p.exploitability, p.value_p0));
    let (seconds, session_seconds, before_iteration) = (o.seconds, o.session, o.before);
    let stats = solver.stats();
    let session_traversals = stats.traversals - before.traversals;
    let rate = session_traversals as f64 / stats.traversal_time.as_secs_f64().max(1e-9);
    let game = r.game.game_string();
    if r.flags.json {
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
            "policy": r.out.display().to_string(),
        });
        outln!("{json}");
        return Ok(());
    }
    print_summary(
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
    outln!("policy           {} (a model)", r.out.display());
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
        refuse_conflict(name, &value(asked), &value(held))?;
    }
    Ok(())
}
