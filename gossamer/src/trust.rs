//! [`Trust<T>`]: the reference through which closures are applied to a property.
//!
//! # Reference counting: weighted, not the dissertation's symmetric-difference set
//!
//! The dissertation (§5.4) keeps a set of trust ids per property and has clone and
//! drop each toggle their id asynchronously. That breaks when a trust is cloned,
//! the *parent* travels to another worker and is dropped there, and that drop's
//! message overtakes the clone's creation message (they use different channels, so
//! nothing orders them): the set empties early and the property is freed under a
//! live clone.
//!
//! We use weighted reference counting instead. Each property's header holds the
//! total weight `W` handed out and not yet returned; each trust holds a weight
//! `w > 0`. Invariant: `W` = (sum of weights of live trusts) + (weight in release
//! messages not yet applied) + (weight pinned by running launches).
//! - `clone` splits the trust's weight (it keeps some, the clone gets the rest):
//!   the sum is unchanged, so no message is needed and no ordering question arises.
//! - `drop` sends its weight back (asynchronously, or inline on the trustee). `W`
//!   only ever decreases by weight that some trust really owned, so `W` reaches 0
//!   exactly when no trust and no message holds weight any more: the property is
//!   dropped once, on its trustee, whatever order releases arrive in.
//! - A trust whose weight runs low (below 2^40) is *refilled*: it asks the trustee
//!   to add 2^52 to `W` and only then adds 2^52 to its own weight, so the invariant
//!   holds at every instant. The refill is inline on the trustee itself and a
//!   blocking round trip from a fiber on another worker (rare: only after thousands
//!   of clones). `W` is a `u128`, so refills cannot overflow it.
//! - In delegated context a remote trust cannot refill (that would block), so it
//!   keeps splitting: a clone takes 1/4096 of the weight (at least 1). Starting from
//!   2^62 a single trust survives about 170,000 clones there, and clones of clones
//!   several generations. Cloning a remote trust whose weight is down to 1 in
//!   delegated context panics with advice (known limitation; an asynchronous refill
//!   would need its releases ordered after the refill, e.g. relayed through the
//!   refilling worker, which is not built).
//!
//! Shutdown drops every still-registered property on its trustee; trusts dropped
//! after that (or outside any runtime) do nothing.

use crate::codec;
use crate::delegable::Delegable;
use crate::fiber;
use crate::latch::Latch;
use crate::pod::Pod;
use crate::runtime::{blocking_point, WorkerId};
use crate::slot::{pad8, AlignedBuf, Reader, RECORD_HEADER};
use crate::worker::{panic_message, try_worker, worker, Cont, Delegated, PropHeader, Worker};
use serde::{de::DeserializeOwned, Serialize};
use std::cell::Cell;
use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};

/// Weight of a new trust (and of the property's total).
const INITIAL_WEIGHT: u64 = 1 << 62;
/// A clone takes `weight >> SHARE_SHIFT` (at least 1): a trust can be cloned about
/// 4096 x 43 times before it runs dry, and clones of clones still carry plenty.
const SHARE_SHIFT: u32 = 12;
/// Below this weight a trust is refilled before cloning when that is possible here.
const LOW_WATER: u64 = 1 << 40;
/// Weight added by a refill (the trustee's total is a u128, so it cannot overflow).
const REFILL: u64 = 1 << 52;

/// A property in trustee memory: header first (so a property address is also a
/// header address), then the value.
#[repr(C)]
struct PropBox<T> {
    hdr: PropHeader,
    value: T,
}

unsafe fn drop_prop<T>(p: *mut PropHeader) {
    // SAFETY: `p` came from `Box::into_raw(Box<PropBox<T>>)` in `new_prop::<T>`.
    drop(unsafe { Box::from_raw(p as *mut PropBox<T>) });
}

/// Allocates and registers a property on worker `w` (which must be the current one).
fn new_prop<T: 'static>(w: &Worker, value: T) -> u64 {
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

/// # Safety
/// `p` must be a live `PropBox<T>` of the current worker, with no other reference
/// to its value alive (delegated closures run one at a time).
#[inline(always)]
unsafe fn value_mut<'a, T>(p: u64) -> &'a mut T {
    // SAFETY: caller contract.
    unsafe { &mut (*(p as *mut PropBox<T>)).value }
}

#[inline(always)]
fn put_value<U: Copy>(out: &mut AlignedBuf, u: U) {
    if size_of::<U>() == 0 {
        return;
    }
    let d = out.reserve(pad8(size_of::<U>()));
    // SAFETY: `reserve` returned room for `pad8(size_of U)` bytes.
    unsafe { (d as *mut U).write_unaligned(u) };
}

fn put_serde<U: Serialize>(out: &mut AlignedBuf, u: &U) {
    let mut tmp = Vec::new();
    codec::encode_into(u, &mut tmp)
        .unwrap_or_else(|e| panic!("gossamer: could not encode a return value: {e}"));
    let d = out.reserve(8);
    // SAFETY: 8 bytes reserved, 8-aligned.
    unsafe { (d as *mut u64).write(tmp.len() as u64) };
    out.extend(tmp.as_ptr(), tmp.len());
}

fn read_serde<U: DeserializeOwned>(r: &mut Reader) -> U {
    let (p, n) = r.bytes();
    // SAFETY: the reader's bytes are valid for its lifetime.
    let s = unsafe { std::slice::from_raw_parts(p, n) };
    codec::decode(s)
        .unwrap_or_else(|e| panic!("gossamer: could not decode a value from a slot: {e}"))
}

unsafe fn read_into<U: Copy>(r: &mut Reader, out: *mut u8) {
    // SAFETY: the response holds a U written by `put_value::<U>`; `out` points to a
    // `MaybeUninit<U>` of the parked fiber.
    unsafe { (out as *mut U).write(r.value::<U>()) };
}

unsafe fn read_serde_into<U: DeserializeOwned>(r: &mut Reader, out: *mut u8) {
    // SAFETY: `out` points to a `MaybeUninit<U>` of the parked fiber.
    unsafe { (out as *mut U).write(read_serde::<U>(r)) };
}

#[inline(always)]
fn code<X>(f: X) -> u64
where
    X: Copy,
{
    debug_assert_eq!(size_of::<X>(), size_of::<usize>());
    // SAFETY: X is always a `Trampoline` fn pointer at call sites (see below).
    unsafe { std::mem::transmute_copy::<X, usize>(&f) as u64 }
}

macro_rules! tramp {
    ($e:expr) => {
        code::<crate::worker::Trampoline>($e)
    };
}

// ------------------------------------------------------------ trampolines
// Each reads exactly what the matching client method wrote after the record header.

unsafe fn tr_apply<T, F: FnOnce(&mut T) -> U + Copy, U: Copy>(
    p: u64,
    r: &mut Reader,
    out: &mut AlignedBuf,
) {
    // SAFETY: the client wrote an F here with `put_value`; `p` is a live PropBox<T>.
    let f: F = unsafe { r.value() };
    let u = f(unsafe { value_mut::<T>(p) });
    put_value(out, u);
}

unsafe fn tr_returning<T, F: FnOnce(&mut T) -> U + Copy, U: Serialize>(
    p: u64,
    r: &mut Reader,
    out: &mut AlignedBuf,
) {
    // SAFETY: as in `tr_apply`.
    let f: F = unsafe { r.value() };
    let u = f(unsafe { value_mut::<T>(p) });
    put_serde(out, &u);
}

unsafe fn tr_with<T, F: FnOnce(&mut T, V) -> U + Copy, V: DeserializeOwned, U: Copy>(
    p: u64,
    r: &mut Reader,
    out: &mut AlignedBuf,
) {
    // SAFETY: as in `tr_apply`; the payload follows the closure.
    let f: F = unsafe { r.value() };
    let v: V = read_serde(r);
    let u = f(unsafe { value_mut::<T>(p) }, v);
    put_value(out, u);
}

unsafe fn tr_slice<T, F: FnOnce(&mut T, &[R]) -> U + Copy, R: Pod, U: Copy>(
    p: u64,
    r: &mut Reader,
    out: &mut AlignedBuf,
) {
    // SAFETY: as in `tr_apply`.
    let f: F = unsafe { r.value() };
    let (d, n) = r.bytes();
    // SAFETY: the client copied `n / size_of R` Pod records here; slot and
    // reassembly memory are 8-aligned and records start at 8-aligned offsets, and
    // `align_of::<R>() <= 8` is checked at compile time by the client method.
    let data = unsafe { std::slice::from_raw_parts(d as *const R, n / size_of::<R>()) };
    let u = f(unsafe { value_mut::<T>(p) }, data);
    put_value(out, u);
}

unsafe fn tr_entrust_with<T: 'static, F: FnOnce() -> T + Copy>(
    _: u64,
    r: &mut Reader,
    out: &mut AlignedBuf,
) {
    // SAFETY: the client wrote an F here.
    let f: F = unsafe { r.value() };
    let addr = new_prop(worker("entrust_with"), f());
    put_value(out, addr);
}

unsafe fn tr_entrust_boxed<T: 'static>(p: u64, _: &mut Reader, out: &mut AlignedBuf) {
    // SAFETY: `p` is a `Box<T>` leaked by `entrust_on` in this process, sent once.
    let b = unsafe { Box::from_raw(p as *mut T) };
    let addr = new_prop(worker("entrust_on"), *b);
    put_value(out, addr);
}

unsafe fn tr_top_up(p: u64, r: &mut Reader, _: &mut AlignedBuf) {
    let add = r.u64();
    // SAFETY: `p` is a live property of this trustee (the requesting trust holds weight).
    let h = unsafe { &*(p as *const PropHeader) };
    h.weight.set(h.weight.get() + add as u128);
}

unsafe fn tr_release(p: u64, r: &mut Reader, _: &mut AlignedBuf) {
    let w = r.u64();
    // SAFETY: the weight was owned by a trust of this live property.
    unsafe { worker("release").release_local(p as *mut PropHeader, w) };
}

unsafe fn tr_launch<T: 'static, F: FnOnce(&mut T) -> U + Copy + 'static, U: Copy + 'static>(
    p: u64,
    r: &mut Reader,
    _: &mut AlignedBuf,
) {
    // SAFETY: the client wrote F, its worker id and the launch token.
    let f: F = unsafe { r.value() };
    let client = r.u64() as usize;
    let token = r.u64();
    start_launch::<T, F, U>(worker("launch"), p, f, client, token);
}

unsafe fn tr_launch_done(token: u64, r: &mut Reader, _: &mut AlignedBuf) {
    worker("launch").finish_launch(token, r);
}

/// Runs a launched closure in a new fiber on this (the trustee's) worker.
fn start_launch<T: 'static, F: FnOnce(&mut T) -> U + Copy + 'static, U: Copy + 'static>(
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

// ------------------------------------------------------------------ Trust

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
    ptr: u64,
    trustee: usize,
    rt: u64,
    weight: AtomicU64,
    _p: PhantomData<fn() -> T>,
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

/// Entrusts `value` to the current worker's trustee.
pub fn entrust<T: 'static>(value: T) -> Trust<T> {
    let w = worker("entrust");
    let ptr = new_prop(w, value);
    Trust {
        ptr,
        trustee: w.id,
        rt: w.shared.rt,
        weight: AtomicU64::new(INITIAL_WEIGHT),
        _p: PhantomData,
    }
}

/// Moves `value` to worker `w`'s trustee (blocking when `w` is another worker).
///
/// The value moves through process memory, so this is for one machine only;
/// [`entrust_with`] builds the value on the trustee and works across machines.
pub fn entrust_on<T: Send + 'static>(w: WorkerId, value: T) -> Trust<T> {
    let me = worker("entrust_on");
    assert!(
        w.0 < me.n(),
        "gossamer: entrust_on({w}) but there are only {} workers",
        me.n()
    );
    if w.0 == me.id {
        return entrust(value);
    }
    assert!(
        me.shared.is_local(w.0),
        "gossamer: entrust_on({w}) targets another process (rank) of this rack run; a value \
         cannot move there through memory. Use `entrust_with` (the value is built on the \
         trustee by a Delegable closure) instead"
    );
    let me = blocking_point("entrust_on");
    let boxed = Box::into_raw(Box::new(value)) as u64;
    let ptr = remote_addr(
        me,
        w.0,
        tramp!(tr_entrust_boxed::<T>),
        boxed,
        RECORD_HEADER,
        |_| {},
    );
    Trust {
        ptr,
        trustee: w.0,
        rt: me.shared.rt,
        weight: AtomicU64::new(INITIAL_WEIGHT),
        _p: PhantomData,
    }
}

/// Builds a property on worker `w` by running `init` there (blocking when `w` is
/// another worker). `init` crosses the channel as bytes, like any delegated closure.
pub fn entrust_with<T: 'static, F>(w: WorkerId, init: F) -> Trust<T>
where
    F: FnOnce() -> T + Delegable,
{
    let me = worker("entrust_with");
    assert!(
        w.0 < me.n(),
        "gossamer: entrust_with({w}) but there are only {} workers",
        me.n()
    );
    if w.0 == me.id {
        return entrust(init());
    }
    let me = blocking_point("entrust_with");
    let len = RECORD_HEADER + pad8(size_of::<F>());
    let ptr = remote_addr(me, w.0, tramp!(tr_entrust_with::<T, F>), 0, len, |wr| {
        wr.put_value(init)
    });
    Trust {
        ptr,
        trustee: w.0,
        rt: me.shared.rt,
        weight: AtomicU64::new(INITIAL_WEIGHT),
        _p: PhantomData,
    }
}

fn remote_addr(
    me: &Worker,
    t: usize,
    code: u64,
    prop: u64,
    len: usize,
    write: impl FnOnce(&mut crate::slot::Writer),
) -> u64 {
    let mut out = MaybeUninit::<u64>::uninit();
    let cont = Cont::Wake {
        fid: me.current_fiber(),
        out: out.as_mut_ptr() as *mut u8,
        read: read_into::<u64>,
    };
    me.enqueue(t, code, prop, len, cont, write);
    me.park();
    // SAFETY: the continuation wrote the address before waking us.
    unsafe { out.assume_init() }
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

    fn my_worker(&self, what: &str) -> &'static Worker {
        let w = worker(what);
        assert!(
            w.shared.rt == self.rt,
            "gossamer: `{what}` on a Trust that belongs to another (finished?) runtime"
        );
        w
    }

    /// Runs `f` inline for a local property from a fiber, or defers it (delegated
    /// context) so it never runs while another closure holds the property.
    #[inline(always)]
    fn local(&self, w: &'static Worker, job: impl FnOnce(&mut T) + 'static) {
        let p = self.ptr;
        if w.delegated.get() > 0 || !fiber::in_fiber() {
            // SAFETY (in the job): deferred jobs run one at a time from the worker
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

    fn check(&self, w: &Worker) {
        assert!(
            w.shared.rt == self.rt,
            "gossamer: this Trust belongs to another (finished?) runtime"
        );
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
        // SAFETY (in the continuation): the response holds a U at the cursor.
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
        // SAFETY (in the continuation): the response holds a U at the cursor.
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
        // SAFETY (in the continuation): the response holds a U at the cursor.
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
        // SAFETY (in the continuation): the completion record holds a U at the cursor.
        let token = w.add_launch(Box::new(move |r: &mut Reader| {
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

impl<T> Clone for Trust<T> {
    /// Splits this trust's weight; no message in the common case (see the module
    /// docs). A trust whose weight runs low is refilled from its trustee: inline on
    /// the trustee, with a blocking round trip from a fiber elsewhere. Panics only
    /// when a remote trust with weight 1 is cloned in delegated context.
    fn clone(&self) -> Self {
        loop {
            let w = self.weight.load(Ordering::Acquire);
            if w < LOW_WATER && can_refill(self.trustee, self.rt) {
                refill(self.ptr, self.trustee, self.rt, &self.weight);
                continue;
            }
            if w >= 2 {
                let give = (w >> SHARE_SHIFT).max(1);
                if self
                    .weight
                    .compare_exchange(w, w - give, Ordering::AcqRel, Ordering::Acquire)
                    .is_ok()
                {
                    return Trust {
                        ptr: self.ptr,
                        trustee: self.trustee,
                        rt: self.rt,
                        weight: AtomicU64::new(give),
                        _p: PhantomData,
                    };
                }
            } else {
                refill(self.ptr, self.trustee, self.rt, &self.weight);
            }
        }
    }
}

/// True when a refill can happen right here without breaking delegated-context
/// rules: on the trustee itself, or from plain fiber context elsewhere.
fn can_refill(trustee: usize, rt: u64) -> bool {
    match try_worker() {
        Some(w) if w.shared.rt == rt && !w.stopping.get() => {
            w.id == trustee || (w.delegated.get() == 0 && fiber::in_fiber())
        }
        _ => false,
    }
}

/// Adds `REFILL` to the property's total weight, then to the trust's weight.
fn refill(ptr: u64, trustee: usize, rt: u64, weight: &AtomicU64) {
    let w = worker("Trust::clone");
    assert!(
        w.shared.rt == rt,
        "gossamer: Trust::clone on a Trust that belongs to another (finished?) runtime"
    );
    if w.id == trustee {
        // SAFETY: a live property of this worker (the trust holds weight); the
        // header fields are Cells, separate from the value.
        let h = unsafe { &*(ptr as *const PropHeader) };
        h.weight.set(h.weight.get() + REFILL as u128);
    } else {
        if w.delegated.get() > 0 {
            panic!(
                "gossamer: this Trust's reference weight is exhausted (it was cloned very many times in \
                 delegated context), and refilling it needs a blocking round trip to its trustee, which is \
                 not allowed in delegated context (closures and `then` continuations). Clone it in a fiber \
                 first, or do the work in `launch`, whose closure runs in a fiber."
            );
        }
        let w = blocking_point("Trust::clone");
        let mut out = MaybeUninit::<()>::uninit();
        let cont = Cont::Wake {
            fid: w.current_fiber(),
            out: out.as_mut_ptr() as *mut u8,
            read: read_into::<()>,
        };
        w.enqueue(
            trustee,
            tramp!(tr_top_up),
            ptr,
            RECORD_HEADER + 8,
            cont,
            |wr| wr.put_u64(REFILL),
        );
        w.park();
    }
    weight.fetch_add(REFILL, Ordering::AcqRel);
}

impl<T> Drop for Trust<T> {
    fn drop(&mut self) {
        let wgt = *self.weight.get_mut();
        if wgt == 0 {
            return;
        }
        let Some(w) = try_worker() else { return };
        if w.shared.rt != self.rt || w.stopping.get() {
            return;
        }
        let p = self.ptr;
        if w.id == self.trustee {
            if w.delegated.get() > 0 || !fiber::in_fiber() {
                // SAFETY (in the job): this trust's weight is returned exactly once.
                w.defer(Box::new(move || unsafe {
                    worker("release").release_local(p as *mut PropHeader, wgt)
                }));
            } else {
                w.run_deferred();
                // SAFETY: as above; no delegated closure is running.
                unsafe { w.release_local(p as *mut PropHeader, wgt) };
            }
        } else {
            w.enqueue(
                self.trustee,
                tramp!(tr_release),
                p,
                RECORD_HEADER + 8,
                Cont::Skip,
                |wr| wr.put_u64(wgt),
            );
        }
    }
}

// ------------------------------------------------- fibers across processes

unsafe fn tr_spawn_with<F, V, R>(_: u64, r: &mut Reader, _: &mut AlignedBuf)
where
    F: FnOnce(V) -> R + Copy + 'static,
    V: DeserializeOwned + 'static,
    R: Serialize + 'static,
{
    // SAFETY: the client wrote F, its worker id, the token, then the payload.
    let f: F = unsafe { r.value() };
    let client = r.u64() as usize;
    let token = r.u64();
    let v: V = read_serde(r);
    let w = worker("spawn_on_with");
    w.spawn_local(Box::new(move || {
        let w = worker("spawn_on_with");
        match catch_unwind(AssertUnwindSafe(move || f(v))) {
            Ok(res) => {
                let mut bytes = Vec::new();
                codec::encode_into(&res, &mut bytes).unwrap_or_else(|e| {
                    panic!("gossamer: could not encode a spawn_on_with result: {e}")
                });
                if client == w.id {
                    let mut buf = AlignedBuf::default();
                    let d = buf.reserve(8);
                    // SAFETY: 8 bytes reserved, 8-aligned.
                    unsafe { (d as *mut u64).write(bytes.len() as u64) };
                    buf.extend(bytes.as_ptr(), bytes.len());
                    // SAFETY: reading our own buffer.
                    let mut r = unsafe { Reader::new(buf.as_ptr(), buf.len()) };
                    w.finish_launch(token, &mut r);
                } else {
                    let q = w.enqueue(
                        client,
                        tramp!(tr_launch_done),
                        token,
                        RECORD_HEADER + 8 + pad8(bytes.len()),
                        Cont::Skip,
                        |wr| wr.put_bytes(bytes.as_ptr(), bytes.len()),
                    );
                    w.backpressure(q);
                }
            }
            Err(e) => {
                let msg = panic_message(&*e);
                w.shared.poison(format!(
                    "gossamer: a fiber started with spawn_on_with panicked on worker {}: {msg}",
                    w.id
                ));
            }
        }
    }));
}

/// Spawns a fiber running `f(payload)` on worker `target`, which may be in another
/// process (rank) of a rack run: `f` crosses as bytes (it must be [`Delegable`]) and
/// `payload` and the result are serialized, so they may hold heap values and
/// [`Trust`]s. Use [`spawn_on`](crate::spawn_on) for same-process fibers capturing
/// anything `Send`.
///
/// A panic in the fiber stops the whole run (like a delegated closure's).
///
/// ```
/// let v = gossamer::main(2, || {
///     let counter = gossamer::entrust(0u64);
///     let h = gossamer::spawn_on_with(gossamer::WorkerId(1), |(c, n): (gossamer::Trust<u64>, u64)| {
///         c.apply(move |x| { *x += n; *x })
///     }, (counter.clone(), 5));
///     h.join()
/// });
/// assert_eq!(v, 5);
/// ```
pub fn spawn_on_with<V, R>(
    target: WorkerId,
    f: impl FnOnce(V) -> R + Delegable,
    payload: V,
) -> crate::runtime::JoinHandle<R>
where
    V: Serialize + DeserializeOwned + 'static,
    R: Serialize + DeserializeOwned + Send + 'static,
{
    let w = worker("spawn_on_with");
    assert!(
        target.0 < w.n(),
        "gossamer: spawn_on_with({target}) but there are only {} workers",
        w.n()
    );
    let (handle, complete) = crate::runtime::JoinHandle::<R>::pending(target);
    let token = w.add_spawn(Box::new(move |r: &mut Reader| complete(read_serde::<R>(r))));
    send_spawn(w, target.0, f, &payload, token);
    handle
}

fn send_spawn<F, V, R>(w: &Worker, target: usize, f: F, payload: &V, token: u64)
where
    F: FnOnce(V) -> R + Copy + 'static,
    V: Serialize + DeserializeOwned + 'static,
    R: Serialize + 'static,
{
    let mut bytes = Vec::new();
    codec::encode_into(payload, &mut bytes)
        .unwrap_or_else(|e| panic!("gossamer: could not encode the spawn_on_with payload: {e}"));
    let len = RECORD_HEADER + pad8(size_of::<F>()) + 16 + 8 + pad8(bytes.len());
    let me = w.id as u64;
    let q = w.enqueue(
        target,
        tramp!(tr_spawn_with::<F, V, R>),
        0,
        len,
        Cont::Skip,
        |wr| {
            wr.put_value(f);
            wr.put_u64(me);
            wr.put_u64(token);
            wr.put_bytes(bytes.as_ptr(), bytes.len());
        },
    );
    w.backpressure(q);
}

/// Runs `f(payload.clone())` once on every worker of every rank (one fiber each),
/// waits for all and returns the results indexed by worker: the rack-wide
/// [`on_every_worker`](crate::on_every_worker). See [`spawn_on_with`].
pub fn on_every_worker_with<V, R>(f: impl Fn(V) -> R + Delegable, payload: V) -> Vec<R>
where
    V: Serialize + DeserializeOwned + Clone + 'static,
    R: Serialize + DeserializeOwned + Send + 'static,
{
    let n = crate::runtime::num_workers();
    let hs: Vec<_> = (0..n)
        .map(|i| spawn_on_with(WorkerId(i), f, payload.clone()))
        .collect();
    hs.into_iter().map(|h| h.join()).collect()
}

impl<T> Serialize for Trust<T> {
    /// A trust serializes as a new clone (its own share of the weight), so it can
    /// travel in payloads to other workers and ranks. A serialized trust that is
    /// never deserialized keeps its property alive until shutdown.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeTuple;
        let c = std::mem::ManuallyDrop::new(self.clone());
        let mut t = s.serialize_tuple(4)?;
        t.serialize_element(&c.ptr)?;
        t.serialize_element(&(c.trustee as u64))?;
        t.serialize_element(&c.rt)?;
        t.serialize_element(&c.weight.load(Ordering::Acquire))?;
        t.end()
    }
}

impl<'de, T> serde::Deserialize<'de> for Trust<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (ptr, trustee, rt, weight) = <(u64, u64, u64, u64)>::deserialize(d)?;
        Ok(Trust {
            ptr,
            trustee: trustee as usize,
            rt,
            weight: AtomicU64::new(weight),
            _p: PhantomData,
        })
    }
}
