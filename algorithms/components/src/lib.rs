//! Connected components of an undirected graph, written only against the
//! [`graph_kernel`] API.
//!
//! # The algorithm: label propagation with pointer jumping
//!
//! Every vertex starts with its own global id as *label*. In each superstep
//! every vertex whose label dropped in the previous one (the frontier; at
//! first all vertices) offers its label to its neighbours, and a vertex keeps
//! the smallest label it is offered. When no label drops anywhere, every
//! vertex holds the smallest id of its component: labels only ever take values
//! of vertices in the same component, and a component with two labels would
//! have an edge whose ends differ, whose larger end would still drop.
//!
//! Two cheap improvements on the plain scheme:
//!
//! - **sender-side filter**: a label `l` is offered to neighbour `u` only when
//!   `u > l`; since a vertex's label never exceeds its own id, a neighbour with
//!   `u <= l` already has a label at most `l`;
//! - **combining**: offers to one remote vertex merge to their minimum before
//!   they leave ([`graph_kernel::Program::COMBINE`]);
//! - **pointer jumping** (shortcutting, as in Shiloach–Vishkin): after each
//!   sweep a vertex whose label `l` is a vertex owned by the same trustee takes
//!   `label(l)` when that is smaller (`label(l)` is in the same component). This
//!   collapses chains of labels without messages; across trustees the labels
//!   still travel by propagation. (It is *local* pointer jumping: a remote
//!   `label(l)` would need a request and a reply per vertex.)
//!
//! The number of supersteps is at most the graph's diameter plus one; on
//! Kronecker graphs that is a handful. GAPBS's `cc` uses Afforest (Sutton et
//! al., IPDPS 2018), which samples a few neighbours per vertex, links with
//! compare-and-swap on a shared parent array and skips the largest component;
//! those shared-memory atomics are what this kernel may not use, so it
//! propagates instead.
//!
//! ```
//! use graph_core::sharded::ShardedGraph;
//! use graph_core::{EdgeList, PackedEdge, PartitionKind};
//! let list = EdgeList::from_edges(6, vec![
//!     PackedEdge::new(5, 1, 1.0),
//!     PackedEdge::new(1, 3, 1.0),
//!     PackedEdge::new(2, 4, 1.0),
//! ]).unwrap();
//! let l2 = list.clone();
//! let out = gossamer::main(2, move || {
//!     let g = ShardedGraph::build(&l2, PartitionKind::Cyclic).unwrap();
//!     components::cc(&g, &components::CcConfig::default()).unwrap()
//! });
//! assert_eq!(out.labels, [0, 1, 2, 1, 2, 1]);
//! assert_eq!(out.components, 3);
//! assert_eq!(components::cc_sequential(&list), out.labels);
//! assert_eq!(components::verify_cc(&list, &out.labels), Ok(3));
//! ```

use std::time::{Duration, Instant};

use graph_core::sharded::{KernelError, ShardedGraph};
use graph_core::EdgeList;
use graph_kernel::{gather, run, FrontierMode, Program};

/// Settings of one connected-components run.
///
/// ```
/// let c = components::CcConfig::default();
/// assert!(c.pointer_jumping);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CcConfig {
    /// Shortcut labels through vertices of the same trustee after each sweep.
    pub pointer_jumping: bool,
    /// How frontiers are kept (the answer does not depend on it).
    pub frontier: FrontierMode,
}

impl Default for CcConfig {
    fn default() -> Self {
        CcConfig {
            pointer_jumping: true,
            frontier: FrontierMode::Auto,
        }
    }
}

/// Result of one run, indexed by global vertex id.
///
/// ```
/// # use graph_core::{EdgeList, PackedEdge};
/// let list = EdgeList::from_edges(3, vec![PackedEdge::new(1, 2, 1.0)]).unwrap();
/// let out = gossamer::main(1, move || {
///     let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
///     components::cc(&g, &Default::default()).unwrap()
/// });
/// assert_eq!((out.labels, out.components, out.sweeps), (vec![0, 1, 1], 2, 2));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct CcOutput {
    /// The smallest vertex id of each vertex's component.
    pub labels: Vec<u64>,
    /// Number of components (isolated vertices count as one each).
    pub components: u64,
    /// Label sweeps (supersteps) run; the last one lowers no label.
    pub sweeps: u64,
    /// Label records sent between trustees (after combining).
    pub records: u64,
    /// Time of the propagation (excludes setting up state and gathering).
    pub kernel_time: Duration,
}

/// The per-trustee state: one label per local vertex.
struct Labels {
    label: Vec<u32>,
}

impl Program for Labels {
    type Msg = u32;
    const COMBINE: bool = true;

    #[inline]
    fn receive(&mut self, v: u32, offer: u32) -> bool {
        let l = &mut self.label[v as usize];
        let lower = offer < *l;
        if lower {
            *l = offer;
        }
        lower
    }

    #[inline]
    fn combine(acc: &mut u32, offer: u32) {
        *acc = (*acc).min(offer);
    }
}

/// Connected components of `graph`, from a fiber of the runtime that built it.
/// The graph must have at most 2^32 vertices (as every [`ShardedGraph`]).
///
/// ```
/// use graph_core::sharded::ShardedGraph;
/// use graph_core::{EdgeList, PackedEdge, PartitionKind};
/// use graph_kernel::FrontierMode;
/// // Two triangles and an isolated vertex; every setting gives the same labels.
/// let e = |u, v| PackedEdge::new(u, v, 1.0);
/// let list = EdgeList::from_edges(7, vec![e(6, 4), e(4, 2), e(2, 6), e(5, 3), e(3, 1), e(1, 5)]).unwrap();
/// let labels = gossamer::main(3, move || {
///     let g = ShardedGraph::build(&list, PartitionKind::Block).unwrap();
///     [FrontierMode::Sparse, FrontierMode::Dense].map(|frontier| {
///         let cfg = components::CcConfig { pointer_jumping: false, frontier };
///         components::cc(&g, &cfg).unwrap().labels
///     })
/// });
/// assert_eq!(labels[0], [0, 1, 2, 1, 2, 1, 2]);
/// assert_eq!(labels[1], labels[0]);
/// ```
pub fn cc(graph: &ShardedGraph, cfg: &CcConfig) -> Result<CcOutput, KernelError> {
    let cfg = *cfg;
    let t0 = Instant::now();
    let per = run(
        graph,
        |shard| Labels {
            label: shard.vertices().map(|(_, g)| g as u32).collect(),
        },
        move |k| {
            k.set_frontier_mode(cfg.frontier);
            k.with(|l| l.activate_all());
            while k.end_superstep() > 0 {
                k.for_each_active(|l, v| {
                    let label = l.state().label[v as usize];
                    for &u in l.neighbors(v) {
                        if u > label {
                            l.send(u, label);
                        }
                    }
                });
                if cfg.pointer_jumping {
                    k.with(|l| {
                        for v in 0..l.num_local() {
                            let label = l.state().label[v as usize];
                            if let Some(j) = l.local_of(u64::from(label)) {
                                let jumped = l.state().label[j as usize];
                                if jumped < label {
                                    l.state().label[v as usize] = jumped;
                                    l.activate(v);
                                }
                            }
                        }
                    });
                }
            }
            let roots = k.with(|l| {
                (0..l.num_local())
                    .filter(|&v| u64::from(l.state().label[v as usize]) == l.global(v))
                    .count() as u64
            });
            (k.sum(roots), k.supersteps() - 1, k.stats().sent)
        },
    );
    let kernel_time = t0.elapsed();
    let labels = gather(graph, u32::MAX, |s: &Labels| s.label.clone())?;
    Ok(CcOutput {
        labels: labels.into_iter().map(u64::from).collect(),
        components: per[0].0,
        sweeps: per[0].1,
        records: per.iter().map(|p| p.2).sum(),
        kernel_time,
    })
}

/// Sequential reference: union-find over the edge list (union by smaller
/// root, path halving); each vertex's label is the smallest id of its
/// component. Self-loops change nothing.
///
/// ```
/// use graph_core::{EdgeList, PackedEdge};
/// let list = EdgeList::from_edges(4, vec![PackedEdge::new(3, 1, 1.0)]).unwrap();
/// assert_eq!(components::cc_sequential(&list), [0, 1, 2, 1]);
/// ```
pub fn cc_sequential(list: &EdgeList<'_>) -> Vec<u64> {
    let n = list.num_vertices() as usize;
    let mut parent: Vec<u32> = (0..n as u32).collect();
    fn find(p: &mut [u32], mut x: u32) -> u32 {
        while p[x as usize] != x {
            let gp = p[p[x as usize] as usize];
            p[x as usize] = gp;
            x = gp;
        }
        x
    }
    for e in list.edges() {
        let (a, b) = (find(&mut parent, e.u), find(&mut parent, e.v));
        if a != b {
            let (lo, hi) = (a.min(b), a.max(b));
            parent[hi as usize] = lo;
        }
    }
    (0..n as u32)
        .map(|v| u64::from(find(&mut parent, v)))
        .collect()
}

/// Checks a component labelling of `list` without trusting its producer:
/// one label per vertex; both ends of every edge share a label; every label is
/// the smallest vertex of its class (`labels[v] <= v` and
/// `labels[labels[v]] == labels[v]`); and there are exactly as many classes as
/// the graph has components (counted here by a union-find), so no component
/// was split. Returns the number of components, or what is wrong.
///
/// ```
/// use graph_core::{EdgeList, PackedEdge};
/// let list = EdgeList::from_edges(3, vec![PackedEdge::new(0, 2, 1.0)]).unwrap();
/// assert_eq!(components::verify_cc(&list, &[0, 1, 0]), Ok(2));
/// assert!(components::verify_cc(&list, &[0, 1, 2]).unwrap_err().contains("edge (0, 2)"));
/// ```
pub fn verify_cc(list: &EdgeList<'_>, labels: &[u64]) -> Result<u64, String> {
    let n = list.num_vertices();
    if labels.len() as u64 != n {
        return Err(format!(
            "{} labels for a graph of {n} vertices",
            labels.len()
        ));
    }
    for e in list.edges() {
        let (a, b) = (labels[e.u as usize], labels[e.v as usize]);
        if a != b {
            return Err(format!(
                "edge ({}, {}) joins labels {a} and {b}: one component has two labels",
                e.u, e.v
            ));
        }
    }
    let mut classes = 0u64;
    for (v, &l) in labels.iter().enumerate() {
        if l > v as u64 || labels[l as usize] != l {
            return Err(format!(
                "vertex {v} has label {l}, which is not the smallest vertex of its class"
            ));
        }
        classes += u64::from(l == v as u64);
    }
    let components = cc_sequential(list)
        .iter()
        .enumerate()
        .filter(|&(v, &l)| l == v as u64)
        .count() as u64;
    if classes != components {
        return Err(format!(
            "{classes} label classes but the graph has {components} components: a class joins vertices that no path connects"
        ));
    }
    Ok(components)
}
