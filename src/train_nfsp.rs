//! `darkhex train --algo nfsp`: neural fictitious self-play (one game at
//! a time, each agent a DQN best responder and an average network) on the
//! shared training loop: progress over its steps, the exact
//! exploitability of the average networks every `--eval-every` steps,
//! checkpoints that resume bit for bit, the average networks saved as a
//! model file (`darkhex-model`).

use anyhow::{Result, bail};
use clap::Args;
use darkhex_algorithms::driver::trainers::Nfsp;
use darkhex_algorithms::rl::checkpoint::NfspCheckpoint;
use darkhex_algorithms::rl::nfsp::{NfspSettings, NfspTrainer};
use darkhex_algorithms::rl::options::NfspOptions;
use darkhex_algorithms::rl::pool::with_threads;
use darkhex_algorithms::rl::ppo::hidden_text;
use darkhex_games::Game;

use crate::args::{interval, number_in, whole};
use crate::output::outln;
use crate::run_flags::NetworkRun;
use crate::train_loop::{Outcome, print_exploitability, refuse_conflict, train};

/// The options of `train` that only NFSP takes.
#[derive(Args, Clone, Default)]
pub struct NfspFlags {
    /// nfsp: the probability that a game is played by an agent's best
    /// responder rather than its average network (eta), 0 to 1 (default 0.1)
    #[arg(long, allow_negative_numbers = true, value_parser = number_in(0.0, 1.0, false))]
    pub anticipatory: Option<f64>,
    /// nfsp: the best responder's (DQN's) learning rate, more than 0 and
    /// at most 1 (default 0.01; --learning-rate is the average network's)
    #[arg(long, allow_negative_numbers = true, value_parser = interval(0.0, true, 1.0, false))]
    pub rl_learning_rate: Option<f64>,
    /// nfsp: transitions each best responder's replay buffer keeps, 1 to
    /// 1e9 (default 200000)
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>(1, Some(1_000_000_000)))]
    pub replay_capacity: Option<u32>,
}

impl NfspFlags {
    pub fn given(&self) -> Vec<&'static str> {
        let given = [
            ("--anticipatory", self.anticipatory.is_some()),
            ("--rl-learning-rate", self.rl_learning_rate.is_some()),
            ("--replay-capacity", self.replay_capacity.is_some()),
        ];
        given.iter().filter(|g| g.1).map(|g| g.0).collect()
    }
}

/// What an NFSP run takes from the command line.
pub struct NfspArgs {
    pub run: NetworkRun,
    pub options: NfspOptions,
    pub steps: u64,
    /// The options of the settings given: a resumed run refuses those
    /// that differ from its checkpoint's.
    pub named: Vec<&'static str>,
}

pub fn run(a: NfspArgs) -> Result<()> {
    with_threads(rayon::current_num_threads(), || run_on_pool(a))
}

fn run_on_pool(a: NfspArgs) -> Result<()> {
    let r = &a.run;
    let seed = r.flags.seed.unwrap_or(0);
    let asked = a.options.settings(&r.game, a.steps, seed)?;
    asked.check_memory(&r.game, r.limit)?;
    let resumed = r.resumed(|path| Ok(NfspCheckpoint::load_for(path, &r.game)?))?;
    let resuming = resumed.is_some();
    let (trainer, earlier, curve) = match resumed {
        Some(c) => {
            refuse_conflicts(&a, &asked, &c.nfsp.settings)?;
            c.nfsp.settings.check_memory(&r.game, r.limit)?;
            eprintln!(
                "resuming at step {} with the checkpoint's settings",
                c.nfsp.steps
            );
            (
                NfspTrainer::resume(r.game, c.nfsp, asked.steps)?,
                c.seconds,
                c.curve,
            )
        }
        None => (NfspTrainer::new(r.game, asked)?, 0.0, Vec::new()),
    };
    let evaluations = r.evaluations(trainer.settings().steps)?;
    let before_games = trainer.games();
    let mut run = Nfsp::new(trainer);
    let outcome = train(&mut run, r.loop_args(evaluations, earlier, curve))?;
    report(&a, &run.trainer, &outcome, before_games, resuming)
}

/// Refuses a resumed run whose command line gives a setting other than
/// the checkpoint's.
fn refuse_conflicts(a: &NfspArgs, asked: &NfspSettings, held: &NfspSettings) -> Result<()> {
    for &name in &a.named {
        if name == "--preset" {
            if asked.with_steps(0) != held.with_steps(0) {
                bail!("the checkpoint's settings are not the preset's; resume it without --preset");
            }
            continue;
        }
        let value = |s: &NfspSettings| match name {
            "--hidden" => hidden_text(&s.hidden),
            "--learning-rate" => s.sl_learning_rate.to_string(),
            "--batch-size" => s.batch_size.to_string(),
            "--strategy-capacity" => s.reservoir_buffer_capacity.to_string(),
            "--anticipatory" => s.anticipatory_param.to_string(),
            "--rl-learning-rate" => s.dqn.learning_rate.to_string(),
            "--replay-capacity" => s.dqn.replay_buffer_capacity.to_string(),
            "--seed" => s.seed.to_string(),
            _ => String::new(),
        };
        refuse_conflict(name, &value(asked), &value(held))?;
    }
    Ok(())
}

fn report(
    a: &NfspArgs,
    trainer: &NfspTrainer,
    o: &Outcome,
    before_games: u64,
    resuming: bool,
) -> Result<()> {
    let s = trainer.settings();
    let r = &a.run;
    let game = r.game.game_string();
    let session_steps = trainer.steps() - o.before;
    let rate = session_steps as f64 / o.session.max(1e-9);
    let last = o.last;
    if r.flags.json {
        let json = serde_json::json!({
            "game": game,
            "algo": "nfsp",
            "steps": trainer.steps(),
            "games": trainer.games(),
            "exploitability": last.map(|p| p.exploitability),
            "value_p0": last.map(|p| p.value_p0),
            "seconds": o.seconds,
            "session": {
                "steps": session_steps,
                "games": trainer.games() - before_games,
                "seconds": o.session,
                "steps_per_second": rate,
            },
            "threads": rayon::current_num_threads(),
            "settings": s,
            "curve": o.curve,
            "policy": r.out.display().to_string(),
        });
        outln!("{json}");
        return Ok(());
    }
    outln!("game             {game}");
    outln!("algorithm        nfsp");
    outln!(
        "steps            {} ({} games)",
        trainer.steps(),
        trainer.games()
    );
    print_exploitability(last, r.no_eval)?;
    let whole = if resuming {
        format!(" in the whole run; this session {:.3}", o.session)
    } else {
        String::new()
    };
    outln!(
        "seconds          {:.3}{whole} ({rate:.0} steps a second)",
        o.seconds
    );
    outln!(
        "network          {} for each agent's best responder and average network",
        hidden_text(&s.hidden)
    );
    outln!("policy           {} (a model)", r.out.display());
    if let Some(plot) = &r.flags.plot {
        outln!("plot             {}", plot.display());
    }
    Ok(())
}
