//! The folders the server may read under, and the one check every path a
//! request names goes through: resolved (links and `..` included), it must
//! lie under one of them. A listing shows the pages what those folders
//! hold, each file by the kind darkhex tells from its first line.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use darkhex_algorithms::files::{FileKind, identify};
use serde::Serialize;

use super::api::ApiError;

/// How deep a listing looks below a folder, and how many entries it reads
/// at most: a folder holding a home directory answers quickly all the same.
const LIST_DEPTH: usize = 6;
const LIST_ENTRIES: usize = 20_000;

/// A `train --json` output is read to be told from other JSON when at most
/// this large (a run's evaluations take a few kilobytes).
const RUN_JSON_BYTES: u64 = 4 << 20;

#[derive(Clone, Debug)]
pub struct Roots {
    /// Canonical paths.
    folders: Vec<PathBuf>,
}

/// A file (or league folder) under the roots, for the pages' pickers.
#[derive(Clone, Debug, Serialize)]
pub struct Listed {
    /// The path the API takes back.
    pub path: String,
    /// The path under its folder, as the page shows it.
    pub shown: String,
    /// policy, model, pone, league, run or checkpoint.
    pub kind: &'static str,
}

impl Roots {
    /// The folders as given on the command line; each must be a folder.
    pub fn new(folders: &[PathBuf]) -> Result<Roots> {
        let mut canonical = Vec::new();
        for f in folders {
            match f.canonicalize() {
                Ok(c) if c.is_dir() => canonical.push(c),
                Ok(_) => bail!(
                    "{} is a file, not a folder: serve opens files under the folders it is given; give the folder that holds it",
                    f.display()
                ),
                Err(e) => bail!("cannot open the folder {}: {e}", f.display()),
            }
        }
        Ok(Roots { folders: canonical })
    }

    /// Lines for the server's log: what it may read.
    pub fn describe(&self) -> Vec<String> {
        if self.folders.is_empty() {
            return vec![
                "no folders given: the pages open no files (name folders after `serve` to open policies, leagues and runs)".into(),
            ];
        }
        self.folders
            .iter()
            .map(|f| format!("reads files under {}", f.display()))
            .collect()
    }

    /// `text` (absolute, or relative to the server's working folder) as
    /// a canonical path under one of the folders, or why not.
    pub fn resolve(&self, text: &str) -> Result<PathBuf, ApiError> {
        let shown = darkhex_games::one_line(text);
        if text.trim().is_empty() {
            return Err(ApiError::bad("no file named: choose one from the list"));
        }
        let path = Path::new(text.trim());
        let canonical = path
            .canonicalize()
            .map_err(|e| ApiError::not_found(format!("cannot open {shown}: {e}")))?;
        if self.folders.iter().any(|f| canonical.starts_with(f)) {
            Ok(canonical)
        } else if self.folders.is_empty() {
            Err(ApiError::forbidden(format!(
                "{shown} is not under a folder the server was given: it was started with none (`darkhex serve FOLDER...` names them)"
            )))
        } else {
            Err(ApiError::forbidden(format!(
                "{shown} is outside the folders the server reads ({}): it reads only under the folders named on its command line",
                self.folders
                    .iter()
                    .map(|f| f.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )))
        }
    }

    /// The darkhex files and league folders under the roots, sorted.
    pub fn list(&self) -> Vec<Listed> {
        let mut out = Vec::new();
        let mut budget = LIST_ENTRIES;
        for root in &self.folders {
            walk(root, root, 0, &mut budget, &mut out);
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        out.dedup_by(|a, b| a.path == b.path);
        out
    }
}

fn walk(root: &Path, dir: &Path, depth: usize, budget: &mut usize, out: &mut Vec<Listed>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with('.') || name == "target" {
            continue;
        }
        let listed = |kind| Listed {
            path: path.display().to_string(),
            shown: path
                .strip_prefix(root)
                .map_or_else(|_| path.display().to_string(), |p| p.display().to_string()),
            kind,
        };
        if path.is_dir() {
            if path.join("results.jsonl").is_file() {
                out.push(listed("league"));
            }
            if depth + 1 < LIST_DEPTH {
                walk(root, &path, depth + 1, budget, out);
            }
            continue;
        }
        let kind = match identify(&path) {
            Some(FileKind::Policy) => Some("policy"),
            Some(FileKind::Model) => Some("model"),
            Some(FileKind::PoneStrategy) => Some("pone"),
            Some(FileKind::Checkpoint) => Some("checkpoint"),
            Some(_) => None,
            None if is_run_json(&path) => Some("run"),
            None => None,
        };
        if let Some(kind) = kind {
            out.push(listed(kind));
        }
    }
}

/// Whether `path` looks like the output of `train --json`.
fn is_run_json(path: &Path) -> bool {
    let small = std::fs::metadata(path).is_ok_and(|m| m.len() <= RUN_JSON_BYTES);
    if !small || path.extension().is_none_or(|e| e != "json") {
        return false;
    }
    let Ok(text) = std::fs::read_to_string(path) else {
        return false;
    };
    serde_json::from_str::<serde_json::Value>(&text)
        .is_ok_and(|v| v["game"].is_string() && v["algo"].is_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_outside_the_folders_are_refused_however_they_are_spelt() {
        let dir = tempfile::tempdir().unwrap();
        let inside = dir.path().join("in");
        let outside = dir.path().join("out");
        std::fs::create_dir_all(&inside).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(inside.join("a.json"), "{}").unwrap();
        std::fs::write(outside.join("b.json"), "{}").unwrap();
        let roots = Roots::new(std::slice::from_ref(&inside)).unwrap();
        let ok = roots.resolve(&inside.join("a.json").display().to_string());
        assert_eq!(ok.unwrap(), inside.join("a.json").canonicalize().unwrap());
        for sneaky in [
            outside.join("b.json"),
            inside.join("../out/b.json"),
            inside.join(".."),
        ] {
            let e = roots.resolve(&sneaky.display().to_string()).unwrap_err();
            assert_eq!(e.status, axum::http::StatusCode::FORBIDDEN, "{sneaky:?}");
            assert!(e.message.contains("outside the folders"), "{}", e.message);
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&outside, inside.join("link")).unwrap();
            let e = roots
                .resolve(&inside.join("link/b.json").display().to_string())
                .unwrap_err();
            assert_eq!(e.status, axum::http::StatusCode::FORBIDDEN);
        }
        let missing = roots.resolve(&inside.join("nope.json").display().to_string());
        assert_eq!(
            missing.unwrap_err().status,
            axum::http::StatusCode::NOT_FOUND
        );
        let none = Roots::new(&[]).unwrap();
        let e = none
            .resolve(&inside.join("a.json").display().to_string())
            .unwrap_err();
        assert!(e.message.contains("started with none"), "{}", e.message);
    }

    #[test]
    fn a_file_given_as_a_folder_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f.txt");
        std::fs::write(&file, "x").unwrap();
        let e = Roots::new(&[file]).unwrap_err().to_string();
        assert!(e.contains("is a file, not a folder"), "{e}");
        let e = Roots::new(&[dir.path().join("missing")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("cannot open the folder"), "{e}");
    }
}
