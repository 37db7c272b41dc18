//! Depth-first proof-number search (Nagai's df-pn) for Hex and Rex.
//!
//! Each position has a proof number phi (how hard it looks to show the
//! player to move wins) and a disproof number delta. A position's phi is
//! the least delta of its moves, its delta the sum of their phis. The
//! search descends into the move with the least delta while the position's
//! numbers stay under thresholds that its parent set, so a subtree is
//! searched until another move looks cheaper, without re-descending from
//! the root. Refinements:
//! - the 1+ε trick (Pawlewicz and Lew): a move keeps the search until its
//!   delta passes (1 + ε) times the second-best delta, not just that delta
//!   plus one, which saves most re-descents;
//! - focus (Benzene's widening): phi is the minimum over the best few live
//!   moves in resistance order only, `base + factor × live`, so the search
//!   concentrates on the likeliest moves and widens as they are refuted;
//!   delta still sums over every move;
//! - at every position first met, the rules of [`super::node`] decide it or
//!   prune its moves (connections, mustplay, fill-in, inferior cells,
//!   symmetry) and order the rest by resistance;
//! - proof sets (Benzene's pre-2019 "maximum proof set"): a solved
//!   position keeps the cells its winner needed; when a move is refuted,
//!   every sibling outside its proof set is refuted with it, by
//!   monotonicity of Hex, without search;
//! - threads share the table; a move another thread is searching looks
//!   more expensive to the others (a virtual loss on its delta), so they
//!   spread over different moves (Kaneko's parallel df-pn).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use darkhex_games::{CellSet, Geometry};

use super::edge_patterns::EdgePatterns;
use super::node::examine_with_grounds;
use super::position::Position;
use super::rules::{RuleStats, Rules};
use super::tt::{Bounds, Entry, Expansion, INF, TransTable};
use super::verdict::Node;
use super::workspace::{NewLearner, Workspace};

/// Search settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DfpnParams {
    pub threads: usize,
    /// Transposition-table memory, in megabytes.
    pub tt_mb: usize,
    pub time_limit: Option<Duration>,
    /// A moment no search goes past, whatever its own time limit: the limit
    /// of a command that runs several searches (GTP's find-winning). Once
    /// it has passed, [`HexSolver::solve_each`] starts no more searches.
    pub deadline: Option<Instant>,
    /// The ε of the 1+ε trick.
    pub epsilon: f64,
    /// Focus: the best `base + factor × live moves` moves set phi.
    pub widening_base: usize,
    pub widening_factor: f64,
    /// With several threads, [`HexSolver::solve_each`] runs each search in
    /// slices, the first of this many positions (see [`FIRST_SLICE`]);
    /// `None` (the default: on 8x8 resumed searches cost more than the
    /// balance saves): each search runs to its end.
    pub first_slice: Option<u64>,
    /// The positions a search stops after, unsolved: a budget that gives
    /// the same answer on any machine, which a time limit does not (a
    /// job of the job-level search in the Python package).
    pub max_expansions: Option<u64>,
}

impl Default for DfpnParams {
    fn default() -> Self {
        DfpnParams {
            threads: 1,
            tt_mb: 256,
            time_limit: None,
            deadline: None,
            epsilon: 0.25,
            widening_base: 1,
            widening_factor: 0.25,
            first_slice: None,
            max_expansions: None,
        }
    }
}

impl DfpnParams {
    /// The defaults, with the focus tuned for Rex when `misere`: on the
    /// 6x6 Rex openings, switching sooner between moves (a smaller ε) over
    /// a wider focus (more moves setting phi) examined fewer positions
    /// (docs/results/rex.md). Hex keeps the values its 8x8 runs were
    /// measured with.
    pub fn for_game(misere: bool) -> Self {
        if misere {
            DfpnParams {
                epsilon: 0.1,
                widening_base: 3,
                widening_factor: 0.25,
                ..DfpnParams::default()
            }
        } else {
            DfpnParams::default()
        }
    }
}

/// How a search went.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stats {
    /// Positions examined (first meetings, whatever the rules decided).
    pub expansions: u64,
    /// Calls of the recursive search.
    pub visits: u64,
    pub seconds: f64,
    pub rules: RuleStats,
    /// Transposition-table slots used and available.
    pub tt_used: usize,
    pub tt_slots: usize,
    /// Positions the full table replaced by others (since it was made or
    /// cleared).
    pub tt_replaced: u64,
}

impl Stats {
    pub fn add(&mut self, other: &Stats) {
        self.expansions += other.expansions;
        self.visits += other.visits;
        self.seconds += other.seconds;
        self.rules.add(&other.rules);
        self.tt_used = other.tt_used;
        self.tt_slots = other.tt_slots;
        self.tt_replaced = other.tt_replaced;
    }

    pub fn expansions_per_second(&self) -> f64 {
        self.expansions as f64 / self.seconds.max(1e-9)
    }
}

/// Where a search stands, for progress displays.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub expansions: u64,
    pub root: Bounds,
    pub elapsed: Duration,
    /// The share of the table's slots in use, 0 to 1.
    pub table_used: f64,
}

/// The result of solving one position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Outcome {
    /// Whether the player to move wins; `None` when the search stopped first.
    pub wins: Option<bool>,
    /// A winning move when the player to move wins (none when the game is
    /// already over).
    pub winning_move: Option<usize>,
    pub root: Bounds,
    pub stats: Stats,
}

/// A Hex (or Rex) solver for one board; its table persists across solves.
/// `HexSolver::new` is in [`super::edge_search`], which gives the solver
/// its edge learner.
pub struct HexSolver<'g, const W: usize> {
    geom: &'g Geometry<W>,
    pub rules: Rules,
    pub params: DfpnParams,
    tt: TransTable<W>,
    stop: Arc<AtomicBool>,
    /// Edge patterns learnt by local searches (when the rules learn),
    /// kept across solves.
    learnt: Arc<EdgePatterns>,
    /// Each thread's edge learner, when the rules learn.
    new_learner: NewLearner<W>,
}

/// The positions of a search's first slice in [`HexSolver::solve_each`]
/// by default (each later slice [`SLICE_GROWTH`] times more). On 8x8 the 32
/// openings took from 3 to 1,500 seconds, two of them 2,700 between them,
/// and in table order the hardest came last: the two threads ended on
/// them with 3,025 s of wall clock for 4,984 s of searches (of one thread
/// each), where the longest first would take about 2,500.
pub const FIRST_SLICE: u64 = 4096;
/// How much longer each slice of a search is than the one before.
pub const SLICE_GROWTH: u64 = 4;

/// Slots of the virtual-loss counters (positions hash into them).
const BUSY_SLOTS: usize = 1 << 16;

/// What every thread of one search shares.
struct Search<'s, 'g, const W: usize> {
    geom: &'g Geometry<W>,
    rules: &'s Rules,
    params: &'s DfpnParams,
    tt: &'s TransTable<W>,
    stop: &'s AtomicBool,
    /// Set when the root is solved or time is up: every thread returns.
    done: AtomicBool,
    root: Position<W>,
    /// Which of several searches this is, for `progress`.
    index: usize,
    deadline: Option<Instant>,
    start: Instant,
    expansions: AtomicU64,
    /// The positions this search stops after, when it runs in slices.
    slice: Option<u64>,
    busy: Vec<AtomicU32>,
    last_report: AtomicU64,
    progress: &'s (dyn Fn(usize, &Progress) + Sync),
}

/// One thread's counters and memory.
struct Local<const W: usize> {
    visits: u64,
    rules: RuleStats,
    /// This thread reports progress.
    reporter: bool,
    workspace: Workspace<W>,
}

impl<'g, const W: usize> HexSolver<'g, W> {
    /// A solver whose threads learn edge patterns with learners of
    /// `new_learner` when the rules learn.
    pub fn with_learner(
        geom: &'g Geometry<W>,
        rules: Rules,
        params: DfpnParams,
        new_learner: NewLearner<W>,
    ) -> Self {
        HexSolver {
            geom,
            rules,
            params,
            tt: TransTable::new(params.tt_mb, geom.cells() / 2 + 1),
            stop: Arc::new(AtomicBool::new(false)),
            learnt: Arc::default(),
            new_learner,
        }
    }

    /// The edge patterns this solver's searches learnt (with those given
    /// to it by [`HexSolver::learnt_edges`] before).
    pub fn learnt_edges(&self) -> &EdgePatterns {
        &self.learnt
    }

    /// A flag that stops every search of this solver when raised (Ctrl-C).
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    pub fn geometry(&self) -> &'g Geometry<W> {
        self.geom
    }

    /// The transposition table, for saving and loading it.
    pub(super) fn table(&self) -> &TransTable<W> {
        &self.tt
    }

    /// Solves `pos`, reporting progress about four times a second.
    pub fn solve(&self, pos: &Position<W>, progress: &(dyn Fn(&Progress) + Sync)) -> Outcome {
        let report = |_: usize, p: &Progress| progress(p);
        let search = self.search(pos, 0, &report);
        let threads = self.params.threads.max(1);
        // One thread searches here: a thread of its own would cost more
        // than the many small solves of local searches take.
        let locals: Vec<Local<W>> = if threads == 1 {
            vec![self.work(&search, true)]
        } else {
            std::thread::scope(|scope| {
                let handles: Vec<_> = (0..threads)
                    .map(|id| {
                        let search = &search;
                        scope.spawn(move || self.work(search, id == 0))
                    })
                    .collect();
                handles.into_iter().filter_map(|h| h.join().ok()).collect()
            })
        };
        self.outcome(pos, &search, &locals)
    }

    /// Solves every position of `positions`, calling `done` with each one's
    /// index and outcome as it is solved. Each thread solves positions of
    /// its own, one at a time, in order; once none is left to start, a
    /// thread joins a search still running (the one with fewest helpers).
    /// Each search reports its progress under its index.
    /// Independent searches scale better on several threads than several
    /// threads on one search, and the table is shared by all of them.
    ///
    /// With several threads (and no time limit) each search runs in
    /// slices: it stops after [`DfpnParams::first_slice`] positions and
    /// goes to the back of the queue, to resume from the table with
    /// [`SLICE_GROWTH`] times the positions, and so on. The threads
    /// then end on the hardest positions, each on its own, instead of
    /// two threads on whichever one came last (see [`FIRST_SLICE`]).
    pub fn solve_each(
        &self,
        positions: &[Position<W>],
        progress: &(dyn Fn(usize, &Progress) + Sync),
        done: &(dyn Fn(usize, Outcome) + Sync),
    ) {
        struct Running<'s, 'g, const W: usize> {
            index: usize,
            search: Search<'s, 'g, W>,
            helpers: AtomicUsize,
            locals: Mutex<Vec<Local<W>>>,
        }
        enum Job<'s, 'g, const W: usize> {
            Own(Arc<Running<'s, 'g, W>>),
            Help(Arc<Running<'s, 'g, W>>),
            Stop,
        }
        let sliced = self.params.threads > 1
            && self.params.time_limit.is_none()
            && self.params.max_expansions.is_none();
        let first_slice = self.params.first_slice.filter(|_| sliced);
        // Positions to start, each with its slice, and searches running.
        struct Queue<'s, 'g, const W: usize> {
            waiting: VecDeque<(usize, Option<u64>)>,
            running: Vec<Arc<Running<'s, 'g, W>>>,
        }
        let queue = Mutex::new(Queue {
            waiting: (0..positions.len()).map(|i| (i, first_slice)).collect(),
            running: Vec::new(),
        });
        // Each position's counters from its slices so far.
        let earlier: Mutex<Vec<Stats>> = Mutex::new(vec![Stats::default(); positions.len()]);
        let take_job = || -> Option<Job<W>> {
            let mut q = queue.lock().unwrap_or_else(|e| e.into_inner());
            let past_deadline = self.params.deadline.is_some_and(|d| Instant::now() >= d);
            if !self.stop.load(Ordering::Relaxed)
                && !past_deadline
                && let Some((index, slice)) = q.waiting.pop_front()
            {
                let mut search = self.search(&positions[index], index, progress);
                search.slice = slice;
                let running = Arc::new(Running {
                    index,
                    search,
                    helpers: AtomicUsize::new(0),
                    locals: Mutex::new(Vec::new()),
                });
                q.running.push(running.clone());
                return Some(Job::Own(running));
            }
            let helped = q
                .running
                .iter()
                .filter(|r| !r.search.finished())
                .min_by_key(|r| r.helpers.load(Ordering::Relaxed));
            match helped {
                Some(r) => {
                    r.helpers.fetch_add(1, Ordering::SeqCst);
                    Some(Job::Help(r.clone()))
                }
                // Nothing starts any more and nothing runs: done.
                None if q.running.is_empty() => Some(Job::Stop),
                None => None,
            }
        };
        let next_job = || -> Job<W> {
            loop {
                if let Some(job) = take_job() {
                    return job;
                }
                // A search is ending and may come back for another slice.
                std::thread::sleep(Duration::from_millis(1));
            }
        };
        let worker = || loop {
            match next_job() {
                Job::Own(r) => {
                    let local = self.work(&r.search, true);
                    while r.helpers.load(Ordering::SeqCst) > 0 {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                    let mut locals =
                        std::mem::take(&mut *r.locals.lock().unwrap_or_else(|e| e.into_inner()));
                    locals.push(local);
                    let mut out = self.outcome(&positions[r.index], &r.search, &locals);
                    let mut earlier = earlier.lock().unwrap_or_else(|e| e.into_inner());
                    let before = &mut earlier[r.index];
                    before.add(&out.stats);
                    let mut q = queue.lock().unwrap_or_else(|e| e.into_inner());
                    q.running.retain(|x| !Arc::ptr_eq(x, &r));
                    if out.wins.is_none() && r.search.out_of_slice() {
                        // Requeued under the same lock that took it off the
                        // running ones, so no thread finds nothing to do
                        // in between and stops.
                        q.waiting
                            .push_back((r.index, r.search.slice.map(|s| s * SLICE_GROWTH)));
                        continue;
                    }
                    drop(q);
                    out.stats = *before;
                    drop(earlier);
                    done(r.index, out);
                }
                Job::Help(r) => {
                    let local = self.work(&r.search, false);
                    r.locals
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(local);
                    r.helpers.fetch_sub(1, Ordering::SeqCst);
                }
                Job::Stop => break,
            }
        };
        let threads = self.params.threads.max(1);
        std::thread::scope(|scope| {
            for _ in 1..threads {
                let worker = &worker;
                scope.spawn(worker);
            }
            worker();
        });
    }

    /// The shared state of a search of `pos`; `index` names it to `progress`.
    fn search<'s>(
        &'s self,
        pos: &Position<W>,
        index: usize,
        progress: &'s (dyn Fn(usize, &Progress) + Sync),
    ) -> Search<'s, 'g, W> {
        let start = Instant::now();
        Search {
            geom: self.geom,
            rules: &self.rules,
            params: &self.params,
            tt: &self.tt,
            stop: &self.stop,
            done: AtomicBool::new(false),
            root: *pos,
            index,
            deadline: match (
                self.params.time_limit.map(|t| start + t),
                self.params.deadline,
            ) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
            start,
            expansions: AtomicU64::new(0),
            slice: None,
            // Virtual losses only matter between threads.
            busy: if self.params.threads > 1 {
                (0..BUSY_SLOTS).map(|_| AtomicU32::new(0)).collect()
            } else {
                Vec::new()
            },
            last_report: AtomicU64::new(0),
            progress,
        }
    }

    /// One thread's part in `search`, until the root is solved or the
    /// search stops.
    fn work(&self, search: &Search<W>, reporter: bool) -> Local<W> {
        let mut local = Local {
            visits: 0,
            rules: RuleStats::default(),
            reporter,
            workspace: Workspace::with_learner(
                self.geom,
                &self.rules,
                self.learnt.clone(),
                self.new_learner,
            ),
        };
        let root_th = Bounds {
            phi: INF,
            delta: INF,
        };
        while !search.finished() {
            let (b, _) = search.mid(
                &search.root,
                [CellSet::EMPTY; 2],
                CellSet::EMPTY,
                root_th,
                &mut local,
            );
            if b.is_solved() {
                search.done.store(true, Ordering::SeqCst);
            }
        }
        if local.reporter {
            search.report(true);
        }
        local
    }

    /// What a finished search found, with the counters of its threads.
    fn outcome(&self, pos: &Position<W>, search: &Search<W>, locals: &[Local<W>]) -> Outcome {
        let root = self.tt.get(pos.key());
        let bounds = root.as_ref().map_or(Bounds::NEW, |e| e.bounds);
        let (tt_used, tt_slots) = self.tt.usage();
        let mut stats = Stats {
            expansions: search.expansions.load(Ordering::Relaxed),
            seconds: search.start.elapsed().as_secs_f64(),
            tt_used,
            tt_slots,
            tt_replaced: self.tt.replaced(),
            ..Stats::default()
        };
        for l in locals {
            stats.visits += l.visits;
            stats.rules.add(&l.rules);
        }
        let turn = Turn {
            rotated: pos.stored_rotated(),
            n: self.geom.cells(),
        };
        let winning_move = match (bounds.value(), &root) {
            (Some(true), Some(e)) if e.best != u16::MAX => Some(turn.cell(e.best) as usize),
            _ => None,
        };
        Outcome {
            wins: bounds.value(),
            winning_move,
            root: bounds,
            stats,
        }
    }

    /// The value of every empty cell as a move of the player to move:
    /// `Some(true)` when it wins. Each move is solved in full, inferior or
    /// not, with the table shared across them. The stats' seconds are the
    /// wall time of all of it: the moves' searches run side by side, and
    /// their times added up would be thread-seconds.
    pub fn move_values(
        &self,
        pos: &Position<W>,
        progress: &(dyn Fn(usize, &Progress) + Sync),
    ) -> (Vec<(usize, Option<bool>)>, Stats) {
        let start = Instant::now();
        let cells: Vec<usize> = pos.empty_cells(self.geom).iter().collect();
        let children: Vec<Position<W>> = cells.iter().map(|&c| pos.play(self.geom, c)).collect();
        let found: Mutex<Vec<Option<Outcome>>> = Mutex::new(vec![None; cells.len()]);
        self.solve_each(&children, &|i, p| progress(cells[i], p), &|i, out| {
            found.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(out)
        });
        let mut stats = Stats::default();
        let mut values = Vec::new();
        let found = found.into_inner().unwrap_or_else(|e| e.into_inner());
        // Positions left unstarted after a stop are left out.
        for (&cell, out) in cells.iter().zip(found) {
            if let Some(out) = out {
                stats.add(&out.stats);
                values.push((cell, out.wins.map(|opponent_wins| !opponent_wins)));
            }
        }
        stats.seconds = start.elapsed().as_secs_f64();
        (values, stats)
    }

    /// The proof set of `pos` if the table holds it solved: empty cells
    /// such that the winner still wins when the loser owns every other
    /// empty cell (all cells when proof sets are off).
    pub fn proof_set(&self, pos: &Position<W>) -> Option<CellSet<W>> {
        let e = self.tt.get(pos.key())?;
        let turn = Turn {
            rotated: pos.stored_rotated(),
            n: self.geom.cells(),
        };
        e.bounds.is_solved().then(|| turn.set(self.geom, e.proof))
    }

    /// Forgets everything the table holds.
    pub fn clear(&self) {
        self.tt.clear();
    }
}

impl<const W: usize> Search<'_, '_, W> {
    fn finished(&self) -> bool {
        self.done.load(Ordering::Relaxed)
            || self.stop.load(Ordering::Relaxed)
            || self.out_of_slice()
            || self
                .params
                .max_expansions
                .is_some_and(|m| self.expansions.load(Ordering::Relaxed) >= m)
    }

    /// Whether the search used up its slice (and nothing else stopped it).
    fn out_of_slice(&self) -> bool {
        self.slice
            .is_some_and(|s| self.expansions.load(Ordering::Relaxed) >= s)
            && !self.done.load(Ordering::Relaxed)
            && !self.stop.load(Ordering::Relaxed)
    }

    fn report(&self, force: bool) {
        let elapsed = self.start.elapsed();
        let ms = elapsed.as_millis() as u64;
        let last = self.last_report.load(Ordering::Relaxed);
        if force || ms >= last + 250 {
            self.last_report.store(ms, Ordering::Relaxed);
            let (used, slots) = self.tt.usage();
            (self.progress)(
                self.index,
                &Progress {
                    expansions: self.expansions.load(Ordering::Relaxed),
                    root: self.tt.bounds(self.root.key()),
                    elapsed,
                    table_used: used as f64 / slots.max(1) as f64,
                },
            );
        }
    }

    /// The position with `fill` played, when the table may share its
    /// value with the position: the fill-in changes no value (so the two
    /// are worth the same, and a move winning one wins the other), but a
    /// proof set of one is not one of the other, so only without proof
    /// sets. Positions reached by different moves often have one filled
    /// form (a captured pair filled in here, played there).
    fn filled_form(&self, pos: &Position<W>, fill: [CellSet<W>; 2]) -> Option<Position<W>> {
        if self.rules.proof_sets || (fill[0].is_empty() && fill[1].is_empty()) {
            return None;
        }
        let stones = [pos.played[0] | fill[0], pos.played[1] | fill[1]];
        Some(Position::new(self.geom, stones, pos.to_move))
    }

    /// The bounds of `form` when the table holds it solved, with its best
    /// move in the orientation `turn` of the position it stands for.
    fn solved_form(&self, form: &Position<W>, turn: Turn) -> Option<(Bounds, u16)> {
        let e = self.tt.get(form.key())?;
        if !e.bounds.is_solved() {
            return None;
        }
        let there = Turn {
            rotated: form.stored_rotated(),
            n: self.geom.cells(),
        };
        let best = if e.best == u16::MAX {
            e.best
        } else {
            turn.cell(there.cell(e.best))
        };
        Some((e.bounds, best))
    }

    /// The virtual-loss counter of a position, when threads share the search.
    fn busy_slot(&self, key: u64) -> Option<&AtomicU32> {
        (!self.busy.is_empty()).then(|| &self.busy[(key as usize) % BUSY_SLOTS])
    }

    /// Searches `pos` until its bounds reach `th` (or it is solved), and
    /// returns its bounds, with a proof set (in `pos`'s cells) once solved.
    /// `fill` is the fill-in known from above, `dead` its dead cells.
    fn mid(
        &self,
        pos: &Position<W>,
        fill: [CellSet<W>; 2],
        dead: CellSet<W>,
        th: Bounds,
        local: &mut Local<W>,
    ) -> (Bounds, CellSet<W>) {
        local.visits += 1;
        // A visit on a large board takes milliseconds (H-search of a new
        // position): the clock is read often enough that a time limit is
        // kept to within a few of them.
        if local.visits.is_multiple_of(16) {
            if let Some(d) = self.deadline
                && Instant::now() >= d
            {
                self.done.store(true, Ordering::SeqCst);
            }
            if local.reporter {
                self.report(false);
            }
        }
        let geom = self.geom;
        let key = pos.key();
        let entry = self.tt.get(key);
        // Entries hold a position and its rotation in one orientation.
        let turn = Turn {
            rotated: pos.stored_rotated(),
            n: geom.cells(),
        };
        if let Some(e) = &entry
            && e.bounds.is_solved()
        {
            return (e.bounds, turn.set(geom, e.proof));
        }
        let expansion = match entry.as_ref().and_then(|e| e.expansion.clone()) {
            Some(x) => x,
            None => {
                self.expansions.fetch_add(1, Ordering::Relaxed);
                match examine_with_grounds(
                    geom,
                    pos,
                    fill,
                    dead,
                    self.rules,
                    &mut local.rules,
                    &mut local.workspace,
                ) {
                    (Node::Won(m), grounds) => {
                        let best = m.map_or(u16::MAX, |c| turn.cell(c));
                        let proof = turn.set(geom, grounds.proof);
                        self.store(key, Bounds::WIN, 1, best, proof, None);
                        return (Bounds::WIN, grounds.proof);
                    }
                    (Node::Lost, grounds) => {
                        let proof = turn.set(geom, grounds.proof);
                        self.store(key, Bounds::LOSS, 1, u16::MAX, proof, None);
                        return (Bounds::LOSS, grounds.proof);
                    }
                    (Node::Open { children, fill }, g) => {
                        let filled_form = self.filled_form(pos, fill);
                        if let Some(known) = filled_form.and_then(|f| self.solved_form(&f, turn)) {
                            local.rules.solved_by_filled_form += 1;
                            let (bounds, best) = known;
                            self.store(key, bounds, 1, best, geom.all(), None);
                            return (bounds, geom.all());
                        }
                        Arc::new(Expansion {
                            filled_form: filled_form.map(|f| (f.key(), f.stored_rotated())),
                            children: children.iter().map(|&c| turn.cell(c)).collect(),
                            fill: turn.fill(geom, fill),
                            dominated: g
                                .dominated
                                .iter()
                                .map(|&(c, by)| (turn.cell(c), turn.cell(by)))
                                .collect(),
                            semis: g.semis.iter().map(|&c| turn.set(geom, c)).collect(),
                            mirrored: turn.set(geom, g.mirrored),
                            dead: turn.set(geom, g.dead),
                        })
                    }
                }
            }
        };
        let own_fill = turn.fill(geom, expansion.fill);
        let own_dead = turn.set(geom, expansion.dead);
        // (the move in the table's orientation, the position after it)
        let children: Vec<(u16, Position<W>)> = expansion
            .children
            .iter()
            .map(|&c| (c, pos.play(geom, turn.cell(c) as usize)))
            .collect();
        let work_before = self.expansions.load(Ordering::Relaxed);
        // A move's bounds, and its proof set in the table's orientation.
        let look_up = |child: &Position<W>| {
            let (b, proof) = self.tt.bounds_and_proof(child.key());
            let proof = if child.stored_rotated() != turn.rotated {
                geom.rotate(proof)
            } else {
                proof
            };
            (b, proof)
        };
        let (mut bounds, mut proofs): (Vec<Bounds>, Vec<CellSet<W>>) =
            children.iter().map(|(_, c)| look_up(c)).unzip();
        let mut refuted = vec![false; children.len()];
        let shared = self.params.threads > 1;
        let mut searched: Option<(usize, Bounds, CellSet<W>)> = None;
        loop {
            if shared {
                // Other threads may have moved any sibling on.
                for ((b, proof), (_, child)) in bounds.iter_mut().zip(&mut proofs).zip(&children) {
                    (*b, *proof) = look_up(child);
                }
            }
            // The move just searched keeps the bounds it returned, even if
            // the table has since dropped its entry.
            if let Some((i, b, proof)) = searched.take()
                && (!shared || !bounds[i].is_solved())
            {
                bounds[i] = b;
                proofs[i] = proof;
            }
            if self.rules.proof_sets {
                local.rules.moves_pruned_by_proof_sets +=
                    refute_siblings(&expansion.children, &mut bounds, &mut proofs, &mut refuted);
            }
            let summary = self.summarise(&bounds, &children);
            let work = self.expansions.load(Ordering::Relaxed) - work_before + 1;
            let node = summary.node;
            if node.is_solved() || node.phi >= th.phi || node.delta >= th.delta || self.finished() {
                let mut best = summary.best.map_or(u16::MAX, |i| children[i].0);
                let mut proof = CellSet::EMPTY;
                if node.is_solved() {
                    let (b, p) = self.proof(&expansion, &bounds, &proofs, pos.to_move, node);
                    best = b.unwrap_or(best);
                    proof = p;
                    if let Some((filled_key, rotated)) = expansion.filled_form {
                        // The same value, and the same winning move (the
                        // fill-in still holds after it), for the filled form.
                        let there = Turn {
                            rotated,
                            n: geom.cells(),
                        };
                        let best = if best == u16::MAX {
                            best
                        } else {
                            there.cell(turn.cell(best))
                        };
                        self.store(filled_key, node, work, best, proof, None);
                    }
                }
                self.store(key, node, work, best, proof, Some(expansion.clone()));
                return (node, turn.set(geom, proof));
            }
            let Some(i) = summary.best else {
                // Unreachable: an unsolved position has a live move.
                return (node, CellSet::EMPTY);
            };
            let child = bounds[i];
            let child_th = Bounds {
                // The child's phi is one term of this position's delta.
                phi: sat(th.delta as u64 - node.delta as u64 + child.phi as u64),
                delta: th.phi.min(self.epsilon_bound(summary.second_delta)),
            };
            self.store(
                key,
                node,
                work,
                children[i].0,
                CellSet::EMPTY,
                Some(expansion.clone()),
            );
            let (_, child_pos) = &children[i];
            let slot = self.busy_slot(child_pos.key());
            if let Some(s) = slot {
                s.fetch_add(1, Ordering::Relaxed);
            }
            let (b, proof) = self.mid(child_pos, own_fill, own_dead, child_th, local);
            if let Some(s) = slot {
                s.fetch_sub(1, Ordering::Relaxed);
            }
            searched = Some((i, b, turn.set(geom, proof)));
        }
    }

    /// The proof set of a solved position (in the table's orientation), and
    /// the winning move it rests on when the player to move wins.
    ///
    /// Won: the winning move with the smallest proof set, plus that move.
    /// Lost: every move of the loser in the proof set must lose, the rest
    /// being the loser's stones already. So it grows from one move's proof
    /// set: each cell in it that is a move adds that move's proof set, a
    /// move left out as inferior adds the move dominating it, one left out
    /// by mustplay the opponent semi it misses; the winner's fill-in is in
    /// it, so that the fill-in theorems still hold when the loser's extra
    /// stones are added (dead cells excepted: any colour will do for them).
    /// The smallest over the starting moves is kept.
    fn proof(
        &self,
        x: &Expansion<W>,
        bounds: &[Bounds],
        proofs: &[CellSet<W>],
        to_move: usize,
        node: Bounds,
    ) -> (Option<u16>, CellSet<W>) {
        let all = self.geom.all();
        if !self.rules.proof_sets {
            return (None, all);
        }
        if node.phi == 0 {
            return x
                .children
                .iter()
                .zip(bounds.iter().zip(proofs))
                .filter(|(_, (b, _))| b.delta == 0)
                .map(|(&c, (_, p))| (Some(c), p.with(c as usize)))
                .min_by_key(|(_, p)| p.count())
                .unwrap_or((None, all));
        }
        let winner = 1 - to_move;
        let filled = x.fill[0] | x.fill[1];
        let mut child_of = vec![usize::MAX; self.geom.cells()];
        for (i, &c) in x.children.iter().enumerate() {
            child_of[c as usize] = i;
        }
        let mut best = all;
        for seed in proofs {
            if seed.count() >= best.count() {
                continue;
            }
            let mut proof = *seed | (x.fill[winner] - x.dead);
            let mut done = filled;
            while let Some(c) = (proof - done).first() {
                done.insert(c);
                if child_of[c] != usize::MAX {
                    proof |= proofs[child_of[c]];
                } else if let Some(&(_, by)) = x.dominated.iter().find(|d| d.0 as usize == c) {
                    proof.insert(by as usize);
                } else if let Some(s) = x.semis.iter().find(|s| !s.contains(c)) {
                    proof |= *s;
                } else {
                    // Left out by symmetry, which needs the whole board.
                    proof = all;
                    break;
                }
                if proof.count() >= best.count() {
                    break;
                }
            }
            if proof.count() < best.count() {
                best = proof;
            }
        }
        (None, best)
    }

    /// The delta threshold of the best move: the second-best delta plus
    /// one, or (1 + ε) times it when that is more.
    fn epsilon_bound(&self, second: u32) -> u32 {
        if second >= INF {
            return INF;
        }
        let grown = (second as f64 * (1.0 + self.params.epsilon)).ceil() as u64;
        sat(grown.max(second as u64 + 1))
    }

    fn store(
        &self,
        key: u64,
        bounds: Bounds,
        work: u64,
        best: u16,
        proof: CellSet<W>,
        expansion: Option<Arc<Expansion<W>>>,
    ) {
        self.tt.store(Entry {
            key,
            bounds,
            work,
            best,
            proof,
            expansion,
        });
    }

    /// This position's bounds from its moves', and the move to search.
    fn summarise(&self, bounds: &[Bounds], children: &[(u16, Position<W>)]) -> Summary {
        // A move whose position the opponent loses wins here.
        if let Some(i) = bounds.iter().position(|b| b.delta == 0) {
            return Summary {
                node: Bounds::WIN,
                best: Some(i),
                second_delta: INF,
            };
        }
        let live = bounds.iter().filter(|b| b.phi != 0).count();
        if live == 0 {
            // Every move wins for the opponent.
            let best = (!bounds.is_empty()).then_some(0);
            return Summary {
                node: Bounds::LOSS,
                best,
                second_delta: INF,
            };
        }
        let width = if live < 2 {
            live
        } else {
            (self.params.widening_base
                + (live as f64 * self.params.widening_factor).ceil() as usize)
                .min(live)
        };
        let mut delta_sum: u64 = 0;
        for b in bounds {
            delta_sum += b.phi as u64;
        }
        // phi: the least delta among the focused live moves, with a virtual
        // loss on moves other threads are searching.
        let mut best = None;
        let mut best_delta = u64::MAX;
        let mut second = u64::MAX;
        let mut seen = 0;
        for (i, b) in bounds.iter().enumerate() {
            if b.phi == 0 {
                continue;
            }
            if seen == width {
                break;
            }
            seen += 1;
            let busy = self
                .busy_slot(children[i].1.key())
                .map_or(0, |s| s.load(Ordering::Relaxed) as u64);
            let d = b.delta as u64 + busy * (b.delta as u64).max(1);
            if d < best_delta {
                second = best_delta;
                best_delta = d;
                best = Some(i);
            } else if d < second {
                second = d;
            }
        }
        let phi = best.map_or(INF, |i| bounds[i].delta);
        Summary {
            node: Bounds {
                phi,
                delta: sat(delta_sum).min(INF - 1),
            },
            best,
            second_delta: sat(second),
        }
    }
}

/// The map between a position's cells and its table entry's orientation
/// (an involution: the same map goes both ways).
#[derive(Clone, Copy)]
struct Turn {
    rotated: bool,
    n: usize,
}

impl Turn {
    fn cell(&self, c: u16) -> u16 {
        if self.rotated {
            (self.n - 1) as u16 - c
        } else {
            c
        }
    }

    fn set<const W: usize>(&self, geom: &Geometry<W>, cells: CellSet<W>) -> CellSet<W> {
        if self.rotated {
            geom.rotate(cells)
        } else {
            cells
        }
    }

    fn fill<const W: usize>(&self, geom: &Geometry<W>, fill: [CellSet<W>; 2]) -> [CellSet<W>; 2] {
        if self.rotated {
            [geom.rotate(fill[0]), geom.rotate(fill[1])]
        } else {
            fill
        }
    }
}

/// Proof-set pruning (the "maximum proof set" of Benzene's solver before
/// 2019): if a move loses, the opponent wins with the cells of its proof
/// set, whoever owns the rest; a sibling move outside that set only gives
/// the player a stone there instead of on the first move, and by
/// monotonicity of Hex the opponent still wins. Such siblings are marked
/// lost (their proof set: the first move's and the first move) without
/// search. Returns how many were newly marked.
fn refute_siblings<const W: usize>(
    moves: &[u16],
    bounds: &mut [Bounds],
    proofs: &mut [CellSet<W>],
    refuted: &mut [bool],
) -> u64 {
    let mut count = 0;
    for i in 0..moves.len() {
        // A refuted move's proof set contains the one it came from.
        if bounds[i].phi != 0 || refuted[i] {
            continue;
        }
        let proof = proofs[i].with(moves[i] as usize);
        for j in 0..moves.len() {
            if !bounds[j].is_solved() && !proof.contains(moves[j] as usize) {
                bounds[j] = Bounds::WIN;
                proofs[j] = proof;
                if !refuted[j] {
                    refuted[j] = true;
                    count += 1;
                }
            }
        }
    }
    count
}

struct Summary {
    node: Bounds,
    best: Option<usize>,
    second_delta: u32,
}

fn sat(x: u64) -> u32 {
    x.min(INF as u64) as u32
}
