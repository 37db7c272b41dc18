//! `darkhex plot`: several training runs in one exploitability-against-time
//! chart, read from their checkpoints or from `train --json` outputs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};
use clap::Args;
use darkhex_algorithms::rl::exact::CurvePoint;
use darkhex_algorithms::{Checkpoint, EvalPoint, TrainError};

use crate::help;
use crate::output::outln;
use crate::outputs::{Files, Holds};
use crate::plot::{Series, compare};

#[derive(Args)]
#[command(after_help = help::after(&[
    "darkhex plot dh3.svg dh3-cfr+.ckpt dh3-pcfr+.ckpt os1e6.json os1e7.json",
], &[]))]
pub struct PlotArgs {
    /// SVG file to write (named .svg)
    out: PathBuf,
    /// Runs: checkpoints (`train --checkpoint`) or `train --json` outputs.
    /// Runs of the same algorithm and game make one line (separate
    /// Monte Carlo runs of 10^6 and 10^7 iterations, say)
    #[arg(required = true)]
    runs: Vec<PathBuf>,
    /// Chart title (default: the game)
    #[arg(long)]
    title: Option<String>,
}

/// A run's game, algorithm and evaluations.
pub struct Run {
    pub game: String,
    pub algo: String,
    pub history: Vec<EvalPoint>,
}

fn read_json(path: &Path, text: &str) -> Result<Run> {
    let v: serde_json::Value = serde_json::from_str(text)
        .with_context(|| format!("{} is not JSON from `train --json`", path.display()))?;
    let field = |k: &str| {
        v[k].as_str().map(str::to_string).with_context(|| {
            format!(
                "{} has no \"{k}\": not `train --json` output",
                path.display()
            )
        })
    };
    let (game, algo) = (field("game")?, field("algo")?);
    let mut history: Vec<EvalPoint> = match (v.get("history"), v.get("curve")) {
        (Some(h), _) => serde_json::from_value(h.clone())
            .with_context(|| format!("{}: unreadable \"history\"", path.display()))?,
        // The reinforcement-learning trainers' curve counts steps where
        // the solvers count iterations; the chart's axis is seconds.
        (None, Some(c)) => serde_json::from_value::<Vec<CurvePoint>>(c.clone())
            .with_context(|| format!("{}: unreadable \"curve\"", path.display()))?
            .into_iter()
            .map(|p| EvalPoint {
                iteration: p.steps,
                seconds: p.seconds,
                exploitability: Some(p.exploitability),
                value_p0: Some(p.value_p0),
            })
            .collect(),
        (None, None) => Vec::new(),
    };
    // Outputs without a history still end with one evaluation.
    if let (Some(it), Some(s)) = (v["iterations"].as_u64(), v["seconds"].as_f64())
        && history.last().is_none_or(|p| p.iteration != it)
    {
        history.push(EvalPoint {
            iteration: it,
            seconds: s,
            exploitability: v["exploitability"].as_f64(),
            value_p0: v["value_p0"].as_f64(),
        });
    }
    Ok(Run {
        game,
        algo,
        history,
    })
}

/// A run from its checkpoint or its `train --json` output.
pub fn read_run(path: &Path) -> Result<Run> {
    // A missing or unreadable file falls through to the checkpoint reader,
    // whose error names the file and the problem.
    let bytes = std::fs::read(path).ok();
    if let Some(text) = bytes
        .as_deref()
        .filter(|b| b.first() == Some(&b'{'))
        .and_then(|b| std::str::from_utf8(b).ok())
    {
        return read_json(path, text);
    }
    let c = Checkpoint::load(path).map_err(|e| match e {
        TrainError::DeepCfrCheckpoint { path } => anyhow!(
            "{path} is a Deep CFR checkpoint, which keeps no exploitability curve (Deep CFR's policy is evaluated once, when training ends): give plot the output of `darkhex train GAME --algo deep-cfr --json` instead, or tabular checkpoints"
        ),
        e => e.into(),
    })?;
    let algo = c.algorithm().name().to_string();
    Ok(Run {
        game: c.game,
        algo,
        history: c.history,
    })
}

/// The evaluated points of a run.
fn points(run: &Run) -> Vec<(f64, f64)> {
    run.history
        .iter()
        .filter_map(|p| {
            let e = p.exploitability?;
            (e > 0.0 && p.seconds > 0.0).then_some((p.seconds, e))
        })
        .collect()
}

/// What `plot` reads and writes, for the output guard.
pub fn files(args: &PlotArgs) -> Files {
    args.runs
        .iter()
        .fold(Files::new(), |f, run| f.reads("the run", Some(run)))
        .writes("the chart", Some(&args.out), Holds::Svg)
}

pub fn run(args: PlotArgs) -> Result<()> {
    let runs = args
        .runs
        .iter()
        .map(|p| read_run(p))
        .collect::<Result<Vec<_>>>()?;
    let games: std::collections::BTreeSet<&str> = runs.iter().map(|r| r.game.as_str()).collect();
    // Runs evaluated once (Monte Carlo runs on large games) join the other
    // runs of their algorithm in one line; a run with a history is a line
    // of its own, named after its file when its algorithm repeats.
    let mut lines: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for (r, path) in runs.iter().zip(&args.runs) {
        let mut label = if games.len() > 1 {
            format!("{} on {}", r.algo, r.game)
        } else {
            r.algo.clone()
        };
        let p = points(r);
        if p.len() > 1 && lines.contains_key(&label) {
            label = format!("{label} ({})", path.display());
        }
        lines.entry(label).or_default().extend(p);
    }
    let series: Vec<Series> = lines
        .into_iter()
        .filter(|(_, p)| !p.is_empty())
        .map(|(label, mut points)| {
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            Series { label, points }
        })
        .collect();
    let title = args
        .title
        .clone()
        .unwrap_or_else(|| games.into_iter().collect::<Vec<_>>().join(", "));
    compare(&args.out, &title, &series)?;
    for s in &series {
        let (seconds, e) = s.points[s.points.len() - 1];
        outln!(
            "{:<12} {} evaluation(s), the last {e:.4e} after {seconds:.0} training seconds",
            s.label,
            s.points.len()
        );
    }
    outln!("plot         {}", args.out.display());
    Ok(())
}
