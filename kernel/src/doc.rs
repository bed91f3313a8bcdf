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
