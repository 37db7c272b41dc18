//! How large an expansion (a region's value, a template's analysis) grows:
//! estimated before it starts, counted while it runs.
//!
//! An expansion stores every position it reaches, keyed by its stones, and
//! a position has options only while some completion can still change its
//! outcome (it is *open*; *settled* otherwise). Settled is closed upwards:
//! a position with more stones has fewer completions. So the positions a
//! template's analysis stores are exactly the set R of positions that are
//! open, or settled with an open position one stone fewer; a region's
//! expansion stores part of R (it fills dead cells white and does not
//! expand a position whose reduced form it has met), so |R| bounds it.
//!
//! [`estimate`] estimates |R| by random walks from the empty position,
//! each move uniform among both colours on every free cell (Knuth's
//! estimator of a tree's size, with the memo's merging accounted for).
//! The walk reaches a position v of d stones along any of its paths, and
//! each path has the same probability, prod_{i<d} 1/(2(n-i)): every open
//! position of i stones has 2(n-i) options. An open v has d! paths (all
//! its subsets are open); a settled v has (d-1)! k, k the stones whose
//! removal leaves it open. Weighting v by the inverse of its probability,
//! C(n,d) 2^d for an open v and C(n,d) 2^d d/k for a settled one, makes
//! the sum over a walk an unbiased estimate of |R|, whatever the region.
//!
//! A region's expansion fills the dead cells of each position white
//! before it moves, which cuts its positions by up to ten times on
//! 3-terminal regions. The walks do the same, and then weigh the moves
//! made (not the cells filled) as above, with each step's own number of
//! options: no longer exact, since the orders of the same moves need not
//! have the same options, but what the expansion stored was 0.3 to 1
//! times that estimate on the regions measured (see [`Region::estimate`]).
//!
//! [`Region::estimate`]: crate::region::Region::estimate

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::LocalError;
use crate::form::Arena;

/// Walks per estimate: the estimate's relative standard error was 0.5%
/// to 4% on the regions of local/regions and local/templates and on
/// parallelograms of 6 to 25 cells, 8% at 64 cells, where the walks take
/// half a second.
pub const WALKS: usize = 4096;

/// The walks' seed: the same region gets the same estimate.
const SEED: u64 = 0x0005_eed0_f5e7;

/// An estimate, made before an expansion starts, of what it will store.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SizeEstimate {
    /// Positions stored, estimated (how close: the module's comment).
    pub positions: f64,
    /// The estimate's standard error, from the spread of the walks.
    pub std_error: f64,
    /// Memory the expansion will hold, in bytes: positions times the bytes
    /// an expansion was measured to hold per position stored.
    pub bytes: f64,
}

/// Estimates |R| for a position of `n` empty cells (see the module's
/// comment), and the estimate's standard error. `settled(black, white)`
/// tells a settled position (masks over the empty cells; it must hold of
/// every filled position and be closed upwards); `dead(black, white)`
/// the cells the expansion fills white before moving (none: |R| itself).
pub(crate) fn estimate(
    n: usize,
    settled: impl Fn(u64, u64) -> bool,
    dead: impl Fn(u64, u64) -> u64,
) -> (f64, f64) {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let (mut sum, mut sum_sq) = (0.0f64, 0.0f64);
    for _ in 0..WALKS {
        let x = walk(n, &settled, &dead, &mut rng);
        sum += x;
        sum_sq += x * x;
    }
    let walks = WALKS as f64;
    let mean = sum / walks;
    let variance = (sum_sq / walks - mean * mean).max(0.0);
    (mean, (variance / walks).sqrt())
}

/// One walk's estimate: the sum of the weights of the positions it meets.
fn walk(
    n: usize,
    settled: &impl Fn(u64, u64) -> bool,
    dead: &impl Fn(u64, u64) -> u64,
    rng: &mut ChaCha8Rng,
) -> f64 {
    let (mut black, mut white) = (0u64, 0u64);
    // Moves made (dead cells filled are not moves).
    let mut moves = 0u64;
    let mut total = 1.0;
    // Paths of the tree to here, over the orderings of the moves made.
    let mut weight = 1.0;
    for d in 1..=n {
        if settled(black, white) {
            break;
        }
        white |= dead(black, white);
        let free = free_cells(n) & !(black | white);
        let options = free.count_ones();
        let pick = rng.random_range(0..options);
        let bit = nth_bit(free, pick);
        if rng.random::<bool>() {
            black |= bit;
        } else {
            white |= bit;
        }
        moves |= bit;
        weight *= 2.0 * options as f64 / d as f64;
        if !settled(black, white) {
            total += weight;
            continue;
        }
        let mut open_below = 0usize;
        let mut rest = moves;
        while rest != 0 {
            let s = rest & rest.wrapping_neg();
            rest &= rest - 1;
            if !settled(black & !s, white & !s) {
                open_below += 1;
            }
        }
        total += weight * d as f64 / open_below as f64;
        break;
    }
    total
}

fn free_cells(n: usize) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}

/// The `k`-th set bit of `mask` (from 0), as a mask.
fn nth_bit(mut mask: u64, k: u32) -> u64 {
    for _ in 0..k {
        mask &= mask - 1;
    }
    mask & mask.wrapping_neg()
}

/// Bounds on an expansion and what it reports while it runs.
#[derive(Clone, Copy, Default)]
pub struct Limits<'a> {
    /// Stop with [`LocalError::OverLimit`] once the tables hold more than
    /// this many bytes (counted from their sizes); `None`: no limit.
    pub max_bytes: Option<u64>,
    /// Called every [`PROGRESS_EVERY`] positions stored.
    pub progress: Option<&'a dyn Fn(Progress)>,
}

/// Positions stored between two progress reports and memory checks.
pub const PROGRESS_EVERY: usize = 1 << 16;

/// How far an expansion has got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    pub positions: usize,
    pub forms: usize,
    /// Bytes the tables and forms hold, counted from their sizes.
    pub bytes: u64,
}

impl Limits<'_> {
    /// Called after storing a position, `positions` in all: every
    /// [`PROGRESS_EVERY`] positions, reports progress and refuses to go
    /// on past the memory limit, counting the forms of `arena` and the
    /// bytes `tables` says the expansion's own tables hold.
    pub(crate) fn stored(
        &self,
        positions: usize,
        arena: &Arena,
        tables: impl FnOnce() -> u64,
    ) -> Result<(), LocalError> {
        if !positions.is_multiple_of(PROGRESS_EVERY) {
            return Ok(());
        }
        let bytes = tables() + arena.bytes();
        if let Some(report) = self.progress {
            report(Progress {
                positions,
                forms: arena.len(),
                bytes,
            });
        }
        match self.max_bytes {
            Some(limit) if bytes > limit => Err(LocalError::OverLimit {
                positions,
                bytes,
                limit,
            }),
            _ => Ok(()),
        }
    }
}

/// The result of an expansion run without [`Limits::max_bytes`], which
/// has no other way to fail.
pub(crate) fn unlimited<T>(result: Result<T, LocalError>) -> T {
    result.expect("an expansion without a memory limit does not stop")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// |R| by going through all 3^n positions.
    fn exact(n: usize, settled: impl Fn(u64, u64) -> bool) -> usize {
        let mut count = 0;
        let full = free_cells(n);
        for black in 0..=full {
            let mut white = full & !black;
            loop {
                let stones = black | white;
                let open_below = |s: u64| !settled(black & !s, white & !s);
                let member = stones == 0
                    || !settled(black, white)
                    || (0..n).any(|i| stones >> i & 1 == 1 && open_below(1 << i));
                count += usize::from(member);
                if white == 0 {
                    break;
                }
                white = (white - 1) & full & !black;
            }
        }
        count
    }

    #[test]
    fn the_walks_estimate_the_reachable_positions() {
        // Settled when a colour holds `k` cells: |R| has a closed form
        // only in the extreme cases, so compare with the enumeration.
        for (n, k) in [(6, 1), (6, 3), (8, 2), (9, 5), (10, 4)] {
            let settled = |b: u64, w: u64| {
                (b | w).count_ones() as usize == n
                    || b.count_ones() as usize >= k
                    || w.count_ones() as usize >= k
            };
            let real = exact(n, settled) as f64;
            let (est, err) = estimate(n, settled, |_, _| 0);
            assert!(
                (est - real).abs() <= 4.0 * err + 1e-9 * real,
                "n {n}, k {k}: estimate {est} ± {err}, exactly {real}"
            );
            assert!(
                (est - real).abs() / real < 0.1,
                "n {n}, k {k}: {est} vs {real}"
            );
        }
        // Nothing settles before the position is filled: all 3^n.
        let (est, err) = estimate(7, |b, w| (b | w).count_ones() == 7, |_, _| 0);
        assert_eq!((est, err), (3f64.powi(7), 0.0));
    }

    #[test]
    fn table_bytes_follow_the_buckets() {
        use crate::form::table_bytes;
        assert_eq!(table_bytes::<u64>(0), 0);
        // 7 entries fit 8 buckets; 8 entries need 16.
        assert_eq!(table_bytes::<u64>(7), 8 * 9);
        assert_eq!(table_bytes::<u64>(8), 16 * 9);
    }
}
