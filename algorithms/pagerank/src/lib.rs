//! PageRank, written only against the [`graph_kernel`] API.
//!
//! # The formulation (the one of GAPBS's `pr`)
//!
//! On an undirected graph with `n` vertices, damping `d` (0.85): scores start
//! at `1/n`; each iteration every vertex `u` shares `score(u) / deg(u)` with
//! each neighbour, and every vertex takes
//! `score(v) = (1 - d)/n + d * sum of the shares it received`. The run stops
//! after `max_iterations` iterations, or earlier when the *residual* — the sum
//! over all vertices of `|new score - old score|` of an iteration — falls below
//! `tolerance`. Defaults are GAPBS's: 20 iterations, tolerance 1e-4. As there,
//! vertices without edges keep only the base score and their share is lost
//! (no redistribution of "dangling" mass), and all scores of an iteration are
//! computed from the previous iteration's (Jacobi, not Gauss–Seidel).
//!
//! Degrees are those of the shard: parallel edges count as many times as they
//! appear and self-loops are dropped (GAPBS's builder removes duplicates; the
//! sequential reference here uses the same multigraph as the kernel).
//!
//! # As a kernel
//!
//! One superstep per iteration: a dense sweep ([`graph_kernel::Kernel::for_each_vertex`])
//! in which every vertex sends its share to each neighbour; shares for one
//! remote vertex are added up before they leave ([`graph_kernel::Program::COMBINE`]), so at
//! most one 12-byte record per remote neighbour and batch travels (a push
//! formulation that behaves like GAPBS's pull across trustees). After
//! [`graph_kernel::Kernel::sync`] every trustee updates its own scores and residual; the
//! residual is summed with [`graph_kernel::Kernel::sum_f64`], which is exact and
//! order-independent, so every trustee stops at the same iteration.
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

use std::time::{Duration, Instant};

use graph_core::sharded::{KernelError, ShardedGraph};
use graph_core::{build_whole, EdgeList};
use graph_kernel::{gather, run, Program};

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
    /// Share records sent between trustees (after combining), all iterations.
    pub records: u64,
    /// Time of the iterations (excludes setting up state and gathering).
    pub kernel_time: Duration,
}

/// The per-trustee state.
struct Ranks {
    score: Vec<f64>,
    /// Shares received in the current iteration.
    incoming: Vec<f64>,
}

impl Program for Ranks {
    type Msg = f64;
    const COMBINE: bool = true;

    #[inline]
    fn receive(&mut self, v: u32, share: f64) -> bool {
        self.incoming[v as usize] += share;
        false
    }

    #[inline]
    fn combine(acc: &mut f64, share: f64) {
        *acc += share;
    }
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
    let t0 = Instant::now();
    let per = run(
        graph,
        move |shard| {
            let local = shard.num_local_vertices() as usize;
            Ranks {
                score: vec![1.0 / n as f64; local],
                incoming: vec![0.0; local],
            }
        },
        move |k| {
            let base = (1.0 - cfg.damping) / n as f64;
            let mut residual = f64::INFINITY;
            let mut iterations = 0;
            while iterations < cfg.max_iterations && residual >= cfg.tolerance {
                k.for_each_vertex(|l, v| {
                    let deg = l.degree(v);
                    if deg > 0 {
                        let share = l.state().score[v as usize] / deg as f64;
                        for &u in l.neighbors(v) {
                            l.send(u, share);
                        }
                    }
                });
                k.sync();
                let local = k.with(move |l| {
                    let s = l.state();
                    let mut err = 0.0;
                    for (score, inc) in s.score.iter_mut().zip(s.incoming.iter_mut()) {
                        let new = base + cfg.damping * *inc;
                        err += (new - *score).abs();
                        *score = new;
                        *inc = 0.0;
                    }
                    err
                });
                residual = k.sum_f64(local);
                iterations += 1;
            }
            (iterations, residual, k.stats().sent)
        },
    );
    let kernel_time = t0.elapsed();
    let scores = gather(graph, 0.0, |s: &Ranks| s.score.clone())?;
    Ok(PageRankOutput {
        scores,
        iterations: per[0].0,
        residual: per[0].1,
        records: per.iter().map(|p| p.2).sum(),
        kernel_time,
    })
}

/// Sequential reference: the same formulation on one CSR of the whole graph,
/// in `f64`, summing each vertex's shares in adjacency order.
///
/// ```
/// use graph_core::{EdgeList, PackedEdge};
/// let list = EdgeList::from_edges(3, vec![PackedEdge::new(0, 1, 1.0)]).unwrap();
/// let out = pagerank::pagerank_sequential(&list, &Default::default()).unwrap();
/// // Vertex 2 has no edge: it keeps the base score (1 - 0.85) / 3.
/// assert!((out.scores[2] - 0.05).abs() < 1e-15);
/// ```
pub fn pagerank_sequential(
    list: &EdgeList<'_>,
    cfg: &PageRankConfig,
) -> Result<PageRankOutput, KernelError> {
    cfg.check()?;
    let t0 = Instant::now();
    let g = build_whole(list)?;
    let n = list.num_vertices() as usize;
    let base = (1.0 - cfg.damping) / n as f64;
    let mut score = vec![1.0 / n as f64; n];
    let mut share = vec![0.0; n];
    let (mut iterations, mut residual) = (0, f64::INFINITY);
    while iterations < cfg.max_iterations && residual >= cfg.tolerance {
        for (v, s) in share.iter_mut().enumerate() {
            let deg = g.degree(v as u64);
            *s = if deg > 0 { score[v] / deg as f64 } else { 0.0 };
        }
        residual = 0.0;
        for (v, sc) in score.iter_mut().enumerate() {
            let incoming: f64 = g
                .adjacency(v as u64)
                .0
                .iter()
                .map(|&u| share[u as usize])
                .sum();
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
    let g = build_whole(list).map_err(|e| e.to_string())?;
    let mut residual = 0.0;
    for (v, &s) in scores.iter().enumerate() {
        let incoming: f64 = g
            .adjacency(v as u64)
            .0
            .iter()
            .map(|&u| scores[u as usize] / g.degree(u64::from(u)) as f64)
            .sum();
        residual += (base + one.damping * incoming - s).abs();
    }
    Ok(residual)
}
