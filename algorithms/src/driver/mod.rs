//! The loop every network trainer runs under, the CLI's `darkhex train`
//! and Python's `darkhex.train` alike (ppo, mmd, nfsp, escher, deep-cfr):
//! steps or iterations to a target, a time limit or a stop flag, the
//! checkpoint at each evaluation and on the [`clock`], the exact
//! exploitability every so often and at the end. Each algorithm supplies
//! its step, its checkpoint and its model ([`NetworkTrainer`], the four in
//! [`trainers`]); each caller its own face ([`Watch`]: a progress bar and
//! a status line, or nothing) and what it does with the model.

pub mod clock;
pub mod trainers;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use thiserror::Error;

use crate::cfr::deep_cfr::DeepCfrError;
use crate::fa::model::{ModelProvenance, PolicyModel};
use crate::files::FileError;
use crate::rl::dqn::DqnError;
use crate::rl::exact::{CurvePoint, ExactError, ExactEvaluator};
use crate::rl::ppo::PpoError;
use crate::stream::{PassOptions, StreamError};
use clock::CheckpointClock;

#[derive(Debug, Error)]
pub enum DriveError {
    #[error(transparent)]
    Ppo(#[from] PpoError),
    #[error(transparent)]
    Nfsp(#[from] DqnError),
    #[error(transparent)]
    DeepCfr(#[from] DeepCfrError),
    #[error(transparent)]
    File(#[from] FileError),
    #[error(transparent)]
    Exact(#[from] ExactError),
}

/// A network training run as the loop drives it.
pub trait NetworkTrainer {
    /// What the run counts: "step" (actions played) or "iteration".
    const UNIT: &'static str;
    /// Whether a stopped run's model so far is worth keeping: where the
    /// model is the trained network itself (not a fit that takes a while).
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
    fn advance(&mut self) -> Result<(), DriveError>;
    /// Writes the run's checkpoint with `seconds` of training so far and
    /// the evaluations made.
    fn save(&mut self, path: &Path, seconds: f64, curve: &[CurvePoint]) -> Result<(), DriveError>;
    /// The policy the run has learned (for ESCHER and Deep CFR, fitting
    /// their policy networks first, once an iteration).
    fn model(&mut self) -> Result<&PolicyModel, DriveError>;
    /// The policy learned, taken out of the run.
    fn into_model(self) -> Result<PolicyModel, DriveError>;
    /// What the model file says of the run.
    fn provenance(&self, exploitability: Option<f64>) -> ModelProvenance;
    /// What a status says while the final model is made, if that takes a
    /// while.
    fn fitting(&self) -> Option<String> {
        None
    }
}

/// What the caller shows of a run as it goes; every method does nothing
/// unless the caller says otherwise.
pub trait Watch: Sync {
    /// A step or iteration starts from `position`; the checkpoint holds
    /// `saved`.
    fn stepping(&self, _position: u64, _saved: u64) {}
    /// A step or iteration ended at `position`.
    fn stepped(&self, _position: u64) {}
    /// An exact evaluation starts at `position`.
    fn evaluating(&self, _position: u64, _evaluator: &ExactEvaluator) {}
    /// Histories an evaluation over the tables has walked.
    fn walked(&self, _histories: u64) {}
    /// The evaluation ended: its point, or none when stopped.
    fn evaluated(&self, _point: Option<&CurvePoint>) {}
    /// The checkpoint is being written.
    fn saving(&self) {}
}

/// Shows nothing.
impl Watch for () {}

/// How the loop ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// The target was reached.
    Done,
    /// The time limit came first.
    TimeLimit,
    /// The stop flag was raised, during an exact evaluation or not.
    Stopped { in_evaluation: bool },
}

/// What an exact evaluation gave.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Evaluation {
    Done(CurvePoint),
    /// The stop flag was raised during the pass.
    Stopped,
}

/// How often a run evaluates: every `asked` steps or iterations, by
/// default ten times a run on the compiled tree and only at the end over
/// the tables (a pass takes minutes).
pub fn evaluation_interval(
    evaluator: Option<&ExactEvaluator>,
    asked: Option<u64>,
    target: u64,
) -> Option<u64> {
    asked.or(match evaluator {
        Some(ExactEvaluator::Tree(_)) => Some((target / 10).max(1)),
        _ => None,
    })
}

/// A run's loop, its evaluations and checkpoints, kept between the loop
/// and the end that its caller orders (the CLI writes the model before
/// the last evaluation, which may take minutes).
pub struct Driver {
    evaluator: Option<ExactEvaluator>,
    every: Option<u64>,
    checkpoint: Option<PathBuf>,
    time_limit: Option<f64>,
    earlier: f64,
    curve: Vec<CurvePoint>,
    /// Training seconds of this session, evaluations excluded.
    training: f64,
    /// Steps or iterations done before this session.
    before: u64,
}

impl Driver {
    /// A run evaluated by `evaluator` every `every` steps or iterations
    /// (and at the end), saving to `checkpoint`, resumed after `earlier`
    /// training seconds that evaluated `curve`.
    pub fn new(
        (evaluator, every): (Option<ExactEvaluator>, Option<u64>),
        checkpoint: Option<PathBuf>,
        time_limit: Option<f64>,
        earlier: f64,
        curve: Vec<CurvePoint>,
    ) -> Driver {
        Driver {
            evaluator,
            every,
            checkpoint,
            time_limit,
            earlier,
            curve,
            training: 0.0,
            before: 0,
        }
    }

    /// The evaluations made, over every session.
    pub fn curve(&self) -> &[CurvePoint] {
        &self.curve
    }

    /// Training seconds over every session, evaluations excluded.
    pub fn seconds(&self) -> f64 {
        self.earlier + self.training
    }

    /// This session's.
    pub fn session(&self) -> f64 {
        self.training
    }

    /// Steps or iterations done before this session.
    pub fn before(&self) -> u64 {
        self.before
    }

    /// Trains until the target, the time limit or `stop`, evaluating and
    /// saving the checkpoint as it goes.
    pub fn run<T: NetworkTrainer>(
        &mut self,
        trainer: &mut T,
        stop: &AtomicBool,
        watch: &dyn Watch,
    ) -> Result<End, DriveError> {
        let start = Instant::now();
        self.before = trainer.position();
        let (time_limit, every) = (self.time_limit, self.every);
        let out_of_time = || time_limit.is_some_and(|limit| start.elapsed().as_secs_f64() >= limit);
        let next = |at: u64| every.map(|k| (at / k + 1) * k);
        let mut next_eval = next(trainer.position());
        let mut clock = CheckpointClock::start();
        let mut last_saved = trainer.position();
        let stopped = || stop.load(Ordering::SeqCst);
        let mut in_evaluation = false;
        while !trainer.done() && !out_of_time() && !stopped() {
            watch.stepping(trainer.position(), last_saved);
            let t = Instant::now();
            trainer.advance()?;
            self.training += t.elapsed().as_secs_f64();
            watch.stepped(trainer.position());
            let due = next_eval.is_some_and(|n| trainer.position() >= n) && !trainer.done();
            if due && self.evaluator.is_some() {
                next_eval = next(trainer.position());
                match self.evaluate(trainer, stop, watch)? {
                    Evaluation::Done(p) => self.curve.push(p),
                    Evaluation::Stopped => {
                        in_evaluation = true;
                        break;
                    }
                }
                if self.checkpoint.is_some() {
                    clock.save(|| self.save(trainer, watch))?;
                    last_saved = trainer.position();
                }
            } else if self.checkpoint.is_some() && clock.due() {
                clock.save(|| self.save(trainer, watch))?;
                last_saved = trainer.position();
            }
        }
        Ok(if stopped() {
            End::Stopped { in_evaluation }
        } else if trainer.done() {
            End::Done
        } else {
            End::TimeLimit
        })
    }

    /// Writes the checkpoint, if the run has one.
    pub fn save<T: NetworkTrainer>(
        &self,
        trainer: &mut T,
        watch: &dyn Watch,
    ) -> Result<(), DriveError> {
        if let Some(path) = &self.checkpoint {
            watch.saving();
            trainer.save(path, self.seconds(), &self.curve)?;
        }
        Ok(())
    }

    /// The evaluation at the run's last step, if it has an evaluator:
    /// the curve's last point where it is there already, else a new one,
    /// added to the curve and saved.
    pub fn last_evaluation<T: NetworkTrainer>(
        &mut self,
        trainer: &mut T,
        stop: &AtomicBool,
        watch: &dyn Watch,
    ) -> Result<Option<Evaluation>, DriveError> {
        match self.curve.last() {
            Some(p) if p.steps == trainer.position() => return Ok(Some(Evaluation::Done(*p))),
            _ if self.evaluator.is_none() => return Ok(None),
            _ => {}
        }
        let e = self.evaluate(trainer, stop, watch)?;
        if let Evaluation::Done(p) = e {
            self.curve.push(p);
            self.save(trainer, watch)?;
        }
        Ok(Some(e))
    }

    /// The exact exploitability of the policy learned so far.
    fn evaluate<T: NetworkTrainer>(
        &self,
        trainer: &mut T,
        stop: &AtomicBool,
        watch: &dyn Watch,
    ) -> Result<Evaluation, DriveError> {
        let Some(evaluator) = &self.evaluator else {
            return Ok(Evaluation::Stopped);
        };
        let start = Instant::now();
        let at = trainer.position();
        watch.evaluating(at, evaluator);
        let model = trainer.model()?;
        let walked = |n: u64| watch.walked(n);
        let options = PassOptions {
            progress: Some(&walked),
            stop: Some(stop),
            ..PassOptions::default()
        };
        let result = match evaluator.evaluate(model, &options) {
            Ok(e) => Ok(Evaluation::Done(CurvePoint {
                steps: at,
                seconds: self.seconds(),
                exploitability: e.exploitability,
                value_p0: e.value_p0,
                eval_seconds: start.elapsed().as_secs_f64(),
            })),
            Err(ExactError::Stream(StreamError::Stopped)) => Ok(Evaluation::Stopped),
            Err(e) => Err(e.into()),
        };
        watch.evaluated(match &result {
            Ok(Evaluation::Done(p)) => Some(p),
            _ => None,
        });
        result
    }
}
