//! Parallel scatter into disjoint slots of one slice.
//!
//! The CSR fill pass claims every destination slot exactly once through an
//! atomic per-vertex cursor (`fetch_add`), so no two threads ever write the
//! same index. Safe Rust cannot express "disjoint indices decided at run
//! time", hence this small wrapper; it is the only `unsafe` in the CSR build.

use std::marker::PhantomData;

/// Write-only shared access to a mutable slice, for writers that each own
/// distinct indices.
pub(crate) struct Scatter<'a, T> {
    ptr: *mut T,
    len: usize,
    _borrow: PhantomData<&'a mut [T]>,
}

// SAFETY: a `Scatter` is only a raw view of a `&'a mut [T]` that it borrows
// exclusively for `'a`; sending or sharing it between threads is sound as
// long as writes target distinct indices, which `write`'s contract demands,
// and `T: Send` lets the values themselves cross threads.
unsafe impl<T: Send> Sync for Scatter<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Send> Send for Scatter<'_, T> {}

impl<'a, T: Copy> Scatter<'a, T> {
    /// Borrows `slice` exclusively for the scatter's lifetime.
    pub(crate) fn new(slice: &'a mut [T]) -> Self {
        Scatter {
            ptr: slice.as_mut_ptr(),
            len: slice.len(),
            _borrow: PhantomData,
        }
    }

    /// Writes `value` at `index`.
    ///
    /// # Safety
    /// No other thread may write or read `index` while the scatter lives
    /// (each index is claimed by at most one writer).
    #[inline]
    pub(crate) unsafe fn write(&self, index: usize, value: T) {
        // A wrong index is a logic error in the CSR build, never a result of
        // input data (counts and fills come from the same immutable edges).
        assert!(
            index < self.len,
            "scatter index {index} out of {}",
            self.len
        );
        // SAFETY: `index < len` was just checked, so the pointer stays in the
        // borrowed slice; the caller guarantees exclusive use of `index`; `T`
        // is `Copy`, so overwriting without dropping the old value is fine.
        unsafe { self.ptr.add(index).write(value) }
    }
}
