//! Long calls run on a thread of their own with the GIL released, while
//! the calling thread wakes a few times a second to run Python's signal
//! handlers: Ctrl-C sets the computation's stop flag, the computation ends
//! as it does on the CLI (finished work kept), and the call raises
//! `KeyboardInterrupt`. (`check_signals` does nothing off the main thread,
//! so it cannot live in progress callbacks that Rust's worker threads call.)

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// How often the waiting thread looks at Python's signals.
const SIGNAL_CHECK: Duration = Duration::from_millis(50);

/// Runs `job` without the GIL. With a `stop` flag, Ctrl-C sets it and the
/// call waits for `job` to wind down; without one, the call returns at
/// once and the job's result is dropped when it ends.
pub fn run_blocking<T: Send + 'static>(
    py: Python<'_>,
    stop: Option<Arc<AtomicBool>>,
    job: impl FnOnce() -> T + Send + 'static,
) -> PyResult<T> {
    let caller = std::thread::current();
    let handle = std::thread::Builder::new()
        .name("darkhex".to_string())
        .spawn(move || {
            let out = job();
            caller.unpark();
            out
        })
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start a thread: {e}")))?;
    loop {
        let finished = py.detach(|| {
            if !handle.is_finished() {
                std::thread::park_timeout(SIGNAL_CHECK);
            }
            handle.is_finished()
        });
        if finished {
            break;
        }
        if let Err(interrupt) = py.check_signals() {
            if let Some(stop) = &stop {
                stop.store(true, Ordering::SeqCst);
                py.detach(|| {
                    while !handle.is_finished() {
                        std::thread::park_timeout(SIGNAL_CHECK);
                    }
                });
                let _ = handle.join();
            }
            return Err(interrupt);
        }
    }
    handle.join().map_err(|panic| {
        let what = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("no message");
        PyRuntimeError::new_err(format!("darkhex failed unexpectedly (a bug): {what}"))
    })
}

/// Runs `f` on `threads` worker threads (the global pool of all cores when `None`).
pub fn on_threads<T: Send>(
    threads: Option<usize>,
    f: impl FnOnce() -> T + Send,
) -> Result<T, String> {
    match threads {
        None => Ok(f()),
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map(|pool| pool.install(f))
            .map_err(|e| format!("cannot start {n} threads: {e}")),
    }
}
