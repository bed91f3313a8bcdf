//! `Core`: everything the driver keeps on one trustee for a program type
//! (the program's state, the shared adjacency, outgoing messages,
//! frontiers), stored in the trustee's property and kept from one
//! [`run`](crate::run) to the next.

use std::sync::Arc;

use graph_core::sharded::TrusteeState;
use graph_core::Shard;

use crate::addressed::Addressed;
use crate::adjacency::Adjacency;
use crate::frontier::{Frontier, FrontierMode};
use crate::local::Local;
use crate::net::Net;
use crate::program::Program;
use crate::replica::Replica;

pub(crate) struct Core<P: Program> {
    pub(crate) prog: P,
    pub(crate) adj: Arc<Adjacency>,
    pub(crate) net: Net<P>,
    pub(crate) cur: Frontier,
    pub(crate) next: Frontier,
    pub(crate) mode: FrontierMode,
    /// Where the sweep in progress continues.
    pub(crate) cursor: usize,
    pub(crate) supersteps: u32,
    /// The current frontier of every trustee as a bitmap over flat ids,
    /// shared by the trustees of this process (pull steps read it; made by
    /// [`Core::frontier_bits`]).
    pub(crate) bits: Option<Arc<Replica>>,
    /// Row entries of the own vertices not yet active in this run (what a
    /// direction-optimizing step compares the frontier's entries with).
    pub(crate) unexplored: u64,
    /// Records sent in the superstep after this trustee's current one,
    /// applied when it ends (see `net::deliver`).
    pub(crate) early: Vec<Addressed<P::Msg>>,
}

impl<P: Program> Core<P> {
    /// The shared frontier bitmap, made on first use: by this trustee's
    /// first pull, or by the first words another process publishes to it.
    pub(crate) fn frontier_bits(&mut self) -> &Arc<Replica> {
        let adj = &self.adj;
        self.bits
            .get_or_insert_with(|| Replica::bitmap(adj, "graph-kernel.frontier"))
    }

    pub(crate) fn new(prog: P, adj: Arc<Adjacency>, net: Net<P>) -> Self {
        let n = adj.num_own();
        let mode = FrontierMode::Auto;
        Core {
            prog,
            adj,
            net,
            cur: Frontier::new(n, mode),
            next: Frontier::new(n, mode),
            mode,
            cursor: 0,
            supersteps: 0,
            bits: None,
            unexplored: 0,
            early: Vec::new(),
        }
    }

    /// The program and the rest, to put a new program in place of the old.
    pub(crate) fn into_parts(self) -> (P, Rest<P>) {
        let Core {
            prog,
            adj,
            net,
            cur,
            next,
            mode,
            bits,
            early,
            ..
        } = self;
        let rest = Rest {
            adj,
            net,
            cur,
            next,
            mode,
            bits,
            early,
        };
        (prog, rest)
    }

    /// A core of `prog` and the rest of another.
    pub(crate) fn from_parts(prog: P, r: Rest<P>) -> Self {
        Core {
            prog,
            adj: r.adj,
            net: r.net,
            cur: r.cur,
            next: r.next,
            mode: r.mode,
            cursor: 0,
            supersteps: 0,
            bits: r.bits,
            unexplored: 0,
            early: r.early,
        }
    }

    /// Starts a run: empty frontiers, no superstep ended, nothing sent.
    pub(crate) fn begin(&mut self) {
        self.cur.clear();
        self.next.clear();
        self.cursor = 0;
        self.supersteps = 0;
        self.unexplored = 0;
        self.early.clear();
        self.net.begin();
    }

    #[inline(always)]
    pub(crate) fn local<'a>(&'a mut self, shard: &'a Shard) -> Local<'a, P> {
        Local::new(
            shard,
            &self.adj,
            &mut self.prog,
            &mut self.net,
            &self.cur,
            &mut self.next,
            None,
            self.supersteps,
        )
    }

    /// The size of the next frontier as it stands and, when `entries` is
    /// asked for, its vertices' row entries (what [`Core::advance`] would
    /// return if nothing else arrived).
    pub(crate) fn next_counts(&self, shard: &Shard, entries: bool) -> (u64, u64) {
        let e = if entries {
            row_entries(self.adj.rows(shard), &self.next)
        } else {
            0
        };
        (self.next.len() as u64, e)
    }

    /// Makes the vertices activated meanwhile the current frontier; returns
    /// `(vertices, their row entries)` (the entries counted only when
    /// `entries` is asked for: a direction-optimizing step).
    pub(crate) fn advance(&mut self, shard: &Shard, entries: bool) -> (u64, u64) {
        std::mem::swap(&mut self.cur, &mut self.next);
        self.next.clear();
        self.next.set_mode(self.mode);
        self.cursor = 0;
        self.supersteps += 1;
        self.net.superstep = self.supersteps;
        self.prog.next_superstep(self.supersteps);
        if !self.early.is_empty() {
            let early = std::mem::take(&mut self.early);
            crate::net::apply::<P>(&mut self.prog, &mut self.next, &early);
            self.early = early;
            self.early.clear();
        }
        let entries = if entries {
            row_entries(self.adj.rows(shard), &self.cur)
        } else {
            0
        };
        self.unexplored = self.unexplored.saturating_sub(entries);
        (self.cur.len() as u64, entries)
    }
}

/// The row entries of the vertices of `f` (a direction-optimizing step's
/// `m_f`, counted once a superstep). A queued frontier is read with the
/// spans of the vertices 16 places on asked for: a grid's frontier is
/// scattered over the rows, each span a cache miss, and waited for one by
/// one these took 9% of a one-thread BFS on the 2048 x 2048 grid.
fn row_entries(rows: &crate::adjacency::Rows, f: &Frontier) -> u64 {
    const AHEAD: usize = 16;
    if !f.is_sparse() {
        return f.iter().map(|v| rows.degree(v)).sum();
    }
    let (view, packed) = (rows.view(), rows.packed_view());
    let ask = |v: u32| match (&view, &packed) {
        (Some(r), _) => r.prefetch_span(v),
        (None, Some(p)) => p.prefetch_span(v),
        (None, None) => {}
    };
    (0..AHEAD).filter_map(|i| f.queued(i)).for_each(ask);
    let mut sum = 0;
    for (i, v) in f.iter().enumerate() {
        if let Some(u) = f.queued(i + AHEAD) {
            ask(u);
        }
        sum += rows.degree(v);
    }
    sum
}

/// What a [`Core`] keeps from one run to the next besides the program.
pub(crate) struct Rest<P: Program> {
    adj: Arc<Adjacency>,
    pub(crate) net: Net<P>,
    cur: Frontier,
    next: Frontier,
    mode: FrontierMode,
    bits: Option<Arc<Replica>>,
    early: Vec<Addressed<P::Msg>>,
}

/// The driver's slot for program `P` on this trustee (empty before the
/// first run).
#[inline(always)]
pub(crate) fn slot<P: Program>(s: &mut TrusteeState) -> (&mut Shard, &mut Option<Core<P>>) {
    s.kernel_mut::<Option<Core<P>>>(|_| None)
}

/// The driver's state for `P` on this trustee.
#[inline(always)]
pub(crate) fn core<P: Program>(s: &mut TrusteeState) -> (&Shard, &mut Core<P>) {
    let (shard, c) = s.kernel::<Option<Core<P>>>(|_| None);
    match c {
        Some(c) => (shard, c),
        None => panic!(
            "graph-kernel: kernel `{}` is not set up on this trustee (use graph_kernel::run)",
            std::any::type_name::<P>()
        ),
    }
}
