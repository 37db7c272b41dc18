//! A league folder as the page shows it: the tournament, the ratings and
//! the pairwise table (the report `darkhex league` prints, from the same
//! code), and every game of the results log; a game is replayed by
//! `/api/replay` from the moves logged.

use axum::Json;
use axum::extract::{Query, State};
use darkhex_league::{Report, ResultsLog};
use serde::Deserialize;
use serde_json::json;

use super::api::{Answer, ApiError, AppState, blocking};

#[derive(Deserialize)]
pub struct Folder {
    /// The league's folder, or its results.jsonl.
    dir: String,
}

pub async fn show(State(state): State<AppState>, Query(q): Query<Folder>) -> Answer {
    let shared = state.shared().clone();
    blocking(move || {
        let path = shared.roots.resolve(&q.dir)?;
        let log = if path.is_dir() {
            path.join("results.jsonl")
        } else {
            path.clone()
        };
        if !log.is_file() {
            return Err(ApiError::not_found(format!(
                "{} holds no results.jsonl: it is not a league folder (`darkhex league --out DIR` writes one)",
                path.display()
            )));
        }
        let (tournament, games) = ResultsLog::read(&log)?;
        let report = Report::new(&tournament, &games);
        Ok(Json(json!({
            "path": path.display().to_string(),
            "tournament": tournament,
            "report": report,
            "games": games,
        })))
    })
    .await
}
