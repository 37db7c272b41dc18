//! The PONE search: does the owner have a pure strategy that wins against
//! every play of the opponent? An OR over the owner's moves, an AND over
//! what the hidden board and the opponent allow (the move finds an empty
//! cell or a hidden stone; the opponent's turn collides or not, places
//! anywhere consistent).
//!
//! Pruning and sharing, each sound (they never change an answer):
//! - A knowledge state is won or lost whatever history led to it (see
//!   `knowledge`), so results are shared through a transposition table.
//! - The 180-degree rotation maps each player's sides to themselves, so a
//!   state and its image have the same answer; the table stores one of them.
//! - An OR node stops at its first winning move and an AND node at its
//!   first losing branch; move order changes only the time taken.
//! - A state no hidden configuration fits cannot arise and is won vacuously.
//!
//! The answer, the strategy and the count of states do not depend on the
//! threads: a state is always solved in its table orientation, so the
//! winning move kept for it is the first in the fixed move order whichever
//! thread (and whichever orientation) met it first, and the states
//! searched are counted as table entries.

use std::sync::Mutex;

use rustc_hash::FxHashMap;

use super::knowledge::{Heard, Hearing, Knowledge, Rules, Worlds};

/// A state's answer, moves in the table key's orientation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Entry {
    Won(u8),
    Lost,
    /// No hidden configuration fits: the state never arises.
    Impossible,
}

const SHARDS: usize = 64;

/// A PONE search for one player of one game, with its table.
pub struct Search {
    pub rules: Rules,
    shards: Vec<Mutex<FxHashMap<Knowledge, Entry>>>,
    order: Vec<u8>,
}

impl Search {
    pub fn new(rules: Rules) -> Search {
        // Central cells first: they take part in more chains.
        let dims = rules.geometry.dims;
        let (rows, cols) = (dims.rows() as f64, dims.cols() as f64);
        let mut order: Vec<u8> = (0..dims.cells() as u8).collect();
        let distance = |c: u8| {
            let (r, q) = dims.row_col(c as usize);
            // Hex distance from the centre in axial coordinates.
            let (dr, dq) = (r as f64 - (rows - 1.0) / 2.0, q as f64 - (cols - 1.0) / 2.0);
            (dr.abs() + dq.abs() + (dr + dq).abs()) / 2.0
        };
        order.sort_by(|&a, &b| distance(a).total_cmp(&distance(b)).then(a.cmp(&b)));
        Search {
            rules,
            shards: (0..SHARDS)
                .map(|_| Mutex::new(FxHashMap::default()))
                .collect(),
            order,
        }
    }

    /// Distinct knowledge states evaluated so far (a state and its
    /// rotation count once). Counted from the table, not from the calls of
    /// the search: threads that meet a state at the same time both solve
    /// it, and that must not change the figure a run reports.
    pub fn states(&self) -> u64 {
        self.shards
            .iter()
            .map(|s| s.lock().unwrap_or_else(|e| e.into_inner()).len() as u64)
            .sum()
    }

    /// Bytes the table holds (entries and control bytes; the hash maps
    /// allocate by capacity).
    pub fn memory_bytes(&self) -> usize {
        self.shards
            .iter()
            .map(|s| {
                let cap = s.lock().unwrap_or_else(|e| e.into_inner()).capacity();
                cap * (size_of::<(Knowledge, Entry)>() + 1)
            })
            .sum()
    }

    fn shard(&self, k: &Knowledge) -> &Mutex<FxHashMap<Knowledge, Entry>> {
        let h = k.own.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ k.seen.rotate_left(17)
            ^ u64::from(k.hidden_max);
        &self.shards[(h >> 58) as usize % SHARDS]
    }

    fn canonical(&self, k: &Knowledge) -> (Knowledge, bool) {
        let r = k.rotated(&self.rules.geometry);
        if r < *k { (r, true) } else { (*k, false) }
    }

    fn entry(&self, k: &Knowledge) -> Entry {
        let (key, rotated) = self.canonical(k);
        let known = self
            .shard(&key)
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
            .copied();
        let turn = |e: Entry| match e {
            Entry::Won(c) if rotated => {
                Entry::Won(self.rules.geometry.dims.rotate180(c as usize) as u8)
            }
            e => e,
        };
        let stored = match known {
            Some(e) => e,
            None => {
                // The key is solved, never `k` itself: which of a state and
                // its rotation a thread meets first must not decide which
                // winning move is kept (the move order is not symmetric).
                let found = self.solve(&key);
                self.shard(&key)
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(key, found);
                found
            }
        };
        // Rotation is its own inverse.
        turn(stored)
    }

    /// The winning move from `k`, if the owner wins with probability one.
    pub fn winning_move(&self, k: &Knowledge) -> Option<usize> {
        match self.entry(k) {
            Entry::Won(c) => Some(c as usize),
            _ => None,
        }
    }

    /// Whether the owner wins from `k` with probability one (or `k` cannot arise).
    pub fn wins(&self, k: &Knowledge) -> bool {
        self.entry(k) != Entry::Lost
    }

    fn solve(&self, k: &Knowledge) -> Entry {
        let worlds = k.worlds(&self.rules);
        if worlds.sets.is_empty() {
            return Entry::Impossible;
        }
        let free = k.free(&self.rules);
        self.order
            .iter()
            .map(|&c| c as usize)
            .filter(|&c| free >> c & 1 == 1)
            .find(|&c| self.move_wins(k, &worlds, c))
            .map_or(Entry::Lost, |c| Entry::Won(c as u8))
    }

    /// Whether playing `cell` wins whatever it meets.
    pub fn move_wins(&self, k: &Knowledge, worlds: &Worlds, cell: usize) -> bool {
        let rules = &self.rules;
        let bit = 1u64 << cell;
        if worlds.intersection & bit == 0 {
            let own = k.own | bit;
            if rules.geometry.connected(own, rules.owner) {
                if rules.misere {
                    return false;
                }
            } else {
                if !self.opponent_turn_wins(&k.after_own(cell, false), &worlds.placing(bit)) {
                    return false;
                }
            }
        }
        if worlds.union & bit != 0 {
            let after = k.after_own(cell, true);
            let ok = if rules.abrupt {
                self.opponent_turn_wins(&after, &worlds.hitting(bit))
            } else {
                self.wins(&after)
            };
            if !ok {
                return false;
            }
        }
        true
    }

    /// The ways the opponent's turn from `k` (with hidden configurations
    /// `worlds`) can go, as the owner perceives them; `None` if the opponent
    /// can win in one of them.
    pub fn opponent_branches(&self, k: &Knowledge, worlds: &[u64]) -> Option<Vec<Heard>> {
        let rules = &self.rules;
        let g = &rules.geometry;
        let free = k.free(rules);
        let mut can_place = false;
        for &h in worlds {
            let empty = free & !h;
            let joins = g.joining_cells(k.seen | h, empty, rules.opponent());
            if joins != 0 && !rules.misere {
                return None;
            }
            // In Rex a joining placement loses for the opponent: only the
            // others continue the game.
            can_place |= empty & !joins != 0;
        }
        let placement = |count: u8, cells: u64| Heard {
            placed: true,
            count,
            cells,
        };
        let collision = |count: u8, cells: u64| Heard {
            placed: false,
            count,
            cells,
        };
        let left = k.collisions_left(rules);
        let mut out = Vec::new();
        match (rules.abrupt, rules.hearing) {
            (false, Hearing::Nothing) => {
                if can_place {
                    out.push(placement(0, 0));
                }
            }
            (false, Hearing::Count) => {
                if can_place {
                    out.extend((0..=left as u8).map(|j| placement(j, 0)));
                }
            }
            (false, Hearing::Cells) => {
                if can_place {
                    let unfound = k.unfound(rules);
                    let mut s = unfound;
                    loop {
                        out.push(placement(0, s));
                        if s == 0 {
                            break;
                        }
                        s = (s - 1) & unfound;
                    }
                }
            }
            (true, Hearing::Nothing) => {
                // A collision needs a world in which the opponent has not yet
                // run into every stone of the owner.
                let own = k.own.count_ones();
                let can_collide = worlds
                    .iter()
                    .any(|h| u32::from(k.hidden_max) - h.count_ones() < own);
                if can_place || can_collide {
                    out.push(placement(0, 0));
                }
            }
            (true, Hearing::Count) => {
                if can_place {
                    out.push(placement(0, 0));
                }
                if left > 0 {
                    out.push(collision(1, 0));
                }
            }
            (true, Hearing::Cells) => {
                if can_place {
                    out.push(placement(0, 0));
                }
                let unfound = k.unfound(rules);
                out.extend(
                    (0..64)
                        .filter(|c| unfound >> c & 1 == 1)
                        .map(|c| collision(0, 1 << c)),
                );
            }
        }
        Some(out)
    }

    fn opponent_turn_wins(&self, k: &Knowledge, worlds: &[u64]) -> bool {
        match self.opponent_branches(k, worlds) {
            None => false,
            Some(branches) => branches
                .iter()
                .all(|&heard| self.wins(&k.after_opponent(&self.rules, heard))),
        }
    }
}
