//! Huge-page advice for the arrays the scatter writes at random.
//!
//! Every entry write of the counting sort lands on an unpredictable page of
//! arrays far larger than the TLB covers; with 4 KiB pages nearly each one
//! also walks the page table. On Linux with transparent huge pages in
//! `madvise` mode, `MADV_HUGEPAGE` lets the kernel back those arrays with
//! 2 MiB pages instead. Elsewhere this does nothing.

/// Advises huge pages for the whole 2 MiB pages inside `xs` (if any).
/// Best called before the memory is first touched (e.g. right after
/// [`vec_or_exit`](crate::alloc::vec_or_exit) of zeros, whose pages stay
/// untouched until written). Also for tables other crates read at random
/// (graph-kernel's renumbering, read once per adjacency entry).
pub fn advise<T>(xs: &mut [T]) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let bytes = std::mem::size_of_val(xs);
        let start = xs.as_mut_ptr() as usize;
        let first = start.next_multiple_of(HUGE);
        let end = (start + bytes) / HUGE * HUGE;
        if end > first {
            // SAFETY: the range is whole pages inside the memory `xs`
            // owns (borrowed mutably, so nobody else is using it), and
            // MADV_HUGEPAGE only changes how the kernel backs those
            // pages, never their contents or validity. The call is
            // advice: an error leaves everything as it was, so the
            // result is ignored.
            unsafe {
                libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = xs;
}
