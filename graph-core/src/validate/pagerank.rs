//! [`verify_pagerank`]: a check of PageRank scores against the edge list,
//! whoever computed them; `Simple`, the graph as PageRank reads it (shared
//! with [`reference::pagerank`](super::reference::pagerank)).

use super::components::RowPass;
use crate::alloc::vec_or_exit;
use crate::csr::{build_trustees_with, CsrError};
use crate::edge_list::EdgeList;
use crate::partition::Partition;
use crate::Shard;

/// The whole graph as a simple graph (each neighbour once, no self-loops,
/// as GAPBS builds it): every vertex's out-degree, and the rows PageRank
/// pulls along (the in-arcs on a directed graph, else the edges).
pub(super) struct Simple {
    degree: Vec<usize>,
    starts: Vec<usize>,
    targets: Vec<u32>,
}

impl Simple {
    /// The simple graph of `list`, its records read as arcs when `directed`.
    pub(super) fn new(list: &EdgeList<'_>, directed: bool) -> Result<Self, CsrError> {
        let p = Partition::single(list.num_vertices());
        // The weights are never read: freed before the simple rows are made.
        let g = build_trustees_with(list, &p, 0..1, directed)?
            .remove(0)
            .without_weights();
        let (out_starts, out_targets) = simple(&g, |v| g.adjacency(v).0);
        let degree = out_starts.windows(2).map(|w| w[1] - w[0]).collect();
        let (starts, targets) = if directed {
            simple(&g, |v| g.in_neighbors(v))
        } else {
            (out_starts, out_targets)
        };
        Ok(Simple {
            degree,
            starts,
            targets,
        })
    }

    /// One iteration from `score`, each vertex's contributions summed in id
    /// order: the new scores and the residual (sum of `|change|`).
    pub(super) fn iterate(&self, score: &[f64], damping: f64) -> (Vec<f64>, f64) {
        let base = (1.0 - damping) / score.len() as f64;
        let share: Vec<f64> = score
            .iter()
            .zip(&self.degree)
            .map(|(&s, &d)| if d > 0 { s / d as f64 } else { 0.0 })
            .collect();
        let mut residual = 0.0;
        let next = (0..score.len())
            .map(|v| {
                let row = &self.targets[self.starts[v]..self.starts[v + 1]];
                let incoming: f64 = row.iter().map(|&u| share[u as usize]).sum();
                let new = base + damping * incoming;
                residual += (new - score[v]).abs();
                new
            })
            .collect();
        (next, residual)
    }
}

/// Rows `row(v)` of every vertex of `g`, sorted, each neighbour once:
/// `(starts, targets)`.
fn simple<'g>(g: &'g Shard, row: impl Fn(u64) -> &'g [u32]) -> (Vec<usize>, Vec<u32>) {
    let n = g.num_local_vertices() as usize;
    let (mut starts, mut targets) = (Vec::with_capacity(n + 1), Vec::new());
    starts.push(0);
    for v in 0..n as u64 {
        let at = targets.len();
        targets.extend_from_slice(row(v));
        targets[at..].sort_unstable();
        let mut row = targets.split_off(at);
        row.dedup();
        targets.extend_from_slice(&row);
        starts.push(targets.len());
    }
    (starts, targets)
}

/// Checks PageRank scores of `list` (its records read as arcs when
/// `directed`; see [`reference::pagerank`](super::reference::pagerank))
/// with damping factor `damping` without trusting their producer: one
/// finite score per vertex, each at least the base score `(1 - d)/n`; then
/// runs one more iteration from the scores and returns its residual `r`:
/// below the tolerance for a converged result (and at most `d` times the
/// last residual in any case). The total is at most 1 at the fixed point
/// (mass only leaks, at vertices without out-edges) and in every Jacobi
/// iterate from `1/n`; a Gauss–Seidel iterate may exceed it, by at most
/// `r / (1 - d)` (one iteration moves the total by at least `(1 - d)` x the
/// excess), which is all that is checked.
///
/// ```
/// use graph_core::validate::verify_pagerank;
/// use graph_core::{EdgeList, PackedEdge};
/// let list = EdgeList::from_edges(2, vec![PackedEdge::new(0, 1, 1.0)]).unwrap();
/// assert_eq!(verify_pagerank(&list, false, &[0.5, 0.5], 0.85), Ok(0.0));
/// assert!(verify_pagerank(&list, false, &[0.9, 0.1], 0.85).unwrap() > 0.1);
/// assert!(verify_pagerank(&list, false, &[0.5], 0.85).is_err());
/// ```
pub fn verify_pagerank(
    list: &EdgeList<'_>,
    directed: bool,
    scores: &[f64],
    damping: f64,
) -> Result<f64, String> {
    let total = check_scores(list.num_vertices(), scores, damping)?;
    let graph = Simple::new(list, directed).map_err(|e| e.to_string())?;
    let r = graph.iterate(scores, damping).1;
    check_total(total, r, damping)
}

/// [`verify_pagerank`] on a graph of `n` vertices given as rows instead
/// of a list (a built file's, read piece by piece): `out_rows` every
/// vertex's out-neighbours (an undirected graph's neighbours), `in_rows`
/// the tails of its in-arcs (an undirected graph's neighbours again),
/// each in vertex order, duplicates allowed, no self-loops. The same
/// checks and, summed in the same order, the same residual bit for bit;
/// it holds 12 bytes per vertex (out-degrees, then shares) and a row,
/// not a copy of the graph.
///
/// ```
/// use graph_core::validate::verify_pagerank_rows;
/// let rows = |f: &mut dyn FnMut(usize, &[u32])| {
///     f(0, &[1]);
///     f(1, &[0, 0]);
///     Ok(())
/// };
/// let check = |s: &[f64]| verify_pagerank_rows(2, s, 0.85, Box::new(rows), Box::new(rows));
/// assert_eq!(check(&[0.5, 0.5]), Ok(0.0));
/// assert!(check(&[0.9, 0.1]).unwrap() > 0.1);
/// assert!(check(&[0.5]).is_err());
/// ```
pub fn verify_pagerank_rows(
    n: u64,
    scores: &[f64],
    damping: f64,
    out_rows: RowPass<'_>,
    in_rows: RowPass<'_>,
) -> Result<f64, String> {
    let total = check_scores(n, scores, damping)?;
    let mut buf = Vec::new();
    let mut distinct = |row: &[u32]| -> usize {
        buf.clear();
        buf.extend_from_slice(row);
        buf.sort_unstable();
        buf.dedup();
        buf.len()
    };
    let mut degree: Vec<u32> = vec_or_exit(n as usize, 0, "PageRank check's degrees");
    out_rows(&mut |v, row| degree[v] = distinct(row) as u32)?;
    let share: Vec<f64> = scores
        .iter()
        .zip(&degree)
        .map(|(&s, &d)| if d > 0 { s / d as f64 } else { 0.0 })
        .collect();
    drop(degree);
    // As `Simple::iterate`: each in-row sorted, each tail once, summed in
    // id order; the residual summed in vertex order.
    let base = (1.0 - damping) / n as f64;
    let mut residual = 0.0;
    let mut buf = Vec::new();
    in_rows(&mut |v, row| {
        buf.clear();
        buf.extend_from_slice(row);
        buf.sort_unstable();
        buf.dedup();
        let incoming: f64 = buf.iter().map(|&u| share[u as usize]).sum();
        let new = base + damping * incoming;
        residual += (new - scores[v]).abs();
    })?;
    check_total(total, residual, damping)
}

/// The checks on the scores alone (damping, one finite score per vertex,
/// each at least the base score): their total.
fn check_scores(n: u64, scores: &[f64], damping: f64) -> Result<f64, String> {
    if !(0.0..1.0).contains(&damping) {
        return Err(format!(
            "damping = {damping}: expected a factor in [0, 1) (usually 0.85)"
        ));
    }
    let n = n as usize;
    if scores.len() != n {
        return Err(format!(
            "{} scores for a graph of {n} vertices",
            scores.len()
        ));
    }
    let base = (1.0 - damping) / n as f64;
    let mut total = 0.0;
    for (v, &s) in scores.iter().enumerate() {
        if !s.is_finite() || s < base * (1.0 - 1e-9) {
            return Err(format!(
                "vertex {v} has score {s}, below the base score {base} (or not finite)"
            ));
        }
        total += s;
    }
    Ok(total)
}

/// The total against one more iteration's residual `r`: `r`, or mass
/// created.
fn check_total(total: f64, r: f64, damping: f64) -> Result<f64, String> {
    if total > 1.0 + 1e-9 + r / (1.0 - damping) {
        return Err(format!(
            "scores sum to {total}, more than 1 + r / (1 - d) with one more iteration's residual r = {r}: mass was created"
        ));
    }
    Ok(r)
}
