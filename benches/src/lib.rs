//! darkhex-benches: criterion benchmarks (`cargo bench -p darkhex-benches`)
//! and the helpers they share.

/// This process's peak resident memory in MB (VmHWM; Linux only).
pub fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}
