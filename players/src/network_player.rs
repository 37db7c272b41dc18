//! The players of Honjo et al. (2010): a one-ply search that plays the move
//! after which both players' position networks evaluate best for the mover,
//! by E (`network(eval=e)`) or by E_k (`network(eval=ek,k=K,x=X)`).
//!
//! As in the paper, E carries a small random r to break ties (drawn from the
//! player's seed), and E_k does not: among equal values the first move in
//! cell order is kept, so an E_k player always plays the same game against
//! the same moves (the paper's Table 2 has one game per pairing).

use std::sync::Arc;

use darkhex_algorithms::analyst::HexAnalyst;
use darkhex_algorithms::eval::{NetworkValue, PathLimits, Weight};
use darkhex_games::Action;
use darkhex_games::board::BLACK;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::hex_players::stones_after;
use crate::player::{Player, PlayerError, PlayerView};

/// The tie-breaker r of E is drawn from [0, R_MAX): below the smallest gap
/// between two different ratios of distances on a 19x19 board (distances
/// are at most 363, so two ratios differ by at least 1 / 363^2 = 7.6e-6).
pub const R_MAX: f64 = 1e-6;

/// Which evaluation a network player maximises (Black) or minimises (White).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetworkEval {
    /// E = d_W / d_B + r.
    E,
    /// E_k with weight x.
    Ek { k: usize, x: Weight },
}

impl NetworkEval {
    /// The path sets the evaluation needs, with at most `max_paths` paths
    /// enumerated per network.
    pub fn limits(&self, max_paths: usize) -> PathLimits {
        let k = match self {
            NetworkEval::E => 0,
            NetworkEval::Ek { k, .. } => *k,
        };
        PathLimits {
            max_paths,
            ..PathLimits::new(k)
        }
    }

    /// The spec that makes this evaluation's player.
    pub fn spec(&self) -> String {
        match self {
            NetworkEval::E => "network(eval=e)".to_string(),
            NetworkEval::Ek { k, x } => format!("network(eval=ek,k={k},x={x})"),
        }
    }

    /// The move `mover` plays among `values` (in the order given); `rng`
    /// draws E's tie-breakers.
    pub fn choose(
        &self,
        values: &[(usize, NetworkValue)],
        mover: usize,
        rng: &mut impl Rng,
    ) -> Option<usize> {
        // Black wants the evaluation high, White low: White's key is turned.
        let better = |a: std::cmp::Ordering| {
            if mover == BLACK { a.is_gt() } else { a.is_lt() }
        };
        match self {
            NetworkEval::E => {
                let mut best: Option<(usize, f64)> = None;
                for (c, v) in values {
                    let e = v.e().to_f64() + rng.random_range(0.0..R_MAX);
                    if best.is_none_or(|(_, b)| better(e.total_cmp(&b))) {
                        best = Some((*c, e));
                    }
                }
                best.map(|b| b.0)
            }
            NetworkEval::Ek { k, x } => {
                let mut best = None;
                for (c, v) in values {
                    let e = v.ek(*k, x);
                    if best.as_ref().is_none_or(|(_, b)| better(e.cmp(b))) {
                        best = Some((*c, e));
                    }
                }
                best.map(|b| b.0)
            }
        }
    }
}

pub struct NetworkPlayer {
    analyst: Arc<dyn HexAnalyst>,
    eval: NetworkEval,
    max_paths: usize,
    rng: ChaCha8Rng,
}

impl NetworkPlayer {
    pub fn new(
        analyst: Arc<dyn HexAnalyst>,
        eval: NetworkEval,
        max_paths: usize,
        seed: u64,
    ) -> Self {
        NetworkPlayer {
            analyst,
            eval,
            max_paths,
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

impl Player for NetworkPlayer {
    fn name(&self) -> String {
        self.eval.spec()
    }

    fn act(&mut self, view: &PlayerView) -> Result<Action, PlayerError> {
        // In Hex the information state is the whole move sequence.
        let stones = stones_after(view.info_key);
        let legal: Vec<usize> = view.legal.iter().map(|&a| a as usize).collect();
        let values = self.analyst.network_move_values(
            &stones,
            view.seat,
            Some(&legal),
            self.eval.limits(self.max_paths),
        );
        let chosen = self.eval.choose(&values, view.seat, &mut self.rng);
        Ok(chosen.map_or(view.legal[0], |c| c as Action))
    }
}
