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
/// average-policy weight per legal action; the hash index refers to them
/// by position and is rebuilt after loading.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct CompactTable {
    keys: Vec<Key>,
    /// One past each state's last slot.
    ends: Vec<u32>,
    pub regrets: Vec<f64>,
    pub average: Vec<f64>,
    #[serde(skip)]
    index: HashTable<u32>,
}

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
            + self.index.capacity() * (size_of::<u32>() + 1)
    }

    #[inline]
    pub fn find(&self, key: Key) -> Option<usize> {
        self.index
            .find(hash(key), |&i| self.keys[i as usize] == key)
            .map(|&i| i as usize)
    }

    /// The state's slots, added with zero weights for `actions` actions if new.
    #[inline]
    pub fn find_or_insert(&mut self, key: Key, actions: usize) -> Range<usize> {
        if let Some(i) = self.find(key) {
            return self.slots(i);
        }
        let i = self.keys.len();
        let start = self.regrets.len();
        self.keys.push(key);
        self.ends.push((start + actions) as u32);
        self.regrets.resize(start + actions, 0.0);
        self.average.resize(start + actions, 0.0);
        let keys = &self.keys;
        self.index
            .insert_unique(hash(key), i as u32, |&j| hash(keys[j as usize]));
        start..start + actions
    }

    /// Adds another table's weights into this one, state by state in the
    /// other's insertion order.
    pub fn add(&mut self, other: &CompactTable) {
        for j in 0..other.len() {
            let theirs = other.slots(j);
            let mine = self.find_or_insert(other.keys[j], theirs.len());
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
        for (i, (&key, &end)) in self.keys.iter().zip(&self.ends).enumerate() {
            let expected = actions(key)?;
            if end as usize != start + expected || end as usize > n {
                return Err(format!(
                    "a state of {expected} actions has slots {start} to {end} of {n}"
                ));
            }
            start = end as usize;
            let keys = &self.keys;
            if index
                .find(hash(key), |&j| keys[j as usize] == key)
                .is_some()
            {
                return Err("an information state appears twice".into());
            }
            index.insert_unique(hash(key), i as u32, |&j| hash(keys[j as usize]));
        }
        if start != n {
            return Err(format!("{n} slots, {start} of them used"));
        }
        self.index = index;
        Ok(())
    }
}
