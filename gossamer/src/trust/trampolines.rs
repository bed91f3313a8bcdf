//! Trampolines: the monomorphised trustee-side handlers a record's code word names
//! (`crate::worker::Trampoline`). Each reads exactly what the matching client
//! method wrote after the record header, runs the closure on the property, and
//! appends the return value to the response. [`tramp!`] turns one into a code word.
//!
//! Every trampoline is an `unsafe fn` with the same shape of contract: it is called
//! only by the trustee (`worker/trustee.rs`, through the record's code word, which
//! a rack run also checks against this binary's text) with `r` positioned just
//! after the record header of a record
//! that the matching client method wrote for exactly these type parameters, and
//! with `p` the property word that client put in the record header. Each `# Safety`
//! section below says what that record and that word must be.

use super::property::{
    cancel, commit, fill, is_pending, move_out, new_prop, reserve, take_out, value_mut, PropBox,
};
use super::values::{put_serde, put_value, read_serde};
use crate::codec;
use crate::latch::Latch;
use crate::pod::Pod;
use crate::slot::{pad8, AlignedBuf, Reader, RECORD_HEADER};
use crate::worker::{panic_message, worker, Cont, Delegated, PropHeader, Worker, UNREGISTERED};
use serde::{de::DeserializeOwned, Serialize};
use std::panic::{catch_unwind, AssertUnwindSafe};

#[inline(always)]
pub(crate) fn code<X>(f: X) -> u64
where
    X: Copy,
{
    debug_assert_eq!(size_of::<X>(), size_of::<usize>());
    // SAFETY: X is always a `Trampoline` fn pointer at call sites (see below).
    unsafe { std::mem::transmute_copy::<X, usize>(&f) as u64 }
}

macro_rules! tramp {
    ($e:expr) => {
        $crate::trust::trampolines::code::<$crate::worker::Trampoline>($e)
    };
}

pub(crate) use tramp;

/// Runs an `apply`/`apply_then` closure on the property; appends its `U` result.
///
/// # Safety
/// `r` must be positioned at an `F` written by `put_value` (by `Trust::apply` or
/// `apply_then` for these `T, F, U`), and `p` must be the address of a live
/// `PropBox<T>` of the current worker whose value nothing else borrows.
pub(super) unsafe fn tr_apply<T, F: FnOnce(&mut T) -> U + Copy, U: Copy>(
    p: u64,
    r: &mut Reader,
    out: &mut AlignedBuf,
) -> bool {
    // SAFETY: the client wrote an F here with `put_value` (caller contract).
    let f: F = unsafe { r.value() };
    // SAFETY: `p` is a property header of this worker (caller contract).
    if unsafe { PropHeader::moved(p) } {
        return true;
    }
    // SAFETY: `p` is a live, unborrowed PropBox<T> of this worker (caller contract).
    let u = f(unsafe { value_mut::<T>(p) });
    put_value(out, u);
    false
}

/// Runs an `apply_returning` closure; appends its result, serialized.
///
/// # Safety
/// As for [`tr_apply`]: `r` at an `F` written by `put_value` (by
/// `Trust::apply_returning(_then)` for these `T, F, U`), `p` a live, unborrowed
/// `PropBox<T>` of the current worker.
pub(super) unsafe fn tr_returning<T, F: FnOnce(&mut T) -> U + Copy, U: Serialize>(
    p: u64,
    r: &mut Reader,
    out: &mut AlignedBuf,
) -> bool {
    // SAFETY: the client wrote an F here with `put_value` (caller contract).
    let f: F = unsafe { r.value() };
    // SAFETY: `p` is a property header of this worker (caller contract).
    if unsafe { PropHeader::moved(p) } {
        return true;
    }
    // SAFETY: `p` is a live, unborrowed PropBox<T> of this worker (caller contract).
    let u = f(unsafe { value_mut::<T>(p) });
    put_serde(out, &u);
    false
}

/// Runs an `apply_with` closure with its deserialized payload; appends its result.
///
/// # Safety
/// `r` must be positioned at an `F` written by `put_value` followed by the payload
/// (by `Trust::apply_with(_then)` for these `T, F, V, U`; a malformed payload only
/// panics), and `p` must be a live, unborrowed `PropBox<T>` of the current worker.
pub(super) unsafe fn tr_with<T, F: FnOnce(&mut T, V) -> U + Copy, V: DeserializeOwned, U: Copy>(
    p: u64,
    r: &mut Reader,
    out: &mut AlignedBuf,
) -> bool {
    // SAFETY: the client wrote an F here with `put_value`; the payload follows it.
    let f: F = unsafe { r.value() };
    // SAFETY: `p` is a property header of this worker (caller contract).
    if unsafe { PropHeader::moved(p) } {
        r.bytes();
        return true;
    }
    let v: V = read_serde(r);
    // SAFETY: `p` is a live, unborrowed PropBox<T> of this worker (caller contract).
    let u = f(unsafe { value_mut::<T>(p) }, v);
    put_value(out, u);
    false
}

/// Runs an `apply_slice` closure on the records in the request; appends its result.
///
/// # Safety
/// `r` must be positioned at an `F` written by `put_value` followed by a byte run
/// copied from a `&[R]` (by `Trust::apply_slice(_then)` for these `T, F, R, U`),
/// in 8-aligned memory that stays unchanged while the closure runs, and `p` must be
/// a live, unborrowed `PropBox<T>` of the current worker.
pub(super) unsafe fn tr_slice<T, F: FnOnce(&mut T, &[R]) -> U + Copy, R: Pod, U: Copy>(
    p: u64,
    r: &mut Reader,
    out: &mut AlignedBuf,
) -> bool {
    // SAFETY: the client wrote an F here with `put_value` (caller contract).
    let f: F = unsafe { r.value() };
    let (d, n) = r.bytes();
    // SAFETY: `p` is a property header of this worker (caller contract).
    if unsafe { PropHeader::moved(p) } {
        return true;
    }
    // SAFETY: the client copied `n / size_of R` Pod records here; slot and
    // reassembly memory are 8-aligned and records start at 8-aligned offsets, and
    // `align_of::<R>() <= 8` is checked at compile time by the client method.
    let data = unsafe { std::slice::from_raw_parts(d as *const R, n / size_of::<R>()) };
    // SAFETY: `p` is a live, unborrowed PropBox<T> of this worker (caller contract).
    let u = f(unsafe { value_mut::<T>(p) }, data);
    put_value(out, u);
    false
}

/// Builds a property from an `entrust_with` closure; appends its address.
///
/// # Safety
/// `r` must be positioned at an `F` written by `put_value` (by `entrust_with` for
/// these `T, F`); `p` is unused.
pub(super) unsafe fn tr_entrust_with<T: 'static, F: FnOnce() -> T + Copy>(
    _: u64,
    r: &mut Reader,
    out: &mut AlignedBuf,
) -> bool {
    // SAFETY: the client wrote an F here with `put_value` (caller contract).
    let f: F = unsafe { r.value() };
    let addr = new_prop(worker("entrust_with"), f());
    put_value(out, addr);
    false
}

/// Makes a property of the value `entrust_on` moved here; appends its address.
///
/// # Safety
/// `p` must be the address of a `Box<T>` that `entrust_on` leaked with
/// `Box::into_raw` in this process and handed over in this record only, so it is
/// taken back exactly once; `r` is unused.
pub(super) unsafe fn tr_entrust_boxed<T: 'static>(
    p: u64,
    _: &mut Reader,
    out: &mut AlignedBuf,
) -> bool {
    // SAFETY: `p` is a `Box<T>` leaked by `entrust_on` in this process, sent once
    // (caller contract).
    let b = unsafe { Box::from_raw(p as *mut T) };
    let addr = new_prop(worker("entrust_on"), *b);
    put_value(out, addr);
    false
}

/// Adds the weight in the record to a property's total (a trust's refill).
///
/// # Safety
/// `p` must be the address of a live property (its `PropHeader`) of the current
/// worker, and `r` must be positioned at the `u64` weight `refill` wrote.
pub(super) unsafe fn tr_top_up(p: u64, r: &mut Reader, _: &mut AlignedBuf) -> bool {
    let add = r.u64();
    // SAFETY: `p` is a property header of this worker (caller contract).
    if unsafe { PropHeader::moved(p) } {
        return true;
    }
    // SAFETY: `p` is a live property of this trustee (caller contract: the requesting
    // trust holds weight, so the property cannot have been dropped).
    let h = unsafe { &*(p as *const PropHeader) };
    h.weight.set(h.weight.get() + add as u128);
    false
}

/// Returns a dropped trust's weight to its property (dropping it at zero).
///
/// # Safety
/// `p` must be the address of a live property of the current worker, and `r` must
/// be positioned at the `u64` weight of a trust of it, owned by that trust and
/// returned only by this record.
pub(super) unsafe fn tr_release(p: u64, r: &mut Reader, _: &mut AlignedBuf) -> bool {
    let w = r.u64();
    // SAFETY: `p` is a property header of this worker (caller contract).
    if unsafe { PropHeader::moved(p) } {
        return true;
    }
    // SAFETY: a live property of this worker, and weight its dropped trust owned
    // (caller contract), which is `release_local`'s contract.
    unsafe { worker("release").release_local(p as *mut PropHeader, w) };
    false
}

/// Returns a dropped trust's weight like [`tr_release`], after fencing the
/// other workers that sent non-blocking requests through it ([`fence_users`]).
///
/// # Safety
/// As for [`tr_release`]; `r` must be positioned at the weight, the trust's
/// `users`, its own trustee and address, and the dropping worker (`u64`s), as
/// `Trust::drop` wrote them.
pub(super) unsafe fn tr_release_fenced(p: u64, r: &mut Reader, _: &mut AlignedBuf) -> bool {
    let (wgt, users) = (r.u64(), r.u64() as u32);
    let origin = (r.u64() as usize, r.u64());
    let dropper = r.u64() as usize;
    // SAFETY: `p` is a property header of this worker (caller contract).
    if unsafe { PropHeader::moved(p) } {
        return true;
    }
    let w = worker("release");
    // SAFETY: a live property of this worker, kept alive by the weight in
    // this record (caller contract).
    unsafe {
        fence_users(w, p, users, origin, dropper);
        w.release_local(p as *mut PropHeader, wgt);
    }
    false
}

/// Before a dropped trust's weight is returned to the property at `p` of `w`
/// (the current worker, its trustee): for each worker in `users` but
/// `dropper`, adds a unit of weight to the property and sends that worker a
/// fence ([`tr_fence`]), which returns the unit behind the requests it sent
/// through the trust before (see `weight.rs`). `origin` is the trust's own
/// trustee and address, from which each user finds the address its own
/// requests take.
///
/// # Safety
/// `p` must be a live (not moved) property of `w`, kept alive by weight the
/// caller is returning after this call.
pub(super) unsafe fn fence_users(
    w: &Worker,
    p: u64,
    users: u32,
    origin: (usize, u64),
    dropper: usize,
) {
    // SAFETY: live (caller contract); the header fields are Cells.
    let h = unsafe { &*(p as *const PropHeader) };
    let mut bits = users;
    while bits != 0 {
        let mut s = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        // Bit b stands for workers b, b + 32, ...
        while s < w.n() {
            if s != dropper {
                h.weight.set(h.weight.get() + 1);
                if s == w.id {
                    return_fence_unit(w, origin);
                } else {
                    w.enqueue(
                        s,
                        tramp!(tr_fence),
                        origin.1,
                        RECORD_HEADER + 8,
                        Cont::Skip,
                        |wr| wr.put_u64(origin.0 as u64),
                    );
                }
            }
            s += 32;
        }
    }
}

/// A user's side of a fence: returns one unit of weight to the property a
/// trust made at `origin` (trustee, address) refers to, the way this worker's
/// own requests through it go, so it arrives behind them: on the same pair,
/// or as a deferred job when they run here.
fn return_fence_unit(w: &Worker, origin: (usize, u64)) {
    let (t, p) = if w.any_fwd.get() {
        w.resolve(origin.0, origin.1)
    } else {
        origin
    };
    if t == w.id {
        // SAFETY: (in the job) the property is live: its trustee added this
        // unit for us; deferred jobs run before any move of the value.
        w.defer(Box::new(move || unsafe {
            worker("release").release_local(p as *mut PropHeader, 1)
        }));
    } else {
        w.enqueue(
            t,
            tramp!(tr_release),
            p,
            RECORD_HEADER + 8,
            Cont::Skip,
            |wr| wr.put_u64(1),
        );
    }
}

/// A fence from a trustee whose trust was dropped on another worker: returns
/// its unit of weight behind this worker's requests ([`fence_users`]).
///
/// # Safety
/// `p` must be a trust's own address and `r` positioned at its own trustee
/// (`u64`), as `fence_users` wrote them, for a unit of weight the trustee
/// added for this worker; `p` is not read here.
pub(super) unsafe fn tr_fence(p: u64, r: &mut Reader, _: &mut AlignedBuf) -> bool {
    let t = r.u64() as usize;
    return_fence_unit(worker("release"), (t, p));
    false
}

/// Starts a launched closure in a new fiber on this trustee.
///
/// # Safety
/// `r` must be positioned at an `F` written by `put_value`, then the client's
/// worker id and the launch token as `u64`s (by `Trust::launch(_then)` for these
/// `T, F, U`), and `p` must be the address of a live `PropBox<Latch<T>>` of the
/// current worker.
pub(super) unsafe fn tr_launch<
    T: 'static,
    F: FnOnce(&mut T) -> U + Copy + 'static,
    U: Copy + 'static,
>(
    p: u64,
    r: &mut Reader,
    _: &mut AlignedBuf,
) -> bool {
    // SAFETY: the client wrote F with `put_value`, then its worker id and the launch
    // token (caller contract).
    let f: F = unsafe { r.value() };
    let client = r.u64() as usize;
    let token = r.u64();
    // SAFETY: `p` is a property header of this worker (caller contract).
    if unsafe { PropHeader::moved(p) } {
        return true;
    }
    start_launch::<T, F, U>(worker("launch"), p, f, client, token);
    false
}

/// Delivers a launch's (or a `spawn_on_with` fiber's) result to the continuation
/// waiting under `token` on this, the launching, worker.
///
/// # Safety
/// `token` (the record's property word) must be a pending launch or spawn token of
/// the current worker, and `r` must be positioned at the result bytes that token's
/// continuation reads: a `U` written by `put_value` for a launch of `U`, or a
/// length-prefixed encoding for `spawn_on_with`.
pub(crate) unsafe fn tr_launch_done(token: u64, r: &mut Reader, _: &mut AlignedBuf) -> bool {
    worker("launch").finish_launch(token, r);
    false
}

/// Delivers a launch's (or a `spawn_on_with` fiber's) answer, the bytes of
/// `answer` as that token's continuation reads them, to the continuation waiting
/// under `token` on worker `client`: at once when that is this worker, else as a
/// `tr_launch_done` record.
pub(crate) fn answer_launch(w: &Worker, client: usize, token: u64, answer: &AlignedBuf) {
    if client == w.id {
        // SAFETY: reading our own buffer, alive for the call.
        let mut r = unsafe { Reader::new(answer.as_ptr(), answer.len()) };
        w.finish_launch(token, &mut r);
    } else {
        let q = w.enqueue(
            client,
            tramp!(tr_launch_done),
            token,
            RECORD_HEADER + pad8(answer.len()),
            Cont::Skip,
            |wr| wr.put_raw(answer.as_ptr(), answer.len()),
        );
        w.backpressure(q);
    }
}

/// Runs a launched closure in a new fiber on this (the trustee's) worker.
/// (`tr_launch` for a remote launch, `Trust::launch` for a local one.)
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
    // The value must not move while the fiber may hold it (`migrate_to` checks).
    h.pins.set(h.pins.get() + 1);
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
                let mut answer = AlignedBuf::default();
                put_value(&mut answer, u);
                // SAFETY: the property is pinned (weight), so its header is live.
                let h = unsafe { &*(p as *const PropHeader) };
                h.pins.set(h.pins.get() - 1);
                answer_launch(w, client, token, &answer);
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

/// `tr_migrate`'s answer, word 0: the value moved (words 1-4: old trustee and
/// address, new trustee and address).
pub(super) const MOVED: u64 = 0;
/// The value already lives on the target.
pub(super) const STAYED: u64 = 1;
/// A launched closure holds the value; it did not move.
pub(super) const PINNED: u64 = 2;
/// The target runs in another process (rank); the value did not move.
pub(super) const OTHER_RANK: u64 = 3;
/// `tr_ship`: the value could not be serialized; it did not move (the
/// codec's message follows).
pub(super) const UNENCODABLE: u64 = 4;

/// Moves a property's value to the worker named in the record (`migrate_to`).
///
/// # Safety
/// `r` must be positioned at the target worker id (`u64`) that `migrate_to`
/// wrote, and `p` must be a live `PropBox<T>` (or tombstone) of the current
/// worker whose value nothing borrows.
pub(super) unsafe fn tr_migrate<T: Send + 'static>(
    p: u64,
    r: &mut Reader,
    out: &mut AlignedBuf,
) -> bool {
    let to = r.u64() as usize;
    // SAFETY: `p` is a property header of this worker (caller contract).
    if unsafe { PropHeader::moved(p) } {
        return true;
    }
    // SAFETY: a live PropBox<T> of this worker, between records (caller contract).
    let ans = unsafe { migrate_here::<T>(worker("migrate_to"), p, to) };
    put_value(out, ans);
    false
}

/// Moves the value of property `p` of `w` (the current worker) to worker `to`
/// of this process, unless it is there already, a launch holds it, or `to` is
/// in another process; returns `tr_migrate`'s answer.
///
/// # Safety
/// `p` must be a live (not moved) `PropBox<T>` of `w`, and no closure may be
/// running on its value (a trampoline between records, or a fiber outside
/// delegated context).
pub(super) unsafe fn migrate_here<T: Send + 'static>(w: &Worker, p: u64, to: usize) -> [u64; 5] {
    let me = w.id as u64;
    let stay = |why| [why, me, p, me, p];
    if to == w.id {
        return stay(STAYED);
    }
    if !w.shared.is_local(to) {
        return stay(OTHER_RANK);
    }
    // Local jobs deferred before this request hold the value's address: they
    // run first (none can move it: moving blocks, and only fibers block).
    w.run_deferred();
    // SAFETY: `p` is live (caller contract; the requesting trust holds weight).
    if unsafe { (*(p as *const PropHeader)).pins.get() } > 0 {
        return stay(PINNED);
    }
    // SAFETY: live, unborrowed (caller contract), not pinned (checked), and `to`
    // is a worker of this process (checked).
    let q = unsafe { move_out::<T>(w, p, to) };
    w.enqueue(
        to,
        tramp!(tr_adopt),
        q,
        RECORD_HEADER + 24,
        Cont::Skip,
        |wr| {
            wr.put_u64(me);
            wr.put_u64(p);
            wr.put_u64(q);
        },
    );
    [MOVED, me, p, to as u64, q]
}

/// Registers a value that moved here, learns the route from its old address
/// (when the record reached the box it was made for), and returns the unit of
/// weight that kept it alive until now (see `move_out`).
///
/// # Safety
/// `p` must be a box `move_out` made for this worker (or its tombstone, if the
/// value moved on before this record arrived; or, for a record bounced and sent
/// again, the box the value lives in now), and the record (old trustee and
/// address, and the box it was made for, as `u64`s) the one adoption record
/// `migrate_here` sent for it.
pub(super) unsafe fn tr_adopt(p: u64, r: &mut Reader, _: &mut AlignedBuf) -> bool {
    let from = (r.u64() as usize, r.u64());
    let made_for = r.u64();
    // SAFETY: a header of this worker (caller contract).
    if unsafe { PropHeader::moved(p) } {
        return true;
    }
    let w = worker("migrate_to");
    // This worker's own requests to the old address may now come here.
    // Learnt only when this is the box the record was made for: an adoption
    // that chased the value here (it moved on before the record arrived) would
    // teach a shortcut past the hops in between, which could let this worker's
    // new requests overtake its older ones still on their way to a box there.
    if made_for == p {
        w.learn(from, (w.id, p), false);
    }
    // SAFETY: as above; the box stays alive until the unit of weight below is back.
    if unsafe { (*(p as *const PropHeader)).reg.get() } == UNREGISTERED {
        w.register(p as *mut PropHeader);
    }
    // SAFETY: a live property of this worker; the unit is the adoption's own.
    unsafe { w.release_local(p as *mut PropHeader, 1) };
    false
}

/// Reserves a pending box on this worker for a value that moves here through
/// bytes (`Trust::migrate_with`); appends its address.
///
/// # Safety
/// None beyond the trampoline shape: `p` and the record body are unused.
pub(super) unsafe fn tr_reserve<T>(_: u64, _: &mut Reader, out: &mut AlignedBuf) -> bool {
    put_value(out, reserve::<T>(worker("migrate_with")));
    false
}

/// Moves a property's value out through bytes, towards the pending box named
/// in the record (`Trust::migrate_with`, step 2): see [`ship_here`].
///
/// # Safety
/// `r` must be positioned at the target worker and its pending box (`u64`s)
/// that `migrate_with` wrote, the box one `tr_reserve::<T>` made and nothing
/// else filled or cancelled; `p` must be a live `PropBox<T>` (or tombstone, or
/// pending box) of the current worker whose value nothing borrows.
pub(super) unsafe fn tr_ship<T: Serialize + 'static>(
    p: u64,
    r: &mut Reader,
    out: &mut AlignedBuf,
) -> bool {
    let to = (r.u64() as usize, r.u64());
    // SAFETY: `p` is a property header of this worker (caller contract).
    if unsafe { PropHeader::moved(p) } {
        return true;
    }
    // SAFETY: a live PropBox<T> of this worker, between records; `to` a
    // pending box for this move (caller contract).
    unsafe { ship_here::<T>(worker("migrate_with"), p, to, out) };
    false
}

/// Moves the value of property `p` of `w` (the current worker) out through
/// bytes to the pending box `to` (trustee, address), unless it lives on that
/// trustee already (then the box is freed here: `STAYED`), a launch holds it
/// (`PINNED`: the client frees the box) or it cannot be serialized
/// (`UNENCODABLE`). Moving: the value is serialized, `p` becomes a shipping
/// tombstone with no weight (it bounces every request back to itself until
/// [`tr_commit`] makes it forward to `to`), and the value left here is dropped
/// (the bytes are the value now; see `trust/migrate.rs`). Appends to `out` the
/// answer `[code, old trustee, old address, new trustee, new address]`, then,
/// when moved, the weight (`u128` as two `u64`s) and the value's bytes
/// (length-prefixed), or the codec's message.
///
/// # Safety
/// `p` must be a live (not moved) `PropBox<T>` of `w`, no closure may be
/// running on its value (a trampoline between records, or a fiber outside
/// delegated context), and `to` a pending box that `reserve::<T>` made and
/// nothing filled or cancelled.
pub(super) unsafe fn ship_here<T: Serialize + 'static>(
    w: &Worker,
    p: u64,
    to: (usize, u64),
    out: &mut AlignedBuf,
) {
    let me = w.id as u64;
    let answer = |out: &mut AlignedBuf, why: u64| {
        put_value(out, [why, me, p, to.0 as u64, to.1]);
    };
    if to.0 == w.id {
        // SAFETY: the pending box this move reserved here; no tombstone
        // forwards to it (only a move that ships the value would make one).
        unsafe { cancel::<T>(to.1) };
        return put_value(out, [STAYED, me, p, me, p]);
    }
    // Local jobs deferred before this request hold the value's address: they
    // run first (as in `migrate_here`).
    w.run_deferred();
    // SAFETY: `p` is live (caller contract; the requesting trust holds weight).
    if unsafe { (*(p as *const PropHeader)).pins.get() } > 0 {
        return answer(out, PINNED);
    }
    let mut bytes = Vec::new();
    let encoded = {
        let _d = Delegated::enter(w);
        // SAFETY: live and unborrowed (caller contract).
        codec::encode_into(unsafe { &*value_mut::<T>(p) }, &mut bytes)
    };
    if let Err(e) = encoded {
        answer(out, UNENCODABLE);
        let m = e.to_string();
        put_value(out, m.len() as u64);
        out.extend(m.as_ptr(), m.len());
        return;
    }
    // SAFETY: live, unborrowed, not pinned (checked).
    let (value, weight) = unsafe { take_out::<T>(w, p) };
    {
        // The copy left here ends: the value lives on in the bytes.
        let _d = Delegated::enter(w);
        drop(value);
    }
    answer(out, MOVED);
    put_value(out, [weight as u64, (weight >> 64) as u64]);
    put_value(out, bytes.len() as u64);
    out.extend(bytes.as_ptr(), bytes.len());
}

/// `tr_ship`'s answer, as the client reads it back ([`read_shipped`]).
pub(super) struct Shipped {
    /// `[code, old trustee, old address, new trustee, new address]`.
    pub(super) ans: [u64; 5],
    /// The property's weight (when moved).
    pub(super) weight: u128,
    /// The value's bytes (when moved), or the codec's message (`UNENCODABLE`).
    pub(super) bytes: Vec<u8>,
}

/// Reads `tr_ship`'s answer into a parked fiber's `MaybeUninit<Shipped>` (the
/// `read` of a `Cont::Wake`).
///
/// # Safety
/// `r` must be positioned at an answer `ship_here` wrote, and `out` valid for
/// writes of a `Shipped` and aligned for it; whatever it held is overwritten,
/// not dropped.
pub(super) unsafe fn read_shipped(r: &mut Reader, out: *mut u8) {
    // SAFETY: `ship_here` wrote the answer words with `put_value::<[u64; 5]>`.
    let ans = unsafe { r.value::<[u64; 5]>() };
    let (weight, bytes) = match ans[0] {
        MOVED => {
            let wt = (r.u64() as u128) | ((r.u64() as u128) << 64);
            let (b, n) = r.bytes();
            // SAFETY: the reader's bytes are valid while we copy them.
            (wt, unsafe { std::slice::from_raw_parts(b, n) }.to_vec())
        }
        UNENCODABLE => {
            let (b, n) = r.bytes();
            // SAFETY: as above.
            (0, unsafe { std::slice::from_raw_parts(b, n) }.to_vec())
        }
        _ => (0, Vec::new()),
    };
    // SAFETY: valid and aligned for a Shipped (caller contract).
    unsafe { (out as *mut Shipped).write(Shipped { ans, weight, bytes }) };
}

/// Fills a pending box with a value that moved here through bytes
/// (`Trust::migrate_with`, step 3): see [`fill_here`].
///
/// # Safety
/// `p` must be a pending box `tr_reserve::<T>` made on the current worker,
/// whose value `tr_ship::<T>` shipped to it, and `r` positioned at the weight
/// (two `u64`s) and the value's bytes (length-prefixed) from its answer, sent
/// in this record only.
pub(super) unsafe fn tr_fill<T: DeserializeOwned + 'static>(
    p: u64,
    r: &mut Reader,
    _: &mut AlignedBuf,
) -> bool {
    let weight = (r.u64() as u128) | ((r.u64() as u128) << 64);
    let (b, n) = r.bytes();
    // SAFETY: the reader's bytes are valid for the call.
    let bytes = unsafe { std::slice::from_raw_parts(b, n) };
    // SAFETY: the caller's contract is `fill_here`'s.
    unsafe { fill_here::<T>(worker("migrate_with"), p, weight, bytes) };
    false
}

/// Decodes a value shipped to the pending box `p` of `w` (the current worker)
/// and makes the box a live property holding `weight`.
///
/// # Safety
/// `p` must be a pending box `reserve::<T>` made on `w`, neither filled nor
/// cancelled, and `bytes` and `weight` what `ship_here::<T>` answered for it.
pub(super) unsafe fn fill_here<T: DeserializeOwned + 'static>(
    w: &Worker,
    p: u64,
    weight: u128,
    bytes: &[u8],
) {
    // SAFETY: a header of this worker (caller contract).
    debug_assert!(unsafe { is_pending(p) });
    let value: T = {
        let _d = Delegated::enter(w);
        codec::decode(bytes).unwrap_or_else(|e| {
            panic!("gossamer: migrate_with: a moved value's bytes did not decode on the new trustee: {e}")
        })
    };
    // SAFETY: a pending box of `w` (caller contract), filled once.
    unsafe { fill::<T>(w, p, value, weight) };
}

/// Frees a pending box that will not be filled (the value was pinned).
///
/// # Safety
/// `p` must be a pending box `tr_reserve::<T>` made on the current worker that
/// no tombstone forwards to, neither filled nor cancelled.
pub(super) unsafe fn tr_cancel<T>(p: u64, _: &mut Reader, _: &mut AlignedBuf) -> bool {
    // SAFETY: caller contract.
    unsafe { cancel::<T>(p) };
    false
}

/// Makes a shipping tombstone forward to the box its value was put in
/// (`Trust::migrate_with`, step 4).
///
/// # Safety
/// `p` must be a tombstone that `tr_ship` made on the current worker (not
/// committed yet), and `r` positioned at the new trustee and the box there
/// (`u64`s) that was filled with its value.
pub(super) unsafe fn tr_commit(p: u64, r: &mut Reader, _: &mut AlignedBuf) -> bool {
    let to = (r.u64() as usize, r.u64());
    // SAFETY: caller contract.
    unsafe { commit(worker("migrate_with"), p, to) };
    false
}
