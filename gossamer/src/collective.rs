//! [`Collective`]: delegated reductions (all-reduce, barrier) among one fiber per
//! worker, built only from trusts.
//!
//! Bulk-synchronous kernels (delta-stepping, level-synchronous BFS) need every
//! worker to agree on a few numbers per round: the next bucket, whether any work
//! is left, frontier sizes. Here that agreement is itself delegated: each
//! worker has a *mailbox* property, and a party arrives by applying, without
//! blocking (`apply_then`), "fold my values into round `r`" to **every**
//! mailbox (its own inline). It then waits by polling its own mailbox (an
//! inline apply, no message), yielding the fiber in between so its worker keeps
//! serving requests, until all parties' values for round `r` are in. On a
//! crowded host (more workers than cores) it parks instead, and the last
//! arrival wakes it.
//!
//! A round costs one message from each party to each other party and no relay,
//! and it is also a **flush**: requests from one worker to one trustee run in
//! issue order, so when a party has seen every contribution of round `r`,
//! every request another party issued to this worker *before* arriving (e.g. a
//! batch of records) has already run here. Kernels use that to end a phase
//! without waiting for their own requests' answers.
//!
//! That costs `n^2` messages a round, which is cheap for a few dozen workers
//! and ruinous for thousands. Beyond
//! [`Config::collective_all_to_all_max`](crate::Config::collective_all_to_all_max)
//! (64) parties a round therefore travels a tree of fanout
//! [`Config::collective_fanout`](crate::Config::collective_fanout) (16) instead:
//! a party first waits until its own earlier requests are answered (which
//! makes the round a flush as well), folds its children's values into its own, sends the sum to its
//! parent, and the root's result comes back down: `2n` messages and two trips
//! of depth `log_fanout n`.
//!
//! Rounds are numbered; a mailbox keeps two slots (rounds `r` and `r + 1` can
//! overlap: a fast party may arrive at `r + 1` before a slow one has read `r`;
//! it cannot reach `r + 2`, which needs the slow party's `r + 1`).
//!
//! ```
//! use gossamer::{Collective, Op};
//! let sums = gossamer::main(3, || {
//!     let c = Collective::new();
//!     gossamer::on_every_worker(move || {
//!         let mut p = c.party();
//!         let me = gossamer::current_worker().index() as u64;
//!         let [sum, min] = p.all_reduce([me + 1, me + 10], [Op::Sum, Op::Min]);
//!         p.barrier();
//!         (sum, min)
//!     })
//! });
//! assert_eq!(sums, vec![(6, 10); 3]);
//! ```

use crate::delegable::Delegable;
use crate::runtime::{current_worker, num_workers, yield_now, WorkerId};
use crate::trust::{entrust_with, Trust};
use std::sync::Arc;

/// Most values one reduction carries.
pub const MAX_LANES: usize = 8;

/// How one lane of a reduction combines the parties' values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Wrapping sum.
    Sum,
    /// Minimum (for non-negative `f32` values, compare their bits: `f32::to_bits`
    /// is monotone there).
    Min,
    /// Maximum.
    Max,
    /// Bitwise or (a logical "any" on 0/1 values).
    Or,
}

impl Op {
    fn identity(self) -> u64 {
        match self {
            Op::Sum | Op::Max | Op::Or => 0,
            Op::Min => u64::MAX,
        }
    }

    fn fold(self, a: u64, b: u64) -> u64 {
        match self {
            Op::Sum => a.wrapping_add(b),
            Op::Min => a.min(b),
            Op::Max => a.max(b),
            Op::Or => a | b,
        }
    }
}

/// One round's accumulator in a mailbox, and the party's fiber parked on it
/// (on a crowded host), woken by the last arrival.
#[derive(Clone, Copy, Default)]
struct Slot {
    arrived: usize,
    acc: [u64; MAX_LANES],
    waiter: Option<usize>,
    /// The round's result, sent down the tree by the parent (tree rounds).
    result: Option<[u64; MAX_LANES]>,
}

/// A party's mailbox, on its worker: the last round it read, and the
/// accumulators of rounds with odd and even numbers.
#[derive(Clone, Copy, Default)]
struct Mailbox {
    round: u64,
    slots: [Slot; 2],
}

/// A reduction group of one party per worker. Create it once (from a fiber), clone
/// it freely, and take a [`Party`] in each worker's fiber with [`Collective::party`].
///
/// Every party must take part in every round, in the same order and with the same
/// lane operations; a round finishes when all [`num_workers`] parties arrived.
#[derive(Clone)]
pub struct Collective {
    mailboxes: Arc<Vec<Trust<Mailbox>>>,
}

impl std::fmt::Debug for Collective {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Collective of {} parties", self.mailboxes.len())
    }
}

impl Collective {
    /// A group over all workers: a mailbox on every worker. Blocks the calling
    /// fiber while the mailboxes are created.
    pub fn new() -> Self {
        let mailboxes: Vec<Trust<Mailbox>> = (0..num_workers())
            .map(|w| entrust_with(WorkerId(w), Mailbox::default))
            .collect();
        Collective {
            mailboxes: Arc::new(mailboxes),
        }
    }

    /// Number of parties (workers).
    pub fn parties(&self) -> usize {
        self.mailboxes.len()
    }

    /// This worker's party. Call from a fiber, at a moment when no round is under
    /// way for this worker (between kernels), and use it from that fiber only.
    pub fn party(&self) -> Party {
        let me = current_worker().index();
        let round = self.mailboxes[me].apply(|m| m.round);
        let c = &crate::worker::worker("party").shared.config;
        Party {
            mailboxes: self.mailboxes.as_ref().clone(),
            me,
            round,
            all_to_all_max: c.collective_all_to_all_max,
            fanout: c.collective_fanout,
            spin_polls: c.collective_spin_polls,
        }
    }
}

// Rack runs: a Collective travels to other ranks as its trusts (e.g. in the
// payload of `on_every_worker_with`); the mailboxes stay where they are.
impl serde::Serialize for Collective {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (*self.mailboxes).serialize(s)
    }
}

impl<'de> serde::Deserialize<'de> for Collective {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mailboxes = <Vec<Trust<Mailbox>>>::deserialize(d)?;
        Ok(Collective {
            mailboxes: Arc::new(mailboxes),
        })
    }
}

impl Default for Collective {
    fn default() -> Self {
        Self::new()
    }
}

/// One worker's handle on a [`Collective`]; see [`Party::all_reduce`].
#[derive(Debug)]
pub struct Party {
    mailboxes: Vec<Trust<Mailbox>>,
    me: usize,
    round: u64,
    /// The run's `Config::collective_*` values, read when the party was taken.
    all_to_all_max: usize,
    fanout: usize,
    spin_polls: u32,
}

/// Folds `vals` into `m`'s `slot` (the first contribution of a round starts
/// from the identities) and wakes the party waiting there when it is the
/// `complete`-th; inline when `m` is this worker's (`own`), else without
/// waiting (`apply_then`).
fn fold_into<const N: usize>(
    m: &Trust<Mailbox>,
    slot: usize,
    vals: [u64; N],
    ops: [Op; N],
    complete: usize,
    own: bool,
) {
    let fold = move |m: &mut Mailbox| {
        let s = &mut m.slots[slot];
        if s.arrived == 0 {
            for (a, op) in s.acc.iter_mut().zip(ops) {
                *a = op.identity();
            }
        }
        for ((a, op), v) in s.acc.iter_mut().zip(ops).zip(vals) {
            *a = op.fold(*a, v);
        }
        s.arrived += 1;
        if s.arrived == complete {
            // The mailbox lives on its party's worker, which runs this
            // closure: wake the party here.
            if let Some(fid) = s.waiter.take() {
                crate::worker::worker("all_reduce").wake(fid);
            }
        }
    };
    if own {
        m.apply(fold);
    } else {
        m.apply_then(fold, |()| {});
    }
}

impl Party {
    /// Combines `vals` over all parties, lane by lane with `ops`, and returns the
    /// result to every party. Arrives without blocking (beyond
    /// `collective_all_to_all_max` parties: once this worker's earlier requests are
    /// answered), then suspends this fiber (the worker keeps serving) until
    /// the round finishes. On return, every request any party issued to this
    /// worker before arriving has run (see the module docs), and this party's
    /// own arrival has left this worker, so a long step right after the round
    /// does not hold the other parties back.
    ///
    /// Panics in delegated context (it waits), and at compile time if `N > 8`.
    pub fn all_reduce<const N: usize>(&mut self, vals: [u64; N], ops: [Op; N]) -> [u64; N] {
        const { assert!(N <= MAX_LANES, "all_reduce carries at most 8 lanes") };
        // The worker counts the round as collective wait (see `profile`).
        let w = crate::worker::worker("all_reduce");
        let prev = w.begin_collective();
        let out = self.round_trip(vals, ops);
        w.end_collective(prev);
        out
    }

    /// One round of [`Party::all_reduce`]: all to all, or through the tree.
    fn round_trip<const N: usize>(&mut self, vals: [u64; N], ops: [Op; N]) -> [u64; N] {
        self.round += 1;
        let round = self.round;
        let slot = (round & 1) as usize;
        let parties = self.mailboxes.len();
        if parties > self.all_to_all_max {
            return self.tree_round(round, slot, vals, ops);
        }
        for m in &self.mailboxes {
            fold_into(m, slot, vals, ops, parties, false);
        }
        let sent = self.marks(0..parties);
        let r = self.wait_mine(slot, move |s| (s.arrived == parties).then_some(s.acc));
        self.mailboxes[self.me].apply(move |m: &mut Mailbox| {
            m.slots[slot].arrived = 0;
            m.round = round;
        });
        Self::wait_sent(&sent);
        let mut out = [0u64; N];
        out.copy_from_slice(&r[..N]);
        out
    }

    /// A round through the tree: children `f p + 1 ..= f p + f` of party `p`
    /// fold into it (`f` the fanout), it folds into its parent `(p - 1) / f`,
    /// and the result comes back the same way.
    fn tree_round<const N: usize>(
        &mut self,
        round: u64,
        slot: usize,
        vals: [u64; N],
        ops: [Op; N],
    ) -> [u64; N] {
        // Every request this worker issued before arriving has run when the
        // round ends (the flush the all-to-all rounds give by their order).
        crate::worker::worker("all_reduce").wait_served();
        let parties = self.mailboxes.len();
        let me = self.me;
        let f = self.fanout;
        let children = |p: usize| (f * p + 1).min(parties)..(f * p + f + 1).min(parties);
        let expect = 1 + children(me).len();
        fold_into(&self.mailboxes[me], slot, vals, ops, expect, true);
        let acc = self.wait_mine(slot, move |s| (s.arrived == expect).then_some(s.acc));
        let result = if me == 0 {
            acc
        } else {
            let parent = (me - 1) / f;
            let mut up = [0u64; N];
            up.copy_from_slice(&acc[..N]);
            fold_into(
                &self.mailboxes[parent],
                slot,
                up,
                ops,
                1 + children(parent).len(),
                false,
            );
            let sent = self.marks(parent..parent + 1);
            let result = self.wait_mine(slot, |s| s.result);
            Self::wait_sent(&sent);
            result
        };
        self.mailboxes[me].apply(move |m: &mut Mailbox| {
            let s = &mut m.slots[slot];
            s.arrived = 0;
            s.result = None;
            m.round = round;
        });
        for c in children(me) {
            self.mailboxes[c].apply_then(
                move |m: &mut Mailbox| {
                    let s = &mut m.slots[slot];
                    s.result = Some(result);
                    if let Some(fid) = s.waiter.take() {
                        crate::worker::worker("all_reduce").wake(fid);
                    }
                },
                |()| {},
            );
        }
        Self::wait_sent(&self.marks(children(me)));
        let mut out = [0u64; N];
        out.copy_from_slice(&result[..N]);
        out
    }

    /// For the mailboxes of `parties` other than this party's: their
    /// worker and the number of requests this worker has issued to it so
    /// far (the last of which is this party's latest to that mailbox).
    fn marks(&self, parties: std::ops::Range<usize>) -> Vec<(usize, u64)> {
        let w = crate::worker::worker("all_reduce");
        parties
            .filter(|&p| p != self.me)
            .map(|p| {
                let t = self.mailboxes[p].trustee().index();
                (t, w.issued_sent(t).0)
            })
            .collect()
    }

    /// Returns once the requests counted in `marks` have left this worker
    /// (been written to their slots), yielding meanwhile so the worker
    /// loop sends them. A request leaves only when that loop runs, and a
    /// party that arrives last finds its round complete at once, without
    /// yielding: its arrival, which releases the others, would otherwise
    /// wait here until the fiber next yields, i.e. after whatever long
    /// inline step follows the round. In BFS that was a bottom-up level
    /// (4 ms at SCALE 20): the other party waited that long at the barrier,
    /// and the two trustees ran their halves of the level one after the
    /// other.
    fn wait_sent(marks: &[(usize, u64)]) {
        let w = crate::worker::worker("all_reduce");
        while marks.iter().any(|&(t, m)| w.issued_sent(t).1 < m) {
            yield_now();
        }
    }

    /// Waits until `take` finds what this party waits for in its own mailbox's
    /// `slot`. With free cores it polls (an inline apply), yielding the fiber
    /// so the worker keeps serving. On a crowded host (more workers than
    /// cores) the parties it waits for need the core: it parks, and the
    /// request that completes the slot wakes it, so that the worker can sleep
    /// when it has nothing else to do. Yield-polling there kept every waiting
    /// worker runnable and each turn of the cores went through all of them:
    /// rounds on 2 ranks x 32 workers on 2 cores took 150 polls instead of 3.
    fn wait_mine<R: Delegable>(
        &self,
        slot: usize,
        take: impl Fn(&Slot) -> Option<R> + Delegable,
    ) -> R {
        let w = crate::worker::worker("all_reduce");
        let crowded = w.shared.crowded;
        let mut polls = 0u32;
        loop {
            let fid = crowded.then(|| w.current_fiber());
            let got = self.mailboxes[self.me].apply(move |m: &mut Mailbox| {
                let s = &mut m.slots[slot];
                let got = take(s);
                s.waiter = if got.is_some() { None } else { fid };
                got
            });
            if let Some(r) = got {
                return r;
            }
            if crowded {
                w.park();
                continue;
            }
            yield_now();
            // The worker loop counts a yielding fiber as progress, so it never
            // gives its core away by itself. After a while, let the OS run
            // another thread.
            polls += 1;
            if polls > self.spin_polls {
                std::thread::yield_now();
            }
        }
    }

    /// Waits until every party has arrived here.
    pub fn barrier(&mut self) {
        self.all_reduce([0], [Op::Or]);
    }

    /// Minimum of one value over all parties.
    pub fn min(&mut self, v: u64) -> u64 {
        self.all_reduce([v], [Op::Min])[0]
    }

    /// Sum of one value over all parties.
    pub fn sum(&mut self, v: u64) -> u64 {
        self.all_reduce([v], [Op::Sum])[0]
    }

    /// True on every party when it is true on any.
    pub fn any(&mut self, b: bool) -> bool {
        self.all_reduce([b as u64], [Op::Or])[0] != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn many_rounds_agree_on_every_worker() {
        for threads in [1, 2, 3] {
            let out = crate::main(threads, move || {
                let c = Collective::new();
                crate::on_every_worker(move || {
                    let mut p = c.party();
                    let me = current_worker().index() as u64;
                    let mut seen = Vec::new();
                    for r in 0..100u64 {
                        let [s, mn, mx, or] = p.all_reduce(
                            [me + r, me * 7 + r, me + r, 1 << me],
                            [Op::Sum, Op::Min, Op::Max, Op::Or],
                        );
                        seen.push((s, mn, mx, or));
                    }
                    // A second party on the same group continues the numbering.
                    drop(p);
                    let mut q = c.party();
                    let total = q.sum(1);
                    (seen, total)
                })
            });
            let n = threads as u64;
            for (seen, total) in out {
                assert_eq!(total, n);
                for (r, &(s, mn, mx, or)) in seen.iter().enumerate() {
                    let r = r as u64;
                    assert_eq!(s, n * (n - 1) / 2 + n * r);
                    assert_eq!(mn, r);
                    assert_eq!(mx, n - 1 + r);
                    assert_eq!(or, (1 << n) - 1);
                }
            }
        }
    }

    #[test]
    fn a_round_flushes_earlier_requests() {
        // Each party sends non-blocking increments to every worker's counter,
        // then arrives; after the round, its own counter holds everything.
        // 70 workers take the tree (more than `collective_all_to_all_max` parties).
        for n in [3, crate::Config::DEFAULT.collective_all_to_all_max + 6] {
            let out = crate::main(n, move || {
                let c = Collective::new();
                let counters: Vec<Trust<u64>> =
                    (0..n).map(|w| entrust_with(WorkerId(w), || 0u64)).collect();
                crate::on_every_worker(move || {
                    let mut p = c.party();
                    let me = current_worker().index();
                    // More than a slot's worth per pair, so that batches
                    // queue behind the one in flight when the party arrives.
                    for t in &counters {
                        for _ in 0..200 {
                            t.apply_then(|x| *x += 1, |()| {});
                        }
                    }
                    p.barrier();
                    counters[me].apply(|x| *x)
                })
            });
            assert_eq!(out, vec![200 * n as u64; n], "{n} workers");
        }
    }

    #[test]
    fn tree_rounds_agree_on_every_worker() {
        // 300 parties: a tree of depth 3 (1 + 16 + 256 + 27), rounds
        // overlapping in the two slots, lanes of every operation.
        let n = 300;
        let out = crate::main(n, move || {
            let c = Collective::new();
            crate::on_every_worker(move || {
                let mut p = c.party();
                let me = current_worker().index() as u64;
                (0..20u64)
                    .map(|r| {
                        p.all_reduce(
                            [me + r, me * 7 + r, me + r, 1 << (me % 64)],
                            [Op::Sum, Op::Min, Op::Max, Op::Or],
                        )
                    })
                    .collect::<Vec<_>>()
            })
        });
        let n = n as u64;
        for seen in out {
            for (r, &[s, mn, mx, or]) in seen.iter().enumerate() {
                let r = r as u64;
                assert_eq!(s, n * (n - 1) / 2 + n * r);
                assert_eq!(mn, r);
                assert_eq!(mx, n - 1 + r);
                assert_eq!(or, u64::MAX);
            }
        }
    }

    #[test]
    fn the_last_arrival_leaves_before_the_round_returns() {
        // Party 1 arrives first; party 0 serves that arrival, then arrives
        // last (its round completes at once) and blocks its worker thread
        // until party 1 is out of the barrier. That works only if party 0's
        // arrival left worker 0 before its barrier returned; otherwise both
        // wait for good (here: until the deadline).
        let out = crate::main(2, || {
            let c = Collective::new();
            let released = Arc::new(std::sync::atomic::AtomicBool::new(false));
            crate::on_every_worker(move || {
                let mut p = c.party();
                if current_worker().index() == 1 {
                    p.barrier();
                    released.store(true, std::sync::atomic::Ordering::SeqCst);
                    return true;
                }
                let slot = ((p.round + 1) & 1) as usize;
                while p.mailboxes[0].apply(move |m: &mut Mailbox| m.slots[slot].arrived) == 0 {
                    yield_now();
                }
                p.barrier();
                // A long step that does not yield (e.g. a bottom-up BFS level).
                let t = std::time::Instant::now();
                while !released.load(std::sync::atomic::Ordering::SeqCst) {
                    if t.elapsed() > std::time::Duration::from_secs(10) {
                        return false;
                    }
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
                true
            })
        });
        assert_eq!(out, vec![true; 2]);
    }

    #[test]
    fn barrier_orders_effects() {
        // Every party writes to worker 0's counter before the barrier; after it,
        // everyone reads the full count.
        let out = crate::main(3, || {
            let c = Collective::new();
            let counter = crate::entrust_on(WorkerId(0), 0u64);
            crate::on_every_worker(move || {
                let mut p = c.party();
                counter.apply(|x| *x += 1);
                p.barrier();
                let seen = counter.apply(|x| *x);
                p.any(seen == 3)
            })
        });
        assert_eq!(out, vec![true; 3]);
    }
}
