//! The transposition table of the proof-number search: proof and disproof
//! numbers, the best move and what the solver learnt when it first met a
//! position (its moves and fill-in), under a memory limit. Slots come in
//! buckets of four; a new position takes an empty slot of its bucket, or
//! the one whose subtree cost the least work, preferring to keep solved
//! positions. Shards, each behind its own lock, let threads share it.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use darkhex_games::CellSet;

/// Proof numbers at or above this are infinite.
pub const INF: u32 = 2_000_000_000;

/// Proof number `phi` (the player to move wins) and disproof number `delta`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    pub phi: u32,
    pub delta: u32,
}

impl Bounds {
    pub const NEW: Bounds = Bounds { phi: 1, delta: 1 };
    pub const WIN: Bounds = Bounds { phi: 0, delta: INF };
    pub const LOSS: Bounds = Bounds { phi: INF, delta: 0 };

    pub fn is_solved(&self) -> bool {
        self.phi == 0 || self.delta == 0
    }

    /// `Some(true)` if the player to move wins, `Some(false)` if they lose.
    pub fn value(&self) -> Option<bool> {
        if self.phi == 0 {
            Some(true)
        } else if self.delta == 0 {
            Some(false)
        } else {
            None
        }
    }
}

/// The moves and fill-in of an undecided position, and why the other moves
/// were left out (see [`super::node::Grounds`]).
#[derive(Clone, Debug)]
pub struct Expansion<const W: usize> {
    pub children: Box<[u16]>,
    pub fill: [CellSet<W>; 2],
    pub dominated: Box<[(u16, u16)]>,
    pub semis: Box<[CellSet<W>]>,
    pub mirrored: CellSet<W>,
    pub dead: CellSet<W>,
    /// The key of the position with its fill-in played, and whether the
    /// table holds that one turned (see `HexSolver`'s filled forms).
    pub filled_form: Option<(u64, bool)>,
}

#[derive(Clone, Debug)]
pub struct Entry<const W: usize> {
    pub key: u64,
    pub bounds: Bounds,
    /// Positions examined below this one: the cost of losing it.
    pub work: u64,
    /// The best move found (a winning move once proved won), or `u16::MAX`.
    pub best: u16,
    /// Once solved, a proof set: empty cells outside it may all be the
    /// loser's and the winner still wins.
    pub proof: CellSet<W>,
    pub expansion: Option<Arc<Expansion<W>>>,
}

/// Slots of a bucket: the only ones a position may take.
pub const BUCKET: usize = 4;
const SHARDS: usize = 64;
/// Buckets of one page. Pages are allocated when first written, so a short
/// solve with a large table touches little memory (whole shards cost
/// milliseconds each to clear). A page is about one memory page: positions
/// land on pages at random, and with pages of 512 buckets a solve of 20,000
/// positions wrote to nearly every page of a 1 GB table, zeroing all of it
/// (a third of the time of such a solve).
const PAGE_BUCKETS: usize = 16;

type Page<const W: usize> = Box<[Option<Entry<W>>]>;

pub struct TransTable<const W: usize> {
    /// Each shard's pages of slots.
    shards: Vec<Mutex<Vec<Option<Page<W>>>>>,
    buckets_per_shard: usize,
    used: AtomicUsize,
    /// Positions pushed out of a full bucket: once this grows, a larger
    /// table would have kept work the search may have to redo.
    replaced: AtomicU64,
}

impl<const W: usize> TransTable<W> {
    /// A table using about `megabytes` of memory when full, for positions
    /// with about `moves` moves each.
    pub fn new(megabytes: usize, moves: usize) -> Self {
        let entry = std::mem::size_of::<Option<Entry<W>>>()
            + std::mem::size_of::<Expansion<W>>()
            + 2 * moves
            + 32;
        let slots = (megabytes.max(1) * 1_000_000 / entry).max(SHARDS * BUCKET);
        let buckets_per_shard = slots / (SHARDS * BUCKET);
        let pages = buckets_per_shard.div_ceil(PAGE_BUCKETS);
        let shards = (0..SHARDS)
            .map(|_| Mutex::new((0..pages).map(|_| None).collect()))
            .collect();
        TransTable {
            shards,
            buckets_per_shard,
            used: AtomicUsize::new(0),
            replaced: AtomicU64::new(0),
        }
    }

    /// The shard, page and first slot of `key`'s bucket.
    fn place(&self, key: u64) -> (usize, usize, usize) {
        let shard = (key >> 58) as usize % SHARDS;
        let bucket = (key as usize) % self.buckets_per_shard;
        (
            shard,
            bucket / PAGE_BUCKETS,
            (bucket % PAGE_BUCKETS) * BUCKET,
        )
    }

    /// The entry of `key`, if the table has it.
    pub fn get(&self, key: u64) -> Option<Entry<W>> {
        let (shard, page, start) = self.place(key);
        let pages = self.shards[shard].lock().unwrap_or_else(|e| e.into_inner());
        pages[page]
            .as_ref()?
            .get(start..start + BUCKET)?
            .iter()
            .flatten()
            .find(|e| e.key == key)
            .cloned()
    }

    /// The bounds of `key` (new positions have 1, 1).
    pub fn bounds(&self, key: u64) -> Bounds {
        self.bounds_and_proof(key).0
    }

    /// The bounds of `key` and its proof set (meaningful once solved).
    pub fn bounds_and_proof(&self, key: u64) -> (Bounds, CellSet<W>) {
        let (shard, page, start) = self.place(key);
        let pages = self.shards[shard].lock().unwrap_or_else(|e| e.into_inner());
        pages[page]
            .as_ref()
            .and_then(|p| p.get(start..start + BUCKET))
            .and_then(|b| b.iter().flatten().find(|e| e.key == key))
            .map_or((Bounds::NEW, CellSet::EMPTY), |e| (e.bounds, e.proof))
    }

    /// Stores an entry. A solved entry is never replaced by an unsolved one
    /// of the same position.
    pub fn store(&self, mut entry: Entry<W>) {
        // A solved position is never searched again, so its moves and
        // fill-in are dead weight (dropping them took the 8x8 openings'
        // peak from 6.9 to 5.9 GB).
        if entry.bounds.is_solved() {
            entry.expansion = None;
        }
        let (shard, page, start) = self.place(entry.key);
        let mut pages = self.shards[shard].lock().unwrap_or_else(|e| e.into_inner());
        let buckets = PAGE_BUCKETS.min(self.buckets_per_shard - page * PAGE_BUCKETS);
        let slots = pages[page].get_or_insert_with(|| vec![None; buckets * BUCKET].into());
        let bucket = &mut slots[start..start + BUCKET];
        if let Some(e) = bucket.iter_mut().flatten().find(|e| e.key == entry.key) {
            if e.bounds.is_solved() && !entry.bounds.is_solved() {
                return;
            }
            // An unsolved update without its expansion keeps the stored one.
            if !entry.bounds.is_solved() && entry.expansion.is_none() {
                entry.expansion = e.expansion.take();
            }
            *e = entry;
            return;
        }
        if let Some(free) = bucket.iter_mut().find(|e| e.is_none()) {
            *free = Some(entry);
            self.used.fetch_add(1, Ordering::Relaxed);
            return;
        }
        // Replace the cheapest entry, unsolved ones first.
        let victim = bucket
            .iter()
            .enumerate()
            .min_by_key(|(_, e)| {
                let e = e.as_ref().expect("the bucket is full");
                (e.bounds.is_solved(), e.work)
            })
            .map(|(i, _)| i)
            .unwrap_or(0);
        bucket[victim] = Some(entry);
        self.replaced.fetch_add(1, Ordering::Relaxed);
    }

    /// Slots in use and slots in all.
    pub fn usage(&self) -> (usize, usize) {
        (
            self.used.load(Ordering::Relaxed),
            SHARDS * self.buckets_per_shard * BUCKET,
        )
    }

    /// Positions replaced by others since the table was made or cleared.
    pub fn replaced(&self) -> u64 {
        self.replaced.load(Ordering::Relaxed)
    }

    /// A copy of every entry, shard by shard (expansions shared, not
    /// copied): what a saved table holds. Each shard is locked only while
    /// it is copied, so threads may go on searching meanwhile; an entry
    /// they change afterwards is saved as it was, which loses work but
    /// never a fact (a solved entry stays solved).
    pub fn entries(&self) -> Vec<Entry<W>> {
        let mut all = Vec::with_capacity(self.used.load(Ordering::Relaxed));
        for s in &self.shards {
            let pages = s.lock().unwrap_or_else(|e| e.into_inner());
            all.extend(
                pages
                    .iter()
                    .flatten()
                    .flat_map(|p| p.iter().flatten().cloned()),
            );
        }
        all
    }

    /// Forgets every entry.
    pub fn clear(&self) {
        for s in &self.shards {
            let mut pages = s.lock().unwrap_or_else(|e| e.into_inner());
            pages.iter_mut().for_each(|p| *p = None);
        }
        self.used.store(0, Ordering::Relaxed);
        self.replaced.store(0, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(key: u64, bounds: Bounds, work: u64) -> Entry<1> {
        Entry {
            key,
            bounds,
            work,
            best: u16::MAX,
            proof: CellSet::EMPTY,
            expansion: None,
        }
    }

    #[test]
    fn a_full_bucket_replaces_its_cheapest_unsolved_entry_and_counts_it() {
        let tt = TransTable::<1>::new(1, 10);
        let (_, slots) = tt.usage();
        let stride = (slots / (SHARDS * BUCKET)) as u64;
        // Same shard (top bits zero) and same bucket: one bucket of four.
        let keys: Vec<u64> = (1..=6).map(|i| i * stride).collect();
        tt.store(entry(keys[0], Bounds::WIN, 1));
        tt.store(entry(keys[1], Bounds::NEW, 5));
        tt.store(entry(keys[2], Bounds::NEW, 2));
        tt.store(entry(keys[3], Bounds::NEW, 9));
        assert_eq!((tt.usage().0, tt.replaced()), (4, 0));
        // Storing a position the bucket holds updates it in place.
        tt.store(entry(keys[3], Bounds::NEW, 10));
        assert_eq!(tt.replaced(), 0);
        tt.store(entry(keys[4], Bounds::NEW, 7));
        assert_eq!((tt.usage().0, tt.replaced()), (4, 1));
        assert!(tt.get(keys[2]).is_none(), "the cheapest unsolved one goes");
        tt.store(entry(keys[5], Bounds::NEW, 1));
        assert!(
            tt.get(keys[0]).is_some(),
            "solved ones stay while unsolved remain"
        );
        assert_eq!(tt.replaced(), 2);
        tt.clear();
        assert_eq!((tt.usage().0, tt.replaced()), (0, 0));
    }
}
