//! SVG heat maps of per-cell values on a Hex board: one rhombus of hexagons
//! per player's network, each cell shaded by its share of that panel's
//! largest value and labelled with it in per cent; stones drawn as discs.

use std::path::Path;

use anyhow::{Result, anyhow};
use darkhex_algorithms::files::write_atomically;
use darkhex_games::board::{BLACK, Dims, WHITE};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Hexagon radius in pixels.
const RADIUS: f64 = 22.0;
const MARGIN: f64 = 40.0;

/// Centre of cell (r, c): pointy-topped hexagons, each row shifted half a
/// cell to the right of the one above (the rhombus Hex is drawn on).
fn centre(r: usize, c: usize) -> (f64, f64) {
    let w = RADIUS * 3f64.sqrt();
    (
        MARGIN + w * (c as f64 + r as f64 / 2.0),
        MARGIN + 20.0 + RADIUS * 1.5 * r as f64,
    )
}

fn hexagon(cx: f64, cy: f64) -> Vec<(i32, i32)> {
    (0..6)
        .map(|i| {
            let a = (30.0 + 60.0 * i as f64).to_radians();
            (
                (cx + RADIUS * a.cos()).round() as i32,
                (cy + RADIUS * a.sin()).round() as i32,
            )
        })
        .collect()
}

/// Writes the heat maps of Black's and White's networks side by side.
pub fn contributions(
    path: &Path,
    title: &str,
    dims: Dims,
    stones: &[Vec<usize>; 2],
    values: &[Vec<f64>; 2],
    k: usize,
) -> Result<()> {
    let (rows, cols) = (dims.rows(), dims.cols());
    let (right, _) = centre(rows - 1, cols - 1);
    let (_, bottom) = centre(rows - 1, 0);
    let panel = (right + MARGIN) as u32;
    let height = (bottom + MARGIN) as u32;
    let fail = |e: &dyn std::fmt::Display| anyhow!("drawing {}: {e}", path.display());
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (2 * panel, height + 30)).into_drawing_area();
        root.fill(&plotters::style::colors::WHITE)
            .map_err(|e| fail(&e))?;
        let (top, body) = root.split_vertically(30);
        top.draw(&Text::new(
            title.to_string(),
            (10, 8),
            ("sans-serif", 16).into_font(),
        ))
        .map_err(|e| fail(&e))?;
        let (left, right_area) = body.split_horizontally(panel);
        for (area, player) in [(&left, BLACK), (&right_area, WHITE)] {
            let name = if player == BLACK { "Black" } else { "White" };
            area.draw(&Text::new(
                format!("{name}'s network: {k}-contribution"),
                (MARGIN as i32, 8),
                ("sans-serif", 14).into_font(),
            ))
            .map_err(|e| fail(&e))?;
            let v = &values[player];
            let max = v.iter().copied().fold(0.0, f64::max);
            let centred = TextStyle::from(("sans-serif", 11).into_font())
                .pos(Pos::new(HPos::Center, VPos::Center));
            for r in 0..rows {
                for c in 0..cols {
                    let cell = dims.cell(r, c);
                    let (cx, cy) = centre(r, c);
                    let owner = [BLACK, WHITE]
                        .into_iter()
                        .find(|&p| stones[p].contains(&cell));
                    let share = if max > 0.0 { v[cell] / max } else { 0.0 };
                    let fill = match owner {
                        Some(_) => RGBColor(235, 235, 235),
                        None => {
                            let fade = (255.0 * (1.0 - share)).round() as u8;
                            RGBColor(255, fade, fade)
                        }
                    };
                    area.draw(&Polygon::new(hexagon(cx, cy), fill.filled()))
                        .map_err(|e| fail(&e))?;
                    area.draw(&PathElement::new(
                        {
                            let mut h = hexagon(cx, cy);
                            h.push(h[0]);
                            h
                        },
                        RGBColor(150, 150, 150),
                    ))
                    .map_err(|e| fail(&e))?;
                    let at = (cx.round() as i32, cy.round() as i32);
                    match owner {
                        Some(p) => {
                            let (disc, ring) = if p == BLACK {
                                (RGBColor(20, 20, 20), RGBColor(20, 20, 20))
                            } else {
                                (RGBColor(255, 255, 255), RGBColor(20, 20, 20))
                            };
                            let size = (RADIUS * 0.6) as i32;
                            area.draw(&Circle::new(at, size, disc.filled()))
                                .map_err(|e| fail(&e))?;
                            area.draw(&Circle::new(at, size, ring))
                                .map_err(|e| fail(&e))?;
                        }
                        None => {
                            let label = format!("{:.0}", 100.0 * v[cell]);
                            area.draw(&Text::new(label, at, centred.clone()))
                                .map_err(|e| fail(&e))?;
                        }
                    }
                }
            }
        }
        root.present().map_err(|e| fail(&e))?;
    }
    write_atomically(path, svg.as_bytes())?;
    Ok(())
}
