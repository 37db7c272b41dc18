//! Regret and average-policy tables keyed by information-state key, for
//! solvers that run on the State API without compiling the game.

use std::hash::BuildHasher;

use darkhex_games::{Action, Token};
use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;
use serde::{Deserialize, Serialize};

/// Infosets in insertion order, each with its actions, a regret and an
/// average-policy weight per action. Keys are stored once; the hash index
/// refers to them by position and is rebuilt after loading.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct InfoTable {
    keys: Vec<Box<[Token]>>,
    action_start: Vec<u32>,
    actions: Vec<Action>,
    pub regrets: Vec<f64>,
    pub average: Vec<f64>,
    #[serde(skip)]
    index: HashTable<u32>,
    /// The tokens the keys hold, counted as they come (and again after
    /// loading) so that [`InfoTable::memory_bytes`], asked after every
    /// chunk of a run, need not walk the keys.
    #[serde(skip)]
    key_tokens: usize,
}

impl PartialEq for InfoTable {
    fn eq(&self, other: &Self) -> bool {
        self.keys == other.keys
            && self.action_start == other.action_start
            && self.actions == other.actions
            && self
                .regrets
                .iter()
                .map(|x| x.to_bits())
                .eq(other.regrets.iter().map(|x| x.to_bits()))
            && self
                .average
                .iter()
                .map(|x| x.to_bits())
                .eq(other.average.iter().map(|x| x.to_bits()))
    }
}

/// The hash every table uses for a key, computed once per visit.
pub fn key_hash(key: &[Token]) -> u64 {
    FxBuildHasher.hash_one(key)
}

impl InfoTable {
    /// Bytes held, index included: each key's own allocation (its tokens
    /// and the allocator's rounding, counted as 16 bytes) besides the
    /// arrays' capacities.
    pub fn memory_bytes(&self) -> usize {
        const ALLOCATION: usize = 16;
        let keys = self.key_tokens * size_of::<Token>() + self.keys.len() * ALLOCATION;
        keys + self.keys.capacity() * size_of::<Box<[Token]>>()
            + self.action_start.capacity() * size_of::<u32>()
            + self.actions.capacity() * size_of::<Action>()
            + (self.regrets.capacity() + self.average.capacity()) * size_of::<f64>()
            + self.index.capacity() * (size_of::<u32>() + 1)
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    pub fn key(&self, i: usize) -> &[Token] {
        &self.keys[i]
    }

    pub fn actions(&self, i: usize) -> &[Action] {
        &self.actions[self.slots(i)]
    }

    pub fn slots(&self, i: usize) -> std::ops::Range<usize> {
        let start = if i == 0 {
            0
        } else {
            self.action_start[i - 1] as usize
        };
        start..self.action_start[i] as usize
    }

    pub fn find(&self, hash: u64, key: &[Token]) -> Option<usize> {
        self.index
            .find(hash, |&i| &*self.keys[i as usize] == key)
            .map(|&i| i as usize)
    }

    /// The infoset's position, added with zero weights if new.
    pub fn find_or_insert(&mut self, hash: u64, key: &[Token], actions: &[Action]) -> usize {
        if let Some(i) = self.find(hash, key) {
            return i;
        }
        let i = self.keys.len();
        self.keys.push(key.into());
        self.key_tokens += key.len();
        self.actions.extend_from_slice(actions);
        self.action_start.push(self.actions.len() as u32);
        self.regrets.resize(self.actions.len(), 0.0);
        self.average.resize(self.actions.len(), 0.0);
        let keys = &self.keys;
        self.index
            .insert_unique(hash, i as u32, |&j| key_hash(&keys[j as usize]));
        i
    }

    /// Adds another table's weights into this one, infoset by infoset in the
    /// other's insertion order.
    pub fn add(&mut self, other: &InfoTable) {
        for j in 0..other.len() {
            let key = other.key(j);
            let i = self.find_or_insert(key_hash(key), key, other.actions(j));
            let (mine, theirs) = (self.slots(i), other.slots(j));
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

    /// Checks that a table read from a file holds together (each infoset's
    /// actions, regrets and weights where its offsets say, each key once),
    /// then rebuilds the hash index; the error says what is wrong.
    pub fn restore(&mut self) -> Result<(), String> {
        let n = self.actions.len();
        if self.action_start.len() != self.keys.len() {
            return Err(format!(
                "{} information states with {} action offsets",
                self.keys.len(),
                self.action_start.len()
            ));
        }
        let mut previous = 0;
        for &end in &self.action_start {
            if end as usize <= previous || end as usize > n {
                return Err(format!(
                    "action offsets {previous} then {end} over {n} actions"
                ));
            }
            previous = end as usize;
        }
        if previous != n || self.regrets.len() != n || self.average.len() != n {
            return Err(format!(
                "{n} actions, {} regrets and {} average weights",
                self.regrets.len(),
                self.average.len()
            ));
        }
        self.reindex();
        self.key_tokens = self.keys.iter().map(|k| k.len()).sum();
        if self.index.len() != self.keys.len() {
            return Err("an information state appears twice".into());
        }
        Ok(())
    }

    /// Rebuilds the hash index.
    fn reindex(&mut self) {
        let keys = &self.keys;
        let mut index = HashTable::with_capacity(keys.len());
        for (i, k) in keys.iter().enumerate() {
            let hash = key_hash(k);
            // A repeated key keeps its first place (and `restore` refuses it).
            if index.find(hash, |&j| keys[j as usize] == *k).is_none() {
                index.insert_unique(hash, i as u32, |&j| key_hash(&keys[j as usize]));
            }
        }
        self.index = index;
    }
}
