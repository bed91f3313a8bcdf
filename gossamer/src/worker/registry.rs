//! The trustee's registry of live properties: the `PropHeader` in front of every
//! entrusted value, registering a new property, and returning weight to one (which
//! drops it once all weight is back; see `trust/weight.rs`). Shutdown drops what is
//! still registered (`run_loop.rs`).

use super::{Delegated, Worker};
use std::cell::Cell;

/// The per-property header in front of every entrusted value.
#[repr(C)]
pub(crate) struct PropHeader {
    /// Weight of all live trusts plus weight in flight back (see `trust/weight.rs`).
    pub weight: Cell<u128>,
    /// Index in the trustee's registry; `UNREGISTERED` for a value that moved
    /// here and is not adopted yet, or one that moved away (see `moves.rs`).
    pub reg: Cell<usize>,
    /// Drops the whole `PropBox<T>`.
    pub drop_fn: unsafe fn(*mut PropHeader),
    /// Launched closures running on the value (it cannot move meanwhile).
    pub pins: Cell<u32>,
    /// The trustee the value moved to (meaningful when `fwd` is not 0).
    pub fwd_to: Cell<u32>,
    /// The value's address on `fwd_to` once it moved away (this header is then
    /// a tombstone); 0 while the value lives here.
    pub fwd: Cell<u64>,
}

/// `PropHeader::reg` of a property in no registry.
pub(crate) const UNREGISTERED: usize = usize::MAX;

impl PropHeader {
    /// Whether the value of the property at `p` moved away (a tombstone).
    ///
    /// # Safety
    /// `p` must be the address of a property header (live or tombstone) of the
    /// current worker.
    #[inline(always)]
    pub(crate) unsafe fn moved(p: u64) -> bool {
        // SAFETY: a header of this worker (caller contract); `fwd` is a Cell.
        unsafe { (*(p as *const PropHeader)).fwd.get() != 0 }
    }
}

#[derive(Default)]
pub(super) struct Registry {
    pub(super) props: Vec<*mut PropHeader>,
    pub(super) free: Vec<usize>,
}

impl Worker {
    /// Registers a new property so shutdown can drop it.
    pub(crate) fn register(&self, p: *mut PropHeader) {
        let mut r = self.registry.borrow_mut();
        let idx = match r.free.pop() {
            Some(i) => {
                r.props[i] = p;
                i
            }
            None => {
                r.props.push(p);
                r.props.len() - 1
            }
        };
        // SAFETY: `p` is a freshly allocated, live property header.
        unsafe { (*p).reg.set(idx) };
    }

    /// Takes a property out of the registry (it is being dropped, or its value
    /// moved away); nothing happens to one that is in none.
    pub(crate) fn unregister(&self, p: *mut PropHeader) {
        // SAFETY: `p` is a property header of this worker (callers' contract).
        let h = unsafe { &*p };
        let i = h.reg.replace(UNREGISTERED);
        if i != UNREGISTERED {
            let mut r = self.registry.borrow_mut();
            r.props[i] = std::ptr::null_mut();
            r.free.push(i);
        }
    }

    /// Returns `w` weight to a property of this trustee; drops it when none is left.
    ///
    /// # Safety
    /// `p` must be a live property of this worker, and `w` weight its caller owned.
    pub(crate) unsafe fn release_local(&self, p: *mut PropHeader, w: u64) {
        // SAFETY: live property (caller contract); header fields are Cells.
        let h = unsafe { &*p };
        let cur = h.weight.get();
        let w = w as u128;
        assert!(
            w <= cur,
            "gossamer: trust reference count underflow (runtime bug)"
        );
        h.weight.set(cur - w);
        if cur == w {
            self.unregister(p);
            let _d = Delegated::enter(self);
            // SAFETY: the last weight came back: no trust and no request refers to the
            // property any more; it was unregistered above, so it is dropped once.
            unsafe { (h.drop_fn)(p) };
        }
    }
}
