//! Players of Hex and Rex built on the Hex engine: `resistance` (greedy on
//! the resistance score one move ahead, among the moves the solver's rules
//! keep) and `solver` (a proven winning move when the proof-number search
//! finds one in time, its fallback otherwise).

use std::sync::Arc;
use std::time::Duration;

use darkhex_games::Action;
use darkhex_hexengine::analyst::{Budget, CellLists, Considered, HexAnalyst};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

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

/// Time allowed to the solve that names the winning move of a position the
/// rules decide (it returns at the root).
const DECIDED_SOLVE: Duration = Duration::from_millis(500);

/// The moves among `legal` worth weighing, as Wolve weighs only the moves
/// Benzene's rules leave: those the solver's rules keep (mustplay, inferior
/// cells left out). In Hex, unless the mover can join their sides by one
/// move, also only the cells of the opponent's mustplay on the board without
/// fill-in (the filled board's can be wider; outside it every move loses),
/// and that mustplay alone where the rules find the position lost, so that
/// the opponent still has to show the win. Where the rules find the mover
/// winning, the move that wins (the key of their side-to-side semi
/// connection).
pub fn candidate_moves(
    analyst: &dyn HexAnalyst,
    stones: &CellLists,
    to_move: usize,
    legal: &[usize],
) -> Vec<usize> {
    let kept: Vec<usize> = match analyst.considered(stones, to_move) {
        Considered::Decided(w) if w == to_move => {
            // The rules decide it before any search: the solve returns at
            // once with the move.
            let budget = Budget {
                threads: 1,
                tt_mb: 1,
                time_limit: Some(DECIDED_SOLVE),
                max_expansions: None,
            };
            let v = analyst.solve(stones, to_move, budget, &|_| {});
            return match v.winning_move.filter(|m| legal.contains(m)) {
                Some(m) if v.winner == Some(to_move) => vec![m],
                _ => legal.to_vec(),
            };
        }
        Considered::Decided(_) => legal.to_vec(),
        Considered::Moves(m) => m.into_iter().filter(|c| legal.contains(c)).collect(),
    };
    let kept = if kept.is_empty() {
        legal.to_vec()
    } else {
        kept
    };
    within_mustplay(analyst, stones, to_move, kept)
}

/// In Hex, unless the mover can join by one move, the cells of `kept` in
/// the opponent's mustplay (all of `kept` when none are).
fn within_mustplay(
    analyst: &dyn HexAnalyst,
    stones: &CellLists,
    to_move: usize,
    kept: Vec<usize>,
) -> Vec<usize> {
    let hex = !analyst.game().is_misere();
    if hex
        && analyst.mustplay(stones, 1 - to_move).is_none()
        && let Some(must) = analyst.mustplay(stones, to_move)
    {
        let inside: Vec<usize> = kept.iter().copied().filter(|c| must.contains(c)).collect();
        if !inside.is_empty() {
            return inside;
        }
    }
    kept
}

/// Moves searched at each node of the deeper resistance search: the best
/// by one-ply score, as many as Wolve's default ply width.
pub const PLY_WIDTH: usize = 15;

/// A score beyond any circuit's: the position is decided.
const DECIDED: f64 = 1e6;

/// Each of `candidates` with its value for `to_move` by a minimax search
/// `depth` plies deep over the resistance score, as Benzene's Wolve
/// searches: at each node only the `width` best moves by one-ply score are
/// searched; below the root the moves are those the solver's rules keep,
/// and a position the rules decide is scored as won or lost. Depth 1 is the
/// one-ply score of every candidate; deeper, only the `width` best are
/// returned. One ply prefers the second row beside an obtuse corner, which
/// the opponent's best reply shows to be weaker than the centre.
pub fn searched_scores(
    analyst: &dyn HexAnalyst,
    stones: &CellLists,
    to_move: usize,
    candidates: &[usize],
    depth: usize,
    width: usize,
) -> Vec<(usize, f64)> {
    let mut scores = analyst.move_scores(stones, to_move, Some(candidates));
    if depth <= 1 {
        return scores;
    }
    // Stable sort by score, ties in candidate order: deterministic.
    scores.sort_by(|a, b| b.1.total_cmp(&a.1));
    scores.truncate(width.max(1));
    scores
        .into_par_iter()
        .map(|(c, _)| {
            let mut next = stones.clone();
            next[to_move].push(c);
            (
                c,
                -node_value(analyst, &next, 1 - to_move, depth - 1, width),
            )
        })
        .collect()
}

/// The value for `to_move` of the position by the search of
/// [`searched_scores`].
fn node_value(
    analyst: &dyn HexAnalyst,
    stones: &CellLists,
    to_move: usize,
    depth: usize,
    width: usize,
) -> f64 {
    if let Some(w) = analyst.winner(stones) {
        // In Rex the player who joined lost: `winner` names the winner.
        return if w == to_move { DECIDED } else { -DECIDED };
    }
    let moves = match analyst.considered(stones, to_move) {
        Considered::Decided(w) => return if w == to_move { DECIDED } else { -DECIDED },
        Considered::Moves(m) => within_mustplay(analyst, stones, to_move, m),
    };
    let moves = if moves.is_empty() {
        let n = analyst.game().dims().cells();
        (0..n)
            .filter(|c| !stones[0].contains(c) && !stones[1].contains(c))
            .collect()
    } else {
        moves
    };
    searched_scores(analyst, stones, to_move, &moves, depth, width)
        .into_iter()
        .map(|(_, v)| v)
        .fold(-DECIDED, f64::max)
}

pub struct ResistancePlayer {
    analyst: Arc<dyn HexAnalyst>,
    rng: ChaCha8Rng,
    depth: usize,
}

impl ResistancePlayer {
    /// The player searching `depth` plies (1: greedy on the score).
    pub fn new(analyst: Arc<dyn HexAnalyst>, seed: u64, depth: usize) -> Self {
        ResistancePlayer {
            analyst,
            rng: ChaCha8Rng::seed_from_u64(seed),
            depth,
        }
    }
}

impl Player for ResistancePlayer {
    fn name(&self) -> String {
        match self.depth {
            1 => "resistance".to_string(),
            d => format!("resistance(depth={d})"),
        }
    }

    fn act(&mut self, view: &PlayerView) -> Result<Action, PlayerError> {
        // In Hex the information state is the whole move sequence.
        let stones = stones_after(view.info_key);
        let legal: Vec<usize> = view.legal.iter().map(|&a| a as usize).collect();
        let moves = candidate_moves(self.analyst.as_ref(), &stones, view.seat, &legal);
        let scores = searched_scores(
            self.analyst.as_ref(),
            &stones,
            view.seat,
            &moves,
            self.depth,
            PLY_WIDTH,
        );
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
            max_expansions: None,
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
