//! One Monte Carlo worker's updates for a batch, over one player's table
//! rows: a sampled iteration touches a few dozen rows of millions, so the
//! updates are kept per touched row rather than in arrays the size of the
//! table, and they are added to the solver's arrays row by row in the order
//! the rows were first touched, as the keyed tables of
//! [`super::mccfr`] add theirs, so both give the same bits.

use std::ops::Range;

use crate::stream::PlayerTable;

const UNTOUCHED: u32 = u32::MAX;

#[derive(Clone, Debug, Default)]
pub(crate) struct SparseUpdates {
    /// Where each row's updates start in `regrets` and `average`.
    offset: Vec<u32>,
    /// Rows touched this batch, in first-touch order.
    rows: Vec<u32>,
    pub regrets: Vec<f64>,
    pub average: Vec<f64>,
}

impl SparseUpdates {
    pub fn new(table: &PlayerTable) -> Self {
        SparseUpdates {
            offset: vec![UNTOUCHED; table.num_rows()],
            ..Default::default()
        }
    }

    /// The row's update slots, zero the first time in a batch.
    #[inline]
    pub fn touch(&mut self, row: u32, len: usize) -> Range<usize> {
        let o = &mut self.offset[row as usize];
        if *o == UNTOUCHED {
            *o = self.regrets.len() as u32;
            self.rows.push(row);
            self.regrets.resize(self.regrets.len() + len, 0.0);
            self.average.resize(self.average.len() + len, 0.0);
        }
        *o as usize..*o as usize + len
    }

    /// Adds the batch's updates to the solver's arrays, marks the rows
    /// visited, and empties itself for the next batch.
    pub fn drain_into(
        &mut self,
        table: &PlayerTable,
        regrets: &mut [f64],
        average: &mut [f64],
        visited: &mut [u64],
    ) {
        for &row in &self.rows {
            let slots = table.slots(row);
            let o = self.offset[row as usize] as usize;
            let local = o..o + slots.len();
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
            self.offset[row as usize] = UNTOUCHED;
        }
        self.rows.clear();
        self.regrets.clear();
        self.average.clear();
    }
}
