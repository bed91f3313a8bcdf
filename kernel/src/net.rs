//! [`Net`]: a trustee's outgoing messages (one batch per destination
//! trustee, merged per vertex for combining programs, at most one per
//! remote vertex for [`send_first`](crate::Local::send_first)), how they
//! leave, and how they are applied on arrival ([`deliver`]).

use gossamer::Trust;
use graph_core::alloc::vec_or_exit;
use graph_core::sharded::TrusteeState;

use crate::addressed::{Addressed, TRUSTEE};
use crate::outbox::Outbox;
use crate::program::Program;
use crate::state::core;

/// A combining program's batch for one trustee leaves between the steps of
/// a sweep once it holds this many records (the rest at the end of the
/// sweep): merging pays only while records wait.
const COMBINE_BATCH: usize = 1 << 16;

/// Counters of one trustee's messages in the current run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct KernelStats {
    /// Records sent to other trustees.
    pub sent: u64,
    /// Messages merged into a pending record by [`Program::combine`].
    pub combined: u64,
    /// Messages to own vertices, applied at once.
    pub local: u64,
    /// Requests (slot-sized pieces) the records travelled in.
    pub batches: u64,
}

pub(crate) struct Net<P: Program> {
    pub(crate) peers: Vec<Trust<TrusteeState>>,
    out: Outbox<Addressed<P::Msg>>,
    comb: Vec<Combiner<P::Msg>>,
    /// Flat ids a `send_first` went to in this run (allocated on first use).
    first: Vec<u64>,
    pub(crate) stats: KernelStats,
    pub(crate) sent_mark: u64,
    /// Records queued since the sweep's last step began (its work count).
    pub(crate) queued: usize,
    /// Supersteps this trustee has ended in the run: the tag of the
    /// records it sends (see [`deliver`]).
    pub(crate) superstep: u32,
    /// A compressed row decoded for [`Local::for_each_target`](crate::Local::for_each_target)
    /// (kept to save an allocation per row).
    pub(crate) scratch: Vec<u32>,
}

impl<P: Program> Net<P> {
    pub(crate) fn new(peers: Vec<Trust<TrusteeState>>, counts: impl Iterator<Item = u32>) -> Self {
        let comb = if P::COMBINE {
            counts.map(|n| Combiner::new(n as usize)).collect()
        } else {
            Vec::new()
        };
        Net {
            out: Outbox::new(peers.len()),
            peers,
            comb,
            first: Vec::new(),
            stats: KernelStats::default(),
            sent_mark: 0,
            queued: 0,
            superstep: 0,
            scratch: Vec::new(),
        }
    }

    /// Starts a run: counters to zero, no vertex sent to yet.
    pub(crate) fn begin(&mut self) {
        self.stats = KernelStats::default();
        self.sent_mark = 0;
        self.superstep = 0;
        self.first.fill(0);
    }

    /// Whether records left since the last call.
    pub(crate) fn sent_since_mark(&mut self) -> bool {
        let sent = self.stats.sent != self.sent_mark;
        self.sent_mark = self.stats.sent;
        sent
    }

    /// Sends every queued record.
    pub(crate) fn flush(&mut self) {
        self.flush_from(1);
    }

    /// Sends the batches worth sending between two steps of a sweep.
    pub(crate) fn flush_step(&mut self) {
        self.flush_from(if P::COMBINE { COMBINE_BATCH } else { 1 });
    }

    fn flush_from(&mut self, min: usize) {
        self.queued = 0;
        for t in 0..self.peers.len() {
            if P::COMBINE {
                let c = &mut self.comb[t];
                if c.pending().len() < min {
                    continue;
                }
                c.forget_places();
                self.out.buffer(t).append(c.pending());
            }
            let tag = self.superstep;
            let (records, batches) = self
                .out
                .send_if(t, min, &self.peers, move |s, r| deliver::<P>(s, r, tag));
            self.stats.sent += records;
            self.stats.batches += batches;
        }
    }

    /// Queues `msg` for position `v` of trustee `t`.
    #[inline(always)]
    pub(crate) fn push(&mut self, t: usize, v: u32, msg: P::Msg) {
        self.queued += 1;
        if P::COMBINE && v != TRUSTEE {
            if self.comb[t].add::<P>(v, msg) {
                self.stats.combined += 1;
            }
            return;
        }
        self.out.push(t, Addressed::new(v, msg));
    }

    /// Whether flat id `f` was not sent to before in this run (and marks it).
    #[inline(always)]
    pub(crate) fn first_time(&mut self, f: u32, flat_ids: u32) -> bool {
        if self.first.is_empty() {
            self.first = vec_or_exit(flat_ids.div_ceil(64) as usize, 0, "sent-once bits");
        }
        let (w, b) = ((f >> 6) as usize, 1u64 << (f & 63));
        let new = self.first[w] & b == 0;
        self.first[w] |= b;
        new
    }
}

/// Pending messages to the vertices of one other trustee, one per vertex,
/// in the order first queued: the batch itself (what leaves is this
/// array), with each vertex's place in it. 4 B per vertex of the other
/// trustee (its place plus one, 0 for none; allocated zeroed, so the pages
/// of vertices never sent to stay unbacked) and a record per pending
/// vertex, at most about a batch ([`COMBINE_BATCH`]) between two steps of
/// a sweep; not a message slot per vertex of the other trustee.
struct Combiner<M> {
    n: usize,
    place: Vec<u32>,
    pending: Vec<Addressed<M>>,
}

impl<M: gossamer::Pod> Combiner<M> {
    fn new(n: usize) -> Self {
        Combiner {
            n,
            place: Vec::new(),
            pending: Vec::new(),
        }
    }

    /// Adds `msg` for `v`; true when merged into a pending one.
    #[inline(always)]
    fn add<P: Program<Msg = M>>(&mut self, v: u32, msg: M) -> bool {
        if self.place.is_empty() {
            self.place = vec_or_exit(self.n, 0, "combined message places");
        }
        let at = self.place[v as usize];
        if at != 0 {
            let r = &mut self.pending[at as usize - 1];
            let mut m = r.m;
            P::combine(&mut m, msg);
            r.m = m;
            true
        } else {
            self.pending.push(Addressed::new(v, msg));
            self.place[v as usize] = self.pending.len() as u32;
            false
        }
    }

    /// The pending records, in the order first queued (moved out to leave,
    /// after [`forget_places`](Self::forget_places)).
    fn pending(&mut self) -> &mut Vec<Addressed<M>> {
        &mut self.pending
    }

    /// Forgets where the pending records are, before they leave: the next
    /// message to any of their vertices starts a new record.
    fn forget_places(&mut self) {
        for r in &self.pending {
            self.place[r.v as usize] = 0;
        }
    }
}

/// Applies a batch of records on the owner (the delegated closure's body),
/// sent by a trustee that had ended `tag` supersteps. A sender can be one
/// superstep ahead: a superstep that ends in one collective round lets a
/// trustee that saw the round complete start the next and send before this
/// one has moved on (it may still be waiting for the round's result). Its
/// records wait here until this trustee ends the superstep too
/// ([`Core::advance`](crate::state::Core::advance)), so that they join the
/// next frontier, not the current one.
fn deliver<P: Program>(s: &mut TrusteeState, recs: &[Addressed<P::Msg>], tag: u32) {
    let (_, c) = core::<P>(s);
    if tag > c.supersteps {
        c.early.extend_from_slice(recs);
        return;
    }
    apply::<P>(&mut c.prog, &mut c.next, recs);
}

/// Applies `recs` to `prog`, activating in `next`.
pub(crate) fn apply<P: Program>(
    prog: &mut P,
    next: &mut crate::frontier::Frontier,
    recs: &[Addressed<P::Msg>],
) {
    for r in recs {
        let (v, m) = (r.v, r.m);
        if v == TRUSTEE {
            prog.receive_here(m);
        } else if prog.receive(v, m) {
            next.insert(v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Sum;

    impl Program for Sum {
        type Msg = u64;
        const COMBINE: bool = true;
        fn receive(&mut self, _: u32, _: u64) -> bool {
            false
        }
        fn combine(acc: &mut u64, x: u64) {
            *acc += x;
        }
    }

    fn pending(c: &mut Combiner<u64>) -> Vec<(u32, u64)> {
        c.pending().iter().map(|r| (r.v, r.m)).collect()
    }

    #[test]
    fn the_combiner_keeps_one_record_per_vertex_in_first_queued_order() {
        let mut c = Combiner::<u64>::new(1000);
        assert!(c.place.is_empty(), "nothing is allocated before a message");
        let msgs = [(7, 1), (3, 10), (7, 2), (999, 5), (3, 20), (0, 4), (7, 4)];
        let merged: Vec<bool> = msgs.iter().map(|&(v, x)| c.add::<Sum>(v, x)).collect();
        assert_eq!(merged, [false, false, true, false, true, false, true]);
        assert_eq!(pending(&mut c), [(7, 7), (3, 30), (999, 5), (0, 4)]);
        // One place per vertex of the other trustee, records only for the
        // vertices messaged.
        assert_eq!(c.place.len(), 1000);
        c.forget_places();
        assert!(c.place.iter().all(|&p| p == 0));
        let left = std::mem::take(c.pending());
        assert_eq!(left.len(), 4);
        // After a batch left, a vertex of it starts a new record.
        assert!(!c.add::<Sum>(3, 1));
        assert!(c.add::<Sum>(3, 1));
        assert!(!c.add::<Sum>(999, 8));
        assert_eq!(pending(&mut c), [(3, 2), (999, 8)]);
    }
}
