//! Betweenness centrality, written only against the [`graph_kernel`] API.
//!
//! # The algorithm: Brandes from a few sources (as GAPBS's `bc`)
//!
//! Exact betweenness sums, over all sources `s`, the *dependency* of `s` on
//! each vertex `v`: the fraction of shortest paths from `s` that pass through
//! `v`. Brandes (2001) computes one source's dependencies in two passes:
//!
//! 1. **forward**: a breadth-first search from `s` that also counts the
//!    shortest paths `σ(v)` from `s` to each vertex (`σ(s) = 1`, and a vertex
//!    at depth `d + 1` adds up the `σ` of its neighbours at depth `d`);
//! 2. **backward**: from the deepest level up, each vertex `u` takes
//!    `δ(u) = Σ σ(u)/σ(v) · (1 + δ(v))` over its *successors* `v` (its
//!    neighbours one level deeper), and adds `δ(u)` to its score.
//!
//! As GAPBS's `bc` does, this runs from a few sources only (an approximation;
//! GAPBS picks random vertices with edges, here the caller passes them —
//! the `gossamer-graph bc` command takes the first 4 Graph500 search roots),
//! adds the source's own dependency to its score too (the backward pass runs
//! down to depth 0, as GAPBS's and its verifier's do), treats the graph as
//! simple (self-loops and repeated edges ignored, as GAPBS's builder
//! removes them), and finally divides every score by the largest one.
//!
//! On a **directed** graph (arcs `u -> v`) the semantics are GAPBS's `bc` on
//! a directed graph: the search follows out-arcs, so `σ(v)` counts the
//! directed shortest paths and the successors of `u` are the heads of its
//! out-arcs one level deeper ([`bc_sequential_as`], [`verify_bc_as`]).
//!
//! # As a kernel
//!
//! Both passes are level-synchronous sweeps with sum-combined `f64` updates
//! ([`graph_kernel::Program::COMBINE`]), so at most one record per remote
//! vertex and batch travels:
//!
//! - forward, level `d`: each frontier vertex sends its `σ` to all its
//!   neighbours; a receiver not reached yet takes depth `d + 1`, one at depth
//!   `d + 1` adds the share, any other ignores it. The trustee keeps the order
//!   in which its vertices were reached, level by level.
//! - backward, level `d` (deepest first): each vertex `v` at depth `d` sends
//!   `(1 + δ(v)) / σ(v)` to all its neighbours, each receiver adds it up;
//!   then every vertex `u` at depth `d - 1` sets `δ(u) = σ(u) · sum`.
//!   Neighbours at depth `d` or `d + 1` receive shares too, but their `δ` is
//!   already final, so the receiver needs no test.
//!
//! On a directed graph the forward sweep sends along the rows, which hold
//! the out-arcs. The backward sweep must reach `v`'s *predecessors*, the
//! tails of the arcs `u -> v`, so there `v` sends along the shard's in-edge
//! index ([`Shard::in_neighbors`], repeats dropped) instead: the same push
//! with the other rows, no pull and no new message. A tail `u` of an arc into
//! `v` lies at depth `d - 1` or deeper (or was not reached), so again only
//! the receivers at depth `d - 1` use the share and the others need no test.
//! An undirected graph needs no second set of rows: both sweeps use the
//! same neighbour lists and no in-edge rows are built. A directed graph's
//! trustee holds both (4 more bytes per arc).
//!
//! The receiver of a forward update must know the depth being filled, which
//! changes between supersteps; a trustee raises it only after every update of
//! the level was applied everywhere, and the next sweep starts only after
//! every trustee raised it (one [`graph_kernel::Kernel::sync`] per level).
//!
//! ```
//! use graph_core::sharded::ShardedGraph;
//! use graph_core::{EdgeList, PackedEdge, PartitionKind};
//! // A path 0-1-2-3-4 and a pendant vertex 5 on 2: from source 0, vertex 2
//! // lies on the paths to 3, 4 and 5.
//! let e = |u, v| PackedEdge::new(u, v, 1.0);
//! let list = EdgeList::from_edges(6, vec![e(0, 1), e(1, 2), e(2, 3), e(3, 4), e(2, 5)]).unwrap();
//! let l2 = list.clone();
//! let out = gossamer::main(2, move || {
//!     let g = ShardedGraph::build(&l2, PartitionKind::Cyclic).unwrap();
//!     bc::bc(&g, &[0]).unwrap()
//! });
//! // Raw dependencies: 0 -> 5 (its own), 1 -> 4, 2 -> 3, 3 -> 1; divided by 5.
//! assert_eq!(out.scores, [1.0, 0.8, 0.6, 0.2, 0.0, 0.0]);
//! assert_eq!(out.levels, [5]);
//! let seq = bc::bc_sequential(&list, &[0]).unwrap();
//! assert_eq!(seq, out.scores);
//! assert!(bc::verify_bc(&list, &[0], &out.scores).is_ok());
//! ```

use std::time::{Duration, Instant};

use graph_core::alloc::vec_or_exit;
use graph_core::sharded::{KernelError, ShardedGraph};
use graph_core::{build_trustees_with, EdgeList, Partition, Shard};
use graph_kernel::adjacency::simple_lists;
use graph_kernel::{gather, run, Program};

/// Most sources one run takes (the 64 search roots of Graph500).
pub const MAX_SOURCES: usize = 64;

/// Largest difference a correct score may show against the sequential
/// reference (scores are normalised to at most 1). The kernel adds the path
/// counts and dependency shares of a vertex in the order they arrive, which
/// depends on the partition and the number of trustees, and `f64` addition is
/// not associative: results differ from the reference in the last few bits
/// (measured: at most 9e-16 on the Graph500 SCALE 10 and 12 graphs, 1 to 3
/// trustees). A wrong
/// path count or a missed successor changes a score by far more than 1e-9.
pub const TOLERANCE: f64 = 1e-9;

/// Depth of a vertex not reached (yet) from the current source.
const UNSEEN: u32 = u32::MAX;

/// Result of one run, indexed by global vertex id.
///
/// ```
/// # use graph_core::{EdgeList, PackedEdge};
/// let list = EdgeList::from_edges(3, vec![PackedEdge::new(0, 1, 1.0), PackedEdge::new(1, 2, 1.0)]).unwrap();
/// let out = gossamer::main(1, move || {
///     let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
///     bc::bc(&g, &[0, 2]).unwrap()
/// });
/// // Raw sums: from 0, vertex 0 gets 2 and vertex 1 gets 1; from 2, vertex 2
/// // gets 2 and vertex 1 gets 1 again: all three end at 2, so all at 1.
/// assert_eq!(out.scores, [1.0, 1.0, 1.0]);
/// assert_eq!((out.sources, out.levels), (vec![0, 2], vec![3, 3]));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct BcOutput {
    /// Normalised score of every vertex (the largest is 1, unless all are 0).
    pub scores: Vec<f64>,
    /// The sources, in the order they ran.
    pub sources: Vec<u64>,
    /// Number of BFS levels (depths 0..levels) reached from each source.
    pub levels: Vec<u32>,
    /// Records sent between trustees (after combining), all sources.
    pub records: u64,
    /// Time of the whole kernel: neighbour sets, both passes for every
    /// source, normalisation (excludes building the shards and gathering).
    pub kernel_time: Duration,
}

/// The per-trustee state.
struct Brandes {
    /// This trustee's neighbour lists (global ids) without repeats, by local
    /// index: on a directed graph the out-arcs' heads (the forward pass).
    off: Vec<usize>,
    nbr: Vec<u32>,
    /// On a directed graph, the in-arcs' tails without repeats (the backward
    /// pass); empty on an undirected one, whose backward pass uses `nbr`.
    in_off: Vec<usize>,
    in_nbr: Vec<u32>,
    /// Whether the backward pass sends along `in_nbr` (directed) or `nbr`.
    directed: bool,
    depth: Vec<u32>,
    /// Shortest paths from the source.
    sigma: Vec<f64>,
    /// Dependency of the source on the vertex.
    delta: Vec<f64>,
    /// Backward shares received.
    acc: Vec<f64>,
    score: Vec<f64>,
    /// Local vertices in the order reached; level `d` is `order[starts[d]..starts[d + 1]]`.
    order: Vec<u32>,
    starts: Vec<usize>,
    /// The depth a forward update gives (or adds to).
    level: u32,
    backward: bool,
}

impl Program for Brandes {
    type Msg = f64;
    const COMBINE: bool = true;

    #[inline]
    fn receive(&mut self, v: u32, x: f64) -> bool {
        let v = v as usize;
        if self.backward {
            self.acc[v] += x;
            return false;
        }
        let d = self.depth[v];
        if d == UNSEEN {
            self.depth[v] = self.level;
            self.sigma[v] = x;
            true
        } else {
            if d == self.level {
                self.sigma[v] += x;
            }
            false
        }
    }

    #[inline]
    fn combine(acc: &mut f64, x: f64) {
        *acc += x;
    }
}

impl Brandes {
    fn new(shard: &Shard) -> Self {
        let n = shard.num_local_vertices() as usize;
        let entries = shard.num_entries() as usize;
        let (off, nbr) = simple_lists((0..n as u64).map(|v| shard.adjacency(v).0), entries);
        let (in_off, in_nbr) = if shard.is_directed() {
            simple_lists((0..n as u64).map(|v| shard.in_neighbors(v)), entries)
        } else {
            (Vec::new(), Vec::new())
        };
        Brandes {
            off,
            nbr,
            in_off,
            in_nbr,
            directed: shard.is_directed(),
            depth: vec_or_exit(n, UNSEEN, "bc depths"),
            sigma: vec_or_exit(n, 0.0, "bc path counts"),
            delta: vec_or_exit(n, 0.0, "bc dependencies"),
            acc: vec_or_exit(n, 0.0, "bc dependency sums"),
            score: vec_or_exit(n, 0.0, "bc scores"),
            order: Vec::new(),
            starts: Vec::new(),
            level: 0,
            backward: false,
        }
    }

    /// Sends `x` to every neighbour of local vertex `v` (on a directed
    /// graph: every head of its out-arcs).
    #[inline]
    fn spread(l: &mut graph_kernel::Local<'_, Self>, v: u32, x: f64) {
        Self::send_row(l, v, x, |s| (&s.off, &s.nbr));
    }

    /// Sends `x` to every vertex that may precede local vertex `v` on a
    /// shortest path: its neighbours, or on a directed graph the tails of its
    /// in-arcs.
    #[inline]
    fn spread_back(l: &mut graph_kernel::Local<'_, Self>, v: u32, x: f64) {
        if l.state().directed {
            Self::send_row(l, v, x, |s| (&s.in_off, &s.in_nbr));
        } else {
            Self::spread(l, v, x);
        }
    }

    /// Sends `x` to every vertex of local vertex `v`'s row in the row set
    /// `rows` picks (offsets, neighbours).
    #[inline(always)]
    fn send_row(
        l: &mut graph_kernel::Local<'_, Self>,
        v: u32,
        x: f64,
        rows: impl Fn(&Self) -> (&[usize], &[u32]),
    ) {
        let (a, b) = {
            let (off, _) = rows(l.state());
            (off[v as usize], off[v as usize + 1])
        };
        for i in a..b {
            let u = rows(l.state()).1[i];
            l.send(u, x);
        }
    }
}

/// Checks the sources: 1 to [`MAX_SOURCES`] vertices of the graph.
fn check_sources(sources: &[u64], n: u64) -> Result<(), KernelError> {
    if sources.is_empty() || sources.len() > MAX_SOURCES {
        return Err(KernelError::Config(format!(
            "{} sources: betweenness runs from 1 to {MAX_SOURCES} sources (GAPBS's bc uses 4)",
            sources.len()
        )));
    }
    if let Some(&s) = sources.iter().find(|&&s| s >= n) {
        return Err(KernelError::RootOutOfRange {
            root: s,
            vertices: n,
        });
    }
    Ok(())
}

/// Betweenness centrality of `graph` from `sources` (1 to [`MAX_SOURCES`]
/// vertices; a source may repeat), from a fiber of the runtime that built it.
/// On a directed graph ([`ShardedGraph::is_directed`]) the paths follow the
/// arcs (see the module docs).
/// Returns [`KernelError::Config`] or [`KernelError::RootOutOfRange`] for bad
/// sources.
///
/// ```
/// use graph_core::sharded::{KernelError, ShardedGraph};
/// use graph_core::{EdgeList, PackedEdge, PartitionKind};
/// // A star: the centre carries every path between two leaves.
/// let list = EdgeList::from_edges(5, (1..5).map(|v| PackedEdge::new(0, v, 1.0)).collect()).unwrap();
/// let (out, none, far) = gossamer::main(3, move || {
///     let g = ShardedGraph::build(&list, PartitionKind::Block).unwrap();
///     (bc::bc(&g, &[1, 2]).unwrap(), bc::bc(&g, &[]), bc::bc(&g, &[9]))
/// });
/// assert_eq!(out.scores[0], 1.0);
/// assert!(out.scores[3] == 0.0 && out.scores[4] == 0.0);
/// assert!(matches!(none, Err(KernelError::Config(_))));
/// assert!(matches!(far, Err(KernelError::RootOutOfRange { root: 9, .. })));
/// ```
pub fn bc(graph: &ShardedGraph, sources: &[u64]) -> Result<BcOutput, KernelError> {
    check_sources(sources, graph.num_vertices())?;
    graph.check_global_ids("bc")?;
    let count = sources.len();
    let mut roots = [0u64; MAX_SOURCES];
    roots[..count].copy_from_slice(sources);
    let t0 = Instant::now();
    let per = run(graph, Brandes::new, move |k| {
        let mut levels = vec![0u32; count];
        for (i, &root) in roots[..count].iter().enumerate() {
            // Forward: depths, path counts, the order of arrival.
            k.with(move |l| {
                let mine = l.local_of(root);
                let s = l.state();
                s.depth.fill(UNSEEN);
                s.sigma.fill(0.0);
                s.delta.fill(0.0);
                s.acc.fill(0.0);
                s.order.clear();
                s.starts.clear();
                s.starts.push(0);
                s.level = 1;
                s.backward = false;
                if let Some(r) = mine {
                    s.depth[r as usize] = 0;
                    s.sigma[r as usize] = 1.0;
                    l.activate(r);
                }
            });
            let mut depth = 0u32;
            while k.end_superstep() > 0 {
                k.with(|l| {
                    let reached: Vec<u32> = l.frontier().iter().collect();
                    let s = l.state();
                    s.order.extend_from_slice(&reached);
                    s.starts.push(s.order.len());
                });
                k.for_each_active(|l, v| {
                    let x = l.state().sigma[v as usize];
                    Brandes::spread(l, v, x);
                });
                // Every vertex at depth + 1 has its whole path count before
                // any trustee moves on to the next depth.
                k.sync();
                k.with(move |l| l.state().level = depth + 2);
                depth += 1;
            }
            levels[i] = depth;
            // Backward: dependencies from the deepest level up.
            k.with(|l| l.state().backward = true);
            for d in (1..depth as usize).rev() {
                k.with(move |l| {
                    let s = l.state();
                    let level: Vec<u32> = s.order[s.starts[d]..s.starts[d + 1]].to_vec();
                    for v in level {
                        l.activate(v);
                    }
                });
                k.end_superstep();
                k.for_each_active(|l, v| {
                    let s = l.state();
                    let x = (1.0 + s.delta[v as usize]) / s.sigma[v as usize];
                    Brandes::spread_back(l, v, x);
                });
                k.sync();
                k.with(move |l| {
                    let s = l.state();
                    for &u in &s.order[s.starts[d - 1]..s.starts[d]] {
                        let u = u as usize;
                        s.delta[u] = s.sigma[u] * s.acc[u];
                        s.score[u] += s.delta[u];
                    }
                });
            }
            // The next source's reset runs after this trustee's last backward
            // update was applied (the `sync` above), and its first forward
            // update leaves only after every trustee reset (`end_superstep`).
        }
        // Normalise by the largest score (non-negative, so its bits order it).
        let local = k.with(|l| l.state().score.iter().copied().fold(0.0, f64::max));
        let biggest = f64::from_bits(k.max(local.to_bits()));
        if biggest > 0.0 {
            k.with(move |l| l.state().score.iter_mut().for_each(|x| *x /= biggest));
        }
        (levels, k.stats().sent)
    });
    let kernel_time = t0.elapsed();
    let scores = gather(graph, 0.0, |s: &Brandes| s.score.clone())?;
    Ok(BcOutput {
        scores,
        sources: sources.to_vec(),
        levels: per[0].0.clone(),
        records: per.iter().map(|p| p.1).sum(),
        kernel_time,
    })
}

/// Sequential reference, as GAPBS's verifier computes it: for each source a
/// queue-based BFS counting paths, then the vertices from the deepest level
/// up, each adding `σ(u)/σ(v) · (1 + δ(v))` over its successors `v`; the sums
/// of all sources divided by the largest. On the simple undirected graph of
/// `list` ([`bc_sequential_as`] reads the records as arcs).
///
/// ```
/// use graph_core::{EdgeList, PackedEdge};
/// // A 4-cycle: from 0, vertices 1 and 3 each carry half of the paths to 2.
/// let e = |u, v| PackedEdge::new(u, v, 1.0);
/// let list = EdgeList::from_edges(4, vec![e(0, 1), e(1, 2), e(2, 3), e(3, 0)]).unwrap();
/// assert_eq!(bc::bc_sequential(&list, &[0]).unwrap(), [1.0, 1.0 / 6.0, 0.0, 1.0 / 6.0]);
/// ```
pub fn bc_sequential(list: &EdgeList<'_>, sources: &[u64]) -> Result<Vec<f64>, KernelError> {
    bc_sequential_as(list, false, sources)
}

/// [`bc_sequential`] with the records of `list` read as arcs `u -> v` when
/// `directed`: the search and the successors follow out-arcs, as GAPBS's
/// `bc` and its verifier do on a directed graph (undirected when `false`).
///
/// ```
/// use graph_core::{EdgeList, PackedEdge};
/// // The 4-cycle as arcs 0 -> 1 -> 2 -> 3 -> 0: from 0 the only path to 3
/// // runs through 1 and 2.
/// let e = |u, v| PackedEdge::new(u, v, 1.0);
/// let list = EdgeList::from_edges(4, vec![e(0, 1), e(1, 2), e(2, 3), e(3, 0)]).unwrap();
/// // Raw dependencies: 0 -> 3, 1 -> 2, 2 -> 1, 3 -> 0.
/// assert_eq!(bc::bc_sequential_as(&list, true, &[0]).unwrap(), [1.0, 2.0 / 3.0, 1.0 / 3.0, 0.0]);
/// ```
pub fn bc_sequential_as(
    list: &EdgeList<'_>,
    directed: bool,
    sources: &[u64],
) -> Result<Vec<f64>, KernelError> {
    check_sources(sources, list.num_vertices())?;
    let whole = Partition::single(list.num_vertices());
    let g = build_trustees_with(list, &whole, 0..1, directed)?.remove(0);
    let n = list.num_vertices() as usize;
    let nbrs: Vec<Vec<u32>> = (0..n as u64)
        .map(|v| {
            let mut a = g.adjacency(v).0.to_vec();
            a.sort_unstable();
            a.dedup();
            a
        })
        .collect();
    let mut scores = vec![0.0f64; n];
    for &s in sources {
        let mut depth = vec![UNSEEN; n];
        let mut sigma = vec![0.0f64; n];
        let mut queue = vec![s as u32];
        depth[s as usize] = 0;
        sigma[s as usize] = 1.0;
        let mut head = 0;
        while head < queue.len() {
            let u = queue[head] as usize;
            head += 1;
            for &v in &nbrs[u] {
                let v = v as usize;
                if depth[v] == UNSEEN {
                    depth[v] = depth[u] + 1;
                    queue.push(v as u32);
                }
                if depth[v] == depth[u] + 1 {
                    sigma[v] += sigma[u];
                }
            }
        }
        // The queue holds the reached vertices by non-decreasing depth.
        let mut delta = vec![0.0f64; n];
        for &u in queue.iter().rev() {
            let u = u as usize;
            let mut d = 0.0;
            for &v in &nbrs[u] {
                let v = v as usize;
                if depth[v] == depth[u] + 1 {
                    d += sigma[u] / sigma[v] * (1.0 + delta[v]);
                }
            }
            delta[u] = d;
            scores[u] += d;
        }
    }
    let biggest = scores.iter().copied().fold(0.0, f64::max);
    if biggest > 0.0 {
        scores.iter_mut().for_each(|x| *x /= biggest);
    }
    Ok(scores)
}

/// Checks betweenness scores of `list` from `sources` without trusting their
/// producer: one score per vertex, all in `[0, 1]`, the largest equal to the
/// reference's (exactly 1, or 0 when no source has an edge); then compares every score with
/// the sequential reference ([`bc_sequential`]) within [`TOLERANCE`].
/// Returns the largest difference, or what is wrong.
///
/// ```
/// use graph_core::{EdgeList, PackedEdge};
/// let e = |u, v| PackedEdge::new(u, v, 1.0);
/// let list = EdgeList::from_edges(4, vec![e(0, 1), e(1, 2)]).unwrap();
/// assert_eq!(bc::verify_bc(&list, &[0], &[1.0, 0.5, 0.0, 0.0]), Ok(0.0));
/// assert!(bc::verify_bc(&list, &[0], &[1.0, 0.4, 0.0, 0.0]).unwrap_err().contains("vertex 1"));
/// assert!(bc::verify_bc(&list, &[0], &[0.9, 0.5, 0.0, 0.0]).unwrap_err().contains("largest"));
/// ```
pub fn verify_bc(list: &EdgeList<'_>, sources: &[u64], scores: &[f64]) -> Result<f64, String> {
    verify_bc_as(list, false, sources, scores)
}

/// [`verify_bc`] with the records of `list` read as arcs `u -> v` when
/// `directed` (the reference is then [`bc_sequential_as`] along out-arcs).
///
/// ```
/// use graph_core::{EdgeList, PackedEdge};
/// let e = |u, v| PackedEdge::new(u, v, 1.0);
/// // 0 -> 1 -> 2 and 2 -> 0: from 1, vertex 2 carries the path to 0.
/// let list = EdgeList::from_edges(3, vec![e(0, 1), e(1, 2), e(2, 0)]).unwrap();
/// assert_eq!(bc::verify_bc_as(&list, true, &[1], &[0.0, 1.0, 0.5]), Ok(0.0));
/// // The undirected triangle's scores are not the directed graph's.
/// let undirected = bc::bc_sequential(&list, &[1]).unwrap();
/// assert!(bc::verify_bc_as(&list, true, &[1], &undirected).is_err());
/// ```
pub fn verify_bc_as(
    list: &EdgeList<'_>,
    directed: bool,
    sources: &[u64],
    scores: &[f64],
) -> Result<f64, String> {
    let n = list.num_vertices() as usize;
    if scores.len() != n {
        return Err(format!(
            "{} scores for a graph of {n} vertices",
            scores.len()
        ));
    }
    if let Some(v) = scores.iter().position(|x| !(0.0..=1.0).contains(x)) {
        return Err(format!(
            "vertex {v} has score {}: normalised scores lie in [0, 1]",
            scores[v]
        ));
    }
    let biggest = scores.iter().copied().fold(0.0, f64::max);
    let want = bc_sequential_as(list, directed, sources).map_err(|e| e.to_string())?;
    let want_biggest = want.iter().copied().fold(0.0, f64::max);
    if biggest != want_biggest {
        return Err(format!(
            "the largest score is {biggest}, expected {want_biggest} (scores are divided by the largest)"
        ));
    }
    let mut worst = 0.0f64;
    for (v, (&got, &w)) in scores.iter().zip(&want).enumerate() {
        let diff = (got - w).abs();
        if diff > TOLERANCE {
            return Err(format!(
                "vertex {v} has score {got}, the sequential reference {w} (difference {diff:e} > {TOLERANCE:e})"
            ));
        }
        worst = worst.max(diff);
    }
    Ok(worst)
}
