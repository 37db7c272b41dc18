//! `darkhex bounds GAME --double-oracle`: strategies found rather than
//! given. The double oracle (darkhex_algorithms::double_oracle) keeps each
//! side's pure strategies, solves the restricted game by LP and adds each
//! side's exact best response to it; its best restricted equilibrium
//! strategies are written as the certificates `bounds --black/--white`
//! verifies.

use std::cell::RefCell;
use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use darkhex_algorithms::double_oracle::{
    self, Certificate, Finish, Iteration, Options, Oracle, Pure, Restricted,
};
use darkhex_algorithms::files::{self, Encoding, FileKind};
use darkhex_algorithms::policy_file::require_game;
use darkhex_algorithms::pone::Strategy;
use darkhex_algorithms::{PolicyFile, Provenance};
use darkhex_games::{Action, AnyGame, Game, Token, with_game};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{BoundsArgs, BoundsProgress, PROGRESS_VERSION, SEAT};
use crate::info::duration;
use crate::interrupt::{self, Interrupted};
use crate::output::outln;

/// A pure strategy's listed moves.
type Moves = Vec<(Vec<Token>, Action)>;

/// What a checkpoint keeps of a double oracle: its sets and certificates.
#[derive(Clone, Serialize, Deserialize)]
pub struct Sets {
    iterations: usize,
    strategies: [Vec<Moves>; 2],
    best: [Option<Certificate>; 2],
}

impl Sets {
    fn of(oracle: &Oracle) -> Sets {
        Sets {
            iterations: oracle.iterations,
            strategies: std::array::from_fn(|p| {
                oracle.strategies[p].iter().map(Pure::moves).collect()
            }),
            best: oracle.best.clone(),
        }
    }

    fn oracle(self) -> Oracle {
        let mut oracle = Oracle::new(
            self.strategies
                .map(|set| set.into_iter().map(Pure::from_moves).collect()),
        );
        oracle.iterations = self.iterations;
        oracle.best = self.best;
        oracle
    }
}

/// The seeds of each side from the --seed-file files.
fn seeds(args: &BoundsArgs) -> Result<[Vec<Pure>; 2]> {
    let mut out: [Vec<Pure>; 2] = Default::default();
    for path in &args.seed_file {
        let what = || format!("reading the seed {}", path.display());
        match files::identify(path) {
            Some(FileKind::PoneStrategy) => {
                let strategy = Strategy::load(path).with_context(what)?;
                require_game(&strategy.game, &args.game).with_context(what)?;
                let pure = Pure::from_pone(&args.game, &strategy)
                    .map_err(anyhow::Error::msg)
                    .with_context(what)?;
                out[strategy.player].push(pure);
            }
            Some(FileKind::Policy) | None => {
                let file = PolicyFile::load_for(path, &args.game).with_context(what)?;
                for (p, seats) in out.iter_mut().enumerate() {
                    if !file.infosets[p].is_empty() {
                        seats.push(Pure::purified(&file, p));
                    }
                }
            }
            Some(kind) => bail!(
                "{} is a {}; a seed is a policy file or a PONE strategy",
                path.display(),
                kind.what()
            ),
        }
    }
    Ok(out)
}

fn save(path: &Path, progress: &BoundsProgress) -> Result<()> {
    files::save(path, progress, Encoding::for_path(path))?;
    Ok(())
}

pub fn run(args: &BoundsArgs) -> Result<()> {
    let seeds = seeds(args)?;
    let saved = match &args.checkpoint {
        Some(p) if p.exists() => {
            let saved: BoundsProgress = files::load(p)?;
            require_game(&saved.game, &args.game)?;
            saved.oracle
        }
        _ => None,
    };
    let resumed = saved.is_some();
    let mut oracle = match saved {
        Some(sets) => sets.oracle(),
        None => Oracle::new(seeds),
    };
    if resumed && !args.json {
        outln!(
            "resumed after {} iterations with {} and {} strategies",
            oracle.iterations,
            oracle.strategies[0].len(),
            oracle.strategies[1].len()
        );
    }
    let options = Options {
        gap: args.gap,
        max_iterations: args.max_iterations,
        restricted: Restricted::from_name(&args.restricted)
            .context("--restricted is sequence or normal")?,
        ..Options::default()
    };
    let stop = interrupt::flag();
    let start = Instant::now();
    let failed: RefCell<Option<anyhow::Error>> = RefCell::new(None);
    let iterations: RefCell<Vec<Iteration>> = RefCell::new(Vec::new());
    let step = |it: &Iteration, o: &Oracle| -> Result<()> {
        if !args.json {
            outln!(
                "iteration {}: {}x{} pure strategies, restricted value {:.12}, bounds [{:.12}, {:.12}], best [{:.12}, {:.12}] (width {:.3e}), supports {} and {} ({} and {} mixed information states), {} restricted histories, {} and {} histories walked against Black's and White's ({} and {}), {}",
                it.iteration,
                it.sizes[0],
                it.sizes[1],
                it.restricted_value,
                it.lower,
                it.upper,
                it.best_lower,
                it.best_upper,
                it.best_upper - it.best_lower,
                it.support[0],
                it.support[1],
                it.mixed[0],
                it.mixed[1],
                it.restricted_histories,
                it.response_histories[0],
                it.response_histories[1],
                duration(it.response_seconds[0]),
                duration(it.response_seconds[1]),
                duration(it.seconds)
            );
        }
        iterations.borrow_mut().push(*it);
        if let Some(path) = &args.checkpoint {
            save(path, &progress_of(args, o)).context("saving the double oracle's checkpoint")?;
        }
        Ok(())
    };
    let mut after = |it: &Iteration, o: &Oracle| -> Result<(), String> {
        step(it, o).map_err(|e| {
            let text = format!("{e:#}");
            *failed.borrow_mut() = Some(e);
            text
        })
    };
    let finish =
        with_game!(&args.game, g => double_oracle::run(g, &mut oracle, options, &stop, &mut after));
    if let Some(e) = failed.take() {
        return Err(e);
    }
    let finish = finish.context("running the double oracle")?;
    if let Some(path) = &args.checkpoint {
        save(path, &progress_of(args, &oracle))?;
    }
    // The best certificates so far, on a stop too: each is a bound by
    // itself, whatever the run does next.
    let mut written = Vec::new();
    for (p, out) in [&args.out_black, &args.out_white].into_iter().enumerate() {
        if let (Some(path), Some(c)) = (out, &oracle.best[p]) {
            certificate_file(&args.game, p, c).save(path)?;
            written.push(path.display().to_string());
        }
    }
    if finish == Finish::Stopped {
        let kept = match &args.checkpoint {
            Some(c) => format!(
                "the sets after {} iterations are in {}: the same command resumes",
                oracle.iterations,
                c.display()
            ),
            None => "nothing was kept (--checkpoint FILE keeps the sets)".into(),
        };
        let certificates = match written.is_empty() {
            true => String::new(),
            false => format!(
                "; the best certificates so far are in {}",
                written.join(" and ")
            ),
        };
        return Err(Interrupted(format!(
            "the double oracle was interrupted; {kept}{certificates}"
        ))
        .into());
    }
    let seconds = start.elapsed().as_secs_f64();
    report(args, &oracle, finish, seconds, &iterations.borrow())
}

fn progress_of(args: &BoundsArgs, oracle: &Oracle) -> BoundsProgress {
    BoundsProgress {
        format: FileKind::BoundsProgress.format().to_string(),
        version: PROGRESS_VERSION,
        game: args.game.to_string(),
        seats: [None, None],
        oracle: Some(Sets::of(oracle)),
    }
}

/// A certificate as the policy file `bounds --black/--white` reads.
fn certificate_file(game: &AnyGame, seat: usize, c: &Certificate) -> PolicyFile {
    let mut infosets: [Vec<_>; 2] = Default::default();
    infosets[seat] = c.infosets.clone();
    let provenance = Provenance {
        algorithm: "double-oracle".into(),
        iterations: c.iteration as u64,
        ..Provenance::default()
    };
    PolicyFile::new(&game.game_string(), provenance, infosets)
}

fn finish_name(finish: Finish) -> &'static str {
    match finish {
        Finish::Closed => "the bounds met",
        Finish::Converged => "no best response was new",
        Finish::MaxIterations => "--max-iterations reached",
        Finish::Stopped => "interrupted",
    }
}

fn report(
    args: &BoundsArgs,
    oracle: &Oracle,
    finish: Finish,
    seconds: f64,
    iterations: &[Iteration],
) -> Result<()> {
    let (lower, upper) = (oracle.lower(), oracle.upper());
    let width = lower.zip(upper).map(|(l, u)| u - l);
    let written = |p: usize| {
        [&args.out_black, &args.out_white][p]
            .as_ref()
            .map(|f| f.display().to_string())
    };
    if args.json {
        let seat = |p: usize| {
            oracle.best[p].as_ref().map(|c| {
                json!({
                    "bound": c.bound,
                    "iteration": c.iteration,
                    "support": c.support,
                    "info_states": c.infosets.len(),
                    "file": written(p),
                })
            })
        };
        let per: Vec<_> = iterations
            .iter()
            .map(|it| {
                json!({
                    "iteration": it.iteration,
                    "sizes": it.sizes,
                    "restricted_value": it.restricted_value,
                    "lower": it.lower,
                    "upper": it.upper,
                    "support": it.support,
                    "mixed": it.mixed,
                    "restricted_histories": it.restricted_histories,
                    "response_histories": it.response_histories,
                    "response_seconds": it.response_seconds,
                    "histories": it.histories,
                    "seconds": it.seconds,
                })
            })
            .collect();
        outln!(
            "{}",
            json!({
                "game": args.game.to_string(),
                "lower": lower,
                "upper": upper,
                "width": width,
                "iterations": oracle.iterations,
                "strategies": [oracle.strategies[0].len(), oracle.strategies[1].len()],
                "finish": finish_name(finish),
                "seconds": seconds,
                "black": seat(0),
                "white": seat(1),
                "progress": per,
            })
        );
        return Ok(());
    }
    let show = |x: Option<f64>| x.map_or("?".to_string(), |v| format!("{v:.12}"));
    outln!(
        "{}: Black's value is in [{}, {}] (width {}) after {} iterations, {} and {} pure strategies ({}; {})",
        args.game,
        show(lower),
        show(upper),
        width.map_or("?".into(), |w| format!("{w:.3e}")),
        oracle.iterations,
        oracle.strategies[0].len(),
        oracle.strategies[1].len(),
        finish_name(finish),
        duration(seconds)
    );
    for (p, c) in oracle.best.iter().enumerate() {
        let Some(c) = c else { continue };
        let side = if p == 0 { "at least" } else { "at most" };
        let file = written(p).map_or(String::new(), |f| format!(", written to {f}"));
        outln!(
            "  {side} {:.12}: {}'s restricted equilibrium from iteration {} (support {}, {} information states{file})",
            c.bound,
            SEAT[p],
            c.iteration,
            c.support,
            c.infosets.len()
        );
    }
    Ok(())
}
