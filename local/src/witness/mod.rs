//! Witnesses for template probes: a position on a small Hex board that
//! holds the template, White to move, where the probe is White's only
//! winning move, as the Hex solver's all-moves answer shows.
//!
//! The search is a seeded random one. Each attempt places the template on
//! a board (sizes from 3x3 up to a chosen size, every translation that
//! keeps its carrier and stones on the board; a terminal drawn as a row
//! of two or more stones may sit on Black's top or bottom edge instead,
//! as the ziggurat's row of 2s stands for the edge: half the attempts
//! are such edge placements when there are any), then fills the other cells at
//! random: a few left empty, the rest Black and White stones in the
//! numbers of a game with White to move (one more Black stone than White).
//! A position is kept when it is undecided, White wins with the probe, and
//! Black wins after every other White move; the solver's all-moves answer
//! (the code of `darkhex solve --all-moves`) then confirms it. Attempts
//! are drawn from one generator per probe seeded by `--seed`, and every
//! solve runs on one thread, so a seed gives the same witnesses.
//!
//! Random filling alone meets the rare witnesses (the ones Demer and
//! Selinger call exceedingly rare) once in millions of attempts. With
//! `--climb`, a filling where the probe wins beside other moves is the
//! start of a local search: each step exchanges what two cells outside
//! the template hold, lifts a Black and a White stone, or places one of
//! each, and is kept when the probe still wins and White has no more
//! other winning moves than before. A filling that wins with the probe
//! is common; the climb walks it towards the probe winning alone.
//!
//! With `--descend`, the climb counts another winning move inside the
//! carrier as worse than any number of them outside, and where only
//! outside ones are left, White plays one of them and Black answers
//! outside, a few times over, to reach a position where the probe wins
//! alone. Demer and Selinger's Lemma 7.2 says such a line exists when
//! White, who wins, would lose if the probe could not open the carrier.
//!
//! All of them skip positions where the probe is not viable for the
//! carrier and the stones next to it ([`viability`]): no filling of the other cells
//! makes it a witness. The climb keeps to viable positions once it
//! reaches one, and takes a step into one even when White then has more
//! other winning moves.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use darkhex_base::files::{FileError, write_atomically};
use darkhex_games::GameError;
use darkhex_games::board::{BLACK, Dims, WHITE};
use darkhex_games::hex::HexGame;
use darkhex_hexengine::analyst::{Budget, CellLists, HexAnalyst, analyst_for};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use thiserror::Error;

use crate::region::{Cell, Region};
use crate::template::Probe;

#[cfg(test)]
mod committed;
mod viability;
use viability::Viability;

/// What one other winning move in the carrier counts for in the climb
/// with the descent on: more than every outside cell together.
const CARRIER_WEIGHT: usize = 1000;

/// The smallest board tried.
const MIN_SIDE: usize = 3;

/// Why a witness search could not run or keep what it found.
#[derive(Debug, Error)]
pub enum WitnessError {
    #[error(
        "the template fits on no board up to {0}x{0} (its carrier and stones must lie on the board; a terminal on one row may be Black's edge)"
    )]
    FitsNowhere(usize),
    #[error(transparent)]
    Board(#[from] GameError),
    #[error("cannot create {}", .path.display())]
    Folder {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    File(#[from] FileError),
}

/// What a witness search reports as it goes (the CLI draws a bar per
/// probe); `()` reports nothing.
pub trait SearchProgress {
    /// The search for probe `cell` starts, with at most `attempts` attempts.
    fn probe(&self, _cell: &str, _attempts: u64) {}
    /// The current probe's attempt `i` (from 1).
    fn attempt(&self, _i: u64) {}
    /// The current probe's search ended.
    fn done(&self) {}
}

impl SearchProgress for () {}

/// What the search may spend, per probe.
#[derive(Clone, Debug)]
pub struct SearchLimits {
    pub seed: u64,
    pub attempts: u64,
    pub time_limit: Duration,
    /// Boards from 3x3 up to this side.
    pub max_side: usize,
    /// At most this many cells outside the template left empty.
    pub max_empty: usize,
    /// Steps of the climb from each filling where the probe wins (0: none).
    pub climb: u64,
    /// Skip fillings where the probe is not viable.
    pub viability: bool,
    /// Pairs of moves the descent may add to a position of the climb
    /// (0: no descent).
    pub descend: usize,
    /// Only these probes, by their names in the region file (`None`: all).
    pub probes: Option<Vec<String>>,
}

/// The template placed on one board.
#[derive(Clone, Debug)]
struct Placement {
    dims: Dims,
    /// The board cell of each carrier cell, in the region's order.
    carrier: Vec<usize>,
    /// The template's stones on the board, Black's first.
    stones: CellLists,
    /// Every board cell the template covers (carrier and stones).
    covered: Vec<usize>,
    /// The template's terminal stones on the board, with their terminal.
    terminal_stones: Vec<(usize, u8)>,
    /// The terminal that Black's top and bottom edge stand for, if any.
    edge_terminal: [Option<u8>; 2],
}

impl Placement {
    /// A terminal is Black's edge.
    fn on_edge(&self) -> bool {
        self.edge_terminal.iter().any(Option::is_some)
    }
}

/// Every placement of `region` on boards of side 3 up to `max_side`.
fn placements(region: &Region, max_side: usize) -> Result<Vec<Placement>, WitnessError> {
    let cells = region.cells();
    let max_r = cells.iter().map(|c| c.0.0).max().unwrap_or(0) as isize;
    let max_c = cells.iter().map(|c| c.0.1).max().unwrap_or(0) as isize;
    let mut out = Vec::new();
    for side in MIN_SIDE..=max_side {
        let dims = Dims::new("hex", side, side)?;
        let n = side as isize;
        for dr in -max_r - 1..=n {
            for dc in -max_c - 1..=n {
                if let Some(p) = place(region, &cells, dims, dr, dc) {
                    out.push(p);
                }
            }
        }
    }
    if out.is_empty() {
        return Err(WitnessError::FitsNowhere(max_side));
    }
    Ok(out)
}

/// The template shifted by (dr, dc) on a `dims` board, if it fits.
fn place(
    region: &Region,
    cells: &[((usize, usize), Cell)],
    dims: Dims,
    dr: isize,
    dc: isize,
) -> Option<Placement> {
    let (rows, cols) = (dims.rows() as isize, dims.cols() as isize);
    let at = |(r, c): (usize, usize)| (r as isize + dr, c as isize + dc);
    let on_board = |(r, c): (isize, isize)| r >= 0 && r < rows && c >= 0 && c < cols;
    let cell_of = |(r, c): (isize, isize)| dims.cell(r as usize, c as usize);
    let mut p = Placement {
        dims,
        carrier: Vec::new(),
        stones: [Vec::new(), Vec::new()],
        covered: Vec::new(),
        terminal_stones: Vec::new(),
        edge_terminal: [None, None],
    };
    for t in 0..region.terminals() {
        let rows_of: Vec<isize> = cells
            .iter()
            .filter(|(_, k)| *k == Cell::Black(Some(t)))
            .map(|&(pos, _)| at(pos).0)
            .collect();
        // A row of two or more stones may be Black's edge; a lone stone
        // is a stone (as an edge it would make the bridge an edge bridge).
        let edge = rows_of.len() >= 2
            && (rows_of.iter().all(|&r| r == -1) || rows_of.iter().all(|&r| r == rows));
        if edge {
            p.edge_terminal[usize::from(rows_of[0] == rows)] = Some(t);
        }
        for &(pos, _) in cells.iter().filter(|(_, k)| *k == Cell::Black(Some(t))) {
            let b = at(pos);
            if on_board(b) {
                if edge {
                    return None;
                }
                p.stones[BLACK].push(cell_of(b));
                p.covered.push(cell_of(b));
                p.terminal_stones.push((cell_of(b), t));
            } else if !edge {
                return None;
            }
        }
    }
    for &(pos, kind) in cells {
        let b = at(pos);
        match kind {
            Cell::Black(Some(_)) => continue,
            _ if !on_board(b) => return None,
            Cell::Empty => p.carrier.push(cell_of(b)),
            Cell::Black(None) => p.stones[BLACK].push(cell_of(b)),
            Cell::White => p.stones[WHITE].push(cell_of(b)),
        }
        p.covered.push(cell_of(b));
    }
    Some(p)
}

/// A witness found: the board, its stones (White to move) and the probe's
/// board cell.
#[derive(Clone, Debug)]
pub struct Witness {
    dims: Dims,
    stones: CellLists,
    probe: usize,
    /// Carrier cells on the board with their names in the region file.
    carrier: Vec<(usize, String)>,
    /// Attempts it took, and the time.
    attempts: u64,
    seconds: f64,
}

/// Solvers for each board size, built once.
struct Analysts(Vec<(usize, Box<dyn HexAnalyst>)>);

impl Analysts {
    fn get(&mut self, dims: Dims) -> &dyn HexAnalyst {
        let side = dims.rows();
        let i = match self.0.iter().position(|(s, _)| *s == side) {
            Some(i) => i,
            None => {
                self.0.push((side, analyst_for(&HexGame::new(dims, false))));
                self.0.len() - 1
            }
        };
        self.0[i].1.as_ref()
    }
}

/// A small table and one thread: the boards are tiny, and one thread
/// keeps the answers the same from run to run.
fn budget() -> Budget {
    Budget {
        threads: 1,
        tt_mb: 8,
        time_limit: Some(Duration::from_secs(20)),
        max_expansions: None,
    }
}

/// Whether White to move wins with `white_move` (`Some(true)`), loses
/// (`Some(false)`), or the budget ran out.
fn white_wins_with(
    analyst: &dyn HexAnalyst,
    stones: &CellLists,
    white_move: usize,
) -> Option<bool> {
    let mut after = stones.clone();
    after[WHITE].push(white_move);
    if let Some(w) = analyst.winner(&after) {
        return Some(w == WHITE);
    }
    let v = analyst.solve(&after, BLACK, budget(), &|_| {});
    v.winner.map(|w| w == WHITE)
}

/// White's winning moves by the solver's all-moves answer; `None` when a
/// move was left unsolved.
pub fn white_winning_moves(analyst: &dyn HexAnalyst, stones: &CellLists) -> Option<Vec<usize>> {
    let (values, _) = analyst.move_values(stones, WHITE, budget());
    let empty = analyst.game().dims().cells() - stones[0].len() - stones[1].len();
    if values.len() != empty || values.iter().any(|v| v.1.is_none()) {
        return None;
    }
    let mut wins: Vec<usize> = values
        .iter()
        .filter(|v| v.1 == Some(true))
        .map(|v| v.0)
        .collect();
    wins.sort_unstable();
    Some(wins)
}

/// The cells outside the template and what each holds: a stone, or
/// `None` for empty.
struct Filling {
    others: Vec<usize>,
    fill: Vec<Option<usize>>,
}

impl Filling {
    /// A random filling around `p`, with stones in the numbers of a game
    /// with White to move (one more Black stone than White).
    fn random(p: &Placement, rng: &mut ChaCha8Rng, max_empty: usize) -> Option<Filling> {
        let mut others: Vec<usize> = (0..p.dims.cells())
            .filter(|c| !p.covered.contains(c))
            .collect();
        others.shuffle(rng);
        let m = others.len() as isize;
        let (tb, tw) = (
            p.stones[BLACK].len() as isize,
            p.stones[WHITE].len() as isize,
        );
        let mut empty = rng.random_range(0..=max_empty.min(others.len())) as isize;
        if (m - empty + tw + 1 - tb) % 2 != 0 {
            empty += if empty < m { 1 } else { -1 };
        }
        let black = (m - empty + tw + 1 - tb) / 2;
        let white = m - empty - black;
        if empty < 0 || black < 0 || white < 0 {
            return None;
        }
        let fill = (0..m)
            .map(|i| match i {
                i if i < black => Some(BLACK),
                i if i < black + white => Some(WHITE),
                _ => None,
            })
            .collect();
        Some(Filling { others, fill })
    }

    fn stones(&self, p: &Placement) -> CellLists {
        let mut stones = p.stones.clone();
        for (&cell, f) in self.others.iter().zip(&self.fill) {
            if let Some(colour) = f {
                stones[*colour].push(cell);
            }
        }
        stones
    }

    fn empty(&self) -> usize {
        self.fill.iter().filter(|f| f.is_none()).count()
    }

    /// A neighbour for the climb, with the same difference of stone
    /// counts: two cells exchange what they hold, a Black and a White
    /// stone are lifted, or two empty cells take one of each.
    fn mutated(&self, rng: &mut ChaCha8Rng, max_empty: usize) -> Option<Filling> {
        let n = self.fill.len();
        if n < 2 {
            return None;
        }
        let mut fill = self.fill.clone();
        let pick = |rng: &mut ChaCha8Rng, want: Option<usize>, not: usize| {
            let at: Vec<usize> = (0..n).filter(|&i| fill[i] == want && i != not).collect();
            (!at.is_empty()).then(|| at[rng.random_range(0..at.len())])
        };
        match rng.random_range(0..3) {
            0 => {
                let i = rng.random_range(0..n);
                let j = rng.random_range(0..n);
                if fill[i] == fill[j] {
                    return None;
                }
                fill.swap(i, j);
            }
            1 if self.empty() + 2 <= max_empty => {
                let b = pick(rng, Some(BLACK), n)?;
                let w = pick(rng, Some(WHITE), n)?;
                (fill[b], fill[w]) = (None, None);
            }
            2 => {
                let b = pick(rng, None, n)?;
                let w = pick(rng, None, b)?;
                (fill[b], fill[w]) = (Some(BLACK), Some(WHITE));
            }
            _ => return None,
        }
        Some(Filling {
            others: self.others.clone(),
            fill,
        })
    }
}

/// White's other winning moves in a position where the probe wins.
struct Rivals {
    /// How many are in the carrier.
    carrier: usize,
    /// The ones outside the carrier.
    outside: Vec<usize>,
}

impl Rivals {
    /// How far the position is from a witness: each other winning move
    /// in the carrier counts `carrier_weight`, each outside it 1.
    fn score(&self, carrier_weight: usize) -> usize {
        self.carrier * carrier_weight + self.outside.len()
    }

    /// White's other winning moves, wherever they are.
    fn count(&self) -> usize {
        self.carrier + self.outside.len()
    }
}

/// White's other winning moves beside `probe`, when the game is undecided
/// and the probe wins. Cells of the template's carrier come first, and
/// counting stops once the score is above `bound`, where the climb would
/// not take the position anyway.
fn rivals(
    p: &Placement,
    analyst: &dyn HexAnalyst,
    stones: &CellLists,
    probe: usize,
    carrier_weight: usize,
    bound: usize,
) -> Option<Rivals> {
    if analyst.winner(stones).is_some() || white_wins_with(analyst, stones, probe) != Some(true) {
        return None;
    }
    let taken: Vec<usize> = stones.iter().flatten().copied().collect();
    let outside = (0..p.dims.cells()).filter(|c| !p.carrier.contains(c));
    let mut r = Rivals {
        carrier: 0,
        outside: Vec::new(),
    };
    for c in p.carrier.iter().copied().chain(outside) {
        if c == probe || taken.contains(&c) {
            continue;
        }
        if white_wins_with(analyst, stones, c) != Some(false) {
            if p.carrier.contains(&c) {
                r.carrier += 1;
            } else {
                r.outside.push(c);
            }
            if r.score(carrier_weight) > bound {
                return None;
            }
        }
    }
    Some(r)
}

/// Demer and Selinger's Lemma 7.2 read as a search: where the probe wins
/// and White's other winning moves are all outside the carrier, White
/// plays one of them and Black answers outside, up to `depth` times, until
/// the probe wins alone. When White would lose if the probe could not
/// open the carrier, some such line ends at a witness; the search tries
/// them all, skipping positions where the probe is not viable.
///
/// `others` are White's other winning moves in `stones`, all outside the
/// carrier (the caller has solved them).
fn descend(
    p: &Placement,
    analyst: &dyn HexAnalyst,
    stones: &CellLists,
    others: &[usize],
    probe: usize,
    depth: usize,
    viable: &mut dyn FnMut(&CellLists) -> bool,
) -> Option<CellLists> {
    if others.is_empty() {
        return Some(stones.clone());
    }
    if depth == 0 {
        return None;
    }
    let taken: Vec<usize> = stones.iter().flatten().copied().collect();
    for &m in others {
        for n in (0..p.dims.cells()).filter(|c| !p.carrier.contains(c) && !taken.contains(c)) {
            if n == m {
                continue;
            }
            let mut next = stones.clone();
            next[WHITE].push(m);
            next[BLACK].push(n);
            if !viable(&next) {
                continue;
            }
            let bound = CARRIER_WEIGHT - 1;
            let Some(r) = rivals(p, analyst, &next, probe, CARRIER_WEIGHT, bound) else {
                continue;
            };
            if let Some(w) = descend(p, analyst, &next, &r.outside, probe, depth - 1, viable) {
                return Some(w);
            }
        }
    }
    None
}

/// One attempt: a random filling around placement `p`; the witness if the
/// probe (carrier index `x`) is White's only winning move, or else how
/// many other winning moves White had where the climb stopped (`None`
/// when the probe lost in the filling or the climb is off). With `climb`
/// steps, a filling where the probe wins but is not alone is changed a
/// cell or two at a time. A change is kept when the probe still wins and
/// the position is no further from a witness: viable before and after
/// with no more other winning moves for White, or viable only after, or
/// viable neither time with no more other winning moves. (A position
/// where the probe is not viable is a dead end however few other moves
/// win: only a change of the carrier's surroundings can make it a
/// witness.)
fn attempt(
    p: &Placement,
    x: usize,
    analyst: &dyn HexAnalyst,
    rng: &mut ChaCha8Rng,
    limits: &SearchLimits,
    viability: &mut Viability,
) -> Result<CellLists, Option<usize>> {
    let probe = p.carrier[x];
    let mut filling = Filling::random(p, rng, limits.max_empty).ok_or(None)?;
    let mut stones = filling.stones(p);
    let mut viable = |stones: &CellLists| !limits.viability || viability.check(p, stones, x);
    let mut is_viable = viable(&stones);
    if limits.climb == 0 && !is_viable {
        return Err(None);
    }
    // With the descent on, a carrier cell counts as more than any number
    // of outside cells: the climb clears the carrier, the descent the rest.
    let weight = if limits.descend > 0 {
        CARRIER_WEIGHT
    } else {
        1
    };
    let bound = match (limits.climb, limits.descend) {
        (0, 0) => 0,
        (0, _) => weight - 1,
        _ => usize::MAX,
    };
    let mut now = rivals(p, analyst, &stones, probe, weight, bound).ok_or(None)?;
    let mut descended = usize::MAX;
    for step in 0..=limits.climb {
        let score = now.score(weight);
        if score == 0 {
            break;
        }
        // A descent costs a solve per pair of cells: once per new low of
        // the climb, where only outside moves are left beside the probe.
        if limits.descend > 0 && is_viable && now.carrier == 0 && score < descended {
            descended = score;
            let depth = limits.descend;
            if let Some(w) = descend(p, analyst, &stones, &now.outside, probe, depth, &mut viable) {
                stones = w;
                now.outside.clear();
                break;
            }
        }
        if step == limits.climb {
            break;
        }
        let Some(next) = filling.mutated(rng, limits.max_empty) else {
            continue;
        };
        let next_stones = next.stones(p);
        let next_viable = viable(&next_stones);
        if is_viable && !next_viable {
            continue;
        }
        let bound = if next_viable && !is_viable {
            usize::MAX
        } else {
            score
        };
        if let Some(r) = rivals(p, analyst, &next_stones, probe, weight, bound) {
            (filling, stones, now, is_viable) = (next, next_stones, r, next_viable);
        }
    }
    let score = now.count();
    if score == 0 && white_winning_moves(analyst, &stones).is_some_and(|w| w == [probe]) {
        return Ok(stones);
    }
    Err((limits.climb > 0).then_some(score.max(1)))
}

/// Searches a witness for carrier cell `x` of the region.
fn search(
    region: &Region,
    places: &[Placement],
    x: usize,
    limits: &SearchLimits,
    analysts: &mut Analysts,
    progress: &dyn SearchProgress,
) -> Result<Witness, (u64, Option<usize>)> {
    let start = Instant::now();
    let (edge, inside): (Vec<&Placement>, Vec<&Placement>) =
        places.iter().partition(|p| p.on_edge());
    // One generator per probe, so that each probe's search is the same
    // whichever others run.
    let mut rng =
        ChaCha8Rng::seed_from_u64(limits.seed ^ (x as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let mut made = 0;
    let mut closest: Option<usize> = None;
    let mut viability = Viability::default();
    for i in 1..=limits.attempts {
        if start.elapsed() >= limits.time_limit {
            break;
        }
        made = i;
        // Half the attempts on the edge, where the template can sit there.
        let kind = if edge.is_empty() || (!inside.is_empty() && rng.random_bool(0.5)) {
            &inside
        } else {
            &edge
        };
        let p = kind[rng.random_range(0..kind.len())];
        let analyst = analysts.get(p.dims);
        progress.attempt(i);
        let stones = match attempt(p, x, analyst, &mut rng, limits, &mut viability) {
            Ok(stones) => stones,
            Err(score) => {
                closest = closest.into_iter().chain(score).min();
                continue;
            }
        };
        let names = region.cell_names();
        return Ok(Witness {
            dims: p.dims,
            stones,
            probe: p.carrier[x],
            carrier: p
                .carrier
                .iter()
                .copied()
                .zip(names.iter().cloned())
                .collect(),
            attempts: i,
            seconds: start.elapsed().as_secs_f64(),
        });
    }
    Err((made, closest))
}

/// The file names of probe `cell`'s witness: `STEM-CELL-witness.sgf` and
/// `.txt`.
pub fn witness_paths(dir: &Path, stem: &str, cell: &str) -> (PathBuf, PathBuf) {
    let base = format!("{stem}-{cell}-witness");
    (
        dir.join(format!("{base}.sgf")),
        dir.join(format!("{base}.txt")),
    )
}

/// Whether `text` begins as a witness file this search writes, SGF or
/// diagram.
pub fn is_witness_text(text: &str) -> bool {
    text.starts_with("(;FF[4]GM[11]AP[darkhex:") || text.starts_with("# Probe ")
}

impl Witness {
    fn sgf(&self, file: &str, cell: &str) -> String {
        let list = |cells: &[usize]| {
            let mut names: Vec<String> = cells.iter().map(|&c| self.dims.cell_name(c)).collect();
            names.sort();
            names.iter().map(|n| format!("[{n}]")).collect::<String>()
        };
        format!(
            "(;FF[4]GM[11]AP[darkhex:{}]SZ[{}]\nAB{}\nAW{}\nPL[W]\nC[White to move: {} (probe {cell} of {file}) is the only winning move.])\n",
            env!("CARGO_PKG_VERSION"),
            self.dims.rows(),
            list(&self.stones[BLACK]),
            list(&self.stones[WHITE]),
            self.dims.cell_name(self.probe),
        )
    }

    fn diagram(&self, file: &str, cell: &str) -> String {
        let d = self.dims;
        let mut out = format!(
            "# Probe {cell} of {file}: White to move, and {} (marked *) is White's only\n\
             # winning move (the solver's all-moves answer). X Black, O White, . empty,\n\
             # the template's other carrier cells by their names in the region file.\n\
             # Black joins top and bottom.\n",
            d.cell_name(self.probe)
        );
        out += "  ";
        for c in 0..d.cols() {
            out += &format!(" {}", (b'a' + c as u8) as char);
        }
        out += "\n";
        for r in 0..d.rows() {
            out += &format!("{}{:>2}", " ".repeat(r), r + 1);
            for c in 0..d.cols() {
                let cell = d.cell(r, c);
                let token = if self.stones[BLACK].contains(&cell) {
                    "X".to_string()
                } else if self.stones[WHITE].contains(&cell) {
                    "O".to_string()
                } else if cell == self.probe {
                    "*".to_string()
                } else if let Some((_, name)) = self.carrier.iter().find(|(x, _)| *x == cell) {
                    name.clone()
                } else {
                    ".".to_string()
                };
                out += &format!(" {token}");
            }
            out += "\n";
        }
        out
    }
}

/// What the search did for one probe.
pub enum Found {
    /// Proven inferior: no witness exists.
    Inferior,
    /// The witness files were there already.
    Kept(PathBuf),
    /// Found and written.
    Written(PathBuf, Witness),
    /// None within the limits: attempts made, seconds spent, and the
    /// fewest other winning moves beside the probe where a climb stopped.
    Missing(u64, f64, Option<usize>),
}

impl Found {
    /// One line for the report.
    pub fn describe(&self) -> String {
        match self {
            Found::Inferior => "inferior: no witness to look for".into(),
            Found::Kept(path) => format!("witness {} (there already)", path.display()),
            Found::Written(path, w) => format!(
                "witness {} ({}x{}, White's only winning move {}, attempt {}, {:.1} s)",
                path.display(),
                w.dims.rows(),
                w.dims.cols(),
                w.dims.cell_name(w.probe),
                w.attempts,
                w.seconds
            ),
            Found::Missing(attempts, seconds, closest) => {
                let near = closest.map_or(String::new(), |k| {
                    format!("; closest: the probe won beside {k} other move(s)")
                });
                format!("no witness in {attempts} attempts ({seconds:.1} s{near})")
            }
        }
    }
}

/// Searches a witness for every probe not proven inferior and writes each
/// one found into `dir` (atomically, as found: an interrupted search keeps
/// them, and probes with witness files already there are skipped).
pub fn find_all(
    file: &Path,
    region: &Region,
    probes: &[Probe],
    dir: &Path,
    limits: &SearchLimits,
    progress: &dyn SearchProgress,
) -> Result<Vec<(String, Found)>, WitnessError> {
    std::fs::create_dir_all(dir).map_err(|source| WitnessError::Folder {
        path: dir.to_path_buf(),
        source,
    })?;
    let stem = file
        .file_stem()
        .map_or("template".into(), |s| s.to_string_lossy().into_owned());
    let name = file
        .file_name()
        .map_or(stem.clone(), |s| s.to_string_lossy().into_owned());
    let places = placements(region, limits.max_side)?;
    let mut analysts = Analysts(Vec::new());
    let mut out = Vec::new();
    for (x, probe) in probes.iter().enumerate() {
        if limits
            .probes
            .as_ref()
            .is_some_and(|only| !only.contains(&probe.cell))
        {
            continue;
        }
        let cell = probe.cell.clone();
        let (sgf, txt) = witness_paths(dir, &stem, &cell);
        let found = if probe.is_inferior() {
            Found::Inferior
        } else if sgf.exists() {
            Found::Kept(sgf)
        } else {
            progress.probe(&cell, limits.attempts);
            let start = Instant::now();
            let w = search(region, &places, x, limits, &mut analysts, progress);
            progress.done();
            match w {
                Ok(w) => {
                    write_atomically(&txt, w.diagram(&name, &cell).as_bytes())?;
                    write_atomically(&sgf, w.sgf(&name, &cell).as_bytes())?;
                    Found::Written(sgf, w)
                }
                Err((made, closest)) => {
                    Found::Missing(made, start.elapsed().as_secs_f64(), closest)
                }
            }
        };
        out.push((cell, found));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::committed::committed;
    use super::*;

    #[test]
    fn the_descent_finds_a_witness_one_pair_of_moves_away() {
        // Lift a White and a Black stone outside the template from one of
        // the ziggurat's witnesses: where the probe still wins and White's
        // other winning moves are all outside, among them the lifted White
        // stone, one step of the descent (White plays it back, Black
        // answers) must reach a witness again; a descent of no steps
        // must find none there.
        let mut analysts = Analysts(Vec::new());
        let mut descended = Vec::new();
        for w in committed()
            .iter()
            .filter(|w| w.file.starts_with("ziggurat-"))
        {
            let p = &w.fits[0];
            let probe = p.carrier[w.x];
            let analyst = analysts.get(p.dims);
            let mut viability = Viability::default();
            let mut viable = |s: &CellLists| viability.check(p, s, w.x);
            let outside = |colour: usize| -> Vec<usize> {
                let mut v = w.stones[colour].clone();
                v.retain(|c| !p.covered.contains(c));
                v
            };
            'pairs: for m in outside(WHITE) {
                for n in outside(BLACK) {
                    let mut before = w.stones.clone();
                    before[WHITE].retain(|&c| c != m);
                    before[BLACK].retain(|&c| c != n);
                    let bound = CARRIER_WEIGHT - 1;
                    let Some(r) = rivals(p, analyst, &before, probe, CARRIER_WEIGHT, bound) else {
                        continue;
                    };
                    if !r.outside.contains(&m) {
                        continue;
                    }
                    let others = &r.outside;
                    assert_eq!(
                        descend(p, analyst, &before, others, probe, 0, &mut viable),
                        None
                    );
                    let found = descend(p, analyst, &before, others, probe, 1, &mut viable)
                        .unwrap_or_else(|| panic!("{}: no line back from {before:?}", w.file));
                    assert_eq!(
                        white_winning_moves(analyst, &found),
                        Some(vec![probe]),
                        "{}",
                        w.file
                    );
                    descended.push(w.cell.clone());
                    break 'pairs;
                }
            }
        }
        assert_eq!(descended, ["c", "d", "f"]);
    }
}
