//! The loop every network trainer of `darkhex train` shares (ppo, mmd,
//! nfsp, escher, deep-cfr): a progress bar over its steps or iterations,
//! `--time-limit`, a first signal finishing the step under way and saving,
//! the checkpoint clock, the exact exploitability every `--eval-every` and
//! at the end, the model written through the output guard's paths, the
//! plot. The loop itself is the library's ([`Driver`], which Python's
//! `darkhex.train` runs too); this is its face on the terminal and what
//! the CLI does with the model. Each algorithm supplies its step, its
//! checkpoint and its model ([`NetworkTrainer`]) and writes its own
//! report from the [`Outcome`].

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Result, bail};
pub use darkhex_algorithms::driver::NetworkTrainer;
use darkhex_algorithms::driver::{Driver, End, Evaluation, Watch, evaluation_interval};
use darkhex_algorithms::memory::MemoryLimit;
use darkhex_algorithms::rl::exact::{CurvePoint, ExactEvaluator, ExactMethod, exact_method};
use darkhex_algorithms::stream::AnyStream;
use darkhex_games::{AnyGame, Game};
use indicatif::{ProgressBar, ProgressStyle};

use crate::info::build_tables_with_spinner;
use crate::interrupt::{self, Interrupted, Status};
use crate::output::outln;
use crate::progress::{bar, compile, histories_bar};

/// The steps of a ppo, mmd or nfsp run when none are given.
pub const DEFAULT_STEPS: u64 = 1_000_000;

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
    let every = evaluation_interval(evaluator.as_ref(), asked, target);
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

/// The loop's face on the terminal: the progress bars and the status a
/// signal's message reports.
struct Terminal {
    unit: &'static str,
    algorithm: &'static str,
    checkpoint: Option<PathBuf>,
    status: Status,
    progress: ProgressBar,
    target: u64,
    /// An evaluation's bar over the tables' histories.
    walking: Mutex<Option<ProgressBar>>,
}

impl Terminal {
    /// What the checkpoint holds, for the status and the interruption.
    fn saved(&self, at: u64) -> String {
        match &self.checkpoint {
            Some(p) => format!("the checkpoint {} holds {} {at}", p.display(), self.unit),
            None => "no checkpoint was written".to_string(),
        }
    }

    fn resume_hint(&self) -> String {
        match &self.checkpoint {
            Some(p) => format!("rerun with --resume to continue from {}", p.display()),
            None => "use --checkpoint FILE --resume to make runs resumable".to_string(),
        }
    }

    fn walking(&self) -> std::sync::MutexGuard<'_, Option<ProgressBar>> {
        self.walking.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Watch for Terminal {
    fn stepping(&self, position: u64, saved: u64) {
        self.status.set(format!(
            "at {} {} of {} ({})",
            self.unit,
            position + 1,
            self.algorithm,
            self.saved(saved)
        ));
    }

    fn stepped(&self, position: u64) {
        self.progress.set_position(position.min(self.target));
    }

    fn evaluating(&self, position: u64, evaluator: &ExactEvaluator) {
        self.status.set(format!(
            "during the exact evaluation at {} {position} ({})",
            self.unit,
            evaluator.method()
        ));
        if let ExactEvaluator::Tables(t) = evaluator {
            *self.walking() = Some(histories_bar(t.histories()));
        }
    }

    fn walked(&self, histories: u64) {
        if let Some(b) = &*self.walking() {
            b.set_position(histories);
        }
    }

    fn evaluated(&self, point: Option<&CurvePoint>) {
        if let Some(b) = self.walking().take() {
            b.finish_and_clear();
        }
        if let Some(p) = point {
            self.progress
                .set_message(format!("exploitability {:.4}", p.exploitability));
        }
    }

    fn saving(&self) {
        self.status.set("while writing the checkpoint");
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
        curve,
    } = a;
    let interrupted = interrupt::flag();
    let terminal = Terminal {
        unit,
        algorithm,
        checkpoint: checkpoint.clone(),
        status: Status::default(),
        progress: if unit == "step" {
            steps_bar(target)
        } else {
            bar(target)
        },
        target,
        walking: Mutex::new(None),
    };
    terminal
        .progress
        .set_position(trainer.position().min(target));
    let mut driver = Driver::new((evaluator, every), checkpoint, time_limit, earlier, curve);
    let end = driver.run(trainer, &interrupted, &terminal)?;
    terminal.progress.finish_and_clear();
    let at = trainer.position();
    match end {
        End::Stopped { in_evaluation } => {
            driver.save(trainer, &terminal)?;
            let mut kept = String::new();
            if T::MODEL_WHEN_STOPPED {
                let provenance = trainer.provenance(None);
                trainer.model()?.save(&out, provenance)?;
                kept = format!("; the model so far is in {}", out.display());
            }
            let during = if in_evaluation {
                " during an exact evaluation"
            } else {
                ""
            };
            return Err(Interrupted(format!(
                "interrupted at {unit} {at}{during}: {}{kept}\n{}",
                terminal.saved(at),
                terminal.resume_hint()
            ))
            .into());
        }
        End::TimeLimit => eprintln!("time limit reached: stopped at {unit} {at} of {target}"),
        End::Done => {}
    }
    // The checkpoint is written before the last evaluation, which may take
    // minutes and be interrupted.
    driver.save(trainer, &terminal)?;
    if let Some(what) = trainer.fitting() {
        terminal.status.set(what);
    }
    let provenance = trainer.provenance(None);
    trainer.model()?.save(&out, provenance)?;
    let last = match driver.last_evaluation(trainer, &interrupted, &terminal)? {
        Some(Evaluation::Done(p)) => Some(p),
        Some(Evaluation::Stopped) => {
            return Err(Interrupted(format!(
                "interrupted during the final evaluation, at {unit} {at}: the model is in {}, its exploitability was not computed (`darkhex exploit GAME {}` computes it)",
                out.display(),
                out.display()
            ))
            .into());
        }
        None => None,
    };
    // A signal from here on ends the process at once: everything is saved.
    interrupt::exit_saying(&terminal.status);
    terminal.status.set("while writing the model");
    let provenance = trainer.provenance(last.map(|p| p.exploitability));
    trainer.model()?.save(&out, provenance)?;
    if let Some(plot) = &plot {
        let points: Vec<(f64, f64, f64)> = driver
            .curve()
            .iter()
            .map(|p| (p.steps as f64, p.seconds, p.exploitability))
            .collect();
        let units = format!("{unit}s");
        crate::plot::curve(plot, &game.game_string(), algorithm, &units, &points)?;
    }
    Ok(Outcome {
        curve: driver.curve().to_vec(),
        last,
        seconds: driver.seconds(),
        session: driver.session(),
        before: driver.before(),
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
