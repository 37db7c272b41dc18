//! Ratings: a Bradley-Terry model fitted by maximum likelihood and shown on
//! the Elo scale, with bootstrap intervals; win rates with Wilson intervals.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Bootstrap resamples for the rating intervals.
pub const BOOTSTRAP: usize = 200;

/// One game between players `a` and `b` with `a`'s score (1, 0.5 or 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Outcome {
    pub a: usize,
    pub b: usize,
    pub score_a: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rating {
    pub elo: f64,
    /// 95% bootstrap interval.
    pub low: f64,
    pub high: f64,
    pub games: usize,
    /// Mean score (wins plus half the ties, over games).
    pub score: f64,
}

/// Bradley-Terry strengths by the minorise-maximise iteration (Hunter 2004),
/// as Elo points with mean zero. Each pair that met also gets one virtual
/// tie, so that a player who won or lost every game still has a finite rating.
pub fn fit(n: usize, games: &[Outcome]) -> Vec<f64> {
    let mut wins = vec![0.0; n];
    let mut met = vec![vec![0.0; n]; n];
    for g in games {
        wins[g.a] += g.score_a;
        wins[g.b] += 1.0 - g.score_a;
        met[g.a][g.b] += 1.0;
        met[g.b][g.a] += 1.0;
    }
    for (i, row) in met.iter_mut().enumerate() {
        for (j, games) in row.iter_mut().enumerate() {
            if i != j && *games > 0.0 {
                *games += 1.0;
                wins[i] += 0.5;
            }
        }
    }
    let mut gamma = vec![1.0; n];
    for _ in 0..10_000 {
        let mut next = vec![0.0; n];
        for i in 0..n {
            let denom: f64 = (0..n)
                .filter(|&j| j != i && met[i][j] > 0.0)
                .map(|j| met[i][j] / (gamma[i] + gamma[j]))
                .sum();
            next[i] = if denom > 0.0 {
                wins[i] / denom
            } else {
                gamma[i]
            };
        }
        // Strengths are defined up to a factor: fix their geometric mean.
        let mean_log = next.iter().map(|g: &f64| g.ln()).sum::<f64>() / n as f64;
        for g in &mut next {
            *g /= mean_log.exp();
        }
        let change = next
            .iter()
            .zip(&gamma)
            .map(|(a, b)| (a / b).ln().abs())
            .fold(0.0, f64::max);
        gamma = next;
        if change < 1e-10 {
            break;
        }
    }
    gamma.iter().map(|g| 400.0 * g.log10()).collect()
}

/// Ratings with bootstrap intervals (games resampled with replacement).
pub fn ratings(n: usize, games: &[Outcome], seed: u64) -> Vec<Rating> {
    let elo = fit(n, games);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut samples: Vec<Vec<f64>> = vec![Vec::with_capacity(BOOTSTRAP); n];
    if !games.is_empty() {
        for _ in 0..BOOTSTRAP {
            let resample: Vec<Outcome> = (0..games.len())
                .map(|_| games[rng.random_range(0..games.len())])
                .collect();
            for (s, e) in samples.iter_mut().zip(fit(n, &resample)) {
                s.push(e);
            }
        }
    }
    (0..n)
        .map(|i| {
            let mut s = samples[i].clone();
            s.sort_by(f64::total_cmp);
            let pick = |q: f64| {
                s.get(((s.len() as f64 - 1.0) * q).round() as usize)
                    .copied()
                    .unwrap_or(elo[i])
            };
            let mine: Vec<f64> = games
                .iter()
                .filter_map(|g| {
                    if g.a == i {
                        Some(g.score_a)
                    } else if g.b == i {
                        Some(1.0 - g.score_a)
                    } else {
                        None
                    }
                })
                .collect();
            Rating {
                elo: elo[i],
                low: pick(0.025),
                high: pick(0.975),
                games: mine.len(),
                score: if mine.is_empty() {
                    0.0
                } else {
                    mine.iter().sum::<f64>() / mine.len() as f64
                },
            }
        })
        .collect()
}

/// Wilson score 95% interval of a proportion of `successes` (ties count half) in `n`.
pub fn wilson(successes: f64, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (n, z) = (n as f64, 1.959_963_984_540_054);
    let p = successes / n;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z / (1.0 + z * z / n) * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_player_who_wins_three_in_four_is_rated_about_190_above() {
        // P(win) = 1 / (1 + 10^(-d/400)) = 3/4 at d = 400 log10(3) = 190.8;
        // the virtual ties pull the fit in a little.
        let games: Vec<Outcome> = (0..400)
            .map(|i| Outcome {
                a: 0,
                b: 1,
                score_a: if i % 4 == 0 { 0.0 } else { 1.0 },
            })
            .collect();
        let e = fit(2, &games);
        let d = e[0] - e[1];
        assert!((d - 190.8).abs() < 2.0, "{d}");
        assert!((e[0] + e[1]).abs() < 1e-9);
    }

    #[test]
    fn ratings_are_transitive_and_intervals_contain_them() {
        let mut games = Vec::new();
        for (a, b, p) in [(0, 1, 0.8), (1, 2, 0.8), (0, 2, 0.95)] {
            for i in 0..100 {
                games.push(Outcome {
                    a,
                    b,
                    score_a: if (i as f64) < p * 100.0 { 1.0 } else { 0.0 },
                });
            }
        }
        let r = ratings(3, &games, 1);
        assert!(r[0].elo > r[1].elo && r[1].elo > r[2].elo);
        for x in &r {
            assert!(x.low <= x.elo && x.elo <= x.high, "{x:?}");
            assert_eq!(x.games, 200);
        }
    }

    #[test]
    fn wilson_intervals_match_known_values() {
        // 8 of 10: the Wilson 95% interval is [0.4902, 0.9433].
        let (lo, hi) = wilson(8.0, 10);
        assert!(
            (lo - 0.4902).abs() < 1e-4 && (hi - 0.9433).abs() < 1e-4,
            "{lo} {hi}"
        );
        assert_eq!(wilson(0.0, 0), (0.0, 1.0));
    }
}
