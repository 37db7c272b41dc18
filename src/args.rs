//! What the commands share in their arguments: checked numeric values, the
//! worker-thread setting and the memory limit.

use anyhow::{Context, Result};
use darkhex_algorithms::memory::MemoryLimit;
pub use darkhex_algorithms::memory::total_memory;

/// Threads per core above which more threads only add overhead.
const MAX_THREADS_PER_CORE: usize = 4;

/// A clap value parser for finite numbers in `[low, high]` (`high_open`:
/// `[low, high)`), whose error names the accepted range.
pub fn number_in(
    low: f64,
    high: f64,
    high_open: bool,
) -> impl Fn(&str) -> Result<f64, String> + Clone + Send + Sync + 'static {
    interval(low, false, high, high_open)
}

/// A clap value parser for finite numbers between `low` and `high`, each
/// bound excluded when its flag says so; the error names the range.
pub fn interval(
    low: f64,
    low_open: bool,
    high: f64,
    high_open: bool,
) -> impl Fn(&str) -> Result<f64, String> + Clone + Send + Sync + 'static {
    move |text: &str| {
        let range = match (low_open, high_open) {
            (false, false) => format!("{low} to {high}"),
            (false, true) => format!("{low} to {high}, {high} excluded"),
            (true, false) => format!("{low} to {high}, {low} excluded"),
            (true, true) => format!("{low} to {high}, both excluded"),
        };
        let x: f64 = text
            .trim()
            .parse()
            .map_err(|_| format!("'{text}' is not a number; accepted: {range}"))?;
        let above = if low_open { x > low } else { x >= low };
        let below = if high_open { x < high } else { x <= high };
        if x.is_finite() && above && below {
            Ok(x)
        } else {
            Err(format!("{text} is out of range; accepted: {range}"))
        }
    }
}

/// A clap value parser for whole numbers from `low` to `high` (no upper
/// bound: `None`) of any integer type; the error names the range.
pub fn whole<T: TryFrom<i128>>(
    low: i128,
    high: Option<i128>,
) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static {
    move |text: &str| {
        let range = match high {
            Some(high) => format!("{low} to {high}"),
            None => format!("{low} or more"),
        };
        let x: i128 = text
            .trim()
            .parse()
            .map_err(|_| format!("'{text}' is not a whole number; accepted: {range}"))?;
        if x < low || high.is_some_and(|h| x > h) {
            return Err(format!("{text} is out of range; accepted: {range}"));
        }
        T::try_from(x).map_err(|_| format!("{text} is out of range; accepted: {range}"))
    }
}

/// `--threads`: at least 1 (more than a few per core are clamped with a
/// warning when used, see [`thread_count`]).
pub fn threads(text: &str) -> Result<usize, String> {
    whole(1, None)(text)
}

/// `--seed`: any whole number from 0 to 2^64 - 1.
pub fn seed(text: &str) -> Result<u64, String> {
    whole(0, Some(u64::MAX.into()))(text)
}

/// `--tt-mb`, `param_dfpn tt_mb`: 1 MB up to the machine's memory.
pub fn tt_mb(text: &str) -> Result<usize, String> {
    let most = total_memory().map_or(1 << 20, |b| b / 1_000_000) as i128;
    whole(1, Some(most))(text).map_err(|e| format!("{e} (MB; the most is this machine's memory)"))
}

/// `--max-memory-gb`: a positive number of GB, at most a petabyte.
pub fn memory_gb(text: &str) -> Result<f64, String> {
    let x = number_in(0.001, 1e6, false)(text)?;
    Ok(x)
}

/// The memory guard's limit: `--max-memory-gb` when given (`main` sets
/// it for the process), else 60% of the memory available (see
/// [`MemoryLimit`]).
pub fn memory_limit() -> MemoryLimit {
    MemoryLimit::new(None)
}

/// The number of cores this process may use.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The most threads worth running here: more only adds overhead.
pub fn max_threads() -> usize {
    cores() * MAX_THREADS_PER_CORE
}

/// The threads to run: `threads` (all cores when not given), clamped with
/// a warning to a few per core, past which more only add overhead.
pub fn thread_count(threads: Option<usize>) -> usize {
    let Some(t) = threads else {
        return cores();
    };
    let max = max_threads();
    if t > max {
        eprintln!(
            "warning: --threads {t} is more than {MAX_THREADS_PER_CORE} per core on this {}-core machine; using {max}",
            cores()
        );
        return max;
    }
    t.max(1)
}

/// Sets the worker threads of every parallel pass (see [`thread_count`]).
pub fn set_threads(threads: Option<usize>) -> Result<()> {
    if threads.is_none() {
        return Ok(());
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(thread_count(threads))
        .build_global()
        .context("setting up the worker threads")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_outside_the_range_are_refused_with_it() {
        let p = number_in(0.0, 1.0, true);
        assert_eq!(p("0.5"), Ok(0.5));
        assert_eq!(p("0"), Ok(0.0));
        for bad in ["nan", "inf", "-inf", "1", "-0.1", "x"] {
            let e = p(bad).unwrap_err();
            assert!(e.contains("0 to 1, 1 excluded"), "{bad}: {e}");
        }
        let open = interval(0.0, true, 1.0, true);
        assert!(open("0").unwrap_err().contains("0 to 1, both excluded"));
        assert_eq!(open("1e-9"), Ok(1e-9));
        let w = whole::<u8>(0, Some(1));
        assert_eq!(w("1"), Ok(1));
        assert_eq!(w("2").unwrap_err(), "2 is out of range; accepted: 0 to 1");
        assert!(w("1.5").unwrap_err().contains("not a whole number"));
        let w = whole::<u64>(1, None);
        assert_eq!(
            w("0").unwrap_err(),
            "0 is out of range; accepted: 1 or more"
        );
        assert_eq!(w("18446744073709551615"), Ok(u64::MAX));
        assert!(w("18446744073709551616").is_err());
        assert!(threads("0").is_err() && tt_mb("0").is_err() && tt_mb("99999999999").is_err());
        assert!(memory_gb("-1").is_err() && memory_gb("nan").is_err() && memory_gb("0").is_err());
        assert_eq!(memory_gb("2.5"), Ok(2.5));
    }
}
