//! `launch` on a [`Latch`]ed property: the closure runs in a new fiber on the
//! trustee (so it may block), holding the latch; its result returns as a
//! completion record (`tr_launch_done`) to the launching worker.

use super::trampolines::{start_launch, tr_launch, tramp};
use super::Trust;
use crate::delegable::Delegable;
use crate::latch::Latch;
use crate::slot::{pad8, Reader, RECORD_HEADER};
use crate::worker::{blocking_point, worker, Cont, Worker};
use std::mem::MaybeUninit;

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
        let (t, p) = self.loc(w);
        if w.id == t {
            start_launch::<T, F, U>(w, p, f, w.id, token);
        } else {
            // The launch holds no weight until it has started (`weight.rs`).
            self.note_user(w);
            let len = RECORD_HEADER + pad8(size_of::<F>()) + 16;
            let q = w.enqueue(t, tramp!(tr_launch::<T, F, U>), p, len, Cont::Skip, |wr| {
                wr.put_value(f);
                wr.put_u64(w.id as u64);
                wr.put_u64(token);
            });
            w.backpressure(q);
        }
    }
}
