//! Each player's observation sequences as a tree of dense rows.
//!
//! Row 0 is the empty sequence; the children of a row are numbered
//! consecutively, ordered by symbol, and rows are numbered breadth first,
//! so the numbering depends only on the game. A row stores the set of its
//! children's symbols as a 64-bit mask and its first child, so the child
//! under symbol `s` is `first_child + popcount(mask & (2^s - 1))`: a walk
//! carries each player's current row down and moves it in constant time
//! when a move shows the player something.
//!
//! Rows at which the player moves in some history are decision rows (the
//! information states); their actions own consecutive slots, the unit of
//! policy and payoff arrays. Slot `k` is sequence `k + 1`; sequence 0 is
//! the empty one.

use std::ops::Range;

use darkhex_games::{Action, NUM_PLAYERS, Token};

use super::estimate::TablesEstimate;
use crate::memory::MemoryLimit;

use super::walkable::NO_SYMBOL;

/// Marks a row not entered by its player's own move.
pub(crate) const NOT_OWN: u8 = u8::MAX;

/// What a table build reports as it goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BuildProgress {
    pub player: usize,
    /// Observations in the rows being expanded (the merging builder), or 0.
    pub depth: usize,
    pub rows: u64,
    /// Histories counted so far for this player.
    pub histories: u64,
}

#[derive(Default)]
pub struct BuildOptions<'a> {
    pub progress: Option<&'a (dyn Fn(BuildProgress) + Sync)>,
    /// The memory guard: [`super::build_tables`] refuses tables estimated
    /// past it before building, and a build stops with
    /// [`StreamError::TablesTooLarge`] once it holds more (its rows, and the
    /// merged histories of the rows waiting); `None`: no limit.
    pub limit: Option<MemoryLimit>,
    /// An estimate of the tables made already (by a caller that checked
    /// what it will hold beside them), used instead of making another.
    pub estimate: Option<TablesEstimate>,
    /// Raised by the caller to end the build early
    /// ([`StreamError::Stopped`]): a page closed, a Ctrl-C.
    pub stop: Option<&'a std::sync::atomic::AtomicBool>,
}

/// One row's hot fields: what a walk reads at every step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct Row {
    pub mask: u64,
    pub first_child: u32,
    pub slot_start: u32,
}

impl Row {
    /// The child row under `symbol`, which a walk knows to exist.
    #[inline(always)]
    pub fn child(&self, symbol: u8) -> u32 {
        let bit = 1u64 << symbol;
        debug_assert!(self.mask & bit != 0, "a walk steps only to rows that exist");
        self.first_child + (self.mask & (bit - 1)).count_ones()
    }
}

/// A table in canonical order before its masks and sequences are derived.
#[derive(Clone, Debug, Default)]
pub(crate) struct RawTable {
    pub parent: Vec<u32>,
    pub symbol: Vec<u8>,
    /// The index of the player's own action at the parent row that shows
    /// this row's symbol, or [`NOT_OWN`].
    pub own: Vec<u8>,
    /// Actions of row `r`: `actions[action_start[r]..action_start[r + 1]]`.
    pub action_start: Vec<u32>,
    pub actions: Vec<Action>,
}

impl RawTable {
    pub fn with_root() -> Self {
        RawTable {
            parent: vec![u32::MAX],
            symbol: vec![NO_SYMBOL],
            own: vec![NOT_OWN],
            action_start: vec![0],
            actions: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.parent.len()
    }
}

/// One player's rows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlayerTable {
    /// One per row and a sentinel whose `slot_start` is the number of slots.
    rows: Vec<Row>,
    parent: Vec<u32>,
    symbol: Vec<u8>,
    /// The player's last sequence before each row (0: none).
    parent_seq: Vec<u32>,
    /// The action of each slot.
    actions: Vec<Action>,
    decision_rows: usize,
}

impl PlayerTable {
    pub(crate) fn freeze(raw: RawTable) -> PlayerTable {
        let n = raw.len();
        let mut rows = crate::huge_pages::filled(n + 1, Row::default());
        for r in 1..n {
            let q = raw.parent[r] as usize;
            if rows[q].mask == 0 {
                rows[q].first_child = r as u32;
            }
            debug_assert_eq!(
                rows[q].first_child + rows[q].mask.count_ones(),
                r as u32,
                "children are consecutive"
            );
            rows[q].mask |= 1 << raw.symbol[r];
        }
        let mut decision_rows = 0;
        for (r, row) in rows.iter_mut().enumerate() {
            row.slot_start = raw.action_start[r.min(n)];
            if r < n && raw.action_start[r + 1] > raw.action_start[r] {
                decision_rows += 1;
            }
        }
        let mut parent_seq = vec![0u32; n];
        for r in 1..n {
            let q = raw.parent[r] as usize;
            parent_seq[r] = match raw.own[r] {
                NOT_OWN => parent_seq[q],
                i => raw.action_start[q] + i as u32 + 1,
            };
        }
        PlayerTable {
            rows,
            parent: raw.parent,
            symbol: raw.symbol,
            parent_seq,
            actions: raw.actions,
            decision_rows,
        }
    }

    /// Rows, the empty sequence included.
    pub fn num_rows(&self) -> usize {
        self.parent.len()
    }

    /// Information states at which the player moves.
    pub fn num_decision_rows(&self) -> usize {
        self.decision_rows
    }

    /// (information state, action) pairs: sequences other than the empty one.
    pub fn num_slots(&self) -> usize {
        self.actions.len()
    }

    #[inline]
    pub fn row(&self, row: u32) -> &Row {
        &self.rows[row as usize]
    }

    /// Every row's hot fields, and the sentinel: for walks that step rows
    /// in their innermost loop.
    #[inline]
    pub(crate) fn rows(&self) -> &[Row] {
        &self.rows
    }

    /// Where a row's hot fields are, for prefetching (any row number:
    /// the pointer is not read).
    #[inline]
    pub fn row_ptr(&self, row: u32) -> *const Row {
        self.rows.as_ptr().wrapping_add(row as usize)
    }

    /// The child of `row` under `symbol`, if some history shows it.
    #[inline]
    pub fn child(&self, row: u32, symbol: u8) -> Option<u32> {
        let r = &self.rows[row as usize];
        let bit = 1u64 << symbol;
        (symbol != NO_SYMBOL && r.mask & bit != 0)
            .then(|| r.first_child + (r.mask & (bit - 1)).count_ones())
    }

    /// The child of `row` under `symbol`, which a walk knows to exist.
    #[inline]
    pub fn step(&self, row: u32, symbol: u8) -> u32 {
        self.rows[row as usize].child(symbol)
    }

    #[inline]
    pub fn slots(&self, row: u32) -> Range<usize> {
        self.rows[row as usize].slot_start as usize..self.rows[row as usize + 1].slot_start as usize
    }

    pub fn is_decision(&self, row: u32) -> bool {
        !self.slots(row).is_empty()
    }

    /// The legal actions at a decision row (empty elsewhere).
    pub fn actions(&self, row: u32) -> &[Action] {
        &self.actions[self.slots(row)]
    }

    pub fn slot_action(&self, slot: usize) -> Action {
        self.actions[slot]
    }

    /// The row before the last observation (`None` for the empty sequence).
    pub fn parent(&self, row: u32) -> Option<u32> {
        (row > 0).then(|| self.parent[row as usize])
    }

    pub fn symbol(&self, row: u32) -> u8 {
        self.symbol[row as usize]
    }

    /// The player's last sequence before the row: 0 for none, else slot + 1.
    pub fn parent_seq(&self, row: u32) -> u32 {
        self.parent_seq[row as usize]
    }

    /// Decision rows, ascending.
    pub fn decision_rows(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.num_rows() as u32).filter(|&r| self.is_decision(r))
    }

    pub fn memory_bytes(&self) -> usize {
        self.rows.len() * size_of::<Row>()
            + self.parent.len() * (4 + 1 + 4)
            + self.actions.len() * size_of::<Action>()
    }
}

/// Both players' tables for one game, and what the build counted.
#[derive(Clone, Debug, PartialEq)]
pub struct InfoStateTables {
    game: String,
    alphabet: Vec<Token>,
    players: [PlayerTable; NUM_PLAYERS],
    histories: u64,
    terminals: u64,
}

impl InfoStateTables {
    pub(crate) fn new(
        game: String,
        alphabet: Vec<Token>,
        players: [PlayerTable; NUM_PLAYERS],
        histories: u64,
        terminals: u64,
    ) -> Self {
        InfoStateTables {
            game,
            alphabet,
            players,
            histories,
            terminals,
        }
    }

    pub fn game(&self) -> &str {
        &self.game
    }

    pub fn alphabet(&self) -> &[Token] {
        &self.alphabet
    }

    #[inline]
    pub fn player(&self, p: usize) -> &PlayerTable {
        &self.players[p]
    }

    /// Both players' decision rows: the information states a policy is
    /// asked at.
    pub fn num_decision_rows(&self) -> u64 {
        self.players
            .iter()
            .map(|t| t.num_decision_rows() as u64)
            .sum()
    }

    /// Every history of the game: decision, chance and terminal nodes.
    pub fn histories(&self) -> u64 {
        self.histories
    }

    pub fn terminals(&self) -> u64 {
        self.terminals
    }

    pub fn symbol_of(&self, token: Token) -> Option<u8> {
        self.alphabet.binary_search(&token).ok().map(|s| s as u8)
    }

    /// The row of an information-state key, if some history reaches it.
    pub fn row_of_key(&self, player: usize, key: &[Token]) -> Option<u32> {
        key.iter().try_fold(0u32, |row, &t| {
            self.players[player].child(row, self.symbol_of(t)?)
        })
    }

    /// The information-state key of a row.
    pub fn key_of_row(&self, player: usize, mut row: u32) -> Vec<Token> {
        let table = &self.players[player];
        let mut key = Vec::new();
        while let Some(parent) = table.parent(row) {
            key.push(self.alphabet[table.symbol(row) as usize]);
            row = parent;
        }
        key.reverse();
        key
    }

    pub fn memory_bytes(&self) -> usize {
        self.players.iter().map(PlayerTable::memory_bytes).sum()
    }
}
