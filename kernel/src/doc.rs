//! Small graphs for the examples of this crate's documentation and for tests.

use graph_core::{EdgeList, PackedEdge};

/// The path `0 - 1 - ... - (n-1)`, every edge weighing 0.5.
///
/// ```
/// let p = graph_kernel::doc::path(3);
/// assert_eq!((p.num_vertices(), p.num_edges()), (3, 2));
/// ```
pub fn path(n: u32) -> EdgeList<'static> {
    EdgeList::from_edges(
        u64::from(n),
        (1..n).map(|v| PackedEdge::new(v - 1, v, 0.5)).collect(),
    )
    .expect("a path is a valid edge list")
}

/// A program for examples: one `u32` per local vertex, updates are added to
/// it, and a vertex that receives anything joins the next frontier.
///
/// ```
/// use graph_kernel::Program;
/// let mut s = graph_kernel::doc::Sum(vec![0, 0]);
/// assert!(s.receive(1, 5));
/// assert_eq!(s.0, [0, 5]);
/// ```
pub struct Sum(pub Vec<u32>);

impl crate::Program for Sum {
    type Msg = u32;
    fn receive(&mut self, v: u32, x: u32) -> bool {
        self.0[v as usize] += x;
        true
    }
}

/// A fresh [`Sum`] (all zeros, one per own vertex), to pass as `init` to
/// [`run`](crate::run).
///
/// ```
/// use graph_kernel::{doc, gather, run};
/// let list = doc::path(3);
/// let sums = gossamer::main(2, move || {
///     let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
///     run(&g, doc::zeros, |_| ());
///     gather(&g, 9, |s: &doc::Sum, v| s.0[v as usize]).unwrap()
/// });
/// assert_eq!(sums, [0, 0, 0]);
/// ```
pub fn zeros(s: &mut crate::Setup<'_>, _: Option<Sum>) -> Sum {
    Sum(vec![0; s.num_own() as usize])
}

/// A random graph for tests: `m` edges among the first `n / 2` ids (the
/// other ids isolated), skewed (low ids are hubs) and mostly inside a few
/// clusters of ids equal modulo a small number (so several components);
/// plus a self-loop on the last vertex and a parallel edge. The same `seed`
/// gives the same graph.
///
/// ```
/// let g = graph_kernel::doc::random(100, 40, 7);
/// assert_eq!((g.num_vertices(), g.num_edges()), (100, 43));
/// assert!(g.edges().iter().all(|e| e.u < 50 || e.u == 99));
/// ```
pub fn random(n: u32, m: usize, seed: u64) -> EdgeList<'static> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let live = u64::from((n / 2).max(1));
    let clusters = 1 + next() % 5;
    let mut edges: Vec<PackedEdge> = (0..m)
        .map(|_| {
            let u = next() % live;
            let w = (next() % live) * (next() % live) / live;
            let v = if next() % 16 == 0 {
                w
            } else {
                (w / clusters * clusters + u % clusters).min(live - 1)
            };
            PackedEdge::new(u as u32, v as u32, 1.0)
        })
        .collect();
    let last = live as u32 - 1;
    edges.extend([
        PackedEdge::new(n - 1, n - 1, 1.0),
        PackedEdge::new(0, last, 1.0),
        PackedEdge::new(last, 0, 1.0),
    ]);
    EdgeList::from_edges(u64::from(n), edges).expect("ids below n")
}
