//! Software prefetch for the walks over the tables.

/// Asks for the cache line holding `*p`, which a walk will read soon: the
/// rows, policies, sums and regrets of 3x3 Dark Hex are spread over
/// hundreds of MB, and each node reads a few of them.
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and does not read the value; SSE is
    // part of every x86_64 target.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(p.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
