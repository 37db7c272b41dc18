//! Long work (a solver's verdict, an exploitability) off the request
//! threads. A job runs on tokio's blocking pool for as long as the page's
//! event stream (server-sent events) stays open: the stream reports the
//! job's progress a few times a second and ends with its result, and a
//! stream dropped before then (the page's Cancel closes it, and so does
//! closing the tab) raises the job's stop flag, which the work checks
//! between steps. The server's own shutdown raises every job's flag too.

use std::convert::Infallible;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::Stream;
use serde_json::{Value, json};

use super::api::ApiError;

/// Jobs whose work is running, for `/api/about` (the tests check that a
/// closed page stops its job).
pub static RUNNING: AtomicU64 = AtomicU64::new(0);

/// Counts a job's work as running while it lives.
struct Running;

impl Running {
    fn start() -> Running {
        RUNNING.fetch_add(1, Ordering::SeqCst);
        Running
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        RUNNING.fetch_sub(1, Ordering::SeqCst);
    }
}

/// How often a running job's progress is sent.
const TICK: Duration = Duration::from_millis(250);

/// What a running job shares with its stream.
#[derive(Default)]
pub struct Progress {
    done: AtomicU64,
    total: AtomicU64,
    what: Mutex<String>,
    stop: AtomicBool,
    shutdown: Option<Arc<AtomicBool>>,
}

impl Progress {
    /// Says what the job is doing, and how far it is (`total` 0: unknown).
    pub fn set(&self, what: impl Into<String>, done: u64, total: u64) {
        if let Ok(mut w) = self.what.lock() {
            *w = what.into();
        }
        self.done.store(done, Ordering::Relaxed);
        self.total.store(total, Ordering::Relaxed);
    }

    pub fn advance(&self, done: u64) {
        self.done.store(done, Ordering::Relaxed);
    }

    /// Whether the page went away or the server is stopping.
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
            || self
                .shutdown
                .as_ref()
                .is_some_and(|s| s.load(Ordering::Relaxed))
    }

    /// The flag a library call checks: raised when [`Progress::stopped`].
    pub fn flag(&self) -> &AtomicBool {
        &self.stop
    }

    /// Raises the stop flag if the server is shutting down, so that a
    /// library call watching [`Progress::flag`] ends too.
    pub fn poll_shutdown(&self) {
        if self.stopped() {
            self.stop.store(true, Ordering::Relaxed);
        }
    }

    fn snapshot(&self) -> Value {
        let what = self.what.lock().map(|w| w.clone()).unwrap_or_default();
        json!({
            "what": what,
            "done": self.done.load(Ordering::Relaxed),
            "total": self.total.load(Ordering::Relaxed),
        })
    }
}

/// Raises the job's stop flag when the stream that owns it is dropped.
struct StopOnDrop(Arc<Progress>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.stop.store(true, Ordering::SeqCst);
    }
}

/// The job when it was cancelled: the page is gone, so no one reads it.
pub fn cancelled() -> ApiError {
    ApiError::bad("cancelled")
}

type Outcome = Result<Value, ApiError>;

/// Runs `work` as a job and streams its progress (`progress` events),
/// then its result (a `result` event) or its error (a `failure` event).
pub fn stream<F>(
    shutdown: Arc<AtomicBool>,
    work: F,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>>
where
    F: FnOnce(&Progress) -> Outcome + Send + 'static,
{
    let progress = Arc::new(Progress {
        shutdown: Some(shutdown),
        ..Progress::default()
    });
    let shared = progress.clone();
    let running = Running::start();
    let handle = tokio::task::spawn_blocking(move || {
        let _running = running;
        work(&shared)
    });
    let state = (Some(handle), StopOnDrop(progress));
    let events = futures_util::stream::unfold(state, |(handle, guard)| async move {
        let mut handle = handle?;
        let event = match tokio::time::timeout(TICK, &mut handle).await {
            Err(_) => {
                guard.0.poll_shutdown();
                let e = Event::default()
                    .event("progress")
                    .data(guard.0.snapshot().to_string());
                return Some((Ok(e), (Some(handle), guard)));
            }
            Ok(Ok(Ok(value))) => Event::default().event("result").data(value.to_string()),
            Ok(Ok(Err(e))) => {
                e.log();
                Event::default().event("failure").data(e.body().to_string())
            }
            Ok(Err(join)) => {
                let e = ApiError::internal(format!("the computation failed: {join}"));
                e.log();
                Event::default().event("failure").data(e.body().to_string())
            }
        };
        Some((Ok(event), (None, guard)))
    });
    Sse::new(events).keep_alive(KeepAlive::default())
}
