//! The triangle count of an edge list, counted sequentially, and a check of
//! a count against it: the verifier of the `tc` kernel, kept here beside
//! the BFS and SSSP validators so that the kernel's crate holds the kernel.
//!
//! The graph is taken as a simple undirected graph (self-loops and repeated
//! edges ignored, as GAPBS's builder removes them). The count orients each
//! edge from its end of lower `(degree, id)` to the higher one and, for
//! every oriented edge `a → b`, looks each out-neighbour of `b` up among
//! those of `a` by binary search: a triangle `a ≺ b ≺ c` is found once, at
//! `a → b`. It shares no code with the kernel, which marks `out(a)` in a
//! bitmap.
//!
//! ```
//! use graph_core::validate::{tc_sequential, verify_tc};
//! use graph_core::{EdgeList, PackedEdge};
//! // A square with one diagonal (and the diagonal repeated): two triangles.
//! let e = |u, v| PackedEdge::new(u, v, 1.0);
//! let list = EdgeList::from_edges(4, vec![e(0, 1), e(1, 2), e(2, 3), e(3, 0), e(0, 2), e(2, 0)]).unwrap();
//! assert_eq!(tc_sequential(&list).unwrap(), 2);
//! assert_eq!(verify_tc(&list, 2), Ok(2));
//! assert!(verify_tc(&list, 3).unwrap_err().contains("has 2"));
//! ```

use crate::csr::build_whole;
use crate::edge_list::EdgeList;
use crate::sharded::KernelError;

/// Triangles of the simple graph of `list`, counted on one thread (see the
/// module docs).
pub fn tc_sequential(list: &EdgeList<'_>) -> Result<u64, KernelError> {
    // The weights are never read: freed before the rows are made.
    let g = build_whole(list)?.without_weights();
    let rows: Vec<Vec<u32>> = (0..g.num_local_vertices())
        .map(|v| {
            let mut row = g.adjacency(v).0.to_vec();
            row.sort_unstable();
            row.dedup();
            row
        })
        .collect();
    let key = |v: u32| (rows[v as usize].len(), v);
    let higher = |(a, row): (usize, &Vec<u32>)| {
        let above = row.iter().filter(|&&b| key(a as u32) < key(b));
        above.copied().collect()
    };
    let out: Vec<Vec<u32>> = rows.iter().enumerate().map(higher).collect();
    let mut triangles = 0;
    for a in &out {
        for &b in a {
            let common = out[b as usize]
                .iter()
                .filter(|c| a.binary_search(c).is_ok());
            triangles += common.count() as u64;
        }
    }
    Ok(triangles)
}

/// Checks a triangle count of `list` without trusting its producer: counts
/// the triangles again with [`tc_sequential`] and compares. Returns the
/// count, or what is wrong.
pub fn verify_tc(list: &EdgeList<'_>, triangles: u64) -> Result<u64, String> {
    let count = tc_sequential(list).map_err(|e| e.to_string())?;
    if count != triangles {
        return Err(format!(
            "{triangles} triangles reported, but the graph (self-loops and repeated edges ignored) has {count}"
        ));
    }
    Ok(count)
}
