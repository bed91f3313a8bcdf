//! How the graph's edge endpoints are expected to spread over groups of
//! vertices (the ranks of a partition), without generating an edge.
//!
//! The R-MAT recursion picks, at each of the `scale` levels, a quadrant with
//! probabilities A, B, C, D; an edge's source gets bit 0 at a level with
//! probability A + B and its target with A + C. So the expected number of
//! endpoints at the unscrambled vertex `u` is
//! `m * ((A+B)^(scale-k) (C+D)^k + (A+C)^(scale-k) (B+D)^k)` with `k` the
//! number of 1 bits of `u` (clipping to the upper triangle only swaps the
//! two ends of an edge, so the endpoints stay the same). With Graph500's
//! B = C this is `2m * 0.76^(scale-k) * 0.24^k`, and these weights sum to
//! one over all `u`. Scrambling moves `u` to its final id, and a group's
//! expected share is the sum of the weights that land in it.
//!
//! The scramble is a fixed bijection, not a random permutation, and it
//! leaves the heavy vertices unevenly spread over contiguous id ranges: at
//! SCALE 20 the last of 4 blocks holds 12% more endpoints than the average,
//! the heaviest of 32 blocks 49% more (round-robin groups: 1-9%). Memory
//! estimates per rank use these shares instead of an even split.

use crate::kronecker::Kronecker;
use rayon::prelude::*;

/// Unscrambled ids per rayon task.
const CHUNK: u64 = 1 << 16;

/// R-MAT's quadrant probabilities (the reference's A, B, C, D).
const A: f64 = 0.57;
const B: f64 = 0.19;
const C: f64 = 0.19;
const D: f64 = 0.05;

impl Kronecker {
    /// The expected share of the edge endpoints (adjacency entries of the
    /// undirected graph) held by each of `groups` groups when vertex `v`
    /// belongs to group `group_of(v)` (`< groups`). The shares sum to 1.
    /// Costs one scramble per vertex (about a second at SCALE 27, on one
    /// core), spread over rayon's current pool.
    ///
    /// ```
    /// use generators::{Graph500Config, Kronecker};
    /// let g = Kronecker::new(Graph500Config::with_scale(16)).unwrap();
    /// let n = g.num_vertices();
    /// let blocks = g.expected_endpoint_shares(4, |v| (v * 4 / n) as usize);
    /// assert!((blocks.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    /// let heaviest = blocks.iter().cloned().fold(0.0, f64::max);
    /// assert!(heaviest > 0.25); // not an even split
    /// ```
    pub fn expected_endpoint_shares(
        &self,
        groups: usize,
        group_of: impl Fn(u64) -> usize + Sync,
    ) -> Vec<f64> {
        let scale = self.config().scale;
        // Weight of an unscrambled vertex with k one bits.
        let weight: Vec<f64> = (0..=scale as i32)
            .map(|k| {
                let out = (A + B).powi(scale as i32 - k) * (C + D).powi(k);
                let inn = (A + C).powi(scale as i32 - k) * (B + D).powi(k);
                (out + inn) / 2.0
            })
            .collect();
        let n = self.num_vertices();
        let scrambler = self.scrambler();
        (0..n.div_ceil(CHUNK))
            .into_par_iter()
            .fold(
                || vec![0.0f64; groups],
                |mut acc, c| {
                    for u in c * CHUNK..((c + 1) * CHUNK).min(n) {
                        let g = group_of(scrambler.apply(u));
                        acc[g] += weight[u.count_ones() as usize];
                    }
                    acc
                },
            )
            .reduce(
                || vec![0.0f64; groups],
                |mut a, b| {
                    a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                    a
                },
            )
    }
}

#[cfg(test)]
mod tests {
    use crate::{Graph500Config, Kronecker};

    /// The expected shares against the endpoints of the generated edges.
    fn measured(g: &Kronecker, groups: usize, group_of: impl Fn(u64) -> usize) -> Vec<f64> {
        let mut c = vec![0u64; groups];
        for e in g.edges(0..g.num_edges()) {
            c[group_of(e.u)] += 1;
            c[group_of(e.v)] += 1;
        }
        let total = 2 * g.num_edges();
        c.iter().map(|&x| x as f64 / total as f64).collect()
    }

    #[test]
    fn expected_shares_follow_the_generated_edges() {
        let g = Kronecker::new(Graph500Config::with_scale(16)).unwrap();
        let n = g.num_vertices();
        for groups in [2usize, 4, 8] {
            let block = |v: u64| (v * groups as u64 / n) as usize;
            let cyclic = |v: u64| (v % groups as u64) as usize;
            for (name, exp, got) in [
                (
                    "block",
                    g.expected_endpoint_shares(groups, block),
                    measured(&g, groups, block),
                ),
                (
                    "cyclic",
                    g.expected_endpoint_shares(groups, cyclic),
                    measured(&g, groups, cyclic),
                ),
            ] {
                for (e, m) in exp.iter().zip(&got) {
                    // Within 3% of each share (sampling noise of one graph).
                    assert!(
                        (e - m).abs() < 0.03 * m,
                        "{name} x{groups}: expected {exp:?}, generated {got:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_block_partition_is_uneven_and_the_estimate_sees_it() {
        let g = Kronecker::new(Graph500Config::with_scale(16)).unwrap();
        let n = g.num_vertices();
        let s = g.expected_endpoint_shares(8, |v| (v * 8 / n) as usize);
        let m = measured(&g, 8, |v| (v * 8 / n) as usize);
        let heaviest = |x: &[f64]| x.iter().cloned().fold(0.0, f64::max) * 8.0;
        // The generated graph's heaviest block is well above an even split,
        // and the expectation says so too.
        assert!(heaviest(&m) > 1.08, "{m:?}");
        assert!(heaviest(&s) > 1.08, "{s:?}");
    }
}
