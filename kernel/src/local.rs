//! [`Local`]: a kernel's view of its own trustee (shard, state, frontiers,
//! outgoing updates), and the per-trustee property behind it.

use gossamer::Trust;
use graph_core::sharded::TrusteeState;
use graph_core::{Partition, Shard};

use crate::addressed::Addressed;
use crate::frontier::{Frontier, FrontierMode};
use crate::outbox::Outbox;
use crate::program::Program;

/// Records a combining batch gathers before it leaves in the middle of a sweep.
const COMBINE_BATCH: usize = 1 << 16;

/// Everything the framework keeps on one trustee for kernel `P`, stored as the
/// trustee's kernel state of type `Core<P>` (see `TrusteeState::kernel`).
pub(crate) struct Core<P: Program> {
    pub(crate) prog: P,
    pub(crate) net: Net<P>,
    pub(crate) cur: Frontier,
    pub(crate) next: Frontier,
    pub(crate) mode: FrontierMode,
    /// Position in the current sweep (see `Frontier::at`, or a vertex index).
    pub(crate) cursor: usize,
}

/// Outgoing updates of one trustee, one batch per destination trustee.
pub(crate) struct Net<P: Program> {
    pub(crate) me: u32,
    pub(crate) partition: Partition,
    /// Every trustee's property, only during a run (cleared after, so that
    /// properties do not keep each other alive).
    pub(crate) peers: Vec<Trust<TrusteeState>>,
    out: Outbox<Addressed<P::Msg>>,
    /// With combining: per destination trustee, the pending update of each of
    /// its vertices (see [`Combiner`]).
    comb: Vec<Combiner<P::Msg>>,
    pub(crate) stats: KernelStats,
    /// `stats.sent` when the last superstep ended.
    pub(crate) sent_mark: u64,
}

/// Counters of one trustee over one [`run`](crate::run); see
/// [`Kernel::stats`](crate::Kernel::stats).
///
/// ```
/// let s = graph_kernel::KernelStats::default();
/// assert_eq!(s.sent + s.combined + s.local, 0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct KernelStats {
    /// Update records sent to other trustees.
    pub sent: u64,
    /// Updates merged into a pending record by [`Program::combine`].
    pub combined: u64,
    /// Updates delivered on the sending trustee (no message).
    pub local: u64,
    /// Batches (`apply_slice` requests) sent.
    pub batches: u64,
}

impl<P: Program> Core<P> {
    pub(crate) fn new(shard: &Shard, prog: P, me: u32, peers: Vec<Trust<TrusteeState>>) -> Self {
        let p = *shard.partition();
        let n = shard.num_local_vertices() as u32;
        let comb = if P::COMBINE {
            (0..p.num_trustees())
                .map(|t| Combiner::new(p.local_count(t) as usize))
                .collect()
        } else {
            Vec::new()
        };
        let mode = FrontierMode::Auto;
        Core {
            prog,
            net: Net {
                me,
                partition: p,
                peers,
                out: Outbox::new(p.num_trustees() as usize),
                comb,
                stats: KernelStats::default(),
                sent_mark: 0,
            },
            cur: Frontier::new(n, mode),
            next: Frontier::new(n, mode),
            mode,
            cursor: 0,
        }
    }

    /// The view handed to user code.
    #[inline]
    pub(crate) fn local<'a>(&'a mut self, shard: &'a Shard) -> Local<'a, P> {
        Local {
            shard,
            prog: &mut self.prog,
            net: &mut self.net,
            cur: &self.cur,
            next: &mut self.next,
        }
    }

    /// Makes the next frontier current; returns its size.
    pub(crate) fn advance(&mut self) -> u64 {
        std::mem::swap(&mut self.cur, &mut self.next);
        self.next.clear();
        self.next.set_mode(self.mode);
        self.cursor = 0;
        self.cur.len() as u64
    }
}

impl<P: Program> Net<P> {
    /// Whether records left since the last call (then marks the count).
    pub(crate) fn sent_since_mark(&mut self) -> bool {
        let sent = self.stats.sent != self.sent_mark;
        self.sent_mark = self.stats.sent;
        sent
    }

    /// Sends every non-empty batch to its owner (non-blocking; the records are
    /// applied there by [`deliver`]).
    pub(crate) fn flush(&mut self) {
        self.flush_from(1);
    }

    /// Between the steps of a sweep: sends the batches worth sending. Without
    /// combining that is every non-empty one (the records start travelling
    /// while the sweep goes on); with combining, only batches of at least
    /// [`COMBINE_BATCH`] records, since a batch that stays longer absorbs more
    /// updates (at most one record per remote vertex).
    pub(crate) fn flush_step(&mut self) {
        self.flush_from(if P::COMBINE { COMBINE_BATCH } else { 1 });
    }

    fn flush_from(&mut self, min: usize) {
        for t in 0..self.peers.len() {
            if P::COMBINE {
                let c = &mut self.comb[t];
                if c.touched.len() < min {
                    continue;
                }
                c.drain_into(self.out.buffer(t));
            }
            let (records, batches) = self.out.send_if(t, min, &self.peers, deliver::<P>);
            self.stats.sent += records;
            self.stats.batches += batches;
        }
    }

    #[inline(always)]
    fn push(&mut self, t: u32, v: u32, msg: P::Msg) {
        if P::COMBINE {
            let c = &mut self.comb[t as usize];
            if c.add::<P>(v, msg) {
                self.stats.combined += 1;
            }
            return;
        }
        self.out.push(t as usize, Addressed::new(v, msg));
    }
}

/// Pending combined updates for the vertices of one destination trustee:
/// one slot per vertex (allocated on first use, filled with that first
/// update), a bitmap of the slots in use and the list of them in first-use
/// order. An update costs one bitmap test and one slot access, whatever the
/// number of updates already pending.
pub(crate) struct Combiner<M> {
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

    /// Adds `msg` for local vertex `v`; true when it merged with a pending one.
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

    /// Moves the pending updates into `out` as records and empties the set.
    fn drain_into(&mut self, out: &mut Vec<Addressed<M>>) {
        for &v in &self.touched {
            out.push(Addressed::new(v, self.acc[v as usize]));
            self.used[(v >> 6) as usize] = 0;
        }
        self.touched.clear();
    }
}

/// The framework's slot for kernel `P` in a trustee property (`None` until
/// the first [`run`](crate::run) of `P` on that graph).
#[inline(always)]
pub(crate) fn slot<P: Program>(s: &mut TrusteeState) -> (&Shard, &mut Option<Core<P>>) {
    s.kernel::<Option<Core<P>>>(|_| None)
}

/// The kernel state `Core<P>` of a trustee property, which must exist.
#[inline(always)]
pub(crate) fn core<P: Program>(s: &mut TrusteeState) -> (&Shard, &mut Core<P>) {
    let (shard, c) = slot::<P>(s);
    match c {
        Some(c) => (shard, c),
        None => panic!(
            "graph-kernel: kernel `{}` is not set up on this trustee (use graph_kernel::run)",
            std::any::type_name::<P>()
        ),
    }
}

/// Applies a batch of updates on their owner (the delegated closure body).
fn deliver<P: Program>(s: &mut TrusteeState, recs: &[Addressed<P::Msg>]) {
    let (_, c) = core::<P>(s);
    for r in recs {
        let (v, m) = (r.v, r.m);
        if c.prog.receive(v, m) {
            c.next.insert(v);
        }
    }
}

/// A kernel's view of its own trustee, handed to the closures of
/// [`Kernel::for_each_vertex`](crate::Kernel::for_each_vertex),
/// [`Kernel::for_each_active`](crate::Kernel::for_each_active) and
/// [`Kernel::with`](crate::Kernel::with): the shard (vertices by local index
/// `0..num_local()`, their edges by global id), the program state, the current
/// and next frontiers, and [`send`](Self::send).
///
/// ```
/// # use graph_kernel::{run, Program};
/// # struct Deg(Vec<u32>);
/// # impl Program for Deg { type Msg = u32; fn receive(&mut self, v: u32, x: u32) -> bool { self.0[v as usize] += x; false } }
/// # let g = graph_kernel::doc::path(4);
/// let seen = gossamer::main(2, move || {
///     let g = graph_core::sharded::ShardedGraph::build(&g, graph_core::PartitionKind::Block).unwrap();
///     run(&g, |s| Deg(vec![0; s.num_local_vertices() as usize]), |k| {
///         k.with(|l| (l.me(), l.num_local(), l.global(0), l.degree(0), l.neighbors(0)[0]))
///     })
/// });
/// // Path 0-1-2-3 over two trustees: {0, 1} and {2, 3}.
/// assert_eq!(seen, [(0, 2, 0, 1, 1), (1, 2, 2, 2, 1)]);
/// ```
pub struct Local<'a, P: Program> {
    shard: &'a Shard,
    prog: &'a mut P,
    net: &'a mut Net<P>,
    cur: &'a Frontier,
    next: &'a mut Frontier,
}

impl<'a, P: Program> Local<'a, P> {
    /// This trustee's index (`0..num_trustees`).
    ///
    /// See the example on [`Local`].
    #[inline]
    pub fn me(&self) -> u32 {
        self.net.me
    }

    /// The program state of this trustee.
    ///
    /// ```
    /// # use graph_kernel::{doc, run};
    /// # let list = doc::path(4);
    /// # gossamer::main(2, move || {
    /// # let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
    /// // Path 0-1-2-3 over two trustees ({0, 1} and {2, 3}).
    /// let r = run(&g, doc::zeros, |k| k.with(|l| { l.state().0[1] = 7; let s = &l.state().0; [s[0], s[1]] }));
    /// assert_eq!(r, [[0, 7], [0, 7]]);
    /// # });
    /// ```
    #[inline]
    pub fn state(&mut self) -> &mut P {
        self.prog
    }

    /// This trustee's shard (read-only adjacency).
    ///
    /// ```
    /// # use graph_kernel::{doc, run};
    /// # let list = doc::path(4);
    /// # gossamer::main(2, move || {
    /// # let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
    /// let entries = run(&g, doc::zeros, |k| k.with(|l| l.shard().num_entries()));
    /// assert_eq!(entries, [3, 3]); // degrees 1 + 2 and 2 + 1
    /// # });
    /// ```
    #[inline]
    pub fn shard(&self) -> &'a Shard {
        self.shard
    }

    /// The graph's partition (who owns which vertex).
    ///
    /// ```
    /// # use graph_kernel::{doc, run};
    /// # let list = doc::path(4);
    /// # gossamer::main(2, move || {
    /// # let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
    /// let owner = run(&g, doc::zeros, |k| k.with(|l| l.partition().trustee_of(3)));
    /// assert_eq!(owner, [1, 1]);
    /// # });
    /// ```
    /// See the example on [`Local`].
    #[inline]
    pub fn partition(&self) -> &Partition {
        &self.net.partition
    }

    /// Number of vertices this trustee owns (local indices `0..num_local()`).
    ///
    /// See the example on [`Local`].
    #[inline]
    pub fn num_local(&self) -> u32 {
        self.shard.num_local_vertices() as u32
    }

    /// Global id of local vertex `v`.
    ///
    /// See the example on [`Local`].
    #[inline]
    pub fn global(&self, v: u32) -> u64 {
        self.shard.global_id(u64::from(v))
    }

    /// Local index of global vertex `g` when this trustee owns it.
    ///
    /// ```
    /// # use graph_kernel::{run, Program};
    /// # struct Nop;
    /// # impl Program for Nop { type Msg = u32; fn receive(&mut self, _: u32, _: u32) -> bool { false } }
    /// # let list = graph_kernel::doc::path(4);
    /// let mine = gossamer::main(2, move || {
    ///     let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Cyclic).unwrap();
    ///     run(&g, |_| Nop, |k| k.with(|l| (l.local_of(2), l.local_of(3))))
    /// });
    /// assert_eq!(mine, [(Some(1), None), (None, Some(1))]);
    /// ```
    #[inline]
    pub fn local_of(&self, g: u64) -> Option<u32> {
        self.shard.local_of(g).map(|l| l as u32)
    }

    /// Degree of local vertex `v` (self-loops dropped, parallel edges kept, as
    /// in the shard).
    ///
    /// See the example on [`Local`].
    #[inline]
    pub fn degree(&self, v: u32) -> u64 {
        self.shard.degree(u64::from(v))
    }

    /// Global ids of local vertex `v`'s neighbours.
    ///
    /// See the example on [`Local`].
    #[inline]
    pub fn neighbors(&self, v: u32) -> &'a [u32] {
        self.shard.adjacency(u64::from(v)).0
    }

    /// Weights of local vertex `v`'s edges, parallel to [`neighbors`](Self::neighbors).
    ///
    /// ```
    /// # use graph_kernel::{run, Program};
    /// # struct Nop;
    /// # impl Program for Nop { type Msg = u32; fn receive(&mut self, _: u32, _: u32) -> bool { false } }
    /// # let list = graph_kernel::doc::path(3);
    /// let w = gossamer::main(1, move || {
    ///     let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
    ///     run(&g, |_| Nop, |k| k.with(|l| l.weights(1).iter().sum::<f32>()))
    /// });
    /// assert_eq!(w, [1.0]); // doc::path weighs every edge 0.5
    /// ```
    #[inline]
    pub fn weights(&self, v: u32) -> &'a [f32] {
        self.shard.adjacency(u64::from(v)).1
    }

    /// Sends `msg` to global vertex `to`: applied at once by
    /// [`Program::receive`] when this trustee owns `to`, otherwise queued for
    /// its owner (merged by [`Program::combine`] when enabled) and sent in
    /// batches by the framework. Every update sent during a superstep has been
    /// applied when [`Kernel::end_superstep`](crate::Kernel::end_superstep) or
    /// [`Kernel::sync`](crate::Kernel::sync) returns.
    ///
    /// ```
    /// # use graph_kernel::{doc, run};
    /// # let list = doc::path(4);
    /// # gossamer::main(2, move || {
    /// # let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
    /// // Every vertex sends its global id to each neighbour.
    /// run(&g, doc::zeros, |k| {
    ///     k.for_each_vertex(|l, v| {
    ///         let me = l.global(v) as u32;
    ///         for &u in l.neighbors(v) { l.send(u, me) }
    ///     });
    ///     k.sync();
    /// });
    /// let sums = graph_kernel::gather(&g, 0, |s: &doc::Sum| s.0.clone()).unwrap();
    /// assert_eq!(sums, [1, 2, 4, 2]);
    /// # });
    /// ```
    #[inline]
    pub fn send(&mut self, to: u32, msg: P::Msg) {
        let o = self.net.partition.owner(u64::from(to));
        if o.trustee == self.net.me {
            self.net.stats.local += 1;
            let v = o.local as u32;
            if self.prog.receive(v, msg) {
                self.next.insert(v);
            }
        } else {
            self.net.push(o.trustee, o.local as u32, msg);
        }
    }

    /// Puts local vertex `v` into the next frontier (from the next superstep on).
    ///
    /// ```
    /// # use graph_kernel::{doc, run};
    /// # let list = doc::path(4);
    /// # gossamer::main(2, move || {
    /// # let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
    /// let r = run(&g, doc::zeros, |k| {
    ///     k.with(|l| l.activate(0));
    ///     let before = k.with(|l| l.is_active(0)); // not yet: next superstep
    ///     let total = k.end_superstep();
    ///     (before, k.with(|l| l.is_active(0)), total)
    /// });
    /// assert_eq!(r, [(false, true, 2), (false, true, 2)]);
    /// # });
    /// ```
    #[inline]
    pub fn activate(&mut self, v: u32) {
        self.next.insert(v);
    }

    /// Puts every local vertex into the next frontier.
    ///
    /// ```
    /// # use graph_kernel::{run, Program};
    /// # struct Nop;
    /// # impl Program for Nop { type Msg = u32; fn receive(&mut self, _: u32, _: u32) -> bool { false } }
    /// # let list = graph_kernel::doc::path(5);
    /// let n = gossamer::main(2, move || {
    ///     let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
    ///     run(&g, |_| Nop, |k| { k.with(|l| l.activate_all()); k.end_superstep() })
    /// });
    /// assert_eq!(n, [5, 5]); // the global frontier size, on every trustee
    /// ```
    pub fn activate_all(&mut self) {
        self.next.insert_all();
    }

    /// True when local vertex `v` is in the current frontier.
    ///
    /// ```
    /// # use graph_kernel::{doc, run};
    /// # let list = doc::path(4);
    /// # gossamer::main(2, move || {
    /// # let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
    /// let r = run(&g, doc::zeros, |k| {
    ///     k.with(|l| l.activate(1));
    ///     k.end_superstep();
    ///     k.with(|l| (l.is_active(0), l.is_active(1)))
    /// });
    /// assert_eq!(r, [(false, true), (false, true)]);
    /// # });
    /// ```
    #[inline]
    pub fn is_active(&self, v: u32) -> bool {
        self.cur.contains(v)
    }

    /// The current frontier of this trustee (see [`Frontier`]).
    ///
    /// ```
    /// # use graph_kernel::{doc, run};
    /// # let list = doc::path(4);
    /// # gossamer::main(2, move || {
    /// # let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
    /// let r = run(&g, doc::zeros, |k| {
    ///     k.with(|l| l.activate_all());
    ///     k.end_superstep();
    ///     k.with(|l| (l.frontier().len(), l.frontier().iter().max()))
    /// });
    /// assert_eq!(r, [(2, Some(1)), (2, Some(1))]);
    /// # });
    /// ```
    #[inline]
    pub fn frontier(&self) -> &Frontier {
        self.cur
    }
}
