//! [`Outbox`]: a trustee's outgoing records, one buffer per destination
//! trustee, sent as plain-old-data slices in slot-sized pieces and recycled.
//!
//! A kernel never sends one request per edge: it appends a small POD record
//! (`(position at the owner, value)`) to the buffer of the record's owner,
//! and now and then sends each buffer with
//! [`Trust::apply_slice_chunked_then`](gossamer::Trust::apply_slice_chunked_then),
//! which cuts it into pieces that fill the runtime's request slots; a
//! delegated closure on the owner (the kernel's *deliver* function) applies a
//! whole piece. The buffers keep their allocations from one flush to the
//! next.
//!
//! The driver's [`Net`](crate::net) holds one and sends from inside the
//! inline apply on its own trustee's state ([`Outbox::send_if`]); the
//! records are applied when the next barrier or
//! all-reduce of the graph returns (requests between two workers run in
//! issue order).

use gossamer::{Delegable, Pod, Trust};
use graph_core::sharded::TrusteeState;

/// Outgoing records of type `R`, one buffer per destination trustee.
#[derive(Debug)]
pub struct Outbox<R> {
    bufs: Vec<Vec<R>>,
}

impl<R> Default for Outbox<R> {
    /// An outbox for no destinations (a placeholder until [`Outbox::new`]).
    fn default() -> Self {
        Outbox { bufs: Vec::new() }
    }
}

impl<R: Pod> Outbox<R> {
    /// Empty buffers for `trustees` destinations.
    pub fn new(trustees: usize) -> Self {
        Outbox {
            bufs: (0..trustees).map(|_| Vec::new()).collect(),
        }
    }

    /// Queues record `r` for trustee `to`.
    #[inline(always)]
    pub fn push(&mut self, to: usize, r: R) {
        self.bufs[to].push(r);
    }

    /// Records queued for all destinations.
    #[cfg(test)]
    pub fn queued(&self) -> usize {
        self.bufs.iter().map(Vec::len).sum()
    }

    /// The buffer for trustee `to` (e.g. to append many records at once).
    #[inline]
    pub fn buffer(&mut self, to: usize) -> &mut Vec<R> {
        &mut self.bufs[to]
    }

    /// Sends trustee `to`'s buffer when it holds at least `min` records
    /// (and at least one), then empties it. Returns `(records, requests)`
    /// sent.
    pub fn send_if<F>(
        &mut self,
        to: usize,
        min: usize,
        peers: &[Trust<TrusteeState>],
        deliver: F,
    ) -> (u64, u64)
    where
        F: FnOnce(&mut TrusteeState, &[R]) + Delegable,
    {
        let buf = &mut self.bufs[to];
        if buf.is_empty() || buf.len() < min {
            return (0, 0);
        }
        let sent = send_one(&peers[to], buf, deliver);
        let n = buf.len() as u64;
        buf.clear();
        (n, sent)
    }
}

/// Sends `recs` to `peer` in slot-sized pieces, each applied there by
/// `deliver`; returns the number of requests.
#[inline]
fn send_one<R: Pod, F>(peer: &Trust<TrusteeState>, recs: &[R], deliver: F) -> u64
where
    F: FnOnce(&mut TrusteeState, &[R]) + Delegable,
{
    peer.apply_slice_chunked_then(deliver, recs, |()| {}) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use graph_core::sharded::ShardedGraph;
    use graph_core::PartitionKind;

    fn graph() -> graph_core::EdgeList<'static> {
        crate::doc::random(150, 900, 3)
    }

    #[derive(Default)]
    struct Tally {
        out: Outbox<[u32; 2]>,
        got: Vec<u64>,
    }

    fn tally(s: &mut TrusteeState) -> &mut Tally {
        s.kernel::<Tally>(|_| Tally::default()).1
    }

    fn outbox(s: &mut TrusteeState) -> &mut Outbox<[u32; 2]> {
        &mut tally(s).out
    }

    fn deliver(s: &mut TrusteeState, recs: &[[u32; 2]]) {
        let t = tally(s);
        for &[from, x] in recs {
            t.got[from as usize] += u64::from(x);
        }
    }

    #[test]
    fn the_outbox_delivers_every_record_once_and_keeps_its_buffers() {
        for threads in [1, 2, 3] {
            let list = graph();
            let sums = gossamer::main(threads, move || {
                let g = ShardedGraph::build(&list, PartitionKind::Block).unwrap();
                g.on_trustees(move |mut ctx| {
                    let (me, t) = (ctx.me, threads);
                    ctx.local.apply(move |s| {
                        *tally(s) = Tally {
                            out: Outbox::new(t),
                            got: vec![0; t],
                        }
                    });
                    ctx.party.barrier();
                    // Three rounds of 20 000 records (several slots) to every
                    // trustee, then 10.
                    for (round, n) in [(0u32, 20_000u32), (1, 20_000), (2, 20_000), (0, 10)] {
                        let peers = ctx.peers.clone();
                        ctx.local.apply_with(
                            move |s, peers: Vec<gossamer::Trust<TrusteeState>>| {
                                let o = outbox(s);
                                assert_eq!(o.queued(), 0, "buffers are emptied");
                                for to in 0..t {
                                    for i in 0..n {
                                        let x = if n == 10 { 1000 } else { i % 7 + round };
                                        o.push(to, [me, x]);
                                    }
                                }
                                let (mut records, mut requests) = (0, 0);
                                for to in 0..t {
                                    let (r, q) = o.send_if(to, 1, &peers, deliver);
                                    (records, requests) = (records + r, requests + q);
                                }
                                assert_eq!(records, u64::from(n) * t as u64);
                                assert!(requests >= t as u64);
                            },
                            peers,
                        );
                    }
                    ctx.party.barrier();
                    ctx.local.apply_returning(|s| tally(s).got.clone())
                })
            });
            // Per sender: sum over rounds of sum_i (i % 7 + round), plus 10 000.
            let per_round = |r: u64| (0..20_000u64).map(|i| i % 7 + r).sum::<u64>();
            let want = per_round(0) + per_round(1) + per_round(2) + 10_000;
            for got in sums {
                assert_eq!(got, vec![want; threads]);
            }
        }
    }
}
