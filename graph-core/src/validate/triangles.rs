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

use super::row_reads::{RowReads, Tags};
use crate::alloc::vec_or_exit;
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

/// Triangles of the simple graph of `rows` (repeats and self-loops
/// ignored; the rows of an undirected graph, each edge in both), counted
/// on one thread as [`tc_sequential`] counts them (see the module docs).
///
/// ```
/// use graph_core::validate::tc_rows;
/// // A square 0-1-2-3 with the diagonal 0-2 (repeated): two triangles.
/// let mut rows = vec![vec![1, 3, 2, 2], vec![0, 2], vec![1, 3, 0, 0], vec![2, 0]];
/// assert_eq!(tc_rows(&mut rows), Ok(2));
/// ```
pub fn tc_rows(rows: &mut dyn RowReads) -> Result<u64, String> {
    let n = rows.num_vertices() as usize;
    let mut tags = Tags::new(n);
    // Each row's distinct neighbours other than the vertex, once.
    let mut each = |rows: &mut dyn RowReads, f: &mut dyn FnMut(u32, u32)| {
        for u in 0..n as u32 {
            rows.done_below(u);
            let t = tags.fresh(0);
            for &v in rows.row(u)? {
                if v != u && tags.get(v) != t {
                    tags.set(v, t);
                    f(u, v);
                }
            }
        }
        rows.pass_done();
        Ok::<(), String>(())
    };
    let mut degree = vec_or_exit(n, 0u32, "tc reference degrees");
    each(rows, &mut |u, _| degree[u as usize] += 1)?;
    let higher = |u: u32, v: u32| (degree[v as usize], v) > (degree[u as usize], u);
    let mut start = vec_or_exit(n + 1, 0u64, "tc reference offsets");
    each(rows, &mut |u, v| {
        start[u as usize + 1] += u64::from(higher(u, v))
    })?;
    for u in 0..n {
        start[u + 1] += start[u];
    }
    let mut out = vec_or_exit(start[n] as usize, 0u32, "tc reference out-lists");
    let mut at = start.clone();
    each(rows, &mut |u, v| {
        if higher(u, v) {
            out[at[u as usize] as usize] = v;
            at[u as usize] += 1;
        }
    })?;
    drop((at, degree));
    let list = |v: u32| &out[start[v as usize] as usize..start[v as usize + 1] as usize];
    let mut triangles = 0u64;
    for a in 0..n as u32 {
        let t = tags.fresh(0);
        list(a).iter().for_each(|&b| tags.set(b, t));
        for &b in list(a) {
            triangles += list(b).iter().filter(|&&c| tags.get(c) == t).count() as u64;
        }
    }
    Ok(triangles)
}

/// [`verify_tc`] from the graph's rows ([`tc_rows`]): the same count and
/// verdict, with no list and no adjacency of its own.
///
/// ```
/// use graph_core::validate::verify_tc_rows;
/// let mut rows = vec![vec![1, 2], vec![0, 2], vec![0, 1], vec![]];
/// assert_eq!(verify_tc_rows(1, &mut rows), Ok(1));
/// assert!(verify_tc_rows(2, &mut rows).unwrap_err().contains("has 1"));
/// ```
pub fn verify_tc_rows(triangles: u64, rows: &mut dyn RowReads) -> Result<u64, String> {
    let count = tc_rows(rows)?;
    if count != triangles {
        return Err(format!(
            "{triangles} triangles reported, but the graph (self-loops and repeated edges ignored) has {count}"
        ));
    }
    Ok(count)
}
