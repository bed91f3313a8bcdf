//! A property in trustee memory: a `PropBox` (the registry's `PropHeader` first,
//! then the value), allocated and registered on its trustee, dropped there through
//! the header's type-erased `drop_fn`.

use crate::worker::{PropHeader, Worker};
use std::cell::Cell;

/// Weight of a new trust (and of the property's total); see `weight.rs`.
pub(super) const INITIAL_WEIGHT: u64 = 1 << 62;

/// A property in trustee memory: header first (so a property address is also a
/// header address), then the value.
#[repr(C)]
pub(super) struct PropBox<T> {
    hdr: PropHeader,
    pub(super) value: T,
}

/// Drops a whole property (header and value); the header's `drop_fn`.
///
/// # Safety
/// `p` must be the address `new_prop::<T>` returned (a `Box<PropBox<T>>` turned
/// into a raw pointer), still live, and never used again: the registry and the
/// weight count make sure each property is dropped exactly once.
unsafe fn drop_prop<T>(p: *mut PropHeader) {
    // SAFETY: `p` came from `Box::into_raw(Box<PropBox<T>>)` in `new_prop::<T>`,
    // and is dropped only here, once (caller contract).
    drop(unsafe { Box::from_raw(p as *mut PropBox<T>) });
}

/// Allocates and registers a property on worker `w` (which must be the current one).
pub(super) fn new_prop<T: 'static>(w: &Worker, value: T) -> u64 {
    let b = Box::new(PropBox {
        hdr: PropHeader {
            weight: Cell::new(INITIAL_WEIGHT as u128),
            reg: Cell::new(0),
            drop_fn: drop_prop::<T>,
        },
        value,
    });
    let p = Box::into_raw(b);
    w.register(p as *mut PropHeader);
    p as u64
}

/// The value of the property at `p`, for the one closure running on it.
///
/// # Safety
/// `p` must be a live `PropBox<T>` of the current worker, with no other reference
/// to its value alive for `'a` (delegated closures run one at a time).
#[inline(always)]
pub(super) unsafe fn value_mut<'a, T>(p: u64) -> &'a mut T {
    // SAFETY: caller contract.
    unsafe { &mut (*(p as *mut PropBox<T>)).value }
}
