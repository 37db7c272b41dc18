//! `darkhex train --algo escher`: an ESCHER run with a progress bar over its
//! iterations, the exact exploitability of its average policy (the policy
//! networks fitted for the purpose) every `--eval-every` iterations, on the
//! compiled tree or by a streaming pass over the information-state tables,
//! checkpoints that resume bit for bit, and the policy networks saved as a
//! model file (`darkhex-model`).

use anyhow::{Result, bail};
use clap::Args;
use darkhex_algorithms::cfr::escher::{EscherCheckpoint, EscherSettings, EscherSolver};
use darkhex_algorithms::driver::trainers::Escher;
use darkhex_algorithms::rl::pool::with_threads;
use darkhex_games::Game;

use crate::args::{number_in, whole};
use crate::output::outln;
use crate::run_flags::NetworkRun;
use crate::train_loop::{print_summary, refuse_conflict, train};

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
    pub run: NetworkRun,
    pub settings: EscherSettings,
    /// The options of `settings` given on the command line: a resumed run
    /// refuses those that differ from its checkpoint's.
    pub given: Vec<&'static str>,
}

pub fn run(a: EscherArgs) -> Result<()> {
    with_threads(rayon::current_num_threads(), || run_on_pool(a))
}

fn run_on_pool(a: EscherArgs) -> Result<()> {
    let r = &a.run;
    let target = a.settings.iterations;
    let resumed = r.resumed(|path| Ok(EscherCheckpoint::load_for(path, &r.game)?))?;
    let resuming = resumed.is_some();
    let (solver, earlier, curve) = match resumed {
        Some(c) => {
            refuse_conflicts(&a.given, &a.settings, &c.escher.settings)?;
            eprintln!(
                "resuming at iteration {} with the checkpoint's settings",
                c.escher.iteration
            );
            (
                EscherSolver::resume(r.game, c.escher, target)?,
                c.seconds,
                c.curve,
            )
        }
        None => (EscherSolver::new(r.game, a.settings)?, 0.0, Vec::new()),
    };
    solver.settings().check_memory(&r.game, r.limit)?;
    let evaluations = r.evaluations(target)?;
    let before = solver.stats();
    let mut run = Escher {
        solver,
        game: r.game,
    };
    let o = train(&mut run, r.loop_args(evaluations, earlier, curve))?;
    let solver = &run.solver;
    let (curve, last, training) = (&o.curve, o.last, o.session);
    let exploitability = last.map(|p| p.exploitability);
    let before_iteration = o.before;
    let seconds = earlier + training;
    let stats = solver.stats();
    let session_traversals = stats.traversals - before.traversals;
    let rate = session_traversals as f64 / stats.traversal_time.as_secs_f64().max(1e-9);
    let game = r.game.game_string();
    if r.flags.json {
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
            "policy": r.out.display().to_string(),
        });
        outln!("{json}");
        return Ok(());
    }
    let eval = last.map(|p| (p.exploitability, p.value_p0));
    let too_large = if r.no_eval {
        " (--no-eval)"
    } else {
        " (`darkhex exploit GAME MODEL` computes it by a streaming pass where the tables fit)"
    };
    print_summary(&game, "escher", solver.iteration(), eval, too_large)?;
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
    outln!("policy           {} (a model)", r.out.display());
    if let Some(plot) = &r.flags.plot {
        outln!("plot             {}", plot.display());
    }
    Ok(())
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
        refuse_conflict(name, &value(asked), &value(held))?;
    }
    Ok(())
}
