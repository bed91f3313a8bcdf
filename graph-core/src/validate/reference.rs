//! Sequential BFS and Dijkstra over an edge list: the plain answers tests
//! hold the distributed kernels and the validators against. Self-loops are
//! skipped; on an undirected list every edge goes both ways, on a directed
//! one only from `u` to `v`.
//!
//! ```
//! use graph_core::validate::reference;
//! use graph_core::{EdgeList, PackedEdge};
//! let e = |u, v, w| PackedEdge::new(u, v, w);
//! let list = EdgeList::from_edges(3, vec![e(0, 1, 0.5), e(2, 1, 0.25)]).unwrap();
//! assert_eq!(reference::bfs(&list, 1, false).1, [1, 0, 1]);
//! assert_eq!(reference::bfs(&list, 1, true).1, [-1, 0, -1]);
//! assert_eq!(reference::dijkstra(&list, 0, false).1, [0.0, 0.5, 0.75]);
//! ```

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use super::tree::NO_PARENT;
use crate::edge_list::EdgeList;

/// The rows of `list`: out-edges when `directed`, else both directions.
pub fn adjacency(list: &EdgeList<'_>, directed: bool) -> Vec<Vec<(u64, f32)>> {
    let mut adj = vec![Vec::new(); list.num_vertices() as usize];
    for e in list.edges().iter().filter(|e| e.u != e.v) {
        adj[e.u as usize].push((u64::from(e.v), e.w));
        if !directed {
            adj[e.v as usize].push((u64::from(e.u), e.w));
        }
    }
    adj
}

/// Dijkstra in `f32` from `root` (non-negative `f32` bits order like the
/// values): parents (`NO_PARENT` when unreached, the root its own) and
/// distances (infinite when unreached).
pub fn dijkstra(list: &EdgeList<'_>, root: u64, directed: bool) -> (Vec<u64>, Vec<f32>) {
    let adj = adjacency(list, directed);
    let n = adj.len();
    let (mut parent, mut dist) = (vec![NO_PARENT; n], vec![f32::INFINITY; n]);
    parent[root as usize] = root;
    dist[root as usize] = 0.0;
    let mut heap = BinaryHeap::from([Reverse((0u32, root))]);
    while let Some(Reverse((bits, u))) = heap.pop() {
        let d = f32::from_bits(bits);
        if d > dist[u as usize] {
            continue;
        }
        for &(v, w) in &adj[u as usize] {
            let nd = d + w;
            if nd < dist[v as usize] {
                dist[v as usize] = nd;
                parent[v as usize] = u;
                heap.push(Reverse((nd.to_bits(), v)));
            }
        }
    }
    (parent, dist)
}

/// BFS from `root`: parents (as [`dijkstra`]'s) and levels (-1 when
/// unreached).
pub fn bfs(list: &EdgeList<'_>, root: u64, directed: bool) -> (Vec<u64>, Vec<i64>) {
    let adj = adjacency(list, directed);
    let n = adj.len();
    let (mut parent, mut level) = (vec![NO_PARENT; n], vec![-1i64; n]);
    parent[root as usize] = root;
    level[root as usize] = 0;
    let mut queue = VecDeque::from([root]);
    while let Some(u) = queue.pop_front() {
        for &(v, _) in &adj[u as usize] {
            if parent[v as usize] == NO_PARENT {
                parent[v as usize] = u;
                level[v as usize] = level[u as usize] + 1;
                queue.push_back(v);
            }
        }
    }
    (parent, level)
}
