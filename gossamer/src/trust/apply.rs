//! The [`Trust`] type and its apply family: running a closure on the property,
//! blocking the calling fiber (`apply`, `apply_with`, `apply_slice`,
//! `apply_returning`) or not (their `_then` forms, whose continuation runs later on
//! this worker). The type and these methods share a module so that compiler errors
//! name them `Trust::<T>::apply` (tests/ui/*.stderr).
//!
//! Every form goes one way: `call` (blocking) or `call_then` (not), which run a
//! local property's request right here (`here`; deferred in delegated context,
//! `local`) and write a remote one's record (`record`: code word, closure, and
//! the payload's bytes when there is one). The public methods only say which
//! trampoline reads the record, what travels with the closure and how the
//! answer is decoded ([`Decode`]).

use super::property::value_mut;
use super::trampolines::{tr_apply, tr_returning, tr_slice, tr_with, tramp};
use super::values::{Decode, Plain, Serde};
use super::weight::user_bit;
use crate::codec;
use crate::delegable::Delegable;
use crate::fiber;
use crate::pod::Pod;
use crate::runtime::WorkerId;
use crate::slot::{pad8, Reader, RECORD_HEADER};
use crate::worker::{blocking_point, try_worker, worker, Cont, Delegated, PropHeader, Worker};
use serde::{de::DeserializeOwned, Serialize};
use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

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
/// when remote); the property is dropped there once all weight is back, and
/// after the non-blocking requests sent through the trust have run: dropped on
/// another worker than the ones that sent them, the trust is released behind
/// a fence through each of those (two small records each; see
/// `trust/weight.rs`). A trust dropped on a thread that is not a worker of its
/// runtime does nothing; its property is then dropped when the runtime shuts
/// down.
pub struct Trust<T> {
    pub(super) ptr: u64,
    pub(super) trustee: u32,
    /// The workers that sent non-blocking requests through this trust, one bit
    /// per worker id modulo 32 (`weight.rs`: such a request holds no weight,
    /// so dropping the trust elsewhere fences those workers first).
    pub(super) users: AtomicU32,
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

impl<T> Trust<T> {
    /// Where the property lives as far as `w` knows: trustee and address. A
    /// trust keeps the address it was made with; only a worker that learnt of
    /// a move looks it up (`worker/moves.rs`).
    #[inline(always)]
    pub(super) fn loc(&self, w: &Worker) -> (usize, u64) {
        if w.any_fwd.get() {
            w.resolve(self.trustee as usize, self.ptr)
        } else {
            (self.trustee as usize, self.ptr)
        }
    }

    /// [`loc`](Self::loc), and whether a request for a local property runs
    /// inline (`blocking`, or from a fiber outside delegated context; false for
    /// a remote one). Before a local request runs inline, the local requests
    /// deferred so far run first (so they keep their order); should one of them
    /// have moved the value, where it went.
    #[inline(always)]
    pub(super) fn at(&self, w: &Worker, blocking: bool) -> (usize, u64, bool) {
        let (t, p) = self.loc(w);
        if t != w.id {
            return (t, p, false);
        }
        let inline = blocking || (w.delegated.get() == 0 && fiber::in_fiber());
        // Only a deferred job can have moved the value since `loc` (a moved
        // request run here), so the header is read only when one ran; the
        // common case (none deferred) costs one compare, no call.
        // SAFETY: `p` is a property header of this worker (the trust holds weight).
        if inline && w.has_deferred() && w.run_deferred() && unsafe { PropHeader::moved(p) } {
            let (t, p) = self.loc(w);
            return (t, p, inline);
        }
        (t, p, inline)
    }

    /// Where requests from the calling worker go (where the property was
    /// entrusted, outside this trust's runtime; a trustee id of `HOLD + t`
    /// while the worker chases a moved property: `enqueue` then holds the
    /// request, `worker/moves.rs`).
    pub(super) fn current(&self) -> (usize, u64) {
        match try_worker() {
            Some(w) if w.shared.rt == self.rt => self.loc(w),
            _ => (self.trustee as usize, self.ptr),
        }
    }

    /// Where the property lives as far as the calling worker knows: like
    /// [`current`](Self::current), but along routes learnt and not yet used
    /// for requests (`worker/moves.rs`) too.
    pub(super) fn latest(&self) -> (usize, u64) {
        match try_worker() {
            Some(w) if w.shared.rt == self.rt && w.any_fwd.get() => {
                w.latest(self.trustee as usize, self.ptr)
            }
            _ => (self.trustee as usize, self.ptr),
        }
    }
}

impl<T: 'static> Trust<T> {
    /// The worker that owns the property, as far as the calling worker knows:
    /// after the property moved ([`migrate_to`](Self::migrate_to)), a worker
    /// learns its new trustee from its next request through any trust of it
    /// (from the move itself on the worker that moved it).
    pub fn trustee(&self) -> WorkerId {
        WorkerId(self.latest().0)
    }

    /// True when the property belongs to the calling worker.
    pub fn is_local(&self) -> bool {
        try_worker().is_some_and(|w| w.shared.rt == self.rt && self.loc(w).0 == w.id)
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

    /// Notes that worker `w` sent a non-blocking request through this trust
    /// that may not have run yet; dropping the trust on another worker then
    /// fences `w` first (`weight.rs`). Once the bit is set (from the first
    /// request on), one load and a compare.
    #[inline(always)]
    pub(super) fn note_user(&self, w: &Worker) {
        let bit = user_bit(w.id);
        if self.users.load(Ordering::Relaxed) & bit == 0 {
            self.users.fetch_or(bit, Ordering::Relaxed);
        }
    }

    /// The local-trustee shortcut: runs `job` on the property at `p` right here.
    ///
    /// Callers make sure this is the trustee of `p`, in a fiber, outside delegated
    /// context, after the deferred local requests (`at`).
    #[inline(always)]
    fn here<U>(&self, w: &Worker, p: u64, job: impl FnOnce(&mut T) -> U) -> U {
        let _d = Delegated::enter(w);
        // SAFETY: we are on the trustee, in a fiber, and no delegated closure is
        // running (caller contract), so nothing else references the value.
        job(unsafe { value_mut::<T>(p) })
    }

    /// Runs `job` on the local property at `p`: inline (from a fiber outside
    /// delegated context, as `at` found), or deferred (delegated context) so it
    /// never runs while another closure holds the property.
    #[inline(always)]
    fn local(&self, w: &'static Worker, p: u64, inline: bool, job: impl FnOnce(&mut T) + 'static) {
        if !inline {
            self.note_user(w);
            // SAFETY: (in the job) deferred jobs run one at a time from the worker
            // loop, before this trust's release (deferred after it, or drained
            // first, or fenced when dropped elsewhere), and before any move of
            // the value (`migrate_here` drains them).
            w.defer(Box::new(move || job(unsafe { value_mut::<T>(p) })));
        } else {
            self.here(w, p, job);
        }
    }

    /// Writes the request record for the remote property at `at`: trampoline
    /// `code`, the closure `f`, then `bytes` (length-prefixed) when the request
    /// carries a payload; `cont` takes the answer. Returns how many sealed
    /// batches wait on the pair (for backpressure).
    #[inline(always)]
    fn record<F: Copy>(
        &self,
        w: &Worker,
        at: (usize, u64),
        code: u64,
        f: F,
        bytes: Option<&[u8]>,
        cont: Cont,
    ) -> usize {
        let extra = bytes.map_or(0, |b| 8 + pad8(b.len()));
        let len = RECORD_HEADER + pad8(size_of::<F>()) + extra;
        w.enqueue(at.0, code, at.1, len, cont, |wr| {
            wr.put_value(f);
            if let Some(b) = bytes {
                wr.put_bytes(b.as_ptr(), b.len());
            }
        })
    }

    /// The blocking path: `here(value, arg)` on a local property, else `send`
    /// writes the record (with `arg`) and the calling fiber waits for the
    /// answer, decoded by `D`.
    #[inline(always)]
    fn call<A, U, D: Decode<U>>(
        &self,
        what: &str,
        arg: A,
        here: impl FnOnce(&mut T, A) -> U,
        send: impl FnOnce(&Worker, (usize, u64), A, Cont) -> usize,
    ) -> U {
        let w = blocking_point(what);
        self.check(w);
        let (t, p, _) = self.at(w, true);
        if w.id == t {
            return self.here(w, p, |t| here(t, arg));
        }
        let at = (t, p);
        let mut out = MaybeUninit::<U>::uninit();
        let cont = Cont::Wake {
            fid: w.current_fiber(),
            out: out.as_mut_ptr() as *mut u8,
            read: D::read_into,
        };
        send(w, at, arg, cont);
        w.park();
        // SAFETY: the continuation wrote the value before waking us.
        unsafe { out.assume_init() }
    }

    /// The non-blocking path: `then(here(value, arg))` on a local property (now,
    /// or deferred in delegated context), else the record and, later, `then` of
    /// the answer.
    #[inline(always)]
    fn call_then<A: 'static, U: 'static, D: Decode<U>>(
        &self,
        what: &str,
        arg: A,
        here: impl FnOnce(&mut T, A) -> U + 'static,
        then: impl FnOnce(U) + 'static,
        send: impl FnOnce(&Worker, (usize, u64), A, Cont) -> usize,
    ) {
        let w = self.my_worker(what);
        let (t, p, inline) = self.at(w, false);
        if w.id == t {
            return self.local(w, p, inline, move |t| then(here(t, arg)));
        }
        let at = (t, p);
        self.send_then::<A, U, D>(w, at, arg, then, send);
    }

    /// The remote half of [`call_then`](Self::call_then).
    #[inline(always)]
    fn send_then<A, U: 'static, D: Decode<U>>(
        &self,
        w: &Worker,
        at: (usize, u64),
        arg: A,
        then: impl FnOnce(U) + 'static,
        send: impl FnOnce(&Worker, (usize, u64), A, Cont) -> usize,
    ) {
        self.note_user(w);
        // SAFETY: (in the continuation) the answer to this record is the U that its
        // trampoline wrote the way `D` reads it, at the cursor.
        let cont = Cont::then(move |r: &mut Reader| then(unsafe { D::read(r) }));
        let q = send(w, at, arg, cont);
        w.backpressure(q);
    }

    /// Applies `f` to the property and returns its result, suspending only the
    /// calling fiber. Runs inline when the property is local.
    ///
    /// Panics in delegated context (use [`apply_then`](Self::apply_then) or
    /// [`launch`](Trust::launch) there).
    pub fn apply<U: Delegable>(&self, f: impl FnOnce(&mut T) -> U + Delegable) -> U {
        let code = code_apply::<T, _, U>(&f);
        self.call::<_, U, Plain>(
            "apply",
            (),
            move |t, ()| f(t),
            |w, at, (), c| self.record(w, at, code, f, None, c),
        )
    }

    /// Applies `f` to the property without blocking; `then` runs later on this
    /// worker, in delegated context, with the result. Requests from one worker to
    /// one trustee run, and their `then`s are called, in issue order.
    pub fn apply_then<U: Delegable>(
        &self,
        f: impl FnOnce(&mut T) -> U + Delegable,
        then: impl FnOnce(U) + 'static,
    ) {
        let code = code_apply::<T, _, U>(&f);
        self.call_then::<_, U, Plain>(
            "apply_then",
            (),
            move |t, ()| f(t),
            then,
            |w, at, (), c| self.record(w, at, code, f, None, c),
        )
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
        let code = code_with::<T, _, V, U>(&f);
        self.call::<_, U, Plain>("apply_with", payload, f, |w, at, v, c| {
            encoded(w, &v, |b| self.record(w, at, code, f, Some(b), c))
        })
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
        let code = code_with::<T, _, V, U>(&f);
        self.call_then::<_, U, Plain>("apply_with_then", payload, f, then, |w, at, v, c| {
            encoded(w, &v, |b| self.record(w, at, code, f, Some(b), c))
        })
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
        let code = code_slice::<T, _, R, U>(&f);
        self.call::<_, U, Plain>("apply_slice", data, f, |w, at, d, c| {
            self.record(w, at, code, f, Some(bytes_of(d)), c)
        })
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
            let (room, cap) = w.room(self.loc(w).0);
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
        let (t, p, inline) = self.at(w, false);
        if w.id == t {
            if !inline {
                // Deferred: the job outlives the borrow of `data`.
                let owned = data.to_vec();
                return self.local(w, p, false, move |t| then(f(t, &owned)));
            }
            return then(self.here(w, p, |t| f(t, data)));
        }
        let at = (t, p);
        let code = code_slice::<T, _, R, U>(&f);
        self.send_then::<_, U, Plain>(w, at, data, then, |w, at, d, c| {
            self.record(w, at, code, f, Some(bytes_of(d)), c)
        })
    }

    /// Applies `f` and returns a variable-size (serialized) result, e.g. a `Vec`.
    /// Results larger than a slot are sent in chunks.
    pub fn apply_returning<U>(&self, f: impl FnOnce(&mut T) -> U + Delegable) -> U
    where
        U: Serialize + DeserializeOwned + 'static,
    {
        let code = code_returning::<T, _, U>(&f);
        self.call::<_, U, Serde>(
            "apply_returning",
            (),
            move |t, ()| f(t),
            |w, at, (), c| self.record(w, at, code, f, None, c),
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
        let code = code_returning::<T, _, U>(&f);
        self.call_then::<_, U, Serde>(
            "apply_returning_then",
            (),
            move |t, ()| f(t),
            then,
            |w, at, (), c| self.record(w, at, code, f, None, c),
        )
    }
}

// The code word of each request kind's trampoline, for the closure type of `f`
// (taken by reference only to name its type).

fn code_apply<T, F: FnOnce(&mut T) -> U + Copy, U: Copy>(_: &F) -> u64 {
    tramp!(tr_apply::<T, F, U>)
}

fn code_returning<T, F: FnOnce(&mut T) -> U + Copy, U: Serialize>(_: &F) -> u64 {
    tramp!(tr_returning::<T, F, U>)
}

fn code_with<T, F, V, U>(_: &F) -> u64
where
    F: FnOnce(&mut T, V) -> U + Copy,
    V: DeserializeOwned,
    U: Copy,
{
    tramp!(tr_with::<T, F, V, U>)
}

fn code_slice<T, F: FnOnce(&mut T, &[R]) -> U + Copy, R: Pod, U: Copy>(_: &F) -> u64 {
    tramp!(tr_slice::<T, F, R, U>)
}

/// The bytes of `data`, for the request record.
#[inline(always)]
fn bytes_of<R: Pod>(data: &[R]) -> &[u8] {
    // SAFETY: `R: Pod` has no padding, so all `size_of_val(data)` bytes of `data`
    // are initialised; the byte slice covers exactly that memory and borrows it.
    unsafe { std::slice::from_raw_parts(data.as_ptr() as *const u8, std::mem::size_of_val(data)) }
}

/// Runs `k` with `payload` encoded (postcard), in the worker's reused scratch
/// buffer.
fn encoded<V: Serialize, X>(w: &Worker, payload: &V, k: impl FnOnce(&[u8]) -> X) -> X {
    let mut scratch = std::mem::take(&mut *w.scratch.borrow_mut());
    scratch.clear();
    codec::encode_into(payload, &mut scratch)
        .unwrap_or_else(|e| panic!("gossamer: could not encode the apply_with payload: {e}"));
    let x = k(&scratch);
    *w.scratch.borrow_mut() = scratch;
    x
}
