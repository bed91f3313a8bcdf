//! Properties that move (`Trust::migrate_to`, `Trust::migrate_with`):
//! forwarding addresses, bounced records, the routes each worker has learnt,
//! and the chase queue that keeps each worker's order.
//!
//! When a value moves from trustee O to trustee N, O keeps the old header as a
//! *tombstone* whose `fwd` names the new address. A record that reaches a
//! tombstone is not run: its trampoline reads it whole and reports it, and O
//! sends it back in the batch's response (flag `BOUNCED`; the data ends with the
//! bounced records and a trailer, below). The client sends it again to the new
//! address with the same continuation (through its chase queue, below), so it
//! runs exactly once, on the value, wherever the value is by then (a record may
//! bounce more than once).
//!
//! Each worker remembers the routes it learnt (`(O, old) -> (N, new)`): new
//! requests from it go straight to the new address, so a lookup costs one more
//! round trip only for the requests that meet the tombstone before the worker
//! learnt of the move. Trusts themselves keep the address they were made with;
//! a worker with no known route pays one branch per request (`any_fwd`), one
//! with routes a hash lookup.
//!
//! Order: a learnt route is used for new requests only once this worker has
//! nothing left in flight to O (`issued == completed` on that pair), so a new
//! request never overtakes an older one that is still on its way to the
//! tombstone; until then new requests take the old route and bounce, in order.
//! A worker learns a route only as one hop, from a tombstone to the address it
//! forwards to (an adoption record that chased the value past its box teaches
//! nothing, `tr_adopt`), so that each inactive hop holds back the requests
//! behind it. So while a worker is not chasing, all its requests in flight to
//! one property are on one pair, to one address, in issue order.
//!
//! That is not enough once requests bounce: a bounced request R sent on to
//! where the value went can find a later request N of the same worker already
//! staged on that pair (N bounced elsewhere and took a shorter route), and
//! when both bounce again they come back, and would be sent on, in the order
//! N, R; from then on the two leapfrog while they chase the value (seen in
//! 5-9% of runs of `tests/migrate.rs`, `each_clients_order_is_kept_across_moves`,
//! before the chase queue). Responses from different trustees also come back
//! in any order.
//!
//! The chase queue. A worker *chases* from the first bounced record that comes
//! back until nothing of it is left on its way. While it chases:
//! - every bounced record that comes back waits at the end of the queue's first
//!   part (`early`, in the order they come back: one property's records come
//!   back from one pair, in issue order);
//! - every new request, of any property, waits at the end of the second part
//!   (`late`, in issue order), whatever sends it: the apply family, launches,
//!   moves, and the weight a dropped trust returns and the fence units
//!   (`weight.rs`), so no release can overtake a waiting request of this worker
//!   and drop the value under it. `resolve` answers `HOLD + t` and `enqueue`
//!   writes the record aside (`hold`); a request for a local value waits too,
//!   instead of running inline, and runs later as a deferred job (`run_here`).
//! - Rounds (`advance_chase`, from the worker loop): once every pair has
//!   completed what was in flight when the chase began (`marks`: those records
//!   may still bounce) and every record of the last round is answered or back,
//!   then, if some record came back, the whole queue (first part, then second)
//!   is sent as the next round, every route made active first (nothing of this
//!   worker is in flight, so none can be overtaken): all records of one property
//!   go to the address it is known at, on one pair, in order. If none came back,
//!   the chase ends: the waiting requests go out as usual, in order, and new
//!   requests no longer wait.
//!
//! So a bounced record is sent again only when nothing older of this worker for
//! its property is still on its way, and only together with, and before, the
//! later ones: a worker's requests to one property run in issue order, each
//! exactly once (a request is either run or bounced, never both, and a bounced
//! one is kept until it runs). While chasing, a worker's requests go out one
//! round trip at a time (a value moved again and again without pause keeps them
//! waiting longer); a run without moves never chases, and pays the one branch
//! for `any_fwd` in `loc` and a compare against `HOLD` in `enqueue` (the
//! `fetch_add` example, 16 objects, 2 threads, was unchanged by the queue:
//! medians 35.9 / 35.9 Mops/s async, 18.6 / 18.5 trust, 6 runs each). Requests
//! in the queue count as outstanding and in `rerouted` until answered
//! (`wait_outstanding`; their continuation is a `Cont::Chased`).
//!
//! Order holds among the trusts of a property that share its address (clones,
//! and trusts serialized before a move). A trust serialized after a move
//! carries the address its sender knew then; a worker that has not learnt the
//! hops between the two addresses sends requests through the two kinds of
//! trust to different places, and they are not ordered with each other.
//!
//! Moves through bytes (`Trust::migrate_with` into another process, driven by
//! the calling fiber in four round trips, `trust/migrate.rs`): (1) the new
//! trustee N reserves a *pending box* and answers its address q; (2) the old
//! trustee O serializes the value and answers the bytes and the property's
//! weight, and its header becomes a *shipping* tombstone that forwards to
//! itself; (3) the bytes go to N, which decodes the value into the box (now a
//! live property holding the weight); (4) O's tombstone is *committed*: it
//! forwards to (N, q) from then on. A record that meets the shipping tombstone
//! bounces with its own address as the new one: its client learns no route and
//! sends it there again with its next round (one round trip per retry while the
//! value is in transit). So the only state a client can meet is a tombstone
//! (shipping or committed) or a live value, as with moves through memory, and
//! the order argument above holds unchanged. Bouncing at the new box instead
//! (filling it while requests come) breaks order: a round of one worker split
//! over two batches has its first batch bounce and its second run, when the
//! fill is served between them (seen in the rack test before this design).
//! O's own requests must never run inline on the shipping header: `take_out`
//! sets `any_fwd`, and `resolve` sends a request whose property resolves to a
//! moved header of this worker through the chase queue (one load of the
//! header, only for workers that know of a move, only for local properties),
//! where it runs through its trampoline, which bounces (a run without moves
//! never gets there: the `fetch_add` example, 16 objects, 2 threads, 20
//! alternated runs of each build through quiet.py, in the runs no other work
//! disturbed: async 35.5 -> 35.7 Mops/s median, trust 18.4 -> 18.4). The weight travels with
//! the bytes (releases and fence units that meet the tombstone chase the value
//! like any request), so the value is dropped once, on its last trustee, when
//! the last weight comes back; the copy left on O is dropped when it is
//! shipped (a value holding trusts returns their weight; the bytes carry
//! clones). Pending boxes that are not filled (the value was pinned, or
//! already lived on N) are freed at once: no tombstone ever forwarded to them.
//!
//! Tombstones stay until shutdown (a route may name them on any worker, and the
//! address must not be reused meanwhile): the cost of a move is one property
//! header plus the value's inline size on the old trustee, until the run ends.
//!
//! A bounced response's data: the answers of the records that ran, then per
//! bounced record `index, old address, new trustee, new address, code word,
//! body length` (u64s) and the body (the record's bytes after its header,
//! padded), then `answers length, bounced count` (u64s).

use super::{Chased, Cont, PropHeader, Trampoline, Worker};
use crate::slot::{large_record, AlignedBuf, Reader, Writer, RECORD_HEADER};
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};

/// Added to a trustee id by [`Worker::resolve`] while this worker chases: a
/// request "sent" to `HOLD + t` waits in the chase queue instead
/// ([`Worker::enqueue`] checks), to be sent from `(t, address)` later.
pub(crate) const HOLD: usize = 1 << 48;

/// Where a moved value went, as far as this worker knows.
struct Route {
    to: usize,
    ptr: u64,
    /// New requests take this route (nothing was left in flight to the old
    /// trustee when it was checked, or a chase round found nothing in flight).
    active: bool,
}

/// Hashes the (trustee, address) keys of routes: one multiply, enough for
/// addresses and small integers.
#[derive(Default)]
pub(super) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(29) ^ v).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
}

/// Frees a tombstone (its box, not the moved value).
type FreeTomb = unsafe fn(*mut PropHeader);

/// A record waiting in the chase queue: sent from `at` (an address, resolved
/// along the routes when it is sent), with code word `code` and the bytes
/// `rec[off..]` after its record header.
struct Held {
    at: (usize, u64),
    code: u64,
    rec: AlignedBuf,
    off: usize,
    /// Always a `Cont::Chased`.
    cont: Cont,
}

/// One worker's view of moved properties.
#[derive(Default)]
pub(super) struct Moves {
    routes: HashMap<(usize, u64), Route, BuildHasherDefault<KeyHasher>>,
    /// Tombstones of this trustee and how to free each (at shutdown).
    tombs: Vec<(*mut PropHeader, FreeTomb)>,
    /// The bounced records of the batch being served.
    bounces: AlignedBuf,
    n_bounces: u64,
    /// The chase queue, first part: records that bounced back, in the order
    /// they came back.
    early: VecDeque<Held>,
    /// The chase queue, second part: requests issued while chasing, in issue
    /// order.
    late: VecDeque<Held>,
    /// Pairs that had requests in flight when the chase began, and the count
    /// of completed requests each must reach before the first round.
    marks: Vec<(usize, u64)>,
    /// Records of the current round not answered (nor bounced) yet.
    out: u64,
}

/// One bounced record, as read back from a response.
struct Bounce {
    index: usize,
    old: u64,
    to: usize,
    ptr: u64,
    code: u64,
    body: *const u8,
    len: usize,
}

impl Worker {
    /// Where requests from this worker to the property known as `(t, p)` go:
    /// along the routes it learnt, as far as they are active; `(HOLD + t, p)`
    /// while this worker chases (the request then waits in the chase queue).
    #[inline(never)]
    pub(crate) fn resolve(&self, t: usize, p: u64) -> (usize, u64) {
        if self.chasing.get() {
            return (HOLD + t, p);
        }
        let (t, p) = self.follow(t, p, false);
        // SAFETY: `(t, p)` names a property of this worker: a trust of it holds
        // weight, so its header is live or a tombstone (kept until shutdown).
        if t == self.id && unsafe { PropHeader::moved(p) } {
            // A value of this worker on its way through bytes (a shipping
            // tombstone, `trust/property.rs`): no request may run on the
            // header inline; it waits in the chase queue and bounces there.
            self.begin_chase(&mut self.moves.borrow_mut());
            return (HOLD + t, p);
        }
        (t, p)
    }

    /// Where the property known as `(t, p)` lives, as far as this worker knows
    /// (along every route it learnt, active or not).
    pub(crate) fn latest(&self, t: usize, p: u64) -> (usize, u64) {
        self.follow(t, p, true)
    }

    fn follow(&self, t: usize, p: u64, all: bool) -> (usize, u64) {
        let mut m = self.moves.borrow_mut();
        let (mut t, mut p) = (t, p);
        while let Some(r) = m.routes.get_mut(&(t, p)) {
            if !r.active && !all {
                let drained = t == self.id
                    || self.channels[t]
                        .try_borrow()
                        .is_ok_and(|c| c.issued == c.completed);
                if !drained {
                    break;
                }
                r.active = true;
            }
            (t, p) = (r.to, r.ptr);
        }
        (t, p)
    }

    /// Learns that the value at `(from_t, from_p)` moved to `(to_t, to_p)`;
    /// `active` when new requests may take the route at once.
    pub(crate) fn learn(&self, from: (usize, u64), to: (usize, u64), active: bool) {
        let mut m = self.moves.borrow_mut();
        let r = m.routes.entry(from).or_insert(Route {
            to: to.0,
            ptr: to.1,
            active,
        });
        r.active |= active;
        self.any_fwd.set(true);
    }

    /// Keeps the tombstone `p` (a header whose value moved away) until shutdown.
    pub(crate) fn add_tomb(&self, p: *mut PropHeader, free: FreeTomb) {
        self.moves.borrow_mut().tombs.push((p, free));
    }

    /// Frees this trustee's tombstones (teardown), and drops the chase queue.
    pub(super) fn free_tombs(&self) {
        let (tombs, early, late) = {
            let mut m = self.moves.borrow_mut();
            (
                std::mem::take(&mut m.tombs),
                std::mem::take(&mut m.early),
                std::mem::take(&mut m.late),
            )
        };
        drop((early, late));
        for (p, free) in tombs {
            // SAFETY: each tombstone is listed once, no longer registered, and at
            // shutdown nothing reads it any more.
            unsafe { free(p) };
        }
    }

    /// Trustee side: record `index` of the batch being served, for the tombstone
    /// `prop`, with code word `code` and body `body..end`, was not run.
    #[cold]
    #[inline(never)]
    pub(super) fn note_bounce(
        &self,
        index: u32,
        prop: u64,
        code: u64,
        body: *const u8,
        end: *const u8,
    ) {
        // SAFETY: only property trampolines report a bounce, and only for a
        // tombstone of this worker.
        let h = unsafe { &*(prop as *const PropHeader) };
        let len = end as usize - body as usize;
        let mut m = self.moves.borrow_mut();
        let m = &mut *m;
        for v in [
            index as u64,
            prop,
            h.fwd_to.get() as u64,
            h.fwd.get(),
            code,
            len as u64,
        ] {
            m.bounces.extend((&v as *const u64).cast(), 8);
        }
        m.bounces.extend(body, len);
        m.n_bounces += 1;
        self.bounced.set(true);
    }

    /// Trustee side: appends the batch's bounced records and the trailer to its
    /// answers `out`; true when there were any.
    #[inline(always)]
    pub(super) fn take_bounces(&self, out: &mut AlignedBuf) -> bool {
        self.bounced.get() && self.append_bounces(out)
    }

    #[cold]
    #[inline(never)]
    fn append_bounces(&self, out: &mut AlignedBuf) -> bool {
        self.bounced.set(false);
        let mut m = self.moves.borrow_mut();
        let answers = out.len() as u64;
        out.extend(m.bounces.as_ptr(), m.bounces.len());
        for v in [answers, m.n_bounces] {
            out.extend((&v as *const u64).cast(), 8);
        }
        m.bounces.clear();
        m.n_bounces = 0;
        true
    }

    /// Client side: runs the continuations of a response from trustee `t` that
    /// holds bounced records (`data..data+len`): first puts every bounced
    /// record in the chase queue, in order, then runs the other continuations
    /// in order.
    #[cold]
    #[inline(never)]
    pub(super) fn finish_bounced(
        &self,
        t: usize,
        conts: &mut Vec<Cont>,
        data: *const u8,
        len: usize,
    ) {
        // SAFETY: the response bytes are valid while we read them (caller).
        let (answers, bounces) = unsafe { read_bounces(data, len) };
        let mut bounced = vec![false; conts.len()];
        let mut rest = Vec::with_capacity(conts.len());
        for b in &bounces {
            bounced[b.index] = true;
        }
        let mut it = bounces.iter();
        for (i, c) in conts.drain(..).enumerate() {
            if bounced[i] {
                let b = it.next().expect("bounces in index order");
                let mut body = AlignedBuf::with_capacity(b.len);
                body.extend(b.body, b.len);
                self.bounced_back(c, (t, b.old), (b.to, b.ptr), b.code, body, 0);
            } else {
                rest.push(c);
            }
        }
        // SAFETY: the answers of the records that ran come first, as `len` says.
        let mut r = unsafe { Reader::new(data, answers) };
        for c in rest {
            self.complete(c, &mut r);
        }
    }

    /// A record that met the tombstone at `from` (its value went to `to`) came
    /// back: it waits at the end of the chase queue's first part (see the
    /// module docs), and the chase begins if it had not.
    fn bounced_back(
        &self,
        cont: Cont,
        from: (usize, u64),
        to: (usize, u64),
        code: u64,
        rec: AlignedBuf,
        off: usize,
    ) {
        // A pending box (a value on its way through bytes, `trust/migrate.rs`)
        // forwards to itself: the record is sent there again, and there is no
        // route to learn.
        if from != to {
            self.learn(from, to, false);
        }
        let cont = self.chased(cont);
        // Waiting here counts as outstanding, as it did on its pair.
        self.outstanding.set(self.outstanding.get() + 1);
        let mut m = self.moves.borrow_mut();
        self.begin_chase(&mut m);
        m.early.push_back(Held {
            at: to,
            code,
            rec,
            off,
            cont,
        });
    }

    /// Begins a chase, unless this worker chases already: from now on new
    /// requests wait in the chase queue, and the first round waits until
    /// every pair completed what is in flight now.
    fn begin_chase(&self, m: &mut Moves) {
        if !self.chasing.get() {
            self.chasing.set(true);
            m.marks = self
                .channels
                .iter()
                .enumerate()
                .filter_map(|(t, c)| {
                    let c = c.borrow();
                    (c.completed < c.issued).then_some((t, c.issued))
                })
                .collect();
        }
    }

    /// `cont` as the continuation of a record in the chase: a record seen
    /// here for the first time is counted in `rerouted` until it is answered;
    /// one that was a member of the current round (and came back bounced)
    /// no longer is.
    fn chased(&self, cont: Cont) -> Cont {
        match cont {
            Cont::Chased(mut c) => {
                if c.member {
                    c.member = false;
                    self.moves.borrow_mut().out -= 1;
                }
                Cont::Chased(c)
            }
            cont => {
                self.rerouted.set(self.rerouted.get() + 1);
                Cont::Chased(Box::new(Chased {
                    member: false,
                    cont,
                }))
            }
        }
    }

    /// A request for the property known as `(t, p)` issued while this worker
    /// chases ([`enqueue`](Self::enqueue) to `HOLD + t`): writes its record
    /// (`len` bytes with the header) aside, at the end of the chase queue.
    #[cold]
    #[inline(never)]
    pub(super) fn hold(
        &self,
        t: usize,
        p: u64,
        code: u64,
        len: usize,
        cont: Cont,
        write: impl FnOnce(&mut Writer),
    ) -> usize {
        let mut rec = AlignedBuf::with_capacity(len);
        write(&mut large_record(&mut rec, code, p, len));
        let cont = self.chased(cont);
        self.outstanding.set(self.outstanding.get() + 1);
        self.moves.borrow_mut().late.push_back(Held {
            at: (t, p),
            code,
            rec,
            off: RECORD_HEADER,
            cont,
        });
        0
    }

    /// The worker loop's step for the chase: nothing unless this worker
    /// chases.
    #[inline(always)]
    pub(super) fn chase_step(&self) -> bool {
        self.chasing.get() && self.advance_chase()
    }

    /// Once nothing of this worker is on its way to a property any more (the
    /// round's records are answered or back, and every pair completed what
    /// was in flight when the chase began), either sends the next round (when
    /// some record came back: the whole queue, in order, every route taken)
    /// or ends the chase (the requests that waited go out as usual).
    #[cold]
    #[inline(never)]
    fn advance_chase(&self) -> bool {
        let (items, member) = {
            let mut m = self.moves.borrow_mut();
            let m = &mut *m;
            if m.out > 0 {
                return false;
            }
            m.marks
                .retain(|&(t, mark)| self.channels[t].borrow().completed < mark);
            if !m.marks.is_empty() {
                return false;
            }
            if m.early.is_empty() {
                self.chasing.set(false);
                (std::mem::take(&mut m.late), false)
            } else {
                // Nothing of this worker is in flight to any old address: every
                // route may be taken, so that the whole round goes to where each
                // value is now, one pair and one address per property.
                for r in m.routes.values_mut() {
                    r.active = true;
                }
                let mut items = std::mem::take(&mut m.early);
                items.append(&mut m.late);
                m.out = items.len() as u64;
                (items, true)
            }
        };
        for h in items {
            self.send_held(h, member);
        }
        true
    }

    /// Sends a record of the chase queue to where its property is, with its
    /// continuation; `member` when it belongs to the round now sent.
    fn send_held(&self, h: Held, member: bool) {
        let Held {
            at,
            code,
            rec,
            off,
            mut cont,
        } = h;
        if let Cont::Chased(c) = &mut cont {
            c.member = member;
        }
        // The queue's count goes; enqueue or defer count it again.
        self.outstanding.set(self.outstanding.get() - 1);
        let (t, p) = self.follow(at.0, at.1, false);
        if t == self.id {
            // The value lives here: run the record as a local job.
            self.defer(Box::new(move || {
                super::worker("a moved request").run_here(code, p, rec, off, cont)
            }));
        } else {
            let len = rec.len() - off;
            // SAFETY: `off <= rec.len()`, and the buffer lives for the call.
            let body = unsafe { rec.as_ptr().add(off) };
            self.enqueue(t, code, p, RECORD_HEADER + len, cont, |wr| {
                wr.put_raw(body, len)
            });
        }
    }

    /// Runs a record (its bytes after the header are `rec[off..]`) on a
    /// property of this worker (a deferred job).
    fn run_here(&self, code: u64, p: u64, rec: AlignedBuf, off: usize, cont: Cont) {
        let mut out = AlignedBuf::default();
        // SAFETY: `rec` is our own buffer, 8-aligned, `off` a multiple of 8
        // within it, alive for the reader.
        let mut r = unsafe { Reader::new(rec.as_ptr().add(off), rec.len() - off) };
        // SAFETY: `code` is a trampoline of this binary that a trustee already
        // checked (or this worker named for its own request), and the bytes
        // are the record its client wrote for it; `p` is a property (or
        // tombstone) of this worker, run from the loop's deferred jobs, where
        // no other closure holds it.
        let bounced = unsafe {
            let f = std::mem::transmute::<usize, Trampoline>(code as usize);
            f(p, &mut r, &mut out)
        };
        if bounced {
            // SAFETY: a bounce means `p` is a tombstone of this worker.
            let h = unsafe { &*(p as *const PropHeader) };
            let to = (h.fwd_to.get() as usize, h.fwd.get());
            self.bounced_back(cont, (self.id, p), to, code, rec, off);
        } else {
            // SAFETY: `out` holds the answer the trampoline wrote.
            let mut r = unsafe { Reader::new(out.as_ptr(), out.len()) };
            self.complete(cont, &mut r);
        }
    }

    /// Runs one continuation with its answer at `r` (off the common path: the
    /// continuations of bounced requests).
    #[cold]
    #[inline(never)]
    pub(super) fn complete(&self, cont: Cont, r: &mut Reader) {
        match cont {
            Cont::Skip => {}
            Cont::Wake { fid, out, read } => {
                // SAFETY: `out` points into the parked fiber's stack frame, alive
                // until we wake it; `read` matches the return type.
                unsafe { read(r, out) };
                self.wake(fid);
            }
            Cont::Inline(f) => f.run(r),
            Cont::Then(f) => f(r),
            Cont::Chased(c) => {
                // Answered: out of the chase (and of its round).
                if c.member {
                    self.moves.borrow_mut().out -= 1;
                }
                self.rerouted.set(self.rerouted.get() - 1);
                self.complete(c.cont, r)
            }
        }
    }
}

/// Reads the trailer and the bounced records of a response.
///
/// # Safety
/// `data..data+len` must be a response written with flag `BOUNCED`, 8-aligned.
unsafe fn read_bounces(data: *const u8, len: usize) -> (usize, Vec<Bounce>) {
    // SAFETY: the trailer is the last 16 bytes (caller contract).
    let (answers, n) = unsafe {
        let t = data.add(len - 16) as *const u64;
        (t.read() as usize, t.add(1).read() as usize)
    };
    // SAFETY: the records lie between the answers and the trailer.
    let mut r = unsafe { Reader::new(data.add(answers), len - 16 - answers) };
    let bounces = (0..n)
        .map(|_| {
            let (index, old, to, ptr, code) = (r.u64(), r.u64(), r.u64(), r.u64(), r.u64());
            let len = r.u64() as usize;
            let body = r.raw(len);
            Bounce {
                index: index as usize,
                old,
                to: to as usize,
                ptr,
                code,
                body,
                len,
            }
        })
        .collect();
    (answers, bounces)
}
