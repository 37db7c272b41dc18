//! Numeric arguments checked as the CLI checks the options they mirror
//! (src/args.rs): the same ranges, and a `ValueError` naming the argument
//! and the accepted range. Whole numbers arrive as `i128` so that a
//! negative or huge Python int is refused with that message instead of
//! an `OverflowError` that names neither.

use pyo3::prelude::*;

use darkhex_algorithms::fa::mlp::{MAX_HIDDEN, MlpSettings};

use crate::errors::value_error;

/// Threads per core above which more threads only add overhead (the CLI's clamp).
const MAX_THREADS_PER_CORE: usize = 4;

/// `x` when it is a whole number from `low` to `high` (no bound: `None`)
/// that fits `T`.
pub fn whole<T: TryFrom<i128>>(name: &str, x: i128, low: i128, high: Option<i128>) -> PyResult<T> {
    let range = match high {
        Some(high) => format!("{low} to {high}"),
        None => format!("{low} or more"),
    };
    let out_of_range = || value_error(format!("{name}: {x} is out of range; accepted: {range}"));
    if x < low || high.is_some_and(|h| x > h) {
        return Err(out_of_range());
    }
    T::try_from(x).map_err(|_| out_of_range())
}

/// [`whole`] of an optional argument.
pub fn whole_opt<T: TryFrom<i128>>(
    name: &str,
    x: Option<i128>,
    low: i128,
    high: Option<i128>,
) -> PyResult<Option<T>> {
    x.map(|x| whole(name, x, low, high)).transpose()
}

/// `x` when it is a finite number between `low` and `high`, each bound
/// excluded when its flag says so.
pub fn number(
    name: &str,
    x: f64,
    (low, low_open): (f64, bool),
    (high, high_open): (f64, bool),
) -> PyResult<f64> {
    let above = if low_open { x > low } else { x >= low };
    let below = if high_open { x < high } else { x <= high };
    if x.is_finite() && above && below {
        return Ok(x);
    }
    let range = match (low_open, high_open) {
        (false, false) => format!("{low} to {high}"),
        (false, true) => format!("{low} to {high}, {high} excluded"),
        (true, false) => format!("{low} to {high}, {low} excluded"),
        (true, true) => format!("{low} to {high}, both excluded"),
    };
    Err(value_error(format!(
        "{name}: {x} is out of range; accepted: {range}"
    )))
}

/// A seed: any whole number from 0 to 2^64 - 1.
pub fn seed(x: i128) -> PyResult<u64> {
    whole("seed", x, 0, Some(u64::MAX.into()))
}

/// A `threads=` argument: at least 1, or `None` for every core. As on the
/// CLI, more than a few per core only add overhead: they are clamped, with
/// a `RuntimeWarning`.
pub fn threads(py: Python<'_>, x: Option<i128>) -> PyResult<Option<usize>> {
    let Some(t) = whole_opt::<usize>("threads", x, 1, None)? else {
        return Ok(None);
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let max = cores * MAX_THREADS_PER_CORE;
    if t > max {
        let warning = py.get_type::<pyo3::exceptions::PyRuntimeWarning>();
        PyErr::warn(
            py,
            &warning,
            &std::ffi::CString::new(format!(
                "threads={t} is more than {MAX_THREADS_PER_CORE} per core on this {cores}-core machine; using {max}"
            ))?,
            1,
        )?;
        return Ok(Some(max));
    }
    Ok(Some(t))
}

/// Hidden widths from a list of ints, as `--hidden` takes them.
pub fn hidden_widths(hidden: Option<Vec<i128>>) -> PyResult<Option<[u32; MAX_HIDDEN]>> {
    hidden
        .map(|widths| {
            let text: Vec<String> = widths.iter().map(i128::to_string).collect();
            MlpSettings::parse_hidden(&text.join(","))
                .map_err(|e| value_error(format!("hidden: {e}")))
        })
        .transpose()
}
