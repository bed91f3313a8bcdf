//! The default Δ, derived from the graph: its weight range and average
//! degree ([`WeightProfile`], computed by
//! [`ShardedGraph::weight_profile`](graph_core::sharded::ShardedGraph::weight_profile);
//! [`derived_delta`]).
//!
//! The rule: **Δ = max(w_min, w_max / d²)**, with `w_min` and `w_max` the
//! smallest and largest weight among the adjacency entries (self-loops
//! left out) and `d` the entries per vertex (a directed graph's out-arcs,
//! an undirected graph's edges counted at both ends; at least 1).
//!
//! An empirical rule, fitted to where the measured optimum lies, not a
//! bound: Graph500 weights in [0, 1] at `d` ≈ 32 give Δ ≈ 0.001, the
//! middle of the flat optimum there ([`DEFAULT_DELTA`](crate::DEFAULT_DELTA),
//! `results/kernels/delta.md` run D); a road grid with lengths 1..1000 at
//! `d` ≈ 3.6 gives Δ ≈ 77, in the fast range there (run E: 19-77 within the
//! noise of a loaded machine, 10x the rule clearly slower, and 0.001 an
//! order of magnitude more rounds); unit weights give Δ = 1, one bucket
//! per hop. The intuition: the denser the graph, the more of a bucket's
//! light relaxations land back in it and are wasted, so Δ shrinks with
//! `d²`; on a sparse graph with long paths, each agreement is worth
//! several hops. `w_min` keeps Δ from dropping below the smallest step a
//! path takes.
//!
//! A graph without entries (or whose weights give no usable width) falls
//! back to [`DEFAULT_DELTA`](crate::DEFAULT_DELTA).

use graph_core::sharded::WeightProfile;

use crate::{check_delta, DEFAULT_DELTA};

/// The default Δ for a graph of profile `p`: `max(w_min, w_max / d²)` (see
/// the module docs), or [`DEFAULT_DELTA`] when that is no usable width
/// (no entries; all weights 0).
///
/// ```
/// use sssp::{derived_delta, WeightProfile};
/// // Graph500-like: weights in (0, 1], 32 entries per vertex.
/// let g500 = WeightProfile { min: 1e-7, max: 1.0, entries: 32 << 20, vertices: 1 << 20 };
/// assert!((derived_delta(&g500) - 1.0 / 1024.0).abs() < 1e-9);
/// // A road grid: lengths 1..1000, 3.6 entries per vertex.
/// let road = WeightProfile { min: 1.0, max: 1000.0, entries: 36, vertices: 10 };
/// assert!((derived_delta(&road) - 77.16).abs() < 0.01);
/// // Unit weights: one bucket per hop.
/// let unit = WeightProfile { min: 1.0, max: 1.0, entries: 36, vertices: 10 };
/// assert_eq!(derived_delta(&unit), 1.0);
/// ```
pub fn derived_delta(p: &WeightProfile) -> f32 {
    let d = p.average_degree();
    let delta = (f64::from(p.max) / (d * d)).max(f64::from(p.min)) as f32;
    if p.entries > 0 && check_delta(delta).is_ok() {
        delta
    } else {
        DEFAULT_DELTA
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_on_a_path() {
        // A path of 10 vertices with weights 1..=9: d = 1.8, so
        // max(1, 9 / 3.24) = 2.78.
        let p = WeightProfile {
            min: 1.0,
            max: 9.0,
            entries: 18,
            vertices: 10,
        };
        assert!((derived_delta(&p) - 9.0 / 3.24).abs() < 1e-5);
    }

    #[test]
    fn unusable_profiles_fall_back_to_the_constant() {
        let empty = WeightProfile {
            min: f32::INFINITY,
            max: f32::NEG_INFINITY,
            entries: 0,
            vertices: 5,
        };
        assert_eq!(derived_delta(&empty), DEFAULT_DELTA);
        let zeros = WeightProfile {
            min: 0.0,
            max: 0.0,
            entries: 8,
            vertices: 4,
        };
        assert_eq!(derived_delta(&zeros), DEFAULT_DELTA);
        // The smallest weight wins over a tiny w_max / d^2.
        let dense = WeightProfile {
            min: 0.5,
            max: 1.0,
            entries: 1000,
            vertices: 10,
        };
        assert_eq!(derived_delta(&dense), 0.5);
    }
}
