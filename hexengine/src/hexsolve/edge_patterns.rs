//! Edge connections stated as patterns: a cell E some rows from one of a
//! player's sides, the player's stones the connection needs, and the cells
//! that must not be the opponent's. Where a pattern matches, E (the
//! player's stone, or an empty cell taken as theirs) is fully connected to
//! that side, the pattern's empty cells being the carrier.
//!
//! H-search misses such connections when they need the opponent's moves
//! answered in turn: ladders along a side that reach an escape stone,
//! templates on the fourth and fifth rows, and templates that lean on
//! stones already there. Every pattern here was proved by a local search
//! ([`super::edge_search`]): the band of rows between E and the side, with
//! every cell outside the pattern the opponent's, the opponent moving
//! first. A pattern is stated relative to E along the side, so it holds
//! wherever it fits on a board (a cell missing there stood for the
//! opponent's in the proof, which is never better for the player), on
//! either side of either player, and mirrored along the side.
//!
//! The built-in table (`hexengine/data/edge-patterns.txt`) was learnt by
//! solving the openings of small boards (see the file's header); `darkhex
//! solve --learn-edges FILE` learns more.

use std::any::Any;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use darkhex_games::board::{BLACK, Dims, WHITE};
use darkhex_games::{CellSet, Geometry};
use smallvec::SmallVec;

use super::position::Stones;

/// The cells near one side of a player in "edge" coordinates: `e` rows
/// from the side (0 on the side's own row), `a` along it, oriented so that
/// the cells toward the side from (e, a) are (e-1, a-1) and (e-1, a) on
/// every side of either player. The four frames are the board's
/// automorphisms that swap the players' roles and turn it by 180 degrees.
#[derive(Clone, Copy, Debug)]
pub struct EdgeFrame {
    dims: Dims,
    player: usize,
    side: usize,
}

impl EdgeFrame {
    pub fn new(dims: Dims, player: usize, side: usize) -> Self {
        EdgeFrame { dims, player, side }
    }

    /// The player whose side this is.
    pub fn player(&self) -> usize {
        self.player
    }

    /// Rows away from the side, and cells along it.
    pub fn depth_along(&self) -> (usize, usize) {
        let (r, c) = (self.dims.rows(), self.dims.cols());
        if self.player == BLACK { (r, c) } else { (c, r) }
    }

    /// The board cell at (e, a), if on the board.
    pub fn cell(&self, e: isize, a: isize) -> Option<usize> {
        let (depth, along) = self.depth_along();
        if !(0..depth as isize).contains(&e) || !(0..along as isize).contains(&a) {
            return None;
        }
        let (e, a) = (e as usize, a as usize);
        let (rows, cols) = (self.dims.rows(), self.dims.cols());
        let (r, c) = match (self.player, self.side) {
            (BLACK, 0) => (e, cols - 1 - a),
            (BLACK, _) => (rows - 1 - e, a),
            (_, 0) => (rows - 1 - a, e),
            (_, _) => (a, cols - 1 - e),
        };
        Some(self.dims.cell(r, c))
    }

    /// The (e, a) of a board cell.
    pub fn coords(&self, cell: usize) -> (isize, isize) {
        let (r, c) = self.dims.row_col(cell);
        let (rows, cols) = (self.dims.rows(), self.dims.cols());
        let (e, a) = match (self.player, self.side) {
            (BLACK, 0) => (r, cols - 1 - c),
            (BLACK, _) => (rows - 1 - r, c),
            (_, 0) => (c, rows - 1 - r),
            (_, _) => (cols - 1 - c, r),
        };
        (e as isize, a as isize)
    }
}

/// A connection of a cell E, `depth` rows from a side, to that side: the
/// player's stones it needs and the cells that must not be the opponent's
/// (E excluded), each as (rows from the side, steps along it from E).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EdgePattern {
    pub depth: i8,
    pub stones: Vec<(i8, i8)>,
    pub carrier: Vec<(i8, i8)>,
}

/// A line of a pattern file that does not read as a pattern.
#[derive(Debug, thiserror::Error)]
#[error("edge pattern line {line}: {problem} (expected 'depth;e,a e,a ...;e,a ...')")]
pub struct PatternError {
    pub line: usize,
    pub problem: String,
}

impl EdgePattern {
    pub fn normalised(mut self) -> Self {
        self.stones.sort_unstable();
        self.stones.dedup();
        self.carrier.sort_unstable();
        self.carrier.dedup();
        self
    }

    /// The same connection mirrored along the side, E staying put: the map
    /// (e, a) -> (e, e - a) keeps the hex grid of a band.
    pub fn mirrored(&self) -> Self {
        let d = self.depth;
        let turn = |v: &[(i8, i8)]| v.iter().map(|&(e, a)| (e, e - d - a)).collect();
        EdgePattern {
            depth: d,
            stones: turn(&self.stones),
            carrier: turn(&self.carrier),
        }
        .normalised()
    }

    /// `depth;stones;carrier`, cells as `e,a` apart by spaces.
    pub fn to_line(&self) -> String {
        let cells = |v: &[(i8, i8)]| {
            v.iter()
                .map(|(e, a)| format!("{e},{a}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        format!(
            "{};{};{}",
            self.depth,
            cells(&self.stones),
            cells(&self.carrier)
        )
    }

    /// Reads [`EdgePattern::to_line`]'s form; `line` numbers the errors.
    pub fn parse(text: &str, line: usize) -> Result<Self, PatternError> {
        let err = |problem: String| PatternError { line, problem };
        let cell = |t: &str| -> Result<(i8, i8), PatternError> {
            let bad = || err(format!("bad cell '{t}'"));
            let (e, a) = t.split_once(',').ok_or_else(bad)?;
            let e: i8 = e.parse().map_err(|_| bad())?;
            let a: i8 = a.parse().map_err(|_| bad())?;
            if !(0..=MAX_DEPTH).contains(&e) || a.abs() > MAX_REACH {
                return Err(bad());
            }
            Ok((e, a))
        };
        let cells = |t: &str| {
            t.split_whitespace()
                .map(cell)
                .collect::<Result<Vec<_>, _>>()
        };
        let parts: Vec<&str> = text.split(';').collect();
        let [d, stones, carrier] = parts[..] else {
            return Err(err(format!("{} fields, not 3", parts.len())));
        };
        let depth: i8 = d
            .trim()
            .parse()
            .ok()
            .filter(|d| (1..=MAX_DEPTH).contains(d))
            .ok_or_else(|| err(format!("bad depth '{d}'")))?;
        let p = EdgePattern {
            depth,
            stones: cells(stones)?,
            carrier: cells(carrier)?,
        };
        if p.stones
            .iter()
            .chain(&p.carrier)
            .any(|&(e, a)| e > depth || (e, a) == (depth, 0))
        {
            return Err(err("a cell beyond E's row, or E itself".into()));
        }
        Ok(p.normalised())
    }
}

/// Rows from the side a pattern may reach, and steps along it.
const MAX_DEPTH: i8 = 8;
const MAX_REACH: i8 = 30;

/// A growing set of patterns that threads share: each learns what it
/// proves, and reads what the others learnt.
#[derive(Default)]
pub struct EdgePatterns {
    list: Mutex<(Vec<EdgePattern>, HashSet<EdgePattern>)>,
    len: AtomicUsize,
}

impl EdgePatterns {
    pub fn new() -> Self {
        EdgePatterns::default()
    }

    /// The table learnt for this project, parsed once.
    pub fn builtin() -> &'static EdgePatterns {
        static TABLE: OnceLock<EdgePatterns> = OnceLock::new();
        TABLE.get_or_init(|| {
            let table = EdgePatterns::new();
            table
                .learn_text(include_str!("../../data/edge-patterns.txt"))
                .expect("the built-in edge patterns parse (checked by the tests)");
            table
        })
    }

    /// Adds a pattern and its mirror image; whether either was new.
    pub fn learn(&self, p: EdgePattern) -> bool {
        let mut guard = self.list.lock().unwrap_or_else(|e| e.into_inner());
        let (list, seen) = &mut *guard;
        let mut new = false;
        for q in [p.mirrored(), p] {
            if seen.insert(q.clone()) {
                list.push(q);
                new = true;
            }
        }
        self.len.store(list.len(), Ordering::Release);
        new
    }

    /// Whether the set holds `p`.
    pub fn contains(&self, p: &EdgePattern) -> bool {
        let guard = self.list.lock().unwrap_or_else(|e| e.into_inner());
        guard.1.contains(p)
    }

    /// The patterns from the `from`-th on.
    pub fn since(&self, from: usize) -> Vec<EdgePattern> {
        if self.len() <= from {
            return Vec::new();
        }
        let guard = self.list.lock().unwrap_or_else(|e| e.into_inner());
        guard.0[from..].to_vec()
    }

    pub fn len(&self) -> usize {
        self.len.load(Ordering::Acquire)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The deepest row any pattern starts from.
    pub fn max_depth(&self) -> usize {
        let guard = self.list.lock().unwrap_or_else(|e| e.into_inner());
        guard.0.iter().map(|p| p.depth as usize).max().unwrap_or(0)
    }

    /// One pattern a line, as [`EdgePattern::to_line`] writes them.
    pub fn to_text(&self) -> String {
        self.since(0).iter().map(|p| p.to_line() + "\n").collect()
    }

    /// Learns every pattern of a text of lines (blank lines and lines
    /// starting with `#` skipped); how many lines it read.
    pub fn learn_text(&self, text: &str) -> Result<usize, PatternError> {
        let mut n = 0;
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            self.learn(EdgePattern::parse(line, i + 1)?);
            n += 1;
        }
        Ok(n)
    }
}

/// The first line of a file of edge patterns `darkhex solve --learn-edges`
/// writes (which may hold no pattern yet).
pub const LEARNT_HEADER: &str =
    "# darkhex edge patterns, learnt by `darkhex solve --learn-edges`: a line is";

/// Whether `text` is a file of edge patterns: one `darkhex solve
/// --learn-edges` wrote, or one of patterns, comments and blank lines
/// only, with at least one pattern (darkhex's built-in table).
pub fn is_pattern_text(text: &str) -> bool {
    if text.lines().next() == Some(LEARNT_HEADER) {
        return true;
    }
    let mut patterns = 0;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if EdgePattern::parse(line, i + 1).is_err() {
            return false;
        }
        patterns += 1;
    }
    patterns > 0
}

/// Values kept for the life of the process, one per board shape (rows,
/// columns and words).
pub(crate) type ByShape =
    OnceLock<Mutex<HashMap<(usize, usize, usize), Arc<dyn Any + Send + Sync>>>>;

/// `cache`'s value for `geom`'s board shape, made by `make` the first time.
pub(crate) fn per_board_shape<T: Send + Sync + 'static, const W: usize>(
    cache: &'static ByShape,
    geom: &Geometry<W>,
    make: impl FnOnce() -> T,
) -> Arc<T> {
    let dims = geom.dims();
    let key = (dims.rows(), dims.cols(), W);
    let mut map = cache
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(v) = map.get(&key).and_then(|a| a.clone().downcast::<T>().ok()) {
        return v;
    }
    let v = Arc::new(make());
    map.insert(key, v.clone());
    v
}

/// A pattern placed on one board: the connection it gives E to `side`.
#[derive(Clone, Copy, Debug)]
struct Placed<const W: usize> {
    side: u8,
    stones: CellSet<W>,
    carrier: CellSet<W>,
}

/// Patterns placed on one board, by player and E.
pub struct PlacedEdges<const W: usize> {
    cells: usize,
    /// `index[player * cells + e]`: the placements whose E is `e`.
    index: Vec<Vec<Placed<W>>>,
    /// `sieves[(player * cells + e) * 2 + side]`, made when first asked.
    sieves: Vec<OnceLock<Sieve<W>>>,
    /// Patterns of the source already placed.
    known: usize,
    max_depth: usize,
}

impl<const W: usize> PlacedEdges<W> {
    pub fn new(geom: &Geometry<W>) -> Self {
        PlacedEdges {
            cells: geom.cells(),
            index: vec![Vec::new(); 2 * geom.cells()],
            sieves: (0..4 * geom.cells()).map(|_| OnceLock::new()).collect(),
            known: 0,
            max_depth: 0,
        }
    }

    /// The built-in table placed on `geom`'s board, once per board shape
    /// for the life of the process (placing it takes tens of milliseconds,
    /// and players build solvers often).
    pub fn builtin(geom: &Geometry<W>) -> Arc<PlacedEdges<W>> {
        static PLACED: ByShape = OnceLock::new();
        per_board_shape(&PLACED, geom, || {
            let mut placed = PlacedEdges::new(geom);
            placed.sync(geom, EdgePatterns::builtin());
            placed
        })
    }

    /// Places the patterns of `source` not placed yet.
    pub fn sync(&mut self, geom: &Geometry<W>, source: &EdgePatterns) {
        let new = source.since(self.known);
        self.known += new.len();
        for p in &new {
            self.place(geom, p);
        }
    }

    fn place(&mut self, geom: &Geometry<W>, p: &EdgePattern) {
        self.max_depth = self.max_depth.max(p.depth as usize);
        for player in [BLACK, WHITE] {
            for side in 0..2 {
                let frame = EdgeFrame::new(geom.dims(), player, side);
                let (_, along) = frame.depth_along();
                for a0 in 0..along as isize {
                    let Some(e) = frame.cell(p.depth as isize, a0) else {
                        continue;
                    };
                    let cells = |v: &[(i8, i8)]| -> Option<CellSet<W>> {
                        v.iter()
                            .map(|&(r, a)| frame.cell(r as isize, a0 + a as isize))
                            .collect()
                    };
                    let (Some(stones), Some(carrier)) = (cells(&p.stones), cells(&p.carrier))
                    else {
                        continue;
                    };
                    self.sieves[(player * self.cells + e) * 2 + side] = OnceLock::new();
                    self.index[player * self.cells + e].push(Placed {
                        side: side as u8,
                        stones,
                        carrier,
                    });
                }
            }
        }
    }

    /// The deepest row a placed pattern starts from.
    pub fn max_depth(&self) -> usize {
        self.max_depth
    }

    /// The carrier (empty cells) of the first placed pattern that joins
    /// `cell` to `player`'s side `side` in `stones`, if one matches.
    ///
    /// Thousands of placements may start at a cell, so the answer comes
    /// from the cell's sieve, which rules them out 64 at a time by the
    /// cells that kill them (made on first use, remade after placements
    /// are added there); [`PlacedEdges::find_by_scan`] tests them one by one.
    pub fn find(
        &self,
        stones: &Stones<W>,
        player: usize,
        side: usize,
        cell: usize,
    ) -> Option<CellSet<W>> {
        let slot = (player * self.cells + cell) * 2 + side;
        let sieve = self.sieves[slot].get_or_init(|| {
            let placed: Vec<Placed<W>> = self.index[player * self.cells + cell]
                .iter()
                .filter(|p| p.side as usize == side)
                .copied()
                .collect();
            Sieve::new(placed)
        });
        sieve.first_match(stones[player], stones[1 - player])
    }

    /// [`PlacedEdges::find`]'s answer by testing each placement in turn:
    /// the reference the sieve is held to.
    pub fn find_by_scan(
        &self,
        stones: &Stones<W>,
        player: usize,
        side: usize,
        cell: usize,
    ) -> Option<CellSet<W>> {
        let mine = stones[player];
        let theirs = stones[1 - player];
        self.index[player * self.cells + cell]
            .iter()
            .find(|p| {
                p.side as usize == side
                    && p.stones.is_subset(&mine)
                    && !p.carrier.intersects(&theirs)
            })
            .map(|p| p.carrier - mine)
    }
}

/// The placements of one cell and side with, for each cell they use, the
/// placements it rules out: those whose carrier holds the cell when the
/// opponent has it, those with a stone there when the player has not.
struct Sieve<const W: usize> {
    placed: Vec<Placed<W>>,
    /// Blocks of 64 placements.
    blocks: usize,
    /// The cells of any carrier, each with its column in `masks`.
    carrier_cells: Vec<(u16, usize)>,
    /// The cells of any placement's stones, likewise, those with the most
    /// placements first.
    stone_cells: Vec<(u16, usize)>,
    /// Block by block, one word per column: the placements of the block
    /// that the column's cell rules out. A block's words lie together, as
    /// the search reads them.
    masks: Vec<u64>,
    columns: usize,
    /// For each block, the placements without stones, and the bits past
    /// the last placement (live, like those of a placement nothing rules
    /// out).
    stoneless: Vec<u64>,
}

impl<const W: usize> Sieve<W> {
    fn new(placed: Vec<Placed<W>>) -> Self {
        let blocks = placed.len().div_ceil(64);
        let of_carrier: fn(&Placed<W>) -> CellSet<W> = |p| p.carrier;
        let of_stones: fn(&Placed<W>) -> CellSet<W> = |p| p.stones;
        let cells_of =
            |of: fn(&Placed<W>) -> CellSet<W>| placed.iter().fold(CellSet::EMPTY, |a, p| a | of(p));
        let carrier_all = cells_of(of_carrier);
        let stone_all = cells_of(of_stones);
        let carrier_cells: Vec<(u16, usize)> = carrier_all
            .iter()
            .enumerate()
            .map(|(i, c)| (c as u16, i))
            .collect();
        let mut stone_order: Vec<usize> = stone_all.iter().collect();
        let users = |c: usize| placed.iter().filter(|p| p.stones.contains(c)).count();
        stone_order.sort_by_key(|&c| std::cmp::Reverse(users(c)));
        let stone_cells: Vec<(u16, usize)> = stone_order
            .iter()
            .enumerate()
            .map(|(i, &c)| (c as u16, carrier_cells.len() + i))
            .collect();
        let columns = carrier_cells.len() + stone_cells.len();
        let mut masks = vec![0u64; blocks * columns];
        let mut fill = |cells: &[(u16, usize)], of: fn(&Placed<W>) -> CellSet<W>| {
            for &(c, col) in cells {
                for (j, p) in placed.iter().enumerate() {
                    if of(p).contains(c as usize) {
                        masks[(j / 64) * columns + col] |= 1 << (j % 64);
                    }
                }
            }
        };
        fill(&carrier_cells, of_carrier);
        fill(&stone_cells, of_stones);
        let mut stoneless = vec![0u64; blocks];
        for j in 0..blocks * 64 {
            if placed.get(j).is_none_or(|p| p.stones.is_empty()) {
                stoneless[j / 64] |= 1 << (j % 64);
            }
        }
        Sieve {
            placed,
            blocks,
            carrier_cells,
            stone_cells,
            masks,
            columns,
            stoneless,
        }
    }

    /// The carrier of the first placement that holds for `mine` and
    /// `theirs`, less `mine`.
    ///
    /// The player has few stones near the cell and the opponent few in
    /// the carriers: a placement lives only if it has no stones or one of
    /// them is the player's, and no opponent stone is in its carrier, so a
    /// block is mostly settled by those few cells. The stones the player
    /// lacks (nearly all the sieve's stone cells) are read only for the
    /// placements still alive then.
    fn first_match(&self, mine: CellSet<W>, theirs: CellSet<W>) -> Option<CellSet<W>> {
        let at_of = |cells: &[(u16, usize)], set: CellSet<W>, held: bool| {
            cells
                .iter()
                .filter(|(c, _)| set.contains(*c as usize) == held)
                .map(|&(_, at)| at)
                .collect::<SmallVec<[usize; 64]>>()
        };
        let own_stones = at_of(&self.stone_cells, mine, true);
        let blocked = at_of(&self.carrier_cells, theirs, true);
        let mut missing: Option<SmallVec<[usize; 64]>> = None;
        for b in 0..self.blocks {
            let masks = &self.masks[b * self.columns..][..self.columns];
            let mut live = own_stones
                .iter()
                .fold(self.stoneless[b], |live, &at| live | masks[at]);
            live = blocked.iter().fold(live, |live, &at| live & !masks[at]);
            if live == 0 {
                continue;
            }
            let missing = missing.get_or_insert_with(|| at_of(&self.stone_cells, mine, false));
            for &at in missing.iter() {
                live &= !masks[at];
                if live == 0 {
                    break;
                }
            }
            if live != 0 {
                let j = b * 64 + live.trailing_zeros() as usize;
                // Bits past the last placement are live too.
                return self.placed.get(j).map(|p| p.carrier - mine);
            }
        }
        None
    }
}
