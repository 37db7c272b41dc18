//! The pages, scripts and styles of `web/`, compiled into the binary: the
//! server needs no files of its own at run time, and no build step makes
//! them (plain HTML, ES modules and CSS).

use axum::extract::Path;
use axum::response::{IntoResponse, Response};

use super::api::{ApiError, content_type};

/// Every file of `web/` by its name there (a test checks none is missing).
const FILES: &[(&str, &str)] = &[
    ("index.html", include_str!("../../web/index.html")),
    ("style.css", include_str!("../../web/style.css")),
    ("api.js", include_str!("../../web/api.js")),
    ("app.js", include_str!("../../web/app.js")),
    ("board.js", include_str!("../../web/board.js")),
    ("replay.js", include_str!("../../web/replay.js")),
    ("play.js", include_str!("../../web/play.js")),
    ("league.js", include_str!("../../web/league.js")),
    ("policy.js", include_str!("../../web/policy.js")),
    ("runs.js", include_str!("../../web/runs.js")),
];

fn asset(name: &str) -> Option<&'static str> {
    FILES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
}

pub async fn index() -> Response {
    file(Path("index.html".to_string())).await
}

pub async fn file(Path(name): Path<String>) -> Response {
    match asset(&name) {
        Some(text) => (content_type(&name), text).into_response(),
        None => ApiError::not_found(format!("no page {}", darkhex_games::one_line(&name)))
            .into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_of_the_web_folder_is_served() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("web");
        let mut on_disk: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        on_disk.sort();
        let mut served: Vec<String> = FILES.iter().map(|(n, _)| n.to_string()).collect();
        served.sort();
        assert_eq!(
            on_disk, served,
            "web/ and the table of src/serve/assets.rs differ"
        );
    }
}
