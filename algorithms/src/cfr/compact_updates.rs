//! A worker's regret and average-policy updates for one batch, keyed as
//! [`super::compact_table`] keys states: small, cleared between batches
//! without giving back its memory, and added into the run's table after
//! the batch ([`super::compact_table::CompactTable::add`]).

use std::ops::Range;

use hashbrown::HashTable;

use super::compact_table::{Key, hash, join, split};

/// Information states in insertion order, each with a regret and an
/// average-policy weight per legal action, and where the run's table holds
/// it when the walk found it there.
#[derive(Clone, Debug, Default)]
pub struct UpdateTable {
    pub(super) keys: Vec<Key>,
    /// One past each state's last slot.
    ends: Vec<u32>,
    /// Each state's slot in the run's table's rows of its width, when the
    /// walk found it there ([`NOT_FOUND`] if not).
    pub(super) hints: Vec<u32>,
    pub regrets: Vec<f64>,
    pub average: Vec<f64>,
    index: HashTable<Entry>,
}

/// A key in two words (8-byte aligned: 24 bytes an entry, not 32) and its slots.
#[derive(Clone, Copy, Debug)]
struct Entry {
    key: [u64; 2],
    start: u32,
    len: u32,
}

impl Entry {
    fn slots(&self) -> Range<usize> {
        self.start as usize..(self.start + self.len) as usize
    }
}

/// A hint for a state not in the run's table.
pub const NOT_FOUND: u32 = u32::MAX;

impl UpdateTable {
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    pub fn slots(&self, i: usize) -> Range<usize> {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        start..self.ends[i] as usize
    }

    /// Bytes held, index included (its control bytes and entries).
    pub fn memory_bytes(&self) -> usize {
        self.keys.capacity() * size_of::<Key>()
            + (self.ends.capacity() + self.hints.capacity()) * 4
            + (self.regrets.capacity() + self.average.capacity()) * 8
            + self.index.capacity() * (size_of::<Entry>() + 1)
    }

    /// The state's slots, added with zero weights for `actions` actions if
    /// new; `hint` is its slot in the run's table, or [`NOT_FOUND`].
    #[inline]
    pub fn find_or_insert(&mut self, key: Key, actions: usize, hint: u32) -> Range<usize> {
        let words = split(key);
        if let Some(e) = self.index.find(hash(key), |e| e.key == words) {
            return e.slots();
        }
        let start = self.regrets.len();
        let slots = start..start + actions;
        self.keys.push(key);
        self.ends.push(slots.end as u32);
        self.hints.push(hint);
        self.regrets.resize(slots.end, 0.0);
        self.average.resize(slots.end, 0.0);
        let entry = Entry {
            key: words,
            start: start as u32,
            len: actions as u32,
        };
        self.index
            .insert_unique(hash(key), entry, |e| hash(join(e.key)));
        slots
    }

    /// Empties the table, keeping its memory for the next batch.
    pub fn clear(&mut self) {
        self.keys.clear();
        self.ends.clear();
        self.hints.clear();
        self.regrets.clear();
        self.average.clear();
        self.index.clear();
    }
}
