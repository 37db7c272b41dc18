//! Hex and Rex analysis on request: the solver's verdict with every
//! winning move (a job: see [`super::jobs`]), and the E_k heat map of
//! Honjo et al.'s position networks, as `darkhex solve --all-moves` and
//! `darkhex analyze` give them.

use std::time::Duration;

use axum::extract::{Query, State};
use axum::response::IntoResponse;
use darkhex_games::hex::HexGame;
use darkhex_games::{AnyGame, Game, State as _, Turn};
use darkhex_hexengine::analyst::{Budget, analyst_for};
use darkhex_hexengine::eval::paths::DEFAULT_MAX_PATHS;
use darkhex_hexengine::eval::{PathLimits, Weight};
use darkhex_hexengine::hexsolve::openings::solve_positions;
use darkhex_players::hex_players::stones_after;
use darkhex_players::registry::MAX_K;
use serde::Deserialize;
use serde_json::json;

use super::api::{Answer, ApiError, AppState, blocking, job, parse_game};
use super::jobs::cancelled;
use super::view::state_after;

/// Seconds each position's search may take unless the page says.
const DEFAULT_SECONDS: f64 = 10.0;
const MAX_SECONDS: f64 = 600.0;

#[derive(Deserialize)]
pub struct Position {
    game: String,
    #[serde(default)]
    moves: String,
    /// Seconds per search (the position, then each move).
    seconds: Option<f64>,
    /// E_k's k.
    k: Option<usize>,
}

fn hex_position(q: &Position) -> Result<(HexGame, Vec<usize>), ApiError> {
    let game = parse_game(&q.game)?;
    let AnyGame::Hex(hex) = game else {
        return Err(ApiError::bad(format!(
            "the solver and E_k are for Hex and Rex, not {game}: their boards are seen whole"
        )));
    };
    let state = state_after(&game, &q.moves)?;
    Ok((hex, state.history().iter().map(|&a| a as usize).collect()))
}

/// Who wins the position with best play, and which moves of the player
/// to move win: each child position solved, as `solve --all-moves` does.
pub async fn verdict(
    State(state): State<AppState>,
    Query(q): Query<Position>,
) -> impl IntoResponse {
    let shutdown = state.shared().shutdown.clone();
    job(shutdown, move |progress| {
        let (game, moves) = hex_position(&q)?;
        let seconds = q.seconds.unwrap_or(DEFAULT_SECONDS);
        if !(0.01..=MAX_SECONDS).contains(&seconds) {
            return Err(ApiError::bad(format!(
                "{seconds} seconds is out of range: accepted are 0.01 to {MAX_SECONDS}"
            )));
        }
        let any = AnyGame::Hex(game);
        let mut s = any.new_initial_state();
        for &m in &moves {
            s.apply(m as u16);
        }
        let to_move = match s.current_player() {
            Turn::Player(p) => p,
            _ => {
                let winner = (0..2).find(|&p| s.returns()[p] > 0.0);
                return Ok(json!({ "over": true, "winner": winner }));
            }
        };
        let legal = s.legal_actions();
        let mut positions = vec![moves.clone()];
        positions.extend(legal.iter().map(|&a| {
            let mut m = moves.clone();
            m.push(a as usize);
            m
        }));
        let total = positions.len() as u64;
        progress.set(
            format!("solving the position and its {} moves", legal.len()),
            0,
            total,
        );
        let solved = std::sync::atomic::AtomicU64::new(0);
        let budget = Budget {
            threads: 1,
            tt_mb: 64,
            time_limit: Some(Duration::from_secs_f64(seconds)),
            max_expansions: None,
        };
        let done = |_: usize, _: &_| {
            let n = solved.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            progress.advance(n);
        };
        let values = solve_positions(&game, &positions, budget, progress.flag(), &done)?;
        if progress.stopped() {
            return Err(cancelled());
        }
        let winner = values.first().and_then(|v| v.winner);
        let moves_json: Vec<_> = legal
            .iter()
            .zip(&values[1..])
            .map(|(&a, v)| {
                json!({
                    "id": a,
                    "name": any.action_name(a),
                    "wins": v.winner.map(|w| w == to_move),
                })
            })
            .collect();
        Ok(json!({
            "over": false,
            "to_move": to_move,
            "winner": winner,
            "seconds_per_search": seconds,
            "moves": moves_json,
        }))
    })
}

/// Both networks' path counts, E, E_k and each cell's k-contribution.
pub async fn network(Query(q): Query<Position>) -> Answer {
    blocking(move || {
        let (game, moves) = hex_position(&q)?;
        if game.is_misere() {
            return Err(ApiError::bad(
                "E and E_k evaluate Hex (joining wins), not Rex",
            ));
        }
        let k = q.k.unwrap_or(2);
        if k > MAX_K {
            return Err(ApiError::bad(format!(
                "k={k} is out of range: accepted are 0 to {MAX_K}"
            )));
        }
        let stones = stones_after(&moves.iter().map(|&m| m as u16).collect::<Vec<_>>());
        let limits = PathLimits {
            max_paths: DEFAULT_MAX_PATHS,
            ..PathLimits::new(k)
        };
        let report = analyst_for(&game).network(&stones, limits);
        let names: Vec<String> = moves.iter().map(|&m| game.action_name(m as u16)).collect();
        Ok(axum::Json(crate::analyze::to_json(
            &game.game_string(),
            &names,
            moves.len() % 2,
            k,
            &Weight::paper(),
            &report,
        )))
    })
    .await
}
