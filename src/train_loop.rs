//! The loop every network trainer of `darkhex train` shares (ppo, mmd,
//! nfsp, escher, deep-cfr): a progress bar over its steps or iterations,
//! `--time-limit`, a first signal finishing the step under way and saving,
//! the checkpoint clock, the exact exploitability every `--eval-every` and
//! at the end, the model written through the output guard's paths, the
//! plot. Each algorithm supplies its step, its checkpoint and its model
//! ([`NetworkTrainer`]) and writes its own report from the [`Outcome`].

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use anyhow::{Result, bail};
use darkhex_algorithms::Exploitability;
use darkhex_algorithms::fa::model::{ModelProvenance, PolicyModel};
use darkhex_algorithms::memory::MemoryLimit;
use darkhex_algorithms::rl::exact::{
    CurvePoint, ExactError, ExactEvaluator, ExactMethod, exact_method,
};
use darkhex_algorithms::stream::{AnyStream, PassOptions, StreamError};
use darkhex_games::{AnyGame, Game};
use indicatif::{ProgressBar, ProgressStyle};

use crate::checkpoint_clock::CheckpointClock;
use crate::info::build_tables_with_spinner;
use crate::interrupt::{self, Interrupted, Status};
use crate::output::outln;
use crate::progress::{bar, compile, histories_bar};

/// The steps of a ppo, mmd or nfsp run when none are given.
pub const DEFAULT_STEPS: u64 = 1_000_000;

/// A network training run as the shared loop drives it.
pub trait NetworkTrainer {
    /// What the run counts: "step" (actions played) or "iteration".
    const UNIT: &'static str;
    /// Whether a stopped run writes its model so far: where the model is
    /// the trained network itself (not a fit that takes a while).
    const MODEL_WHEN_STOPPED: bool;

    /// The algorithm, as `--algo` names it.
    fn algorithm(&self) -> &'static str;
    /// Steps or iterations done.
    fn position(&self) -> u64;
    /// Steps or iterations to reach.
    fn target(&self) -> u64;
    /// Whether the target is reached (an update may pass it).
    fn done(&self) -> bool {
        self.position() >= self.target()
    }
    /// The next unit of work: an update, a game, an iteration.
    fn advance(&mut self) -> Result<()>;
    /// Writes the run's checkpoint with `seconds` of training so far and
    /// the evaluations made.
    fn save(&mut self, path: &Path, seconds: f64, curve: &[CurvePoint]) -> Result<()>;
    /// The policy the run has learned (for ESCHER and Deep CFR, fitting
    /// their policy networks first, once an iteration).
    fn model(&mut self) -> Result<&PolicyModel>;
    /// What the model file says of the run.
    fn provenance(&self, exploitability: Option<f64>) -> ModelProvenance;
    /// What the status says while the final model is made, if that takes
    /// a while.
    fn fitting(&self) -> Option<String> {
        None
    }
}

/// What the loop takes from the command line, beside the trainer.
pub struct LoopArgs {
    pub game: AnyGame,
    pub out: PathBuf,
    pub checkpoint: Option<PathBuf>,
    pub plot: Option<PathBuf>,
    pub time_limit: Option<f64>,
    /// The exact evaluation, where the game allows one.
    pub evaluator: Option<ExactEvaluator>,
    /// Evaluate every this many steps or iterations (and at the end).
    pub every: Option<u64>,
    /// Training seconds of the sessions before this one.
    pub earlier: f64,
    /// Their evaluations.
    pub curve: Vec<CurvePoint>,
}

/// What a finished run reports.
pub struct Outcome {
    pub curve: Vec<CurvePoint>,
    /// The evaluation at the last step, if any.
    pub last: Option<CurvePoint>,
    /// Training seconds over every session, evaluations excluded.
    pub seconds: f64,
    /// This session's.
    pub session: f64,
    /// Steps or iterations done before this session.
    pub before: u64,
}

/// The exact evaluation the game allows ([`exact_method`]), built with a
/// spinner: the compiled tree, or the tables (also when the tree turns out
/// too large for the memory allowed).
pub fn evaluator(game: &AnyGame, limit: MemoryLimit) -> Result<Option<ExactEvaluator>> {
    let method = exact_method(game);
    if method == Some(ExactMethod::Tree)
        && let Ok((tree, _)) = compile(game, limit)
    {
        return Ok(Some(ExactEvaluator::Tree(Box::new(tree))));
    }
    let tables_too = matches!(game, AnyGame::DarkHex(_)) && AnyStream::new(game).is_ok();
    if method.is_none() || !tables_too {
        return Ok(None);
    }
    let threads = rayon::current_num_threads();
    // Beside the tables: the policy (8 bytes a slot) and each worker's
    // exact sums (16), as `exploit` counts them.
    let slot_bytes = 8.0 + 16.0 * (threads + 1) as f64;
    let what = format!("the exact evaluations over {game}'s tables with {threads} threads");
    let tables = build_tables_with_spinner(game, limit, &what, |e| {
        (e.slots[0] + e.slots[1]) * slot_bytes
    })?;
    Ok(Some(ExactEvaluator::Tables(Box::new(tables))))
}

/// The evaluator of a run that asked for one (`no_eval` false), refusing
/// `--plot` where there is none, and how often it evaluates: every
/// `asked`, by default ten times a run on the compiled tree and only at
/// the end over the tables (a pass takes minutes).
pub fn evaluations(
    game: &AnyGame,
    limit: MemoryLimit,
    no_eval: bool,
    plot: bool,
    asked: Option<u64>,
    target: u64,
) -> Result<(Option<ExactEvaluator>, Option<u64>)> {
    let evaluator = if no_eval {
        None
    } else {
        evaluator(game, limit)?
    };
    if plot && evaluator.is_none() {
        bail!(
            "--plot draws exact exploitability, which {game} is too large to compute; train without --plot"
        );
    }
    let every = asked.or(match &evaluator {
        Some(ExactEvaluator::Tree(_)) => Some((target / 10).max(1)),
        _ => None,
    });
    Ok((evaluator, every))
}

/// A bar over a run's steps, with their rate.
fn steps_bar(target: u64) -> ProgressBar {
    let bar = ProgressBar::new(target);
    let style = ProgressStyle::with_template(
        "{bar:32.cyan/blue} {human_pos}/{human_len} steps, {per_sec}  {msg}  [{elapsed_precise} < {eta}]",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar
}

/// What an evaluation gave.
enum Evaluation {
    Done(CurvePoint),
    Stopped,
}

fn evaluate<T: NetworkTrainer>(
    trainer: &mut T,
    evaluator: &ExactEvaluator,
    seconds: f64,
    status: &Status,
    stop: &AtomicBool,
) -> Result<Evaluation> {
    let start = Instant::now();
    status.set(format!(
        "during the exact evaluation at {} {} ({})",
        T::UNIT,
        trainer.position(),
        evaluator.method()
    ));
    let at = trainer.position();
    let model = trainer.model()?;
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
    let result = evaluator.evaluate(model, &options);
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    match result {
        Ok(e) => Ok(Evaluation::Done(point(
            at,
            seconds,
            &e,
            start.elapsed().as_secs_f64(),
        ))),
        Err(ExactError::Stream(StreamError::Stopped)) => Ok(Evaluation::Stopped),
        Err(e) => Err(e.into()),
    }
}

fn point(at: u64, seconds: f64, e: &Exploitability, took: f64) -> CurvePoint {
    CurvePoint {
        steps: at,
        seconds,
        exploitability: e.exploitability,
        value_p0: e.value_p0,
        eval_seconds: took,
    }
}

/// Trains until the target, the time limit or a signal; writes the
/// checkpoint, the model and the plot; evaluates as `a` says.
pub fn train<T: NetworkTrainer>(trainer: &mut T, a: LoopArgs) -> Result<Outcome> {
    let unit = T::UNIT;
    let algorithm = trainer.algorithm();
    let target = trainer.target();
    let LoopArgs {
        game,
        out,
        checkpoint,
        plot,
        time_limit,
        evaluator,
        every,
        earlier,
        mut curve,
    } = a;
    let interrupted = interrupt::flag();
    let status = Status::default();
    let progress = if unit == "step" {
        steps_bar(target)
    } else {
        bar(target)
    };
    progress.set_position(trainer.position().min(target));
    let start = Instant::now();
    let before = trainer.position();
    let out_of_time = || time_limit.is_some_and(|limit| start.elapsed().as_secs_f64() >= limit);
    // Training seconds of this session, evaluations excluded.
    let mut training = 0.0f64;
    let save = |trainer: &mut T, curve: &[CurvePoint], training: f64| -> Result<()> {
        if let Some(path) = &checkpoint {
            status.set("while writing the checkpoint");
            trainer.save(path, earlier + training, curve)?;
        }
        Ok(())
    };
    let saved = |at: u64| match &checkpoint {
        Some(p) => format!("the checkpoint {} holds {unit} {at}", p.display()),
        None => "nothing was saved: --checkpoint FILE makes runs resumable".to_string(),
    };
    let resume_hint = || match &checkpoint {
        Some(p) => format!("rerun with --resume to continue from {}", p.display()),
        None => "use --checkpoint FILE --resume to make runs resumable".to_string(),
    };
    let mut next_eval = every.map(|k| (trainer.position() / k + 1) * k);
    let mut clock = CheckpointClock::start();
    let mut last_saved = trainer.position();
    let stop = || interrupted.load(Ordering::SeqCst);
    let mut stopped_in_eval = false;
    while !trainer.done() && !out_of_time() && !stop() {
        status.set(format!(
            "at {unit} {} of {algorithm} ({})",
            trainer.position() + 1,
            saved(last_saved)
        ));
        let t = Instant::now();
        trainer.advance()?;
        training += t.elapsed().as_secs_f64();
        progress.set_position(trainer.position().min(target));
        let due = next_eval.is_some_and(|n| trainer.position() >= n) && !trainer.done();
        if let (true, Some(ev)) = (due, &evaluator) {
            next_eval = every.map(|k| (trainer.position() / k + 1) * k);
            match evaluate(trainer, ev, earlier + training, &status, &interrupted)? {
                Evaluation::Done(p) => {
                    progress.set_message(format!("exploitability {:.4}", p.exploitability));
                    curve.push(p);
                }
                Evaluation::Stopped => {
                    stopped_in_eval = true;
                    break;
                }
            }
            if checkpoint.is_some() {
                clock.save(|| save(trainer, &curve, training))?;
                last_saved = trainer.position();
            }
        } else if checkpoint.is_some() && clock.due() {
            clock.save(|| save(trainer, &curve, training))?;
            last_saved = trainer.position();
        }
    }
    progress.finish_and_clear();
    let at = trainer.position();
    if stop() {
        save(trainer, &curve, training)?;
        let mut kept = String::new();
        if T::MODEL_WHEN_STOPPED {
            let provenance = trainer.provenance(None);
            trainer.model()?.save(&out, provenance)?;
            kept = format!("; the model so far is in {}", out.display());
        }
        let during = if stopped_in_eval {
            " during an exact evaluation"
        } else {
            ""
        };
        return Err(Interrupted(format!(
            "interrupted at {unit} {at}{during}: {}{kept}\n{}",
            saved(at),
            resume_hint()
        ))
        .into());
    }
    if !trainer.done() {
        eprintln!("time limit reached: stopped at {unit} {at} of {target}");
    }
    // The checkpoint is written before the last evaluation, which may take
    // minutes and be interrupted.
    save(trainer, &curve, training)?;
    if let Some(what) = trainer.fitting() {
        status.set(what);
    }
    let provenance = trainer.provenance(None);
    trainer.model()?.save(&out, provenance)?;
    let last = match (&evaluator, curve.last()) {
        (_, Some(p)) if p.steps == at => Some(*p),
        (Some(ev), _) => match evaluate(trainer, ev, earlier + training, &status, &interrupted)? {
            Evaluation::Done(p) => {
                curve.push(p);
                save(trainer, &curve, training)?;
                Some(p)
            }
            Evaluation::Stopped => {
                return Err(Interrupted(format!(
                    "interrupted during the final evaluation, at {unit} {at}: the model is in {}, its exploitability was not computed (`darkhex exploit GAME {}` computes it)",
                    out.display(),
                    out.display()
                ))
                .into());
            }
        },
        (None, _) => None,
    };
    // A signal from here on ends the process at once: everything is saved.
    interrupt::exit_saying(&status);
    status.set("while writing the model");
    let provenance = trainer.provenance(last.map(|p| p.exploitability));
    trainer.model()?.save(&out, provenance)?;
    if let Some(plot) = &plot {
        let points: Vec<(f64, f64, f64)> = curve
            .iter()
            .map(|p| (p.steps as f64, p.seconds, p.exploitability))
            .collect();
        let units = format!("{unit}s");
        crate::plot::curve(plot, &game.game_string(), algorithm, &units, &points)?;
    }
    Ok(Outcome {
        curve,
        last,
        seconds: earlier + training,
        session: training,
        before,
    })
}

/// The checkpoint `--resume` continues from, read by `load`: none without
/// `--resume`, nor when the file does not exist yet (a first run of a
/// resumable command starts afresh, saying so).
pub(crate) fn resumed_checkpoint<T>(
    path: &Option<PathBuf>,
    resume: bool,
    load: impl FnOnce(&Path) -> Result<T>,
) -> Result<Option<T>> {
    match (path, resume) {
        (Some(path), true) if path.exists() => load(path).map(Some),
        (Some(path), true) => {
            eprintln!(
                "no checkpoint at {} yet: starting a new run",
                path.display()
            );
            Ok(None)
        }
        _ => Ok(None),
    }
}

/// Refuses a resumed run whose command line gives option `name` the value
/// `want` where its checkpoint holds `have`: the run would go on with the
/// checkpoint's, and the option would be silently ignored.
pub(crate) fn refuse_conflict(name: &str, want: &str, have: &str) -> Result<()> {
    if want != have {
        bail!(
            "the checkpoint was made with {name} {have}; it resumes only with that (or without {name}), not {want}"
        );
    }
    Ok(())
}

/// The first lines of a run's report: the game, the algorithm, the
/// iterations and the exploitability (`too_large` says what else could
/// compute it where the tree is too large).
pub fn print_summary(
    game: &str,
    algo: &str,
    iterations: u64,
    eval: Option<(f64, f64)>,
    too_large: &str,
) -> Result<()> {
    outln!("game             {game}");
    outln!("algorithm        {algo}");
    outln!("iterations       {iterations}");
    match eval {
        Some((e, v)) => {
            outln!("exploitability   {e:.6e}");
            outln!("value for p0     {v:.6}");
        }
        None => outln!("exploitability   not computed: the game tree is too large{too_large}"),
    }
    Ok(())
}

/// The exploitability lines of a reinforcement-learning run's report: the
/// last evaluation's, or why there is none.
pub fn print_exploitability(last: Option<CurvePoint>, no_eval: bool) -> Result<()> {
    match last {
        Some(p) => {
            outln!("exploitability   {:.6e}", p.exploitability);
            outln!("value for p0     {:.6}", p.value_p0);
        }
        None if no_eval => outln!("exploitability   not computed (--no-eval)"),
        None => outln!(
            "exploitability   not computed: the game is too large for the exact best response"
        ),
    }
    Ok(())
}
