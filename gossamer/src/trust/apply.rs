//! The [`Trust`] type and its apply family: running a closure on the property,
//! blocking the calling fiber (`apply`, `apply_with`, `apply_slice`,
//! `apply_returning`) or not (their `_then` forms, whose continuation runs later on
//! this worker). A local property runs inline (or deferred in delegated context); a
//! remote one gets a request record. The type and these methods share a module so
//! that compiler errors name them `Trust::<T>::apply` (tests/ui/*.stderr).

use super::property::value_mut;
use super::trampolines::{tr_apply, tr_returning, tr_slice, tr_with, tramp};
use super::values::{read_into, read_serde, read_serde_into};
use crate::codec;
use crate::delegable::Delegable;
use crate::fiber;
use crate::pod::Pod;
use crate::runtime::WorkerId;
use crate::slot::{pad8, Reader, RECORD_HEADER};
use crate::worker::{blocking_point, try_worker, worker, Cont, Delegated, Worker};
use serde::{de::DeserializeOwned, Serialize};
use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::sync::atomic::AtomicU64;

/// A reference to a property owned by a trustee. Apply closures to it; clone it to
/// share it; the property is dropped on its trustee when the last trust goes.
///
/// `Trust<T>` is `Send` and `Sync` whatever `T` is: the property itself never leaves
/// its trustee.
///
/// When the property belongs to the calling worker, requests run inline (the
/// local-trustee shortcut): `apply` calls the closure directly, and `apply_then`
/// calls the closure and then `then` before returning. From delegated context a
/// local request is queued instead and runs from the worker loop, so two closures
/// never hold the same property at once. Per (client worker, trustee) pair, requests
/// run in issue order and their continuations are called in issue order.
///
/// Dropping a trust returns its reference weight to the trustee (asynchronously
/// when remote); the property is dropped there once all weight is back. A trust
/// dropped on a thread that is not a worker of its runtime does nothing; its
/// property is then dropped when the runtime shuts down.
pub struct Trust<T> {
    pub(super) ptr: u64,
    pub(super) trustee: usize,
    pub(super) rt: u64,
    pub(super) weight: AtomicU64,
    pub(super) _p: PhantomData<fn() -> T>,
}

impl<T> std::fmt::Debug for Trust<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Trust<{}>@{:#x} on worker {}",
            std::any::type_name::<T>(),
            self.ptr,
            self.trustee
        )
    }
}

impl<T: 'static> Trust<T> {
    /// The worker that owns the property.
    pub fn trustee(&self) -> WorkerId {
        WorkerId(self.trustee)
    }

    /// True when the property belongs to the calling worker.
    pub fn is_local(&self) -> bool {
        try_worker().is_some_and(|w| w.id == self.trustee && w.shared.rt == self.rt)
    }

    pub(super) fn my_worker(&self, what: &str) -> &'static Worker {
        let w = worker(what);
        assert!(
            w.shared.rt == self.rt,
            "gossamer: `{what}` on a Trust that belongs to another (finished?) runtime"
        );
        w
    }

    pub(super) fn check(&self, w: &Worker) {
        assert!(
            w.shared.rt == self.rt,
            "gossamer: this Trust belongs to another (finished?) runtime"
        );
    }

    /// Runs `f` inline for a local property from a fiber, or defers it (delegated
    /// context) so it never runs while another closure holds the property.
    #[inline(always)]
    fn local(&self, w: &'static Worker, job: impl FnOnce(&mut T) + 'static) {
        let p = self.ptr;
        if w.delegated.get() > 0 || !fiber::in_fiber() {
            // SAFETY: (in the job) deferred jobs run one at a time from the worker
            // loop, before this trust's release (deferred after it, or drained first).
            w.defer(Box::new(move || job(unsafe { value_mut::<T>(p) })));
        } else {
            w.run_deferred();
            let _d = Delegated::enter(w);
            // SAFETY: we are on the trustee, in a fiber, and no delegated closure is
            // running (delegated == 0), so nothing else references the value.
            job(unsafe { value_mut::<T>(p) });
        }
    }

    /// Applies `f` to the property and returns its result, suspending only the
    /// calling fiber. Runs inline when the property is local.
    ///
    /// Panics in delegated context (use [`apply_then`](Self::apply_then) or
    /// [`launch`](Trust::launch) there).
    pub fn apply<U: Delegable>(&self, f: impl FnOnce(&mut T) -> U + Delegable) -> U {
        let w = blocking_point("apply");
        self.check(w);
        if w.id == self.trustee {
            w.run_deferred();
            let _d = Delegated::enter(w);
            // SAFETY: local, fiber context, no delegated closure running.
            return f(unsafe { value_mut::<T>(self.ptr) });
        }
        self.remote_blocking(w, f)
    }

    fn remote_blocking<F: FnOnce(&mut T) -> U + Copy, U: Copy>(&self, w: &Worker, f: F) -> U {
        let mut out = MaybeUninit::<U>::uninit();
        let cont = Cont::Wake {
            fid: w.current_fiber(),
            out: out.as_mut_ptr() as *mut u8,
            read: read_into::<U>,
        };
        let len = RECORD_HEADER + pad8(size_of::<F>());
        w.enqueue(
            self.trustee,
            tramp!(tr_apply::<T, F, U>),
            self.ptr,
            len,
            cont,
            |wr| wr.put_value(f),
        );
        w.park();
        // SAFETY: the continuation wrote the value before waking us.
        unsafe { out.assume_init() }
    }

    /// Applies `f` to the property without blocking; `then` runs later on this
    /// worker, in delegated context, with the result. Requests from one worker to
    /// one trustee run, and their `then`s are called, in issue order.
    pub fn apply_then<U: Delegable>(
        &self,
        f: impl FnOnce(&mut T) -> U + Delegable,
        then: impl FnOnce(U) + 'static,
    ) {
        let w = self.my_worker("apply_then");
        if w.id == self.trustee {
            return self.local(w, move |t| then(f(t)));
        }
        self.send_then(w, f, then);
    }

    #[inline(always)]
    fn send_then<F: FnOnce(&mut T) -> U + Copy, U: Copy + 'static>(
        &self,
        w: &Worker,
        f: F,
        then: impl FnOnce(U) + 'static,
    ) {
        // SAFETY: (in the continuation) the response to this record is the U its
        // trampoline wrote with `put_value`, at the cursor.
        let cont = Cont::then(move |r: &mut Reader| then(unsafe { r.value::<U>() }));
        let len = RECORD_HEADER + pad8(size_of::<F>());
        let q = w.enqueue(
            self.trustee,
            tramp!(tr_apply::<T, F, U>),
            self.ptr,
            len,
            cont,
            |wr| wr.put_value(f),
        );
        w.backpressure(q);
    }

    /// Like [`apply`](Self::apply), with a serialized `payload` passed to `f` on the
    /// trustee: the way to send heap values (`Vec`, `String`, `Box`, ...). Several
    /// values travel as a tuple.
    ///
    /// The payload is encoded with `postcard` (serde). Bulk plain-old-data records
    /// are much cheaper through [`apply_slice`](Self::apply_slice) (no encoding), and
    /// serde sends a `Vec<u8>` byte by byte unless it is wrapped for `serde_bytes`.
    /// Payloads bigger than a slot are sent in slot-sized chunks (one round trip each).
    pub fn apply_with<V, U>(&self, f: impl FnOnce(&mut T, V) -> U + Delegable, payload: V) -> U
    where
        V: Serialize + DeserializeOwned + 'static,
        U: Delegable,
    {
        let w = blocking_point("apply_with");
        self.check(w);
        if w.id == self.trustee {
            w.run_deferred();
            let _d = Delegated::enter(w);
            // SAFETY: local, fiber context, no delegated closure running.
            return f(unsafe { value_mut::<T>(self.ptr) }, payload);
        }
        let mut out = MaybeUninit::<U>::uninit();
        let cont = Cont::Wake {
            fid: w.current_fiber(),
            out: out.as_mut_ptr() as *mut u8,
            read: read_into::<U>,
        };
        self.send_with(w, f, &payload, cont);
        w.park();
        // SAFETY: the continuation wrote the value before waking us.
        unsafe { out.assume_init() }
    }

    fn send_with<F: FnOnce(&mut T, V) -> U + Copy, V: Serialize + DeserializeOwned, U: Copy>(
        &self,
        w: &Worker,
        f: F,
        payload: &V,
        cont: Cont,
    ) -> usize {
        let mut scratch = std::mem::take(&mut *w.scratch.borrow_mut());
        scratch.clear();
        codec::encode_into(payload, &mut scratch)
            .unwrap_or_else(|e| panic!("gossamer: could not encode the apply_with payload: {e}"));
        let len = RECORD_HEADER + pad8(size_of::<F>()) + 8 + pad8(scratch.len());
        let q = w.enqueue(
            self.trustee,
            tramp!(tr_with::<T, F, V, U>),
            self.ptr,
            len,
            cont,
            |wr| {
                wr.put_value(f);
                wr.put_bytes(scratch.as_ptr(), scratch.len());
            },
        );
        *w.scratch.borrow_mut() = scratch;
        q
    }

    /// Non-blocking [`apply_with`](Self::apply_with): `then` gets the result later.
    pub fn apply_with_then<V, U>(
        &self,
        f: impl FnOnce(&mut T, V) -> U + Delegable,
        payload: V,
        then: impl FnOnce(U) + 'static,
    ) where
        V: Serialize + DeserializeOwned + 'static,
        U: Delegable,
    {
        let w = self.my_worker("apply_with_then");
        if w.id == self.trustee {
            return self.local(w, move |t| then(f(t, payload)));
        }
        // SAFETY: (in the continuation) the response to this record is the U its
        // trampoline wrote with `put_value`, at the cursor.
        let cont = Cont::then(move |r: &mut Reader| then(unsafe { r.value::<U>() }));
        let q = self.send_with(w, f, &payload, cont);
        w.backpressure(q);
    }

    /// Zero-copy delegation of plain-old-data records: `data` is copied into the
    /// request slot as raw bytes and `f` gets a `&[R]` pointing into slot memory on
    /// the trustee (no encoding). Blocking variant of
    /// [`apply_slice_then`](Self::apply_slice_then).
    pub fn apply_slice<R: Pod, U: Delegable>(
        &self,
        f: impl FnOnce(&mut T, &[R]) -> U + Delegable,
        data: &[R],
    ) -> U {
        const {
            assert!(
                align_of::<R>() <= 8 && size_of::<R>() > 0,
                "apply_slice: records must be non-empty with alignment <= 8"
            )
        };
        let w = blocking_point("apply_slice");
        self.check(w);
        if w.id == self.trustee {
            w.run_deferred();
            let _d = Delegated::enter(w);
            // SAFETY: local, fiber context, no delegated closure running.
            return f(unsafe { value_mut::<T>(self.ptr) }, data);
        }
        let mut out = MaybeUninit::<U>::uninit();
        let cont = Cont::Wake {
            fid: w.current_fiber(),
            out: out.as_mut_ptr() as *mut u8,
            read: read_into::<U>,
        };
        self.send_slice(w, f, data, cont);
        w.park();
        // SAFETY: the continuation wrote the value before waking us.
        unsafe { out.assume_init() }
    }

    #[inline(always)]
    fn send_slice<F: FnOnce(&mut T, &[R]) -> U + Copy, R: Pod, U: Copy>(
        &self,
        w: &Worker,
        f: F,
        data: &[R],
        cont: Cont,
    ) -> usize {
        let bytes = std::mem::size_of_val(data);
        let len = RECORD_HEADER + pad8(size_of::<F>()) + 8 + pad8(bytes);
        w.enqueue(
            self.trustee,
            tramp!(tr_slice::<T, F, R, U>),
            self.ptr,
            len,
            cont,
            |wr| {
                wr.put_value(f);
                wr.put_bytes(data.as_ptr() as *const u8, bytes);
            },
        )
    }

    /// Sends `data` as several [`apply_slice_then`](Self::apply_slice_then) requests,
    /// each sized to fill the current batch or a whole slot, so that arbitrarily many
    /// records travel without chunk reassembly. `f` runs once per piece (in order),
    /// and `then` once per piece with that piece's result. Returns the number of pieces.
    ///
    /// ```
    /// gossamer::main(2, || {
    ///     let sum = gossamer::entrust_on(gossamer::WorkerId(1), 0u64);
    ///     let data: Vec<u32> = (0..100_000).collect();
    ///     sum.apply_slice_chunked_then(|s, xs: &[u32]| *s += xs.iter().map(|&x| x as u64).sum::<u64>(), &data, |()| {});
    ///     gossamer::wait_outstanding();
    ///     assert_eq!(sum.apply(|s| *s), 4_999_950_000);
    /// });
    /// ```
    pub fn apply_slice_chunked_then<R: Pod, U: Delegable, F>(
        &self,
        f: F,
        data: &[R],
        then: impl Fn(U) + Clone + 'static,
    ) -> usize
    where
        F: FnOnce(&mut T, &[R]) -> U + Delegable,
    {
        const {
            assert!(
                align_of::<R>() <= 8 && size_of::<R>() > 0,
                "apply_slice_chunked_then: records must be non-empty with alignment <= 8"
            )
        };
        let w = self.my_worker("apply_slice_chunked_then");
        let overhead = RECORD_HEADER + pad8(size_of::<F>()) + 8;
        let mut rest = data;
        let mut pieces = 0;
        while !rest.is_empty() || pieces == 0 {
            let (room, cap) = w.room(self.trustee);
            let fit = |bytes: usize| bytes.saturating_sub(overhead) / size_of::<R>();
            let n = if fit(room) > 0 {
                fit(room)
            } else {
                fit(cap).max(1)
            };
            let (piece, tail) = rest.split_at(n.min(rest.len()));
            self.apply_slice_then(f, piece, then.clone());
            rest = tail;
            pieces += 1;
        }
        pieces
    }

    /// Non-blocking [`apply_slice`](Self::apply_slice).
    pub fn apply_slice_then<R: Pod, U: Delegable>(
        &self,
        f: impl FnOnce(&mut T, &[R]) -> U + Delegable,
        data: &[R],
        then: impl FnOnce(U) + 'static,
    ) {
        const {
            assert!(
                align_of::<R>() <= 8 && size_of::<R>() > 0,
                "apply_slice_then: records must be non-empty with alignment <= 8"
            )
        };
        let w = self.my_worker("apply_slice_then");
        if w.id == self.trustee {
            if w.delegated.get() > 0 || !fiber::in_fiber() {
                let owned = data.to_vec();
                return self.local(w, move |t| then(f(t, &owned)));
            }
            w.run_deferred();
            let _d = Delegated::enter(w);
            // SAFETY: local, fiber context, no delegated closure running.
            return then(f(unsafe { value_mut::<T>(self.ptr) }, data));
        }
        // SAFETY: (in the continuation) the response to this record is the U its
        // trampoline wrote with `put_value`, at the cursor.
        let cont = Cont::then(move |r: &mut Reader| then(unsafe { r.value::<U>() }));
        let q = self.send_slice(w, f, data, cont);
        w.backpressure(q);
    }

    /// Applies `f` and returns a variable-size (serialized) result, e.g. a `Vec`.
    /// Results larger than a slot are sent in chunks.
    pub fn apply_returning<U>(&self, f: impl FnOnce(&mut T) -> U + Delegable) -> U
    where
        U: Serialize + DeserializeOwned + 'static,
    {
        let w = blocking_point("apply_returning");
        self.check(w);
        if w.id == self.trustee {
            w.run_deferred();
            let _d = Delegated::enter(w);
            // SAFETY: local, fiber context, no delegated closure running.
            return f(unsafe { value_mut::<T>(self.ptr) });
        }
        let mut out = MaybeUninit::<U>::uninit();
        let cont = Cont::Wake {
            fid: w.current_fiber(),
            out: out.as_mut_ptr() as *mut u8,
            read: read_serde_into::<U>,
        };
        self.send_returning(w, f, cont);
        w.park();
        // SAFETY: the continuation wrote the value before waking us.
        unsafe { out.assume_init() }
    }

    fn send_returning<F: FnOnce(&mut T) -> U + Copy, U: Serialize>(
        &self,
        w: &Worker,
        f: F,
        cont: Cont,
    ) -> usize {
        let len = RECORD_HEADER + pad8(size_of::<F>());
        w.enqueue(
            self.trustee,
            tramp!(tr_returning::<T, F, U>),
            self.ptr,
            len,
            cont,
            |wr| wr.put_value(f),
        )
    }

    /// Non-blocking [`apply_returning`](Self::apply_returning).
    pub fn apply_returning_then<U>(
        &self,
        f: impl FnOnce(&mut T) -> U + Delegable,
        then: impl FnOnce(U) + 'static,
    ) where
        U: Serialize + DeserializeOwned + 'static,
    {
        let w = self.my_worker("apply_returning_then");
        if w.id == self.trustee {
            return self.local(w, move |t| then(f(t)));
        }
        let cont = Cont::then(move |r: &mut Reader| then(read_serde::<U>(r)));
        let q = self.send_returning(w, f, cont);
        w.backpressure(q);
    }
}
