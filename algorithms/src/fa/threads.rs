//! candle (0.11) sizes its matrix products by the machine's physical cores,
//! which it reads from /proc/cpuinfo at every product unless
//! `RAYON_NUM_THREADS` is set (15,663 reads in a 3-iteration Deep CFR run
//! on Leduc, half its time). [`settle`] sets the variable once, to the
//! threads rayon takes by default anyway, so no pool of darkhex's changes
//! size; the CLI calls it first thing, the Python package when it loads,
//! and the networks before their first product, for library users.
//!
//! It also sets `CANDLE_NUM_THREADS` to 1 unless it is set: candle runs its
//! element-wise operations on a pool of its own whose threads and caller
//! spin while they wait for each other, which on a machine whose cores are
//! busy with other work spends most of the time spinning (41% of a PPO
//! run's samples on the shared 2-core machine, 2.5 times its wall time).
//! Those operations are cheap beside the products, which keep rayon's
//! threads.
//!
//! And it raises glibc's thresholds for mapping and trimming memory: a
//! network's tensors are megabytes each, allocated and freed at every
//! operation, and past the default thresholds each is mapped, zeroed by
//! the kernel page by page and unmapped (a tenth of a PPO run's time went
//! to page faults); kept in the heap they are reused.

use std::sync::Once;

/// Sets `RAYON_NUM_THREADS` to the available parallelism and
/// `CANDLE_NUM_THREADS` to 1, each unless it is set, and keeps freed
/// memory for reuse.
pub fn settle() {
    static DONE: Once = Once::new();
    DONE.call_once(|| {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        // SAFETY: mallopt only sets the allocator's parameters; these are
        // in range (the mapping threshold at its maximum, 32 MB).
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
            libc::mallopt(libc::M_TRIM_THRESHOLD, 256 << 20);
        }
        for (name, value) in [
            ("RAYON_NUM_THREADS", threads.to_string()),
            ("CANDLE_NUM_THREADS", "1".to_string()),
        ] {
            if std::env::var_os(name).is_none() {
                // SAFETY: the environment is changed once, through std,
                // whose own readers (candle's and rayon's among them) take
                // the same lock; no code of this process reads it through
                // libc's getenv meanwhile.
                unsafe { std::env::set_var(name, value) };
            }
        }
    });
}
