//! SVG plots of training runs.

use std::path::Path;

use anyhow::{Result, anyhow, bail};
use darkhex_algorithms::EvalPoint;
use darkhex_algorithms::files::write_atomically;
use plotters::coord::Shift;
use plotters::coord::combinators::{IntoLogRange, LogCoord};
use plotters::prelude::*;

/// At most three significant digits, no trailing zeros.
fn short(x: f64) -> String {
    if x >= 1000.0 {
        return format!("{x:.0}");
    }
    let digits = (2 - x.abs().log10().floor() as i32).clamp(0, 6) as usize;
    let s = format!("{x:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// A log axis's range over `values`, with some room on each side.
fn padded_range(values: impl Iterator<Item = f64> + Clone) -> (f64, f64) {
    let lo = values.clone().fold(f64::INFINITY, f64::min);
    let hi = values.fold(0.0, f64::max);
    (lo * 0.8, hi * 1.25)
}

/// A chart with both axes on log scales.
type LogLogChart<'a, 'b> =
    ChartContext<'a, SVGBackend<'b>, Cartesian2d<LogCoord<f64>, LogCoord<f64>>>;

/// A chart with exploitability on a log y axis against `x_desc` on a log x
/// axis, its mesh drawn.
fn log_log_chart<'a, 'b>(
    area: &'a DrawingArea<SVGBackend<'b>, Shift>,
    caption: &str,
    (x_lo, x_hi): (f64, f64),
    (y_lo, y_hi): (f64, f64),
    x_desc: &str,
    labels: usize,
) -> Result<LogLogChart<'a, 'b>> {
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 14))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d((x_lo..x_hi).log_scale(), (y_lo..y_hi).log_scale())
        .map_err(|e| anyhow!("{e}"))?;
    chart
        .configure_mesh()
        .light_line_style(WHITE)
        .x_labels(labels)
        .y_labels(labels)
        .x_desc(x_desc)
        .y_desc("exploitability")
        .x_label_formatter(&|x| short(*x))
        .y_label_formatter(&|y| format!("{y:.0e}"))
        .draw()
        .map_err(|e| anyhow!("{e}"))?;
    Ok(chart)
}

/// Exploitability against iterations (left) and seconds (right), both on log scales.
pub fn convergence(path: &Path, game: &str, algo: &str, history: &[EvalPoint]) -> Result<()> {
    let points: Vec<(f64, f64, f64)> = history
        .iter()
        .filter_map(|p| Some((p.iteration as f64, p.seconds, p.exploitability?)))
        .collect();
    curve(path, game, algo, "iterations", &points)
}

/// Exploitability against `unit` (left: iterations, steps) and seconds
/// (right), both on log scales, from (unit, seconds, exploitability)
/// points; those at 0 (which a log scale cannot show) are left out.
pub fn curve(
    path: &Path,
    game: &str,
    algo: &str,
    unit: &str,
    points: &[(f64, f64, f64)],
) -> Result<()> {
    let points: Vec<(f64, f64, f64)> = points
        .iter()
        .filter(|p| p.0 > 0.0 && p.2 > 0.0)
        .map(|&(x, s, e)| (x, s.max(1e-6), e))
        .collect();
    if points.len() < 2 {
        bail!("--plot needs at least two evaluations: lower --eval-every");
    }
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (1000, 420)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| anyhow!("{e}"))?;
        let (left, right) = root.split_horizontally(500);
        let e_range = padded_range(points.iter().map(|p| p.2));
        for (area, x_of, x_desc) in [
            (
                &left,
                (|p: &(f64, f64, f64)| p.0) as fn(&(f64, f64, f64)) -> f64,
                unit,
            ),
            (&right, |p: &(f64, f64, f64)| p.1, "seconds"),
        ] {
            let x_range = padded_range(points.iter().map(x_of));
            let caption = format!("{algo} on {game}");
            let mut chart = log_log_chart(area, &caption, x_range, e_range, x_desc, 6)?;
            let series = points.iter().map(|p| (x_of(p), p.2));
            chart
                .draw_series(LineSeries::new(series.clone(), &BLUE))
                .map_err(|e| anyhow!("{e}"))?;
            chart
                .draw_series(series.map(|xy| Circle::new(xy, 2, BLUE.filled())))
                .map_err(|e| anyhow!("{e}"))?;
        }
        root.present().map_err(|e| anyhow!("{e}"))?;
    }
    write_atomically(path, svg.as_bytes())?;
    Ok(())
}

/// One line of a comparison: a label and its (seconds, exploitability) points.
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
}

/// Exploitability against training seconds of several runs in one chart,
/// log scales, one colour and legend entry a run.
pub fn compare(path: &Path, title: &str, series: &[Series]) -> Result<()> {
    let all = series.iter().flat_map(|s| s.points.iter().copied());
    if all.clone().next().is_none() {
        bail!("nothing to draw: none of the runs has an evaluated exploitability");
    }
    let x_range = padded_range(all.clone().map(|p| p.0));
    let y_range = padded_range(all.map(|p| p.1));
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (800, 500)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| anyhow!("{e}"))?;
        let mut chart = log_log_chart(&root, title, x_range, y_range, "training seconds", 8)?;
        for (i, s) in series.iter().enumerate() {
            let colour = Palette99::pick(i).to_rgba();
            let pts = s.points.clone();
            chart
                .draw_series(LineSeries::new(pts.clone(), colour.stroke_width(2)))
                .map_err(|e| anyhow!("{e}"))?
                .label(&s.label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], colour));
            chart
                .draw_series(
                    pts.into_iter()
                        .map(|xy| Circle::new(xy, 3, colour.filled())),
                )
                .map_err(|e| anyhow!("{e}"))?;
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperRight)
            .draw()
            .map_err(|e| anyhow!("{e}"))?;
        root.present().map_err(|e| anyhow!("{e}"))?;
    }
    write_atomically(path, svg.as_bytes())?;
    Ok(())
}
