//! Captured sets proved by a small local search, for sets too large for
//! the captured-pair rule: the carriers of a player's 4-3-2 edge templates.
//!
//! Definition (Henderson and Hayward, "Probing the 4-3-2 edge template in
//! Hex", section 2): a set C is P-captured if P has a second-player
//! strategy inside C that leaves each cell of C dead or P's; C can then be
//! filled in for P without changing any value. [`is_captured`] searches for
//! such a strategy: every opponent move in C gets a P reply in C, and when
//! C is full each opponent cell in it must be dead, recoloured to P one at
//! a time (a dead cell's colour changes no value, so each step keeps the
//! value and the end is C all P's).
//!
//! The dead test at the leaves sees only a window around C (C and two rings
//! of neighbours): stones outside it are left out, so groups that join
//! outside count as apart and more cells look alive. That makes the test
//! stricter, never wrong, and makes the answer a function of the window,
//! which [`CaptureCache`] keys on.
//!
//! Example (found by Benzene's fill-in patterns, and here by search): on
//! 7x7 after Black b4, White c2, White's 4-3-2 from c2 to her west side in
//! the acute corner, {c1 b1 b2 b3 a1 a2 a3 a4}, is White-captured: Black's
//! b4 leaves every Black probe there dead after White's reply.

use std::collections::HashMap;

use darkhex_games::board::{BLACK, WHITE};
use darkhex_games::{CellSet, Geometry};

use super::position::Stones;

/// Searches through more than this many states of the set count as not
/// captured.
const MAX_NODES: u32 = 5_000;

/// A cache this full starts again (about 40 bytes an entry).
const CACHE_ENTRIES: usize = 1 << 20;

/// The 4-3-2 carriers of `player`'s stones on the third row from one of
/// the player's sides whose cells are all empty and hold an acute corner.
/// Carriers elsewhere are captured too at times, but filling them made the
/// 8x8 searches larger (the filled boards cost H-search more), where the
/// corner ones save positions on 7x7 and cost nothing on 8x8.
///
/// Frame: row 0 is the side's own row, the stone S sits on row 2 at column
/// a; the template's eight cells are one cell beside S on row 2, three on
/// row 1 and four on row 0, leaning left or right.
pub fn template_carriers<const W: usize>(
    geom: &Geometry<W>,
    stones: &Stones<W>,
    player: usize,
) -> Vec<CellSet<W>> {
    const LEFT: [(isize, isize); 8] = [
        (2, -1),
        (1, -1),
        (1, 0),
        (1, 1),
        (0, -1),
        (0, 0),
        (0, 1),
        (0, 2),
    ];
    const RIGHT: [(isize, isize); 8] = [
        (2, 1),
        (1, 0),
        (1, 1),
        (1, 2),
        (0, 0),
        (0, 1),
        (0, 2),
        (0, 3),
    ];
    let dims = geom.dims();
    let (rows, cols) = (dims.rows() as isize, dims.cols() as isize);
    // Black's rows run away from the north side; White's columns from the west.
    let (depth, along) = if player == BLACK {
        (rows, cols)
    } else {
        (cols, rows)
    };
    if depth < 3 {
        return Vec::new();
    }
    let empty = geom.all() - stones[0] - stones[1];
    let corners = CellSet::single(0).with(geom.cells() - 1);
    let mut out = Vec::new();
    for far in [false, true] {
        let cell = |r: isize, a: isize| -> Option<usize> {
            if !(0..depth).contains(&r) || !(0..along).contains(&a) {
                return None;
            }
            let (r, a) = if far {
                (depth - 1 - r, along - 1 - a)
            } else {
                (r, a)
            };
            let (row, col) = if player == BLACK { (r, a) } else { (a, r) };
            Some(dims.cell(row as usize, col as usize))
        };
        for a in 0..along {
            let Some(s) = cell(2, a) else { continue };
            if !stones[player].contains(s) {
                continue;
            }
            for shape in [&LEFT, &RIGHT] {
                let carrier: Option<CellSet<W>> = shape
                    .iter()
                    .map(|&(dr, da)| cell(dr, a + da).filter(|&c| empty.contains(c)))
                    .collect();
                if let Some(c) = carrier.filter(|c| c.intersects(&corners)) {
                    out.push(c);
                }
            }
        }
    }
    out
}

/// Answers of [`is_captured`] already found, by what they depend on: the
/// player, the set and the stones in the set's window.
#[derive(Default)]
pub struct CaptureCache<const W: usize> {
    known: HashMap<(usize, CellSet<W>, CellSet<W>, CellSet<W>), bool>,
}

impl<const W: usize> CaptureCache<W> {
    pub fn new() -> Self {
        CaptureCache {
            known: HashMap::new(),
        }
    }
}

/// Whether the empty cells `set` are captured by `player` (see the module
/// comment), seen through the set's window.
pub fn is_captured<const W: usize>(
    geom: &Geometry<W>,
    stones: &Stones<W>,
    player: usize,
    set: CellSet<W>,
    cache: &mut CaptureCache<W>,
) -> bool {
    let window = geom.dilate(geom.dilate(set));
    let local = [stones[0] & window, stones[1] & window];
    let key = (player, set, local[0], local[1]);
    if let Some(&known) = cache.known.get(&key) {
        return known;
    }
    if cache.known.len() >= CACHE_ENTRIES {
        cache.known.clear();
    }
    let mut search = Search {
        geom,
        player,
        nodes: 0,
        seen: HashMap::new(),
    };
    let found = search.answers(&local, set, CellSet::EMPTY) == Some(true);
    cache.known.insert(key, found);
    found
}

struct Search<'a, const W: usize> {
    geom: &'a Geometry<W>,
    player: usize,
    nodes: u32,
    seen: HashMap<(CellSet<W>, CellSet<W>), bool>,
}

impl<const W: usize> Search<'_, W> {
    /// Whether the player answers every opponent move in `left` (the empty
    /// cells of the set) so that the opponent's cells `theirs` of the set
    /// end dead; `None` when the search grew too large.
    fn answers(
        &mut self,
        stones: &Stones<W>,
        left: CellSet<W>,
        theirs: CellSet<W>,
    ) -> Option<bool> {
        // Move orders meet again: the state is which cells of the set are
        // still empty and which are the opponent's.
        if let Some(&known) = self.seen.get(&(left, theirs)) {
            return Some(known);
        }
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return None;
        }
        let answer = self.answers_afresh(stones, left, theirs)?;
        self.seen.insert((left, theirs), answer);
        Some(answer)
    }

    fn answers_afresh(
        &mut self,
        stones: &Stones<W>,
        left: CellSet<W>,
        theirs: CellSet<W>,
    ) -> Option<bool> {
        let p = self.player;
        for o in left.iter() {
            let mut after = *stones;
            after[1 - p].insert(o);
            let rest = left.without(o);
            let theirs = theirs.with(o);
            let held = if rest.is_empty() {
                self.all_dead(&after, theirs)
            } else {
                let mut any = false;
                // Replies next to the probe first: they are the ones that
                // usually kill it.
                let near = self.geom.adjacent(o) & rest;
                for r in near.iter().chain((rest - near).iter()) {
                    let mut reply = after;
                    reply[p].insert(r);
                    if self.answers(&reply, rest.without(r), theirs)? {
                        any = true;
                        break;
                    }
                }
                any
            };
            if !held {
                return Some(false);
            }
        }
        if left.is_empty() {
            return Some(self.all_dead(stones, theirs));
        }
        Some(true)
    }

    /// Whether the opponent's cells `theirs` can be recoloured to the
    /// player one at a time, each dead when it is recoloured.
    fn all_dead(&self, stones: &Stones<W>, theirs: CellSet<W>) -> bool {
        let p = self.player;
        let mut board = *stones;
        let mut left = theirs;
        while !left.is_empty() {
            let mut moved = false;
            for x in left.iter() {
                let mut open = board;
                open[1 - p].remove(x);
                if self.dead(&open, x) {
                    board = open;
                    board[p].insert(x);
                    left.remove(x);
                    moved = true;
                }
            }
            if !moved {
                return false;
            }
        }
        true
    }

    /// The empty `cell` is simplicial in either player's graph of the
    /// window (the test of `inferior::is_simplicial`, for one cell: only the groups
    /// it touches are flooded).
    fn dead(&self, stones: &Stones<W>, cell: usize) -> bool {
        let geom = self.geom;
        // Every cell the test reads (the cell's neighbours and theirs) is
        // inside the window, where the stones are the real ones.
        let empty = geom.all() - stones[0] - stones[1];
        let near = geom.adjacent(cell) & empty;
        [BLACK, WHITE].into_iter().any(|q| {
            let own = stones[q];
            let sides = geom.sides(q);
            // A side's group: the side with every group touching it.
            let side_groups = sides.map(|side| (geom.flood(side & own, own), side));
            let stone_group = |a: usize| {
                side_groups
                    .into_iter()
                    .find(|(g, _)| g.contains(a))
                    .unwrap_or((geom.flood(CellSet::single(a), own), CellSet::EMPTY))
            };
            let touching = side_groups
                .into_iter()
                .filter(|(_, side)| side.contains(cell))
                .chain((geom.adjacent(cell) & own).iter().map(stone_group));
            let mut group: Option<(CellSet<W>, CellSet<W>)> = None;
            for (g, side) in touching {
                match group {
                    None => group = Some((g, side)),
                    Some(known) if known == (g, side) => {}
                    Some(_) => return false,
                }
            }
            match group {
                Some((g, side)) => near.is_subset(&((geom.neighbours(g) | side) & empty)),
                None => near
                    .iter()
                    .all(|e| near.without(e).is_subset(&geom.adjacent(e))),
            }
        })
    }
}
