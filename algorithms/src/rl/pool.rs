//! Pools of which the calling thread is itself a worker. Called from a
//! thread outside rayon's pools (Python's, the CLI's main thread), every
//! parallel call would hand its work to a pool thread, wake it and sleep
//! until it is done: two context switches a call, which cost more than
//! stepping a hundred games or a small network's product. In these pools
//! the caller starts on the work at once and the other workers steal from
//! it; with one thread nothing changes hands at all.

thread_local! {
    /// The calling thread's own pool of the default size; `None` where the
    /// thread belongs to a pool already (a caller inside a rayon worker).
    static POOL: Option<rayon::ThreadPool> = rayon::ThreadPoolBuilder::new()
        .use_current_thread()
        .build()
        .ok();
}

/// Runs `op` on the calling thread's own pool of the default size (see
/// [`POOL`]): for many short calls, each too short to hand over.
pub fn on_own_pool<R: Send>(op: impl FnOnce() -> R + Send) -> R {
    POOL.with(|pool| match pool {
        Some(pool) => pool.install(op),
        None => op(),
    })
}

/// Runs `op` inside a pool of `threads` threads, built for this call (for
/// a whole training run: its parallel calls are then made from a worker,
/// and nothing changes hands but the run itself); on the current pool
/// where the caller is a rayon worker already, or where no pool can be built.
pub fn with_threads<R: Send>(threads: usize, op: impl FnOnce() -> R + Send) -> R {
    if rayon::current_thread_index().is_some() {
        return op();
    }
    match rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
    {
        Ok(pool) => pool.install(op),
        Err(_) => op(),
    }
}
