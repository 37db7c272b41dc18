//! When a training run saves its checkpoint beside its evaluations: a
//! killed run (SIGKILL, a node lost) loses at most a few minutes, and a
//! checkpoint of large tables, which takes seconds to write, never takes
//! more than a small share of the run.

use std::time::{Duration, Instant};

/// The checkpoint is saved at least this often.
pub const CHECKPOINT_INTERVAL: Duration = Duration::from_secs(3 * 60);

/// Saving takes at most one part in this many of the run's time.
const RUN_PER_SAVE: u32 = 20;

pub struct CheckpointClock {
    since: Instant,
    cost: Duration,
}

impl CheckpointClock {
    /// A clock whose interval starts now (a run's start or its last save).
    pub fn start() -> Self {
        CheckpointClock {
            since: Instant::now(),
            cost: Duration::ZERO,
        }
    }

    /// Whether the checkpoint is due.
    pub fn due(&self) -> bool {
        self.since.elapsed() >= CHECKPOINT_INTERVAL.max(self.cost * RUN_PER_SAVE)
    }

    /// Saves with `save`, timing it, and starts the next interval.
    pub fn save<T>(&mut self, save: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let out = save();
        self.cost = start.elapsed();
        self.since = Instant::now();
        out
    }
}
