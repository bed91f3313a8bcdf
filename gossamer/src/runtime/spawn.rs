//! The spawn family: [`spawn`], [`spawn_on`], [`spawn_spread`], [`on_every_worker`],
//! and across processes (ranks) [`spawn_on_with`] and [`on_every_worker_with`].

use super::context::num_workers;
use super::ids::WorkerId;
use super::join::JoinHandle;
use crate::codec;
use crate::delegable::Delegable;
use crate::slot::{pad8, AlignedBuf, Reader, RECORD_HEADER};
use crate::trust::trampolines::{answer_launch, tramp};
use crate::trust::values::read_serde;
use crate::worker::{panic_message, worker, Cont, Worker};
use serde::{de::DeserializeOwned, Serialize};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// Spawns a fiber on the current worker.
pub fn spawn<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> JoinHandle<R> {
    let w = worker("spawn");
    spawn_on(WorkerId(w.id), f)
}

/// Spawns a fiber on worker `target`. The fiber stays on that worker's thread.
pub fn spawn_on<R: Send + 'static>(
    target: WorkerId,
    f: impl FnOnce() -> R + Send + 'static,
) -> JoinHandle<R> {
    let w = worker("spawn_on");
    assert!(
        target.0 < w.n(),
        "gossamer: spawn_on({target}) but there are only {} workers",
        w.n()
    );
    assert!(
        w.shared.is_local(target.0),
        "gossamer: spawn_on({target}) targets another process (rank) of this rack run; a fiber \
         capturing arbitrary values cannot go there. Use `spawn_on_with` (a Delegable closure \
         plus a serialized payload) instead"
    );
    let (handle, deliver) = JoinHandle::outcome(target);
    let body = move || {
        let r = catch_unwind(AssertUnwindSafe(f));
        if let Err(p) = &r {
            // Other fibers may wait on this one through a collective or a
            // trust it would have answered: a panic here ends the whole run
            // instead of leaving them parked forever.
            let me = worker("fiber panic");
            me.shared.poison(format!(
                "gossamer: a fiber panicked on worker {}: {}",
                me.id,
                panic_message(&**p)
            ));
        }
        deliver(r);
    };
    if target.0 == w.id {
        w.spawn_local(Box::new(body));
    } else {
        w.shared.post(target.0, |ib| ib.spawns.push(Box::new(body)));
    }
    handle
}

/// Spawns `n` fibers `f(0)..f(n-1)`, round-robin over the workers starting at 0.
pub fn spawn_spread<R: Send + 'static>(
    n: usize,
    f: impl Fn(usize) -> R + Send + Sync + Clone + 'static,
) -> Vec<JoinHandle<R>> {
    let nw = num_workers();
    (0..n)
        .map(|i| {
            let f = f.clone();
            spawn_on(WorkerId(i % nw), move || f(i))
        })
        .collect()
}

/// Runs `f` once on every worker (one fiber each), waits for all, and returns the
/// results indexed by worker. Same-process only: in a rack run with several ranks
/// use [`on_every_worker_with`](crate::on_every_worker_with).
pub fn on_every_worker<R: Send + 'static>(f: impl Fn() -> R + Send + Sync + 'static) -> Vec<R> {
    let f = Arc::new(f);
    let hs: Vec<_> = (0..num_workers())
        .map(|i| {
            let f = f.clone();
            spawn_on(WorkerId(i), move || f())
        })
        .collect();
    hs.into_iter().map(JoinHandle::join).collect()
}

// ---------------------------------------------- fibers across processes (ranks)
// The closure crosses as bytes and the payload and result are serialized; the
// spawn request is an ordinary record whose trampoline starts the fiber, and the
// result comes back as a launch completion (`tr_launch_done`).

/// Starts a `spawn_on_with` fiber on this worker; its result goes back to the
/// spawning worker as a launch completion.
///
/// # Safety
/// A trampoline (see `trust/trampolines.rs`): `r` must be positioned at an `F`
/// written by `put_value`, then the client's worker id and the completion token as
/// `u64`s, then the payload (by `send_spawn` for these `F, V, R`; a malformed
/// payload only panics); the property word is unused.
unsafe fn tr_spawn_with<F, V, R>(_: u64, r: &mut Reader, _: &mut AlignedBuf) -> bool
where
    F: FnOnce(V) -> R + Copy + 'static,
    V: DeserializeOwned + 'static,
    R: Serialize + 'static,
{
    // SAFETY: the client wrote F with `put_value`, then its worker id, the token and
    // the payload (caller contract).
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
                let mut answer = AlignedBuf::default();
                let d = answer.reserve(8);
                // SAFETY: 8 bytes reserved, 8-aligned.
                unsafe { (d as *mut u64).write(bytes.len() as u64) };
                answer.extend(bytes.as_ptr(), bytes.len());
                answer_launch(w, client, token, &answer);
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
    false
}

/// Spawns a fiber running `f(payload)` on worker `target`, which may be in another
/// process (rank) of a rack run: `f` crosses as bytes (it must be [`Delegable`]) and
/// `payload` and the result are serialized, so they may hold heap values and
/// [`Trust`](crate::Trust)s. Use [`spawn_on`](crate::spawn_on) for same-process fibers capturing
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
