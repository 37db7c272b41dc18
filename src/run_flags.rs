//! The options of `darkhex train` that say how a run goes rather than
//! what it learns: its threads and seed, the files it writes and resumes,
//! its evaluations, its report and its time limit. Every algorithm takes
//! them; the network trainers hand them to the shared loop
//! ([`crate::train_loop`]) as a [`NetworkRun`].

use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Args;
use darkhex_algorithms::memory::MemoryLimit;
use darkhex_algorithms::rl::exact::{CurvePoint, ExactEvaluator};
use darkhex_games::AnyGame;

use crate::args::{interval, whole};
use crate::train_loop::{LoopArgs, evaluations, resumed_checkpoint};

#[derive(Args, Clone, Default)]
pub struct RunFlags {
    /// Worker threads (default: all cores); full-width results do not depend
    /// on it, Monte Carlo results do (each thread samples its own share)
    #[arg(long, allow_negative_numbers = true, value_parser = crate::args::threads)]
    pub threads: Option<usize>,
    /// Seed of the Monte Carlo samplers, of --regressor mlp's initial
    /// weights, and of every stream of ppo, mmd and nfsp (default 0)
    #[arg(long, allow_negative_numbers = true, value_parser = crate::args::seed)]
    pub seed: Option<u64>,
    /// Policy file to write: .json, or anything else for compact binary
    /// (default: policies/<game>-<algo>.json, or .bin past 100000 information
    /// states; deep-cfr's model: policies/<game>-deep-cfr.bin)
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Save the solver state here at every evaluation, at least every 3
    /// minutes, at a stop and at the end (always the checksummed binary
    /// form, whatever the name); an existing checkpoint is continued with
    /// --resume or replaced with --overwrite, never otherwise
    #[arg(long)]
    pub checkpoint: Option<PathBuf>,
    /// Continue from --checkpoint if it exists
    #[arg(long, requires = "checkpoint")]
    pub resume: bool,
    /// Start a new run over an existing --checkpoint, replacing it
    #[arg(long, requires = "checkpoint", conflicts_with = "resume")]
    pub overwrite: bool,
    /// Evaluate exploitability every K iterations (default: 10 times a
    /// run); ppo, mmd and nfsp: every K steps (default 10 times a run where the
    /// tree compiles, else at the end only: over the tables a pass takes
    /// minutes); escher: every K iterations, likewise
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>(1, None))]
    pub eval_every: Option<u64>,
    /// Draw exploitability against iterations and seconds into this SVG
    /// file (named .svg)
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// Print one JSON object at the end
    #[arg(long)]
    pub json: bool,
    /// Start no new iteration after this many seconds of this run (wall
    /// clock, evaluations included); the run then ends as if --iterations
    /// were reached: evaluation, checkpoint, policy file and plot
    #[arg(long, allow_negative_numbers = true, value_parser = interval(0.0, true, 1e9, false))]
    pub time_limit: Option<f64>,
}

/// What a network trainer's run takes from the command line beside its
/// settings.
pub struct NetworkRun {
    pub game: AnyGame,
    pub flags: RunFlags,
    /// Where the model goes: --out, or the algorithm's default path.
    pub out: PathBuf,
    /// --no-eval: no exact evaluation at all.
    pub no_eval: bool,
    pub limit: MemoryLimit,
}

impl NetworkRun {
    /// The checkpoint `--resume` continues from, read by `load`
    /// ([`resumed_checkpoint`]).
    pub fn resumed<T>(&self, load: impl FnOnce(&Path) -> Result<T>) -> Result<Option<T>> {
        resumed_checkpoint(&self.flags.checkpoint, self.flags.resume, load)
    }

    /// The exact evaluation of a run to `target` steps or iterations, and
    /// how often ([`evaluations`]).
    pub fn evaluations(&self, target: u64) -> Result<(Option<ExactEvaluator>, Option<u64>)> {
        evaluations(
            &self.game,
            self.limit,
            self.no_eval,
            self.flags.plot.is_some(),
            self.flags.eval_every,
            target,
        )
    }

    /// What the loop takes, for a run evaluated by `evaluator` every
    /// `every`, resumed after `earlier` seconds that evaluated `curve`.
    pub fn loop_args(
        &self,
        (evaluator, every): (Option<ExactEvaluator>, Option<u64>),
        earlier: f64,
        curve: Vec<CurvePoint>,
    ) -> LoopArgs {
        LoopArgs {
            game: self.game,
            out: self.out.clone(),
            checkpoint: self.flags.checkpoint.clone(),
            plot: self.flags.plot.clone(),
            time_limit: self.flags.time_limit,
            evaluator,
            every,
            earlier,
            curve,
        }
    }
}
