//! Tournament reports: ratings and a cross-table with win rates per seat, as
//! Markdown, CSV and JSON, and an SVG chart of the ratings with intervals.

use std::path::{Path, PathBuf};

use darkhex_algorithms::files::write_atomically;
use plotters::prelude::*;
use serde::{Deserialize, Serialize};

use crate::LeagueError;
use crate::definition::Tournament;
use crate::log::GameResult;
use crate::ratings::{Outcome, Rating, ratings, wilson};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayerRow {
    pub name: String,
    pub spec: String,
    pub rating: Rating,
    /// Decisions the player took, and how many of them uniformly at random
    /// because its policy had no entry there.
    #[serde(default)]
    pub decisions: u64,
    #[serde(default)]
    pub uniform_fallbacks: u64,
}

/// A score with its number of games and Wilson 95% interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Score {
    pub games: usize,
    pub score: f64,
    pub low: f64,
    pub high: f64,
}

impl Score {
    fn of(points: &[f64]) -> Score {
        let total: f64 = points.iter().sum();
        let (low, high) = wilson(total, points.len());
        Score {
            games: points.len(),
            score: if points.is_empty() {
                0.0
            } else {
                total / points.len() as f64
            },
            low,
            high,
        }
    }
}

/// How the row player did against the column player.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    pub row: String,
    pub col: String,
    pub overall: Score,
    /// The row player moving first, and second.
    pub first: Score,
    pub second: Score,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub game: String,
    pub games: usize,
    /// Sorted by rating, best first.
    pub players: Vec<PlayerRow>,
    pub cross: Vec<Cell>,
}

impl Report {
    pub fn new(tournament: &Tournament, results: &[GameResult]) -> Report {
        let outcomes: Vec<Outcome> = results
            .iter()
            .filter_map(|r| {
                Some(Outcome {
                    a: tournament.index_of(&r.a)?,
                    b: tournament.index_of(&r.b)?,
                    score_a: r.score_a(),
                })
            })
            .collect();
        let rated = ratings(tournament.players.len(), &outcomes, tournament.seed);
        let mut players: Vec<PlayerRow> = tournament
            .players
            .iter()
            .zip(rated)
            .map(|(p, rating)| {
                let (mut decisions, mut uniform_fallbacks) = (0, 0);
                for r in results {
                    for seat in 0..2 {
                        if r.seats[seat] == p.name {
                            decisions += u64::from(r.decisions[seat]);
                            uniform_fallbacks += u64::from(r.uniform_fallbacks[seat]);
                        }
                    }
                }
                PlayerRow {
                    name: p.name.clone(),
                    spec: p.spec.clone(),
                    rating,
                    decisions,
                    uniform_fallbacks,
                }
            })
            .collect();
        players.sort_by(|a, b| b.rating.elo.total_cmp(&a.rating.elo));
        let mut cross = Vec::new();
        for row in &players {
            for col in &players {
                if row.name == col.name {
                    continue;
                }
                // The row player's points against the column player, by seat.
                let mut seat_points: [Vec<f64>; 2] = Default::default();
                for r in results {
                    let row_is_a = r.a == row.name && r.b == col.name;
                    let row_is_b = r.b == row.name && r.a == col.name;
                    if !(row_is_a || row_is_b) {
                        continue;
                    }
                    let points = if row_is_a {
                        r.score_a()
                    } else {
                        1.0 - r.score_a()
                    };
                    let seat = usize::from(r.seats[1] == row.name);
                    seat_points[seat].push(points);
                }
                if seat_points.iter().all(Vec::is_empty) {
                    continue;
                }
                let all: Vec<f64> = seat_points.concat();
                cross.push(Cell {
                    row: row.name.clone(),
                    col: col.name.clone(),
                    overall: Score::of(&all),
                    first: Score::of(&seat_points[0]),
                    second: Score::of(&seat_points[1]),
                });
            }
        }
        Report {
            game: tournament.game.clone(),
            games: results.len(),
            players,
            cross,
        }
    }

    pub fn leader(&self) -> Option<&PlayerRow> {
        self.players.first()
    }

    pub fn ratings_markdown(&self) -> String {
        let mut s = String::from(
            "| rank | player | Elo | 95% interval | games | score |\n| --- | --- | --- | --- | --- | --- |\n",
        );
        for (i, p) in self.players.iter().enumerate() {
            let r = &p.rating;
            s += &format!(
                "| {} | {} | {:+.0} | [{:+.0}, {:+.0}] | {} | {:.3} |\n",
                i + 1,
                p.name,
                r.elo,
                r.low,
                r.high,
                r.games,
                r.score
            );
        }
        s
    }

    pub fn cross_markdown(&self) -> String {
        let names: Vec<&str> = self.players.iter().map(|p| p.name.as_str()).collect();
        let mut s = format!(
            "| row's score against column (first / second seat) | {} |\n",
            names.join(" | ")
        );
        s += &format!("| --- |{}\n", " --- |".repeat(names.len()));
        for row in &names {
            let cells: Vec<String> = names
                .iter()
                .map(|col| {
                    self.cross
                        .iter()
                        .find(|c| c.row == *row && c.col == *col)
                        .map_or("".to_string(), |c| {
                            format!(
                                "{:.2} [{:.2}, {:.2}] ({:.2} / {:.2})",
                                c.overall.score,
                                c.overall.low,
                                c.overall.high,
                                c.first.score,
                                c.second.score
                            )
                        })
                })
                .collect();
            s += &format!("| {row} | {} |\n", cells.join(" | "));
        }
        s
    }

    /// One line per player that played uniformly where its policy had no entry.
    pub fn fallback_lines(&self) -> Vec<String> {
        self.players
            .iter()
            .filter(|p| p.uniform_fallbacks > 0)
            .map(|p| {
                format!(
                    "{} played uniformly at {} of its {} decisions ({:.1}%): its policy has no entry for those information states",
                    p.name,
                    p.uniform_fallbacks,
                    p.decisions,
                    100.0 * p.uniform_fallbacks as f64 / p.decisions.max(1) as f64
                )
            })
            .collect()
    }

    pub fn markdown(&self) -> String {
        let mut fallbacks = String::new();
        for line in self.fallback_lines() {
            fallbacks += &format!("- {line}\n");
        }
        if !fallbacks.is_empty() {
            fallbacks.insert(0, '\n');
        }
        format!(
            "# {} after {} games\n\n## Ratings (Bradley-Terry, Elo scale)\n\n{}{fallbacks}\n## Cross-table\n\n{}",
            self.game,
            self.games,
            self.ratings_markdown(),
            self.cross_markdown()
        )
    }

    pub fn ratings_csv(&self) -> String {
        let mut s = String::from("rank,player,spec,elo,low,high,games,score\n");
        for (i, p) in self.players.iter().enumerate() {
            let r = &p.rating;
            s += &format!(
                "{},{},{},{:.2},{:.2},{:.2},{},{:.4}\n",
                i + 1,
                csv_field(&p.name),
                csv_field(&p.spec),
                r.elo,
                r.low,
                r.high,
                r.games,
                r.score
            );
        }
        s
    }

    pub fn cross_csv(&self) -> String {
        let mut s = String::from(
            "row,col,games,score,low,high,first_games,first_score,second_games,second_score\n",
        );
        for c in &self.cross {
            s += &format!(
                "{},{},{},{:.4},{:.4},{:.4},{},{:.4},{},{:.4}\n",
                csv_field(&c.row),
                csv_field(&c.col),
                c.overall.games,
                c.overall.score,
                c.overall.low,
                c.overall.high,
                c.first.games,
                c.first.score,
                c.second.games,
                c.second.score
            );
        }
        s
    }

    /// Ratings as points with their intervals, best at the top.
    pub fn svg(&self) -> Result<String, String> {
        let mut svg = String::new();
        {
            let n = self.players.len();
            let height = 80 + 36 * n as u32;
            let root = SVGBackend::with_string(&mut svg, (720, height)).into_drawing_area();
            root.fill(&WHITE).map_err(|e| e.to_string())?;
            let lo = self
                .players
                .iter()
                .map(|p| p.rating.low)
                .fold(f64::INFINITY, f64::min);
            let hi = self
                .players
                .iter()
                .map(|p| p.rating.high)
                .fold(f64::NEG_INFINITY, f64::max);
            let pad = ((hi - lo) * 0.1).max(20.0);
            let names: Vec<String> = self.players.iter().map(|p| p.name.clone()).collect();
            let mut chart = ChartBuilder::on(&root)
                .caption(
                    format!("{} ({} games)", self.game, self.games),
                    ("sans-serif", 14),
                )
                .margin(12)
                .x_label_area_size(36)
                .y_label_area_size(160)
                .build_cartesian_2d(lo - pad..hi + pad, -0.5..n as f64 - 0.5)
                .map_err(|e| e.to_string())?;
            chart
                .configure_mesh()
                .light_line_style(WHITE)
                .y_labels(n)
                .y_label_formatter(&|y| {
                    let i = y.round() as isize;
                    let k = n as isize - 1 - i;
                    if (y - i as f64).abs() < 1e-6 && (0..n as isize).contains(&k) {
                        names[k as usize].clone()
                    } else {
                        String::new()
                    }
                })
                .x_label_formatter(&|x| format!("{x:+.0}"))
                .x_desc("Elo (95% bootstrap interval)")
                .draw()
                .map_err(|e| e.to_string())?;
            let y = |k: usize| (n - 1 - k) as f64;
            chart
                .draw_series(self.players.iter().enumerate().map(|(k, p)| {
                    ErrorBar::new_horizontal(
                        y(k),
                        p.rating.low,
                        p.rating.elo,
                        p.rating.high,
                        BLUE.filled(),
                        8,
                    )
                }))
                .map_err(|e| e.to_string())?;
            chart
                .draw_series(
                    self.players
                        .iter()
                        .enumerate()
                        .map(|(k, p)| Circle::new((p.rating.elo, y(k)), 4, BLUE.filled())),
                )
                .map_err(|e| e.to_string())?;
            root.present().map_err(|e| e.to_string())?;
        }
        Ok(svg)
    }

    /// Writes report.md, ratings.csv, crosstable.csv, report.json and
    /// ratings.svg into `dir`, each atomically; returns their paths.
    pub fn write(&self, dir: &Path) -> Result<Vec<PathBuf>, LeagueError> {
        let json = serde_json::to_string_pretty(self).map_err(|e| LeagueError::Io {
            path: dir.join("report.json"),
            source: std::io::Error::other(e),
        })?;
        let svg = self.svg().map_err(|e| LeagueError::Io {
            path: dir.join("ratings.svg"),
            source: std::io::Error::other(e),
        })?;
        let files = [
            ("report.md", self.markdown()),
            ("ratings.csv", self.ratings_csv()),
            ("crosstable.csv", self.cross_csv()),
            ("report.json", json),
            ("ratings.svg", svg),
        ];
        let mut paths = Vec::new();
        for (name, text) in files {
            let path = dir.join(name);
            write_atomically(&path, text.as_bytes())?;
            paths.push(path);
        }
        Ok(paths)
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}
