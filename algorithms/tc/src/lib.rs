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
//! 2. **out-lists**: each trustee sends the out-list of each of its
//!    vertices `b`, as `[b, c]` records, to itself and to every trustee that
//!    owns a lower neighbour `a` of `b` ([`Local::send_to_trustee`]), which
//!    files them by `b` once all have arrived;
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

use graph_core::alloc::vec_or_exit;
use graph_core::sharded::{KernelError, ShardedGraph};
pub use graph_core::validate::{tc_sequential, verify_tc};
use graph_kernel::{run, Local, Prepare, Program, Replica};

/// Settings of one run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TcConfig {
    /// Work of a sweep step (vertices + row entries + 4 per record queued
    /// for another trustee) before the records leave and the fiber yields
    /// ([`graph_kernel::Kernel::set_step_work`]; 0 counts as 1). Default
    /// [`graph_kernel::STEP_WORK`] (64 Ki): at SCALE 19, 1 x 2 threads and
    /// 2 ranks x 1 thread, 64 Ki and 256 Ki were alike within the noise of
    /// a loaded machine, 1 Mi was up to 40% slower across ranks.
    pub step_work: usize,
}

impl Default for TcConfig {
    fn default() -> Self {
        TcConfig {
            step_work: graph_kernel::STEP_WORK,
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
struct Triangles {
    /// Every vertex's place in the order, by flat id: `degree << 32 | flat id`.
    key: Arc<Replica>,
    /// Out-list records `[b, c]` received and not yet filed.
    inbox: Vec<[u32; 2]>,
    /// The out-lists this trustee reads (its own and those received), by
    /// flat id: `out[off[b]..off[b + 1]]`.
    off: Vec<usize>,
    out: Vec<u32>,
    /// One bit per flat id: the out-list of the vertex being counted.
    mark: Vec<u64>,
    triangles: u64,
}

impl Program for Triangles {
    type Msg = [u32; 2];

    fn receive(&mut self, _: u32, _: [u32; 2]) -> bool {
        unreachable!("tc sends to trustees only")
    }

    fn receive_here(&mut self, rec: [u32; 2]) {
        self.inbox.push(rec);
    }
}

/// Triangles of `graph` (as a simple graph), from a fiber of the runtime that
/// built it. Returns [`KernelError::Config`] on a directed graph.
///
/// Memory per trustee, beyond the adjacency: one offset per vertex of the
/// graph and the out-lists it reads (its own and its neighbours'); per
/// process, one key per vertex of the graph.
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
    graph_kernel::prepare(graph, Prepare::Rows);
    let t0 = Instant::now();
    let init = |s: &mut graph_kernel::Setup<'_>, _| {
        let (a, rows) = (s.adjacency(), s.rows());
        // 1. This trustee's keys, for every trustee.
        let key = Replica::per_vertex(a, "tc.key");
        for v in 0..a.num_own() {
            key.set(
                a.flat(v) as usize,
                rows.degree(v) << 32 | u64::from(a.flat(v)),
            );
        }
        Triangles {
            key,
            inbox: Vec::new(),
            off: Vec::new(),
            out: Vec::new(),
            mark: vec_or_exit(a.num_flat().div_ceil(64) as usize, 0, "tc marks"),
            triangles: 0,
        }
    };
    let per = run(graph, init, move |k| {
        k.set_step_work(step_work);
        k.publish(|t: &Triangles| &t.key);
        k.sync();
        // 2. Out-lists to this trustee and to the owners of lower neighbours
        // (ascending along a row, so each trustee's entries are one run).
        let me = k.me();
        k.for_each_vertex(move |l, v| {
            let (b, row, adj) = (l.flat(v), l.row(v), l.adjacency());
            let kb = l.state().key.get(b as usize);
            let send = |l: &mut Local<'_, Triangles>, t: u32| {
                for &c in row {
                    if l.state().key.get(c as usize) > kb {
                        l.send_to_trustee(t, [b, c]);
                    }
                }
            };
            send(l, me);
            let mut last = me;
            for &a in row {
                let t = adj.owner_of(a) as u32;
                if t != last && t != me && l.state().key.get(a as usize) < kb {
                    send(l, t);
                    last = t;
                }
            }
        });
        k.sync();
        // Filed by `b` (a counting sort): `off[b]` counts up to the end of
        // `b`'s list, then down to its start as the entries are placed.
        let oriented = k.with(|l| {
            let (n, own) = (l.adjacency().num_flat() as usize, l.adjacency().own_flat());
            let s = l.state();
            let mut off = vec_or_exit(n + 1, 0usize, "tc list offsets");
            for &[b, _] in &s.inbox {
                off[b as usize] += 1;
            }
            for i in 1..=n {
                off[i] += off[i - 1];
            }
            let mut out = vec_or_exit(s.inbox.len(), 0u32, "tc out-lists");
            for &[b, c] in &s.inbox {
                off[b as usize] -= 1;
                out[off[b as usize]] = c;
            }
            (s.off, s.out, s.inbox) = (off, out, Vec::new());
            (s.off[own.end] - s.off[own.start]) as u64
        });
        // 3. Count: for every own a, mark out(a), then look every element of
        // out(b) up in the marks, for every b in out(a).
        let t = Instant::now();
        k.for_each_vertex(|l, v| {
            let a = l.flat(v) as usize;
            let Triangles { off, out, mark, .. } = l.state();
            let list = &out[off[a]..off[a + 1]];
            for &c in list {
                mark[(c >> 6) as usize] |= 1 << (c & 63);
            }
            let mut found = 0u64;
            for &b in list {
                for &c in &out[off[b as usize]..off[b as usize + 1]] {
                    found += (mark[(c >> 6) as usize] >> (c & 63)) & 1;
                }
            }
            for &c in list {
                mark[(c >> 6) as usize] = 0;
            }
            l.state().triangles += found;
        });
        let count_time = t.elapsed().as_nanos() as u64;
        let local = k.with(|l| {
            let s = l.state();
            (s.off, s.out) = (Vec::new(), Vec::new());
            s.triangles
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
