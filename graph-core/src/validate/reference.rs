//! Sequential BFS, Dijkstra, connected components and PageRank over an
//! edge list: the plain answers tests hold the distributed kernels and the
//! validators against. Self-loops are skipped; on an undirected list every
//! edge goes both ways, on a directed one only from `u` to `v` (connected
//! components are then the weak ones).
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

use super::pagerank::Simple;
use super::tree::NO_PARENT;
use crate::alloc::vec_or_exit;
use crate::csr::CsrError;
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

/// Connected components by union-find over the edge list (union by smaller
/// root, path halving): each vertex's label is the smallest id of its
/// component. Self-loops change nothing; arcs count as edges.
///
/// ```
/// use graph_core::{EdgeList, PackedEdge};
/// let list = EdgeList::from_edges(4, vec![PackedEdge::new(3, 1, 1.0)]).unwrap();
/// assert_eq!(graph_core::validate::reference::cc(&list), [0, 1, 2, 1]);
/// ```
pub fn cc(list: &EdgeList<'_>) -> Vec<u64> {
    let n = list.num_vertices() as usize;
    let mut parent: Vec<u32> = vec_or_exit(n, 0, "union-find parents");
    parent
        .iter_mut()
        .enumerate()
        .for_each(|(v, p)| *p = v as u32);
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

/// What [`pagerank`] computed.
#[derive(Clone, Debug, PartialEq)]
pub struct PageRank {
    /// Score of every vertex.
    pub scores: Vec<f64>,
    /// Iterations run.
    pub iterations: u32,
    /// Residual of the last iteration.
    pub residual: f64,
}

/// PageRank as GAPBS's `pr` formulates it, on the simple graph (parallel
/// edges once, no self-loops), in `f64`, Jacobi: scores start at `1/n`;
/// each iteration every vertex takes `(1 - damping)/n + damping * sum of
/// score(u)/deg(u)` over its neighbours `u` (on a directed list: over the
/// tails of its in-arcs, `deg` the out-degree; a vertex without out-arcs
/// contributes nothing), summed in id order; stops after `max_iterations`
/// or once an iteration's residual (sum of `|change|`) is below
/// `tolerance`.
///
/// ```
/// use graph_core::validate::reference::pagerank;
/// use graph_core::{EdgeList, PackedEdge};
/// let e = |u, v| PackedEdge::new(u, v, 1.0);
/// let list = EdgeList::from_edges(3, vec![e(0, 1)]).unwrap();
/// let out = pagerank(&list, false, 0.85, 20, 1e-4).unwrap();
/// // Vertex 2 has no edge: it keeps the base score (1 - 0.85) / 3.
/// assert!((out.scores[2] - 0.05).abs() < 1e-15);
/// assert!(out.iterations < 20);
/// // A parallel edge and a self-loop change nothing (the graph is simple).
/// let multi = EdgeList::from_edges(3, vec![e(0, 1), e(1, 0), e(2, 2)]).unwrap();
/// assert_eq!(pagerank(&multi, false, 0.85, 20, 1e-4).unwrap(), out);
/// // 0 -> 1 -> 2 read as arcs: 2 has no out-arc, its share leaks.
/// let path = EdgeList::from_edges(3, vec![e(0, 1), e(1, 2)]).unwrap();
/// let out = pagerank(&path, true, 0.85, 20, 1e-4).unwrap();
/// let base = 0.15 / 3.0;
/// assert!((out.scores[0] - base).abs() < 1e-15);
/// assert!((out.scores[1] - (base + 0.85 * base)).abs() < 1e-15);
/// assert!(out.scores.iter().sum::<f64>() < 1.0);
/// ```
pub fn pagerank(
    list: &EdgeList<'_>,
    directed: bool,
    damping: f64,
    max_iterations: u32,
    tolerance: f64,
) -> Result<PageRank, CsrError> {
    let graph = Simple::new(list, directed)?;
    let n = list.num_vertices() as usize;
    let mut scores = vec![1.0 / n as f64; n];
    let (mut iterations, mut residual) = (0, f64::INFINITY);
    while iterations < max_iterations && residual >= tolerance {
        (scores, residual) = graph.iterate(&scores, damping);
        iterations += 1;
    }
    Ok(PageRank {
        scores,
        iterations,
        residual,
    })
}
