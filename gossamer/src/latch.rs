//! [`Latch<T>`]: mutual exclusion among one trustee's fibers, without atomics.

use crate::worker::worker;
use serde::{ser, Deserialize, Deserializer, Serialize, Serializer};
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::marker::PhantomData;
use std::ptr::NonNull;

/// A value guarded for [`Trust::launch`](crate::Trust::launch): closures launched on
/// a `Trust<Latch<T>>` run in their own fibers on the trustee and may block, and the
/// latch makes them run one at a time (a later one waits until the earlier returns).
/// It uses no atomic instructions: only fibers of the trustee's thread touch it.
///
/// The value lives in its own allocation, so a plain `apply` on the
/// `Trust<Latch<T>>` (which only sees the latch, not the value) cannot alias a
/// launched closure's `&mut T`.
pub struct Latch<T> {
    locked: Cell<bool>,
    waiters: RefCell<VecDeque<usize>>,
    value: NonNull<T>,
    _own: PhantomData<T>,
}

// SAFETY: a Latch owns its T (like a Box); moving it to another thread moves the T.
// Its waiter list is empty whenever it is not entrusted (only launches fill it).
unsafe impl<T: Send> Send for Latch<T> {}

impl<T> Latch<T> {
    /// Wraps `value`.
    pub fn new(value: T) -> Self {
        Latch {
            locked: Cell::new(false),
            waiters: RefCell::new(VecDeque::new()),
            value: NonNull::from(Box::leak(Box::new(value))),
            _own: PhantomData,
        }
    }

    /// True while a launched closure holds the latch.
    pub fn is_locked(&self) -> bool {
        self.locked.get()
    }

    /// Takes the latch, parking the calling fiber while another holds it.
    ///
    /// # Safety
    /// `l` must point to a live latch; call from a fiber on the latch's trustee.
    pub(crate) unsafe fn acquire(l: *const Self) {
        let w = worker("launch");
        // SAFETY: caller contract; only short-lived shared borrows of the fields.
        unsafe {
            while (*l).locked.get() {
                (*l).waiters.borrow_mut().push_back(w.current_fiber());
                w.park();
            }
            (*l).locked.set(true);
        }
    }

    /// Releases the latch and wakes the oldest waiter.
    ///
    /// # Safety
    /// As for [`Latch::acquire`], by the fiber that holds the latch.
    pub(crate) unsafe fn release(l: *const Self) {
        // SAFETY: caller contract.
        let next = unsafe {
            (*l).locked.set(false);
            (*l).waiters.borrow_mut().pop_front()
        };
        if let Some(fid) = next {
            worker("launch").wake(fid);
        }
    }

    /// The guarded value.
    ///
    /// # Safety
    /// `l` must point to a live latch held by the caller.
    pub(crate) unsafe fn value_ptr(l: *const Self) -> *mut T {
        // SAFETY: caller contract.
        unsafe { (*l).value.as_ptr() }
    }
}

/// A latch serializes as its value (so a latched property can move into
/// another rank, [`Trust::migrate_with`](crate::Trust::migrate_with)), and
/// refuses while a launched closure holds it: that closure may be suspended
/// with the value borrowed mutably. (A move checks this before serializing,
/// and does not move a held latch.)
impl<T: Serialize> Serialize for Latch<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.locked.get() {
            return Err(ser::Error::custom(
                "a launched closure holds the latch: its value cannot be serialized now",
            ));
        }
        // Held for the call, so that a fiber the value's own `serialize`
        // might switch to cannot launch on it meanwhile (it would wait).
        self.locked.set(true);
        let _release = Release(self);
        // SAFETY: `value` lives until `self` is dropped, and only a holder of
        // the latch borrows it (`value_ptr`); we hold it until `_release`
        // drops, after this borrow ends, so it aliases no `&mut T`.
        unsafe { self.value.as_ref() }.serialize(s)
    }
}

/// Releases a latch when dropped (also when the value's serialization
/// panics).
struct Release<'a, T>(&'a Latch<T>);

impl<T> Drop for Release<'_, T> {
    fn drop(&mut self) {
        // SAFETY: the latch is live (borrowed) and held by this guard's
        // owner; a fiber that waits for it waits on this thread (a latch is
        // not `Sync`), so this is its trustee's thread when there is one.
        unsafe { Latch::release(self.0) }
    }
}

/// The other half of [`Latch`]'s `Serialize`: a new, unheld latch around
/// the decoded value.
impl<'de, T: Deserialize<'de>> Deserialize<'de> for Latch<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        T::deserialize(d).map(Latch::new)
    }
}

impl<T> Drop for Latch<T> {
    fn drop(&mut self) {
        // SAFETY: `value` came from `Box::leak` in `new` and is dropped only here.
        drop(unsafe { Box::from_raw(self.value.as_ptr()) });
    }
}
