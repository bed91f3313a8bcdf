//! What the sequential references of the kernels share: the input edge
//! list as the simple graph the distributed kernels see.

use graph_core::sharded::KernelError;
use graph_core::{build_trustees_with, EdgeList, Partition};

/// Every vertex's neighbours in the simple graph of `list`: ascending, each
/// once (repeated edges merged, self-loops dropped, as GAPBS's builder and
/// graph-kernel's rows do); with `directed` the records are arcs `u -> v`
/// and a vertex's list is its out-neighbours, else each edge is followed
/// both ways. One `Vec` per vertex, for a reference that reads them
/// one vertex at a time (betweenness's); the edge list's weights are never
/// read (the build drops them before the lists are made).
///
/// ```
/// use graph_core::{EdgeList, PackedEdge};
/// let e = |u, v| PackedEdge::new(u, v, 1.0);
/// let list = EdgeList::from_edges(4, vec![e(2, 0), e(0, 2), e(1, 1), e(0, 3)]).unwrap();
/// let both = graph_kernel::sequential::simple_rows(&list, false).unwrap();
/// assert_eq!(both, [vec![2, 3], vec![], vec![0], vec![0]]);
/// let out = graph_kernel::sequential::simple_rows(&list, true).unwrap();
/// assert_eq!(out, [vec![2, 3], vec![], vec![0], vec![]]);
/// ```
pub fn simple_rows(list: &EdgeList<'_>, directed: bool) -> Result<Vec<Vec<u32>>, KernelError> {
    let whole = Partition::single(list.num_vertices());
    let g = build_trustees_with(list, &whole, 0..1, directed)?
        .remove(0)
        .without_weights();
    Ok((0..list.num_vertices())
        .map(|v| {
            let mut a = g.adjacency(v).0.to_vec();
            a.sort_unstable();
            a.dedup();
            a
        })
        .collect())
}
