//! PageRank, pull-style, as a graph-kernel [`Program`].
//!
//! # The formulation (the one of GAPBS's `pr`)
//!
//! On an undirected graph with `n` vertices, damping `d` (0.85): scores start
//! at `1/n`; each iteration every vertex `u` offers the *contribution*
//! `score(u) / deg(u)`, and every vertex takes
//! `score(v) = (1 - d)/n + d * sum of its neighbours' contributions`. The run
//! stops after `max_iterations` iterations, or earlier when the *residual* —
//! the sum over all vertices of `|new score - old score|` of an iteration —
//! falls below `tolerance`. Defaults are GAPBS's: 20 iterations, tolerance
//! 1e-4. As there, the graph is simple (parallel edges count once,
//! self-loops are dropped: GAPBS's builder does the same), and a vertex
//! without edges keeps only the base score and contributes nothing (no
//! redistribution of "dangling" mass). In `f64` where GAPBS uses `f32`.
//!
//! An iteration reads either only the previous iteration's contributions
//! ([`Sweep::Jacobi`], the sequential reference's: up to rounding the answer
//! does not depend on the order of the sweep or the number of trustees), or
//! every one already updated, as GAPBS's `PageRankPullGS`
//! ([`Sweep::GaussSeidel`]). Neither wins everywhere: Jacobi keeps the sum of
//! the scores, so on a graph that mixes fast (Graph500) its residual shrinks
//! 3-10 times per iteration (SCALE 20: 8 iterations to 1e-4, GAPBS's
//! Gauss–Seidel 15); on a road grid it shrinks by a third at best and Jacobi
//! does not reach 1e-4 in 20 iterations, where Gauss–Seidel does in 11-12.
//! The default, [`Sweep::Auto`], runs Jacobi and changes to Gauss–Seidel at
//! the first iteration that does not halve the residual.
//!
//! On a **directed** graph (arcs `u -> v`) the formulation is GAPBS's on
//! a directed graph: `deg(u)` is `u`'s out-degree and `v` sums the
//! contributions of its in-neighbours (the tails of its in-arcs, pulled
//! along graph-kernel's
//! [`Adjacency::in_rows`](graph_kernel::Adjacency::in_rows)). A vertex
//! without out-arcs (dangling) contributes nothing: its mass leaks, it is
//! not spread over the graph (GAPBS's `pr.cc` divides by the out-degree and
//! never reads a dangling vertex's share), so the scores may sum to less
//! than 1.
//!
//! The rows are plain or compressed as the graph was first prepared
//! ([`graph_kernel::prepare_with`] before this kernel, e.g. with
//! [`RowsFormat::Compressed`](graph_kernel::RowsFormat): byte-coded rows
//! in place of the shard's array, less memory): each in-row is read as a
//! slice, a compressed one decoded first, so the scores are the same bit
//! for bit either way. Once the iterations end the contributions are
//! freed, before the scores are gathered (16 B per vertex less at the
//! peak).
//!
//! # Pull, in graph-kernel's one shape
//!
//! Every trustee's [`Program`] state holds its vertices' scores, by
//! position in graph-kernel's renumbered adjacency (vertices renumbered by
//! degree to flat ids, rows with parallel edges merged). The contributions
//! of *all* vertices are a [`Replica`] over flat ids, one per process,
//! shared by its trustees: each trustee writes its own vertices' words and
//! copies to the other processes those they read, its vertices with an
//! out-neighbour there
//! ([`publish_to_neighbours`](graph_kernel::Kernel::publish_to_neighbours);
//! nothing to send in a one-process run). An iteration is then purely
//! local, one [`with`](graph_kernel::Kernel::with) per trustee and no
//! message: for each own vertex, sum the contributions of its in-row (flat
//! ids ascending, hubs first where there are hubs), update the score and
//! the residual, and write the new contribution. In Jacobi iterations two
//! replicas alternate (read one, write the other), so one all-reduce per
//! iteration — of the residual, in fixed point
//! ([`sum_f64`](graph_kernel::Kernel::sum_f64)) so that every trustee gets
//! the same sum — both ends the iteration and orders its writes before the
//! next one's reads. Gauss–Seidel iterations read and write one replica
//! (another trustee's words, and another process's published ones, may be
//! read before or after their update: both are allowed). A trustee sweeps
//! its vertices in chunks of 32 positions, each chunk's even positions
//! before its odd ones: in place, an odd position then reads both of its
//! neighbours in the chunk updated (on a grid: left and right) without
//! waiting for either (each was stored 15-16 vertices before), and every
//! vertex reads the chunks before its own updated (on a grid: the row
//! above).
//!
//! ```
//! use graph_core::sharded::ShardedGraph;
//! use graph_core::{EdgeList, PackedEdge, PartitionKind};
//! // A triangle 0-1-2 with a pendant vertex 3 on 0: vertex 0 ranks highest.
//! let e = |u, v| PackedEdge::new(u, v, 1.0);
//! let list = EdgeList::from_edges(4, vec![e(0, 1), e(1, 2), e(2, 0), e(0, 3)]).unwrap();
//! let l2 = list.clone();
//! // Jacobi: the sequential reference's sweep (the default would turn to
//! // Gauss–Seidel here, where Jacobi shrinks the residual by only 0.62 per
//! // iteration, and take longer: see `Sweep::Auto`).
//! let cfg = pagerank::PageRankConfig { sweep: pagerank::Sweep::Jacobi, ..Default::default() };
//! let out = gossamer::main(2, move || {
//!     let g = ShardedGraph::build(&l2, PartitionKind::Cyclic).unwrap();
//!     pagerank::pagerank(&g, &cfg).unwrap()
//! });
//! assert!(out.scores[0] > out.scores[1] && out.scores[1] > out.scores[3]);
//! assert!(out.iterations < 20);
//! let seq = pagerank::pagerank_sequential(&list, false, 0.85, 20, 1e-4).unwrap();
//! assert_eq!(out.iterations, seq.iterations);
//! assert!(out.scores.iter().zip(&seq.scores).all(|(a, b)| (a - b).abs() < 1e-12));
//! assert!(pagerank::verify_pagerank(&list, false, &out.scores, cfg.damping).unwrap() < 1e-4);
//! ```

use std::sync::Arc;
use std::time::{Duration, Instant};

use graph_core::alloc::vec_or_exit;
use graph_core::sharded::{KernelError, ShardedGraph};
use graph_kernel::{gather, run, Local, Prepare, Program, Replica, Setup};

/// The sequential reference (the same formulation on the whole graph, in
/// one array, in `f64`, summing each vertex's contributions in id order)
/// and the verifier, kept with the other kernels' in graph-core's
/// `validate`.
pub use graph_core::validate::{reference::pagerank as pagerank_sequential, verify_pagerank};

/// Settings of one PageRank run (defaults: GAPBS's).
///
/// ```
/// let c = pagerank::PageRankConfig::default();
/// assert_eq!((c.damping, c.max_iterations, c.tolerance), (0.85, 20, 1e-4));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PageRankConfig {
    /// Damping factor `d`, in `[0, 1)`.
    pub damping: f64,
    /// Most iterations run (at least 1).
    pub max_iterations: u32,
    /// Stop once an iteration's residual (sum of `|change|`) is below this
    /// (`0` runs exactly `max_iterations`).
    pub tolerance: f64,
    /// How an iteration reads the contributions (default [`Sweep::Auto`]).
    pub sweep: Sweep,
}

impl Default for PageRankConfig {
    fn default() -> Self {
        PageRankConfig {
            damping: 0.85,
            max_iterations: 20,
            tolerance: 1e-4,
            sweep: Sweep::Auto,
        }
    }
}

/// How an iteration reads the contributions of the vertices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sweep {
    /// Only the previous iteration's (read one replica, write the other):
    /// the sequential reference's formulation, the same answer for any
    /// trustees up to rounding. It keeps the scores' sum, so on a graph that
    /// mixes fast (Graph500) each iteration shrinks the residual several
    /// times.
    Jacobi,
    /// In place (one replica), as GAPBS's `PageRankPullGS`: a vertex reads
    /// the new contribution of every vertex updated before it in the
    /// iteration (its own trustee's: those of the chunks before its own,
    /// and in its chunk of 32, an odd position the even ones; another
    /// trustee's if it came in time: the answer depends on timing within
    /// the tolerance). On a road grid the default stops after 11
    /// iterations where Jacobi runs all 20 without reaching 1e-4.
    GaussSeidel,
    /// Jacobi while every iteration at least halves the residual (Graph500:
    /// throughout), Gauss–Seidel from the first that does not (a road grid:
    /// the fourth). A rule of thumb: Gauss–Seidel does not keep the sum of
    /// the scores, and on a graph where Jacobi shrinks the residual by a
    /// factor 0.5-0.7 the lost mass may come back slower than Jacobi would
    /// have converged (a triangle with a pendant vertex, 2 trustees: Jacobi
    /// reaches 1e-4 in 19 iterations, the default not in 20; both valid).
    Auto,
}

impl PageRankConfig {
    /// Checks the settings; the error says which one is out of range.
    ///
    /// ```
    /// let bad = pagerank::PageRankConfig { damping: 1.5, ..Default::default() };
    /// assert!(bad.check().unwrap_err().to_string().contains("damping"));
    /// ```
    pub fn check(&self) -> Result<(), KernelError> {
        let (d, t) = (self.damping, self.tolerance);
        let why = if !(0.0..1.0).contains(&d) {
            format!("damping = {d}: expected a factor in [0, 1) (usually 0.85)")
        } else if self.max_iterations == 0 {
            "max_iterations = 0: run at least one iteration (GAPBS uses 20)".into()
        } else if !(t >= 0.0 && t.is_finite()) {
            format!("tolerance = {t}: expected a finite value >= 0 (GAPBS uses 1e-4)")
        } else {
            return Ok(());
        };
        Err(KernelError::Config(why))
    }
}

/// Result of one run, indexed by global vertex id.
///
/// ```
/// # use graph_core::{EdgeList, PackedEdge};
/// let list = EdgeList::from_edges(2, vec![PackedEdge::new(0, 1, 1.0)]).unwrap();
/// let out = gossamer::main(1, move || {
///     let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
///     pagerank::pagerank(&g, &Default::default()).unwrap()
/// });
/// // Two vertices sharing one edge: the scores stay 1/2 and the first residual is 0.
/// assert_eq!((out.scores, out.iterations, out.residual), (vec![0.5, 0.5], 1, 0.0));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct PageRankOutput {
    /// Score of every vertex.
    pub scores: Vec<f64>,
    /// Iterations run.
    pub iterations: u32,
    /// Residual of the last iteration.
    pub residual: f64,
    /// Of the iterations, those run in place ([`Sweep::GaussSeidel`]).
    pub gauss_seidel_iterations: u32,
    /// Requests that carried contributions to other processes (publishing
    /// the replica; 0 in a one-process run), all iterations.
    pub records: u64,
    /// Time of the iterations (excludes setting up state and gathering).
    pub kernel_time: Duration,
}

/// One trustee's state.
struct PageRank {
    /// Score of each own position.
    score: Vec<f64>,
    /// Contributions by flat id (`f64` bits): read one, write the other;
    /// empty ones once the iterations end (see [`pagerank`]).
    contrib: [Arc<Replica>; 2],
}

impl Program for PageRank {
    /// Unused: an iteration reads the replica and sends nothing.
    type Msg = u32;

    fn receive(&mut self, _: u32, _: u32) -> bool {
        unreachable!("pagerank sends no messages")
    }
}

/// Positions per chunk of an iteration's sweep, which visits each chunk's
/// even positions, then its odd ones. In place, a vertex reading the one
/// just before it (on a grid, its left neighbour) would wait for that
/// vertex's contribution, every vertex for the last (an earlier version
/// stored each contribution 16 positions late instead: on a grid only the
/// row above was then new, and it took 13 iterations where this takes 11).
const CHUNK: usize = 32;

/// One iteration on one trustee: every own vertex's new score from the
/// contributions in replica `i` along its in-row (flat ids ascending), and
/// its contribution to the next iteration into replica `o` (`o == i`: in
/// place), in the order of [`CHUNK`]. Returns the residual of its
/// vertices. No `i`: every new score is `base`, and no row is read (the
/// first scores: what an iteration with damping 0 gives, as d x a finite
/// sum is 0, without its pass over every entry).
fn iterate(l: &mut Local<'_, PageRank>, i: Option<usize>, o: usize, base: f64, d: f64) -> f64 {
    // The scores taken out of the state for the sweep, so that the rows
    // are read through `l`'s slices (not through the shared arrays anew
    // at every vertex).
    let p = l.state();
    let (mut score, contrib) = (std::mem::take(&mut p.score), p.contrib.clone());
    // `c`: the replica read (none: no row is read), `b`: a row's buffer.
    let (c, next, mut err, mut b) = (i.map(|i| &*contrib[i]), &*contrib[o], 0.0, Vec::new());
    let (lo, n) = (l.flat(0) as usize, score.len());
    for at in (0..n).step_by(CHUNK) {
        for parity in 0..2 {
            for v in (at + parity..n.min(at + CHUNK)).step_by(2) {
                let new = base + c.map_or(0.0, |r| d * r.sum_f64(l.read_in_row(v as u32, &mut b)));
                err += (new - score[v]).abs();
                score[v] = new;
                next.set(lo + v, (new * l.inverse_degree(v as u32)).to_bits());
            }
        }
    }
    l.state().score = score;
    err
}

/// PageRank of `graph`, from a fiber of the runtime that built it. Returns
/// [`KernelError::Config`] for settings out of range.
///
/// ```
/// use graph_core::sharded::{KernelError, ShardedGraph};
/// use graph_core::{EdgeList, PackedEdge, PartitionKind};
/// use pagerank::{pagerank, PageRankConfig};
/// // A cycle of 5: every vertex keeps 1/5, whatever the settings.
/// let list = EdgeList::from_edges(5, (0..5).map(|v| PackedEdge::new(v, (v + 1) % 5, 1.0)).collect()).unwrap();
/// let (out, bad) = gossamer::main(2, move || {
///     let g = ShardedGraph::build(&list, PartitionKind::Cyclic).unwrap();
///     let fixed = PageRankConfig { max_iterations: 3, tolerance: 0.0, ..Default::default() };
///     (pagerank(&g, &fixed).unwrap(), pagerank(&g, &PageRankConfig { damping: -0.1, ..fixed }))
/// });
/// assert_eq!(out.iterations, 3);
/// assert!(out.scores.iter().all(|&s| (s - 0.2).abs() < 1e-15));
/// assert!(matches!(bad, Err(KernelError::Config(_))));
/// ```
pub fn pagerank(graph: &ShardedGraph, cfg: &PageRankConfig) -> Result<PageRankOutput, KernelError> {
    cfg.check()?;
    let (cfg, n) = (*cfg, graph.num_vertices());
    let (base, d) = ((1.0 - cfg.damping) / n as f64, cfg.damping);
    // Before the clock starts, as in the kernel this port replaced: the
    // rows, the state, and the first scores with their contributions in
    // replica 0, made by a sweep that reads no row (every score 1/n
    // exactly, as an iteration with damping 0 would make it).
    graph_kernel::prepare(graph, Prepare::Boundary);
    // The replicas are found by name while `old` holds them (the first
    // run's contributions; the fields are made in this order, `old` is
    // dropped after them), else made anew (they are freed at the end).
    let new = |s: &mut Setup<'_>, old: Option<PageRank>| PageRank {
        contrib: ["pagerank.contrib.0", "pagerank.contrib.1"]
            .map(|name| Replica::per_vertex(s.adjacency(), name)),
        score: old.map_or_else(
            || vec_or_exit(s.num_own() as usize, 0.0, "PageRank scores"),
            |p| p.score,
        ),
    };
    run(graph, new, move |k| {
        k.with(move |l| iterate(l, None, 0, 1.0 / n as f64, 0.0))
    });
    let t0 = Instant::now();
    let per = run(graph, new, move |k| {
        let mut sent = k.publish_to_neighbours(|p: &PageRank| &p.contrib[0]);
        k.sync();
        let (mut iterations, mut residual, mut i) = (0, f64::INFINITY, 0);
        let (mut gs, mut gs_its) = (cfg.sweep == Sweep::GaussSeidel, 0);
        while iterations < cfg.max_iterations && residual >= cfg.tolerance {
            let o = if gs { i } else { 1 - i };
            let err = k.with(move |l| iterate(l, Some(i), o, base, d));
            sent += k.publish_to_neighbours(move |p: &PageRank| &p.contrib[o]);
            let r = k.sum_f64(err);
            gs |= cfg.sweep == Sweep::Auto && r > residual / 2.0;
            (residual, i, iterations, gs_its) = (r, o, iterations + 1, gs_its + u32::from(o == i));
        }
        (iterations, residual, sent, gs_its)
    });
    let kernel_time = t0.elapsed();
    graph_kernel::release_states(graph, |p: &mut PageRank| p.contrib = Default::default());
    Ok(PageRankOutput {
        scores: gather(graph, 0.0, |p: &PageRank, v| p.score[v as usize])?,
        iterations: per[0].0,
        residual: per[0].1,
        gauss_seidel_iterations: per[0].3,
        records: per.iter().map(|p| p.2).sum(),
        kernel_time,
    })
}
