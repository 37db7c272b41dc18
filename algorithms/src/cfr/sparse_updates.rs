//! One Monte Carlo worker's updates for a batch, over one player's table
//! rows: a batch touches a few hundred rows of millions, so the updates are
//! kept per touched row, found through a small open-addressing index that
//! stays in cache (an index the size of the table would cost a cache miss
//! per visit), and added to the solver's arrays row by row in the order the
//! rows were first touched, as the keyed tables of [`super::mccfr`] add
//! theirs, so both give the same bits.
//!
//! Small tables (Leduc's) skip the index: the updates then lie at the
//! solver's own slots in arrays the table's size, which stay in cache, and
//! a row is looked up by its number. Each slot's batch sum is added to in
//! the same order either way, so both layouts give the same bits.

use std::ops::Range;

use crate::stream::prefetch::prefetch;

/// An empty entry of the index.
const EMPTY: u32 = u32::MAX;
const FIRST_CAPACITY: usize = 1 << 10;
/// Tables of at most this many slots per player keep dense updates.
const DENSE_SLOTS: usize = 1 << 16;

#[derive(Clone, Copy, Debug)]
struct Entry {
    row: u32,
    offset: u32,
}

const VACANT: Entry = Entry {
    row: EMPTY,
    offset: 0,
};

#[derive(Clone, Debug)]
pub(crate) struct SparseUpdates {
    /// Touched rows and where their updates start; a power of two long,
    /// at most half full.
    index: Vec<Entry>,
    /// Rows touched this batch, in first-touch order, their entries (in
    /// the dense layout: their lengths) and their first slots in the
    /// solver's arrays.
    rows: Vec<u32>,
    entries: Vec<u32>,
    firsts: Vec<u32>,
    pub regrets: Vec<f64>,
    pub average: Vec<f64>,
    /// Dense layout: whether each row was touched this batch (empty in
    /// the sparse layout).
    touched: Vec<bool>,
}

impl Default for SparseUpdates {
    fn default() -> Self {
        SparseUpdates {
            index: vec![VACANT; FIRST_CAPACITY],
            rows: Vec::new(),
            entries: Vec::new(),
            firsts: Vec::new(),
            regrets: Vec::new(),
            average: Vec::new(),
            touched: Vec::new(),
        }
    }
}

impl SparseUpdates {
    /// Updates for a table of `rows` rows and `slots` slots: dense when
    /// the table is small.
    pub fn for_table(rows: usize, slots: usize) -> Self {
        if slots > DENSE_SLOTS {
            return Self::default();
        }
        SparseUpdates {
            index: Vec::new(),
            regrets: vec![0.0; slots],
            average: vec![0.0; slots],
            touched: vec![false; rows],
            ..Self::default()
        }
    }

    fn is_dense(&self) -> bool {
        !self.touched.is_empty()
    }

    #[inline(always)]
    fn home(row: u32, mask: usize) -> usize {
        (row.wrapping_mul(0x9E37_79B9) as usize ^ (row as usize >> 16)) & mask
    }

    /// The update slots of the row whose slots in the solver's arrays are
    /// `slots`, zero the first time in a batch.
    #[inline(always)]
    pub fn touch(&mut self, row: u32, slots: Range<usize>) -> Range<usize> {
        if self.is_dense() {
            let touched = &mut self.touched[row as usize];
            if !*touched {
                *touched = true;
                self.rows.push(row);
                self.firsts.push(slots.start as u32);
                self.entries.push(slots.len() as u32);
            }
            return slots;
        }
        let len = slots.len();
        let mask = self.index.len() - 1;
        let mut i = Self::home(row, mask);
        loop {
            let e = self.index[i];
            if e.row == row {
                return e.offset as usize..e.offset as usize + len;
            }
            if e.row == EMPTY {
                break;
            }
            i = (i + 1) & mask;
        }
        let offset = self.regrets.len();
        self.index[i] = Entry {
            row,
            offset: offset as u32,
        };
        self.rows.push(row);
        self.entries.push(i as u32);
        self.firsts.push(slots.start as u32);
        self.regrets.resize(offset + len, 0.0);
        self.average.resize(offset + len, 0.0);
        if self.rows.len() * 2 > self.index.len() {
            self.grow();
        }
        offset..offset + len
    }

    /// Doubles the index, keeping every entry.
    #[cold]
    fn grow(&mut self) {
        let doubled = vec![VACANT; self.index.len() * 2];
        let old = std::mem::replace(&mut self.index, doubled);
        let mask = self.index.len() - 1;
        for (k, &row) in self.rows.iter().enumerate() {
            let mut i = Self::home(row, mask);
            while self.index[i].row != EMPTY {
                i = (i + 1) & mask;
            }
            self.index[i] = old[self.entries[k] as usize];
            self.entries[k] = i as u32;
        }
    }

    /// Adds the batch's updates to the solver's arrays, marks the rows
    /// visited, and empties itself for the next batch.
    pub fn drain_into(&mut self, regrets: &mut [f64], average: &mut [f64], visited: &mut [u64]) {
        if self.is_dense() {
            return self.drain_dense(regrets, average, visited);
        }
        // The average weights and visited marks are read nowhere else in
        // a batch, so each row's are a cache miss: ask for them a few rows
        // ahead.
        const AHEAD: usize = 8;
        let n = self.rows.len();
        for k in 0..n {
            if k + AHEAD < n {
                let later = self.rows[k + AHEAD] as usize;
                prefetch(
                    average
                        .as_ptr()
                        .wrapping_add(self.firsts[k + AHEAD] as usize),
                );
                prefetch(visited.as_ptr().wrapping_add(later / 64));
            }
            let (row, entry, first) = (self.rows[k], self.entries[k], self.firsts[k] as usize);
            let o = self.index[entry as usize].offset as usize;
            // Rows' updates lie one after another in first-touch order.
            let end = match self.entries.get(k + 1) {
                Some(&e) => self.index[e as usize].offset as usize,
                None => self.regrets.len(),
            };
            let local = o..end;
            let slots = first..first + local.len();
            for (a, b) in regrets[slots.clone()]
                .iter_mut()
                .zip(&self.regrets[local.clone()])
            {
                *a += b;
            }
            for (a, b) in average[slots].iter_mut().zip(&self.average[local]) {
                *a += b;
            }
            visited[row as usize / 64] |= 1 << (row % 64);
            self.index[entry as usize] = VACANT;
        }
        self.rows.clear();
        self.entries.clear();
        self.firsts.clear();
        self.regrets.clear();
        self.average.clear();
    }

    /// [`Self::drain_into`] for the dense layout: the touched slots are
    /// added and zeroed.
    fn drain_dense(&mut self, regrets: &mut [f64], average: &mut [f64], visited: &mut [u64]) {
        for ((&row, &first), &len) in self.rows.iter().zip(&self.firsts).zip(&self.entries) {
            let slots = first as usize..(first + len) as usize;
            for (a, b) in regrets[slots.clone()]
                .iter_mut()
                .zip(&mut self.regrets[slots.clone()])
            {
                *a += std::mem::take(b);
            }
            for (a, b) in average[slots.clone()]
                .iter_mut()
                .zip(&mut self.average[slots])
            {
                *a += std::mem::take(b);
            }
            visited[row as usize / 64] |= 1 << (row % 64);
            self.touched[row as usize] = false;
        }
        self.rows.clear();
        self.entries.clear();
        self.firsts.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Both layouts, given the same touches and additions over batches,
    /// leave the same bits in the solver's arrays and the same marks.
    #[test]
    fn dense_and_indexed_layouts_agree_bit_for_bit() {
        // 3000 rows of 1 to 3 slots: more rows than the index's first
        // capacity, so the indexed layout also grows.
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let widths: Vec<usize> = (0..3000).map(|_| rng.random_range(1..=3)).collect();
        let mut starts = vec![0];
        for w in &widths {
            starts.push(starts.last().unwrap() + w);
        }
        let slots = *starts.last().unwrap();
        let mut dense = SparseUpdates::for_table(widths.len(), slots);
        let mut indexed = SparseUpdates::default();
        assert!(dense.is_dense() && !indexed.is_dense());
        let arrays = || {
            (
                vec![0.5; slots],
                vec![0.25; slots],
                vec![0u64; 3000usize.div_ceil(64)],
            )
        };
        let (mut rd, mut ad, mut vd) = arrays();
        let (mut ri, mut ai, mut vi) = arrays();
        for _batch in 0..5 {
            for _ in 0..4000 {
                let row = rng.random_range(0..widths.len());
                let range = starts[row]..starts[row + 1];
                let (r, a): (f64, f64) = (rng.random::<f64>() - 0.5, rng.random());
                for u in [&mut dense, &mut indexed] {
                    let local = u.touch(row as u32, range.clone());
                    for (j, k) in local.enumerate() {
                        u.regrets[k] += r * (j + 1) as f64;
                        u.average[k] += a;
                    }
                }
            }
            dense.drain_into(&mut rd, &mut ad, &mut vd);
            indexed.drain_into(&mut ri, &mut ai, &mut vi);
        }
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&rd), bits(&ri));
        assert_eq!(bits(&ad), bits(&ai));
        assert_eq!(vd, vi);
        assert!(vd.iter().any(|&w| w != 0));
    }
}
