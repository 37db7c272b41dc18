//! The JSON API and the routes: each handler reads its request, calls the
//! module that answers it, and turns a failure into an error the page
//! shows (`{"error": ...}` with a 4xx or 5xx status) and the server logs.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use axum::extract::{Path, Query, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{Next, from_fn_with_state};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use darkhex_games::{EXAMPLE_GAME_STRINGS, Game, load_game};
use serde::Deserialize;
use serde_json::{Value, json};

use super::roots::Roots;
use super::sessions::Sessions;
use super::{assets, hex, jobs, league, play, policy, runs, view};

/// A request that cannot be answered, and why, in one line.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
}

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        ApiError {
            status,
            message: message.into(),
        }
    }

    /// A request the user can correct (a bad game string, an illegal move).
    pub fn bad(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, message)
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, message)
    }

    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, message)
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, message)
    }

    /// A library error, with its causes on one line.
    pub fn from_error(e: &(dyn std::error::Error + 'static)) -> Self {
        let mut text = e.to_string();
        let mut source = e.source();
        while let Some(s) = source {
            let more = s.to_string();
            if !text.contains(more.trim()) {
                text = format!("{text}: {more}");
            }
            source = s.source();
        }
        Self::bad(darkhex_games::one_line(&text))
    }

    pub fn body(&self) -> Value {
        json!({ "error": self.message })
    }

    /// The server's log line.
    pub fn log(&self) {
        if self.message != "cancelled" {
            eprintln!("darkhex serve: {}: {}", self.status.as_u16(), self.message);
        }
    }
}

impl<E: std::error::Error + 'static> From<E> for ApiError {
    fn from(e: E) -> Self {
        ApiError::from_error(&e)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        self.log();
        (self.status, Json(self.body())).into_response()
    }
}

pub type Answer = Result<Json<Value>, ApiError>;

/// What every handler shares.
#[derive(Clone)]
pub struct AppState(Arc<Shared>);

pub struct Shared {
    pub roots: Roots,
    pub sessions: Sessions,
    pub policies: policy::Cache,
    /// One large build (a tree, an LP) at a time: each is checked against
    /// the memory limit as if it were alone.
    pub heavy: std::sync::Mutex<()>,
    /// Raised when the server stops: running jobs end.
    pub shutdown: Arc<AtomicBool>,
    /// Listening on a loopback address: requests must name it so.
    pub loopback: bool,
}

impl AppState {
    pub fn new(roots: Roots, loopback: bool) -> Self {
        AppState(Arc::new(Shared {
            roots,
            sessions: Sessions::default(),
            policies: policy::Cache::default(),
            heavy: std::sync::Mutex::new(()),
            shutdown: Arc::new(AtomicBool::new(false)),
            loopback,
        }))
    }

    pub fn shared(&self) -> &Arc<Shared> {
        &self.0
    }
}

/// Runs `work` on the blocking pool: game moves and file reads never hold
/// up the threads that answer requests. A panic is an internal error.
pub async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ApiError::internal(format!("the request failed: {e}")))?
}

pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/", get(assets::index))
        .route("/api/about", get(about))
        .route("/api/files", get(files))
        .route("/api/replay", get(replay))
        .route("/api/play", post(play::create))
        .route("/api/play/prepare", get(play::prepare_job))
        .route("/api/play/{id}", get(play::show))
        .route("/api/play/{id}/move", post(play::act))
        .route("/api/play/{id}/undo", post(play::undo))
        .route("/api/hex/verdict", get(hex::verdict))
        .route("/api/hex/network", get(hex::network))
        .route("/api/league", get(league::show))
        .route("/api/policy", get(policy::summary))
        .route("/api/policy/at", get(policy::at))
        .route("/api/policy/exploit", get(policy::exploit))
        .route("/api/runs", post(runs::show))
        .route("/{*file}", get(assets::file))
        .fallback(not_found)
        .layer(from_fn_with_state(state.clone(), check_host))
        .with_state(state)
}

/// A server on 127.0.0.1 answers only requests addressed to it by a
/// loopback name: a web page elsewhere that points a name of its own at
/// 127.0.0.1 (DNS rebinding) gets nothing from it.
async fn check_host(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    if state.0.loopback && !is_loopback_name(host) {
        return ApiError::forbidden(format!(
            "this server answers requests to 127.0.0.1 or localhost, not to '{}'",
            darkhex_games::one_line(host)
        ))
        .into_response();
    }
    next.run(request).await
}

/// Whether a Host header (a name, with or without a port) names this machine.
fn is_loopback_name(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => host.rsplit_once(':').map_or(host, |(name, _)| name),
    };
    matches!(name, "127.0.0.1" | "localhost" | "::1")
}

async fn not_found() -> ApiError {
    ApiError::not_found("no such page")
}

async fn about(State(state): State<AppState>) -> Json<Value> {
    Json(json!({
        "version": env!("CARGO_PKG_VERSION"),
        "games": EXAMPLE_GAME_STRINGS,
        "players": darkhex_players::PLAYER_NAMES,
        "folders": state.0.roots.describe(),
        "jobs_running": jobs::RUNNING.load(std::sync::atomic::Ordering::SeqCst),
    }))
}

async fn files(State(state): State<AppState>) -> Answer {
    let shared = state.0.clone();
    let listed = blocking(move || Ok(shared.roots.list())).await?;
    Ok(Json(json!({ "files": listed })))
}

#[derive(Deserialize)]
pub struct GameMoves {
    pub game: String,
    #[serde(default)]
    pub moves: String,
}

/// A game string read, or an error naming the accepted ones.
pub fn parse_game(text: &str) -> Result<darkhex_games::AnyGame, ApiError> {
    load_game(text).map_err(|e| ApiError::bad(e.to_string()))
}

async fn replay(Query(q): Query<GameMoves>) -> Answer {
    blocking(move || {
        let game = parse_game(&q.game)?;
        let frames = view::replay(&game, &q.moves)?;
        Ok(Json(
            json!({ "game": game.game_string(), "frames": frames }),
        ))
    })
    .await
}

/// An id in a path.
pub fn id_of(Path(id): Path<String>) -> Result<u64, ApiError> {
    id.parse()
        .map_err(|_| ApiError::not_found(format!("no game {}", darkhex_games::one_line(&id))))
}

/// The header of the pages' files.
pub fn content_type(name: &str) -> [(header::HeaderName, &'static str); 1] {
    let mime = match name.rsplit('.').next() {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        _ => "application/octet-stream",
    };
    [(header::CONTENT_TYPE, mime)]
}

pub use jobs::stream as job;

#[cfg(test)]
mod tests {
    use super::is_loopback_name;

    #[test]
    fn only_loopback_names_are_taken_as_this_server() {
        for ok in [
            "127.0.0.1",
            "127.0.0.1:8080",
            "localhost:9000",
            "[::1]:80",
            "localhost",
        ] {
            assert!(is_loopback_name(ok), "{ok}");
        }
        for bad in [
            "",
            "evil.example",
            "evil.example:8080",
            "127.0.0.1.evil.example:80",
            "[::2]:80",
            "localhost.evil:1",
        ] {
            assert!(!is_loopback_name(bad), "{bad}");
        }
    }
}
