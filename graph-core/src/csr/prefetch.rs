//! Software prefetch for the scattered accesses of the build.
//!
//! The counting sort's cursor updates and entry stores go to unpredictable
//! cache lines; the hardware prefetchers cannot guess them, but the edge
//! list tells which lines the next few dozen edges need.

/// Starts loading the cache line holding `x` (a hint: no effect on
/// results). Also for graph-kernel's renaming of adjacency entries, which
/// reads a table at the places the entries a few dozen ahead name.
#[inline(always)]
pub fn line<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: `_mm_prefetch` needs SSE, part of every x86_64 CPU
        // (the target's baseline), and a prefetch never faults or
        // changes memory; the pointer comes from a live reference.
        unsafe { _mm_prefetch::<_MM_HINT_T0>((x as *const T).cast::<i8>()) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}
