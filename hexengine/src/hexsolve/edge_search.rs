//! Learning edge patterns ([`super::edge_patterns`]) by local search.
//!
//! For a cell E (a player's stone, or an empty cell taken as theirs) some
//! rows from one of the player's sides, a small Hex game decides whether E
//! is connected to the side: the band of rows between E and the side, every
//! cell outside it the opponent's, the opponent moving first. It is built
//! as a real position on a board of its own, one row deeper than the band:
//! that row is the opponent's but for the player's stone above E, so the
//! player joins their sides there exactly when E reaches the side; the
//! solver (with its rules, less this one) answers it.
//!
//! A win is cut down to a pattern, each step checked by a solve: the
//! player's stones whose loss keeps the win go to the opponent, then the
//! empty cells outside the win's proof set, then each empty cell the win
//! does without. What is left is a pattern that holds wherever it fits.

use std::collections::HashMap;
use std::sync::Arc;

use darkhex_games::board::{BLACK, Dims, WHITE};
use darkhex_games::{CellSet, Geometry};
use rustc_hash::FxHashSet;

use super::dfpn::{DfpnParams, HexSolver};
use super::edge_patterns::{EdgeFrame, EdgePattern, EdgePatterns};
use super::position::{Position, Stones};
use super::rules::Rules;
use super::workspace::{EdgeSearch, Workspace};

/// Local boards have at most this many 64-cell words.
const LOCAL_WORDS: usize = 2;
type LocalSet = CellSet<LOCAL_WORDS>;

/// The deepest row E is searched from: the band's game grows fast with
/// its depth, and deeper patterns rarely fit small boards.
pub const LEARN_DEPTH: usize = 4;

/// What one thread's searches did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LearnStats {
    pub searched: u64,
    pub learnt: u64,
}

/// A thread's edge learner, for [`HexSolver::with_learner`] and
/// [`Workspace::with_learner`].
fn new_learner<const W: usize>() -> Box<dyn EdgeSearch<W>> {
    Box::new(EdgeLearner::<W>::default())
}

// The solver and the workspaces that learn are built here, above both
// the search and the learner: the search runs the examination, which
// runs the learner, which runs a search of its own.
impl<'g, const W: usize> HexSolver<'g, W> {
    pub fn new(geom: &'g Geometry<W>, rules: Rules, params: DfpnParams) -> Self {
        HexSolver::with_learner(geom, rules, params, new_learner::<W>)
    }
}

impl<const W: usize> Workspace<W> {
    pub fn new(geom: &Geometry<W>, rules: &Rules) -> Self {
        Workspace::sharing(geom, rules, Arc::default())
    }

    /// A workspace that learns into `learnt` (when the rules learn),
    /// shared with other threads and solves.
    pub fn sharing(geom: &Geometry<W>, rules: &Rules, learnt: Arc<EdgePatterns>) -> Self {
        Workspace::with_learner(geom, rules, learnt, new_learner::<W>)
    }
}

impl<const W: usize> EdgeSearch<W> for EdgeLearner<W> {
    fn search(
        &mut self,
        geom: &Geometry<W>,
        stones: &Stones<W>,
        player: usize,
        side: usize,
        cell: usize,
    ) -> Option<EdgePattern> {
        EdgeLearner::search(self, geom, stones, player, side, cell)
    }

    fn searched(&self) -> u64 {
        self.stats.searched
    }

    fn max_depth(&self) -> usize {
        LEARN_DEPTH
    }
}

/// One thread's local solvers, and the searches that failed.
pub struct EdgeLearner<const W: usize> {
    /// A solver for each band shape (rows, cells along).
    solvers: HashMap<(usize, usize), HexSolver<'static, LOCAL_WORDS>>,
    /// Searches that failed, by what decides them: the band's stones, E,
    /// the player and the side.
    failed: FxHashSet<u64>,
    bands: HashMap<(usize, usize, isize), CellSet<W>>,
    pub stats: LearnStats,
}

impl<const W: usize> Default for EdgeLearner<W> {
    fn default() -> Self {
        EdgeLearner {
            solvers: HashMap::new(),
            failed: FxHashSet::default(),
            bands: HashMap::new(),
            stats: LearnStats::default(),
        }
    }
}

impl<const W: usize> EdgeLearner<W> {
    fn solver(&mut self, rows: usize, cols: usize) -> Option<&HexSolver<'static, LOCAL_WORDS>> {
        use std::collections::hash_map::Entry;
        match self.solvers.entry((rows, cols)) {
            Entry::Occupied(o) => Some(o.into_mut()),
            Entry::Vacant(v) => {
                let dims = Dims::new("hex", rows, cols).ok()?;
                // A handful of band shapes per board, alive as long as the
                // process: the solver borrows its geometry.
                let geom: &'static Geometry<LOCAL_WORDS> =
                    Box::leak(Box::new(Geometry::new(dims)?));
                let rules = Rules {
                    edge_patterns: false,
                    learn_edges: false,
                    ..Rules::hex()
                };
                let params = DfpnParams {
                    threads: 1,
                    tt_mb: 16,
                    ..DfpnParams::default()
                };
                Some(v.insert(HexSolver::new(geom, rules, params)))
            }
        }
    }

    /// A pattern joining `cell` to `player`'s side `side` in `stones`, if
    /// the local game of its band shows one.
    pub fn search(
        &mut self,
        geom: &Geometry<W>,
        stones: &Stones<W>,
        player: usize,
        side: usize,
        cell: usize,
    ) -> Option<EdgePattern> {
        let frame = EdgeFrame::new(geom.dims(), player, side);
        let (d, a0) = frame.coords(cell);
        let (_, along) = frame.depth_along();
        let band = *self.bands.entry((player, side, d)).or_insert_with(|| {
            (0..=d)
                .flat_map(|e| (0..along as isize).filter_map(move |a| frame.cell(e, a)))
                .collect()
        });
        let key = geom.hash(&[stones[0] & band, stones[1] & band])
            ^ (cell as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ ((player * 2 + side) as u64).wrapping_mul(0xD1B5_4A32_D192_ED03);
        if self.failed.contains(&key) {
            return None;
        }
        self.stats.searched += 1;
        let found = self.local_win(frame, stones, cell, d, a0, along);
        match &found {
            Some(_) => self.stats.learnt += 1,
            None => {
                self.failed.insert(key);
            }
        }
        found
    }

    /// The band's game solved and cut down.
    fn local_win(
        &mut self,
        frame: EdgeFrame,
        stones: &Stones<W>,
        cell: usize,
        d: isize,
        a0: isize,
        along: usize,
    ) -> Option<EdgePattern> {
        let player = frame.player();
        let solver = self.solver(d as usize + 2, along)?;
        let lgeom = solver.geometry();
        let ldims = lgeom.dims();
        let mut local = [LocalSet::EMPTY; 2];
        for a in 0..along {
            let c = ldims.cell(0, a);
            local[if a as isize == a0 { BLACK } else { WHITE }].insert(c);
        }
        let e_cell = ldims.cell(1, a0 as usize);
        for e in 0..=d {
            for a in 0..along as isize {
                let Some(real) = frame.cell(e, a) else {
                    continue;
                };
                let lc = ldims.cell((d + 1 - e) as usize, a as usize);
                if real == cell || stones[player].contains(real) {
                    local[BLACK].insert(lc);
                } else if stones[1 - player].contains(real) {
                    local[WHITE].insert(lc);
                }
            }
        }
        let wins = |local: &[LocalSet; 2]| -> Option<LocalSet> {
            let pos = Position::new(lgeom, *local, WHITE);
            (solver.solve(&pos, &|_| {}).wins == Some(false))
                .then(|| solver.proof_set(&pos))
                .flatten()
        };
        let mut proof = wins(&local)?;
        let band_rows = lgeom.all() - (0..along).map(|a| ldims.cell(0, a)).collect::<LocalSet>();
        for s in (local[BLACK] & band_rows).without(e_cell).iter() {
            let mut trial = local;
            trial[BLACK].remove(s);
            trial[WHITE].insert(s);
            if let Some(p) = wins(&trial) {
                local = trial;
                proof = p;
            }
        }
        let outside = lgeom.all() - local[BLACK] - local[WHITE] - proof;
        if !outside.is_empty() {
            let mut trial = local;
            trial[WHITE] |= outside;
            wins(&trial)?;
            local = trial;
        }
        for c in (lgeom.all() - local[BLACK] - local[WHITE]).iter() {
            let mut trial = local;
            trial[WHITE].insert(c);
            if wins(&trial).is_some() {
                local = trial;
            }
        }
        let rel = |lc: usize| -> (i8, i8) {
            let (r, a) = ldims.row_col(lc);
            ((d + 1 - r as isize) as i8, (a as isize - a0) as i8)
        };
        Some(
            EdgePattern {
                depth: d as i8,
                stones: (local[BLACK] & band_rows)
                    .without(e_cell)
                    .iter()
                    .map(rel)
                    .collect(),
                carrier: (lgeom.all() - local[BLACK] - local[WHITE])
                    .iter()
                    .map(rel)
                    .collect(),
            }
            .normalised(),
        )
    }
}
