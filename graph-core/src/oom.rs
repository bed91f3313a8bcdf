//! The global allocator behind [`ExitOnOom`](crate::alloc::ExitOnOom): the
//! system's, except that an allocation that fails where nothing can take
//! the error ends the process with a message and status 1, not an abort.
//!
//! The fallible helpers of [`crate::alloc`] mark the allocations they make
//! ([`fallible`]); those failures are returned to them as usual. All the
//! unsafe code of this module is the `GlobalAlloc` contract passed through
//! to [`System`], the `write(2)` and `_exit(2)` calls that report and
//! end without allocating, and glibc's `malloc_trim(3)` ([`trim`]).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    /// How many fallible allocations this thread is inside (their failures
    /// are the caller's to handle).
    static FALLIBLE: Cell<u32> = const { Cell::new(0) };
}

/// Runs `f` with this thread's allocation failures returned to it (as a
/// null pointer, which `try_reserve` turns into an error), not reported.
pub(crate) fn fallible<R>(f: impl FnOnce() -> R) -> R {
    struct Leave;
    impl Drop for Leave {
        fn drop(&mut self) {
            let _ = FALLIBLE.try_with(|c| c.set(c.get().saturating_sub(1)));
        }
    }
    let _ = FALLIBLE.try_with(|c| c.set(c.get() + 1));
    let _leave = Leave;
    f()
}

/// Ends the process after a failed allocation of `size` bytes that no
/// fallible helper asked for; returns if one did.
fn failed(size: usize) {
    // Thread-local access without a destructor allocates nothing; after
    // the thread's locals are gone, report.
    if FALLIBLE.try_with(|c| c.get() > 0).unwrap_or(false) {
        return;
    }
    use std::io::Write;
    let mut buf = [0u8; 512];
    let len = {
        let mut w = &mut buf[..];
        let _ = writeln!(
            w,
            "error: out of memory: an allocation of {size} bytes failed; the run needs more memory than this process may use (the machine's, or a limit set with ulimit -v / ulimit -d, prlimit or the job's cgroup). `gossamer-graph plan` shows what a run needs per rank; use fewer threads, a smaller graph, or more ranks on more hosts"
        );
        512 - w.len()
    };
    // SAFETY: writes `len` initialized bytes of `buf` to stderr; no memory
    // is allocated, and a failed write changes nothing.
    let _ = unsafe { libc::write(2, buf.as_ptr().cast(), len) };
    // SAFETY: ends the process at once (no destructors, no atexit
    // handlers: they might allocate, or wait for a lock this thread holds).
    unsafe { libc::_exit(1) }
}

/// See [`crate::alloc::ExitOnOom`].
pub struct ExitOnOom;

// SAFETY: every method passes its arguments to `System`, which upholds the
// `GlobalAlloc` contract, and returns its result unchanged (a null result
// either ends the process or is returned as the failure it is).
unsafe impl GlobalAlloc for ExitOnOom {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's `layout` obligations are passed on.
        let p = unsafe { System.alloc(layout) };
        if p.is_null() {
            failed(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as in `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if p.is_null() {
            failed(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator (so from `System`) with
        // `layout`, as the caller guarantees.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's obligations for `ptr`, `layout` and
        // `new_size` are passed on to `System`, which allocated `ptr`.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if p.is_null() {
            failed(new_size);
        }
        p
    }
}

/// Gives the free memory of the C allocator's heaps back to the system
/// (glibc's `malloc_trim(0)`; nothing elsewhere). Arrays under glibc's
/// largest mmap threshold (32 MiB) come from its heaps, whose freed pages
/// otherwise stay resident: a kernel's per-vertex arrays freed after a
/// search at SCALE 22 would still count in the peak after it.
pub(crate) fn trim() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` takes no pointers and locks each arena it
    // trims; any thread may call it at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}
