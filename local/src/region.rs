//! Hex regions read from a text diagram, and their game forms.
//!
//! The diagram: one board row a line, one cell a token, tokens apart by
//! spaces (leading spaces are ignored, so rows may be indented to look like
//! Hex). Row r, token c is cell (r, c), whose neighbours are (r-1, c),
//! (r-1, c+1), (r, c-1), (r, c+1), (r+1, c-1), (r+1, c), as on darkhex
//! boards. Tokens: `.` or a lowercase letter (a named cell) is empty, `1`
//! `2` `3` is a black stone of that terminal, `B` a black stone of no
//! terminal, `W` a white stone, `-` no cell. `#` starts a comment; a line
//! `poset NAME` (boolean, p3, corner, fork) chooses the outcome poset,
//! by default boolean for 2 terminals and p3 for 3.

use std::time::Instant;

use rustc_hash::FxHashMap;

use crate::LocalError;
use crate::expansion::{self, Limits, SizeEstimate, unlimited};
use crate::form::{Arena, GameId, table_bytes};
use crate::poset::{Atom, Connection, Poset};

/// The six cells next to (row, column) on a Hex board, some perhaps off it.
pub fn hex_neighbours(r: isize, c: isize) -> [(isize, isize); 6] {
    [
        (r - 1, c),
        (r - 1, c + 1),
        (r, c - 1),
        (r, c + 1),
        (r + 1, c - 1),
        (r + 1, c),
    ]
}

/// Empty cells a region may have: the expansion keys positions by 64-bit
/// masks.
pub const MAX_EMPTY: usize = 64;

/// Memory a region's expansion holds per position of its estimate
/// ([`Region::estimate`]): the tables of positions and of reduced
/// positions, the forms, the allocator's share. Its peak resident memory
/// over the estimate was 32 to 53 bytes on parallelograms of 18 and 20
/// cells between two or three terminals (3.4 GB for 33 million positions
/// stored, 3.9 GB for 59 million), 26 to 72 on those of 15 and 16 cells
/// and local/regions/three-15.region.
pub const BYTES_PER_ESTIMATED_POSITION: f64 = 56.0;

/// Cells a region may have, stones included: positions are 128-bit masks.
pub const MAX_CELLS: usize = 128;

/// What a cell of a region's diagram holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    Empty,
    /// A black stone, of terminal 0, 1 or 2 (the diagram's 1, 2, 3) or of
    /// none.
    Black(Option<u8>),
    White,
}

/// A region: its cells (those of the diagram that are not `-`), their
/// stones and terminals.
#[derive(Clone, Debug)]
pub struct Region {
    poset: Poset,
    pub(crate) terminals: u8,
    /// Per cell (row, column) as in the diagram.
    pub(crate) coords: Vec<(usize, usize)>,
    /// Cell index of each empty cell; bit i of a position mask is empty[i].
    pub(crate) empty: Vec<usize>,
    /// Bit of each cell in position masks (empty cells only).
    bit: Vec<Option<u8>>,
    /// Neighbours of each cell, as masks over the cells.
    pub(crate) nb: Vec<u128>,
    /// The black stones, and each terminal's stones, as masks.
    pub(crate) fixed_black: u128,
    pub(crate) term: [u128; 3],
    names: Vec<String>,
}

/// A position as the game it is: its empty cells, and the black groups
/// (terminals merged) that touch two or more of them or hold terminals, as
/// (empty cells touched, terminals held). White stones and the black
/// stones' shapes no longer matter (Demer and Selinger, Remark 2.2), so
/// positions with equal keys have equal forms.
type Key = (u128, Box<[(u128, u8)]>);

/// The game form of a region and what building it took.
#[derive(Clone, Debug)]
pub struct RegionValue {
    pub value: GameId,
    /// Positions expanded (distinct by their stones).
    pub positions: usize,
    /// Distinct reduced positions (keys) among them, when built canonically.
    pub games: usize,
    pub seconds: f64,
}

/// The transposition tables: positions by their stones, and forms by the
/// reduced position.
#[derive(Default)]
struct Table {
    positions: FxHashMap<(u64, u64), GameId>,
    games: FxHashMap<Key, GameId>,
    /// Bytes of the keys' group lists.
    key_bytes: u64,
}

const ACCEPTED: &str = "accepted: . or a-z (empty), 1 2 3 (black terminal stone), B (black stone), W (white stone), - (no cell)";

impl Region {
    /// Reads a diagram; the error names the line and what is accepted.
    pub fn parse(text: &str) -> Result<Self, LocalError> {
        let err = |line: usize, msg: String| LocalError::Region(format!("line {line}: {msg}"));
        let mut poset_name: Option<String> = None;
        let mut grid: Vec<Vec<(char, usize)>> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line_no = i + 1;
            let line = raw.split('#').next().unwrap_or_default().trim();
            if line.is_empty() {
                continue;
            }
            if let Some(rest) = line.strip_prefix("poset") {
                let name = rest.trim();
                if poset_name.is_some() {
                    return Err(err(line_no, "a second 'poset' line".into()));
                }
                Poset::by_name(name).map_err(|e| err(line_no, e.to_string()))?;
                poset_name = Some(name.to_string());
                continue;
            }
            let mut row = Vec::new();
            for tok in line.split_whitespace() {
                let mut chars = tok.chars();
                let (Some(ch), None) = (chars.next(), chars.next()) else {
                    return Err(err(
                        line_no,
                        format!("'{tok}' is not one cell ({ACCEPTED})"),
                    ));
                };
                if !(ch == '.' || ch.is_ascii_lowercase() || "123BW-".contains(ch)) {
                    return Err(err(line_no, format!("'{ch}' is not a cell ({ACCEPTED})")));
                }
                row.push((ch, line_no));
            }
            grid.push(row);
        }
        let mut coords = Vec::new();
        let mut cells = Vec::new();
        let mut names = Vec::new();
        let mut empty = Vec::new();
        let mut index = FxHashMap::default();
        let mut used_terminals = [false; 3];
        for (r, row) in grid.iter().enumerate() {
            for (c, &(ch, line_no)) in row.iter().enumerate() {
                let cell = match ch {
                    '-' => continue,
                    'B' => Cell::Black(None),
                    'W' => Cell::White,
                    '1'..='3' => {
                        let t = ch as u8 - b'1';
                        used_terminals[t as usize] = true;
                        Cell::Black(Some(t))
                    }
                    _ => {
                        let name = if ch == '.' {
                            format!("{}{}", (b'a' + (c % 26) as u8) as char, r + 1)
                        } else {
                            if names.iter().any(|n: &String| n == &ch.to_string()) {
                                return Err(err(
                                    line_no,
                                    format!("cell name '{ch}' is used twice"),
                                ));
                            }
                            ch.to_string()
                        };
                        empty.push(cells.len());
                        names.push(name);
                        Cell::Empty
                    }
                };
                index.insert((r, c), cells.len());
                coords.push((r, c));
                cells.push(cell);
            }
        }
        let terminals = match used_terminals {
            [true, true, false] => 2,
            [true, true, true] => 3,
            _ => {
                return Err(LocalError::Region(
                    "the black terminals must be 1 and 2, or 1, 2 and 3 (stones labelled 1, 2, 3)"
                        .into(),
                ));
            }
        };
        if cells.len() > MAX_CELLS {
            return Err(LocalError::Region(format!(
                "{} cells (stones and empty cells): at most {MAX_CELLS}",
                cells.len()
            )));
        }
        if empty.len() > MAX_EMPTY {
            return Err(LocalError::Region(format!(
                "{} empty cells: at most {MAX_EMPTY}",
                empty.len()
            )));
        }
        let poset = match (poset_name.as_deref(), terminals) {
            (None, 2) | (Some("boolean"), 2) => Poset::boolean(),
            (None, _) => Poset::p3(),
            (Some("boolean"), _) => {
                return Err(LocalError::Region(
                    "poset boolean is for 2 terminals; this region has 3".into(),
                ));
            }
            (Some(name), 3) => Poset::by_name(name)?,
            (Some(name), _) => {
                return Err(LocalError::Region(format!(
                    "poset {name} is for 3 terminals; this region has 2"
                )));
            }
        };
        let neighbours: Vec<Vec<usize>> = coords
            .iter()
            .map(|&(r, c)| {
                let (r, c) = (r as isize, c as isize);
                hex_neighbours(r, c)
                    .into_iter()
                    .filter(|&(rr, cc)| rr >= 0 && cc >= 0)
                    .filter_map(|(rr, cc)| index.get(&(rr as usize, cc as usize)).copied())
                    .collect()
            })
            .collect();
        let mut bit = vec![None; cells.len()];
        for (i, &cell) in empty.iter().enumerate() {
            bit[cell] = Some(i as u8);
        }
        let mask = |f: &dyn Fn(&Cell) -> bool| {
            cells
                .iter()
                .enumerate()
                .filter(|(_, c)| f(c))
                .fold(0u128, |m, (i, _)| m | 1u128 << i)
        };
        let fixed_black = mask(&|c| matches!(c, Cell::Black(_)));
        let term = [0u8, 1, 2].map(|t| mask(&|c| *c == Cell::Black(Some(t))));
        let nb = neighbours
            .iter()
            .map(|ns: &Vec<usize>| ns.iter().fold(0u128, |m, &y| m | 1u128 << y))
            .collect();
        Ok(Region {
            bit,
            nb,
            fixed_black,
            term,
            poset,
            terminals,
            coords,
            empty,
            names,
        })
    }

    pub fn poset(&self) -> &Poset {
        &self.poset
    }

    pub fn terminals(&self) -> u8 {
        self.terminals
    }

    /// Empty cells, in the diagram's reading order.
    pub fn empty_cells(&self) -> usize {
        self.empty.len()
    }

    /// The empty cells' names: their letter, or column letter and row
    /// number for `.` cells.
    pub fn cell_names(&self) -> &[String] {
        &self.names
    }

    /// (row, column) of each cell of the region.
    pub fn coords(&self) -> &[(usize, usize)] {
        &self.coords
    }

    /// Every cell of the region with its (row, column) in the diagram and
    /// what it holds, in reading order (empty cells in the order of
    /// [`Region::cell_names`]).
    pub fn cells(&self) -> Vec<((usize, usize), Cell)> {
        self.coords
            .iter()
            .enumerate()
            .map(|(i, &pos)| {
                let bit = 1u128 << i;
                let cell = if self.bit[i].is_some() {
                    Cell::Empty
                } else if self.fixed_black & bit != 0 {
                    Cell::Black((0..3u8).find(|&t| self.term[t as usize] & bit != 0))
                } else {
                    Cell::White
                };
                (pos, cell)
            })
            .collect()
    }

    /// The terminals joined when the empty cells of `black` (a mask over
    /// the empty cells) are black and the others white.
    pub fn connection(&self, black: u64) -> Connection {
        self.connection_of(self.black_cells(black))
    }

    /// The cells (as a mask over all cells) that are black.
    fn black_cells(&self, black: u64) -> u128 {
        self.fixed_black | self.cells_of(black)
    }

    /// Cells (a mask over all cells) of a mask over the empty cells.
    pub(crate) fn cells_of(&self, mut bits: u64) -> u128 {
        let mut cells = 0u128;
        while bits != 0 {
            cells |= 1u128 << self.empty[bits.trailing_zeros() as usize];
            bits &= bits - 1;
        }
        cells
    }

    fn neighbours_of(&self, mut set: u128) -> u128 {
        let mut out = 0u128;
        while set != 0 {
            out |= self.nb[set.trailing_zeros() as usize];
            set &= set - 1;
        }
        out
    }

    /// The cells of `within` joined to `seed` through `within`.
    pub(crate) fn flood(&self, seed: u128, within: u128) -> u128 {
        let mut reach = seed & within;
        let mut frontier = reach;
        while frontier != 0 {
            let new = self.neighbours_of(frontier) & within & !reach;
            reach |= new;
            frontier = new;
        }
        reach
    }

    fn connection_of(&self, black: u128) -> Connection {
        let joined = |x: usize, y: usize| self.flood(self.term[x], black) & self.term[y] != 0;
        if self.terminals == 2 {
            return if joined(0, 1) {
                Connection::All
            } else {
                Connection::None
            };
        }
        match (joined(1, 2), joined(0, 2), joined(0, 1)) {
            (true, true, _) | (true, _, true) | (_, true, true) => Connection::All,
            (true, false, false) => Connection::A,
            (false, true, false) => Connection::B,
            (false, false, true) => Connection::C,
            (false, false, false) => Connection::None,
        }
    }

    fn outcome(&self, black: u64) -> Atom {
        self.poset.of_connection(self.connection(black))
    }

    /// A fresh arena over the region's poset.
    pub fn arena(&self) -> Arena {
        Arena::new(self.poset.clone())
    }

    /// The region's game form in `arena` (over [`Region::poset`]).
    /// With `canonical`, each position's form is reduced to canonical form
    /// as it is built and a position whose outcome no move can change is
    /// its atom; without, the full game tree's form (a check of the first).
    pub fn value(&self, arena: &mut Arena, canonical: bool) -> RegionValue {
        unlimited(self.value_within(arena, canonical, &Limits::default()))
    }

    /// [`Region::value`], reporting progress and stopping with
    /// [`LocalError::OverLimit`] past the limits' memory.
    pub fn value_within(
        &self,
        arena: &mut Arena,
        canonical: bool,
        limits: &Limits,
    ) -> Result<RegionValue, LocalError> {
        let start = Instant::now();
        let mut table = Table::default();
        let value = self.expand(arena, 0, 0, canonical, &mut table, limits)?;
        Ok(RegionValue {
            value,
            positions: table.positions.len(),
            games: table.games.len(),
            seconds: start.elapsed().as_secs_f64(),
        })
    }

    /// What [`Region::value`] (canonical) will store, estimated before it
    /// starts by random walks that fill dead cells as the expansion does
    /// (see [`crate::expansion`]). The expansion also merges positions
    /// with equal reduced forms, which the walks cannot see: on
    /// local/regions and on parallelograms of 6 to 18 cells between two
    /// or three terminals it stored 0.28 to 1.01 times the estimate (0.46
    /// to 0.51 at 18 cells), the least on strips two cells wide.
    pub fn estimate(&self) -> SizeEstimate {
        let (positions, std_error) = expansion::estimate(
            self.empty.len(),
            |black, white| self.settled(black, white),
            |black, white| self.reduce(black, white).0,
        );
        SizeEstimate {
            positions,
            std_error,
            bytes: positions * BYTES_PER_ESTIMATED_POSITION,
        }
    }

    /// Whether no move can change the outcome: the canonical expansion
    /// makes such a position its atom.
    fn settled(&self, black: u64, white: u64) -> bool {
        let free = self.free_mask() & !(black | white);
        free == 0 || self.outcome(black) == self.outcome(black | free)
    }

    /// The empty cells (as a mask) whose colour can matter in no
    /// completion, and the position's [`Key`] once they are filled. Dead
    /// cells are those whose neighbours are pairwise adjacent once black
    /// groups are contracted and white stones deleted, so that any black
    /// path through the cell has a shortcut; found repeatedly, since
    /// filling one can make another dead. Filling them white leaves the
    /// value as it is (the tests compare with the full expansion).
    fn reduce(&self, black: u64, white: u64) -> (u64, Key) {
        let black_cells = self.black_cells(black);
        let mut alive = self.cells_of(self.free_mask() & !(black | white));
        // Black groups (cells, terminals held), terminals' groups merged.
        let mut groups: Vec<(u128, u8)> = Vec::new();
        let mut rest = black_cells;
        while rest != 0 {
            let g = self.flood(rest & rest.wrapping_neg(), black_cells);
            rest &= !g;
            let terms = (0..3)
                .filter(|&t| self.term[t] & g != 0)
                .fold(0u8, |m, t| m | 1 << t);
            match groups.iter_mut().find(|(_, t)| t & terms != 0) {
                Some(entry) => {
                    entry.0 |= g;
                    entry.1 |= terms;
                }
                None => groups.push((g, terms)),
            }
        }
        // A group holding terminals 1 and 2 may have met 2's group and
        // 1's apart: merge until no two share a terminal.
        let mut i = 0;
        while i < groups.len() {
            let mut j = i + 1;
            while j < groups.len() {
                if groups[i].1 & groups[j].1 != 0 {
                    let (g, t) = groups.swap_remove(j);
                    groups[i].0 |= g;
                    groups[i].1 |= t;
                    j = i + 1;
                } else {
                    j += 1;
                }
            }
            i += 1;
        }
        let touch: Vec<u128> = groups.iter().map(|&(g, _)| self.neighbours_of(g)).collect();
        let mut dead = 0u64;
        loop {
            let mut changed = false;
            let mut candidates = alive;
            while candidates != 0 {
                let v = candidates.trailing_zeros() as usize;
                candidates &= candidates - 1;
                if self.is_dead(v, alive, &touch) {
                    alive &= !(1u128 << v);
                    dead |= 1 << self.bit[v].expect("an empty cell has a bit");
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let mut key_groups: Vec<(u128, u8)> = groups
            .iter()
            .zip(&touch)
            .map(|(&(_, terms), &t)| (t & alive, terms))
            .filter(|&(t, terms)| terms != 0 || t.count_ones() >= 2)
            .collect();
        key_groups.sort_unstable();
        (dead, (alive, key_groups.into_boxed_slice()))
    }

    pub(crate) fn free_mask(&self) -> u64 {
        if self.empty.len() == 64 {
            u64::MAX
        } else {
            (1u64 << self.empty.len()) - 1
        }
    }

    /// An empty cell is dead when its contracted neighbours (empty cells
    /// and black groups) are pairwise adjacent: at most one group, every
    /// empty neighbour touching it, and the empty neighbours pairwise
    /// adjacent directly or through a group.
    fn is_dead(&self, v: usize, alive: u128, touch: &[u128]) -> bool {
        let bit = 1u128 << v;
        let mut group = None;
        for (g, &t) in touch.iter().enumerate() {
            if t & bit != 0 {
                if group.is_some() {
                    return false;
                }
                group = Some(g);
            }
        }
        let direct = self.nb[v] & alive;
        if let Some(g) = group
            && direct & !touch[g] != 0
        {
            return false;
        }
        let mut rest = direct;
        while rest != 0 {
            let u = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let ubit = 1u128 << u;
            let mut adj = self.nb[u];
            for &t in touch {
                if t & ubit != 0 {
                    adj |= t;
                }
            }
            if rest & !adj != 0 {
                return false;
            }
        }
        true
    }

    fn expand(
        &self,
        arena: &mut Arena,
        black: u64,
        white: u64,
        canonical: bool,
        table: &mut Table,
        limits: &Limits,
    ) -> Result<GameId, LocalError> {
        if let Some(&g) = table.positions.get(&(black, white)) {
            return Ok(g);
        }
        let (white_now, key) = if canonical {
            let (dead, key) = self.reduce(black, white);
            if let Some(&g) = table.games.get(&key) {
                table.store(black, white, g, arena, limits)?;
                return Ok(g);
            }
            (white | dead, Some(key))
        } else {
            (white, None)
        };
        let free = self.free_mask() & !(black | white_now);
        let settled = if canonical {
            self.settled(black, white_now)
        } else {
            free == 0
        };
        let g = if settled {
            arena.atom(self.outcome(black))
        } else {
            let mut left = Vec::new();
            let mut right = Vec::new();
            let mut rest = free;
            while rest != 0 {
                let bit = rest & rest.wrapping_neg();
                rest &= rest - 1;
                left.push(self.expand(arena, black | bit, white_now, canonical, table, limits)?);
                right.push(self.expand(arena, black, white_now | bit, canonical, table, limits)?);
            }
            if canonical {
                arena.simplify(left, right)
            } else {
                arena
                    .composite(left, right)
                    .expect("a free cell gives both players a move")
            }
        };
        if let Some(key) = key {
            table.key_bytes += std::mem::size_of_val(&*key.1) as u64;
            table.games.insert(key, g);
        }
        table.store(black, white, g, arena, limits)?;
        Ok(g)
    }
}

impl Table {
    /// Stores a position's form (see [`Limits::stored`]).
    fn store(
        &mut self,
        black: u64,
        white: u64,
        g: GameId,
        arena: &Arena,
        limits: &Limits,
    ) -> Result<(), LocalError> {
        self.positions.insert((black, white), g);
        limits.stored(self.positions.len(), arena, || {
            table_bytes::<((u64, u64), GameId)>(self.positions.capacity())
                + table_bytes::<(Key, GameId)>(self.games.capacity())
                + self.key_bytes
        })
    }
}
