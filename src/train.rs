//! `darkhex train`: run a CFR-family algorithm, with progress, periodic exact
//! evaluation, checkpoints, a policy file and a convergence plot.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::Args;
use clap::builder::PossibleValuesParser;
use darkhex_algorithms::Sampling;
use darkhex_algorithms::cfr::deep_cfr::DeepCfrSettings;
use darkhex_algorithms::cfr::escher_options::EscherOptions as EscherGiven;
use darkhex_algorithms::cfr::rcfr::{Link, RegressorKind};
use darkhex_algorithms::cfr::streaming::{PassKind, StreamProgress};
use darkhex_algorithms::cfr::training::ALGORITHM_NAMES;
use darkhex_algorithms::driver::clock::CheckpointClock;
use darkhex_algorithms::fa::features::FeatureKind;
use darkhex_algorithms::fa::mlp::{MAX_HIDDEN, MlpSettings};
use darkhex_algorithms::files::{self, FileKind};
use darkhex_algorithms::memory::MemoryLimit;
use darkhex_algorithms::rl::checkpoint::RlCheckpoint;
use darkhex_algorithms::rl::options::NfspOptions;
use darkhex_algorithms::stream::StreamError;
use darkhex_algorithms::stream::{
    AnyStream, CfrMemory, InfoStateTables, PRECISION_NAMES, Precision,
};
use darkhex_algorithms::tree::estimate_histories;
use darkhex_algorithms::{
    Algorithm, AlgorithmParams, CfrVariant, Checkpoint, Exploitability, GameTree, SumOrder,
    TrainError, Trainer, TreeError,
};
use darkhex_games::abstraction::Abstraction;
use darkhex_games::{AnyGame, Game, with_game};
use indicatif::{MultiProgress, ProgressBar};

use crate::args::{interval, memory_limit, number_in, set_threads, whole};
use crate::help;
use crate::info::build_tables_with_spinner;
use crate::interrupt::{self, Interrupted};
use crate::output::outln;
use crate::outputs::{Files, Holds};
use crate::progress::{bar, compile, default_policy_path, histories_bar};
use crate::run_flags::{NetworkRun, RunFlags};
use crate::train_escher::EscherOptions;
use crate::train_loop::{DEFAULT_STEPS, print_summary, resumed_checkpoint};
use crate::train_nfsp::NfspFlags;
use crate::train_rl::RlOptions;

/// Monte Carlo runs compile the tree for exact evaluation up to this size.
const EVAL_TREE_HISTORIES: f64 = 3e7;

#[derive(Args)]
#[command(after_help = help::after(&[
    "darkhex train leduc_poker --algo cfr+ --iterations 1000 --plot leduc.svg",
    "darkhex train 'dark_hex(num_rows=2,num_cols=3,gameversion=adh)' --algo dcfr --iterations 5000 --checkpoint adh.ckpt --resume --out adh.json",
    "darkhex train 'dark_hex(num_rows=3,num_cols=3)' --algo os-mccfr --iterations 1000000 --out dh3.bin",
    "darkhex train 'dark_hex(num_rows=3,num_cols=3)' --algo pcfr+ --iterations 20 --eval-every 5 --precision f32 --checkpoint dh3.ckpt --resume",
    "darkhex train leduc_poker --algo f-rcfr --link poly --power 1.5 --iterations 200 --plot leduc-frcfr.svg",
    "darkhex train kuhn_poker --algo deep-cfr --iterations 30 --traversals 100 --hidden 64,64 --fit-steps 100 --batch-size 256 --out kuhn.model",
    "darkhex train kuhn_poker --algo mmd --steps 100000 --hidden 32,32 --num-envs 32 --rollout-steps 32 --learning-rate 0.002 --ent-coef 0.2 --raw-advantages --kl-coef 1 --eval-every 20000 --plot kuhn-mmd.svg --out kuhn-mmd.model",
    "darkhex train 'dark_hex(num_rows=3,num_cols=3,gameversion=adh)' --algo ppo --preset rudolph2026 --steps 10000000 --eval-every 500000 --checkpoint adh-ppo.ckpt --resume",
    "darkhex train kuhn_poker --algo nfsp --steps 200000 --hidden 64 --anticipatory 0.2 --eval-every 25000 --plot kuhn-nfsp.svg --out kuhn-nfsp.model",
], &[help::TRAINING_STOPS, help::GAMES]))]
pub struct TrainArgs {
    /// Game string, e.g. 'leduc_poker' or 'dark_hex(num_rows=2,num_cols=3)'
    #[arg(value_parser = crate::parse_game)]
    game: AnyGame,
    /// Algorithm (default cfr+; a resumed run keeps its checkpoint's).
    /// The full-width ones (cfr, cfr+, lcfr, dcfr, pcfr+) stream over the
    /// histories when the game tree is too large to compile; rcfr, rcfr+
    /// (regrets clipped, CFR+'s averaging) and f-rcfr fit the regrets with
    /// linear least squares or a network (--regressor), on the compiled
    /// tree or over the streaming tables as the others do;
    /// deep-cfr samples on the game's states with networks and reservoirs
    /// only and writes a policy model, not a table; escher does too, its
    /// regrets from a history value network without importance weights;
    /// ppo and mmd train an
    /// actor-critic network in self-play over many games at once (PPO, and
    /// magnetic mirror descent: PPO with a magnet and a KL term) and write
    /// a model; nfsp (neural fictitious self-play) plays one game at a
    /// time, each player a DQN best responder and an average network,
    /// and writes the average networks as a model
    #[arg(long, value_parser = PossibleValuesParser::new(ALGORITHM_NAMES.into_iter().chain([DEEP_CFR, ESCHER, PPO, MMD, NFSP])))]
    algo: Option<String>,
    /// Total iterations to reach (a resumed run continues up to this;
    /// default 1000). ppo, mmd and nfsp count --steps instead
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u64>(1, None))]
    iterations: Option<u64>,
    #[command(flatten)]
    run: RunFlags,
    /// Evaluate at N iterations evenly spaced per decade on a log scale
    /// (1, 2, 5, 10, 22, 46, 100, ... for 3) instead of every K: long runs on
    /// large games, where each evaluation is a pass over every history
    #[arg(long, conflicts_with = "eval_every", allow_negative_numbers = true, value_parser = whole::<u32>(1, Some(100)))]
    evals_per_decade: Option<u32>,
    /// DCFR: discount of positive regrets, t^alpha/(t^alpha+1); 0 to 10 (default 1.5)
    #[arg(long, allow_negative_numbers = true, value_parser = number_in(0.0, 10.0, false))]
    alpha: Option<f64>,
    /// DCFR: discount of negative regrets, t^beta/(t^beta+1); -10 to 10 (default 0)
    #[arg(long, allow_negative_numbers = true, value_parser = number_in(-10.0, 10.0, false))]
    beta: Option<f64>,
    /// DCFR and PCFR+: weight t^gamma of iteration t in the average policy; 0 to 10 (default 2)
    #[arg(long, allow_negative_numbers = true, value_parser = number_in(0.0, 10.0, false))]
    gamma: Option<f64>,
    /// Outcome sampling: exploration of the updating player, more than 0
    /// and less than 1 (default 0.6): without it the sampled estimates
    /// miss whatever the current policy never plays
    #[arg(long, allow_negative_numbers = true, value_parser = interval(0.0, true, 1.0, true))]
    exploration: Option<f64>,
    /// rcfr, rcfr+ and f-rcfr: features of each (information state,
    /// action) pair the regrets are fitted on: joint (default; the
    /// observations crossed with the action, a linear model per action),
    /// obs (observations then the action) or one-hot (one per pair: the
    /// table itself, so RCFR is CFR)
    #[arg(long, value_parser = FeatureKind::NAMES)]
    features: Option<String>,
    /// f-rcfr: the link from fitted regrets to a policy: poly (default,
    /// positive part to the power --power), exp (Hedge, --temperature) or
    /// rectified (regret matching, RCFR's)
    #[arg(long, value_parser = Link::NAMES)]
    link: Option<String>,
    /// f-rcfr's poly link: the power p, more than 0 and at most 10 (default 2)
    #[arg(long, allow_negative_numbers = true, value_parser = interval(0.0, true, 10.0, false))]
    power: Option<f64>,
    /// f-rcfr's exp link: the temperature, more than 0 and at most 1e6 (default 1)
    #[arg(long, allow_negative_numbers = true, value_parser = interval(0.0, true, 1e6, false))]
    temperature: Option<f64>,
    /// rcfr, rcfr+ and f-rcfr: the least-squares ridge term, 0 to 1e6
    /// (default 1e-6; 0 with one-hot features, which then fit exactly)
    #[arg(long, allow_negative_numbers = true, value_parser = number_in(0.0, 1e6, false))]
    ridge: Option<f64>,
    /// rcfr, rcfr+ and f-rcfr: what fits the regrets: linear (default,
    /// least squares) or mlp (a multilayer perceptron trained by Adam,
    /// its initial weights drawn from --seed; default features obs)
    #[arg(long, value_parser = RegressorKind::NAMES)]
    regressor: Option<String>,
    /// deep-cfr: external-sampling traversals per player and iteration, 1
    /// to 1e7 (default 100); escher: regret trajectories per player and
    /// iteration (default 1000)
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>(1, Some(10_000_000)))]
    traversals: Option<u32>,
    /// deep-cfr: actions explored at each of the traverser's decisions,
    /// drawn uniformly without replacement (robust sampling), 1 to 1000;
    /// the default explores every action (external sampling), which
    /// past 3x3 Dark Hex visits millions of histories a traversal
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>(1, Some(1000)))]
    explore: Option<u32>,
    /// deep-cfr: samples each player's advantage reservoir keeps (escher:
    /// regret reservoir), 1 to 1e9 (default 1e6)
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<usize>(1, Some(1_000_000_000)))]
    advantage_capacity: Option<usize>,
    /// deep-cfr and escher: samples each player's strategy (policy)
    /// reservoir keeps, 1 to 1e9 (default 1e6); nfsp: the average
    /// network's reservoir (default 2e6)
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<usize>(1, Some(1_000_000_000)))]
    strategy_capacity: Option<usize>,
    /// deep-cfr and escher: Adam steps of the policy networks' fit at the
    /// end (escher: and at each evaluation), 1 to 1e6 (default 4 times
    /// --fit-steps)
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>(1, Some(1_000_000)))]
    policy_steps: Option<u32>,
    /// --regressor mlp, deep-cfr, escher, ppo, mmd and nfsp: the hidden layers' widths,
    /// e.g. 64,64 (the default; ppo and mmd: 512,512,512, the benchmark's,
    /// for each of the actor and the critic; nfsp the same for each
    /// network), up to 4 layers of 1 to 4096
    #[arg(long, value_parser = MlpSettings::parse_hidden)]
    hidden: Option<[u32; MAX_HIDDEN]>,
    /// --regressor mlp, deep-cfr and escher: Adam steps per player and
    /// iteration, 1 to 1e6 (default 32; deep-cfr and escher 100)
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>(1, Some(1_000_000)))]
    fit_steps: Option<u32>,
    /// --regressor mlp, deep-cfr and escher: feature rows per Adam step,
    /// taken in order (deep-cfr and escher shuffle their samples first); 1
    /// or more (default 4096, deep-cfr and escher 256; every row when there
    /// are fewer); nfsp: the average network's minibatch (default 128)
    #[arg(long, allow_negative_numbers = true, value_parser = whole::<u32>(1, Some(u32::MAX.into())))]
    batch_size: Option<u32>,
    /// --regressor mlp, deep-cfr, escher, ppo, mmd and nfsp: Adam's learning rate, more
    /// than 0 and at most 1 (default 0.003; ppo and mmd 0.00025, annealed
    /// to 0 over the run; nfsp: the average network's, 0.01)
    #[arg(long, allow_negative_numbers = true, value_parser = interval(0.0, true, 1.0, false))]
    learning_rate: Option<f64>,
    /// Train full width over the streaming information-state tables, one
    /// pass over the histories per player and iteration, even when the
    /// game tree would compile (the default for dark games too large to)
    #[arg(long)]
    stream: bool,
    /// Streaming: store regrets, average weights and predictions as f32
    /// (half the memory) or f64 (default; a resumed run keeps its checkpoint's)
    #[arg(long, value_parser = PRECISION_NAMES)]
    precision: Option<String>,
    /// Full width: add up each information state's regret contributions
    /// exactly, whatever their order (exact, the default: the compiled tree
    /// and --stream then give the same bits), or one by one in depth-first
    /// order as OpenSpiel's CFRSolver does (openspiel, compiled tree only:
    /// OpenSpiel's figures to 1e-14). A resumed run keeps its checkpoint's
    #[arg(long, value_parser = SumOrder::NAMES)]
    sum_order: Option<String>,
    /// os-mccfr and es-mccfr: sample on the State API with tables keyed by
    /// information-state tokens instead of over the information-state
    /// tables (the default wherever those can be built: faster iterations,
    /// and exact exploitability by a streaming pass when the tree is too
    /// large, but 3x3 Dark Hex's tables take about 20 s and 0.7 GB to build)
    #[arg(long)]
    keyed: bool,
    /// os-mccfr: sample Dark Hex and Dark Rex with information-state keys
    /// packed into integers, under this abstraction: perfect-recall (the
    /// game's own information states; turn counts and disclosures do not
    /// fit), attempts (one's own attempts in order), view (the board as one
    /// sees it), each also reduced by the 180-degree rotation (-rot180).
    /// The policy file names it; exploit and bounds lift it to the
    /// perfect-recall game
    #[arg(long, value_parser = Abstraction::NAMES)]
    abstraction: Option<String>,
    /// os-mccfr on Dark Hex and Dark Rex (obstype=reveal-nothing, no
    /// disclosure): end a sampled history where PONE proves the player to
    /// move wins with probability one, scored as that win, as the thesis
    /// trained on 4x3. Samples with compact keys (--abstraction, by default
    /// perfect-recall); the policy file plays PONE's strategy from the
    /// states it decided
    #[arg(long)]
    pone_terminals: bool,
    #[command(flatten)]
    rl: RlOptions,
    #[command(flatten)]
    escher: EscherOptions,
    #[command(flatten)]
    nfsp: NfspFlags,
}

/// What the trainer runs on: the compiled tree (when it fits or a sampler
/// wants it for evaluation) or the streaming tables.
enum Backing {
    Tree(Option<Box<GameTree>>),
    Tables(Box<InfoStateTables>),
    /// Monte Carlo CFR over the tables, with the tree when it is small
    /// enough to evaluate on.
    SamplingTables(Option<Box<GameTree>>, Box<InfoStateTables>),
}

/// Dark games too large to compile train over the streaming tables
/// unasked up to this many histories (3x3 Dark Hex has 1.9e10; a pass over
/// 10^12 would take hours): beyond, only `--stream` makes them.
const AUTO_STREAM_HISTORIES: f64 = 1e12;

/// Policies with more information states than this default to the compact
/// binary form rather than JSON.
const JSON_MAX_INFOSETS: usize = 100_000;

fn policy_is_large(trainer: &Trainer) -> bool {
    trainer.policy_infosets() > JSON_MAX_INFOSETS
}

/// The algorithms `darkhex train` runs apart from the trainer.
const DEEP_CFR: &str = "deep-cfr";
const PPO: &str = "ppo";
const MMD: &str = "mmd";
const ESCHER: &str = "escher";
const NFSP: &str = "nfsp";

/// The iterations of the CFR family and Deep CFR when none are given.
const DEFAULT_ITERATIONS: u64 = 1000;

/// Whether `algo` writes a model (a network) rather than a policy table.
fn writes_model(algo: Option<&str>) -> bool {
    matches!(algo, Some(DEEP_CFR | ESCHER | PPO | MMD | NFSP))
}

/// What `train` writes, for the output guard: an existing checkpoint only
/// with --resume (continue it) or --overwrite (replace it). The default
/// policy path, named after the algorithm that a resumed checkpoint may
/// tell, is checked once it is known.
pub fn files(args: &TrainArgs) -> Result<Files> {
    if let Some(path) = &args.run.checkpoint
        && path.exists()
        && !args.run.resume
        && !args.run.overwrite
    {
        bail!(
            "{} already exists: give --resume to continue that run, or --overwrite to start a new one and replace it",
            path.display()
        );
    }
    let out = if writes_model(args.algo.as_deref()) {
        FileKind::Model
    } else {
        FileKind::Policy
    };
    // A checkpoint resumed is read first, and its reader names what it is.
    let resumed = args
        .run
        .checkpoint
        .as_deref()
        .filter(|p| args.run.resume && p.exists());
    let written = args.run.checkpoint.as_deref().filter(|_| resumed.is_none());
    Ok(Files::new()
        .reads("--checkpoint", resumed)
        .writes(
            "--checkpoint",
            written,
            Holds::Document(FileKind::Checkpoint),
        )
        .writes("--plot", args.run.plot.as_deref(), Holds::Svg)
        .writes("--out", args.run.out.as_deref(), Holds::Document(out)))
}

pub fn run(args: TrainArgs) -> Result<()> {
    set_threads(args.run.threads)?;
    let deep_options = [
        ("--traversals", args.traversals.is_some()),
        ("--explore", args.explore.is_some()),
        ("--advantage-capacity", args.advantage_capacity.is_some()),
        ("--strategy-capacity", args.strategy_capacity.is_some()),
        ("--policy-steps", args.policy_steps.is_some()),
    ];
    if args.algo.as_deref() != Some(NFSP)
        && let Some(name) = args.nfsp.given().first()
    {
        bail!("{name} applies to --algo nfsp only");
    }
    if args.algo.as_deref() == Some(NFSP) {
        return run_nfsp(args);
    }
    if args.algo.as_deref() == Some(ESCHER) {
        return run_escher(args);
    }
    if let Some(name) = args.escher.given().first() {
        bail!("{name} applies to --algo escher only");
    }
    if matches!(args.algo.as_deref(), Some(PPO | MMD)) {
        return run_rl(args);
    }
    if let Some(name) = args.rl.first_given() {
        let takers = match name {
            "--steps" => "ppo, mmd and nfsp",
            "--preset" | "--no-eval" => "ppo, mmd, nfsp and escher",
            _ => "ppo and mmd",
        };
        bail!("{name} applies to --algo {takers} only");
    }
    if args.algo.as_deref() == Some(DEEP_CFR) {
        return run_deep_cfr(args);
    }
    if let Some((name, _)) = deep_options.iter().find(|(_, given)| *given) {
        bail!("{name} applies to --algo deep-cfr only");
    }
    let params = AlgorithmParams {
        alpha: args.alpha,
        beta: args.beta,
        gamma: args.gamma,
        exploration: args.exploration,
        features: args.features.as_deref().and_then(FeatureKind::parse),
        link: args
            .link
            .as_deref()
            .and_then(|l| Link::NAMES.iter().copied().find(|n| *n == l)),
        power: args.power,
        temperature: args.temperature,
        ridge: args.ridge,
        regressor: args
            .regressor
            .as_deref()
            .and_then(|r| RegressorKind::NAMES.iter().copied().find(|n| *n == r)),
        hidden: args.hidden,
        fit_steps: args.fit_steps,
        batch_size: args.batch_size,
        learning_rate: args.learning_rate,
        seed: Some(args.run.seed.unwrap_or(0)),
    };
    let requested = args
        .algo
        .as_deref()
        .map(|a| Algorithm::parse(a, params))
        .transpose()?;
    let checkpoint = resumed_checkpoint(&args.run.checkpoint, args.run.resume, |path| {
        Checkpoint::load(path).map_err(|e| match files::load::<RlCheckpoint>(path) {
            // PPO's and MMD's checkpoints share the format name.
            Ok(c) => {
                let algo = c.ppo.settings.algorithm();
                anyhow::anyhow!(
                    "{} holds a run of {algo}: resume it with --algo {algo}",
                    path.display()
                )
            }
            Err(_) => e.into(),
        })
    })?;
    // The checkpoint's generator continues its own stream: another seed
    // would be silently ignored.
    if let (Some(c), Some(asked)) = (&checkpoint, args.run.seed)
        && let Some(held) = c.seed()
        && held != asked
    {
        bail!(
            "the checkpoint was made with --seed {held}; it resumes only with that (or without --seed), not {asked}"
        );
    }
    let algorithm = match (&checkpoint, requested) {
        (Some(c), _) => c.algorithm(),
        (None, Some(a)) => a,
        (None, None) => Algorithm::parse("cfr+", params)?,
    };
    // A run must not end with nowhere to put its result, nor destroy
    // another file: `main` checked the outputs given; the default policy
    // path, JSON or binary by the policy's size (known later), is checked
    // in both forms before the first iteration.
    let default_out =
        [false, true].map(|binary| default_policy_path(&args.game, algorithm.name(), binary));
    if args.run.out.is_none() {
        let policy = Holds::Document(FileKind::Policy);
        files(&args)?
            .writes("the policy's default path", Some(&default_out[0]), policy)
            .writes("the policy's default path", Some(&default_out[1]), policy)
            .check()?;
    }
    let game = args.game;
    let dark_board = game.is_dark_board();
    let limit = memory_limit();
    let precision = args.precision.as_deref().and_then(Precision::parse);
    let mut streaming = args.stream || checkpoint.as_ref().is_some_and(Checkpoint::is_streaming);
    if streaming && !algorithm.streams() {
        bail!(
            "{} does not stream; the full-width algorithms cfr, cfr+, lcfr, dcfr, pcfr+, rcfr, rcfr+ and f-rcfr do",
            algorithm.name()
        );
    }
    let mut backing = Backing::Tree(None);
    if !streaming {
        let wants_tree = algorithm.needs_tree()
            || with_game!(&game, g => estimate_histories(g, 256, 0)) <= EVAL_TREE_HISTORIES;
        if wants_tree {
            match compile(&game, limit) {
                Ok((t, _)) => backing = Backing::Tree(Some(Box::new(t))),
                Err(TreeError::TooLarge { histories, .. })
                    if algorithm.streams()
                        && !limit.is_given()
                        && game.is_dark_board()
                        && histories <= AUTO_STREAM_HISTORIES =>
                {
                    eprintln!(
                        "{game} is too large to compile: training full width over its information-state tables"
                    );
                    streaming = true;
                }
                Err(e) if algorithm.needs_tree() => {
                    let without = if algorithm.streams() {
                        " or --stream"
                    } else {
                        ""
                    };
                    return Err(anyhow::Error::new(e).context(format!(
                        "{} needs the compiled tree{without}; os-mccfr and es-mccfr train without it",
                        algorithm.name()
                    )));
                }
                Err(_) => {}
            }
        }
    }
    let sum_order = args.sum_order.as_deref().and_then(SumOrder::parse);
    match sum_order {
        Some(_) if !algorithm.needs_tree() => {
            return Err(TrainError::UnusedParameter(algorithm.name(), "--sum-order").into());
        }
        Some(SumOrder::OpenSpiel) if streaming => {
            return Err(TrainError::StreamSumsExactly(SumOrder::OpenSpiel.name()).into());
        }
        _ => {}
    }
    let abstraction = args
        .abstraction
        .as_deref()
        .map(Abstraction::parse)
        .transpose()?;
    if args.pone_terminals {
        if !matches!(algorithm, Algorithm::MonteCarlo(Sampling::Outcome { .. })) {
            bail!("--pone-terminals applies to os-mccfr");
        }
        if args.keyed {
            bail!("--pone-terminals samples with compact keys, --keyed with token keys: give one");
        }
        if checkpoint.as_ref().is_some_and(|c| !c.pone_terminals()) {
            bail!("the checkpoint was trained without --pone-terminals; it resumes only that way");
        }
    }
    // PONE terminals sample with compact keys: perfect recall unless asked.
    let abstraction = match abstraction {
        None if args.pone_terminals && checkpoint.is_none() => Some(Abstraction::PERFECT_RECALL),
        a => a,
    };
    if let Some(a) = abstraction {
        if !matches!(algorithm, Algorithm::MonteCarlo(Sampling::Outcome { .. })) {
            bail!("--abstraction applies to os-mccfr");
        }
        if args.keyed {
            bail!("--abstraction samples with compact keys, --keyed with token keys: give one");
        }
        if let Some(held) = checkpoint.as_ref().map(Checkpoint::abstraction)
            && held != Some(a)
        {
            let held = held.map_or("token keys, without --abstraction".to_string(), |h| {
                format!("--abstraction {h}")
            });
            bail!("the checkpoint was trained with {held}; it resumes only that way");
        }
    }
    let sample_on_tables = match (algorithm, &checkpoint) {
        (_, _) if abstraction.is_some() => false,
        (_, Some(c)) if c.abstraction().is_some() => false,
        (Algorithm::Tabular(_) | Algorithm::Regression(_), _) => {
            if args.keyed {
                bail!("--keyed applies to the samplers os-mccfr and es-mccfr");
            }
            false
        }
        (Algorithm::MonteCarlo(_), Some(c)) => {
            if args.keyed && c.needs_tables() {
                bail!(
                    "the checkpoint samples over the information-state tables; it resumes only without --keyed"
                );
            }
            c.needs_tables()
        }
        (Algorithm::MonteCarlo(_), None) => {
            !args.keyed
                && tables_can_serve_sampling(&game, matches!(backing, Backing::Tree(Some(_))))
        }
    };
    if sample_on_tables {
        let threads = rayon::current_num_threads();
        let what = format!("{} on {game} with {threads} threads", algorithm.name());
        let tables = build_tables_with_spinner(&game, limit, &what, |e| {
            sampling_memory(
                e.table_bytes() as usize,
                e.slots.map(|s| s as usize),
                e.rows.map(|r| r as usize),
            )
            .beside_tables() as f64
        })?;
        let rows = [tables.player(0).num_rows(), tables.player(1).num_rows()];
        let slots = [tables.player(0).num_slots(), tables.player(1).num_slots()];
        check_stream_memory(
            &game,
            algorithm.name(),
            Precision::F64,
            sampling_memory(tables.memory_bytes(), slots, rows),
            limit,
        )?;
        let tree = match std::mem::replace(&mut backing, Backing::Tree(None)) {
            Backing::Tree(tree) => tree,
            _ => None,
        };
        backing = Backing::SamplingTables(tree, Box::new(tables));
    }
    if !streaming && precision.is_some() {
        bail!(
            "--precision applies to streaming training (--stream, or games too large to compile)"
        );
    }
    if streaming {
        let precision = match (&checkpoint, precision) {
            (Some(c), asked) => {
                let held = c.stream_precision().unwrap_or_default();
                if asked.is_some_and(|p| p != held) {
                    bail!(
                        "the checkpoint holds {} arrays; it resumes only with --precision {}",
                        held.name(),
                        held.name()
                    );
                }
                held
            }
            (None, asked) => asked.unwrap_or_default(),
        };
        let variant = match algorithm {
            Algorithm::Tabular(variant) => variant,
            Algorithm::Regression(settings) => settings.variant(),
            Algorithm::MonteCarlo(_) => {
                unreachable!("checked above: streaming algorithms are full width")
            }
        };
        let threads = rayon::current_num_threads();
        let what = format!(
            "{} on {game} with {} arrays and {threads} threads",
            algorithm.name(),
            precision.name()
        );
        let tables = build_tables_with_spinner(&game, limit, &what, |e| {
            let slots = e.slots.map(|s| s as usize);
            CfrMemory::for_tables_of(e.table_bytes() as usize, slots, variant, precision, threads)
                .beside_tables() as f64
        })?;
        let memory = CfrMemory::new(&tables, variant, precision, threads);
        check_stream_memory(&game, algorithm.name(), precision, memory, limit)?;
        backing = Backing::Tables(Box::new(tables));
    }
    let can_evaluate = matches!(
        backing,
        Backing::Tree(Some(_)) | Backing::Tables(_) | Backing::SamplingTables(..)
    );
    if args.run.plot.is_some() && !can_evaluate {
        bail!(
            "--plot draws exact exploitability, which {game} is too large to compute; train without --plot"
        );
    }
    let workers = rayon::current_num_threads();
    let resumed = checkpoint.is_some();
    let mut trainer = match (&backing, checkpoint) {
        (Backing::Tables(t), Some(c)) => Trainer::resume_streaming(game, t, c, requested)?,
        (Backing::Tables(t), None) => {
            Trainer::streaming(game, t, algorithm, precision.unwrap_or_default())?
        }
        (Backing::Tree(tree), Some(c)) => Trainer::resume(game, tree.as_deref(), c, requested)?,
        (Backing::Tree(tree), None) => match (abstraction, algorithm) {
            (Some(a), Algorithm::MonteCarlo(Sampling::Outcome { exploration })) => {
                Trainer::compact(
                    game,
                    tree.as_deref(),
                    a,
                    exploration,
                    args.pone_terminals,
                    args.run.seed.unwrap_or(0),
                    workers,
                )?
            }
            _ => Trainer::new(
                game,
                tree.as_deref(),
                algorithm,
                args.run.seed.unwrap_or(0),
                workers,
            )?,
        },
        (Backing::SamplingTables(tree, t), Some(c)) => {
            Trainer::resume_over_tables(game, tree.as_deref(), t, c, requested)?
        }
        (Backing::SamplingTables(tree, t), None) => {
            let Algorithm::MonteCarlo(sampling) = algorithm else {
                unreachable!("only the samplers sample over the tables")
            };
            Trainer::sampling_over_tables(
                game,
                tree.as_deref(),
                t,
                sampling,
                args.run.seed.unwrap_or(0),
                workers,
            )?
        }
    };
    if let Some(order) = sum_order {
        trainer.use_sum_order(order)?;
    }
    let target = args.iterations.unwrap_or(DEFAULT_ITERATIONS);
    let batch = trainer.batch_size();
    // Without a tree, a sampler's evaluation is a pass over every history,
    // which takes longer than most runs: once at the end unless asked.
    let default_eval = match backing {
        Backing::SamplingTables(None, _) => target,
        _ => target / 10,
    };
    let schedule = match args.evals_per_decade {
        Some(n) => EvalSchedule::PerDecade(n),
        None => EvalSchedule::Every(args.run.eval_every.unwrap_or(default_eval.max(1)).max(1)),
    };

    let interrupted = interrupt::flag();
    trainer.set_stop(interrupted.clone());
    let bars = MultiProgress::new();
    let progress = bars.add(bar(target));
    progress.set_position(trainer.iteration().min(target));
    if let Backing::Tables(tables) | Backing::SamplingTables(_, tables) = &backing {
        trainer.set_progress(pass_progress(&bars, tables.histories()));
    }
    let out = Destinations {
        policy: args
            .run
            .out
            .clone()
            .unwrap_or_else(|| default_out[usize::from(policy_is_large(&trainer))].clone()),
        checkpoint: args.run.checkpoint.clone(),
    };
    // The uniform policy's exploitability is a pass over every history on
    // streaming runs: not worth it at the start.
    if trainer.iteration() == 0 && trainer.has_tree() {
        evaluate(&mut trainer)?;
    }
    let mut chunk = batch;
    // The iteration last saved and when: on a streaming run a checkpoint
    // is a large file, not to write twice (a resumed run's checkpoint
    // already holds its first iteration).
    let mut saved_at = resumed.then(|| trainer.iteration());
    let mut clock = CheckpointClock::start();
    let run_start = Instant::now();
    let mut memory_full = None;
    let out_of_time = || {
        args.run
            .time_limit
            .is_some_and(|limit| run_start.elapsed().as_secs_f64() >= limit)
    };
    while trainer.iteration() < target && !interrupted.load(Ordering::SeqCst) && !out_of_time() {
        let it = trainer.iteration();
        let next_eval = schedule.next_after(it, batch);
        let n = chunk.min(next_eval - it).min(target - it);
        let start = Instant::now();
        trainer.run(n)?;
        if let Err(e) = trainer.check_growth(limit) {
            memory_full = Some(e);
            break;
        }
        // Aim at about four progress updates a second.
        let secs = start.elapsed().as_secs_f64();
        if secs < 0.1 {
            chunk = (chunk * 2).min(next_eval - it);
        } else if secs > 0.5 && chunk > batch {
            chunk = (chunk / 2).div_ceil(batch) * batch;
        }
        progress.set_position(trainer.iteration());
        // The last evaluation comes after the loop, once the policy is
        // written.
        if trainer.iteration() == next_eval && trainer.iteration() < target {
            match evaluate(&mut trainer)? {
                Evaluation::Done(Some(e)) => {
                    progress.set_message(format!("exploitability {:.3e}", e.exploitability))
                }
                Evaluation::Done(None) => {}
                // The checkpoint after the loop is saved without it.
                Evaluation::Stopped => break,
            }
            if let Some(path) = &out.checkpoint {
                clock.save(|| save_checkpoint(&trainer, path, &out.policy, &progress))?;
                saved_at = Some(trainer.iteration());
            }
        } else if let Some(path) = &out.checkpoint
            && clock.due()
        {
            clock.save(|| save_checkpoint(&trainer, path, &out.policy, &progress))?;
            saved_at = Some(trainer.iteration());
        }
    }
    progress.finish_and_clear();
    if let Some(e) = memory_full {
        eprintln!(
            "memory limit reached: stopped at iteration {} of {target}: {e}; resume from the checkpoint with a larger limit{}",
            trainer.iteration(),
            if dark_board && trainer.abstraction().is_none() {
                ", or sample under an --abstraction"
            } else {
                ""
            },
        );
    } else if trainer.iteration() < target && out_of_time() {
        eprintln!(
            "time limit reached: stopped at iteration {} of {target}",
            trainer.iteration()
        );
    }
    // What the run did is saved before the last evaluation, which may take
    // minutes and be interrupted or killed.
    if let Some(path) = &out.checkpoint
        && saved_at != Some(trainer.iteration())
    {
        save_checkpoint(&trainer, path, &out.policy, &progress)?;
    }
    if interrupted.load(Ordering::SeqCst) {
        let written = rescue_policy(&trainer, &out.policy)?;
        return Err(Interrupted(format!(
            "interrupted at iteration {}: the average policy so far is in {}\n{}",
            trainer.iteration(),
            written.display(),
            out.resume_hint()
        ))
        .into());
    }
    trainer.save_policy(&out.policy)?;
    let e = match last_evaluation(&trainer) {
        Some(e) => Some(e),
        None => match evaluate(&mut trainer)? {
            Evaluation::Done(e) => {
                // Saved again with the evaluation, so that the policy's
                // provenance, a resumed run's history and the plot have it.
                if e.is_some() {
                    if let Some(path) = &out.checkpoint {
                        save_checkpoint(&trainer, path, &out.policy, &progress)?;
                    }
                    trainer.save_policy(&out.policy)?;
                }
                e.map(|e| (e.exploitability, e.value_p0))
            }
            Evaluation::Stopped => {
                return Err(Interrupted(format!(
                    "interrupted during the final evaluation, at iteration {}: the policy is in {}, its exploitability was not computed (`darkhex exploit {} {}` computes it)\n{}",
                    trainer.iteration(),
                    out.policy.display(),
                    quoted(&game.game_string()),
                    out.policy.display(),
                    out.resume_hint()
                ))
                .into());
            }
        },
    };
    if let Some(plot) = &args.run.plot {
        crate::plot::convergence(
            plot,
            &game.game_string(),
            algorithm.name(),
            trainer.history(),
        )?;
    }
    report(&args, &trainer, e, &out.policy)
}

/// Which network trainers take each option they do not all take ("cfr"
/// standing for the CFR family, which checks its own), as
/// `(option, given, trainers)`.
fn network_options(args: &TrainArgs) -> [(&'static str, bool, &'static [&'static str]); 29] {
    const SAMPLED: &[&str] = &[DEEP_CFR, ESCHER];
    const EVALUATED: &[&str] = &["cfr", ESCHER, PPO, MMD, NFSP];
    const CFR: &[&str] = &["cfr"];
    [
        (
            "--iterations",
            args.iterations.is_some(),
            &["cfr", DEEP_CFR, ESCHER],
        ),
        ("--plot", args.run.plot.is_some(), EVALUATED),
        ("--eval-every", args.run.eval_every.is_some(), EVALUATED),
        ("--evals-per-decade", args.evals_per_decade.is_some(), CFR),
        ("--alpha", args.alpha.is_some(), CFR),
        ("--beta", args.beta.is_some(), CFR),
        ("--gamma", args.gamma.is_some(), CFR),
        ("--exploration", args.exploration.is_some(), CFR),
        ("--features", args.features.is_some(), CFR),
        ("--link", args.link.is_some(), CFR),
        ("--power", args.power.is_some(), CFR),
        ("--temperature", args.temperature.is_some(), CFR),
        ("--ridge", args.ridge.is_some(), CFR),
        ("--regressor", args.regressor.is_some(), CFR),
        ("--stream", args.stream, CFR),
        ("--precision", args.precision.is_some(), CFR),
        ("--sum-order", args.sum_order.is_some(), CFR),
        ("--keyed", args.keyed, CFR),
        ("--abstraction", args.abstraction.is_some(), CFR),
        ("--pone-terminals", args.pone_terminals, CFR),
        ("--traversals", args.traversals.is_some(), SAMPLED),
        ("--explore", args.explore.is_some(), &[DEEP_CFR]),
        (
            "--advantage-capacity",
            args.advantage_capacity.is_some(),
            SAMPLED,
        ),
        (
            "--strategy-capacity",
            args.strategy_capacity.is_some(),
            &[DEEP_CFR, ESCHER, NFSP],
        ),
        ("--policy-steps", args.policy_steps.is_some(), SAMPLED),
        ("--fit-steps", args.fit_steps.is_some(), SAMPLED),
        (
            "--batch-size",
            args.batch_size.is_some(),
            &["cfr", DEEP_CFR, ESCHER, NFSP],
        ),
        (
            "--hidden",
            args.hidden.is_some(),
            &["cfr", DEEP_CFR, ESCHER, PPO, MMD, NFSP],
        ),
        (
            "--learning-rate",
            args.learning_rate.is_some(),
            &["cfr", DEEP_CFR, ESCHER, PPO, MMD, NFSP],
        ),
    ]
}

/// Refuses the first option given that the network trainer `algo` does
/// not take, pointing to its own where it has one under another name.
fn refuse_unused(args: &TrainArgs, algo: &str) -> Result<()> {
    let own = |name: &str| match (algo, name) {
        (PPO | MMD, "--gamma") => " (ppo and mmd's discount is --discount)",
        (PPO | MMD, "--batch-size") => " (ppo and mmd's is --minibatches)",
        (ESCHER, "--exploration") => " (escher's is --value-exploration)",
        _ => "",
    };
    let unused = network_options(args)
        .into_iter()
        .find(|&(_, given, takers)| given && !takers.contains(&algo));
    if let Some((name, ..)) = unused {
        bail!("{algo} does not take {name}{}", own(name));
    }
    Ok(())
}

/// Deep CFR: its settings from the options, refusing those it ignores.
fn run_deep_cfr(args: TrainArgs) -> Result<()> {
    refuse_unused(&args, DEEP_CFR)?;
    let mut s = DeepCfrSettings::new(
        args.iterations.unwrap_or(DEFAULT_ITERATIONS),
        args.run.seed.unwrap_or(0),
    );
    s.traversals = args.traversals.unwrap_or(s.traversals);
    s.explored_actions = args.explore.unwrap_or(s.explored_actions);
    s.advantage_capacity = args.advantage_capacity.unwrap_or(s.advantage_capacity);
    s.strategy_capacity = args.strategy_capacity.unwrap_or(s.strategy_capacity);
    for network in [&mut s.advantage_network, &mut s.policy_network] {
        network.hidden = args.hidden.unwrap_or(network.hidden);
        network.batch = args.batch_size.unwrap_or(network.batch);
        network.learning_rate = args.learning_rate.unwrap_or(network.learning_rate);
    }
    s.advantage_network.steps = args.fit_steps.unwrap_or(s.advantage_network.steps);
    s.policy_network.steps = args
        .policy_steps
        .unwrap_or(s.advantage_network.steps.saturating_mul(4));
    let run = network_run(&args, DEEP_CFR)?;
    let given = [
        ("--traversals", args.traversals.is_some()),
        ("--explore", args.explore.is_some()),
        ("--advantage-capacity", args.advantage_capacity.is_some()),
        ("--strategy-capacity", args.strategy_capacity.is_some()),
        ("--hidden", args.hidden.is_some()),
        ("--fit-steps", args.fit_steps.is_some()),
        ("--policy-steps", args.policy_steps.is_some()),
        ("--batch-size", args.batch_size.is_some()),
        ("--learning-rate", args.learning_rate.is_some()),
        ("--seed", args.run.seed.is_some()),
    ];
    crate::train_deep::run(crate::train_deep::DeepArgs {
        run,
        settings: s,
        given: given.iter().filter(|g| g.1).map(|g| g.0).collect(),
        eval_histories: EVAL_TREE_HISTORIES,
    })
}

/// ESCHER: its settings from the options (over a preset's), refusing
/// those it ignores.
fn run_escher(args: TrainArgs) -> Result<()> {
    let rl = args.rl.clone();
    let rl_given = RlOptions {
        preset: None,
        no_eval: false,
        ..rl.clone()
    };
    refuse_unused(&args, ESCHER)?;
    if let Some(name) = rl_given.first_given() {
        bail!("escher does not take {name} (of ppo and mmd; escher counts --iterations)");
    }
    let e = &args.escher;
    let options = EscherGiven {
        preset: rl.preset.clone(),
        regret_traversals: args.traversals,
        value_traversals: e.value_traversals,
        value_exploration: e.value_exploration,
        regret_capacity: args.advantage_capacity,
        policy_capacity: args.strategy_capacity,
        hidden: args.hidden,
        batch: args.batch_size,
        learning_rate: args.learning_rate,
        fit_steps: args.fit_steps,
        value_steps: e.value_steps,
        policy_steps: args.policy_steps,
    };
    let iterations = args.iterations.unwrap_or(DEFAULT_ITERATIONS);
    let s = options.settings(&args.game, iterations, args.run.seed.unwrap_or(0))?;
    let run = network_run(&args, ESCHER)?;
    let mut given: Vec<&'static str> = [
        ("--preset", rl.preset.is_some()),
        ("--traversals", args.traversals.is_some()),
        ("--advantage-capacity", args.advantage_capacity.is_some()),
        ("--strategy-capacity", args.strategy_capacity.is_some()),
        ("--hidden", args.hidden.is_some()),
        ("--fit-steps", args.fit_steps.is_some()),
        ("--policy-steps", args.policy_steps.is_some()),
        ("--batch-size", args.batch_size.is_some()),
        ("--learning-rate", args.learning_rate.is_some()),
        ("--seed", args.run.seed.is_some()),
    ]
    .iter()
    .filter(|g| g.1)
    .map(|g| g.0)
    .collect();
    given.extend(e.given());
    crate::train_escher::run(crate::train_escher::EscherArgs {
        run,
        settings: s,
        given,
    })
}

/// PPO and MMD: their settings from the options, refusing those they ignore.
fn run_rl(args: TrainArgs) -> Result<()> {
    let algorithm = if args.algo.as_deref() == Some(MMD) {
        MMD
    } else {
        PPO
    };
    refuse_unused(&args, algorithm)?;
    crate::train_rl::run(crate::train_rl::RlArgs {
        run: network_run(&args, algorithm)?,
        algorithm,
        options: args.rl,
        hidden: args.hidden,
        learning_rate: args.learning_rate,
    })
}

/// NFSP: its settings from the options (over a preset's), refusing those
/// it ignores.
fn run_nfsp(args: TrainArgs) -> Result<()> {
    refuse_unused(&args, NFSP)?;
    let ppo_only = RlOptions {
        steps: None,
        preset: None,
        no_eval: false,
        ..args.rl.clone()
    };
    if let Some(name) = ppo_only.first_given() {
        bail!("nfsp does not take {name} (of ppo and mmd)");
    }
    let run = network_run(&args, NFSP)?;
    let named: Vec<&'static str> = [
        ("--preset", args.rl.preset.is_some()),
        ("--hidden", args.hidden.is_some()),
        ("--learning-rate", args.learning_rate.is_some()),
        ("--batch-size", args.batch_size.is_some()),
        ("--strategy-capacity", args.strategy_capacity.is_some()),
        ("--seed", args.run.seed.is_some()),
    ]
    .iter()
    .filter(|g| g.1)
    .map(|g| g.0)
    .chain(args.nfsp.given())
    .collect();
    let f = &args.nfsp;
    let options = NfspOptions {
        preset: args.rl.preset.clone(),
        hidden: args.hidden,
        learning_rate: args.learning_rate,
        batch_size: args.batch_size,
        reservoir_capacity: args
            .strategy_capacity
            .map(|c| u32::try_from(c).unwrap_or(u32::MAX)),
        anticipatory: f.anticipatory,
        rl_learning_rate: f.rl_learning_rate,
        replay_capacity: f.replay_capacity,
    };
    crate::train_nfsp::run(crate::train_nfsp::NfspArgs {
        run,
        options,
        steps: args.rl.steps.unwrap_or(DEFAULT_STEPS),
        named,
    })
}

/// What a network trainer's run takes beside its settings: the run's
/// flags, where its model goes (see [`model_path`]), --no-eval and the
/// memory allowed.
fn network_run(args: &TrainArgs, algo: &str) -> Result<NetworkRun> {
    Ok(NetworkRun {
        game: args.game,
        flags: args.run.clone(),
        out: model_path(args, algo)?,
        no_eval: args.rl.no_eval,
        limit: memory_limit(),
    })
}

/// Where a network's model goes: `--out`, or the default path of `algo`
/// (checked by the output guard here, as `main` checked `--out`).
fn model_path(args: &TrainArgs, algo: &str) -> Result<PathBuf> {
    if let Some(out) = &args.run.out {
        return Ok(out.clone());
    }
    let out = default_policy_path(&args.game, algo, true);
    files(args)?
        .writes(
            "the model's default path",
            Some(&out),
            Holds::Document(FileKind::Model),
        )
        .check()?;
    Ok(out)
}

/// Where a run writes its policy and checkpoint.
struct Destinations {
    policy: PathBuf,
    checkpoint: Option<PathBuf>,
}

impl Destinations {
    /// How an interrupted run continues.
    fn resume_hint(&self) -> String {
        match &self.checkpoint {
            Some(p) => format!("rerun with --resume to continue from {}", p.display()),
            None => "use --checkpoint FILE --resume to make runs resumable".to_string(),
        }
    }
}

/// A game string as a shell takes it.
fn quoted(game: &str) -> String {
    if game.contains('(') {
        format!("'{game}'")
    } else {
        game.to_string()
    }
}

/// What an evaluation of the average policy gave.
enum Evaluation {
    /// Its exploitability, when the run can compute it (with the tree or
    /// the tables).
    Done(Option<Exploitability>),
    /// A signal stopped its pass over the histories.
    Stopped,
}

fn evaluate(trainer: &mut Trainer) -> Result<Evaluation> {
    match trainer.evaluate() {
        Ok(e) => Ok(Evaluation::Done(e)),
        Err(TrainError::Stream(StreamError::Stopped)) => Ok(Evaluation::Stopped),
        Err(e) => Err(e.into()),
    }
}

/// The exploitability and value recorded at the current iteration, if
/// any (a finished run given again).
fn last_evaluation(trainer: &Trainer) -> Option<(f64, f64)> {
    let last = trainer.history().last()?;
    if last.iteration != trainer.iteration() {
        return None;
    }
    last.exploitability.zip(last.value_p0)
}

/// When a run evaluates: every K iterations, or N times a decade.
enum EvalSchedule {
    Every(u64),
    PerDecade(u32),
}

impl EvalSchedule {
    /// The first evaluation after iteration `it`, a multiple of `batch`.
    fn next_after(&self, it: u64, batch: u64) -> u64 {
        match *self {
            EvalSchedule::Every(k) => {
                let k = k.div_ceil(batch) * batch;
                (it / k + 1) * k
            }
            EvalSchedule::PerDecade(n) => (0..)
                .map(|j| 10f64.powf(f64::from(j) / f64::from(n)).round() as u64)
                .find(|&p| p > it)
                .map_or(u64::MAX, |p| p.div_ceil(batch).saturating_mul(batch)),
        }
    }
}

/// A bar over the passes of a streaming run: each pass's share of the
/// game's histories (a regret pass skips what the opponent never reaches,
/// so it may end early), what the pass computes, and the time it has left.
fn pass_progress(
    bars: &MultiProgress,
    histories: u64,
) -> Box<dyn Fn(StreamProgress) + Send + Sync> {
    let bar: ProgressBar = bars.add(histories_bar(histories));
    let last = std::sync::Mutex::new(None);
    Box::new(move |p: StreamProgress| {
        let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
        if *last != Some(p.kind) {
            *last = Some(p.kind);
            bar.reset();
            bar.set_message(match p.kind {
                PassKind::Regrets { player } => format!("player {player}'s regrets"),
                PassKind::Exploitability => "exploitability".to_string(),
            });
        }
        bar.set_position(p.histories);
    })
}

/// Prints what a streaming run needs in memory, counted on its built
/// tables, and refuses it past the memory guard's limit (the estimate let
/// the build through).
fn check_stream_memory(
    game: &AnyGame,
    algorithm: &str,
    precision: Precision,
    m: CfrMemory,
    limit: MemoryLimit,
) -> Result<()> {
    let threads = rayon::current_num_threads();
    let size = darkhex_algorithms::bytes::readable_bytes;
    let need = format!(
        "{algorithm} on {game} needs about {}: tables {}, {} solver arrays {}, policy and scratch {}, passes with {threads} threads {} (checkpoints {})",
        size(m.total() as f64),
        size(m.tables as f64),
        precision.name(),
        size(m.solver_arrays as f64),
        size(m.working_arrays as f64),
        size(m.pass as f64),
        size(m.checkpoint as f64),
    );
    if limit.check("", m.total() as f64, "").is_err() {
        bail!(
            "{need}, more than {}: try --precision f32, fewer --threads, or a larger machine",
            limit.describe()
        );
    }
    eprintln!("{need}");
    Ok(())
}

/// Whether a sampler runs over the information-state tables rather than
/// keyed tables: on games small enough to compile (their tables take no
/// time) and on Dark Hex boards the streaming passes take.
fn tables_can_serve_sampling(game: &AnyGame, compiled: bool) -> bool {
    let buildable = || AnyStream::new(game).is_ok();
    if compiled {
        return buildable();
    }
    game.is_dark_board()
        && with_game!(game, g => estimate_histories(g, 256, 0)) <= AUTO_STREAM_HISTORIES
        && buildable()
}

/// What sampling over tables of `table_bytes` holds: CFR+'s two f64
/// arrays, a bit per row for the rows met, and an exploitability pass at
/// the end.
fn sampling_memory(table_bytes: usize, slots: [usize; 2], rows: [usize; 2]) -> CfrMemory {
    let threads = rayon::current_num_threads();
    let mut m = CfrMemory::for_tables_of(
        table_bytes,
        slots,
        CfrVariant::Plus,
        Precision::F64,
        threads,
    );
    m.working_arrays += (rows[0] + rows[1]) / 8;
    m
}

/// Saves a checkpoint; when that fails, the average policy is written
/// instead (see [`rescue_policy`]) and the run stops, saying where it went.
fn save_checkpoint(
    trainer: &Trainer,
    path: &Path,
    policy: &Path,
    progress: &indicatif::ProgressBar,
) -> Result<()> {
    let Err(e) = trainer.checkpoint().save(path) else {
        return Ok(());
    };
    progress.finish_and_clear();
    let written = rescue_policy(trainer, policy)?;
    bail!(
        "{e}\nstopped at iteration {}: the average policy so far is in {}",
        trainer.iteration(),
        written.display()
    )
}

/// Writes the current average policy to `path` (`--out` or the default
/// path), or failing that to the system's temporary directory; returns where.
fn rescue_policy(trainer: &Trainer, path: &Path) -> Result<PathBuf> {
    if trainer.save_policy(path).is_ok() {
        return Ok(path.to_path_buf());
    }
    let fallback = std::env::temp_dir().join(path.file_name().context("a policy file name")?);
    trainer
        .save_policy(&fallback)
        .with_context(|| format!("cannot write the policy to {} either", path.display()))?;
    Ok(fallback)
}

fn report(
    args: &TrainArgs,
    trainer: &Trainer,
    eval: Option<(f64, f64)>,
    path: &Path,
) -> Result<()> {
    let game = args.game.game_string();
    let algo = trainer.algorithm().name();
    if args.run.json {
        let json = serde_json::json!({
            "game": game,
            "algo": algo,
            "iterations": trainer.iteration(),
            "exploitability": eval.map(|e| e.0),
            "value_p0": eval.map(|e| e.1),
            "seconds": trainer.seconds(),
            "threads": trainer.workers(),
            "precision": trainer.precision().map(Precision::name),
            "sum_order": trainer.sum_order().map(SumOrder::name),
            "over_tables": trainer.uses_tables(),
            "abstraction": trainer.abstraction().map(|a| a.name()),
            "pone_terminals": trainer.pone_terminals(),
            "pone_terminal_histories": trainer.pone_ends(),
            "policy": path.display().to_string(),
            "history": trainer.history(),
        });
        outln!("{json}");
        return Ok(());
    }
    print_summary(
        &game,
        algo,
        trainer.iteration(),
        eval,
        " (sampling over the information-state tables, without --keyed, computes it by a streaming pass)",
    )?;
    if let Some(p) = trainer.precision() {
        outln!(
            "method           streaming passes over every history, {} arrays",
            p.name()
        );
    } else if trainer.sum_order() == Some(SumOrder::OpenSpiel) {
        outln!("method           compiled tree, regrets summed in OpenSpiel's order");
    } else if let Some(a) = trainer.abstraction() {
        outln!("method           sampling with compact keys under the abstraction {a}");
        if let Some(ends) = trainer.pone_ends() {
            outln!("PONE terminals   {ends} sampled histories ended at a sure win PONE proved");
        }
    } else if trainer.workers().is_some() {
        outln!(
            "method           {}",
            if trainer.uses_tables() {
                "sampling over the information-state tables"
            } else {
                "sampling on the State API, tables keyed by information-state tokens"
            }
        );
    }
    outln!("seconds          {:.3}", trainer.seconds());
    if let Some(workers) = trainer.workers() {
        outln!(
            "threads          {workers} (Monte Carlo results depend on it: --threads {workers} --seed {} reproduces them)",
            args.run.seed.unwrap_or(0)
        );
    }
    outln!("policy           {}", path.display());
    if let Some(plot) = &args.run.plot {
        outln!("plot             {}", plot.display());
    }
    Ok(())
}
