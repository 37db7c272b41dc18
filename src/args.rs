//! What the commands share in their arguments: checked numeric values, the
//! worker-thread setting and the memory limit.

use anyhow::{Context, Result, bail};
use darkhex_algorithms::tree::DEFAULT_MAX_BYTES;

/// Threads per core above which more threads only add overhead.
const MAX_THREADS_PER_CORE: usize = 4;

/// A clap value parser for finite numbers in `[low, high]` (`high_open`:
/// `[low, high)`), whose error names the accepted range.
pub fn number_in(
    low: f64,
    high: f64,
    high_open: bool,
) -> impl Fn(&str) -> Result<f64, String> + Clone + Send + Sync + 'static {
    move |text: &str| {
        let range = format!(
            "{low} to {high}{}",
            if high_open { " (exclusive)" } else { "" }
        );
        let x: f64 = text
            .trim()
            .parse()
            .map_err(|_| format!("'{text}' is not a number; accepted: {range}"))?;
        let inside = x.is_finite() && x >= low && if high_open { x < high } else { x <= high };
        if inside {
            Ok(x)
        } else {
            Err(format!("{text} is out of range; accepted: {range}"))
        }
    }
}

/// `--max-memory-gb`: a positive number of GB, at most a petabyte.
pub fn memory_gb(text: &str) -> Result<f64, String> {
    let x = number_in(0.001, 1e6, false)(text)?;
    Ok(x)
}

/// Memory limit in bytes, as the command line gives it in GB.
pub fn max_bytes(gb: Option<f64>) -> u64 {
    gb.map_or(DEFAULT_MAX_BYTES, |g| (g * 1e9) as u64)
}

/// The memory the kernel says is available to new work (MemAvailable in
/// /proc/meminfo), in bytes; `None` where there is no such file.
pub fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The most memory an information-state table build may count as held:
/// `--max-memory-gb` when given, else 60% of what the kernel says is
/// available, since the process holds about 1.4 times what the build
/// counts (vector slack, the allocator) and must not meet the OOM killer.
pub fn build_limit(gb: Option<f64>) -> Option<u64> {
    gb.map(|g| (g * 1e9) as u64)
        .or_else(|| available_memory().map(|a| a / 10 * 6))
}

/// The number of cores this process may use.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The most threads worth running here: more only adds overhead.
pub fn max_threads() -> usize {
    cores() * MAX_THREADS_PER_CORE
}

/// Sets the worker threads of every parallel pass. More than a few per core
/// is clamped, with a warning: it only adds overhead.
pub fn set_threads(threads: Option<usize>) -> Result<()> {
    let Some(mut t) = threads else {
        return Ok(());
    };
    if t == 0 {
        bail!("--threads must be at least 1");
    }
    let max = max_threads();
    if t > max {
        eprintln!(
            "warning: --threads {t} is more than {MAX_THREADS_PER_CORE} per core on this {}-core machine; using {max}",
            cores()
        );
        t = max;
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(t)
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
        for bad in ["nan", "inf", "-inf", "1", "-0.1", "x"] {
            let e = p(bad).unwrap_err();
            assert!(e.contains("0 to 1 (exclusive)"), "{bad}: {e}");
        }
        assert!(memory_gb("-1").is_err() && memory_gb("nan").is_err() && memory_gb("0").is_err());
        assert_eq!(memory_gb("2.5"), Ok(2.5));
    }
}
