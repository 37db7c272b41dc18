//! Writing result files atomically, and reading them back as JSON or
//! MessagePack (the compact binary form) by their content.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum FileError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not a valid {what} file: {reason}")]
    Malformed {
        path: PathBuf,
        what: &'static str,
        reason: String,
    },
}

/// The encoding of a result file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Json,
    /// MessagePack: compact, exact for every f64.
    Binary,
}

impl Encoding {
    /// `.json` files are JSON; anything else is binary.
    pub fn for_path(path: &Path) -> Encoding {
        match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("json") => Encoding::Json,
            _ => Encoding::Binary,
        }
    }
}

/// Writes `bytes` to a temporary file beside `path`, syncs it, and renames it
/// over `path`: a reader sees the old file or the new one, never a torn one.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    let err = |source| FileError::Write {
        path: path.to_path_buf(),
        source,
    };
    // A device or pipe (/dev/null, /dev/stdout) must not be replaced by a
    // renamed file: write to it directly.
    if fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        return fs::write(path, bytes).map_err(err);
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    fs::create_dir_all(dir).map_err(err)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(err)?;
    tmp.write_all(bytes).map_err(err)?;
    // Temporary files are private; results are ordinary files.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file()
            .set_permissions(fs::Permissions::from_mode(0o644))
            .map_err(err)?;
    }
    tmp.as_file().sync_all().map_err(err)?;
    tmp.persist(path).map_err(|e| err(e.error))?;
    Ok(())
}

/// Serialises `value` in the encoding `path` asks for and writes it atomically.
pub fn save<T: Serialize>(path: &Path, value: &T) -> Result<(), FileError> {
    let bytes = match Encoding::for_path(path) {
        Encoding::Json => serde_json::to_vec(value).map_err(|e| FileError::Write {
            path: path.to_path_buf(),
            source: std::io::Error::other(e),
        })?,
        Encoding::Binary => rmp_serde::to_vec_named(value).map_err(|e| FileError::Write {
            path: path.to_path_buf(),
            source: std::io::Error::other(e),
        })?,
    };
    write_atomically(path, &bytes)
}

/// Reads a file written by [`save`], recognising JSON by its first byte.
pub fn load<T: DeserializeOwned>(path: &Path, what: &'static str) -> Result<T, FileError> {
    let bytes = fs::read(path).map_err(|source| FileError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let malformed = |reason: String| FileError::Malformed {
        path: path.to_path_buf(),
        what,
        reason,
    };
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if first == Some(&b'{') {
        serde_json::from_slice(&bytes).map_err(|e| malformed(e.to_string()))
    } else {
        rmp_serde::from_slice(&bytes).map_err(|e| malformed(e.to_string()))
    }
}
