//! `darkhex train --algo ppo|mmd`: a PPO or MMD run in self-play with a
//! progress bar over its steps, the exact exploitability of its network
//! every `--eval-every` steps (on the compiled tree, or by a streaming pass
//! over the information-state tables past it), checkpoints that resume bit
//! for bit, and the network saved as a model file (`darkhex-model`).

use anyhow::{Result, bail};
use clap::Args;
use darkhex_algorithms::driver::trainers::Ppo;
use darkhex_algorithms::fa::mlp::MAX_HIDDEN;
use darkhex_algorithms::rl::checkpoint::RlCheckpoint;
use darkhex_algorithms::rl::mmd::Schedule;
use darkhex_algorithms::rl::options::PpoOptions;
use darkhex_algorithms::rl::pool::with_threads;
use darkhex_algorithms::rl::ppo::{PpoSettings, PpoTrainer, hidden_text};
use darkhex_algorithms::rl::presets;
use darkhex_games::Game;

use crate::args::{interval, number_in, whole};
use crate::output::outln;
use crate::run_flags::NetworkRun;
use crate::train_loop::{DEFAULT_STEPS, Outcome, print_exploitability, refuse_conflict, train};

/// The options of `train` that only PPO and MMD take.
#[derive(Args, Clone, Default)]
pub struct RlOptions {
    /// ppo, mmd and nfsp: steps to train for, an action in one game each
    /// (the benchmark's max_steps; the last update or game may pass it);
    /// default 1e6
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>(1, Some(100_000_000_000)))]
    pub steps: Option<u64>,
    /// ppo, mmd, nfsp and escher: take the settings of a named preset, then
    /// any option given: rudolph2026 is Rudolph et al.'s best
    /// hyper-parameters for the game and method (ICLR 2026; classic and
    /// abrupt 3x3 Dark Hex), with their network (3 layers of 512)
    #[arg(long, value_parser = presets::NAMES)]
    pub preset: Option<String>,
    /// ppo and mmd: games played at once, 1 to 65536 (default 8)
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>(1, Some(65_536)))]
    pub num_envs: Option<u32>,
    /// ppo and mmd: steps of each game between updates, 1 to 65536 (default 128)
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>(1, Some(65_536)))]
    pub rollout_steps: Option<u32>,
    /// ppo and mmd: minibatches an update's rollout is cut into, 1 to
    /// 65536 (default 4)
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>(1, Some(65_536)))]
    pub minibatches: Option<u32>,
    /// ppo and mmd: passes over the rollout per update, 1 to 1000 (default 4)
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>(1, Some(1000)))]
    pub epochs: Option<u32>,
    /// ppo and mmd: the clip coefficient of the surrogate objective and the
    /// value loss, 0 to 10 (default 0.1)
    #[arg(long, allow_negative_numbers = true, value_parser = number_in(0.0, 10.0, false))]
    pub clip: Option<f64>,
    /// ppo and mmd: the entropy bonus's weight (MMD: the uniform magnet's),
    /// 0 to 100 (default 0.05)
    #[arg(long, allow_negative_numbers = true, value_parser = number_in(0.0, 100.0, false))]
    pub ent_coef: Option<f64>,
    /// ppo and mmd: the value loss's weight, 0 to 100 (default 0.5)
    #[arg(long, allow_negative_numbers = true, value_parser = number_in(0.0, 100.0, false))]
    pub vf_coef: Option<f64>,
    /// mmd: the weight of the reverse KL from the policy that collected the
    /// rollout, 0 to 100 (default 0.05)
    #[arg(long, allow_negative_numbers = true, value_parser = number_in(0.0, 100.0, false))]
    pub kl_coef: Option<f64>,
    /// mmd: the magnet and KL weights' schedule: constant (default, the
    /// benchmark's) or annealed (times sqrt(steps / (t + 1000)) at step t)
    #[arg(long, value_parser = Schedule::NAMES)]
    pub mmd_schedule: Option<String>,
    /// ppo and mmd: the discount of GAE, 0 to 1 (default 0.99)
    #[arg(long, allow_negative_numbers = true, value_parser = number_in(0.0, 1.0, false))]
    pub discount: Option<f64>,
    /// ppo and mmd: GAE's lambda, 0 to 1 (default 0.95)
    #[arg(long, allow_negative_numbers = true, value_parser = number_in(0.0, 1.0, false))]
    pub gae_lambda: Option<f64>,
    /// ppo and mmd: the gradient's norm is clipped to this, more than 0
    /// and at most 1e6 (default 0.5)
    #[arg(long, allow_negative_numbers = true, value_parser = interval(0.0, true, 1e6, false))]
    pub max_grad_norm: Option<f64>,
    /// ppo and mmd: stop an update's epochs once the approximate KL from
    /// the rollout's policy passes this, more than 0 (default: never)
    #[arg(long, allow_negative_numbers = true, value_parser = interval(0.0, true, 1e6, false))]
    pub target_kl: Option<f64>,
    /// ppo and mmd: keep the learning rate constant instead of annealing it
    /// linearly to 0 over the run
    #[arg(long)]
    pub constant_lr: bool,
    /// ppo and mmd: leave each minibatch's advantages as they are instead
    /// of normalising them
    #[arg(long)]
    pub raw_advantages: bool,
    /// ppo, mmd, nfsp and escher: no exact evaluation at all (on 3x3 Dark Hex the tables
    /// take 20 to 30 s and 0.7 to 2.5 GB, an evaluation minutes)
    #[arg(long, conflicts_with_all = ["eval_every", "plot"])]
    pub no_eval: bool,
}

impl RlOptions {
    /// The options given, by name (a resumed run refuses those that differ).
    fn given(&self) -> Vec<&'static str> {
        let given = [
            ("--steps", self.steps.is_some()),
            ("--preset", self.preset.is_some()),
            ("--num-envs", self.num_envs.is_some()),
            ("--rollout-steps", self.rollout_steps.is_some()),
            ("--minibatches", self.minibatches.is_some()),
            ("--epochs", self.epochs.is_some()),
            ("--clip", self.clip.is_some()),
            ("--ent-coef", self.ent_coef.is_some()),
            ("--vf-coef", self.vf_coef.is_some()),
            ("--kl-coef", self.kl_coef.is_some()),
            ("--mmd-schedule", self.mmd_schedule.is_some()),
            ("--discount", self.discount.is_some()),
            ("--gae-lambda", self.gae_lambda.is_some()),
            ("--max-grad-norm", self.max_grad_norm.is_some()),
            ("--target-kl", self.target_kl.is_some()),
            ("--constant-lr", self.constant_lr),
            ("--raw-advantages", self.raw_advantages),
            ("--no-eval", self.no_eval),
        ];
        given.iter().filter(|g| g.1).map(|g| g.0).collect()
    }

    /// The first option given, for algorithms that take none of them.
    pub fn first_given(&self) -> Option<&'static str> {
        self.given().first().copied()
    }
}

/// What a PPO or MMD run takes from the command line.
pub struct RlArgs {
    pub run: NetworkRun,
    pub algorithm: &'static str,
    pub options: RlOptions,
    pub hidden: Option<[u32; MAX_HIDDEN]>,
    pub learning_rate: Option<f64>,
}

/// The settings the options and preset make.
fn settings(a: &RlArgs) -> Result<PpoSettings> {
    let o = &a.options;
    if a.algorithm == "ppo" && (o.kl_coef.is_some() || o.mmd_schedule.is_some()) {
        bail!("--kl-coef and --mmd-schedule apply to --algo mmd only");
    }
    let given = PpoOptions {
        preset: o.preset.clone(),
        num_envs: o.num_envs,
        num_steps: o.rollout_steps,
        num_minibatches: o.minibatches,
        update_epochs: o.epochs,
        learning_rate: a.learning_rate,
        clip_coef: o.clip,
        ent_coef: o.ent_coef,
        vf_coef: o.vf_coef,
        kl_coef: o.kl_coef,
        schedule: o.mmd_schedule.as_deref().and_then(Schedule::parse),
        gamma: o.discount,
        gae_lambda: o.gae_lambda,
        max_grad_norm: o.max_grad_norm,
        target_kl: o.target_kl,
        hidden: a.hidden,
        constant_lr: o.constant_lr,
        raw_advantages: o.raw_advantages,
    };
    let steps = o.steps.unwrap_or(DEFAULT_STEPS);
    let seed = a.run.flags.seed.unwrap_or(0);
    Ok(given.settings(&a.run.game, a.algorithm, steps, seed)?)
}

/// Refuses a resumed run whose command line gives a setting other than
/// the checkpoint's (the run would go on with the checkpoint's).
fn refuse_conflicts(a: &RlArgs, asked: &PpoSettings, held: &PpoSettings) -> Result<()> {
    let mut given = a.options.given();
    given.extend(
        [
            ("--hidden", a.hidden.is_some()),
            ("--learning-rate", a.learning_rate.is_some()),
            ("--seed", a.run.flags.seed.is_some()),
        ]
        .iter()
        .filter(|g| g.1)
        .map(|g| g.0),
    );
    for name in given {
        if name == "--steps" || name == "--no-eval" {
            continue;
        }
        if name == "--preset" {
            // The preset's values are compared one by one below.
            if asked.with_steps(0) != held.with_steps(0) {
                bail!(
                    "the checkpoint's settings are not --preset {}'s; resume it without --preset",
                    a.options.preset.as_deref().unwrap_or_default()
                );
            }
            continue;
        }
        let value = |s: &PpoSettings| match name {
            "--num-envs" => s.num_envs.to_string(),
            "--rollout-steps" => s.num_steps.to_string(),
            "--minibatches" => s.num_minibatches.to_string(),
            "--epochs" => s.update_epochs.to_string(),
            "--clip" => s.clip_coef.to_string(),
            "--ent-coef" => s.ent_coef.to_string(),
            "--vf-coef" => s.vf_coef.to_string(),
            "--kl-coef" => s.mmd.map(|m| m.kl_coef).unwrap_or(0.0).to_string(),
            "--mmd-schedule" => s.mmd.map(|m| m.schedule.name()).unwrap_or("").to_string(),
            "--discount" => s.gamma.to_string(),
            "--gae-lambda" => s.gae_lambda.to_string(),
            "--max-grad-norm" => s.max_grad_norm.to_string(),
            "--target-kl" => format!("{:?}", s.target_kl),
            "--constant-lr" => (!s.anneal_lr).to_string(),
            "--raw-advantages" => (!s.norm_adv).to_string(),
            "--hidden" => hidden_text(&s.hidden),
            "--learning-rate" => s.learning_rate.to_string(),
            "--seed" => s.seed.to_string(),
            _ => String::new(),
        };
        refuse_conflict(name, &value(asked), &value(held))?;
    }
    Ok(())
}

pub fn run(a: RlArgs) -> Result<()> {
    with_threads(rayon::current_num_threads(), || run_on_pool(a))
}

fn run_on_pool(a: RlArgs) -> Result<()> {
    let r = &a.run;
    let asked = settings(&a)?;
    asked.check_memory(&r.game, r.limit)?;
    let resumed = r.resumed(|path| Ok(RlCheckpoint::load_for(path, &r.game)?))?;
    let resuming = resumed.is_some();
    let (trainer, earlier, curve) = match resumed {
        Some(c) => {
            if c.ppo.settings.algorithm() != a.algorithm {
                bail!(
                    "the checkpoint holds a run of {}; resume it with --algo {}",
                    c.ppo.settings.algorithm(),
                    c.ppo.settings.algorithm()
                );
            }
            refuse_conflicts(&a, &asked, &c.ppo.settings)?;
            c.ppo.settings.check_memory(&r.game, r.limit)?;
            eprintln!(
                "resuming at step {} with the checkpoint's settings",
                c.ppo.steps
            );
            (
                PpoTrainer::resume(r.game, c.ppo, asked.steps)?,
                c.seconds,
                c.curve,
            )
        }
        None => (PpoTrainer::new(r.game, asked)?, 0.0, Vec::new()),
    };
    let evaluations = r.evaluations(trainer.settings().steps)?;
    let mut run = Ppo::new(trainer);
    let outcome = train(&mut run, r.loop_args(evaluations, earlier, curve))?;
    report(&a, &run.trainer, &outcome, resuming)
}

fn report(a: &RlArgs, trainer: &PpoTrainer, o: &Outcome, resuming: bool) -> Result<()> {
    let (curve, last, seconds, session) = (&o.curve, o.last, o.seconds, o.session);
    let before_steps = o.before;
    let r = &a.run;
    let s = trainer.settings();
    let game = r.game.game_string();
    let session_steps = trainer.steps() - before_steps;
    let rate = session_steps as f64 / session.max(1e-9);
    let times = trainer.times();
    if r.flags.json {
        let json = serde_json::json!({
            "game": game,
            "algo": s.algorithm(),
            "steps": trainer.steps(),
            "updates": trainer.updates(),
            "exploitability": last.map(|p| p.exploitability),
            "value_p0": last.map(|p| p.value_p0),
            "seconds": seconds,
            "session": {
                "steps": session_steps,
                "seconds": session,
                "steps_per_second": rate,
                "rollout_seconds": times.rollout.as_secs_f64(),
                "learning_seconds": times.learning.as_secs_f64(),
            },
            "threads": rayon::current_num_threads(),
            "settings": s,
            "curve": curve,
            "policy": r.out.display().to_string(),
        });
        outln!("{json}");
        return Ok(());
    }
    outln!("game             {game}");
    outln!("algorithm        {}", s.algorithm());
    outln!(
        "steps            {} ({} updates)",
        trainer.steps(),
        trainer.updates()
    );
    print_exploitability(last, r.no_eval)?;
    let whole = if resuming {
        format!(" in the whole run; this session {session:.3}")
    } else {
        String::new()
    };
    outln!(
        "seconds          {seconds:.3}{whole} ({rate:.0} steps a second: {:.3} playing, {:.3} learning)",
        times.rollout.as_secs_f64(),
        times.learning.as_secs_f64()
    );
    outln!(
        "network          towers of {} on the information-state tensor, {} games at once",
        hidden_text(&s.hidden),
        s.num_envs
    );
    outln!("policy           {} (a model)", r.out.display());
    if let Some(plot) = &r.flags.plot {
        outln!("plot             {}", plot.display());
    }
    Ok(())
}
