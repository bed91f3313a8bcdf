//! A property in trustee memory: a `PropBox` (the registry's `PropHeader` first,
//! then the value), allocated and registered on its trustee, dropped there through
//! the header's type-erased `drop_fn`; and moving its value to another trustee of
//! this process (`move_out`), which leaves the old box as a tombstone.

use crate::worker::{PropHeader, Worker, UNREGISTERED};
use std::cell::Cell;
use std::mem::ManuallyDrop;

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

/// Frees a tombstone: the box of a property whose value moved away, without
/// dropping the (moved) value.
///
/// # Safety
/// `p` must be the address `new_prop::<T>` or `move_out::<T>` returned, whose
/// value `move_out` has moved out, and never used again.
unsafe fn free_tomb<T>(p: *mut PropHeader) {
    // SAFETY: `PropBox<ManuallyDrop<T>>` has `PropBox<T>`'s layout (repr(C),
    // ManuallyDrop is transparent); the box came from `Box::into_raw` and is
    // freed once, its value (moved out) not dropped (caller contract).
    drop(unsafe { Box::from_raw(p as *mut PropBox<ManuallyDrop<T>>) });
}

/// A header holding weight `weight`, registered nowhere yet.
fn header<T>(weight: u128) -> PropHeader {
    PropHeader {
        weight: Cell::new(weight),
        reg: Cell::new(UNREGISTERED),
        drop_fn: drop_prop::<T>,
        pins: Cell::new(0),
        fwd_to: Cell::new(0),
        fwd: Cell::new(0),
    }
}

/// Allocates and registers a property on worker `w` (which must be the current one).
pub(super) fn new_prop<T: 'static>(w: &Worker, value: T) -> u64 {
    let b = Box::new(PropBox {
        hdr: header::<T>(INITIAL_WEIGHT as u128),
        value,
    });
    let p = Box::into_raw(b);
    w.register(p as *mut PropHeader);
    p as u64
}

/// Moves the value of property `p` of worker `w` (the current one) into a new box
/// for worker `to` of this process, and returns its address. The new box holds
/// all of `p`'s weight plus one unit that the adoption record (`tr_adopt`, which
/// the caller sends to `to`) returns once `to` registered it. `p` becomes a
/// tombstone that forwards to the new box, kept until shutdown; `w` learns the
/// route.
///
/// # Safety
/// `p` must be a live (not moved) `PropBox<T>` of `w` whose value nothing borrows
/// (no closure running on it, no launch pinning it: `pins == 0`), and `to` a
/// worker of this process.
pub(super) unsafe fn move_out<T: Send + 'static>(w: &Worker, p: u64, to: usize) -> u64 {
    let old = p as *mut PropBox<T>;
    // SAFETY: a live PropBox<T> of this worker whose value nothing borrows
    // (caller contract); the value is read out once and the box never drops it
    // (it is freed by `free_tomb`).
    let (value, weight) = unsafe { (std::ptr::read(&(*old).value), (*old).hdr.weight.get()) };
    let b = Box::new(PropBox {
        hdr: header::<T>(weight + 1),
        value,
    });
    let q = Box::into_raw(b) as u64;
    // SAFETY: as above; the header's fields are Cells.
    let h = unsafe { &(*old).hdr };
    h.weight.set(0);
    h.fwd_to.set(u32::try_from(to).expect("worker ids fit u32"));
    h.fwd.set(q);
    w.unregister(old as *mut PropHeader);
    w.add_tomb(old as *mut PropHeader, free_tomb::<T>);
    w.learn((w.id, p), (to, q), true);
    q
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
