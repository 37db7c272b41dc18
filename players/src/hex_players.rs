//! Players of Hex and Rex built on the Hex engine: `resistance` (greedy on
//! the resistance score one move ahead) and `solver` (a proven winning move
//! when the proof-number search finds one in time, its fallback otherwise).

use std::sync::Arc;
use std::time::Duration;

use darkhex_algorithms::analyst::{Budget, CellLists, HexAnalyst};
use darkhex_games::Action;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::player::{Player, PlayerError, PlayerView};

/// The stones of a Hex game from its move list (Black moves first).
pub fn stones_after(moves: &[Action]) -> CellLists {
    let mut stones: CellLists = [Vec::new(), Vec::new()];
    for (i, &m) in moves.iter().enumerate() {
        stones[i % 2].push(m as usize);
    }
    stones
}

/// Scores equal to within this are ties, broken by the player's seed.
const TIE: f64 = 1e-9;

/// The best-scoring move; ties broken at random so that a seeded player
/// still varies its games.
pub fn best_scored(scores: &[(usize, f64)], rng: &mut impl Rng) -> Option<usize> {
    let best = scores
        .iter()
        .map(|&(_, s)| s)
        .fold(f64::NEG_INFINITY, f64::max);
    let ties: Vec<usize> = scores
        .iter()
        .filter(|&&(_, s)| s >= best - TIE)
        .map(|&(c, _)| c)
        .collect();
    match ties.len() {
        0 => None,
        n => Some(ties[rng.random_range(0..n)]),
    }
}

pub struct ResistancePlayer {
    analyst: Arc<dyn HexAnalyst>,
    rng: ChaCha8Rng,
}

impl ResistancePlayer {
    pub fn new(analyst: Arc<dyn HexAnalyst>, seed: u64) -> Self {
        ResistancePlayer {
            analyst,
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

impl Player for ResistancePlayer {
    fn name(&self) -> String {
        "resistance".to_string()
    }

    fn act(&mut self, view: &PlayerView) -> Result<Action, PlayerError> {
        // In Hex the information state is the whole move sequence.
        let stones = stones_after(view.info_key);
        let legal: Vec<usize> = view.legal.iter().map(|&a| a as usize).collect();
        let scores = self.analyst.move_scores(&stones, view.seat, Some(&legal));
        Ok(best_scored(&scores, &mut self.rng).map_or(view.legal[0], |c| c as Action))
    }
}

pub struct SolverPlayer {
    analyst: Arc<dyn HexAnalyst>,
    time: Duration,
    fallback: Box<dyn Player>,
    /// Decisions taken by a proven winning move.
    pub proven_moves: usize,
}

impl SolverPlayer {
    pub fn new(analyst: Arc<dyn HexAnalyst>, time: Duration, fallback: Box<dyn Player>) -> Self {
        SolverPlayer {
            analyst,
            time,
            fallback,
            proven_moves: 0,
        }
    }
}

/// Table memory of one solve of the solver player: games of a league run in
/// parallel, each with its own table.
const PLAYER_TT_MB: usize = 64;

impl Player for SolverPlayer {
    fn name(&self) -> String {
        format!(
            "solver(fallback={},time={})",
            self.fallback.name(),
            self.time.as_secs_f64()
        )
    }

    fn act(&mut self, view: &PlayerView) -> Result<Action, PlayerError> {
        let stones = stones_after(view.info_key);
        let budget = Budget {
            threads: 1,
            tt_mb: PLAYER_TT_MB,
            time_limit: Some(self.time),
        };
        let verdict = self.analyst.solve(&stones, view.seat, budget, &|_| {});
        if verdict.winner == Some(view.seat)
            && let Some(m) = verdict.winning_move
            && view.legal.contains(&(m as Action))
        {
            self.proven_moves += 1;
            return Ok(m as Action);
        }
        self.fallback.act(view)
    }

    fn uniform_fallbacks(&self) -> u32 {
        self.fallback.uniform_fallbacks()
    }

    fn game_over(
        &mut self,
        info_key: &[darkhex_games::Token],
        returns: [f64; 2],
    ) -> Result<(), PlayerError> {
        self.fallback.game_over(info_key, returns)
    }
}
