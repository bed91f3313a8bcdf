//! The default Δ, derived from the graph: its weight range and average
//! degree ([`WeightProfile`], [`derived_delta`]).
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

use graph_core::sharded::ShardedGraph;

use crate::{check_delta, DEFAULT_DELTA};

/// What the default Δ is derived from, over the whole graph: computed once
/// per graph, each trustee over its own shard, then combined.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WeightProfile {
    /// The smallest entry weight (`+inf` without entries).
    pub min: f32,
    /// The largest entry weight (`-inf` without entries).
    pub max: f32,
    /// Adjacency entries, all trustees (self-loops are not entries).
    pub entries: u64,
    /// Vertices of the graph.
    pub vertices: u64,
}

impl WeightProfile {
    /// The profile of `graph`'s adjacency (each trustee scans its shard's
    /// weights once). Call from a fiber of the graph's runtime.
    pub fn of_graph(graph: &ShardedGraph) -> WeightProfile {
        let parts = graph.on_trustees(|ctx| {
            ctx.local.apply_returning(|s| {
                let sh = s.shard();
                let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
                for &w in sh.weights() {
                    lo = lo.min(w);
                    hi = hi.max(w);
                }
                (lo, hi, sh.num_entries())
            })
        });
        parts.into_iter().fold(
            WeightProfile {
                min: f32::INFINITY,
                max: f32::NEG_INFINITY,
                entries: 0,
                vertices: graph.num_vertices(),
            },
            |p, (lo, hi, n)| WeightProfile {
                min: p.min.min(lo),
                max: p.max.max(hi),
                entries: p.entries + n,
                ..p
            },
        )
    }

    /// Entries per vertex (`d` of the rule), at least 1.
    pub fn average_degree(&self) -> f64 {
        (self.entries as f64 / self.vertices.max(1) as f64).max(1.0)
    }
}

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
    use graph_core::{EdgeList, PackedEdge, PartitionKind};

    #[test]
    fn the_profile_covers_every_trustee() {
        // A path 0-1-...-9 with weights 1..=9 and a self-loop of weight
        // 100, which is no entry.
        let mut edges: Vec<PackedEdge> = (0..9)
            .map(|v| PackedEdge::new(v, v + 1, (v + 1) as f32))
            .collect();
        edges.push(PackedEdge::new(4, 4, 100.0));
        let list = EdgeList::from_edges(10, edges).unwrap();
        for threads in [1, 3] {
            let list = list.clone();
            let p = gossamer::main(threads, move || {
                let g = ShardedGraph::build(&list, PartitionKind::Cyclic).unwrap();
                WeightProfile::of_graph(&g)
            });
            assert_eq!(
                p,
                WeightProfile {
                    min: 1.0,
                    max: 9.0,
                    entries: 18,
                    vertices: 10
                },
                "{threads} trustees"
            );
            // d = 1.8: max(1, 9 / 3.24) = 2.78.
            assert!((derived_delta(&p) - 9.0 / 3.24).abs() < 1e-5);
        }
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
