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
//! Two ways to send, for the two places a kernel may be:
//!
//! - [`Outbox::flush`], from inside an inline apply on the trustee's own
//!   state (sends and clears in place);
//! - [`take`](Outbox::take) inside the apply that filled the buffers, then
//!   [`ship`] from the driver fiber: sends them outside the trustee's state
//!   and hands the emptied buffers back. This is what the BFS and SSSP
//!   drivers do after each pass.
//!
//! ```
//! use graph_core::sharded::{ShardedGraph, TrusteeState};
//! use graph_kernel::outbox::{ship, Outbox};
//! /// Per trustee: its outbox and a sum of what it received.
//! #[derive(Default)]
//! struct Adder { out: Option<Outbox<u32>>, got: u64 }
//! fn adder(s: &mut TrusteeState) -> &mut Adder { s.kernel::<Adder>(|_| Adder::default()).1 }
//! fn deliver(s: &mut TrusteeState, xs: &[u32]) { adder(s).got += xs.iter().map(|&x| u64::from(x)).sum::<u64>() }
//! fn outbox(s: &mut TrusteeState) -> &mut Outbox<u32> { adder(s).out.as_mut().unwrap() }
//! let list = graph_kernel::doc::path(4);
//! let got = gossamer::main(2, move || {
//!     let g = ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
//!     g.on_trustees(|mut ctx| {
//!         ctx.local.apply(|s| adder(s).out = Some(Outbox::new(2)));
//!         ctx.party.barrier();
//!         // 100 000 records of 1 to every trustee (several slots' worth).
//!         let bufs = ctx.local.apply_returning(|s| {
//!             let o = outbox(s);
//!             for t in 0..2 { for _ in 0..100_000 { o.push(t, 1) } }
//!             o.take()
//!         });
//!         ship(&ctx, bufs, deliver, outbox);
//!         ctx.party.barrier(); // also a flush: every record has been applied
//!         ctx.local.apply(|s| adder(s).got)
//!     })
//! });
//! assert_eq!(got, [200_000, 200_000]);
//! ```

use gossamer::{Delegable, Pod, Trust};
use graph_core::sharded::{TrusteeCtx, TrusteeState};
use serde::de::DeserializeOwned;
use serde::Serialize;

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
    pub fn queued(&self) -> usize {
        self.bufs.iter().map(Vec::len).sum()
    }

    /// The buffer for trustee `to` (e.g. to append many records at once).
    #[inline]
    pub fn buffer(&mut self, to: usize) -> &mut Vec<R> {
        &mut self.bufs[to]
    }

    /// Moves the buffers out (to send them with [`ship`] from the driver);
    /// the outbox is left without buffers until [`ship`] gives them back.
    pub fn take(&mut self) -> Vec<Vec<R>> {
        std::mem::take(&mut self.bufs)
    }

    /// Takes back buffers from [`take`](Self::take), emptied.
    pub fn restore(&mut self, mut bufs: Vec<Vec<R>>) {
        bufs.iter_mut().for_each(Vec::clear);
        self.bufs = bufs;
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

    /// Sends every non-empty buffer to its trustee and empties it; returns
    /// `(records, requests)` sent. Call from the trustee's own fiber (e.g.
    /// inside an inline apply on its own state).
    pub fn flush<F>(&mut self, peers: &[Trust<TrusteeState>], deliver: F) -> (u64, u64)
    where
        F: FnOnce(&mut TrusteeState, &[R]) + Delegable,
    {
        let mut total = (0, 0);
        for to in 0..self.bufs.len() {
            let (r, b) = self.send_if(to, 1, peers, deliver);
            total = (total.0 + r, total.1 + b);
        }
        total
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

/// From a trustee's driver fiber: sends buffers taken with
/// [`Outbox::take`] (each non-empty one to its trustee, where `deliver`
/// applies it), then gives them back, emptied, to the outbox that `home`
/// finds in this trustee's state. Non-blocking: the records are applied when
/// the next barrier or all-reduce of the graph returns (requests between two
/// workers run in issue order). Returns the number of requests sent.
///
/// See the module docs for an example.
pub fn ship<R, F>(
    ctx: &TrusteeCtx,
    bufs: Vec<Vec<R>>,
    deliver: F,
    home: fn(&mut TrusteeState) -> &mut Outbox<R>,
) -> u64
where
    R: Pod + Serialize + DeserializeOwned,
    F: FnOnce(&mut TrusteeState, &[R]) + Delegable,
{
    let mut sent = 0;
    for (to, recs) in bufs.iter().enumerate() {
        if !recs.is_empty() {
            sent += send_one(&ctx.peers[to], recs, deliver);
        }
    }
    ctx.local
        .apply_with(move |s, bufs: Vec<Vec<R>>| home(s).restore(bufs), bufs);
    sent
}
