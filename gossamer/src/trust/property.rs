//! A property in trustee memory: a `PropBox` (the registry's `PropHeader` first,
//! then the value), allocated and registered on its trustee, dropped there through
//! the header's type-erased `drop_fn`; and moving its value to another trustee,
//! which leaves the old box as a tombstone: through memory in this process
//! (`move_out`), or through bytes into a pending box reserved on the new
//! trustee (`reserve`, `take_out`, `fill`, `commit`, `cancel`).

use crate::worker::{PropHeader, Worker, UNREGISTERED};
use std::cell::Cell;
use std::mem::{ManuallyDrop, MaybeUninit};

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
/// `p` must be the address of a `PropBox<T>` made by `new_prop::<T>`,
/// `move_out::<T>` or `reserve::<T>` (then filled), whose value `move_out` or
/// `take_out` has read out, and never used again.
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
    // SAFETY: as above.
    unsafe { entomb::<T>(w, p, (to, q)) };
    q
}

/// Turns the live property `p` of `w` (the current worker), whose value was
/// just read out, into a tombstone forwarding to `to` (trustee, address):
/// its weight goes with the value (the caller's to hand on), it leaves the
/// registry and is kept until shutdown. `w` learns the route, unless `to` is
/// `p` itself (a value on its way through bytes, see [`take_out`]).
///
/// # Safety
/// `p` must be a `PropBox<T>` of `w` whose value has been read out (it is
/// never dropped from this box again), and `to` the address the value goes to.
unsafe fn entomb<T>(w: &Worker, p: u64, to: (usize, u64)) {
    // SAFETY: a header of this worker (caller contract); its fields are Cells.
    let h = unsafe { &*(p as *const PropHeader) };
    h.weight.set(0);
    h.fwd_to
        .set(u32::try_from(to.0).expect("worker ids fit u32"));
    h.fwd.set(to.1);
    w.unregister(p as *mut PropHeader);
    w.add_tomb(p as *mut PropHeader, free_tomb::<T>);
    if to != (w.id, p) {
        w.learn((w.id, p), to, true);
    }
}

/// Takes the value and the weight out of the live property `p` of `w` (the
/// current worker) for a move through bytes (`Trust::migrate_with`). `p`
/// becomes a *shipping* tombstone: it forwards to itself, so every request
/// that reaches it bounces and is sent here again, until [`commit`] names the
/// box the value was put in. Meanwhile `w`'s own requests to it go through
/// the chase queue too (`Worker::resolve`), never inline.
///
/// # Safety
/// As for [`move_out`].
pub(super) unsafe fn take_out<T>(w: &Worker, p: u64) -> (T, u128) {
    let old = p as *mut PropBox<T>;
    // SAFETY: a live PropBox<T> of this worker whose value nothing borrows
    // (caller contract); the value is read out once, and the box, a tombstone
    // from here on, never drops it.
    let taken = unsafe { (std::ptr::read(&(*old).value), (*old).hdr.weight.get()) };
    // SAFETY: the value was read out just above.
    unsafe { entomb::<T>(w, p, (w.id, p)) };
    // This worker's requests now look their address up (and find it moved).
    w.any_fwd.set(true);
    taken
}

/// Makes the shipping tombstone `p` of `w` (the current worker) forward to
/// `to`, the box its value was put in, and learns the route.
///
/// # Safety
/// `p` must be a tombstone that [`take_out`] made on `w`, not committed yet,
/// and `to` a box [`fill`]ed with its value.
pub(super) unsafe fn commit(w: &Worker, p: u64, to: (usize, u64)) {
    // SAFETY: a header of this worker (caller contract); its fields are Cells.
    let h = unsafe { &*(p as *const PropHeader) };
    debug_assert_eq!((h.fwd_to.get() as usize, h.fwd.get()), (w.id, p));
    h.fwd_to
        .set(u32::try_from(to.0).expect("worker ids fit u32"));
    h.fwd.set(to.1);
    w.learn((w.id, p), to, true);
}

/// Reserves a *pending box* on `w` (the current worker) for a value that will
/// move here through bytes (`Trust::migrate_with`): a header with no weight, in
/// no registry, forwarding to itself (no request can reach it: only the mover
/// knows its address until it is filled). [`fill`] makes it a live property,
/// [`cancel`] frees it.
pub(super) fn reserve<T>(w: &Worker) -> u64 {
    let b = Box::new(PropBox {
        hdr: header::<T>(0),
        value: MaybeUninit::<T>::uninit(),
    });
    let p = Box::into_raw(b) as u64;
    // SAFETY: just allocated; the header's fields are Cells.
    let h = unsafe { &*(p as *const PropHeader) };
    h.fwd_to
        .set(u32::try_from(w.id).expect("worker ids fit u32"));
    h.fwd.set(p);
    p
}

/// Whether the header at `p` is a pending box ([`reserve`]) not filled yet.
///
/// # Safety
/// `p` must be a property header (live, tombstone or pending) of the current
/// worker.
pub(super) unsafe fn is_pending(p: u64) -> bool {
    // SAFETY: a header of this worker (caller contract); `fwd` is a Cell.
    unsafe { (*(p as *const PropHeader)).fwd.get() == p }
}

/// Puts `value` with `weight` into the pending box `p` of `w` (the current
/// worker): from now on it is a live property, registered there.
///
/// # Safety
/// `p` must be a pending box that [`reserve::<T>`] made on `w`, neither filled
/// nor cancelled yet.
pub(super) unsafe fn fill<T>(w: &Worker, p: u64, value: T, weight: u128) {
    let b = p as *mut PropBox<T>;
    // SAFETY: a `PropBox<MaybeUninit<T>>` (the layout of a `PropBox<T>`,
    // repr(C)) allocated by `reserve`, whose value was never written; only its
    // header has been read since, through Cells.
    unsafe { std::ptr::addr_of_mut!((*b).value).write(value) };
    // SAFETY: as above.
    let h = unsafe { &*(p as *const PropHeader) };
    h.weight.set(weight);
    h.fwd.set(0);
    h.fwd_to.set(0);
    w.register(p as *mut PropHeader);
}

/// Frees a pending box that will not be filled (the value did not move).
///
/// # Safety
/// `p` must be a pending box that [`reserve::<T>`] made on the current worker,
/// neither filled nor cancelled (so no tombstone forwards to it).
pub(super) unsafe fn cancel<T>(p: u64) {
    // SAFETY: allocated by `reserve` as a `Box<PropBox<MaybeUninit<T>>>`, freed
    // once (caller contract); the uninitialised value is not dropped.
    drop(unsafe { Box::from_raw(p as *mut PropBox<MaybeUninit<T>>) });
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
