//! [`Net`]: a trustee's outgoing messages (one batch per destination
//! trustee, merged per vertex for combining programs, at most one per
//! remote vertex for [`send_first`](crate::Local::send_first)), how they
//! leave, and how they are applied on arrival ([`deliver`]).

use gossamer::Trust;
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
                if c.touched.len() < min {
                    continue;
                }
                c.drain_into(self.out.buffer(t));
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
            self.first =
                graph_core::alloc::vec_or_exit(flat_ids.div_ceil(64) as usize, 0, "sent-once bits");
        }
        let (w, b) = ((f >> 6) as usize, 1u64 << (f & 63));
        let new = self.first[w] & b == 0;
        self.first[w] |= b;
        new
    }
}

/// Pending messages to the vertices of one other trustee, one per vertex.
struct Combiner<M> {
    n: usize,
    acc: Vec<M>,
    used: Vec<u64>,
    touched: Vec<u32>,
}

impl<M: gossamer::Pod> Combiner<M> {
    fn new(n: usize) -> Self {
        Combiner {
            n,
            acc: Vec::new(),
            used: Vec::new(),
            touched: Vec::new(),
        }
    }

    /// Adds `msg` for `v`; true when merged into a pending one.
    #[inline(always)]
    fn add<P: Program<Msg = M>>(&mut self, v: u32, msg: M) -> bool {
        if self.acc.is_empty() {
            self.acc = vec![msg; self.n];
            self.used = vec![0; self.n.div_ceil(64)];
        }
        let (w, b) = ((v >> 6) as usize, 1u64 << (v & 63));
        let slot = &mut self.acc[v as usize];
        if self.used[w] & b != 0 {
            P::combine(slot, msg);
            true
        } else {
            self.used[w] |= b;
            *slot = msg;
            self.touched.push(v);
            false
        }
    }

    fn drain_into(&mut self, out: &mut Vec<Addressed<M>>) {
        for &v in &self.touched {
            out.push(Addressed::new(v, self.acc[v as usize]));
            self.used[(v >> 6) as usize] = 0;
        }
        self.touched.clear();
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
