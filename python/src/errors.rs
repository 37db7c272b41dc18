//! Rust errors as Python exceptions carrying the CLI's message: what
//! failed, then the causes it does not already quote, on one line.
//! Failures to read or write a file are `OSError`; everything else a user
//! can get wrong (a game string, a move, a file's contents) is `ValueError`.

use std::error::Error;

use pyo3::PyErr;
use pyo3::exceptions::{PyOSError, PyValueError};

/// The CLI's text for `e`, without its `error:` prefix.
pub fn message(e: &(dyn Error + 'static)) -> String {
    let mut shown: Vec<String> = Vec::new();
    let mut cause = Some(e);
    while let Some(c) = cause {
        let text = c.to_string();
        if !shown.iter().any(|s| s.contains(text.trim())) {
            shown.push(text);
        }
        cause = c.source();
    }
    shown.join(": ")
}

pub fn to_py(e: &(dyn Error + 'static)) -> PyErr {
    let mut io = false;
    let mut cause = Some(e);
    while let Some(c) = cause {
        io |= c.is::<std::io::Error>();
        cause = c.source();
    }
    if io {
        PyOSError::new_err(message(e))
    } else {
        PyValueError::new_err(message(e))
    }
}

/// `?` for library results in binding code.
pub trait IntoPy<T> {
    fn py(self) -> Result<T, PyErr>;
}

impl<T, E: Error + 'static> IntoPy<T> for Result<T, E> {
    fn py(self) -> Result<T, PyErr> {
        self.map_err(|e| to_py(&e))
    }
}

/// A `ValueError` with a message of the bindings' own.
pub fn value_error(text: impl Into<String>) -> PyErr {
    PyValueError::new_err(text.into())
}
