//! candle (0.11) sizes its matrix products by the machine's physical cores,
//! which it reads from /proc/cpuinfo at every product unless
//! `RAYON_NUM_THREADS` is set (15,663 reads in a 3-iteration Deep CFR run
//! on Leduc, half its time). [`settle`] sets the variable once, to the
//! threads rayon takes by default anyway, so no pool of darkhex's changes
//! size; the CLI calls it first thing, the Python package when it loads,
//! and the networks before their first product, for library users.

use std::sync::Once;

/// Sets `RAYON_NUM_THREADS` to the available parallelism unless it is set.
pub fn settle() {
    static DONE: Once = Once::new();
    DONE.call_once(|| {
        if std::env::var_os("RAYON_NUM_THREADS").is_some() {
            return;
        }
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        // SAFETY: the environment is changed once, through std, whose own
        // readers (candle's and rayon's among them) take the same lock; no
        // code of this process reads it through libc's getenv meanwhile.
        unsafe { std::env::set_var("RAYON_NUM_THREADS", threads.to_string()) };
    });
}
