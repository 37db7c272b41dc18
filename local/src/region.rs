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
use crate::form::{Arena, GameId};
use crate::poset::{Atom, Connection, Poset};

/// Empty cells a region may have: the expansion keys positions by 64-bit
/// masks.
pub const MAX_EMPTY: usize = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cell {
    Empty,
    Black(Option<u8>),
    White,
}

/// A region: its cells (those of the diagram that are not `-`), their
/// stones and terminals.
#[derive(Clone, Debug)]
pub struct Region {
    poset: Poset,
    terminals: u8,
    /// Per cell (row, column) as in the diagram.
    coords: Vec<(usize, usize)>,
    /// Neighbour lists by cell index.
    neighbours: Vec<Vec<usize>>,
    cells: Vec<Cell>,
    /// Cell index of each empty cell; bit i of a position mask is empty[i].
    empty: Vec<usize>,
    /// Bit of each cell in position masks (empty cells only).
    bit: Vec<Option<u8>>,
    names: Vec<String>,
}

/// A position as the game it is: its empty cells, and the black groups
/// (terminals merged) that touch two or more of them or hold terminals, as
/// (empty cells touched, terminals held). White stones and the black
/// stones' shapes no longer matter (Demer and Selinger, Remark 2.2), so
/// positions with equal keys have equal forms.
type Key = (u64, Box<[(u64, u8)]>);

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
                    return Err(err(line_no, format!("'{tok}' is not one cell ({ACCEPTED})")));
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
                                return Err(err(line_no, format!("cell name '{ch}' is used twice")));
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
        let neighbours = coords
            .iter()
            .map(|&(r, c)| {
                let (r, c) = (r as isize, c as isize);
                [(r - 1, c), (r - 1, c + 1), (r, c - 1), (r, c + 1), (r + 1, c - 1), (r + 1, c)]
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
        Ok(Region {
            bit,
            poset,
            terminals,
            coords,
            neighbours,
            cells,
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

    /// The terminals joined when the empty cells of `black` (a mask over
    /// the empty cells) are black and the others white.
    pub fn connection(&self, black: u64) -> Connection {
        let mut is_black: Vec<bool> = self.cells.iter().map(|c| matches!(c, Cell::Black(_))).collect();
        for (i, &cell) in self.empty.iter().enumerate() {
            if black >> i & 1 == 1 {
                is_black[cell] = true;
            }
        }
        // Component label of every black cell; terminals join their stones.
        let mut comp = vec![usize::MAX; self.cells.len()];
        let mut terminal_comp = [usize::MAX; 3];
        let mut stack = Vec::new();
        for start in 0..self.cells.len() {
            if !is_black[start] || comp[start] != usize::MAX {
                continue;
            }
            comp[start] = start;
            stack.push(start);
            while let Some(x) = stack.pop() {
                for &y in &self.neighbours[x] {
                    if is_black[y] && comp[y] == usize::MAX {
                        comp[y] = start;
                        stack.push(y);
                    }
                }
            }
        }
        // Stones of one terminal are joined outside the region: merge.
        let mut parent: Vec<usize> = (0..self.cells.len()).collect();
        fn find(p: &mut [usize], mut x: usize) -> usize {
            while p[x] != x {
                p[x] = p[p[x]];
                x = p[x];
            }
            x
        }
        for (i, cell) in self.cells.iter().enumerate() {
            if let Cell::Black(Some(t)) = cell {
                let t = *t as usize;
                if terminal_comp[t] == usize::MAX {
                    terminal_comp[t] = comp[i];
                } else {
                    let (a, b) = (find(&mut parent, terminal_comp[t]), find(&mut parent, comp[i]));
                    parent[a] = b;
                }
            }
        }
        let mut joined = |x: usize, y: usize| {
            let (a, b) = (terminal_comp[x], terminal_comp[y]);
            find(&mut parent, a) == find(&mut parent, b)
        };
        if self.terminals == 2 {
            return if joined(0, 1) { Connection::All } else { Connection::None };
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
        let start = Instant::now();
        let mut table = Table::default();
        let value = self.expand(arena, 0, 0, canonical, &mut table);
        RegionValue {
            value,
            positions: table.positions.len(),
            games: table.games.len(),
            seconds: start.elapsed().as_secs_f64(),
        }
    }

    /// The empty cells (as a mask) whose colour can matter in no
    /// completion: cells whose neighbours are pairwise adjacent once black
    /// stones are contracted and white ones deleted, so that any black path
    /// through the cell has a shortcut. Found repeatedly, since filling one
    /// can make another dead. Filling them white leaves the value as it is
    /// (the tests compare with the full expansion).
    fn reduce(&self, black: u64, white: u64) -> (u64, Key) {
        let n = self.cells.len();
        // Black component of each black cell (terminal stones merged).
        let mut colour = vec![0u8; n]; // 0 empty, 1 black, 2 white
        for (i, c) in self.cells.iter().enumerate() {
            colour[i] = match c {
                Cell::Empty => 0,
                Cell::Black(_) => 1,
                Cell::White => 2,
            };
        }
        for (i, &cell) in self.empty.iter().enumerate() {
            if black >> i & 1 == 1 {
                colour[cell] = 1;
            } else if white >> i & 1 == 1 {
                colour[cell] = 2;
            }
        }
        let comp = self.black_components(&colour);
        let mut dead = 0u64;
        loop {
            let mut changed = false;
            for (i, &v) in self.empty.iter().enumerate() {
                if colour[v] != 0 {
                    continue;
                }
                if self.is_dead(v, &colour, &comp) {
                    colour[v] = 2;
                    dead |= 1 << i;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let free = self.free_mask() & !(black | white | dead);
        (dead, (free, self.groups(&colour, &comp)))
    }

    fn free_mask(&self) -> u64 {
        if self.empty.len() == 64 { u64::MAX } else { (1u64 << self.empty.len()) - 1 }
    }

    /// The black groups of a [`Key`], sorted.
    fn groups(&self, colour: &[u8], comp: &[usize]) -> Box<[(u64, u8)]> {
        let mut by_label: FxHashMap<usize, (u64, u8)> = FxHashMap::default();
        for (x, &c) in colour.iter().enumerate() {
            if c != 1 {
                continue;
            }
            let entry = by_label.entry(comp[x]).or_default();
            if let Cell::Black(Some(t)) = self.cells[x] {
                entry.1 |= 1 << t;
            }
            for &y in &self.neighbours[x] {
                if colour[y] == 0 {
                    entry.0 |= 1 << self.bit[y].expect("an empty cell has a bit");
                }
            }
        }
        let mut groups: Vec<(u64, u8)> = by_label
            .into_values()
            .filter(|&(touched, terms)| terms != 0 || touched.count_ones() >= 2)
            .collect();
        groups.sort_unstable();
        groups.into_boxed_slice()
    }

    /// Each black cell's component; stones of one terminal share one.
    fn black_components(&self, colour: &[u8]) -> Vec<usize> {
        let n = self.cells.len();
        let mut comp = vec![usize::MAX; n];
        let mut terminal_root = [usize::MAX; 3];
        let mut stack = Vec::new();
        for start in 0..n {
            if colour[start] != 1 || comp[start] != usize::MAX {
                continue;
            }
            let label = match self.cells[start] {
                Cell::Black(Some(t)) if terminal_root[t as usize] != usize::MAX => terminal_root[t as usize],
                _ => start,
            };
            comp[start] = label;
            stack.push(start);
            while let Some(x) = stack.pop() {
                if let Cell::Black(Some(t)) = self.cells[x] {
                    terminal_root[t as usize] = label;
                }
                for &y in &self.neighbours[x] {
                    if colour[y] == 1 && comp[y] == usize::MAX {
                        comp[y] = label;
                        stack.push(y);
                    }
                }
            }
        }
        // A terminal's later stones may have started components of their
        // own before meeting its first: relabel through terminal roots.
        for x in 0..n {
            if let Cell::Black(Some(t)) = self.cells[x] {
                let root = terminal_root[t as usize];
                let old = comp[x];
                if old != root {
                    for c in comp.iter_mut() {
                        if *c == old {
                            *c = root;
                        }
                    }
                }
            }
        }
        comp
    }

    /// An empty cell is dead when its contracted neighbours (empty cells
    /// and black components) are pairwise adjacent: at most one black
    /// component, every empty neighbour touching it, and the empty
    /// neighbours pairwise adjacent directly or through a component.
    fn is_dead(&self, v: usize, colour: &[u8], comp: &[usize]) -> bool {
        let mut component = usize::MAX;
        let mut empties: Vec<usize> = Vec::new();
        for &y in &self.neighbours[v] {
            match colour[y] {
                1 => {
                    if component != usize::MAX && component != comp[y] {
                        return false;
                    }
                    component = comp[y];
                }
                0 => empties.push(y),
                _ => {}
            }
        }
        let touches = |u: usize, c: usize| {
            self.neighbours[u].iter().any(|&z| colour[z] == 1 && comp[z] == c)
        };
        let adjacent = |u: usize, w: usize| {
            self.neighbours[u].contains(&w)
                || self.neighbours[u]
                    .iter()
                    .any(|&z| colour[z] == 1 && z != v && touches(w, comp[z]))
        };
        if component != usize::MAX && !empties.iter().all(|&u| touches(u, component)) {
            return false;
        }
        for (i, &u) in empties.iter().enumerate() {
            for &w in &empties[i + 1..] {
                if !adjacent(u, w) {
                    return false;
                }
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
    ) -> GameId {
        if let Some(&g) = table.positions.get(&(black, white)) {
            return g;
        }
        let (white_now, key) = if canonical {
            let (dead, key) = self.reduce(black, white);
            if let Some(&g) = table.games.get(&key) {
                table.positions.insert((black, white), g);
                return g;
            }
            (white | dead, Some(key))
        } else {
            (white, None)
        };
        let free = self.free_mask() & !(black | white_now);
        let g = if free == 0 {
            arena.atom(self.outcome(black))
        } else if canonical && self.outcome(black) == self.outcome(black | free) {
            arena.atom(self.outcome(black))
        } else {
            let mut left = Vec::new();
            let mut right = Vec::new();
            let mut rest = free;
            while rest != 0 {
                let bit = rest & rest.wrapping_neg();
                rest &= rest - 1;
                left.push(self.expand(arena, black | bit, white_now, canonical, table));
                right.push(self.expand(arena, black, white_now | bit, canonical, table));
            }
            if canonical {
                arena.simplify(left, right)
            } else {
                arena.composite(left, right).expect("a free cell gives both players a move")
            }
        };
        table.positions.insert((black, white), g);
        if let Some(key) = key {
            table.games.insert(key, g);
        }
        g
    }
}
