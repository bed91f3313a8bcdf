//! [`verify_bc_rows`]: betweenness scores from a few sources checked
//! against a sequential Brandes over a whole graph's rows (a built file's,
//! mapped), with no list and no adjacency of its own.
//!
//! The reference ([`bc_rows`]) is the one the `bc` crate's verifier
//! computes from the list (GAPBS's verifier's): for each source, a
//! breadth-first search counting shortest paths `σ`, then from the deepest
//! level up each vertex's dependency `δ(u) = Σ σ(u)/σ(v) · (1 + δ(v))`
//! over its successors `v` (neighbours, or out-arcs, one level deeper),
//! added to its score, the source's own included; the sums divided by the
//! largest. It reads the rows level by level, each level's vertices in
//! ascending order (sorted once they are all known), so that every pass
//! over a built file's rows goes up the file and gives its pages back
//! behind it: it holds about 2 MiB of the file, not the file. Per vertex
//! it holds 32 B (the scores it sums, `σ`, `δ`, the depth, the order of
//! arrival and a tag that sees each neighbour of a row once).
//!
//! Path counts pass `f64`'s range on deep graphs (a grid of a thousand
//! levels); each level's counts are kept as `f64`s times a power of two of
//! the level, scaled down (exactly) when the level's largest passes
//! `2^600`. Where no level is scaled (Kronecker graphs) every count is the
//! plain `f64` sum.

use super::row_reads::{RowReads, Tags};
use crate::alloc::{reserve_or_exit, vec_or_exit};

/// Depth of a vertex not reached from the current source.
const UNSEEN: u32 = u32::MAX;

/// A level whose largest path count passes this is scaled down.
const BIG: f64 = f64::from_bits((1023 + 600) << 52);

/// Betweenness from `sources` of the graph of `rows` (the simple graph:
/// repeats and self-loops ignored; a directed graph's rows are out-arcs
/// and the search follows them), divided by the largest score: the
/// reference of [`verify_bc_rows`] (see the module docs).
///
/// ```
/// use graph_core::validate::bc_rows;
/// // A path 0 - 1 - 2 with a repeated edge: from 0, vertex 1 carries the path to 2.
/// let mut rows = vec![vec![1, 1], vec![0, 2, 0], vec![1]];
/// assert_eq!(bc_rows(&[0], &mut rows).unwrap(), [1.0, 0.5, 0.0]);
/// assert!(bc_rows(&[3], &mut rows).is_err());
/// ```
pub fn bc_rows(sources: &[u64], rows: &mut dyn RowReads) -> Result<Vec<f64>, String> {
    let n = rows.num_vertices() as usize;
    if let Some(s) = sources.iter().find(|&&s| s >= n as u64) {
        return Err(format!("source {s} is not a vertex (the graph has {n})"));
    }
    let mut scores = vec_or_exit(n, 0.0f64, "bc reference scores");
    let mut depth = vec_or_exit(n, UNSEEN, "bc reference depths");
    let mut sigma = vec_or_exit(n, 0.0f64, "bc reference path counts");
    let mut delta = vec_or_exit(n, 0.0f64, "bc reference dependencies");
    let mut order: Vec<u32> = Vec::new();
    reserve_or_exit(&mut order, n, "bc reference order");
    let mut tags = Tags::new(n);
    for &s in sources {
        let s = s as u32;
        order.clear();
        order.push(s);
        depth[s as usize] = 0;
        sigma[s as usize] = 1.0;
        // Level d is order[starts[d]..starts[d + 1]], ascending; its
        // counts are sigma times 2^scale[d].
        let (mut starts, mut scale) = (vec![0, 1], vec![0i32]);
        loop {
            let d = starts.len() - 2;
            let (lo, hi) = (starts[d], starts[d + 1]);
            for i in lo..hi {
                let u = order[i];
                rows.done_below(u);
                let t = tags.fresh(0);
                let su = sigma[u as usize];
                for &v in rows.row(u)? {
                    if tags.get(v) == t {
                        continue;
                    }
                    tags.set(v, t);
                    let v = v as usize;
                    if depth[v] == UNSEEN {
                        depth[v] = d as u32 + 1;
                        sigma[v] = su;
                        order.push(v as u32);
                    } else if depth[v] == d as u32 + 1 {
                        sigma[v] += su;
                    }
                }
            }
            rows.pass_done();
            let next = &mut order[hi..];
            if next.is_empty() {
                break;
            }
            next.sort_unstable();
            let big = next.iter().map(|&v| sigma[v as usize]).fold(0.0, f64::max);
            let mut k = scale[d];
            if big > BIG {
                let e = big.log2().floor() as i32;
                let down = 2f64.powi(-e);
                next.iter().for_each(|&v| sigma[v as usize] *= down);
                k += e;
            }
            scale.push(k);
            starts.push(order.len());
        }
        // Backward, deepest level first (its vertices have no successors).
        let levels = starts.len() - 1;
        for &v in &order[starts[levels - 1]..] {
            delta[v as usize] = 0.0;
        }
        for d in (0..levels - 1).rev() {
            let ratio = 2f64.powi(scale[d] - scale[d + 1]);
            for &u in &order[starts[d]..starts[d + 1]] {
                rows.done_below(u);
                let t = tags.fresh(0);
                let su = sigma[u as usize];
                let mut sum = 0.0;
                for &v in rows.row(u)? {
                    if tags.get(v) == t {
                        continue;
                    }
                    tags.set(v, t);
                    let v = v as usize;
                    if depth[v] == d as u32 + 1 {
                        sum += su / sigma[v] * ratio * (1.0 + delta[v]);
                    }
                }
                delta[u as usize] = sum;
                scores[u as usize] += sum;
            }
            rows.pass_done();
        }
        for &v in &order {
            depth[v as usize] = UNSEEN;
        }
    }
    let biggest = scores.iter().copied().fold(0.0, f64::max);
    if biggest > 0.0 {
        scores.iter_mut().for_each(|x| *x /= biggest);
    }
    Ok(scores)
}

/// Checks betweenness scores from `sources` against the graph's rows
/// without trusting their producer, as the `bc` crate's `verify_bc_as`
/// checks them against the list: one score per vertex, all in `[0, 1]`,
/// the largest equal to the reference's (1, or 0 when no source has an
/// edge), and every score within `tolerance` of the reference's
/// ([`bc_rows`]). Returns the largest difference, or what is wrong.
///
/// ```
/// use graph_core::validate::verify_bc_rows;
/// let mut rows = vec![vec![1], vec![0, 2], vec![1], vec![]];
/// assert_eq!(verify_bc_rows(&[0], &[1.0, 0.5, 0.0, 0.0], 1e-9, &mut rows), Ok(0.0));
/// assert!(verify_bc_rows(&[0], &[1.0, 0.4, 0.0, 0.0], 1e-9, &mut rows).unwrap_err().contains("vertex 1"));
/// assert!(verify_bc_rows(&[0], &[0.9, 0.5, 0.0, 0.0], 1e-9, &mut rows).unwrap_err().contains("largest"));
/// ```
pub fn verify_bc_rows(
    sources: &[u64],
    scores: &[f64],
    tolerance: f64,
    rows: &mut dyn RowReads,
) -> Result<f64, String> {
    check_bc_scores(scores, rows.num_vertices() as usize)?;
    let want = bc_rows(sources, rows)?;
    compare_bc_scores(scores, &want, tolerance)
}

/// The checks of betweenness scores that need no reference: one score
/// per vertex of a graph of `n`, each in [0, 1] (they are normalised).
/// Run before the reference, which costs a search per source.
pub fn check_bc_scores(scores: &[f64], n: usize) -> Result<(), String> {
    if scores.len() != n {
        return Err(format!(
            "{} scores for a graph of {n} vertices",
            scores.len()
        ));
    }
    if let Some(v) = scores.iter().position(|x| !(0.0..=1.0).contains(x)) {
        return Err(format!(
            "vertex {v} has score {}: normalised scores lie in [0, 1]",
            scores[v]
        ));
    }
    Ok(())
}

/// Compares normalised betweenness scores with a reference's (`want`,
/// the same length): the largest must be the reference's exactly (both
/// divide by it), every other within `tolerance`. The largest difference
/// when they agree; else which vertex and by how much.
pub fn compare_bc_scores(scores: &[f64], want: &[f64], tolerance: f64) -> Result<f64, String> {
    let biggest = scores.iter().copied().fold(0.0, f64::max);
    let want_biggest = want.iter().copied().fold(0.0, f64::max);
    if biggest != want_biggest {
        return Err(format!(
            "the largest score is {biggest}, expected {want_biggest} (scores are divided by the largest)"
        ));
    }
    let mut worst = 0.0f64;
    for (v, (&got, &w)) in scores.iter().zip(want).enumerate() {
        let diff = (got - w).abs();
        if diff.is_nan() || diff > tolerance {
            return Err(format!(
                "vertex {v} has score {got}, the sequential reference {w} (difference {diff:e} > {tolerance:e})"
            ));
        }
        worst = worst.max(diff);
    }
    Ok(worst)
}
