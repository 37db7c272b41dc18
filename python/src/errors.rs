//! Rust errors as Python exceptions carrying the CLI's message: what
//! failed, then the causes it does not already quote, on one line.
//! Failures to read or write a file are `OSError` (the subclass Python
//! raises for the same failure: `FileNotFoundError`, `PermissionError`,
//! ...); a refusal by the memory guard (a game, a run or an environment
//! too large for the memory allowed) is `MemoryError`; everything else a
//! user can get wrong (a game string, a move, a file's contents) is
//! `ValueError`.

use std::error::Error;

use pyo3::PyErr;
use std::io::ErrorKind;

use darkhex_algorithms::TreeError;
use darkhex_algorithms::memory::TooLarge;
use darkhex_algorithms::stream::StreamError;
use pyo3::exceptions::{
    PyFileExistsError, PyFileNotFoundError, PyIsADirectoryError, PyMemoryError,
    PyNotADirectoryError, PyOSError, PyPermissionError, PyValueError,
};

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

/// Whether `e` is the memory guard's refusal.
fn is_memory(e: &(dyn Error + 'static)) -> bool {
    e.is::<TooLarge>()
        || matches!(e.downcast_ref(), Some(TreeError::TooLarge { .. }))
        || matches!(
            e.downcast_ref(),
            Some(StreamError::Memory(_) | StreamError::TablesTooLarge { .. })
        )
}

pub fn to_py(e: &(dyn Error + 'static)) -> PyErr {
    let mut io = None;
    let mut memory = false;
    let mut cause = Some(e);
    while let Some(c) = cause {
        io = io.or_else(|| c.downcast_ref::<std::io::Error>().map(std::io::Error::kind));
        memory |= is_memory(c);
        cause = c.source();
    }
    let text = message(e);
    if memory {
        return PyMemoryError::new_err(text);
    }
    match io {
        None => PyValueError::new_err(text),
        Some(ErrorKind::NotFound) => PyFileNotFoundError::new_err(text),
        Some(ErrorKind::PermissionDenied) => PyPermissionError::new_err(text),
        Some(ErrorKind::AlreadyExists) => PyFileExistsError::new_err(text),
        Some(ErrorKind::IsADirectory) => PyIsADirectoryError::new_err(text),
        Some(ErrorKind::NotADirectory) => PyNotADirectoryError::new_err(text),
        Some(_) => PyOSError::new_err(text),
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

/// Any error of a run on its own thread, for [`failure`] to convert.
pub type Failure = Box<dyn std::error::Error + Send + Sync>;

pub fn failure(e: Failure) -> PyErr {
    to_py(&*e)
}
