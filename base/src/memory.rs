//! What the kernel says of the machine's memory (/proc/meminfo): the
//! guards that refuse a build before it meets the OOM killer read it, in
//! the CLI and in the Python bindings alike. `None` where there is no such
//! file (other systems): the guards then rely on failed allocations.

use std::sync::Mutex;

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

/// The memory guard every large build goes through: it estimates what it
/// will hold before it starts and asks [`MemoryLimit::check`], which
/// refuses past the limit with the estimate, so that no build grows into
/// the OOM killer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MemoryLimit {
    bytes: u64,
    source: LimitSource,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LimitSource {
    /// By the setting named.
    Given(&'static str),
    /// A share of what the kernel says is available.
    Available,
    /// The kernel does not say: [`DEFAULT_BYTES`].
    Default,
}

/// The limit the process was given (the CLI's `--max-memory-gb`, Python's
/// `darkhex.set_memory_limit`), which [`MemoryLimit::new`] takes where no
/// other is given: the library code that builds (a player's LP, say) asks
/// for the process's limit, with the setting that gave it.
static GIVEN: Mutex<Option<(u64, &'static str)>> = Mutex::new(None);

/// Sets the process's limit, named in messages by the setting `by` that
/// gave it (`--max-memory-gb`), or (`None`) goes back to the default.
pub fn set_process_limit(limit: Option<(u64, &'static str)>) {
    *GIVEN.lock().unwrap_or_else(|e| e.into_inner()) = limit;
}

fn process_limit() -> Option<(u64, &'static str)> {
    *GIVEN.lock().unwrap_or_else(|e| e.into_inner())
}

/// How a user sets the limit, for messages.
const SET_ANOTHER: &str =
    "--max-memory-gb, or darkhex.set_memory_limit in Python, sets another limit";

/// The share of the available memory a build may count as its own: a
/// process holds about 1.4 times what the estimates count (vector slack,
/// the allocator), and must leave the machine room to work.
const AVAILABLE_SHARE: f64 = 0.6;

/// The limit where the kernel does not say what is available.
pub const DEFAULT_BYTES: u64 = 8 << 30;

/// The memory a computation would need, past its limit.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error(
    "{what} would need about {} ({how}), more than {}",
    crate::bytes::readable_bytes(*.need),
    .limit.describe()
)]
pub struct TooLarge {
    pub what: String,
    /// Bytes, estimated.
    pub need: f64,
    /// How `need` was estimated, for the message.
    pub how: String,
    pub limit: MemoryLimit,
}

impl MemoryLimit {
    /// `gb` gigabytes when given, else the process's limit when set
    /// ([`set_process_limit`]), else 60% of the memory available now.
    pub fn new(gb: Option<f64>) -> Self {
        let given = gb
            .map(|g| ((g * 1e9) as u64, "--max-memory-gb"))
            .or_else(process_limit);
        match (given, available_memory()) {
            (Some((bytes, by)), _) => MemoryLimit {
                bytes,
                source: LimitSource::Given(by),
            },
            (None, Some(a)) => MemoryLimit {
                bytes: (a as f64 * AVAILABLE_SHARE) as u64,
                source: LimitSource::Available,
            },
            (None, None) => MemoryLimit {
                bytes: DEFAULT_BYTES,
                source: LimitSource::Default,
            },
        }
    }

    /// A limit of exactly `bytes`, as if given.
    pub fn bytes_given(bytes: u64) -> Self {
        MemoryLimit {
            bytes,
            source: LimitSource::Given("--max-memory-gb"),
        }
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Whether the limit was given rather than found.
    pub fn is_given(&self) -> bool {
        matches!(self.source, LimitSource::Given(_))
    }

    /// This limit less `held` bytes, for a later part of a computation
    /// that holds them throughout.
    pub fn less(&self, held: u64) -> Self {
        MemoryLimit {
            bytes: self.bytes.saturating_sub(held),
            ..*self
        }
    }

    /// What the limit is and where it comes from, for messages.
    pub fn describe(&self) -> String {
        let limit = crate::bytes::readable_bytes(self.bytes as f64);
        match self.source {
            LimitSource::Given(by) => format!("the {limit} that {by} allows"),
            LimitSource::Available => {
                format!("the {limit} allowed here (60% of the memory available; {SET_ANOTHER})")
            }
            LimitSource::Default => {
                format!("the {limit} allowed where the memory available is unknown ({SET_ANOTHER})")
            }
        }
    }

    /// Refuses `what` when it would need more than the limit: `need`
    /// bytes, estimated as `how` says.
    pub fn check(&self, what: impl Into<String>, need: f64, how: &str) -> Result<(), TooLarge> {
        if need <= self.bytes as f64 {
            return Ok(());
        }
        Err(TooLarge {
            what: what.into(),
            need,
            how: how.to_string(),
            limit: *self,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_refuses_past_it_with_the_estimate() {
        let limit = MemoryLimit::bytes_given(2_000_000_000);
        assert!(limit.check("a build", 2e9, "counted").is_ok());
        let e = limit
            .check("the tables of x", 4.2e26, "Knuth's estimate")
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "the tables of x would need about 4.2e17 GB (Knuth's estimate), more than the 2.0 GB that --max-memory-gb allows"
        );
        assert_eq!(limit.less(500_000_000).bytes(), 1_500_000_000);
        let auto = MemoryLimit::new(None);
        assert!(auto.bytes() > 0 && auto.describe().contains("--max-memory-gb"));
    }
}
