//! Fallible allocation of the large arrays: [`try_vec`] and [`try_reserve`]
//! return an [`OutOfMemory`] that says what could not be allocated, how
//! large and why, instead of aborting the process; [`vec_or_exit`] and
//! [`reserve_or_exit`] end it with that message where no error can be
//! returned (kernel state built inside a trustee). Byte counts are shown
//! with [`gossamer::memory::show_bytes`].
//!
//! Every other allocation is infallible in Rust: a failure aborts the
//! process (SIGABRT, "memory allocation of N bytes failed"). A program that
//! installs [`ExitOnOom`] as its global allocator (the `gossamer-graph`
//! command does) gets a message saying what ran out and status 1 instead,
//! wherever the allocation was; the failures of the helpers here are still
//! returned to them.

use std::collections::TryReserveError;
use std::fmt;

/// A failed allocation of one of the large arrays: what, how large, why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutOfMemory {
    /// What was being allocated ("the edge list", "CSR targets", ...).
    pub what: &'static str,
    /// Bytes asked for.
    pub bytes: u128,
    /// The allocator's reason.
    pub reason: String,
}

impl fmt::Display for OutOfMemory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "out of memory while allocating {} ({}): {}; `gossamer-graph plan` shows what a run needs per rank",
            self.what,
            gossamer::memory::show_bytes(self.bytes),
            self.reason
        )
    }
}

impl std::error::Error for OutOfMemory {}

fn oom<T>(what: &'static str, len: usize, e: TryReserveError) -> OutOfMemory {
    OutOfMemory {
        what,
        bytes: std::mem::size_of::<T>() as u128 * len as u128,
        reason: e.to_string(),
    }
}

/// The system allocator for a program's `#[global_allocator]`, except that
/// an allocation that fails outside the fallible helpers of this module
/// prints what ran out and what to do, and ends the process with status 1
/// instead of aborting it. Nothing else changes (the cost is one check of
/// the result).
///
/// ```ignore
/// #[global_allocator]
/// static ALLOC: graph_core::alloc::ExitOnOom = graph_core::alloc::ExitOnOom;
/// ```
pub use crate::oom::ExitOnOom;

/// Reserves room for `additional` more elements in `v`, or says what
/// could not be allocated.
pub fn try_reserve<T>(
    v: &mut Vec<T>,
    additional: usize,
    what: &'static str,
) -> Result<(), OutOfMemory> {
    crate::oom::fallible(|| v.try_reserve_exact(additional))
        .map_err(|e| oom::<T>(what, v.len().saturating_add(additional), e))
}

/// `vec![value; len]`, but a failed allocation is an [`OutOfMemory`]
/// error instead of an abort.
///
/// The size is first reserved with `try_reserve_exact` (which reports
/// failure) and released, then allocated by `vec!`, which for zeros asks
/// the allocator for zeroed memory (`calloc`): its pages stay untouched,
/// and so unbacked, until used, where filling a reservation would write
/// every byte. The allocator has just granted the same size, so the
/// second request succeeds unless memory vanished in between.
///
/// ```
/// use graph_core::alloc::try_vec;
/// assert_eq!(try_vec(3, 7u8, "a test").unwrap(), [7, 7, 7]);
/// let e = try_vec(usize::MAX / 4, 0u64, "an absurd array").unwrap_err();
/// assert!(e.to_string().starts_with("out of memory while allocating an absurd array ("));
/// ```
pub fn try_vec<T: Clone>(len: usize, value: T, what: &'static str) -> Result<Vec<T>, OutOfMemory> {
    let mut probe: Vec<T> = Vec::new();
    crate::oom::fallible(|| probe.try_reserve_exact(len)).map_err(|e| oom::<T>(what, len, e))?;
    drop(probe);
    Ok(vec![value; len])
}

/// [`try_vec`] for code that cannot return an error (kernel state built
/// inside a trustee): a failed allocation prints the error and ends the
/// process with status 1, not an abort with a backtrace.
pub fn vec_or_exit<T: Clone>(len: usize, value: T, what: &'static str) -> Vec<T> {
    try_vec(len, value, what).unwrap_or_else(|e| exit_out_of_memory(&e))
}

/// [`vec_or_exit`] in huge pages where the system allows them
/// ([`advise_huge_pages`](crate::csr::advise_huge_pages), asked before the
/// first write): for a kernel's per-vertex arrays that a search reads and
/// writes at random (bounds, parents, row offsets), where 4 KiB pages cost
/// a page walk on nearly every access once the array outgrows the TLB.
pub fn huge_vec_or_exit<T: Clone>(len: usize, value: T, what: &'static str) -> Vec<T> {
    let mut v = Vec::new();
    if let Err(e) = crate::oom::fallible(|| v.try_reserve_exact(len)) {
        exit_out_of_memory(&oom::<T>(what, len, e))
    }
    crate::csr::advise_huge_pages(v.spare_capacity_mut());
    v.resize(len, value);
    v
}

/// Makes `v` hold `len` copies of `value`: filled in place when it has
/// that length already (a kernel's per-vertex array reset for its next
/// run, no new pages), allocated as [`huge_vec_or_exit`] does otherwise.
pub fn refill<T: Clone>(v: &mut Vec<T>, len: usize, value: T, what: &'static str) {
    if v.len() == len {
        v.fill(value);
    } else {
        *v = huge_vec_or_exit(len, value, what);
    }
}

/// Returns the allocator's free memory to the system where it would stay
/// resident (glibc keeps freed allocations under 32 MiB in its heaps): for
/// a kernel that frees large state between searches, so that what follows
/// does not count it again. A few milliseconds; no effect on results.
pub fn give_back_freed() {
    crate::oom::trim();
}

/// [`try_reserve`] for code that cannot return an error; see [`vec_or_exit`].
pub fn reserve_or_exit<T>(v: &mut Vec<T>, additional: usize, what: &'static str) {
    if let Err(e) = try_reserve(v, additional, what) {
        exit_out_of_memory(&e)
    }
}

fn exit_out_of_memory(e: &OutOfMemory) -> ! {
    eprintln!("error: {e}");
    std::process::exit(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absurd_allocations_are_errors_not_aborts() {
        let e = try_vec(usize::MAX / 2, 0u32, "the test's array").unwrap_err();
        let text = e.to_string();
        assert!(
            text.starts_with("out of memory while allocating the test's array ("),
            "{text}"
        );
        assert!(text.contains("gossamer-graph plan"), "{text}");
        let mut v = vec![1u8];
        let e = try_reserve(&mut v, usize::MAX - 8, "more bytes").unwrap_err();
        assert!(e.to_string().contains("allocating more bytes"), "{e}");
        assert_eq!(try_vec(4, 2u16, "four").unwrap(), [2, 2, 2, 2]);
        let mut v = vec![1u8; 3];
        refill(&mut v, 3, 7, "three");
        assert_eq!(v, [7, 7, 7]);
        refill(&mut v, 2, 5, "two");
        assert_eq!(v, [5, 5]);
    }
}
