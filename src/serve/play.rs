//! Play in the page: a game between the page's user and any player spec
//! the CLI takes. The server is the referee, as `darkhex play` is: it
//! applies the user's move (checked by the game), lets chance deal and the
//! opponent answer, each told only its own information state, and sends
//! the user what their seat sees. In a dark game that is their own view
//! and observations; the real board and the moves come at the end.

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::response::IntoResponse;
use darkhex_games::spec::Spec;
use darkhex_games::{AnyGame, AnyState, Game, State as _, Turn, parse_move};
use darkhex_players::{Player, PlayerFactory, PlayerView, prepare, sample_chance};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::Arc;

use super::api::{Answer, ApiError, AppState, Shared, blocking, id_of, job, parse_game};
use super::jobs::{Progress, cancelled};
use super::roots::Roots;
use super::view::{frame, named, observed, player_board, real_board, replay};
use crate::play::{move_line, mover_label, outcome_line};

/// One game: the real state, the user's seat and the opponent.
pub struct Session {
    game: AnyGame,
    spec: String,
    seat: usize,
    seed: u64,
    factory: Arc<dyn PlayerFactory>,
    opponent: Box<dyn Player>,
    state: AnyState,
    chance: ChaCha8Rng,
    /// The opponent's last move, where the game shows it (Hex, Rex).
    last: Option<String>,
    notes: Vec<String>,
}

#[derive(Deserialize)]
pub struct NewGame {
    game: String,
    opponent: String,
    /// The user's seat: 0 moves first.
    #[serde(default)]
    seat: usize,
    #[serde(default)]
    seed: u64,
}

#[derive(Deserialize)]
pub struct Move {
    /// As the CLI takes it: a cell (`b2`) or an action (`bet`).
    #[serde(rename = "move")]
    text: String,
}

/// `spec` with every `file=` (nested specs included) resolved under the
/// server's folders, or the error for the first that is not.
pub fn checked_spec(spec: &str, roots: &Roots) -> Result<String, ApiError> {
    let s = Spec::parse(spec).map_err(|e| ApiError::bad(e.to_string()))?;
    if s.params.is_empty() {
        return Ok(spec.trim().to_string());
    }
    let mut params = Vec::new();
    for (k, v) in &s.params {
        let value = if k == "file" {
            roots.resolve(v)?.display().to_string()
        } else if v.contains('(') {
            checked_spec(v, roots)?
        } else {
            v.clone()
        };
        params.push(format!("{k}={value}"));
    }
    Ok(format!("{}({})", s.name, params.join(",")))
}

/// The prepared player of `spec` for `game`, prepared once and kept.
fn factory(
    shared: &Shared,
    game: &AnyGame,
    spec: &str,
    progress: Option<&Progress>,
) -> Result<Arc<dyn PlayerFactory>, ApiError> {
    let key = format!("{game} {spec}");
    if let Some(f) = shared.sessions.player(&key) {
        return Ok(f);
    }
    let say = |what: String| {
        if let Some(p) = progress {
            p.set(what, 0, 0);
        }
    };
    say("waiting for another computation to finish".into());
    // An LP or a file's check can be large: one at a time.
    let _heavy = shared.heavy.lock().unwrap_or_else(|e| e.into_inner());
    if progress.is_some_and(Progress::stopped) {
        return Err(cancelled());
    }
    say(format!(
        "preparing {} for {game}",
        darkhex_games::one_line(spec)
    ));
    if let Some(f) = shared.sessions.player(&key) {
        return Ok(f);
    }
    let f = prepare(spec, game)?;
    shared.sessions.keep_player(key, f.clone());
    Ok(f)
}

impl Session {
    fn new(shared: &Shared, request: NewGame) -> Result<Session, ApiError> {
        let game = parse_game(&request.game)?;
        if request.seat > 1 {
            return Err(ApiError::bad(format!(
                "seat {} does not exist: 0 moves first, 1 second",
                request.seat
            )));
        }
        if request.opponent.trim() == "human" {
            return Err(ApiError::bad(
                "the page is the human player: choose a program to play against (random, lp, ismcts(sims=1000), policy(file=P), ...)",
            ));
        }
        let spec = checked_spec(&request.opponent, &shared.roots)?;
        let factory = factory(shared, &game, &spec, None)?;
        let opponent_seat = 1 - request.seat;
        let mut session = Session {
            opponent: factory.create(
                opponent_seat,
                request.seed.wrapping_add(1 + opponent_seat as u64),
            ),
            notes: factory.notes(),
            factory,
            state: game.new_initial_state(),
            chance: ChaCha8Rng::seed_from_u64(request.seed),
            spec: request.opponent.trim().to_string(),
            seat: request.seat,
            seed: request.seed,
            last: None,
            game,
        };
        session.advance()?;
        Ok(session)
    }

    /// Lets chance and the opponent move until the user is to move or the
    /// game is over, as the referee of `play` does.
    fn advance(&mut self) -> Result<(), ApiError> {
        let mut legal = Vec::new();
        loop {
            let action = match self.state.current_player() {
                Turn::Terminal => return Ok(()),
                Turn::Player(p) if p == self.seat => return Ok(()),
                Turn::Chance => sample_chance(&self.state, &mut self.chance),
                Turn::Player(p) => {
                    self.state.legal_actions_into(&mut legal);
                    let view = PlayerView {
                        seat: p,
                        info_key: self.state.info_key(p),
                        legal: &legal,
                    };
                    let a = self.opponent.act(&view)?;
                    if !legal.contains(&a) {
                        return Err(ApiError::internal(format!(
                            "{} chose {}, which is not legal here",
                            self.spec,
                            self.game.action_name(a)
                        )));
                    }
                    if matches!(self.game, AnyGame::Hex(_)) {
                        self.last = Some(self.game.action_name(a));
                    }
                    a
                }
            };
            self.state.apply(action);
        }
    }

    fn play(&mut self, text: &str) -> Result<(), ApiError> {
        match self.state.current_player() {
            Turn::Player(p) if p == self.seat => {}
            Turn::Terminal => return Err(ApiError::bad("the game is over: start a new one")),
            _ => return Err(ApiError::bad("it is not your turn")),
        }
        let action = parse_move(&self.game, &self.state, text)
            .map_err(|e| ApiError::bad(format!("{}: {e}", darkhex_games::one_line(text))))?;
        self.state.apply(action);
        self.last = None;
        self.advance()
    }

    /// Perfect-information games take a move back: the user's last move
    /// and the opponent's answers. In a dark game taking a move back would
    /// tell what the move found, so it is refused.
    fn undo(&mut self) -> Result<(), ApiError> {
        if !matches!(self.game, AnyGame::Hex(_)) {
            return Err(ApiError::bad(
                "undo is for Hex and Rex: in a dark game or poker a move taken back would still have told you what it found",
            ));
        }
        let history = self.state.history().to_vec();
        // The user's moves are those played with the user to move.
        let mut replayed = self.game.new_initial_state();
        let mut last_own = None;
        for (i, &a) in history.iter().enumerate() {
            if replayed.current_player() == Turn::Player(self.seat) {
                last_own = Some(i);
            }
            replayed.apply(a);
        }
        let Some(keep) = last_own else {
            return Err(ApiError::bad("nothing to undo: you have not moved yet"));
        };
        let mut state = self.game.new_initial_state();
        for &a in &history[..keep] {
            state.apply(a);
        }
        self.state = state;
        // A fresh opponent: players keep no state a position needs.
        let opponent_seat = 1 - self.seat;
        self.opponent = self.factory.create(
            opponent_seat,
            self.seed
                .wrapping_add(1 + opponent_seat as u64 + keep as u64),
        );
        self.last = history[..keep]
            .last()
            .filter(|_| keep > 0)
            .map(|&a| self.game.action_name(a));
        Ok(())
    }

    /// What the user's seat sees; at the end, the referee's board, the
    /// moves and a replay too.
    fn view(&self, id: u64) -> Result<Value, ApiError> {
        let game = &self.game;
        let state = &self.state;
        let over = state.current_player() == Turn::Terminal;
        let key = state.info_key(self.seat);
        let mut v = json!({
            "id": id,
            "game": game.game_string(),
            "opponent": self.spec,
            "seat": self.seat,
            "you": mover_label(game, Turn::Player(self.seat)),
            "seed": self.seed,
            "your_turn": state.current_player() == Turn::Player(self.seat),
            "over": over,
            "board": player_board(state, self.seat),
            "observed": observed(game, key),
            "text": game.render_info_state(self.seat, key),
            "legal": if over { Vec::new() } else { named(game, &state.legal_actions()) },
            "last": self.last,
            "undo": matches!(game, AnyGame::Hex(_)) && !state.history().is_empty(),
            "notes": self.notes,
        });
        if let AnyGame::Hex(_) = game {
            v["text"] = json!(state.to_string());
            v["moves"] = json!(
                state
                    .history()
                    .iter()
                    .map(|&a| game.action_name(a))
                    .collect::<Vec<_>>()
            );
        }
        if over {
            let moves: Vec<String> = replay_names(game, state);
            let returns = state.returns();
            v["result"] = json!({
                "outcome": outcome_line(game, state),
                "returns": returns,
                "you_won": returns[self.seat] > returns[1 - self.seat],
                "referee": real_board(state),
                "moves": moves.join(","),
                "lines": state_lines(game, state),
                "frames": replay(game, &moves.join(","))?,
                "final": frame(game, state, None),
            });
        }
        Ok(v)
    }
}

/// The moves of a finished game as `play --moves` reads them (chance by
/// its cards).
fn replay_names(game: &AnyGame, state: &AnyState) -> Vec<String> {
    let mut s = game.new_initial_state();
    state
        .history()
        .iter()
        .map(|&a| {
            let name = if s.current_player() == Turn::Chance {
                game.chance_outcome_name(a)
            } else {
                game.action_name(a)
            };
            s.apply(a);
            name
        })
        .collect()
}

/// Each move as `play` prints it.
fn state_lines(game: &AnyGame, state: &AnyState) -> Vec<String> {
    let mut s = game.new_initial_state();
    state
        .history()
        .iter()
        .map(|&a| {
            let line = move_line(game, &s, a);
            s.apply(a);
            line
        })
        .collect()
}

fn session(shared: &Shared, id: u64) -> Result<Arc<std::sync::Mutex<Session>>, ApiError> {
    shared.sessions.get(id).ok_or_else(|| {
        ApiError::not_found(format!(
            "no game {id}: the server was restarted or the game was dropped after long idle; start a new one"
        ))
    })
}

fn locked(slot: &std::sync::Mutex<Session>) -> std::sync::MutexGuard<'_, Session> {
    slot.lock().unwrap_or_else(|e| e.into_inner())
}

pub async fn create(State(state): State<AppState>, Json(request): Json<NewGame>) -> Answer {
    let shared = state.shared().clone();
    blocking(move || {
        let session = Session::new(&shared, request)?;
        let view = session.view(0)?;
        let id = shared.sessions.insert(session);
        let mut view = view;
        view["id"] = json!(id);
        Ok(Json(view))
    })
    .await
}

#[derive(Deserialize)]
pub struct Prepare {
    game: String,
    opponent: String,
}

/// Prepares a game's opponent as a job, before the game is asked for, so
/// that the page shows what is being prepared (an LP solved, a policy file
/// checked against the game) and can leave it. The LP solver has no way to
/// be stopped between its iterations: a preparation left by the page runs
/// to its end (one at a time) and is kept for the next game that asks.
pub async fn prepare_job(
    State(state): State<AppState>,
    Query(q): Query<Prepare>,
) -> impl IntoResponse {
    let shared = state.shared().clone();
    job(shared.shutdown.clone(), move |progress| {
        let game = parse_game(&q.game)?;
        let spec = checked_spec(&q.opponent, &shared.roots)?;
        factory(&shared, &game, &spec, Some(progress))?;
        Ok(json!({ "ready": true }))
    })
}

pub async fn show(State(state): State<AppState>, path: Path<String>) -> Answer {
    let id = id_of(path)?;
    let shared = state.shared().clone();
    blocking(move || {
        let slot = session(&shared, id)?;
        let s = locked(&slot);
        Ok(Json(s.view(id)?))
    })
    .await
}

pub async fn act(State(state): State<AppState>, path: Path<String>, Json(m): Json<Move>) -> Answer {
    let id = id_of(path)?;
    let shared = state.shared().clone();
    blocking(move || {
        let slot = session(&shared, id)?;
        let mut s = locked(&slot);
        s.play(&m.text)?;
        Ok(Json(s.view(id)?))
    })
    .await
}

pub async fn undo(State(state): State<AppState>, path: Path<String>) -> Answer {
    let id = id_of(path)?;
    let shared = state.shared().clone();
    blocking(move || {
        let slot = session(&shared, id)?;
        let mut s = locked(&slot);
        s.undo()?;
        Ok(Json(s.view(id)?))
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_in_player_specs_are_read_only_under_the_folders() {
        let dir = tempfile::tempdir().unwrap();
        let roots = Roots::new(&[dir.path().to_path_buf()]).unwrap();
        std::fs::write(dir.path().join("p.json"), "{}").unwrap();
        let inside = dir.path().join("p.json").display().to_string();
        let canonical = dir.path().join("p.json").canonicalize().unwrap();
        let spec = checked_spec(&format!("policy(file={inside})"), &roots).unwrap();
        assert_eq!(spec, format!("policy(file={})", canonical.display()));
        let nested =
            checked_spec(&format!("pone(fallback=policy(file={inside}))"), &roots).unwrap();
        assert!(
            nested.contains(&canonical.display().to_string()),
            "{nested}"
        );
        for outside in [
            "policy(file=/etc/passwd)",
            "pone(fallback=lp(file=/etc/hostname))",
        ] {
            let e = checked_spec(outside, &roots).unwrap_err();
            assert_eq!(e.status, axum::http::StatusCode::FORBIDDEN, "{outside}");
        }
        assert_eq!(
            checked_spec(" ismcts(sims=10) ", &roots).unwrap(),
            "ismcts(sims=10)"
        );
        assert_eq!(checked_spec("random", &roots).unwrap(), "random");
    }
}
