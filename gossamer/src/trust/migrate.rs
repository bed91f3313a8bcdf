//! Moving a property to another trustee ([`Trust::migrate_to`] through memory,
//! [`Trust::migrate_with`] also through bytes, into another rank) and placing
//! new work beside an existing property ([`entrust_near`], [`spawn_near`]).
//!
//! The design (forwarding addresses, bounced records, learnt routes, what a
//! lookup costs, and the four steps of a move through bytes) is explained in
//! `worker/moves.rs`; the move itself is `migrate_here` (`trampolines.rs`) and
//! `move_out` (`property.rs`) through memory, and `tr_reserve`, `ship_here`,
//! `fill_here`, `tr_commit` (`trampolines.rs`) with `reserve`, `take_out`,
//! `fill`, `commit` (`property.rs`) through bytes.

use super::entrust::entrust_on;
use super::property::{cancel, commit, reserve};
use super::trampolines::{
    fill_here, migrate_here, read_shipped, ship_here, tr_cancel, tr_commit, tr_fill, tr_migrate,
    tr_reserve, tr_ship, tramp, Shipped, MOVED, OTHER_RANK, PINNED, STAYED, UNENCODABLE,
};
use super::values::read_into;
use super::Trust;
use crate::runtime::{process_of, spawn_on, JoinHandle, WorkerId};
use crate::slot::{pad8, AlignedBuf, Reader, Writer, RECORD_HEADER};
use crate::worker::{blocking_point, Cont, Worker};
use serde::{de::DeserializeOwned, Serialize};
use std::mem::MaybeUninit;

impl<T: Send + 'static> Trust<T> {
    /// Moves the property's value to worker `to` (of this process), suspending
    /// the calling fiber until it has moved. Returns true when the value lives on
    /// `to` afterwards, false when it could not move because a
    /// [`launch`](Trust::launch)ed closure was running on it.
    ///
    /// Every trust of the property, wherever it is, stays valid: the old trustee
    /// keeps a forwarding address, and a request that reaches it is sent on to
    /// the new one (one extra round trip, only until the sending worker has learnt
    /// the new address). Requests already on their way run exactly once, before or
    /// after the move, and each worker's requests keep their issue order: a
    /// worker whose request bounced holds its later requests back until the
    /// bounced one has reached the value (its chase queue, `worker/moves.rs`;
    /// meanwhile its requests go out one round trip at a time). Moves of one
    /// property from several fibers happen one after the other.
    ///
    /// The value moves through process memory (it must be `Send`): the old and
    /// the new trustee must be workers of one process; the calling fiber may be
    /// on any worker, also of another rank. A move into another rank panics:
    /// use [`migrate_with`](Self::migrate_with) there. Blocking: not in
    /// delegated context.
    ///
    /// ```
    /// use gossamer::{entrust_on, WorkerId};
    ///
    /// gossamer::main(3, || {
    ///     let c = entrust_on(WorkerId(1), 5u64);
    ///     let other = c.clone();
    ///     assert!(c.migrate_to(WorkerId(2)));
    ///     assert_eq!(c.trustee(), WorkerId(2));
    ///     other.apply(|v| *v += 1); // a clone made before the move still works
    ///     assert_eq!(c.apply(|v| *v), 6);
    /// });
    /// ```
    pub fn migrate_to(&self, to: WorkerId) -> bool {
        let w = blocking_point("migrate_to");
        match self.move_within(w, to, "migrate_to") {
            Some(moved) => moved,
            None => panic!(
                "gossamer: migrate_to({to}): the value lives in another process (rank) than {to}; \
                 moving a value between ranks needs it serialized: use migrate_with"
            ),
        }
    }

    /// The in-process move of [`migrate_to`](Self::migrate_to): `None` when
    /// the value lives in another process than `to` (it did not move).
    fn move_within(&self, w: &'static Worker, to: WorkerId, what: &str) -> Option<bool> {
        self.check(w);
        assert!(
            to.0 < w.n(),
            "gossamer: {what}({to}) but there are only {} workers",
            w.n()
        );
        let (t, p, _) = self.at(w, true);
        let ans = if t == w.id {
            // SAFETY: `p` is a live property of this worker (`at` resolved the
            // routes after the deferred jobs ran), and we are in a fiber outside
            // delegated context, so no closure holds its value.
            unsafe { migrate_here::<T>(w, p, to.0) }
        } else {
            let mut out = MaybeUninit::<[u64; 5]>::uninit();
            let cont = Cont::Wake {
                fid: w.current_fiber(),
                out: out.as_mut_ptr() as *mut u8,
                read: read_into::<[u64; 5]>,
            };
            w.enqueue(
                t,
                tramp!(tr_migrate::<T>),
                p,
                RECORD_HEADER + 8,
                cont,
                |wr| wr.put_u64(to.0 as u64),
            );
            w.park();
            // SAFETY: the continuation wrote the answer before waking us.
            unsafe { out.assume_init() }
        };
        match ans[0] {
            MOVED => {
                w.learn((ans[1] as usize, ans[2]), (ans[3] as usize, ans[4]), false);
                Some(true)
            }
            STAYED => Some(true),
            PINNED => Some(false),
            OTHER_RANK => None,
            x => panic!("gossamer: {what} got answer {x} (runtime bug)"),
        }
    }
}

impl<T: Send + Serialize + DeserializeOwned + 'static> Trust<T> {
    /// Moves the property's value to worker `to`, of this or of another process
    /// (rank), suspending the calling fiber until it has moved. Returns true when
    /// the value lives on `to` afterwards, false when it could not move because a
    /// [`launch`](Trust::launch)ed closure was running on it. Every trust of the
    /// property stays valid, requests already on their way run exactly once, and
    /// each worker's requests keep their order, as with
    /// [`migrate_to`](Self::migrate_to).
    ///
    /// When the value lives in `to`'s process, it moves through memory, as with
    /// `migrate_to`. Otherwise it moves through bytes (serde, encoded as
    /// [`apply_with`](Self::apply_with)'s payloads; a value bigger than a slot
    /// travels in chunks, there is no size limit), in four round trips that
    /// the calling fiber drives: `to` reserves a *pending box*; the old trustee
    /// serializes the value, answers the bytes and the property's reference
    /// weight, and leaves a tombstone that bounces requests back to itself;
    /// `to` decodes the value into the box, which holds the weight from then
    /// on; the tombstone is told to forward to the box. Requests that reach
    /// the tombstone meanwhile bounce and are sent again, one round trip per
    /// try (`worker/moves.rs`). The copy left on the old trustee is dropped
    /// there once serialized (a value holding trusts returns their weight: the
    /// bytes carry clones of them); the moved value is dropped on its last
    /// trustee when the last trust of it is gone, like any property. So a `T`
    /// whose `Drop` has effects beyond its own memory sees one drop per
    /// process the value left, and one at the end. A value whose serialization
    /// fails does not move (this panics with the type's name and the codec's
    /// message, and the value stays usable where it was); one whose
    /// bytes fail to decode on `to` stops the run (delegated panic).
    ///
    /// Blocking: not in delegated context.
    ///
    /// ```
    /// use gossamer::{entrust_on, WorkerId};
    ///
    /// gossamer::main(2, || {
    ///     let c = entrust_on(WorkerId(1), vec![1u64, 2]);
    ///     assert!(c.migrate_with(WorkerId(0)));
    ///     assert_eq!(c.trustee(), WorkerId(0));
    ///     assert_eq!(c.apply(|v| v.iter().sum::<u64>()), 3);
    /// });
    /// ```
    pub fn migrate_with(&self, to: WorkerId) -> bool {
        let w = blocking_point("migrate_with");
        self.check(w);
        let here = self.latest().0;
        if process_of(WorkerId(here)) == process_of(to) {
            if let Some(moved) = self.move_within(w, to, "migrate_with") {
                return moved;
            }
            // It moved into another process meanwhile: through bytes.
        }
        self.move_by_bytes(w, to.0)
    }

    /// The move through bytes of [`migrate_with`](Self::migrate_with).
    fn move_by_bytes(&self, w: &'static Worker, to: usize) -> bool {
        assert!(
            to < w.n(),
            "gossamer: migrate_with({}) but there are only {} workers",
            WorkerId(to),
            w.n()
        );
        // (1) A pending box on `to`.
        let q = if to == w.id {
            reserve::<T>(w)
        } else {
            // SAFETY: `tr_reserve` answers a `u64` with `put_value`.
            unsafe {
                blocking_request::<u64>(
                    w,
                    to,
                    tramp!(tr_reserve::<T>),
                    0,
                    0,
                    read_into::<u64>,
                    |_| {},
                )
            }
        };
        // (2) The old trustee ships the value (the request chases it there).
        let (t, p, _) = self.at(w, true);
        let shipped = if t == w.id {
            let mut out = AlignedBuf::default();
            // SAFETY: `p` is a live property of this worker (`at` resolved the
            // routes after the deferred jobs ran), no closure holds its value
            // (a fiber outside delegated context), and `(to, q)` the pending box
            // reserved above for this move.
            unsafe { ship_here::<T>(w, p, (to, q), &mut out) };
            let mut got = MaybeUninit::<Shipped>::uninit();
            // SAFETY: `ship_here` just wrote its answer into our buffer, which
            // lives for the reader; `got` is a `Shipped`'s place, written once.
            unsafe {
                let mut r = Reader::new(out.as_ptr(), out.len());
                read_shipped(&mut r, got.as_mut_ptr() as *mut u8);
                got.assume_init()
            }
        } else {
            // SAFETY: `tr_ship` answers what `read_shipped` reads.
            unsafe {
                blocking_request::<Shipped>(w, t, tramp!(tr_ship::<T>), p, 16, read_shipped, |wr| {
                    wr.put_u64(to as u64);
                    wr.put_u64(q);
                })
            }
        };
        let [code, from_t, from_p, ..] = shipped.ans;
        match code {
            MOVED => {
                // (3) The value goes into the box, with the weight.
                if to == w.id {
                    // SAFETY: the pending box reserved above, filled once, with
                    // the bytes and weight its value was shipped with.
                    unsafe { fill_here::<T>(w, q, shipped.weight, &shipped.bytes) };
                } else {
                    let (wt, b) = (shipped.weight, &shipped.bytes);
                    // SAFETY: `tr_fill` answers nothing, which is a `()`.
                    unsafe {
                        blocking_request::<()>(
                            w,
                            to,
                            tramp!(tr_fill::<T>),
                            q,
                            24 + pad8(b.len()),
                            read_into::<()>,
                            |wr| {
                                wr.put_u64(wt as u64);
                                wr.put_u64((wt >> 64) as u64);
                                wr.put_bytes(b.as_ptr(), b.len());
                            },
                        )
                    }
                }
                // (4) The old trustee forwards to the box from now on.
                if from_t as usize == w.id {
                    // SAFETY: the tombstone `ship_here` just made here, and
                    // the box filled with its value.
                    unsafe { commit(w, from_p, (to, q)) };
                } else {
                    // SAFETY: `tr_commit` answers nothing, which is a `()`.
                    unsafe {
                        blocking_request::<()>(
                            w,
                            from_t as usize,
                            tramp!(tr_commit),
                            from_p,
                            16,
                            read_into::<()>,
                            |wr| {
                                wr.put_u64(to as u64);
                                wr.put_u64(q);
                            },
                        )
                    }
                }
                w.learn((from_t as usize, from_p), (to, q), false);
                true
            }
            STAYED => true,
            PINNED | UNENCODABLE => {
                if to == w.id {
                    // SAFETY: the pending box reserved above; the value did not
                    // move, so no tombstone forwards to it.
                    unsafe { cancel::<T>(q) };
                } else {
                    w.enqueue(
                        to,
                        tramp!(tr_cancel::<T>),
                        q,
                        RECORD_HEADER,
                        Cont::Skip,
                        |_| {},
                    );
                }
                if code == UNENCODABLE {
                    panic!(
                        "gossamer: migrate_with({}): the value (a {}) could not be serialized, \
                         so it stays where it was: {}",
                        WorkerId(to),
                        std::any::type_name::<T>(),
                        String::from_utf8_lossy(&shipped.bytes)
                    );
                }
                false
            }
            x => panic!("gossamer: migrate_with got answer {x} (runtime bug)"),
        }
    }
}

/// Sends one record to trustee `t` (code word `code`, property word `p`, a
/// body of `len` bytes that `write` writes) and suspends the calling fiber
/// until its answer, read by `read`, is back.
///
/// # Safety
/// `read` must write a valid `A` from the answer that the trampoline `code`
/// names writes for this record.
unsafe fn blocking_request<A>(
    w: &Worker,
    t: usize,
    code: u64,
    p: u64,
    len: usize,
    read: unsafe fn(&mut Reader, *mut u8),
    write: impl FnOnce(&mut Writer),
) -> A {
    let mut out = MaybeUninit::<A>::uninit();
    let cont = Cont::Wake {
        fid: w.current_fiber(),
        out: out.as_mut_ptr() as *mut u8,
        read,
    };
    w.enqueue(t, code, p, RECORD_HEADER + len, cont, write);
    w.park();
    // SAFETY: the continuation wrote the answer (caller contract) before
    // waking us.
    unsafe { out.assume_init() }
}

/// Entrusts `value` to the trustee of `near`'s property (as far as this worker
/// knows, see [`Trust::trustee`]), so that closures on both run on one worker:
/// affinity, like DRust's `spawn_to`. Blocking when that is another worker; the
/// value moves through process memory, as with [`entrust_on`].
pub fn entrust_near<T: Send + 'static, U>(near: &Trust<U>, value: T) -> Trust<T> {
    entrust_on(WorkerId(near.latest().0), value)
}

/// Spawns a fiber on the trustee of `near`'s property (as far as this worker
/// knows), so that its requests to that property run inline, as with
/// [`spawn_on`]; the property may move away later (fibers never move).
pub fn spawn_near<R: Send + 'static, U>(
    near: &Trust<U>,
    f: impl FnOnce() -> R + Send + 'static,
) -> JoinHandle<R> {
    spawn_on(WorkerId(near.latest().0), f)
}
