//! Training runs for the page's charts: each run's evaluations read as
//! `darkhex plot` reads them (checkpoints and `train --json` outputs); the
//! page draws exploitability against iterations and against seconds.

use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use serde_json::json;

use super::api::{Answer, ApiError, AppState, blocking};
use crate::plot_runs::read_run;

/// Runs drawn at once at most.
const MAX_RUNS: usize = 32;

#[derive(Deserialize)]
pub struct Runs {
    paths: Vec<String>,
}

pub async fn show(State(state): State<AppState>, Json(q): Json<Runs>) -> Answer {
    let shared = state.shared().clone();
    blocking(move || {
        if q.paths.is_empty() || q.paths.len() > MAX_RUNS {
            return Err(ApiError::bad(format!(
                "choose 1 to {MAX_RUNS} runs (checkpoints or `train --json` outputs)"
            )));
        }
        let mut runs = Vec::new();
        for text in &q.paths {
            let path = shared.roots.resolve(text)?;
            let run = read_run(&path).map_err(|e| {
                ApiError::bad(darkhex_games::one_line(&format!("{e:#}")))
            })?;
            let points: Vec<_> = run
                .history
                .iter()
                .filter_map(|p| {
                    let e = p.exploitability?;
                    Some(json!({ "iteration": p.iteration, "seconds": p.seconds, "exploitability": e }))
                })
                .collect();
            let name = path
                .file_name()
                .map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
            runs.push(json!({
                "path": path.display().to_string(),
                "name": name,
                "game": run.game,
                "algo": run.algo,
                "points": points,
            }));
        }
        Ok(Json(json!({ "runs": runs })))
    })
    .await
}
