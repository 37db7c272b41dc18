//! `darkhex bounds`: certified bounds on the first player's value. A
//! strategy for Black is worth at least what it earns against White's
//! exact best response (a lower bound on Black's value); a strategy for
//! White caps Black's value by what Black's best response earns against
//! it. Both best responses are exact, restricted to the strategies'
//! supports (darkhex_algorithms::restricted_br), so they reach boards no
//! table holds.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use darkhex_algorithms::fa::model::PolicyModel;
use darkhex_algorithms::files::{self, Document, Encoding, FileKind};
use darkhex_algorithms::policy_file::{CutFrom, InfosetPolicy, require_game};
use darkhex_algorithms::pone::Strategy;
use darkhex_algorithms::restricted_br::{
    self, FixedPolicy, Missing, ModelPolicy, Outcome, Partial, PerSeat, PoneMoves, Response,
    Settings, Thresholded, profile_value, restricted_best_response,
};
use darkhex_algorithms::{PolicyFile, PolicyTable, Provenance};
use darkhex_games::{AnyGame, with_game};
use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::args::{memory_limit, set_threads};
use crate::help;
use crate::info::duration;
use crate::interrupt::{self, Interrupted};
use crate::output::outln;
use crate::outputs::{Files, Holds};

mod oracle;

#[derive(Args)]
#[command(after_help = help::after(&[
    "darkhex bounds 'dark_hex(num_rows=2,num_cols=3,gameversion=adh)' --black b.json --white w.json",
    "darkhex bounds 'dark_hex(num_rows=4,num_cols=3)' --black black.json --response-to-black white-br.json --verify",
    "darkhex bounds 'dark_hex(num_rows=4,num_cols=3)' --white white.json --missing uniform --json",
    "darkhex bounds 'dark_hex(num_rows=4,num_cols=3,gameversion=adh)' --double-oracle --seed-file mccfr.json --out-black black.json --out-white white.json --checkpoint do.progress",
], &[help::GAMES]))]
pub struct BoundsArgs {
    /// Game string the strategies were made for
    #[arg(value_parser = crate::parse_game)]
    game: AnyGame,
    /// Black's (player 0's) strategy: a policy file (its player-0 entries),
    /// a policy model, or a PONE strategy for player 0; proves a lower
    /// bound on Black's value
    #[arg(long, required_unless_present_any = ["white", "double_oracle"], conflicts_with = "double_oracle")]
    black: Option<PathBuf>,
    /// White's (player 1's) strategy, read as --black is; proves an upper
    /// bound on Black's value
    #[arg(long)]
    white: Option<PathBuf>,
    /// Where a strategy has no entry at an information state its own play
    /// reaches: `error` names the state and stops, `uniform` plays every
    /// legal action alike there, `lowest` its lowest legal action (a pure
    /// default, which keeps a thresholded policy's support small); both
    /// count the states
    #[arg(long, value_enum, default_value_t = MissingArg::Error)]
    missing: MissingArg,
    /// Cut each strategy to a smaller support first: at every information
    /// state keep the actions of probability at least this, renormalised
    /// (where none reaches it, the first most likely). The bounds are those
    /// of the cut strategies
    #[arg(long, conflicts_with = "double_oracle", value_parser = crate::args::number_in(0.0, 1.0, false))]
    threshold: Option<f64>,
    /// Refuse a best response that Knuth's estimate says visits more
    /// histories than this (about a million a second a core)
    #[arg(long, default_value_t = 1e10, value_parser = crate::args::number_in(1.0, 1e18, false))]
    max_work: f64,
    /// Write White's best response to --black here (a policy file: its
    /// move at every information state it and the strategy reach)
    #[arg(long, requires = "black")]
    response_to_black: Option<PathBuf>,
    /// Write Black's best response to --white here
    #[arg(long, requires = "white")]
    response_to_white: Option<PathBuf>,
    /// Write Black's strategy as the walk played it here: cut by
    /// --threshold, completed by --missing, at only the information states
    /// its play reaches against any play of White's. A policy file, often
    /// far smaller than --black, that proves the same bound read back
    /// without --threshold
    #[arg(long, requires = "black")]
    cut_black: Option<PathBuf>,
    /// Write White's strategy as the walk played it here (as --cut-black)
    #[arg(long, requires = "white")]
    cut_white: Option<PathBuf>,
    /// Check each bound a second way: the best response written out, played
    /// against the strategy over the two supports, must earn the bound
    #[arg(long)]
    verify: bool,
    /// Keep the finished parts of the best responses here: an interrupted
    /// run saves them, and a run given a file that holds them (for the same
    /// game, strategy files and --missing) resumes from them
    #[arg(long)]
    checkpoint: Option<PathBuf>,
    /// Find the strategies instead: a double oracle over the sequences of
    /// the best responses found (--restricted), each restricted game solved
    /// by LP, each side's exact best response to its equilibrium added,
    /// until the bounds meet (or --gap); every restricted equilibrium
    /// strategy is a certificate
    #[arg(long)]
    double_oracle: bool,
    /// The double oracle's restricted game: `sequence`, every combination
    /// of the sequences its pure strategies play (Bosansky et al.'s
    /// sequence form), or `normal`, the mixtures of its pure strategies
    #[arg(long, default_value = "sequence", requires = "double_oracle", value_parser = ["sequence", "normal"])]
    restricted: String,
    /// A strategy the double oracle starts from: a policy file (each
    /// player's entries, purified: the most likely action) or a PONE
    /// strategy; repeatable. Without seeds each side starts from the
    /// strategy that plays its lowest legal action everywhere
    #[arg(long, requires = "double_oracle")]
    seed_file: Vec<PathBuf>,
    /// The double oracle stops when the best bounds are this close
    #[arg(long, default_value_t = 1e-12, requires = "double_oracle", value_parser = crate::args::number_in(0.0, 1e9, true))]
    gap: f64,
    /// The double oracle stops after this many iterations (an LP and two
    /// best responses each)
    #[arg(long, default_value_t = 1000, requires = "double_oracle")]
    max_iterations: usize,
    /// Write the double oracle's best strategy for Black here (a policy
    /// file: the certificate of the lower bound, for --black)
    #[arg(long, requires = "double_oracle")]
    out_black: Option<PathBuf>,
    /// Write the double oracle's best strategy for White here (the
    /// certificate of the upper bound, for --white)
    #[arg(long, requires = "double_oracle")]
    out_white: Option<PathBuf>,
    /// Print one JSON object
    #[arg(long)]
    json: bool,
    /// Worker threads (default: all cores); the bounds do not depend on it
    #[arg(long, allow_negative_numbers = true, value_parser = crate::args::threads)]
    threads: Option<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum MissingArg {
    Error,
    Uniform,
    Lowest,
}

impl MissingArg {
    fn missing(self) -> Missing {
        match self {
            MissingArg::Error => Missing::Error,
            MissingArg::Uniform => Missing::Uniform,
            MissingArg::Lowest => Missing::Lowest,
        }
    }

    fn name(self) -> &'static str {
        match self {
            MissingArg::Error => "error",
            MissingArg::Uniform => "uniform",
            MissingArg::Lowest => "lowest",
        }
    }
}

/// What `bounds` reads and writes, for the output guard.
pub fn files(args: &BoundsArgs) -> Files {
    let seeds = args
        .seed_file
        .iter()
        .fold(Files::new(), |f, s| f.reads("--seed-file", Some(s)));
    seeds
        .reads("--black", args.black.as_deref())
        .reads("--white", args.white.as_deref())
        .writes(
            "--out-black",
            args.out_black.as_deref(),
            Holds::Document(FileKind::Policy),
        )
        .writes(
            "--out-white",
            args.out_white.as_deref(),
            Holds::Document(FileKind::Policy),
        )
        .writes(
            "--response-to-black",
            args.response_to_black.as_deref(),
            Holds::Document(FileKind::Policy),
        )
        .writes(
            "--response-to-white",
            args.response_to_white.as_deref(),
            Holds::Document(FileKind::Policy),
        )
        .writes(
            "--cut-black",
            args.cut_black.as_deref(),
            Holds::Document(FileKind::Policy),
        )
        .writes(
            "--cut-white",
            args.cut_white.as_deref(),
            Holds::Document(FileKind::Policy),
        )
        .writes(
            "--checkpoint",
            args.checkpoint.as_deref(),
            Holds::Document(FileKind::BoundsProgress),
        )
}

const PROGRESS_VERSION: u32 = 1;

/// The finished parts of each seat's best response (`--checkpoint`).
#[derive(Serialize, Deserialize)]
struct BoundsProgress {
    format: String,
    version: u32,
    game: String,
    /// Black's strategy's, then White's.
    seats: [Option<SeatProgress>; 2],
    /// A double oracle's sets and certificates (--double-oracle).
    #[serde(default)]
    oracle: Option<oracle::Sets>,
}

#[derive(Clone, Serialize, Deserialize)]
struct SeatProgress {
    /// Of the strategy file's bytes and --missing: parts of another
    /// strategy's best response are never resumed.
    fingerprint: u64,
    partial: Partial,
}

impl Document for BoundsProgress {
    const KIND: FileKind = FileKind::BoundsProgress;
    const VERSION: u32 = PROGRESS_VERSION;
    fn game(&self) -> &str {
        &self.game
    }
}

fn fingerprint(file: &Path, missing: MissingArg, threshold: Option<f64>) -> Result<u64> {
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    let mut h = rustc_hash::FxHasher::default();
    bytes.hash(&mut h);
    (missing == MissingArg::Uniform).hash(&mut h);
    // Hashed only when used, so that progress saved before they existed
    // still resumes.
    if missing == MissingArg::Lowest {
        "lowest".hash(&mut h);
    }
    if let Some(t) = threshold {
        t.to_bits().hash(&mut h);
    }
    Ok(h.finish())
}

/// A strategy file, read as whichever kind it is.
enum Loaded {
    Table(PolicyTable),
    Model(Box<PolicyModel>),
    Pone(PoneMoves),
}

fn load(path: &Path, seat: usize, game: &AnyGame) -> Result<Loaded> {
    Ok(match files::identify(path) {
        Some(FileKind::Model) => Loaded::Model(Box::new(PolicyModel::load_for(path, game)?.0)),
        Some(FileKind::PoneStrategy) => {
            let strategy = Strategy::load(path)?;
            require_game(&strategy.game, game)?;
            if strategy.player != seat {
                bail!(
                    "{} is a PONE strategy for player {}, not for player {seat}",
                    path.display(),
                    strategy.player
                );
            }
            Loaded::Pone(PoneMoves::new(&strategy))
        }
        _ => Loaded::Table(PolicyTable::new(&PolicyFile::load_for(path, game)?)),
    })
}

/// One seat's bound: its strategy against the other seat's exact best response.
struct Bound {
    seat: usize,
    file: PathBuf,
    /// Black's value is at least (seat 0) or at most (seat 1) this.
    bound: f64,
    response: Response,
    estimate: restricted_br::RestrictedEstimate,
    seconds: f64,
    written: Option<PathBuf>,
    /// What the written response earns against the strategy (--verify).
    verified: Option<f64>,
    /// Where the strategy as walked was written (--cut-black, --cut-white).
    cut: Option<PathBuf>,
}

const SEAT: [&str; 2] = ["Black", "White"];

pub fn run(args: BoundsArgs) -> Result<()> {
    set_threads(args.threads)?;
    if args.double_oracle {
        return oracle::run(&args);
    }
    let seats = [
        (0, args.black.clone(), args.response_to_black.clone()),
        (1, args.white.clone(), args.response_to_white.clone()),
    ];
    let cuts = [args.cut_black.as_deref(), args.cut_white.as_deref()];
    // Every file read before any long work: a bad one is refused at once.
    let mut loaded = Vec::new();
    for (seat, file, out) in seats {
        if let Some(file) = file {
            let strategy = load(&file, seat, &args.game)
                .with_context(|| format!("reading {}'s strategy", SEAT[seat]))?;
            loaded.push((seat, file, out, strategy));
        }
    }
    let mut progress = match &args.checkpoint {
        Some(p) if p.exists() => {
            let saved: BoundsProgress = files::load(p)?;
            require_game(&saved.game, &args.game)?;
            saved
        }
        _ => BoundsProgress {
            format: FileKind::BoundsProgress.format().to_string(),
            version: PROGRESS_VERSION,
            game: args.game.to_string(),
            seats: [None, None],
            oracle: None,
        },
    };
    let mut bounds = Vec::new();
    for (seat, file, out, strategy) in &loaded {
        let print = fingerprint(file, args.missing, args.threshold)?;
        let cut_to = cuts[*seat];
        // Parts walked without keeping the strategy's states cannot make
        // its cut: they are walked again.
        let resume = progress.seats[*seat]
            .take()
            .filter(|s| s.fingerprint == print && (cut_to.is_none() || s.partial.kept.is_some()))
            .map(|s| s.partial);
        let model;
        let read: &dyn FixedPolicy = match strategy {
            Loaded::Table(t) => t,
            Loaded::Pone(p) => p,
            Loaded::Model(m) => {
                model = ModelPolicy::new(m);
                &model
            }
        };
        let cut;
        let policy = match args.threshold {
            Some(threshold) => {
                cut = Thresholded {
                    source: read,
                    threshold,
                };
                &cut as &dyn FixedPolicy
            }
            None => read,
        };
        let outputs = Outputs {
            response: out.as_deref(),
            cut: cut_to,
        };
        let found =
            with_game!(&args.game, g => one_bound(&args, g, *seat, file, outputs, policy, resume))?;
        let (partial, bound) = match found {
            Ok(bound) => (bound.response.finished.clone(), Some(bound)),
            Err(partial) => (partial, None),
        };
        let (done, all) = (partial.finished(), partial.units.len());
        progress.seats[*seat] = Some(SeatProgress {
            fingerprint: print,
            partial,
        });
        if let Some(path) = &args.checkpoint {
            files::save(path, &progress, Encoding::for_path(path))?;
        }
        match bound {
            Some(b) => bounds.push(b),
            None => {
                let kept = match &args.checkpoint {
                    Some(c) => format!(
                        "the finished parts are in {}: the same command resumes",
                        c.display()
                    ),
                    None => "nothing was kept (--checkpoint FILE keeps the finished parts)".into(),
                };
                return Err(Interrupted(format!(
                    "interrupted during {}'s best response to {}, {done} of {all} parts done; {kept}",
                    SEAT[1 - seat],
                    file.display()
                ))
                .into());
            }
        }
    }
    report(&args, &bounds)
}

/// What one seat's bound writes.
#[derive(Clone, Copy)]
struct Outputs<'a> {
    /// The best response (--response-to-black, --response-to-white).
    response: Option<&'a Path>,
    /// The strategy as walked (--cut-black, --cut-white).
    cut: Option<&'a Path>,
}

fn one_bound<G: darkhex_games::Game>(
    args: &BoundsArgs,
    game: &G,
    seat: usize,
    file: &Path,
    outputs: Outputs,
    policy: &dyn FixedPolicy,
    resume: Option<Partial>,
) -> Result<Result<Bound, Partial>> {
    let responder = 1 - seat;
    let missing = args.missing.missing();
    let threads = rayon::current_num_threads();
    let spin = ProgressBar::new_spinner();
    spin.set_message(format!(
        "estimating {}'s best response to {}",
        SEAT[responder],
        file.display()
    ));
    spin.enable_steady_tick(Duration::from_millis(200));
    let estimate = restricted_br::estimate(
        game,
        policy,
        responder,
        missing,
        64,
        100_000,
        Duration::from_secs(2),
        0,
    )
    .with_context(|| format!("estimating the best response to {}", file.display()))?;
    spin.finish_and_clear();
    let hours = estimate.seconds(threads) / 3600.0;
    if estimate.histories > args.max_work {
        bail!(
            "{}'s best response to {} would visit {}, more than --max-work {:.1e} allows (about {} on {threads} threads at the probes' pace); a strategy with a smaller support, or a larger --max-work, is needed",
            SEAT[responder],
            file.display(),
            estimate.text(),
            args.max_work,
            duration(hours * 3600.0)
        );
    }
    // Each thread holds the beliefs on its path; the units near the root
    // are held throughout.
    memory_limit().check(
        format!("the best response to {}", file.display()),
        estimate.path_bytes * (threads as f64 + 64.0),
        "the largest beliefs on the estimate's paths, once a thread and once a unit",
    )?;
    let stop = interrupt::flag();
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:32.cyan/blue} {pos}/{len} parts  {msg}  [{elapsed_precise} < {eta}]",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let progress = |p: restricted_br::Progress| {
        bar.set_length(p.units as u64);
        bar.set_position(p.units_done as u64);
        bar.set_message(format!(
            "{:.1e} of about {:.1e} histories",
            p.histories as f64, estimate.histories
        ));
    };
    let out = outputs.response;
    let settings = Settings {
        missing,
        record: out.is_some() || args.verify,
        keep: outputs.cut.is_some(),
    };
    let start = Instant::now();
    let outcome =
        restricted_best_response(game, policy, responder, settings, resume, &stop, &progress)
            .with_context(|| format!("best responding to {}", file.display()))?;
    bar.finish_and_clear();
    let response = match outcome {
        Outcome::Done(r) => r,
        Outcome::Stopped(partial) => return Ok(Err(partial)),
    };
    let seconds = start.elapsed().as_secs_f64();
    let bound = if seat == 0 {
        -response.value
    } else {
        response.value
    };
    let written = match out {
        Some(path) => {
            response_file(game, responder, &response).save(path)?;
            Some(path.to_path_buf())
        }
        None => None,
    };
    let verified = if args.verify {
        let table = PolicyTable::new(&response_file(game, responder, &response));
        let profile: [Option<&dyn FixedPolicy>; 2] = if seat == 0 {
            [Some(policy), Some(&table)]
        } else {
            [Some(&table), Some(policy)]
        };
        let (v0, _) = profile_value(game, &PerSeat(profile), missing)
            .context("playing the best response against the strategy")?;
        if (v0 - bound).abs() > 1e-12 {
            bail!(
                "the check failed: {}'s best response to {} earns Black {v0} when played, not the {bound} the walk found",
                SEAT[responder],
                file.display()
            );
        }
        Some(v0)
    } else {
        None
    };
    let cut = match outputs.cut {
        Some(path) => {
            cut_file(args, game, seat, file, policy, &response)?.save(path)?;
            Some(path.to_path_buf())
        }
        None => None,
    };
    Ok(Ok(Bound {
        seat,
        file: file.to_path_buf(),
        bound,
        response,
        estimate,
        seconds,
        written,
        verified,
        cut,
    }))
}

/// The strategy as the walk played it, at every information state of its
/// player's that the walk met: under the source's recall where it has one
/// (its abstract keys, so no larger than the source), named by the source
/// file's bytes and the cut's settings.
fn cut_file<G: darkhex_games::Game>(
    args: &BoundsArgs,
    game: &G,
    seat: usize,
    source: &Path,
    policy: &dyn FixedPolicy,
    r: &Response,
) -> Result<PolicyFile> {
    let bytes =
        std::fs::read(source).with_context(|| format!("cannot read {}", source.display()))?;
    let mut infosets: [Vec<InfosetPolicy>; 2] = Default::default();
    infosets[seat] = r.kept().to_vec();
    let mut provenance = Provenance {
        algorithm: "cut".into(),
        ..Provenance::default()
    };
    if let Some(t) = args.threshold {
        provenance.parameters.insert("threshold".into(), t);
    }
    let mut file = PolicyFile::new(&game.game_string(), provenance, infosets);
    file.abstraction = policy.recall().map(|a| a.name());
    file.cut = Some(CutFrom {
        source: source.display().to_string(),
        source_bytes: bytes.len() as u64,
        source_crc32: crc32fast::hash(&bytes),
        threshold: args.threshold,
        missing: args.missing.name().into(),
    });
    Ok(file)
}

/// The responder's choices as a policy file: its move, with probability
/// one, at every information state it and the strategy reach.
fn response_file<G: darkhex_games::Game>(game: &G, responder: usize, r: &Response) -> PolicyFile {
    let mut infosets: [Vec<InfosetPolicy>; 2] = Default::default();
    infosets[responder] = r
        .choices
        .iter()
        .map(|c| {
            let mut probs = vec![0.0; c.actions.len()];
            probs[c.best as usize] = 1.0;
            InfosetPolicy {
                key: c.key.clone(),
                actions: c.actions.clone(),
                probs,
            }
        })
        .collect();
    infosets[responder].sort_by(|a, b| a.key.cmp(&b.key));
    let provenance = Provenance {
        algorithm: "restricted-best-response".into(),
        ..Provenance::default()
    };
    PolicyFile::new(&game.game_string(), provenance, infosets)
}

fn report(args: &BoundsArgs, bounds: &[Bound]) -> Result<()> {
    let lower = bounds.iter().find(|b| b.seat == 0).map(|b| b.bound);
    let upper = bounds.iter().find(|b| b.seat == 1).map(|b| b.bound);
    let width = lower.zip(upper).map(|(l, u)| u - l);
    if args.json {
        let seat = |s: usize| {
            bounds.iter().find(|b| b.seat == s).map(|b| {
                json!({
                    "file": b.file.display().to_string(),
                    "bound": b.bound,
                    "responder_value": b.response.value,
                    "histories": b.response.work.histories,
                    "info_states": b.response.work.info_states,
                    "estimated_histories": b.estimate.histories,
                    "lacking": b.response.lacking,
                    "seconds": b.seconds,
                    "response": b.written.as_ref().map(|p| p.display().to_string()),
                    "cut": b.cut.as_ref().map(|p| p.display().to_string()),
                    "cut_info_states": b.cut.as_ref().map(|_| b.response.kept().len()),
                    "verified": b.verified.is_some(),
                })
            })
        };
        let missing = args.missing.name();
        outln!(
            "{}",
            json!({
                "game": args.game.to_string(),
                "lower": lower,
                "upper": upper,
                "width": width,
                "missing": missing,
                "threshold": args.threshold,
                "black": seat(0),
                "white": seat(1),
            })
        );
        return Ok(());
    }
    let show = |x: Option<f64>| x.map_or("?".to_string(), |v| format!("{v:.12}"));
    let mut head = format!(
        "{}: Black's value is in [{}, {}]",
        args.game,
        show(lower),
        show(upper)
    );
    if let Some(w) = width {
        head += &format!(" (width {w:.12})");
    }
    outln!("{head}");
    let cut = args
        .threshold
        .map_or(String::new(), |t| format!(" cut at {t}"));
    for b in bounds {
        let side = if b.seat == 0 { "at least" } else { "at most" };
        outln!(
            "  {side} {:.12}: {}'s {}{cut} against {}'s exact best response ({} histories, {} of its information states, {} parts, {})",
            b.bound,
            SEAT[b.seat],
            b.file.display(),
            SEAT[1 - b.seat],
            b.response.work.histories,
            b.response.work.info_states,
            b.response.units,
            duration(b.seconds)
        );
        if b.response.lacking > 0 {
            let played = match args.missing {
                MissingArg::Lowest => "its lowest legal action there (--missing lowest)",
                _ => "uniformly there (--missing uniform)",
            };
            outln!(
                "    the strategy lacked {} information states its play reaches; it played {played}",
                b.response.lacking
            );
        }
        if let Some(p) = &b.written {
            outln!(
                "    the best response ({} information states) is in {}",
                b.response.choices.len(),
                p.display()
            );
        }
        if let Some(p) = &b.cut {
            outln!(
                "    the strategy as walked ({} of its information states) is in {}",
                b.response.kept().len(),
                p.display()
            );
        }
        if b.verified.is_some() {
            outln!("    verified: the best response, played against the strategy, earns the bound");
        }
    }
    Ok(())
}
