//! Betweenness centrality in graph-kernel's one shape.
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
//! # In graph-kernel's one shape
//!
//! Each trustee's [`Program`] state holds `σ` and score of its vertices, by
//! position in graph-kernel's renumbered adjacency, whose rows are already
//! the simple graph (out-arcs on a directed graph), plain or compressed
//! ([`BcConfig::rows`]); their depths are written straight into the
//! replica of depths below (the carry word of `σ` above each depth, 8 B a
//! vertex in all). Both passes read only the rows:
//!
//! - **forward** (push), one superstep per level: each frontier vertex
//!   sends its `σ` along its row, sum-combined ([`Program::COMBINE`]: at
//!   most one record per remote vertex and batch travels); a receiver not
//!   reached yet takes the level being filled (advanced in
//!   [`Program::next_superstep`], once every message of the level before
//!   was applied everywhere) and joins the next frontier, one reached in
//!   this level adds the share, any other ignores it. A trustee sends to a
//!   remote vertex only in the first level it sends to it at all: by the
//!   next level that vertex is reached, so later records would be ignored
//!   (this halves the records on Graph500 graphs). Each trustee lists its
//!   vertices in the order they were reached, level by level. A `σ` is a
//!   [`Paths`] (an `f64` with a carry word): on a grid of a thousand
//!   levels the counts pass `f64`'s range (2^1024), where a plain `f64`
//!   gave NaN scores; where they fit, its sums are the `f64` sums.
//! - **backward** (pull, as GAPBS's), one level per round, deepest first:
//!   every vertex `v` of the level sums the shares `(1 + δ(w)) / σ(w)` of
//!   its successors `w` (row entries one level deeper), takes
//!   `δ(v) = σ(v) · sum`, adds it to its score and writes its own share.
//!   Depths and shares are [`Replica`]s over flat ids, one per process,
//!   so that a vertex reads any other's;
//!   [`Kernel::publish`](graph_kernel::Kernel::publish) copies a trustee's
//!   part to the other processes of a rack job (depths once per source,
//!   shares once per level), and a [`sync`](graph_kernel::Kernel::sync)
//!   orders every write of a level before the next level's reads. Even
//!   and odd levels write two arrays: a trustee of a process with several
//!   gets its own copy of another process's part, and when one copy lands
//!   a round later than its twin it must not overwrite the shares of the
//!   next level (it overwrites those of the level two before, read by then).
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
//!     bc::bc(&g, &[0], &bc::BcConfig::default()).unwrap()
//! });
//! // Raw dependencies: 0 -> 5 (its own), 1 -> 4, 2 -> 3, 3 -> 1; divided by 5.
//! assert_eq!(out.scores, [1.0, 0.8, 0.6, 0.2, 0.0, 0.0]);
//! assert_eq!(out.levels, [5]);
//! let seq = bc::bc_sequential(&list, &[0]).unwrap();
//! assert_eq!(seq, out.scores);
//! assert!(bc::verify_bc(&list, &[0], &out.scores).is_ok());
//! ```

use std::sync::Arc;
use std::time::{Duration, Instant};

use gossamer::WorkerId;
use graph_core::alloc::vec_or_exit;
use graph_core::sharded::{KernelError, ShardedGraph};
use graph_core::EdgeList;
use graph_kernel::paths::{paths_add, paths_scale, Paths};
use graph_kernel::{gather, run, Local, Prepare, Program, Replica, RowsFormat};

/// Most sources one run takes (the 64 search roots of Graph500).
pub const MAX_SOURCES: usize = 64;

/// Largest difference a correct score may show against the sequential
/// reference (scores are normalised to at most 1). The kernel adds the path
/// counts and dependency shares of a vertex in the order they arrive, which
/// depends on the partition, the number of trustees and the timing of a run,
/// and `f64` addition is not associative: results differ from the reference
/// in the last few bits (measured: at most 9e-16 on the Graph500 SCALE 10 and
/// 12 graphs, 1 to 3 trustees). A wrong path count or a missed successor
/// changes a score by far more than 1e-9.
pub const TOLERANCE: f64 = 1e-9;

/// The name of the even levels' share replica.
const EVEN: &str = "bc.even";

/// Depth of a vertex not reached (yet) from the current source.
const UNSEEN: u32 = u32::MAX;

/// Records a trustee's forward sweep sends before it waits until they are
/// applied ([`graph_kernel::Kernel::set_step_wait`]): about 10 MB of
/// records in flight per trustee. Without a bound the batches waiting for
/// a busy receiver reached 247 MB at SCALE 22 in a slowed (traced) run of
/// 2 trustees, more than the rows; the bound costs about 45 waits per
/// trustee there (47.6 M records over 4 sources).
const STEP_WAIT: u64 = 1 << 19;

/// Settings of one run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BcConfig {
    /// Work of a step of the forward sweeps (vertices + row entries + 4
    /// per record queued for another trustee) before the fiber yields and
    /// full batches leave ([`graph_kernel::Kernel::set_step_work`]; 0
    /// counts as 1). Default [`graph_kernel::STEP_WORK`] (64 Ki): at SCALE
    /// 19, 1 x 2 threads and 2 ranks x 1 thread, 64 Ki and 256 Ki were
    /// alike within the noise of a loaded machine, 16 Ki was up to 20%
    /// slower across ranks.
    pub step_work: usize,
    /// How the rows are stored when this run is the first to prepare the
    /// graph ([`graph_kernel::prepare_with`]; default plain): compressed
    /// rows take the place of the shard's array (less memory, each row
    /// decoded when read); the scores are the same.
    pub rows: RowsFormat,
}

impl Default for BcConfig {
    fn default() -> Self {
        BcConfig {
            step_work: graph_kernel::STEP_WORK,
            rows: RowsFormat::Plain,
        }
    }
}

/// Result of one run, indexed by global vertex id.
///
/// ```
/// # use graph_core::{EdgeList, PackedEdge};
/// let list = EdgeList::from_edges(3, vec![PackedEdge::new(0, 1, 1.0), PackedEdge::new(1, 2, 1.0)]).unwrap();
/// let out = gossamer::main(1, move || {
///     let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
///     bc::bc(&g, &[0, 2], &Default::default()).unwrap()
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
    /// Time of the whole kernel: both passes for every source and the
    /// normalisation (excludes preparing the adjacency once per graph and
    /// gathering the scores).
    pub kernel_time: Duration,
}

/// One trustee's state, by position.
struct Brandes {
    /// Flat id of position 0.
    lo: u32,
    score: Vec<f64>,
    /// Own vertices in the order reached; level `d` is `order[starts[d]..starts[d + 1]]`.
    order: Vec<u32>,
    starts: Vec<usize>,
    /// The depth a forward message gives (or adds to).
    level: u32,
    /// Bitmaps over flat ids: the vertices this trustee sent `σ` to in an
    /// earlier level (reached by now: it need not send them again) and in
    /// this one.
    sent: Vec<u64>,
    sending: Vec<u64>,
    /// Bitmaps over positions: the own vertices reached in an earlier
    /// level, and in the level being filled.
    reached: [Vec<u64>; 2],
    /// Every vertex's depth (UNSEEN until reached; written as it is
    /// reached) and above it the carry word of its `σ`; in `shares[d % 2]`
    /// (`f64` bits) its `σ` (shortest paths from the source) once reached
    /// at depth `d`, and once its level is done backward its share
    /// `(1 + δ) / σ` instead (read only after that, by depth), by flat id
    /// (one copy per process; see the module docs for the two; in a
    /// job of one process both are one array: no copy lands late).
    depths: Arc<Replica>,
    shares: [Arc<Replica>; 2],
}

impl Program for Brandes {
    /// `σ` of a vertex one level up.
    type Msg = Paths;
    const COMBINE: bool = true;

    #[inline(always)]
    fn receive(&mut self, v: u32, x: Paths) -> bool {
        let (w, bit, f) = ((v / 64) as usize, 1u64 << (v % 64), (self.lo + v) as usize);
        // Most messages reach a vertex of an earlier level: one bit says so.
        if self.reached[0][w] & bit != 0 {
            return false;
        }
        let (paths, level) = (&self.shares[self.level as usize % 2], u64::from(self.level));
        if self.reached[1][w] & bit == 0 {
            paths.set(f, x[0].to_bits());
            self.depths.set(f, ((x[1] as u64) << 32) | level);
            self.reached[1][w] |= bit;
            self.order.push(v);
            return true;
        }
        // Reached in this level: add to its σ (the carry word rarely moves).
        let word = self.depths.get(f);
        let sum = paths_add([f64::from_bits(paths.get(f)), (word >> 32) as f64], x);
        paths.set(f, sum[0].to_bits());
        if sum[1] != (word >> 32) as f64 {
            self.depths.set(f, ((sum[1] as u64) << 32) | level);
        }
        false
    }

    #[inline]
    fn combine(acc: &mut Paths, x: Paths) {
        *acc = paths_add(*acc, x);
    }

    fn next_superstep(&mut self, _: u32) {
        self.level += 1;
        self.starts.push(self.order.len());
        for (old, new) in self.sent.iter_mut().zip(&mut self.sending) {
            *old |= std::mem::take(new);
        }
        let [seen, fresh] = &mut self.reached;
        for (old, new) in seen.iter_mut().zip(fresh) {
            *old |= std::mem::take(new);
        }
    }
}

/// The backward pass over level `d` on this trustee: each vertex sums the
/// shares of its successors, adds its dependency to its score and writes
/// its own share.
fn backward(l: &mut Local<'_, Brandes>, d: usize) {
    let (rows, adj) = (l.rows(), l.adjacency());
    let s = l.state();
    for &v in &s.order[s.starts[d]..s.starts[d + 1]] {
        let (mut sum, e) = (0.0, s.depths.get(adj.flat(v) as usize) >> 32);
        rows.for_each(v, |w| {
            // The depth, and above it the exponent of the path count.
            let word = s.depths.get(w as usize);
            if word == ((e << 32) | (d as u64 + 1)) {
                sum += f64::from_bits(s.shares[(d + 1) % 2].get(w as usize));
            } else if word as u32 == d as u32 + 1 {
                let share = f64::from_bits(s.shares[(d + 1) % 2].get(w as usize));
                sum += share * paths_scale(e as f64 - (word >> 32) as f64);
            }
        });
        let sigma = f64::from_bits(s.shares[d % 2].get(adj.flat(v) as usize));
        let delta = sigma * sum;
        s.score[v as usize] += delta;
        let share = (1.0 + delta) / sigma;
        s.shares[d % 2].set(adj.flat(v) as usize, share.to_bits());
    }
}

/// Checks the sources: 1 to [`MAX_SOURCES`] vertices of the graph.
fn check_sources(sources: &[u64], n: u64) -> Result<(), KernelError> {
    let rule = format!("betweenness runs from 1 to {MAX_SOURCES} sources (GAPBS's bc uses 4)");
    graph_kernel::roots::check_roots(sources, n, MAX_SOURCES, &rule)
}

/// Betweenness centrality of `graph` from `sources` (1 to [`MAX_SOURCES`]
/// vertices; a source may repeat), from a fiber of the runtime that built it.
/// On a directed graph ([`ShardedGraph::is_directed`]) the paths follow the
/// arcs (see the module docs).
/// Returns [`KernelError::Config`] for bad sources and
/// [`KernelError::RootOutOfRange`] for a source outside the graph.
///
/// ```
/// use graph_core::sharded::{KernelError, ShardedGraph};
/// use graph_core::{EdgeList, PackedEdge, PartitionKind};
/// // A star: the centre carries every path between two leaves.
/// let list = EdgeList::from_edges(5, (1..5).map(|v| PackedEdge::new(0, v, 1.0)).collect()).unwrap();
/// let (out, none, far) = gossamer::main(3, move || {
///     let g = ShardedGraph::build(&list, PartitionKind::Block).unwrap();
///     let cfg = bc::BcConfig::default();
///     (bc::bc(&g, &[1, 2], &cfg).unwrap(), bc::bc(&g, &[], &cfg), bc::bc(&g, &[9], &cfg))
/// });
/// assert_eq!(out.scores[0], 1.0);
/// assert!(out.scores[3] == 0.0 && out.scores[4] == 0.0);
/// assert!(matches!(none, Err(KernelError::Config(_))));
/// assert!(matches!(far, Err(KernelError::RootOutOfRange { root: 9, .. })));
/// ```
pub fn bc(graph: &ShardedGraph, sources: &[u64], cfg: &BcConfig) -> Result<BcOutput, KernelError> {
    check_sources(sources, graph.num_vertices())?;
    let (count, step_work) = (sources.len(), cfg.step_work);
    let mut roots = [0u64; MAX_SOURCES];
    roots[..count].copy_from_slice(sources);
    graph_kernel::prepare_with(graph, Prepare::Rows, cfg.rows);
    let t0 = Instant::now();
    // A new state every run (an earlier run's was released).
    let init = |s: &mut graph_kernel::Setup<'_>, _| {
        let n = s.num_own() as usize;
        // In one process both parities are one array (no late copies).
        let one = (0..gossamer::num_workers()).all(|t| gossamer::is_local_worker(WorkerId(t)));
        let odd = if one { EVEN } else { "bc.odd" };
        Brandes {
            lo: s.adjacency().flat(0),
            score: vec_or_exit(n, 0.0, "bc scores"),
            order: Vec::with_capacity(n),
            starts: Vec::new(),
            level: 0,
            sent: vec_or_exit(s.adjacency().num_flat() as usize / 64, 0, "bc sent bits"),
            sending: vec_or_exit(s.adjacency().num_flat() as usize / 64, 0, "bc sent bits"),
            reached: [0, 1].map(|_| vec_or_exit(n.div_ceil(64), 0, "bc reached bits")),
            depths: Replica::per_vertex(s.adjacency(), "bc.depths"),
            shares: [EVEN, odd].map(|name| Replica::per_vertex(s.adjacency(), name)),
        }
    };
    let per = run(graph, init, move |k| {
        k.set_step_work(step_work);
        k.set_step_wait(STEP_WAIT);
        let mut levels = vec![0u32; count];
        for (i, &root) in roots[..count].iter().enumerate() {
            // Every trustee is done reading the last source's depths
            // before any resets its own.
            k.sync();
            k.with(move |l| {
                let (n, s) = (l.num_own(), l.state());
                (s.lo..s.lo + n).for_each(|f| s.depths.set(f as usize, UNSEEN.into()));
                s.sent.fill(0);
                s.reached.iter_mut().for_each(|r| r.fill(0));
                s.order.clear();
                s.starts.clear();
                s.starts.push(0);
                s.level = 0;
                if let Some(r) = l.position_of(root) {
                    l.receive(r, [1.0, 0.0]);
                }
            });
            // Forward: depths, path counts, the order of arrival.
            while k.end_superstep() > 0 {
                levels[i] += 1;
                k.for_each_active(|l, v| {
                    let (f, s) = (l.flat(v) as usize, l.state());
                    let word = s.depths.get(f);
                    let sigma = f64::from_bits(s.shares[word as u32 as usize % 2].get(f));
                    let x = [sigma, (word >> 32) as f64];
                    l.for_each_target(v, |l, f| {
                        let (w, bit) = ((f / 64) as usize, 1 << (f % 64));
                        match l.own(f) {
                            Some(u) => l.receive(u, x),
                            None if l.state().sent[w] & bit == 0 => {
                                l.state().sending[w] |= bit;
                                l.send_remote(f, x);
                            }
                            None => {}
                        }
                    });
                });
            }
            // Backward: dependencies from the deepest level up, pulled
            // from the successors' shares.
            k.publish(|b: &Brandes| &b.depths);
            for d in (0..levels[i] as usize).rev() {
                k.sync();
                k.with(move |l| backward(l, d));
                k.publish(move |b: &Brandes| &b.shares[d % 2]);
            }
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
    // Only the scores are gathered: the rest goes first.
    graph_kernel::release_states(graph, |b: &mut Brandes| {
        (b.order, b.sent, b.sending, b.reached) = Default::default();
        (b.depths, b.shares) = Default::default();
    });
    Ok(BcOutput {
        scores: gather(graph, 0.0, |s: &Brandes, v| s.score[v as usize])?,
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
    let n = list.num_vertices() as usize;
    let nbrs = graph_kernel::sequential::simple_rows(list, directed)?;
    let mut scores = vec![0.0f64; n];
    for &s in sources {
        let mut depth = vec![UNSEEN; n];
        let mut sigma = vec![[0.0f64; 2]; n];
        let (mut queue, mut head) = (vec![s as u32], 0);
        depth[s as usize] = 0;
        sigma[s as usize] = [1.0, 0.0];
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
                    sigma[v] = paths_add(sigma[v], sigma[u]);
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
                    let scale = paths_scale(sigma[u][1] - sigma[v][1]);
                    d += sigma[u][0] / sigma[v][0] * scale * (1.0 + delta[v]);
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
    graph_core::validate::check_bc_scores(scores, list.num_vertices() as usize)?;
    let want = bc_sequential_as(list, directed, sources).map_err(|e| e.to_string())?;
    graph_core::validate::compare_bc_scores(scores, &want, TOLERANCE)
}
