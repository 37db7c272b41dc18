//! The run's regret and average-policy table, keyed by information-state
//! keys packed into one integer ([`super::compact_mccfr`]'s): it grows with
//! the states met, holds no strings, and finds a key with one hash of a
//! word. A state's key, regrets and average weights share one slot of an
//! open-addressed table of the states with as many actions, so the walk's
//! lookup and the regrets it then reads wait on one cache miss, not on an
//! index entry's and a row's.

use std::hash::BuildHasher;

use rustc_hash::FxBuildHasher;
use serde::{Deserialize, Serialize, Serializer};

use super::compact_updates::{NOT_FOUND, UpdateTable};
use crate::stream::prefetch::prefetch;

/// A packed key: see [`super::compact_mccfr`] for the layouts.
pub type Key = u128;

/// A free slot's high key word: keys use at most 120 bits.
const FREE: u64 = u64::MAX;
/// Slots a width's rows start with.
const FIRST_SLOTS: usize = 16;

#[inline(always)]
pub(super) fn split(key: Key) -> [u64; 2] {
    [key as u64, (key >> 64) as u64]
}

#[inline(always)]
pub(super) fn join(key: [u64; 2]) -> Key {
    Key::from(key[0]) | Key::from(key[1]) << 64
}

#[inline(always)]
pub fn hash(key: Key) -> u64 {
    FxBuildHasher.hash_one(key)
}

/// The states of one width (number of actions), open-addressed with
/// linear probing. A slot is `2 * width + 3` words: the key's two, the
/// regrets, the state's insertion index, the average weights; the walk
/// reads the first `width + 2`. A power of two of slots, at most half used,
/// so a probe for an absent key stops after a slot or two.
#[derive(Clone, Debug, Default)]
struct Rows {
    width: usize,
    stride: usize,
    mask: usize,
    words: Vec<u64>,
    used: usize,
}

impl Rows {
    fn new(width: usize, slots: usize) -> Self {
        let stride = 2 * width + 3;
        let mut words = vec![0; slots * stride];
        for s in 0..slots {
            words[s * stride + 1] = FREE;
        }
        Rows {
            width,
            stride,
            mask: slots - 1,
            words,
            used: 0,
        }
    }

    fn slots(&self) -> usize {
        self.mask + 1
    }

    /// The slot holding `key`, or the free slot where it would go.
    #[inline(always)]
    fn probe(&self, key: [u64; 2], hash: u64) -> Result<usize, usize> {
        let mut s = hash as usize & self.mask;
        loop {
            let at = s * self.stride;
            let high = self.words[at + 1];
            if high == key[1] && self.words[at] == key[0] {
                return Ok(s);
            }
            if high == FREE {
                return Err(s);
            }
            s = (s + 1) & self.mask;
        }
    }

    fn key(&self, s: usize) -> Key {
        let at = s * self.stride;
        join([self.words[at], self.words[at + 1]])
    }

    #[inline(always)]
    fn regrets(&self, s: usize) -> &[f64] {
        let at = s * self.stride + 2;
        bytemuck::cast_slice(&self.words[at..at + self.width])
    }

    fn index(&self, s: usize) -> usize {
        self.words[s * self.stride + 2 + self.width] as usize
    }

    fn average(&self, s: usize) -> &[f64] {
        let at = s * self.stride + 3 + self.width;
        bytemuck::cast_slice(&self.words[at..at + self.width])
    }

    /// The slot's regrets and average weights, to add to.
    fn weights_mut(&mut self, s: usize) -> (&mut [f64], &mut [f64]) {
        let at = s * self.stride + 2;
        let (regrets, rest) = self.words[at..at + 2 * self.width + 1].split_at_mut(self.width);
        (
            bytemuck::cast_slice_mut(regrets),
            bytemuck::cast_slice_mut(&mut rest[1..]),
        )
    }

    /// Writes `key` (absent, with the state's insertion index) into the
    /// free slot `s`, its weights zero.
    fn fill(&mut self, s: usize, key: Key, index: usize) {
        let at = s * self.stride;
        let [low, high] = split(key);
        self.words[at] = low;
        self.words[at + 1] = high;
        self.words[at + 2 + self.width] = index as u64;
        self.used += 1;
    }
}

/// Information states in insertion order, each with a regret and an
/// average-policy weight per legal action. Stored as it always was (the
/// keys, each state's end of slots, the regrets and the weights in
/// insertion order); the slots are rebuilt by [`CompactTable::restore`].
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Stored {
    keys: Vec<Key>,
    /// One past each state's last slot.
    ends: Vec<u32>,
    regrets: Vec<f64>,
    average: Vec<f64>,
}

impl PartialEq for Stored {
    fn eq(&self, other: &Self) -> bool {
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        self.keys == other.keys
            && self.ends == other.ends
            && bits(&self.regrets) == bits(&other.regrets)
            && bits(&self.average) == bits(&other.average)
    }
}

/// The run's table: each width's rows, and where each state is in
/// insertion order (which the policy file and checkpoints keep).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(from = "Stored")]
pub struct CompactTable {
    /// Each state's place in insertion order: `width << 32 | slot`.
    order: Vec<u64>,
    /// Indexed by width.
    rows: Vec<Rows>,
    /// A table read from a file, until [`Self::restore`] checks it.
    loaded: Option<Box<Stored>>,
}

impl From<Stored> for CompactTable {
    fn from(stored: Stored) -> Self {
        CompactTable {
            loaded: Some(Box::new(stored)),
            ..Default::default()
        }
    }
}

impl Serialize for CompactTable {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.stored().serialize(serializer)
    }
}

impl PartialEq for CompactTable {
    fn eq(&self, other: &Self) -> bool {
        self.stored() == other.stored()
    }
}

impl CompactTable {
    pub fn len(&self) -> usize {
        self.order.len()
    }

    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    #[inline(always)]
    fn place(&self, i: usize) -> (usize, usize) {
        let p = self.order[i];
        ((p >> 32) as usize, p as u32 as usize)
    }

    pub fn key(&self, i: usize) -> Key {
        let (w, s) = self.place(i);
        self.rows[w].key(s)
    }

    /// How many actions the `i`-th state has.
    pub fn width(&self, i: usize) -> usize {
        self.place(i).0
    }

    /// The `i`-th state's average-policy weights.
    pub fn average(&self, i: usize) -> &[f64] {
        let (w, s) = self.place(i);
        self.rows[w].average(s)
    }

    /// Bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.order.capacity() * 8
            + self
                .rows
                .iter()
                .map(|r| r.words.capacity() * 8)
                .sum::<usize>()
    }

    /// The slot of a state of `width` actions whose key hashes to `hash`
    /// ([`hash`]), if the table has it.
    #[inline(always)]
    pub fn find(&self, key: Key, hash: u64, width: usize) -> Option<u32> {
        let rows = self.rows.get(width).filter(|r| !r.words.is_empty())?;
        rows.probe(split(key), hash).ok().map(|s| s as u32)
    }

    /// Asks for the cache lines [`Self::find`] and [`Self::regrets`] will
    /// read first for this hash, without waiting for them.
    #[inline(always)]
    pub fn prefetch(&self, hash: u64, width: usize) {
        if let Some(rows) = self.rows.get(width).filter(|r| !r.words.is_empty()) {
            let at = (hash as usize & rows.mask) * rows.stride;
            let p = rows.words.as_ptr();
            prefetch(p.wrapping_add(at));
            prefetch(p.wrapping_add(at + 1 + width));
        }
    }

    /// The regrets in the slot [`Self::find`] gave for `width` actions.
    #[inline(always)]
    pub fn regrets(&self, width: usize, slot: u32) -> &[f64] {
        self.rows[width].regrets(slot as usize)
    }

    /// The state's slot, added with zero weights if new, and whether it
    /// was new.
    fn find_or_insert(&mut self, key: Key, width: usize) -> (usize, bool) {
        let (h, words) = (hash(key), split(key));
        if self.rows.len() <= width {
            self.rows.resize_with(width + 1, Default::default);
        }
        let rows = &self.rows[width];
        let mut free = None;
        if !rows.words.is_empty() {
            match rows.probe(words, h) {
                Ok(s) => return (s, false),
                Err(s) if 2 * (rows.used + 1) <= rows.slots() => free = Some(s),
                Err(_) => {}
            }
        }
        // Growing moves every state: the free slot is found afresh.
        let s = match free {
            Some(s) => s,
            None => {
                self.grow(width);
                let Err(s) = self.rows[width].probe(words, h) else {
                    unreachable!("the key was just found absent")
                };
                s
            }
        };
        self.rows[width].fill(s, key, self.order.len());
        self.order.push((width as u64) << 32 | s as u64);
        (s, true)
    }

    /// Doubles a width's slots, moving each state to its slot there.
    fn grow(&mut self, width: usize) {
        let old = &self.rows[width];
        let held = if old.words.is_empty() { 0 } else { old.slots() };
        let mut new = Rows::new(width, (2 * held).max(FIRST_SLOTS));
        let stride = new.stride;
        for s in 0..held {
            let at = s * stride;
            if old.words[at + 1] == FREE {
                continue;
            }
            let Err(t) = new.probe([old.words[at], old.words[at + 1]], hash(old.key(s))) else {
                unreachable!("each key is held once")
            };
            new.words[t * stride..(t + 1) * stride].copy_from_slice(&old.words[at..at + stride]);
            new.used += 1;
            self.order[old.index(s)] = (width as u64) << 32 | t as u64;
        }
        self.rows[width] = new;
    }

    /// Adds the workers' updates of a batch into the table, in the
    /// workers' order for each state: first where the walks found the
    /// state (their hints, still valid as nothing has moved yet), then the
    /// states new to the table, inserted in the order of the workers and
    /// of their first visits.
    pub fn add(&mut self, updates: &[&UpdateTable]) {
        for u in updates {
            for j in 0..u.len() {
                let hint = u.hints[j];
                if hint != NOT_FOUND {
                    self.add_row(hint as usize, u, j);
                }
            }
        }
        for u in updates {
            for j in 0..u.len() {
                if u.hints[j] == NOT_FOUND {
                    let (s, _) = self.find_or_insert(u.keys[j], u.slots(j).len());
                    self.add_row(s, u, j);
                }
            }
        }
    }

    fn add_row(&mut self, slot: usize, u: &UpdateTable, j: usize) {
        let theirs = u.slots(j);
        let (regrets, average) = self.rows[theirs.len()].weights_mut(slot);
        for (a, b) in regrets.iter_mut().zip(&u.regrets[theirs.clone()]) {
            *a += b;
        }
        for (a, b) in average.iter_mut().zip(&u.average[theirs]) {
            *a += b;
        }
    }

    /// Whether every regret and average weight is finite.
    pub fn is_finite(&self) -> bool {
        let finite = |v: &[f64]| v.iter().all(|x| x.is_finite());
        match &self.loaded {
            Some(stored) => finite(&stored.regrets) && finite(&stored.average),
            None => (0..self.len()).all(|i| {
                let (w, s) = self.place(i);
                finite(self.rows[w].regrets(s)) && finite(self.rows[w].average(s))
            }),
        }
    }

    /// The table as files hold it.
    fn stored(&self) -> Stored {
        if let Some(loaded) = &self.loaded {
            return (**loaded).clone();
        }
        let mut stored = Stored::default();
        for i in 0..self.len() {
            let (w, s) = self.place(i);
            let rows = &self.rows[w];
            stored.keys.push(rows.key(s));
            stored.regrets.extend_from_slice(rows.regrets(s));
            stored.average.extend_from_slice(rows.average(s));
            stored.ends.push(stored.regrets.len() as u32);
        }
        stored
    }

    /// Checks a table read from a file (offsets ascending within the
    /// arrays, each key once) and builds its slots; `actions` says how
    /// many actions a key has, or why the key is not one.
    pub fn restore(
        &mut self,
        actions: impl Fn(Key) -> Result<usize, String>,
    ) -> Result<(), String> {
        let Some(stored) = self.loaded.take() else {
            return Ok(());
        };
        let n = stored.regrets.len();
        if stored.ends.len() != stored.keys.len() || stored.average.len() != n {
            return Err(format!(
                "{} keys, {} offsets, {} regrets and {} average weights",
                stored.keys.len(),
                stored.ends.len(),
                n,
                stored.average.len()
            ));
        }
        let mut start = 0;
        for (&key, &end) in stored.keys.iter().zip(&stored.ends) {
            let expected = actions(key)?;
            if end as usize != start + expected || end as usize > n {
                return Err(format!(
                    "a state of {expected} actions has slots {start} to {end} of {n}"
                ));
            }
            let slots = start..end as usize;
            start = end as usize;
            let (s, new) = self.find_or_insert(key, expected);
            if !new {
                return Err("an information state appears twice".into());
            }
            let (regrets, average) = self.rows[expected].weights_mut(s);
            regrets.copy_from_slice(&stored.regrets[slots.clone()]);
            average.copy_from_slice(&stored.average[slots]);
        }
        if start != n {
            return Err(format!("{n} slots, {start} of them used"));
        }
        Ok(())
    }
}
