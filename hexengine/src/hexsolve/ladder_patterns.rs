//! Ladders along a side, as full connections between two cells.
//!
//! A cell X a few rows from one of a player's sides and a cell Y on the
//! second row further along it are joined when the player can make a chain
//! between them or bring both to that side: the side is the player's, so
//! either joins X's chain to Y's. In the band between them the opponent's
//! every cut is answered by the second-row ladder or by a step to the side.
//! H-search cannot see this (it never combines two connections through a
//! side, and each end alone reaches the side only with cells the other
//! needs), yet with it a ladder stone gets to an escape that is joined to
//! Y from above. Benzene adds the same ladders from hand-drawn start and
//! end shapes (its "non-edge" VC patterns); here each is proved.
//!
//! The built-in table (`hexengine/data/ladder-patterns.txt`) was found by
//! [`find_ladder_patterns`]: for each row of X and each distance to Y, the
//! band between them holds the connection by exhaustive play
//! ([`super::check::ladder_holds`], the opponent first), and is cut down to
//! minimal carriers by dropping cells while it still holds (several orders
//! of dropping give the different ways round). A pattern is stated
//! relative to X along the side, so it holds wherever it fits: the proof
//! counted every cell outside the carrier as the opponent's, and a
//! placement needs every carrier cell on the board.

use std::sync::{Arc, OnceLock};

use darkhex_games::board::{BLACK, Dims, WHITE};
use darkhex_games::{CellSet, Geometry};

use super::check::ladder_holds;
use super::edge_patterns::{ByShape, EdgeFrame, per_board_shape};
use super::position::Stones;

/// The deepest row X is taken from (1 is the second row): deeper ladders
/// are rare, and their bands' games grow fast.
pub const LADDER_DEPTH: i8 = 3;

/// The farthest Y lies along the side from X: longer ladders take minutes
/// to prove (the bands' games grow about fivefold a cell).
pub const LADDER_REACH: i8 = 5;

/// A ladder connection: X at (depth, 0), Y at (1, reach), and the cells
/// that must not be the opponent's, each as (rows from the side, steps
/// along it from X).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LadderPattern {
    pub depth: i8,
    pub reach: i8,
    pub carrier: Vec<(i8, i8)>,
}

/// Local boards have at most this many 64-cell words.
const LOCAL_WORDS: usize = 2;
type LocalSet = CellSet<LOCAL_WORDS>;

/// A band of rows along Black's last row, long enough for the farthest
/// ladder with room for X's shape behind it.
struct Band {
    geom: Geometry<LOCAL_WORDS>,
    frame: EdgeFrame,
}

/// X's column on the band: room for the farthest ladder either way.
const X_ALONG: i8 = LADDER_REACH + LADDER_DEPTH + 2;

impl Band {
    fn new() -> Option<Band> {
        let along = 2 * X_ALONG as usize + 1;
        let dims = Dims::new("hex", LADDER_DEPTH as usize + 1, along).ok()?;
        let geom = Geometry::new(dims)?;
        let frame = EdgeFrame::new(dims, BLACK, 1);
        Some(Band { geom, frame })
    }

    fn cell(&self, (e, a): (i8, i8)) -> Option<usize> {
        self.frame.cell(e as isize, (X_ALONG + a) as isize)
    }

    fn rel(&self, cell: usize) -> (i8, i8) {
        let (e, a) = self.frame.coords(cell);
        (e as i8, a as i8 - X_ALONG)
    }

    fn holds(&self, x: usize, y: usize, carrier: LocalSet) -> bool {
        let ends = [LocalSet::single(x), LocalSet::single(y)];
        let none: Stones<LOCAL_WORDS> = [LocalSet::EMPTY; 2];
        ladder_holds(&self.geom, &none, BLACK, ends, 1, carrier, true)
    }

    /// The minimal carriers of the ladder from X at `depth` to Y at
    /// `reach`, if the band between them holds it.
    fn ladders(&self, depth: i8, reach: i8) -> Vec<LadderPattern> {
        let (Some(x), Some(y)) = (self.cell((depth, 0)), self.cell((1, reach))) else {
            return Vec::new();
        };
        if x == y || self.geom.adjacent(x).contains(y) {
            return Vec::new();
        }
        // The cone of cells between X and the side, a cell wider each
        // way, and the two rows next to the side from X's cone to past Y.
        let cone = (0..depth).flat_map(|e| (-(depth - e) - 1..=1).map(move |a| (e, a)));
        let (lo, hi) = (reach.min(0) - depth - 1, reach.max(0) + 1);
        let strip = (0..=1).flat_map(|e| (lo..=hi).map(move |a| (e, a)));
        let band: LocalSet = cone
            .chain(strip)
            .filter_map(|c| self.cell(c))
            .collect::<LocalSet>()
            .without(x)
            .without(y);
        if !self.holds(x, y, band) {
            return Vec::new();
        }
        // Dropping cells far from X first, near X first, and from the
        // side up: each order ends at a minimal carrier, and they differ
        // in which of X's ways down they keep.
        let cells: Vec<usize> = band.iter().collect();
        let key = |c: &usize| self.rel(*c);
        let mut orders: Vec<Vec<usize>> = Vec::new();
        let mut by_a = cells.clone();
        by_a.sort_by_key(|c| (key(c).1, key(c).0));
        orders.push(by_a.clone());
        by_a.reverse();
        orders.push(by_a);
        let mut by_e = cells;
        by_e.sort_by_key(|c| (key(c).0, key(c).1));
        orders.push(by_e.clone());
        by_e.reverse();
        orders.push(by_e);
        let mut found: Vec<LocalSet> = Vec::new();
        for order in orders {
            let mut carrier = band;
            for c in order {
                if self.holds(x, y, carrier.without(c)) {
                    carrier.remove(c);
                }
            }
            if !found.contains(&carrier) {
                found.push(carrier);
            }
        }
        found
            .into_iter()
            .map(|carrier| {
                let mut cells: Vec<(i8, i8)> = carrier.iter().map(|c| self.rel(c)).collect();
                cells.sort_unstable();
                LadderPattern {
                    depth,
                    reach,
                    carrier: cells,
                }
            })
            .collect()
    }
}

/// Every ladder pattern with Y at most `max_reach` cells along from X,
/// found and proved (slow: the bands' games grow about fivefold a cell;
/// the built-in table is made by `cargo run --release -p
/// darkhex-hexengine --example ladder_patterns`).
pub fn find_ladder_patterns(max_reach: i8, mut progress: impl FnMut(&str)) -> Vec<LadderPattern> {
    let Some(band) = Band::new() else {
        return Vec::new();
    };
    let mut all = Vec::new();
    for depth in 1..=LADDER_DEPTH {
        for dir in [1, -1] {
            for k in 0..=max_reach.min(LADDER_REACH) {
                let found = band.ladders(depth, dir * k);
                progress(&format!(
                    "depth {depth} reach {}: {} carriers",
                    dir * k,
                    found.len()
                ));
                // Once a distance fails, farther ones are not tried: the
                // stretch that failed lies on their way too, and their
                // proofs only get longer.
                if found.is_empty() && k >= 2 {
                    break;
                }
                all.extend(found);
            }
        }
    }
    all.sort();
    all.dedup();
    all
}

/// The built-in table (`hexengine/data/ladder-patterns.txt`), parsed once.
pub fn ladder_patterns() -> &'static [LadderPattern] {
    static TABLE: OnceLock<Vec<LadderPattern>> = OnceLock::new();
    TABLE.get_or_init(|| {
        parse_ladders(include_str!("../../data/ladder-patterns.txt"))
            .expect("the built-in ladder patterns parse (checked by the tests)")
    })
}

/// A line of a ladder file that does not read as a pattern.
#[derive(Debug, thiserror::Error)]
#[error("ladder pattern line {line}: {problem} (expected 'depth;reach;e,a e,a ...')")]
pub struct LadderError {
    pub line: usize,
    pub problem: String,
}

impl LadderPattern {
    /// `depth;reach;carrier`, cells as `e,a` apart by spaces.
    pub fn to_line(&self) -> String {
        let cells: Vec<String> = self
            .carrier
            .iter()
            .map(|(e, a)| format!("{e},{a}"))
            .collect();
        format!("{};{};{}", self.depth, self.reach, cells.join(" "))
    }

    /// Reads [`LadderPattern::to_line`]'s form; `line` numbers the errors.
    pub fn parse(text: &str, line: usize) -> Result<Self, LadderError> {
        let err = |problem: String| LadderError { line, problem };
        let number = |t: &str, range: std::ops::RangeInclusive<i8>| {
            t.trim()
                .parse::<i8>()
                .ok()
                .filter(|v| range.contains(v))
                .ok_or_else(|| err(format!("bad number '{t}'")))
        };
        let parts: Vec<&str> = text.split(';').collect();
        let [d, r, carrier] = parts[..] else {
            return Err(err(format!("{} fields, not 3", parts.len())));
        };
        let depth = number(d, 1..=LADDER_DEPTH)?;
        let reach = number(r, -LADDER_REACH..=LADDER_REACH)?;
        let mut cells = Vec::new();
        for t in carrier.split_whitespace() {
            let (e, a) = t
                .split_once(',')
                .ok_or_else(|| err(format!("bad cell '{t}'")))?;
            let e = number(e, 0..=depth)?;
            let a = number(a, -(LADDER_REACH + LADDER_DEPTH + 1)..=LADDER_REACH + 1)?;
            if (e, a) == (depth, 0) || (e, a) == (1, reach) {
                return Err(err(format!("the carrier holds an end, '{t}'")));
            }
            cells.push((e, a));
        }
        cells.sort_unstable();
        cells.dedup();
        Ok(LadderPattern {
            depth,
            reach,
            carrier: cells,
        })
    }
}

/// Every pattern of a text of lines (blank lines and `#` lines skipped).
pub fn parse_ladders(text: &str) -> Result<Vec<LadderPattern>, LadderError> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .map(|(i, l)| LadderPattern::parse(l, i + 1))
        .collect()
}

/// A ladder placed on one board: Y, the side, and the carrier, for X.
#[derive(Clone, Copy, Debug)]
struct Placed<const W: usize> {
    y: u16,
    side: u8,
    carrier: CellSet<W>,
}

/// The ladder patterns placed on one board, by player and X.
pub struct PlacedLadders<const W: usize> {
    cells: usize,
    index: Vec<Vec<Placed<W>>>,
}

impl<const W: usize> PlacedLadders<W> {
    pub fn new(geom: &Geometry<W>, patterns: &[LadderPattern]) -> Self {
        let mut placed = PlacedLadders {
            cells: geom.cells(),
            index: vec![Vec::new(); 2 * geom.cells()],
        };
        for p in patterns {
            placed.place(geom, p);
        }
        placed
    }

    /// The patterns placed on `geom`'s board, once per board shape for
    /// the life of the process.
    pub fn builtin(geom: &Geometry<W>) -> Arc<PlacedLadders<W>> {
        static PLACED: ByShape = OnceLock::new();
        per_board_shape(&PLACED, geom, || {
            PlacedLadders::new(geom, ladder_patterns())
        })
    }

    fn place(&mut self, geom: &Geometry<W>, p: &LadderPattern) {
        for player in [BLACK, WHITE] {
            for side in 0..2 {
                let frame = EdgeFrame::new(geom.dims(), player, side);
                let (_, along) = frame.depth_along();
                let at = |a0: isize, (e, a): (i8, i8)| frame.cell(e as isize, a0 + a as isize);
                for a0 in 0..along as isize {
                    let (Some(x), Some(y)) = (at(a0, (p.depth, 0)), at(a0, (1, p.reach))) else {
                        continue;
                    };
                    let Some(carrier) = p.carrier.iter().map(|&c| at(a0, c)).collect() else {
                        continue;
                    };
                    self.index[player * self.cells + x].push(Placed {
                        y: y as u16,
                        side: side as u8,
                        carrier,
                    });
                }
            }
        }
    }

    /// Every ladder from `x` that matches `stones` for `player`: Y, the
    /// side it runs along, and the carrier's empty cells.
    pub fn matches<'a>(
        &'a self,
        stones: &'a Stones<W>,
        player: usize,
        x: usize,
    ) -> impl Iterator<Item = (usize, usize, CellSet<W>)> + 'a {
        let theirs = stones[1 - player];
        self.index[player * self.cells + x]
            .iter()
            .filter(move |p| !theirs.contains(p.y as usize) && !p.carrier.intersects(&theirs))
            .map(move |p| (p.y as usize, p.side as usize, p.carrier - stones[player]))
    }

    /// Whether any ladder starts at `x` for `player`.
    pub fn starts_at(&self, player: usize, x: usize) -> bool {
        !self.index[player * self.cells + x].is_empty()
    }
}
