//! Triangle counting, written only against the [`graph_kernel`] API.
//!
//! # The algorithm: ordered counting on a degree order (as GAPBS's `tc`)
//!
//! The graph is taken as a simple undirected graph: self-loops and repeated
//! edges are ignored. Vertices are put in a total order by degree, ties broken
//! by id: `a ≺ b` when `(deg a, a) < (deg b, b)`. Each edge is *oriented* from
//! its lower end to its higher end, so every vertex keeps only its neighbours
//! of higher degree (its *out-list*, sorted by id). A triangle `a ≺ b ≺ c` is
//! then found exactly once: at the edge `a → b`, as a common element `c` of
//! the out-lists of `a` and `b`. Counting
//! towards higher degree keeps the out-lists short: a vertex with `k` out
//! neighbours has `k` neighbours of degree at least `k`, so no out-list is
//! longer than about `sqrt(2m)`, and the hubs of a Kronecker graph, whose
//! full lists are huge, have short ones. GAPBS gets the same effect by
//! relabelling vertices by degree and counting `w < v < u` by id.
//!
//! # As a kernel
//!
//! A trustee can only read its own vertices, and the merge at `a → b` needs
//! the out-list of `b`, wherever it lives. So the kernel first brings what it
//! needs to each trustee, as update records, then counts without messages:
//!
//! 1. **neighbour sets**: each trustee sorts and deduplicates the neighbour
//!    lists of its vertices (the shards keep parallel edges);
//! 2. **degrees**: each trustee sends the degree of each of its vertices with
//!    edges to every other trustee (`n` records per trustee, a dense
//!    replication of the degree array through [`graph_kernel::Local::send`]);
//! 3. **out-lists**: each trustee orients its vertices' lists, then sends the
//!    out-list of each vertex `b` to every other trustee that owns a
//!    lower-ordered neighbour `a` of `b` (one record per entry and trustee);
//! 4. **count**: a dense sweep takes each local `a`, marks its out-list in a
//!    bitmap over ranks, and looks up every element of the out-list of every
//!    `b` in it; the trustees' counts are summed.
//!
//! Every trustee ranks the vertices by `(degree, id)` from the same degrees,
//! so out-lists travel and are stored as sorted ranks. The lookup in a bitmap
//! costs one probe per element of `out(b)`; a merge of the two sorted lists
//! (GAPBS's way, and [`tc_sequential`]'s) also walks `out(a)` for every `b`
//! and branches on every step: measured on the SCALE 16 graph, one trustee,
//! the count took 1.35 s with the merge (even starting after `b`) and 0.32 s
//! with the bitmap.
//!
//! Records between trustees are `[u32; 2]` pairs (a vertex and its degree, or
//! the ranks of a vertex and of one of its out-neighbours) addressed to the
//! receiving trustee's first vertex (the API sends to vertices, not to
//! trustees) and queued there; each phase ends with a [`graph_kernel::Kernel::sync`]
//! before the queue is read, and with another one after, so that the next
//! phase's records never mix with this one's.
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
//!     tc::tc(&g).unwrap()
//! });
//! assert_eq!(out.triangles, 2);
//! assert_eq!(tc::tc_sequential(&list).unwrap(), 2);
//! assert_eq!(tc::verify_tc(&list, out.triangles), Ok(2));
//! assert!(tc::verify_tc(&list, 3).is_err());
//! ```

use std::time::{Duration, Instant};

use graph_core::alloc::vec_or_exit;
use graph_core::sharded::{KernelError, ShardedGraph};
use graph_core::{build_whole, EdgeList, Shard};
use graph_kernel::{run, Program};

/// Rank of a vertex without edges (it is in no list).
const NO_RANK: u32 = u32::MAX;

/// Result of one run.
///
/// ```
/// # use graph_core::{EdgeList, PackedEdge};
/// let e = |u, v| PackedEdge::new(u, v, 1.0);
/// let list = EdgeList::from_edges(3, vec![e(0, 1), e(1, 2), e(0, 2)]).unwrap();
/// let out = gossamer::main(1, move || {
///     let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
///     tc::tc(&g).unwrap()
/// });
/// assert_eq!((out.triangles, out.oriented_edges, out.records), (1, 3, 0));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct TcOutput {
    /// Triangles of the simple graph (each counted once).
    pub triangles: u64,
    /// Edges of the simple graph (each oriented once, lower to higher order).
    pub oriented_edges: u64,
    /// Records sent between trustees (degrees and out-list entries).
    pub records: u64,
    /// Time of the whole kernel: neighbour sets, degree and out-list
    /// exchange, and the count (excludes building the shards).
    pub kernel_time: Duration,
    /// Time of the counting sweep alone (the slowest trustee's).
    pub count_time: Duration,
}

/// The per-trustee state.
struct Triangles {
    /// This trustee's neighbour lists (global ids), sorted, without repeats
    /// or self-loops, by local index.
    off: Vec<usize>,
    nbr: Vec<u32>,
    /// Degree in the simple graph of every vertex, by global id: this
    /// trustee's own at the start, the others' once their owners sent them.
    deg: Vec<u32>,
    /// Position of every vertex with edges in the degree order, by global id
    /// (computed by every trustee from the same degrees, so all agree).
    rank: Vec<u32>,
    /// Records received and not yet read.
    inbox: Vec<[u32; 2]>,
    /// Out-lists of this trustee's vertices, by local index (phase 3).
    mine_off: Vec<usize>,
    mine: Vec<u32>,
    /// Every out-list this trustee reads (its own and those received), by
    /// rank, as sorted ranks (phase 4).
    all_off: Vec<usize>,
    all: Vec<u32>,
    triangles: u64,
    /// One bit per rank: the out-list of the vertex being counted.
    mark: Vec<u64>,
}

impl Program for Triangles {
    type Msg = [u32; 2];

    #[inline]
    fn receive(&mut self, _v: u32, rec: [u32; 2]) -> bool {
        self.inbox.push(rec);
        false
    }
}

impl Triangles {
    fn new(shard: &Shard) -> Self {
        let (off, nbr) = graph_kernel::adjacency::simple_lists(
            (0..shard.num_local_vertices()).map(|v| shard.adjacency(v).0),
            shard.num_entries() as usize,
        );
        let mut deg = vec![0u32; shard.partition().num_vertices() as usize];
        for (l, g) in shard.vertices() {
            deg[g as usize] = (off[l as usize + 1] - off[l as usize]) as u32;
        }
        Triangles {
            off,
            nbr,
            deg,
            rank: Vec::new(),
            inbox: Vec::new(),
            mine_off: Vec::new(),
            mine: Vec::new(),
            all_off: Vec::new(),
            all: Vec::new(),
            triangles: 0,
            mark: vec![0; (shard.partition().num_vertices() as usize).div_ceil(64)],
        }
    }

    /// True when `a ≺ b` in the degree order (global ids of vertices with edges).
    #[inline]
    fn before(&self, a: u32, b: u32) -> bool {
        self.rank[a as usize] < self.rank[b as usize]
    }

    /// Ranks every vertex with edges by `(degree, id)` (a counting sort by
    /// degree: vertices visited by id land in their degree's bucket in id order).
    fn rank_by_degree(&mut self) {
        let top = self.deg.iter().copied().max().unwrap_or(0) as usize;
        let mut next = vec![0u32; top + 1];
        for &d in &self.deg {
            next[d as usize] += 1;
        }
        let mut total = 0;
        for (d, c) in next.iter_mut().enumerate() {
            let here = *c;
            // Vertices without edges get no rank: ranks start after them.
            *c = if d == 0 { 0 } else { total };
            if d > 0 {
                total += here;
            }
        }
        let mut rank = vec![NO_RANK; self.deg.len()];
        for (v, &d) in self.deg.iter().enumerate() {
            if d > 0 {
                rank[v] = next[d as usize];
                next[d as usize] += 1;
            }
        }
        self.rank = rank;
        self.deg = Vec::new();
    }

    /// The out-list of the vertex of rank `r` (phase 4).
    #[inline]
    fn out_of(&self, r: u32) -> &[u32] {
        &self.all[self.all_off[r as usize]..self.all_off[r as usize + 1]]
    }
}

/// Number of common elements of two sorted lists without repeats (a merge).
#[inline]
fn common(a: &[u32], b: &[u32]) -> u64 {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        n += u64::from(x == y);
        i += usize::from(x <= y);
        j += usize::from(y <= x);
    }
    n
}

/// Triangles of `graph` (as a simple graph), from a fiber of the runtime that
/// built it.
///
/// Memory per trustee, beyond the shard: its sorted neighbour sets, one
/// degree per vertex of the graph, one offset per vertex of the graph, and the
/// out-lists it reads (its own and its neighbours').
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
///         tc::tc(&g).unwrap().triangles
///     })
/// });
/// assert_eq!(counts, [10, 10]);
/// ```
pub fn tc(graph: &ShardedGraph) -> Result<TcOutput, KernelError> {
    graph.check_global_ids("tc")?;
    if graph.is_directed() {
        return Err(KernelError::Config(
            "triangles are counted on undirected graphs (as GAPBS's tc): build the graph undirected".into(),
        ));
    }
    let t0 = Instant::now();
    let per = run(graph, Triangles::new, |k| {
        let (me, trustees) = (k.me(), k.num_trustees());
        // 2. Degrees to every other trustee (addressed to its first vertex).
        k.for_each_vertex(move |l, v| {
            let g = l.global(v) as u32;
            let d = l.state().deg[g as usize];
            if d == 0 {
                return;
            }
            for t in (0..trustees).filter(|&t| t != me) {
                let p = *l.partition();
                if p.local_count(t) > 0 {
                    l.send(p.global(t, 0) as u32, [g, d]);
                }
            }
        });
        k.sync();
        k.with(|l| {
            let s = l.state();
            for [g, d] in std::mem::take(&mut s.inbox) {
                s.deg[g as usize] = d;
            }
            s.rank_by_degree();
            // 3a. Orient: keep the neighbours that come after the vertex, as
            // sorted ranks.
            let n = s.off.len() - 1;
            let mut mine_off = Vec::with_capacity(n + 1);
            let mut mine = Vec::with_capacity(s.nbr.len() / 2);
            mine_off.push(0);
            for v in 0..n {
                let g = l.global(v as u32) as u32;
                let s = l.state();
                let start = mine.len();
                for &u in &s.nbr[s.off[v]..s.off[v + 1]] {
                    if s.before(g, u) {
                        mine.push(s.rank[u as usize]);
                    }
                }
                mine[start..].sort_unstable();
                mine_off.push(mine.len());
            }
            let s = l.state();
            s.mine_off = mine_off;
            s.mine = mine;
        });
        // Nobody sends out-lists before every trustee has read its degrees.
        k.sync();
        // 3b. Each out-list to the other trustees that own an earlier neighbour.
        k.for_each_vertex(move |l, v| {
            let g = l.global(v) as u32;
            let p = *l.partition();
            let s = l.state();
            let (a, b) = (s.mine_off[v as usize], s.mine_off[v as usize + 1]);
            if a == b {
                return;
            }
            let mut to: Vec<u32> = s.nbr[s.off[v as usize]..s.off[v as usize + 1]]
                .iter()
                .filter(|&&u| s.before(u, g))
                .map(|&u| p.trustee_of(u64::from(u)))
                .filter(|&t| t != me)
                .collect();
            to.sort_unstable();
            to.dedup();
            let r = s.rank[g as usize];
            for t in to {
                let dest = p.global(t, 0) as u32;
                for i in a..b {
                    let w = l.state().mine[i];
                    l.send(dest, [r, w]);
                }
            }
        });
        k.sync();
        // 3c. One table of out-lists by rank: own and received.
        let oriented = k.with(|l| {
            let n = l.partition().num_vertices() as usize;
            let globals: Vec<u32> = (0..l.num_local()).map(|v| l.global(v) as u32).collect();
            let s = l.state();
            // Vertices without edges have no rank and an empty list.
            let locals: Vec<(usize, u32)> = globals
                .iter()
                .enumerate()
                .map(|(v, &g)| (v, s.rank[g as usize]))
                .filter(|&(_, r)| r != NO_RANK)
                .collect();
            let mut count = vec_or_exit(n + 1, 0usize, "tc list offsets");
            for &(v, r) in &locals {
                count[r as usize] = s.mine_off[v + 1] - s.mine_off[v];
            }
            for &[g, _] in &s.inbox {
                count[g as usize] += 1;
            }
            let mut total = 0;
            for c in count.iter_mut() {
                let here = *c;
                *c = total;
                total += here;
            }
            let mut fill = count.clone();
            let mut all = vec_or_exit(total, 0u32, "tc out-lists");
            for &(v, r) in &locals {
                let list = &s.mine[s.mine_off[v]..s.mine_off[v + 1]];
                let at = fill[r as usize];
                all[at..at + list.len()].copy_from_slice(list);
                fill[r as usize] += list.len();
            }
            for &[g, w] in &s.inbox {
                all[fill[g as usize]] = w;
                fill[g as usize] += 1;
            }
            // Received lists arrive in order from one sender, but batches may
            // be applied out of order: sort each (cheap when already sorted).
            for r in 0..n {
                all[count[r]..count[r + 1]].sort_unstable();
            }
            let oriented = s.mine.len() as u64;
            s.all_off = count;
            s.all = all;
            s.inbox = Vec::new();
            s.mine = Vec::new();
            s.mine_off = Vec::new();
            s.nbr = Vec::new();
            s.off = Vec::new();
            oriented
        });
        // 4. Count: for every local a, mark out(a), then look every element of
        // out(b) up in the marks, for every b in out(a).
        let t = Instant::now();
        k.for_each_vertex(|l, v| {
            let g = l.global(v) as u32;
            let s = l.state();
            let r = s.rank[g as usize];
            if r == NO_RANK {
                return;
            }
            let (lo, hi) = (s.all_off[r as usize], s.all_off[r as usize + 1]);
            for &w in &s.all[lo..hi] {
                s.mark[(w >> 6) as usize] |= 1 << (w & 63);
            }
            let mut found = 0u64;
            for &b in &s.all[lo..hi] {
                for &w in s.out_of(b) {
                    found += (s.mark[(w >> 6) as usize] >> (w & 63)) & 1;
                }
            }
            for &w in &s.all[lo..hi] {
                s.mark[(w >> 6) as usize] = 0;
            }
            s.triangles += found;
        });
        let local = k.with(|l| l.state().triangles);
        let count_time = t.elapsed();
        let triangles = k.sum(local);
        let oriented = k.sum(oriented);
        (
            triangles,
            oriented,
            k.stats().sent,
            count_time.as_nanos() as u64,
        )
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

/// The simple graph of `list` as sorted neighbour sets: offsets by vertex and
/// entries (self-loops and repeated edges dropped).
fn simple_graph(list: &EdgeList<'_>) -> Result<(Vec<usize>, Vec<u32>), KernelError> {
    let g = build_whole(list)?;
    Ok(graph_kernel::adjacency::simple_lists(
        (0..g.num_local_vertices()).map(|v| g.adjacency(v).0),
        g.num_entries() as usize,
    ))
}

/// Sequential reference: the same ordered count on one process (degree
/// order, out-lists sorted by id, a merge per oriented edge).
///
/// ```
/// use graph_core::{EdgeList, PackedEdge};
/// // A square with one diagonal: two triangles.
/// let e = |u, v| PackedEdge::new(u, v, 1.0);
/// let list = EdgeList::from_edges(4, vec![e(0, 1), e(1, 2), e(2, 3), e(3, 0), e(0, 2)]).unwrap();
/// assert_eq!(tc::tc_sequential(&list).unwrap(), 2);
/// ```
pub fn tc_sequential(list: &EdgeList<'_>) -> Result<u64, KernelError> {
    let (off, nbr) = simple_graph(list)?;
    let n = off.len() - 1;
    let key = |v: u32| (off[v as usize + 1] - off[v as usize], v);
    let mut out_off = vec![0usize];
    let mut out = Vec::with_capacity(nbr.len() / 2);
    for v in 0..n {
        out.extend(
            nbr[off[v]..off[v + 1]]
                .iter()
                .filter(|&&u| key(v as u32) < key(u)),
        );
        out_off.push(out.len());
    }
    let list_of = |v: u32| &out[out_off[v as usize]..out_off[v as usize + 1]];
    Ok((0..n as u32)
        .map(|a| {
            let la = list_of(a);
            la.iter().map(|&b| common(la, list_of(b))).sum::<u64>()
        })
        .sum())
}

/// Checks a triangle count of `list` without trusting its producer: counts
/// the triangles again by another method (orientation by degree, then for each
/// vertex its out-neighbours marked in a bitmap and looked up from each
/// out-neighbour's out-list) and compares. Returns the count, or what is wrong.
///
/// ```
/// use graph_core::{EdgeList, PackedEdge};
/// let e = |u, v| PackedEdge::new(u, v, 1.0);
/// let list = EdgeList::from_edges(3, vec![e(0, 1), e(1, 2), e(0, 2), e(0, 1)]).unwrap();
/// assert_eq!(tc::verify_tc(&list, 1), Ok(1));
/// assert!(tc::verify_tc(&list, 2).unwrap_err().contains("has 1"));
/// ```
pub fn verify_tc(list: &EdgeList<'_>, triangles: u64) -> Result<u64, String> {
    let (off, nbr) = simple_graph(list).map_err(|e| e.to_string())?;
    let n = off.len() - 1;
    let deg = |v: usize| off[v + 1] - off[v];
    let higher = |v: usize, u: usize| deg(u) > deg(v) || (deg(u) == deg(v) && u > v);
    // Out-lists: each vertex's neighbours of higher degree (ties: higher id).
    let mut up: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (v, list) in up.iter_mut().enumerate() {
        list.extend(
            nbr[off[v]..off[v + 1]]
                .iter()
                .filter(|&&u| higher(v, u as usize)),
        );
    }
    let mut marked = vec![false; n];
    let mut count = 0u64;
    for a in 0..n {
        for &b in &up[a] {
            marked[b as usize] = true;
        }
        for &b in &up[a] {
            count += up[b as usize]
                .iter()
                .filter(|&&c| marked[c as usize])
                .count() as u64;
        }
        for &b in &up[a] {
            marked[b as usize] = false;
        }
    }
    if count != triangles {
        return Err(format!(
            "{triangles} triangles reported, but the graph (self-loops and repeated edges ignored) has {count}"
        ));
    }
    Ok(count)
}
