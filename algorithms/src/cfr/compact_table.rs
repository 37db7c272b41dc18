//! Regret and average-policy tables keyed by information-state keys packed
//! into one integer ([`super::compact_mccfr`]'s): they grow with the states
//! met, hold no strings, and look a key up with one hash of a word. The
//! same table is each worker's update buffer for a batch, cleared between
//! batches without giving back its memory.

use std::hash::BuildHasher;
use std::ops::Range;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;
use serde::{Deserialize, Serialize};

/// A packed key: see [`super::compact_mccfr`] for the layouts.
pub type Key = u128;

/// Information states in insertion order, each with a regret and an
/// average-policy weight per legal action. The hash index holds each key
/// and its slots itself: a lookup then costs the cache misses of its
/// control bytes and its entry, not those of the key and offset arrays as
/// well. It is rebuilt after loading.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct CompactTable {
    keys: Vec<Key>,
    /// One past each state's last slot.
    ends: Vec<u32>,
    /// For an update table: where each state's slots start in the table
    /// the updates go to, when the walk found it there ([`NOT_FOUND`] if not).
    #[serde(skip)]
    hints: Vec<u32>,
    pub regrets: Vec<f64>,
    pub average: Vec<f64>,
    #[serde(skip)]
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
    fn new(key: Key, slots: &Range<usize>) -> Self {
        Entry {
            key: split(key),
            start: slots.start as u32,
            len: slots.len() as u32,
        }
    }

    fn slots(&self) -> Range<usize> {
        self.start as usize..(self.start + self.len) as usize
    }
}

#[inline(always)]
fn split(key: Key) -> [u64; 2] {
    [key as u64, (key >> 64) as u64]
}

#[inline(always)]
fn join(key: [u64; 2]) -> Key {
    Key::from(key[0]) | Key::from(key[1]) << 64
}

/// A hint for a state not in the table.
pub const NOT_FOUND: u32 = u32::MAX;

impl PartialEq for CompactTable {
    fn eq(&self, other: &Self) -> bool {
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        self.keys == other.keys
            && self.ends == other.ends
            && bits(&self.regrets) == bits(&other.regrets)
            && bits(&self.average) == bits(&other.average)
    }
}

#[inline(always)]
fn hash(key: Key) -> u64 {
    FxBuildHasher.hash_one(key)
}

impl CompactTable {
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    pub fn key(&self, i: usize) -> Key {
        self.keys[i]
    }

    pub fn slots(&self, i: usize) -> Range<usize> {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        start..self.ends[i] as usize
    }

    /// Bytes held, index included (its control bytes and entries).
    pub fn memory_bytes(&self) -> usize {
        self.keys.capacity() * size_of::<Key>()
            + self.ends.capacity() * 4
            + (self.regrets.capacity() + self.average.capacity()) * 8
            + self.index.capacity() * (size_of::<Entry>() + 1)
            + self.hints.capacity() * 4
    }

    /// The state's slots, if the table has it.
    #[inline]
    pub fn find(&self, key: Key) -> Option<Range<usize>> {
        let words = split(key);
        self.index
            .find(hash(key), |e| e.key == words)
            .map(Entry::slots)
    }

    /// The state's slots, added with zero weights for `actions` actions if
    /// new; `hint` is where the updates go to (see [`Self::add`]).
    #[inline]
    pub fn find_or_insert(&mut self, key: Key, actions: usize, hint: u32) -> Range<usize> {
        if let Some(slots) = self.find(key) {
            return slots;
        }
        let start = self.regrets.len();
        let slots = start..start + actions;
        self.keys.push(key);
        self.ends.push(slots.end as u32);
        self.hints.push(hint);
        self.regrets.resize(slots.end, 0.0);
        self.average.resize(slots.end, 0.0);
        self.index
            .insert_unique(hash(key), Entry::new(key, &slots), |e| hash(join(e.key)));
        slots
    }

    /// Adds another table's weights into this one, state by state in the
    /// other's insertion order; where the other names the slots here (its
    /// hints), without looking the key up again.
    pub fn add(&mut self, other: &CompactTable) {
        for j in 0..other.len() {
            let theirs = other.slots(j);
            let mine = match other.hints.get(j) {
                Some(&start) if start != NOT_FOUND => start as usize..start as usize + theirs.len(),
                _ => self.find_or_insert(other.keys[j], theirs.len(), NOT_FOUND),
            };
            for (a, b) in self.regrets[mine.clone()]
                .iter_mut()
                .zip(&other.regrets[theirs.clone()])
            {
                *a += b;
            }
            for (a, b) in self.average[mine].iter_mut().zip(&other.average[theirs]) {
                *a += b;
            }
        }
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

    /// Checks a table read from a file (offsets ascending within the
    /// arrays, each key once) and rebuilds its index; `actions` says how
    /// many actions a key has, or why the key is not one.
    pub fn restore(
        &mut self,
        actions: impl Fn(Key) -> Result<usize, String>,
    ) -> Result<(), String> {
        let n = self.regrets.len();
        if self.ends.len() != self.keys.len() || self.average.len() != n {
            return Err(format!(
                "{} keys, {} offsets, {} regrets and {} average weights",
                self.keys.len(),
                self.ends.len(),
                n,
                self.average.len()
            ));
        }
        let mut index = HashTable::with_capacity(self.keys.len());
        let mut start = 0;
        for (&key, &end) in self.keys.iter().zip(&self.ends) {
            let expected = actions(key)?;
            if end as usize != start + expected || end as usize > n {
                return Err(format!(
                    "a state of {expected} actions has slots {start} to {end} of {n}"
                ));
            }
            let slots = start..end as usize;
            start = end as usize;
            if index
                .find(hash(key), |e: &Entry| e.key == split(key))
                .is_some()
            {
                return Err("an information state appears twice".into());
            }
            index.insert_unique(hash(key), Entry::new(key, &slots), |e| hash(join(e.key)));
        }
        if start != n {
            return Err(format!("{n} slots, {start} of them used"));
        }
        self.index = index;
        Ok(())
    }
}
