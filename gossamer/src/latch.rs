//! [`Latch<T>`]: mutual exclusion among one trustee's fibers, without atomics.

use crate::worker::worker;
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

impl<T> Drop for Latch<T> {
    fn drop(&mut self) {
        // SAFETY: `value` came from `Box::leak` in `new` and is dropped only here.
        drop(unsafe { Box::from_raw(self.value.as_ptr()) });
    }
}
