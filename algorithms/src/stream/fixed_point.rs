//! Exact sums of floating-point terms, so that a parallel pass gives the
//! same bits whatever the thread count and the order of its additions.
//!
//! Each term is rounded once to a multiple of 2^-96 and added as a 128-bit
//! integer; integer addition is associative, so any grouping of the same
//! terms gives the same total. Terms up to 2^30 in size fit, and the error
//! of a total of n terms is below n * 2^-96 (1e-19 for 10^10 terms).

/// 2^96: the resolution of the sums.
const SCALE: f64 = 79_228_162_514_264_337_593_543_950_336.0;

/// Terms of absolute value up to this fit with room for 2^66 of them.
pub const MAX_TERM: f64 = (1u64 << 30) as f64;

/// A term in fixed point, truncated toward zero: `(x * 2^96) as i128` for
/// terms up to [`MAX_TERM`], by shifting the mantissa (the library
/// conversion is a call, and this runs once per history).
#[inline]
pub fn to_fixed(x: f64) -> i128 {
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7FF) as i32;
    if exponent == 0 {
        // Zero and subnormals are far below the resolution.
        return 0;
    }
    let mantissa = (bits & ((1 << 52) - 1)) | (1 << 52);
    // x = mantissa * 2^(exponent - 1075); scaled by 2^96.
    let shift = exponent - 1075 + 96;
    let magnitude = if shift >= 0 {
        (mantissa as i128) << shift.min(74)
    } else if shift > -64 {
        (mantissa >> -shift) as i128
    } else {
        0
    };
    if bits >> 63 != 0 {
        -magnitude
    } else {
        magnitude
    }
}

#[inline]
pub fn to_f64(sum: i128) -> f64 {
    sum as f64 / SCALE
}

/// Per-slot sums of both players, one set per worker thread.
#[derive(Clone, Debug)]
pub struct SlotSums {
    pub sums: [Vec<i128>; 2],
}

impl SlotSums {
    pub fn new(slots: [usize; 2]) -> Self {
        SlotSums {
            sums: slots.map(|n| crate::huge_pages::filled(n, 0)),
        }
    }

    /// Adds another set into this one.
    pub fn absorb(&mut self, other: &SlotSums) {
        for (mine, theirs) in self.sums.iter_mut().zip(&other.sums) {
            for (a, b) in mine.iter_mut().zip(theirs) {
                *a += b;
            }
        }
    }

    pub fn to_f64(&self) -> [Vec<f64>; 2] {
        self.sums
            .each_ref()
            .map(|v| v.iter().map(|&s| to_f64(s)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_do_not_depend_on_the_order() {
        let terms: Vec<f64> = (1..2000)
            .map(|i| ((i * 7919) % 1000) as f64 * 1e-3 / i as f64 - 0.3 / (i * i) as f64)
            .collect();
        let forward: i128 = terms.iter().map(|&x| to_fixed(x)).sum();
        let backward: i128 = terms.iter().rev().map(|&x| to_fixed(x)).sum();
        assert_eq!(forward, backward);
        let exact: f64 = terms.iter().sum();
        assert!((to_f64(forward) - exact).abs() < 1e-13);
        assert_eq!(to_f64(to_fixed(-0.75)), -0.75);
        assert_eq!(to_f64(to_fixed(MAX_TERM)), MAX_TERM);
        let mut x = 0x1234_5678_9ABC_DEF1_u64;
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Magnitudes from 2^-120 to 2^30, both signs.
            let e = (x % 150) as i32 - 120;
            let v = (x >> 11) as f64 / (1u64 << 53) as f64 * 2f64.powi(e);
            let v = if x & 1 == 1 { -v } else { v };
            assert_eq!(to_fixed(v), (v * SCALE) as i128, "{v:e}");
        }
    }
}
