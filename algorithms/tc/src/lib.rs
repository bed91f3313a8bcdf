//! Triangle counting in graph-kernel's one shape.
//!
//! # The algorithm: ordered counting on a degree order (as GAPBS's `tc`)
//!
//! The graph is taken as a simple undirected graph: self-loops and repeated
//! edges are ignored. Vertices are put in a total order by degree, ties broken
//! by id: `a ≺ b` when `(deg a, a) < (deg b, b)`. Each edge is *oriented* from
//! its lower end to its higher end, so every vertex keeps only its neighbours
//! of higher degree (its *out-list*). A triangle `a ≺ b ≺ c` is then found
//! exactly once: at the edge `a → b`, as a common element `c` of the
//! out-lists of `a` and `b`. Counting towards higher degree keeps the
//! out-lists short: a vertex with `k` out neighbours has `k` neighbours of
//! degree at least `k`, so no out-list is longer than about `sqrt(2m)`, and
//! the hubs of a Kronecker graph, whose full lists are huge, have short
//! ones. GAPBS gets the same effect by relabelling vertices by degree and
//! counting `w < v < u` by id.
//!
//! # In graph-kernel's one shape
//!
//! The rows of graph-kernel's renumbered adjacency are already the simple
//! graph, by flat id, and a row's length is the degree. A trustee reads
//! only its own rows, and the count at `a → b` needs the out-list of `b`,
//! wherever it lives; so the kernel first brings what it needs to each
//! trustee, then counts without messages:
//!
//! 1. **order**: each trustee writes the key `(degree, flat id)` of its
//!    vertices into a [`Replica`] over flat ids (one per process, published
//!    to the others), so every trustee orders every vertex alike (ties by
//!    flat id instead of global id: any total order counts each triangle
//!    once);
//! 2. **out-lists**: each trustee writes the length of each of its
//!    vertices' out-lists into a second [`Replica`], published likewise,
//!    and marks the vertices whose out-lists it will read (its own and
//!    their out-neighbours); it sizes [`Lists`] for exactly those
//!    (graph-kernel's `lists`: 8 B per vertex of the graph, 4 B per entry),
//!    then sends the out-list of each own vertex `b`, as `[b, c]` records,
//!    to itself and to every trustee that owns a lower neighbour `a` of `b`
//!    ([`Sender::send_to_trustee`](graph_kernel::Sender::send_to_trustee)),
//!    which files each record in place as it arrives (no records are kept:
//!    collecting them first and sorting them by `b` held 8 B per entry more,
//!    and twice the entries while they were filed);
//! 3. **count**: a sweep takes each own `a`, marks its out-list in a
//!    bitmap over flat ids, and looks every element of the out-list of
//!    every `b` in it up there; the trustees' counts are summed.
//!
//! The lookup in a bitmap costs one probe per element of `out(b)`; a merge
//! of the two sorted lists (GAPBS's way) also walks `out(a)` for every `b`
//! and branches on every step: measured on the SCALE 16 graph, one trustee,
//! the count took 1.35 s with the merge (even starting after `b`) and
//! 0.32 s with the bitmap.
//!
//! The sequential count and the verifier, [`tc_sequential`] and
//! [`verify_tc`] (by binary search, sharing no code with the kernel), live
//! in [`graph_core::validate`] beside the BFS and SSSP validators and are
//! re-exported here.
//!
//! ```
//! use graph_core::sharded::ShardedGraph;
//! use graph_core::{EdgeList, PackedEdge, PartitionKind};
//! // Two triangles sharing the edge 1-2, with a repeated edge and a self-loop.
//! let e = |u, v| PackedEdge::new(u, v, 1.0);
//! let list = EdgeList::from_edges(5, vec![
//!     e(0, 1), e(1, 2), e(2, 0), e(1, 3), e(3, 2), e(2, 1), e(4, 4),
//! ]).unwrap();
//! let l2 = list.clone();
//! let out = gossamer::main(2, move || {
//!     let g = ShardedGraph::build(&l2, PartitionKind::Cyclic).unwrap();
//!     tc::tc(&g, &tc::TcConfig::default()).unwrap()
//! });
//! assert_eq!(out.triangles, 2);
//! assert_eq!(tc::tc_sequential(&list).unwrap(), 2);
//! assert_eq!(tc::verify_tc(&list, out.triangles), Ok(2));
//! assert!(tc::verify_tc(&list, 3).is_err());
//! ```

use std::sync::Arc;
use std::time::{Duration, Instant};

use graph_core::sharded::{KernelError, ShardedGraph};
pub use graph_core::validate::{tc_sequential, verify_tc};
use graph_kernel::adjacency::Rows;
use graph_kernel::lists::{Lists, Marks};
use graph_kernel::{run, Prepare, Program, Replica, RowsFormat};

/// [`TcConfig::step_work`]'s default.
pub const STEP_WORK: usize = 16 * 1024;

/// Settings of one run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TcConfig {
    /// Work of a sweep step (vertices + row entries + 4 per record queued
    /// for another trustee) before the records leave and the fiber yields
    /// ([`graph_kernel::Kernel::set_step_work`]; 0 counts as 1). Default
    /// [`STEP_WORK`] (16 Ki). At SCALE 19, 1 x 2 threads and 2 ranks x 1
    /// thread, [`graph_kernel::STEP_WORK`] (64 Ki) and 256 Ki were alike
    /// in time within the noise of a loaded machine, 1 Mi was up to 40%
    /// slower across ranks; but at 64 Ki the out-lists' records piled up
    /// in the runtime's queues faster than the other trustee filed them
    /// (about 60 MB more peak at SCALE 20, 1 x 2; 16 Ki and 4 Ki: none).
    pub step_work: usize,
    /// How the rows are stored when this run is the first to prepare the
    /// graph ([`graph_kernel::prepare_with`]; default plain): compressed
    /// rows take the place of the shard's array, at 1.6-1.7 B an entry on
    /// Graph500 graphs instead of 4. The kernel reads each row twice, while
    /// it makes the out-lists; the count reads only those.
    pub rows: RowsFormat,
}

impl Default for TcConfig {
    fn default() -> Self {
        TcConfig {
            step_work: STEP_WORK,
            rows: RowsFormat::Plain,
        }
    }
}

/// Result of one run.
///
/// ```
/// # use graph_core::{EdgeList, PackedEdge};
/// let e = |u, v| PackedEdge::new(u, v, 1.0);
/// let list = EdgeList::from_edges(3, vec![e(0, 1), e(1, 2), e(0, 2)]).unwrap();
/// let out = gossamer::main(1, move || {
///     let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
///     tc::tc(&g, &Default::default()).unwrap()
/// });
/// assert_eq!((out.triangles, out.oriented_edges, out.records), (1, 3, 0));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct TcOutput {
    /// Triangles of the simple graph (each counted once).
    pub triangles: u64,
    /// Edges of the simple graph (each oriented once, lower to higher order).
    pub oriented_edges: u64,
    /// Records sent between trustees (out-list entries).
    pub records: u64,
    /// Time of the whole kernel: the order, the out-list exchange and the
    /// count (excludes preparing the adjacency once per graph).
    pub kernel_time: Duration,
    /// Time of the counting sweep alone (the slowest trustee's).
    pub count_time: Duration,
}

/// One trustee's state.
#[derive(Default)]
struct Triangles {
    /// Every vertex's place in the order, by flat id: `degree << 32 | flat id`.
    key: Arc<Replica>,
    /// Every vertex's out-list length, by flat id (until the lists are made).
    len: Arc<Replica>,
    /// The out-lists this trustee reads (its own and those received), by
    /// flat id, filed as their records arrive.
    lists: Lists,
    /// One bit per flat id: the vertices whose out-lists this trustee
    /// reads, then the out-list of the vertex being counted.
    mark: Marks,
    /// A row and an out-list, while the out-lists are made.
    buf: [Vec<u32>; 2],
    oriented: u64,
    triangles: u64,
}

impl Program for Triangles {
    type Msg = [u32; 2];

    fn receive(&mut self, _: u32, _: [u32; 2]) -> bool {
        unreachable!("tc sends to trustees only")
    }

    fn receive_here(&mut self, [b, c]: [u32; 2]) {
        self.lists.place(b, c);
    }
}

/// Own vertex `v` (flat id `b`)'s row (in `row` if compressed) and
/// out-list (in `out`): its neighbours above it in the order.
fn out_list<'r>(
    rows: &'r Rows,
    key: &Replica,
    (v, b): (u32, u32),
    [row, out]: &'r mut [Vec<u32>; 2],
) -> (&'r [u32], &'r [u32]) {
    let kb = key.get(b as usize);
    let row = rows.read(v, row);
    out.clear();
    out.extend(row.iter().filter(|&&c| key.get(c as usize) > kb));
    (row, out)
}

/// Triangles of `graph` (as a simple graph), from a fiber of the runtime that
/// built it. Returns [`KernelError::Config`] on a directed graph.
///
/// Memory per trustee, beyond the adjacency: one offset (8 B) per vertex
/// of the graph and the out-lists it reads (its own and its neighbours',
/// 4 B an entry); per process, two words per vertex of the graph (the keys
/// and, until the lists are sized, their lengths). From a built file with
/// compressed rows ([`TcConfig::rows`]) at SCALE 20 and 22, one process of
/// 2 threads peaks under GAPBS's tc (results/memory/unweighted.md).
///
/// ```
/// use graph_core::sharded::ShardedGraph;
/// use graph_core::{EdgeList, PackedEdge, PartitionKind};
/// // The complete graph on 5 vertices has C(5, 3) = 10 triangles.
/// let mut edges = vec![];
/// for u in 0..5 { for v in 0..u { edges.push(PackedEdge::new(u, v, 1.0)); } }
/// let list = EdgeList::from_edges(5, edges).unwrap();
/// let counts = gossamer::main(3, move || {
///     [PartitionKind::Block, PartitionKind::Cyclic].map(|kind| {
///         let g = ShardedGraph::build(&list, kind).unwrap();
///         tc::tc(&g, &Default::default()).unwrap().triangles
///     })
/// });
/// assert_eq!(counts, [10, 10]);
/// ```
pub fn tc(graph: &ShardedGraph, cfg: &TcConfig) -> Result<TcOutput, KernelError> {
    if graph.is_directed() {
        return Err(KernelError::Config(
            "triangles are counted on undirected graphs (as GAPBS's tc): build the graph undirected".into(),
        ));
    }
    let step_work = cfg.step_work;
    graph_kernel::prepare_with(graph, Prepare::Rows, cfg.rows);
    let t0 = Instant::now();
    let init = |s: &mut graph_kernel::Setup<'_>, _| {
        let (a, rows) = (s.adjacency(), s.rows());
        // 1. This trustee's keys, for every trustee.
        let key = Replica::per_vertex(a, "tc.key");
        for v in 0..a.num_own() {
            let f = a.flat(v);
            key.set(f as usize, rows.degree(v) << 32 | u64::from(f));
        }
        Triangles {
            key,
            len: Replica::per_vertex(a, "tc.len"),
            mark: Marks::new(a.num_flat() as usize, "tc marks"),
            ..Default::default()
        }
    };
    let per = run(graph, init, move |k| {
        k.set_step_work(step_work);
        // At most about 1 Mi records (12 MiB) in flight per trustee, however
        // late the receivers run (graph-kernel's `set_step_wait`).
        k.set_step_wait(1 << 20);
        k.publish(|t: &Triangles| &t.key);
        k.sync();
        // 2. Out-list lengths, for every trustee; marked: the vertices whose
        // out-lists this trustee reads (its own and their out-neighbours).
        k.for_each_vertex(|l, v| {
            let (rows, b, s) = (l.rows(), l.flat(v), l.state());
            let (_, out) = out_list(rows, &s.key, (v, b), &mut s.buf);
            s.len.set(b as usize, out.len() as u64);
            s.oriented += out.len() as u64;
            s.mark.set_all(out);
            s.mark.set(b);
        });
        k.publish(|t: &Triangles| &t.len);
        k.sync();
        k.with(|l| {
            let (n, s) = (l.adjacency().num_flat() as usize, l.state());
            let len = |b| usize::from(s.mark.get(b as u32)) * s.len.get(b) as usize;
            (s.lists, s.len) = (Lists::with_lengths(n, len, "tc out-lists"), Arc::default());
            s.mark.clear_every();
        });
        k.sync();
        // Out-lists to this trustee and to the owners of lower neighbours
        // (ascending along a row, so each trustee's entries are one run),
        // filed by `b` as they arrive.
        let me = k.me();
        k.for_each_vertex(move |l, v| {
            let (rows, adj, b) = (l.rows(), l.adjacency(), l.flat(v));
            let (s, mut tx) = l.split();
            let (row, out) = out_list(rows, &s.key, (v, b), &mut s.buf);
            out.iter().for_each(|&c| s.lists.place(b, c));
            let (kb, mut last) = (s.key.get(b as usize), me);
            for &a in row {
                let t = adj.owner_of(a) as u32;
                if t != last && t != me && s.key.get(a as usize) < kb {
                    out.iter().for_each(|&c| tx.send_to_trustee(t, [b, c]));
                    last = t;
                }
            }
        });
        k.sync();
        // 3. Count: for every own a, mark out(a), then look every element of
        // out(b) up in the marks, for every b in out(a).
        let t = Instant::now();
        k.for_each_vertex(|l, v| {
            let (a, s) = (l.flat(v), l.state());
            let list = s.lists.list(a);
            s.mark.set_all(list);
            s.triangles += list
                .iter()
                .map(|&b| s.mark.count(s.lists.list(b)))
                .sum::<u64>();
            s.mark.clear(list);
        });
        let count_time = t.elapsed().as_nanos() as u64;
        let (local, oriented) = k.with(|l| {
            let s = l.state();
            (s.lists, s.buf) = Default::default();
            (s.triangles, s.oriented)
        });
        let (triangles, oriented) = (k.sum(local), k.sum(oriented));
        (triangles, oriented, k.stats().sent, count_time)
    });
    let kernel_time = t0.elapsed();
    Ok(TcOutput {
        triangles: per[0].0,
        oriented_edges: per[0].1,
        records: per.iter().map(|p| p.2).sum(),
        kernel_time,
        count_time: Duration::from_nanos(per.iter().map(|p| p.3).max().unwrap_or(0)),
    })
}
