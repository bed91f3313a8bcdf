//! Weighted reference counting of trusts: `Clone` splits weight, `Drop` returns it,
//! a trust running low is refilled, and a serialized trust carries a clone's share.
//! The design:
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
//! # Requests in flight hold no weight: fences
//!
//! A non-blocking request (`apply_then` and the other `_then`s, `launch_then`,
//! a local request deferred from delegated context) leaves its worker without
//! taking weight from the trust: splitting a unit off per request would be an
//! atomic write to the trust, and trusts shared by every worker (an
//! `Arc<Vec<Trust>>`) would bounce their cache lines between cores on every
//! request. Per (client worker, trustee) pair, requests and releases run in
//! issue order, so a trust dropped on the worker that used it returns its
//! weight behind its requests. But the trust may leave that worker before its
//! requests have run (moved into a fiber elsewhere, or the last `Arc` of a
//! shared trust dropped elsewhere); its release then travels on another pair
//! and could overtake them, and the property would be dropped under a request
//! still on its way (a use after free; `tests/inflight_weight.rs` stages it).
//!
//! So a trust records which workers sent non-blocking requests through it
//! (`users`: bit `id % 32`, set once per worker: one load and a compare per
//! request afterwards). A trust dropped on a worker other than its users (or
//! on any worker, with more than 32 workers, when bits stand for several) is
//! released *fenced*: its trustee adds one unit of weight per other user and
//! sends each a fence (`tr_fence`), which that user returns as a release of
//! one unit on its own pair to the property (behind the requests it sent
//! before; locally, as a deferred job behind its deferred ones), to the
//! address its own requests take, so a request that meets a tombstone and is
//! sent on is followed by the unit. Only then does the property's weight
//! reach 0. Those units are held by fences in flight, so the invariant becomes
//! `W` = live trusts + release messages + pinned launches + fence units. A
//! fenced drop costs two records per other user; a trust used only where it is
//! dropped is released as before. A request issued after the trust moved away
//! needs none of this: the trust holds weight while it is used.
//!
//! Shutdown drops every still-registered property on its trustee; trusts dropped
//! after that (or outside any runtime) do nothing.

use super::trampolines::{fence_users, tr_release, tr_release_fenced, tr_top_up, tramp};
use super::values::read_into;
use super::Trust;
use crate::fiber;
use crate::slot::RECORD_HEADER;
use crate::worker::{blocking_point, try_worker, worker, Cont, PropHeader, Worker};
use serde::Serialize;
use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// A clone takes `weight >> SHARE_SHIFT` (at least 1): a trust can be cloned about
/// 4096 x 43 times before it runs dry, and clones of clones still carry plenty.
const SHARE_SHIFT: u32 = 12;

/// Below this weight a trust is refilled before cloning when that is possible here.
const LOW_WATER: u64 = 1 << 40;

/// Weight added by a refill (the trustee's total is a u128, so it cannot overflow).
const REFILL: u64 = 1 << 52;

impl<T> Clone for Trust<T> {
    /// Splits this trust's weight; no message in the common case (see the module
    /// docs). A trust whose weight runs low is refilled from its trustee: inline on
    /// the trustee, with a blocking round trip from a fiber elsewhere. Panics only
    /// when a remote trust with weight 1 is cloned in delegated context.
    fn clone(&self) -> Self {
        loop {
            let w = self.weight.load(Ordering::Acquire);
            if w < LOW_WATER {
                let (t, p) = self.current();
                if can_refill(t, self.rt) {
                    refill(p, t, self.rt, &self.weight);
                    continue;
                }
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
                        users: AtomicU32::new(0),
                        _p: PhantomData,
                    };
                }
            } else {
                let (t, p) = self.current();
                refill(p, t, self.rt, &self.weight);
            }
        }
    }
}

/// A worker's bit in a trust's `users` (see the module docs).
#[inline(always)]
pub(crate) fn user_bit(worker: usize) -> u32 {
    1 << (worker % 32)
}

/// True when a trust with `users` dropped on `w` must be released fenced:
/// some other worker may have requests through it on their way.
fn others_used(users: u32, w: &Worker) -> bool {
    let mine = user_bit(w.id);
    users & !mine != 0 || (users & mine != 0 && w.n() > 32)
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
        let users = *self.users.get_mut();
        let fenced = others_used(users, w);
        let origin = (self.trustee as usize, self.ptr);
        // The deferred local requests run first when the release is inline.
        let (t, p, inline) = self.at(w, false);
        if w.id == t {
            if fenced {
                // SAFETY: a live property of this worker (`at` resolved the
                // routes), kept alive by this trust's weight.
                unsafe { fence_users(w, p, users, origin, w.id) };
            }
            if !inline {
                // SAFETY: (in the job) this trust's weight is returned exactly once.
                w.defer(Box::new(move || unsafe {
                    worker("release").release_local(p as *mut PropHeader, wgt)
                }));
            } else {
                // SAFETY: as above; no delegated closure is running.
                unsafe { w.release_local(p as *mut PropHeader, wgt) };
            }
        } else if !fenced {
            w.enqueue(
                t,
                tramp!(tr_release),
                p,
                RECORD_HEADER + 8,
                Cont::Skip,
                |wr| wr.put_u64(wgt),
            );
        } else {
            w.enqueue(
                t,
                tramp!(tr_release_fenced),
                p,
                RECORD_HEADER + 40,
                Cont::Skip,
                |wr| {
                    for v in [wgt, users as u64, origin.0 as u64, origin.1, w.id as u64] {
                        wr.put_u64(v);
                    }
                },
            );
        }
    }
}

impl<T> Serialize for Trust<T> {
    /// A trust serializes as a new clone (its own share of the weight), so it can
    /// travel in payloads to other workers and ranks. A serialized trust that is
    /// never deserialized keeps its property alive until shutdown.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeTuple;
        let c = std::mem::ManuallyDrop::new(self.clone());
        // Where this worker knows the property to be (saves the receiver a bounce).
        let (trustee, ptr) = c.latest();
        let mut t = s.serialize_tuple(4)?;
        t.serialize_element(&ptr)?;
        t.serialize_element(&(trustee as u64))?;
        t.serialize_element(&c.rt)?;
        t.serialize_element(&c.weight.load(Ordering::Acquire))?;
        t.end()
    }
}

impl<'de, T> serde::Deserialize<'de> for Trust<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (ptr, trustee, rt, weight) = <(u64, u64, u64, u64)>::deserialize(d)?;
        let trustee = u32::try_from(trustee)
            .map_err(|_| serde::de::Error::custom("a trust's trustee id does not fit 32 bits"))?;
        Ok(Trust {
            ptr,
            trustee,
            rt,
            weight: AtomicU64::new(weight),
            users: AtomicU32::new(0),
            _p: PhantomData,
        })
    }
}
