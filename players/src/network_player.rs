//! The players of Honjo et al. (2010): a one-ply search that plays the move
//! after which both players' position networks evaluate best for the mover,
//! by E (`network(eval=e)`) or by E_k (`network(eval=ek,k=K,x=X)`).
//!
//! As in the paper, E carries a small random r to break ties (drawn from the
//! player's seed), and E_k does not: among equal values the first move in
//! cell order is kept, so an E_k player always plays the same game against
//! the same moves (the paper's Table 2 has one game per pairing).

use std::sync::Arc;

use darkhex_games::Action;
use darkhex_games::board::BLACK;
use darkhex_hexengine::analyst::HexAnalyst;
use darkhex_hexengine::eval::{NetworkValue, PathLimits, Weight};
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::{network_eval, prepare};
    use darkhex_games::board::{Dims, WHITE};
    use darkhex_games::hex::HexGame;
    use darkhex_games::{AnyGame, load_game};
    use darkhex_hexengine::analyst::analyst_for;

    fn analyst(size: usize) -> Arc<dyn HexAnalyst> {
        Arc::from(analyst_for(&HexGame::new(
            Dims::new("hex", size, size).unwrap(),
            false,
        )))
    }

    fn act(player: &mut NetworkPlayer, moves: &[Action], size: usize) -> Action {
        let taken = |a: &Action| !moves.contains(a);
        let legal: Vec<Action> = (0..(size * size) as Action).filter(taken).collect();
        let view = PlayerView {
            seat: moves.len() % 2,
            info_key: moves,
            legal: &legal,
        };
        player.act(&view).unwrap()
    }

    #[test]
    fn both_evaluations_take_a_winning_move() {
        // 3x3: Black a1 a2, White b1 b2; Black wins with a3 at once.
        // (E sees no more than distances: blocking a3 after a1 b1 a2 and
        // playing b2, which leaves Black d_B = 2 but gives White d_W = 2,
        // both give E = 1; only the move after decides.)
        let (a1, b1, a2, b2, a3) = (0, 1, 3, 4, 6);
        for spec in ["network(eval=e)", "network(eval=ek,k=2)"] {
            let (eval, paths) = network_eval(spec).unwrap();
            let mut p = NetworkPlayer::new(analyst(3), eval, paths, 7);
            assert_eq!(act(&mut p, &[a1, b1, a2, b2], 3), a3, "{spec}");
        }
    }

    #[test]
    fn ek_breaks_ties_by_cell_order_and_e_by_its_seed() {
        let values: Vec<(usize, NetworkValue)> = {
            let a = analyst(4);
            a.network_move_values(&[vec![], vec![]], BLACK, None, PathLimits::new(1))
        };
        let ek = NetworkEval::Ek {
            k: 1,
            x: Weight::paper(),
        };
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let first = ek.choose(&values, BLACK, &mut rng).unwrap();
        let best = values
            .iter()
            .map(|v| v.1.ek(1, &Weight::paper()))
            .max()
            .unwrap();
        let ties: Vec<usize> = values
            .iter()
            .filter(|v| v.1.ek(1, &Weight::paper()) == best)
            .map(|v| v.0)
            .collect();
        assert_eq!(first, ties[0]);
        // White wants E_k low: its choice is the minimum.
        let low = ek.choose(&values, WHITE, &mut rng).unwrap();
        let worst = values
            .iter()
            .map(|v| v.1.ek(1, &Weight::paper()))
            .min()
            .unwrap();
        assert_eq!(
            values
                .iter()
                .find(|v| v.0 == low)
                .unwrap()
                .1
                .ek(1, &Weight::paper()),
            worst
        );
        // E ties many moves on the empty board: seeds pick different ones,
        // always among the best.
        let best_e = values.iter().map(|v| v.1.e()).max().unwrap();
        let picks: std::collections::BTreeSet<usize> = (0..20)
            .map(|s| {
                let c = NetworkEval::E
                    .choose(&values, BLACK, &mut ChaCha8Rng::seed_from_u64(s))
                    .unwrap();
                assert_eq!(values.iter().find(|v| v.0 == c).unwrap().1.e(), best_e);
                c
            })
            .collect();
        assert!(picks.len() > 1, "{picks:?}");
    }

    #[test]
    fn specs_are_checked() {
        let (e, paths) = network_eval("network(eval=ek)").unwrap();
        assert_eq!(e.spec(), "network(eval=ek,k=2,x=0.00001)");
        assert_eq!(paths, darkhex_hexengine::eval::paths::DEFAULT_MAX_PATHS);
        assert_eq!(network_eval("network(eval=e)").unwrap().0, NetworkEval::E);
        for (bad, says) in [
            ("network(eval=q)", "e, ek"),
            ("network(eval=e,k=1)", "k applies to eval=ek"),
            ("network(eval=ek,k=9)", "0 to 4"),
            ("network(eval=ek,x=2)", "0 < x <= 1"),
            ("network(eval=ek,y=2)", "eval, k, x, paths"),
        ] {
            let e = network_eval(bad).unwrap_err().to_string();
            assert!(e.contains(says), "{bad}: {e}");
        }
        let rex: AnyGame = load_game("rex(board_size=4)").unwrap();
        let e = prepare("network(eval=e)", &rex).err().unwrap().to_string();
        assert!(e.contains("Rex"), "{e}");
        let dark: AnyGame = load_game("dark_hex(num_rows=2,num_cols=2)").unwrap();
        assert!(prepare("network(eval=e)", &dark).is_err());
    }
}
