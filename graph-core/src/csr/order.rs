//! The order in which the kernels lay out a trustee's vertices (their
//! *positions*, see graph-kernel's adjacency): by decreasing degree when
//! the degrees are skewed, so the hubs come first in every row (a
//! bottom-up BFS step or Afforest's first-neighbour link finds them
//! soonest), and the input's own order otherwise, so that on a graph
//! without hubs, such as a road network, neighbours that are near in the
//! input stay near in memory.
//!
//! Measured on a 2048 x 2048 road-like grid (mean degree 3.6, max 4; 2
//! threads, same run, under load): cc 0.35 s by degree against 0.13 s in
//! input order, SSSP 1.29 against 0.64 s, BFS 0.75 against 0.52 s: sorting
//! by degree scattered the grid's neighbours over the whole array.

/// Degrees are *skewed* when the largest is above this many times the
/// mean: Graph500 and social graphs (hubs of thousands of neighbours
/// against a mean of tens) are far above it; road networks (roadNet-CA:
/// mean 2.8, max 12) and grids (3.6 and 4), and uniform random graphs,
/// below.
pub const SKEW: u64 = 8;

/// `ranks[l]`: the position of local vertex `l` of `n` with degrees
/// `degree(l)`: by decreasing degree (stable: ties keep local order) when
/// the degrees are skewed (the largest above [`SKEW`] times the mean),
/// local order otherwise.
///
/// ```
/// use graph_core::csr::positions;
/// // A star: the hub (vertex 3) comes first, the rest keep their order.
/// let star = [1u64, 1, 1, 40, 1, 1, 1, 1, 1, 1, 1, 1];
/// assert_eq!(positions(12, |l| star[l as usize])[..4], [1, 2, 3, 0]);
/// // A path: no hub, local order.
/// assert_eq!(positions(4, |l| [1u64, 2, 2, 1][l as usize]), [0, 1, 2, 3]);
/// ```
pub fn positions(n: u32, degree: impl Fn(u32) -> u64) -> Vec<u32> {
    let (mut sum, mut max) = (0u64, 0u64);
    for l in 0..n {
        let d = degree(l);
        sum += d;
        max = max.max(d);
    }
    let mut by_order: Vec<u32> = Vec::new();
    crate::alloc::reserve_or_exit(&mut by_order, n as usize, "vertices by degree");
    by_order.extend(0..n);
    // max > SKEW * mean, without dividing.
    if u128::from(max) * u128::from(n) > u128::from(SKEW) * u128::from(sum) {
        by_order.sort_by_key(|&l| std::cmp::Reverse(degree(l)));
    }
    let mut rank = crate::alloc::vec_or_exit(n as usize, 0u32, "vertex positions");
    for (r, &l) in by_order.iter().enumerate() {
        rank[l as usize] = r as u32;
    }
    rank
}
