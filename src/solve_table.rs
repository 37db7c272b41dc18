//! `solve --table FILE` for Hex and Rex: the solver's transposition table
//! loaded when the file exists, and saved when the solve stops or ends
//! and every few minutes meanwhile, so that a long search stopped by a
//! signal, a time limit or `kill -9` goes on from where it was instead of
//! from nothing.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::Ordering;
use std::time::Instant;

use anyhow::{Context, Result};
use darkhex_algorithms::driver::clock::CheckpointClock;
use darkhex_hexengine::hexsolve::HexSolver;

use crate::args::memory_limit;

/// Where the table goes, and when it was last saved.
pub struct TableFile {
    path: PathBuf,
    game: String,
    clock: Mutex<CheckpointClock>,
    /// Why a periodic save failed: the search was stopped, and the run
    /// fails with this once its results are out.
    failed: Mutex<Option<anyhow::Error>>,
}

impl TableFile {
    /// Loads `path` into the solver's table when it holds one (a missing or
    /// empty file starts from nothing), saying so on stderr.
    pub fn open<const W: usize>(path: &Path, game: &str, solver: &HexSolver<W>) -> Result<Self> {
        let has_table = std::fs::metadata(path).is_ok_and(|m| m.len() > 0);
        if has_table {
            let start = Instant::now();
            let count = solver.load_table(path, game, memory_limit())?;
            eprintln!(
                "table            {} positions ({} solved) loaded from {} in {:.1} s",
                count.positions,
                count.solved,
                path.display(),
                start.elapsed().as_secs_f64()
            );
        }
        Ok(TableFile {
            path: path.to_path_buf(),
            game: game.to_string(),
            clock: Mutex::new(CheckpointClock::start()),
            failed: Mutex::default(),
        })
    }

    /// Saves the table when a periodic save is due; called from the
    /// search's progress reports. A thread finding another saving goes on.
    pub fn tick<const W: usize>(&self, solver: &HexSolver<W>) {
        let Ok(mut clock) = self.clock.try_lock() else {
            return;
        };
        if !clock.due() {
            return;
        }
        if let Err(e) = clock.save(|| self.save(solver)) {
            self.failed
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get_or_insert(e);
            solver.stop_flag().store(true, Ordering::SeqCst);
        }
    }

    fn save<const W: usize>(&self, solver: &HexSolver<W>) -> Result<(usize, f64)> {
        let start = Instant::now();
        let count = solver
            .save_table(&self.path, &self.game)
            .with_context(|| "the solver's table could not be saved; the search was stopped")?;
        Ok((count.positions, start.elapsed().as_secs_f64()))
    }

    /// Saves the table once the solve has stopped or ended, saying so, or
    /// fails with why an earlier save failed.
    pub fn close<const W: usize>(self, solver: &HexSolver<W>) -> Result<()> {
        let failed = self.failed.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(e) = failed {
            return Err(e);
        }
        let (positions, seconds) = self.save(solver)?;
        eprintln!(
            "table            {positions} positions saved to {} in {seconds:.1} s (a rerun with --table {} goes on from them)",
            self.path.display(),
            self.path.display()
        );
        Ok(())
    }
}
