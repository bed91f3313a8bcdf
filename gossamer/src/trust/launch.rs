//! `launch` on a [`Latch`]ed property: the closure runs in a new fiber on the
//! trustee (so it may block), holding the latch; its result returns as a
//! completion record (`tr_launch_done`) to the launching worker.

use super::property::PropBox;
use super::trampolines::{tr_launch, tr_launch_done, tramp};
use super::values::put_value;
use super::Trust;
use crate::delegable::Delegable;
use crate::latch::Latch;
use crate::runtime::blocking_point;
use crate::slot::{pad8, AlignedBuf, Reader, RECORD_HEADER};
use crate::worker::{panic_message, worker, Cont, PropHeader, Worker};
use std::mem::MaybeUninit;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Runs a launched closure in a new fiber on this (the trustee's) worker.
pub(super) fn start_launch<
    T: 'static,
    F: FnOnce(&mut T) -> U + Copy + 'static,
    U: Copy + 'static,
>(
    w: &Worker,
    p: u64,
    f: F,
    client: usize,
    token: u64,
) {
    // Pin the property for the fiber's lifetime (one unit of weight, see module doc).
    // SAFETY: `p` is a live property of this worker (the launching trust holds weight).
    let h = unsafe { &*(p as *const PropHeader) };
    h.weight.set(h.weight.get() + 1);
    w.spawn_local(Box::new(move || {
        let w = worker("launch");
        let lp = p as *mut PropBox<Latch<T>> as *const PropBox<Latch<T>>;
        let res = catch_unwind(AssertUnwindSafe(|| {
            // SAFETY: the property is pinned; the latch serialises access to its value
            // among this worker's fibers, and the value lives in its own allocation.
            unsafe {
                let latch = std::ptr::addr_of!((*lp).value);
                Latch::acquire(latch);
                let u = f(&mut *Latch::value_ptr(latch));
                Latch::release(latch);
                u
            }
        }));
        match res {
            Ok(u) => {
                if client == w.id {
                    let mut buf = AlignedBuf::default();
                    put_value(&mut buf, u);
                    // SAFETY: reading our own buffer.
                    let mut r = unsafe { Reader::new(buf.as_ptr(), buf.len()) };
                    w.finish_launch(token, &mut r);
                } else {
                    let q = w.enqueue(
                        client,
                        tramp!(tr_launch_done),
                        token,
                        RECORD_HEADER + pad8(size_of::<U>()),
                        Cont::Skip,
                        |wr| wr.put_value(u),
                    );
                    w.backpressure(q);
                }
                // SAFETY: releases the pin taken above.
                unsafe { w.release_local(p as *mut PropHeader, 1) };
            }
            Err(e) => {
                let msg = panic_message(&*e);
                w.shared.poison(format!(
                    "gossamer: a launched closure panicked on trustee {}: {msg}",
                    w.id
                ));
            }
        }
    }));
}

impl<T: 'static> Trust<Latch<T>> {
    /// Runs `f` on the latched value in a new fiber on the trustee, so `f` may block
    /// (e.g. nested `apply`). Closures launched on the same latch run one at a time.
    /// Suspends the calling fiber until `f` returns.
    pub fn launch<U: Delegable>(&self, f: impl FnOnce(&mut T) -> U + Delegable) -> U {
        let w = blocking_point("launch");
        self.check(w);
        let mut out = MaybeUninit::<U>::uninit();
        let outp = out.as_mut_ptr();
        let fid = w.current_fiber();
        self.launch_inner(w, f, move |u| {
            // SAFETY: the launching fiber stays parked (its frame alive) until woken here.
            unsafe { outp.write(u) };
            worker("launch").wake(fid);
        });
        w.park();
        // SAFETY: written by the continuation before the wake-up.
        unsafe { out.assume_init() }
    }

    /// Non-blocking [`launch`](Self::launch): `then` runs on this worker with the
    /// result, in delegated context.
    pub fn launch_then<U: Delegable>(
        &self,
        f: impl FnOnce(&mut T) -> U + Delegable,
        then: impl FnOnce(U) + 'static,
    ) {
        let w = self.my_worker("launch_then");
        self.launch_inner(w, f, then);
    }

    fn launch_inner<F: FnOnce(&mut T) -> U + Copy + 'static, U: Copy + 'static>(
        &self,
        w: &Worker,
        f: F,
        then: impl FnOnce(U) + 'static,
    ) {
        let token = w.add_launch(Box::new(move |r: &mut Reader| {
            // SAFETY: the completion record for this token holds the U that
            // `start_launch` wrote with `put_value`, at the cursor.
            then(unsafe { r.value::<U>() })
        }));
        if w.id == self.trustee {
            start_launch::<T, F, U>(w, self.ptr, f, w.id, token);
        } else {
            let len = RECORD_HEADER + pad8(size_of::<F>()) + 16;
            let q = w.enqueue(
                self.trustee,
                tramp!(tr_launch::<T, F, U>),
                self.ptr,
                len,
                Cont::Skip,
                |wr| {
                    wr.put_value(f);
                    wr.put_u64(w.id as u64);
                    wr.put_u64(token);
                },
            );
            w.backpressure(q);
        }
    }
}
