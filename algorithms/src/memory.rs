//! What the kernel says of the machine's memory (/proc/meminfo): the
//! guards that refuse a build before it meets the OOM killer read it, in
//! the CLI and in the Python bindings alike. `None` where there is no such
//! file (other systems): the guards then rely on failed allocations.

/// The memory the kernel says is available to new work (MemAvailable), in bytes.
pub fn available_memory() -> Option<u64> {
    meminfo("MemAvailable:")
}

/// The machine's memory (MemTotal), in bytes.
pub fn total_memory() -> Option<u64> {
    meminfo("MemTotal:")
}

fn meminfo(field: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with(field))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kb.checked_mul(1024)
}
