//! PageRank, pull-style on graph-kernel's blocks.
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
//! redistribution of "dangling" mass). Unlike GAPBS's `PageRankPullGS`, an
//! iteration reads only the previous iteration's contributions (Jacobi, not
//! Gauss–Seidel: up to rounding, the answer does not depend on the order of
//! the sweep or the number of trustees), in `f64` where GAPBS uses `f32`.
//!
//! On a **directed** graph (arcs `u -> v`) the formulation is GAPBS's on
//! a directed graph: `deg(u)` is `u`'s out-degree and `v` sums the
//! contributions of its in-neighbours (the tails of its in-arcs, pulled
//! along graph-kernel's [`Adjacency::in_rows`]). A vertex without out-arcs
//! (dangling) contributes nothing: its mass leaks, it is not spread over
//! the graph (GAPBS's `pr.cc` divides by the out-degree and never reads
//! a dangling vertex's share), so the scores may sum to less than 1.
//!
//! # Pull, on the blocks
//!
//! Every trustee owns its vertices' scores, by position in graph-kernel's
//! [`Adjacency`] (vertices renumbered by degree to flat ids, rows with
//! parallel edges merged). The contributions of *all* vertices are a
//! [`Replica`] over flat ids, one per process, shared by its trustees: each
//! trustee writes its own vertices' words and [`replica::publish`]es them to
//! other processes (nothing to send in a one-process run). An iteration is
//! then purely local: for each own vertex, sum the contributions of its row
//! (flat ids ascending, hubs first), update the score and the residual, and
//! write the new contribution. Two replicas alternate (read one, write the
//! other), so one all-reduce per iteration — of the residual, in fixed
//! point so that every trustee gets the same sum — both ends the iteration
//! and orders its writes before the next one's reads.
//!
//! ```
//! use graph_core::sharded::ShardedGraph;
//! use graph_core::{EdgeList, PackedEdge, PartitionKind};
//! // A triangle 0-1-2 with a pendant vertex 3 on 0: vertex 0 ranks highest.
//! let e = |u, v| PackedEdge::new(u, v, 1.0);
//! let list = EdgeList::from_edges(4, vec![e(0, 1), e(1, 2), e(2, 0), e(0, 3)]).unwrap();
//! let l2 = list.clone();
//! let cfg = pagerank::PageRankConfig::default();
//! let out = gossamer::main(2, move || {
//!     let g = ShardedGraph::build(&l2, PartitionKind::Cyclic).unwrap();
//!     pagerank::pagerank(&g, &cfg).unwrap()
//! });
//! assert!(out.scores[0] > out.scores[1] && out.scores[1] > out.scores[3]);
//! assert!(out.iterations < 20);
//! let seq = pagerank::pagerank_sequential(&list, &cfg).unwrap();
//! assert_eq!(out.iterations, seq.iterations);
//! assert!(out.scores.iter().zip(&seq.scores).all(|(a, b)| (a - b).abs() < 1e-12));
//! assert!(pagerank::verify_pagerank(&list, &out.scores, &cfg).unwrap() < 1e-4);
//! ```

use std::sync::Arc;
use std::time::{Duration, Instant};

use gossamer::Op;
use graph_core::alloc::vec_or_exit;
use graph_core::sharded::{KernelError, ShardedGraph, TrusteeCtx, TrusteeState};
use graph_core::EdgeList;
use graph_kernel::adjacency::{self, Adjacency, Rows};
use graph_kernel::replica::{self, Replica};

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
}

impl Default for PageRankConfig {
    fn default() -> Self {
        PageRankConfig {
            damping: 0.85,
            max_iterations: 20,
            tolerance: 1e-4,
        }
    }
}

impl PageRankConfig {
    /// Checks the settings; the error says which one is out of range.
    ///
    /// ```
    /// let bad = pagerank::PageRankConfig { damping: 1.5, ..Default::default() };
    /// assert!(bad.check().unwrap_err().to_string().contains("damping"));
    /// ```
    pub fn check(&self) -> Result<(), KernelError> {
        if !(0.0..1.0).contains(&self.damping) {
            return Err(KernelError::Config(format!(
                "damping = {}: expected a factor in [0, 1) (usually 0.85)",
                self.damping
            )));
        }
        if self.max_iterations == 0 {
            return Err(KernelError::Config(
                "max_iterations = 0: run at least one iteration (GAPBS uses 20)".into(),
            ));
        }
        if !(self.tolerance >= 0.0 && self.tolerance.is_finite()) {
            return Err(KernelError::Config(format!(
                "tolerance = {}: expected a finite value >= 0 (GAPBS uses 1e-4)",
                self.tolerance
            )));
        }
        Ok(())
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
    /// Requests that carried contributions to other processes (publishing
    /// the replica; 0 in a one-process run), all iterations.
    pub records: u64,
    /// Time of the iterations (excludes setting up state and gathering).
    pub kernel_time: Duration,
}

/// Fixed-point scale of the residual's reduction (2^40: exact sums of
/// values down to 1e-12, up to 2^23).
const FIXED: f64 = (1u64 << 40) as f64;

/// One trustee's kernel state.
#[derive(Default)]
struct Trustee {
    adj: Option<Arc<Adjacency>>,
    /// Contributions by flat id (`f64` bits): read one, write the other.
    contrib: [Option<Arc<Replica>>; 2],
    /// Score of each own position.
    score: Vec<f64>,
}

#[inline(always)]
fn state(s: &mut TrusteeState) -> &mut Trustee {
    s.kernel::<Trustee>(|_| Trustee::default()).1
}

fn contrib<const I: usize>(s: &mut TrusteeState) -> &Replica {
    state(s).contrib[I]
        .as_deref()
        .expect("pagerank: replicas attached")
}

/// Writes own position `v`'s contribution for `score`.
#[inline(always)]
fn offer(a: &Adjacency, rows: &Rows, out: &Replica, v: u32, score: f64) {
    let deg = rows.degree(v);
    let c = if deg > 0 { score / deg as f64 } else { 0.0 };
    out.set(a.flat(v) as usize, c.to_bits());
}

/// One iteration on one trustee: reads `cur` along the in-edge rows
/// `pull`, writes `next` (with the out-degrees of `rows`); returns the
/// residual of its vertices.
#[allow(clippy::too_many_arguments)]
fn iterate(
    a: &Adjacency,
    rows: &Rows,
    pull: &Rows,
    score: &mut [f64],
    cur: &Replica,
    next: &Replica,
    base: f64,
    d: f64,
) -> f64 {
    let (starts, targets) = (pull.starts(), pull.targets());
    let mut err = 0.0;
    for (v, sc) in score.iter_mut().enumerate() {
        let row = &targets[starts[v] as usize..starts[v + 1] as usize];
        let incoming: f64 = row
            .iter()
            .map(|&f| f64::from_bits(cur.get(f as usize)))
            .sum();
        let new = base + d * incoming;
        err += (new - *sc).abs();
        *sc = new;
        offer(a, rows, next, v as u32, new);
    }
    err
}

/// Publishes own words of replica `I` to other processes; returns the
/// requests sent.
fn publish<const I: usize>(ctx: &TrusteeCtx) -> u64 {
    let own = ctx.local.apply(|s| {
        let w = state(s).adj.as_deref().expect("attached").own_flat();
        (w.start, w.end)
    });
    replica::publish(ctx, own.0..own.1, contrib::<I>)
}

/// The per-trustee driver; returns `(iterations, residual, requests)`.
fn run_trustee(mut ctx: TrusteeCtx, cfg: PageRankConfig, n: u64) -> (u32, f64, u64) {
    let base = (1.0 - cfg.damping) / n as f64;
    let mut sent = publish::<0>(&ctx);
    ctx.party.barrier();
    let (mut iterations, mut residual) = (0, f64::INFINITY);
    while iterations < cfg.max_iterations && residual >= cfg.tolerance {
        let i = (iterations % 2) as usize;
        let err = ctx.local.apply(move |s| {
            let (shard, t) = s.kernel::<Trustee>(|_| Trustee::default());
            let a = t.adj.as_deref().expect("attached");
            let [c0, c1] = &t.contrib;
            let (c0, c1) = (
                c0.as_deref().expect("attached"),
                c1.as_deref().expect("attached"),
            );
            let (cur, next) = if i == 0 { (c0, c1) } else { (c1, c0) };
            let (rows, pull) = (a.rows(shard), a.in_rows(shard));
            iterate(a, rows, pull, &mut t.score, cur, next, base, cfg.damping)
        });
        sent += if i == 0 {
            publish::<1>(&ctx)
        } else {
            publish::<0>(&ctx)
        };
        let fixed = (err * FIXED).round() as i64;
        let [sum] = ctx.party.all_reduce([fixed as u64], [Op::Sum]);
        residual = sum as i64 as f64 / FIXED;
        iterations += 1;
    }
    (iterations, residual, sent)
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
    let cfg = *cfg;
    let n = graph.num_vertices();
    graph.on_trustees(move |mut ctx| {
        adjacency::prepare(&mut ctx);
        ctx.local.apply(move |s| {
            let a = adjacency::shared(s).expect("prepared just above");
            let shard = s.shard();
            // Built on first use: here, not in the timed part.
            let rows = a.rows(shard);
            let _ = a.in_rows(shard);
            let own = a.num_own();
            let init = 1.0 / n as f64;
            let c0 = Replica::per_vertex(&a, "pagerank.contrib.0");
            for v in 0..own {
                offer(&a, rows, &c0, v, init);
            }
            let t = state(s);
            t.contrib = [
                Some(c0),
                Some(Replica::per_vertex(&a, "pagerank.contrib.1")),
            ];
            t.score = vec_or_exit(own as usize, init, "PageRank scores");
            t.adj = Some(a);
        })
    });
    let t0 = Instant::now();
    let per = graph.on_trustees(move |ctx| run_trustee(ctx, cfg, n));
    let kernel_time = t0.elapsed();
    let scores = graph.gather(0.0, |s| {
        let t = state(s);
        let a = t.adj.as_deref().expect("attached");
        a.by_local(|v| t.score[v as usize])
    });
    Ok(PageRankOutput {
        scores,
        iterations: per[0].0,
        residual: per[0].1,
        records: per.iter().map(|p| p.2).sum(),
        kernel_time,
    })
}

/// Simple rows of the whole graph: `(starts, targets)`.
type SimpleRows = (Vec<usize>, Vec<u32>);

/// The whole graph as simple rows (each neighbour once, no self-loops, as
/// GAPBS builds it): the simple out-edge rows and in-edge rows of `list` read as arcs when
/// `directed` (both the same rows when not).
fn simple_rows_as(
    list: &EdgeList<'_>,
    directed: bool,
) -> Result<(SimpleRows, SimpleRows), KernelError> {
    let p = graph_core::Partition::single(list.num_vertices());
    let g = graph_core::build_trustees_with(list, &p, 0..1, directed)?.remove(0);
    let out = simple(&g, |v| g.adjacency(v).0);
    let inn = if directed {
        simple(&g, |v| g.in_neighbors(v))
    } else {
        out.clone()
    };
    Ok((out, inn))
}

/// Rows `row(v)` of every vertex, sorted, each neighbour once.
fn simple<'g>(g: &'g graph_core::Shard, row: impl Fn(u64) -> &'g [u32]) -> SimpleRows {
    let n = g.num_local_vertices() as usize;
    let (mut starts, mut targets) = (Vec::with_capacity(n + 1), Vec::new());
    starts.push(0);
    for v in 0..n as u64 {
        let at = targets.len();
        targets.extend_from_slice(row(v));
        targets[at..].sort_unstable();
        let mut row = targets.split_off(at);
        row.dedup();
        targets.extend_from_slice(&row);
        starts.push(targets.len());
    }
    (starts, targets)
}

/// Sequential reference: the same formulation on the simple graph, in one
/// array, in `f64`, summing each vertex's contributions in id order.
///
/// ```
/// use graph_core::{EdgeList, PackedEdge};
/// let list = EdgeList::from_edges(3, vec![PackedEdge::new(0, 1, 1.0)]).unwrap();
/// let out = pagerank::pagerank_sequential(&list, &Default::default()).unwrap();
/// // Vertex 2 has no edge: it keeps the base score (1 - 0.85) / 3.
/// assert!((out.scores[2] - 0.05).abs() < 1e-15);
/// // A parallel edge and a self-loop change nothing (the graph is simple).
/// let e = |u, v| PackedEdge::new(u, v, 1.0);
/// let path = EdgeList::from_edges(3, vec![e(0, 1), e(1, 2)]).unwrap();
/// let multi = EdgeList::from_edges(3, vec![e(0, 1), e(1, 0), e(1, 2), e(2, 2)]).unwrap();
/// let cfg = Default::default();
/// let (a, b) = (pagerank::pagerank_sequential(&path, &cfg).unwrap(), pagerank::pagerank_sequential(&multi, &cfg).unwrap());
/// assert_eq!(a.scores, b.scores);
/// ```
pub fn pagerank_sequential(
    list: &EdgeList<'_>,
    cfg: &PageRankConfig,
) -> Result<PageRankOutput, KernelError> {
    pagerank_sequential_as(list, false, cfg)
}

/// [`pagerank_sequential`] with the records read as arcs `u -> v` when
/// `directed`: contributions over out-degrees, pulled along in-arcs, a
/// vertex without out-arcs contributing nothing (see the module docs).
///
/// ```
/// use graph_core::{EdgeList, PackedEdge};
/// // 0 -> 1 -> 2, and 2 has no out-arc: its share leaks.
/// let e = |u, v| PackedEdge::new(u, v, 1.0);
/// let list = EdgeList::from_edges(3, vec![e(0, 1), e(1, 2)]).unwrap();
/// let out = pagerank::pagerank_sequential_as(&list, true, &Default::default()).unwrap();
/// let base = 0.15 / 3.0;
/// assert!((out.scores[0] - base).abs() < 1e-15);
/// assert!((out.scores[1] - (base + 0.85 * base)).abs() < 1e-15);
/// assert!(out.scores.iter().sum::<f64>() < 1.0);
/// ```
pub fn pagerank_sequential_as(
    list: &EdgeList<'_>,
    directed: bool,
    cfg: &PageRankConfig,
) -> Result<PageRankOutput, KernelError> {
    cfg.check()?;
    let t0 = Instant::now();
    let ((out_starts, out_targets), (starts, targets)) = simple_rows_as(list, directed)?;
    let n = list.num_vertices() as usize;
    let row = |v: usize| &targets[starts[v]..starts[v + 1]];
    let out_degree = |v: usize| out_starts[v + 1] - out_starts[v];
    drop(out_targets);
    let base = (1.0 - cfg.damping) / n as f64;
    let mut score = vec![1.0 / n as f64; n];
    let mut share = vec![0.0; n];
    let (mut iterations, mut residual) = (0, f64::INFINITY);
    while iterations < cfg.max_iterations && residual >= cfg.tolerance {
        for (v, s) in share.iter_mut().enumerate() {
            let deg = out_degree(v);
            *s = if deg > 0 { score[v] / deg as f64 } else { 0.0 };
        }
        residual = 0.0;
        for (v, sc) in score.iter_mut().enumerate() {
            let incoming: f64 = row(v).iter().map(|&u| share[u as usize]).sum();
            let new = base + cfg.damping * incoming;
            residual += (new - *sc).abs();
            *sc = new;
        }
        iterations += 1;
    }
    Ok(PageRankOutput {
        scores: score,
        iterations,
        residual,
        records: 0,
        kernel_time: t0.elapsed(),
    })
}

/// Checks PageRank scores of `list` without trusting their producer: one
/// finite score per vertex, each at least the base score `(1 - d)/n`, total at
/// most 1 (mass only leaks, at vertices without edges); then runs one more
/// iteration from the scores and returns its residual — below the tolerance
/// for a converged result (and at most `d` times the last residual in any case).
///
/// ```
/// use graph_core::{EdgeList, PackedEdge};
/// let list = EdgeList::from_edges(2, vec![PackedEdge::new(0, 1, 1.0)]).unwrap();
/// let cfg = pagerank::PageRankConfig::default();
/// assert_eq!(pagerank::verify_pagerank(&list, &[0.5, 0.5], &cfg), Ok(0.0));
/// assert!(pagerank::verify_pagerank(&list, &[0.9, 0.1], &cfg).unwrap() > 0.1);
/// assert!(pagerank::verify_pagerank(&list, &[0.5], &cfg).is_err());
/// ```
pub fn verify_pagerank(
    list: &EdgeList<'_>,
    scores: &[f64],
    cfg: &PageRankConfig,
) -> Result<f64, String> {
    verify_pagerank_as(list, false, scores, cfg)
}

/// [`verify_pagerank`] with the records read as arcs when `directed` (see
/// [`pagerank_sequential_as`]).
pub fn verify_pagerank_as(
    list: &EdgeList<'_>,
    directed: bool,
    scores: &[f64],
    cfg: &PageRankConfig,
) -> Result<f64, String> {
    cfg.check().map_err(|e| e.to_string())?;
    let n = list.num_vertices() as usize;
    if scores.len() != n {
        return Err(format!(
            "{} scores for a graph of {n} vertices",
            scores.len()
        ));
    }
    let base = (1.0 - cfg.damping) / n as f64;
    let mut total = 0.0;
    for (v, &s) in scores.iter().enumerate() {
        if !s.is_finite() || s < base * (1.0 - 1e-9) {
            return Err(format!(
                "vertex {v} has score {s}, below the base score {base} (or not finite)"
            ));
        }
        total += s;
    }
    if total > 1.0 + 1e-9 {
        return Err(format!("scores sum to {total} > 1: mass was created"));
    }
    let one = PageRankConfig {
        max_iterations: 1,
        ..*cfg
    };
    let ((out_starts, _), (starts, targets)) =
        simple_rows_as(list, directed).map_err(|e| e.to_string())?;
    let row = |v: usize| &targets[starts[v]..starts[v + 1]];
    let out_degree = |v: usize| out_starts[v + 1] - out_starts[v];
    let mut residual = 0.0;
    for (v, &s) in scores.iter().enumerate() {
        let incoming: f64 = row(v)
            .iter()
            .map(|&u| scores[u as usize] / out_degree(u as usize) as f64)
            .sum();
        residual += (base + one.damping * incoming - s).abs();
    }
    Ok(residual)
}
