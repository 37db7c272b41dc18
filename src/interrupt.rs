//! Ctrl-C, SIGTERM and SIGHUP, handled alike by every command: a command
//! that can stop cleanly (save what it finished, say how far it got)
//! registers a stop flag or a callback; one that has nothing to save
//! registers nothing and the first signal ends it at once. A second signal
//! ends the process at once, unless it comes within [`SAME_REQUEST`] of
//! the first: GNU `timeout` (without `--foreground`) signals the child and
//! then its whole process group, and Slurm signals a job step the same
//! way, so one request can arrive twice. Either way the exit status is
//! [`EXIT_INTERRUPTED`], as a shell reports a process ended by SIGINT.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The exit status of an interrupted command (128 + SIGINT).
pub const EXIT_INTERRUPTED: u8 = 130;

/// The signals that stop a command, for its messages: the handler cannot
/// tell which one came (the ctrlc crate calls it alike for each).
pub const SIGNALS: &str = "Ctrl-C, SIGTERM or SIGHUP";

/// Raised by the first signal.
static RAISED: AtomicBool = AtomicBool::new(false);

/// When the first signal came.
static FIRST: Mutex<Option<Instant>> = Mutex::new(None);

/// Signals this soon after the first are the same request, delivered
/// again to the process group.
pub const SAME_REQUEST: Duration = Duration::from_secs(1);

type Callback = Box<dyn Fn() + Send>;

/// What the first signal stops: flags to raise and callbacks to call.
static STOPPERS: Mutex<Vec<Callback>> = Mutex::new(Vec::new());

/// Installs the handler; `main` calls it before any command runs.
pub fn install() {
    // Only fails when a handler is already installed, which nothing else does.
    let _ = ctrlc::set_handler(on_signal);
}

fn on_signal() {
    {
        let mut first = FIRST.lock().unwrap_or_else(|e| e.into_inner());
        match *first {
            Some(at) if at.elapsed() < SAME_REQUEST => return,
            Some(_) => {}
            None => *first = Some(Instant::now()),
        }
    }
    let again = RAISED.swap(true, Ordering::SeqCst);
    let stoppers = STOPPERS.lock().unwrap_or_else(|e| e.into_inner());
    if again || stoppers.is_empty() {
        eprintln!(
            "\ninterrupted{}",
            if again {
                " again: stopping at once"
            } else {
                ""
            }
        );
        std::process::exit(EXIT_INTERRUPTED.into());
    }
    for stop in stoppers.iter() {
        stop();
    }
}

/// Whether a signal has arrived.
pub fn raised() -> bool {
    RAISED.load(Ordering::SeqCst)
}

/// Calls `stop` at the first signal instead of ending the process.
pub fn on_interrupt(stop: impl Fn() + Send + 'static) {
    STOPPERS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(Box::new(stop));
}

/// Raises `flag` at the first signal instead of ending the process: the
/// command checks it and stops between steps.
pub fn watch(flag: Arc<AtomicBool>) {
    static SAID: AtomicBool = AtomicBool::new(false);
    on_interrupt(move || {
        if !SAID.swap(true, Ordering::SeqCst) {
            eprintln!(
                "\ninterrupted: finishing the current step (interrupt again to stop at once)"
            );
        }
        flag.store(true, Ordering::SeqCst);
    });
}

/// A new flag that the first signal raises (see [`watch`]).
pub fn flag() -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    watch(flag.clone());
    flag
}

/// What a command is doing, for the message a signal prints: "while
/// ..." or "during ...".
#[derive(Clone, Default)]
pub struct Status(Arc<Mutex<String>>);

impl Status {
    pub fn set(&self, text: impl Into<String>) {
        if let Ok(mut s) = self.0.lock() {
            *s = text.into();
        }
    }
}

/// At the first signal, says what was under way (the latest `status`)
/// and ends the process: for commands with nothing to save.
pub fn exit_saying(status: &Status) {
    let status = status.0.clone();
    on_interrupt(move || {
        let s = status.lock().map(|s| s.clone()).unwrap_or_default();
        eprintln!("\ninterrupted {s}");
        std::process::exit(EXIT_INTERRUPTED.into());
    });
}

/// The error of a command that stopped at a signal after saving what it
/// could: `main` prints it and exits with [`EXIT_INTERRUPTED`].
#[derive(Debug)]
pub struct Interrupted(pub String);

impl fmt::Display for Interrupted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Interrupted {}

/// Whether `e` ends the command because of a signal.
pub fn is_interruption(e: &anyhow::Error) -> bool {
    raised() || e.chain().any(|c| c.is::<Interrupted>())
}
