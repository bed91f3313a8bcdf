//! Small graphs for the examples of this crate's documentation.

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

/// A fresh [`Sum`] for a shard (all zeros), to pass as `init` to [`run`](crate::run).
///
/// ```
/// let shard = graph_core::build_whole(&graph_kernel::doc::path(3)).unwrap();
/// assert_eq!(graph_kernel::doc::zeros(&shard).0, [0, 0, 0]);
/// ```
pub fn zeros(shard: &graph_core::Shard) -> Sum {
    Sum(vec![0; shard.num_local_vertices() as usize])
}
