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
    /// Index in the trustee's registry.
    pub reg: Cell<usize>,
    /// Drops the whole `PropBox<T>`.
    pub drop_fn: unsafe fn(*mut PropHeader),
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
            {
                let mut r = self.registry.borrow_mut();
                let i = h.reg.get();
                r.props[i] = std::ptr::null_mut();
                r.free.push(i);
            }
            let _d = Delegated::enter(self);
            // SAFETY: the last weight came back: no trust and no request refers to the
            // property any more; it was unregistered above, so it is dropped once.
            unsafe { (h.drop_fn)(p) };
        }
    }
}
