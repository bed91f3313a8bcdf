//! [`Graph500Source`]: the Graph500 Kronecker generator as an
//! [`EdgeSource`], so that every trustee generates only its own slice of
//! the edge stream and no process ever holds the whole edge list
//! ([`ShardedGraph::build_from`]).
//!
//! Edge `i` is the reference's edge `i` whatever the slice it falls in (the
//! generator jumps straight to any edge's random stream), so the graph is
//! bit-identical to the reference's for any number of ranks and threads.
//!
//! ```
//! use graph_core::sharded::ShardedGraph;
//! use graph_kernel::Graph500Source;
//! let source = Graph500Source::new(8, 16, 1, 2).unwrap();
//! let entries = gossamer::main(2, move || {
//!     let (g, _) = ShardedGraph::build_from(source, graph_core::PartitionKind::Block).unwrap();
//!     g.on_trustees(|ctx| ctx.local.apply(|s| s.shard().num_entries())).iter().sum::<u64>()
//! });
//! // Both directions of every edge that is not a self-loop.
//! assert!(entries > 0 && entries <= 2 * 16 * 256);
//! ```

use generators::{Graph500Config, Kronecker};
use graph_core::construct::EdgeSource;
#[cfg(doc)]
use graph_core::sharded::ShardedGraph;
use graph_core::PackedEdge;
use serde::{Deserialize, Serialize};

/// The Graph500 generator's graph of `2^scale` vertices and
/// `edgefactor * 2^scale` edges from the two seeds, read slice by slice.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Graph500Source {
    scale: u32,
    edgefactor: u32,
    seed1: u64,
    seed2: u64,
    unit_weights: bool,
    /// Generate the slices twice instead of keeping them: on rank 0, and
    /// on the other ranks (their memory differs: rank 0 gathers).
    regenerate: [bool; 2],
}

impl Graph500Source {
    /// The source of the graph with these parameters, or why they do not
    /// make one (a SCALE past the generator's range, a zero edgefactor).
    pub fn new(
        scale: u32,
        edgefactor: u32,
        seed1: u64,
        seed2: u64,
    ) -> Result<Self, generators::ConfigError> {
        let s = Graph500Source {
            scale,
            edgefactor,
            seed1,
            seed2,
            unit_weights: false,
            regenerate: [false; 2],
        };
        s.config().validate()?;
        Ok(s)
    }

    /// The same graph with every weight 1.0 (`--unit-weights`).
    pub fn with_unit_weights(self) -> Self {
        Graph500Source {
            unit_weights: true,
            ..self
        }
    }

    /// Generates each trustee's slice twice during a build (once to count
    /// degrees, once to fill the rows) instead of keeping it between the
    /// passes: 12 B per edge less at construction, for one more
    /// generation; on rank 0 when `on_rank_0`, on the other ranks when
    /// `elsewhere`. `gossamer-graph` does this where the kept slice would be
    /// the rank's peak ([`MemoryEstimate::keeps_slice`](graph_core::memory::MemoryEstimate::keeps_slice)).
    pub fn regenerating(self, on_rank_0: bool, elsewhere: bool) -> Self {
        Graph500Source {
            regenerate: [on_rank_0, elsewhere],
            ..self
        }
    }

    /// The generator's parameters.
    pub fn config(&self) -> Graph500Config {
        Graph500Config {
            scale: self.scale,
            edgefactor: self.edgefactor,
            seed1: self.seed1,
            seed2: self.seed2,
        }
    }
}

impl EdgeSource for Graph500Source {
    type Reader = Kronecker;

    fn num_vertices(&self) -> u64 {
        1 << self.scale
    }

    fn num_edges(&self) -> u64 {
        u64::from(self.edgefactor) << self.scale
    }

    fn open(&self) -> Result<Kronecker, String> {
        Kronecker::new(self.config()).map_err(|e| e.to_string())
    }

    fn reread_slice(&self, on_rank_0: bool) -> bool {
        self.regenerate[usize::from(!on_rank_0)]
    }

    fn read(&self, kron: &Kronecker, start: u64, out: &mut [PackedEdge]) {
        let end = start + out.len() as u64;
        for (slot, e) in out.iter_mut().zip(kron.edges(start..end)) {
            let w = if self.unit_weights { 1.0 } else { e.w };
            *slot = PackedEdge::from_wide(e.u, e.v, w);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use graph_core::sharded::ShardedGraph;
    use graph_core::{build_rank, EdgeList, Graph500Params, Partition, PartitionKind};

    #[test]
    fn slices_make_the_graph_of_the_whole_edge_list() {
        let (scale, ef) = (9, 8);
        let source = Graph500Source::new(scale, ef, 3, 4).unwrap();
        let kron = Kronecker::new(source.config()).unwrap();
        let params = Graph500Params {
            scale,
            edgefactor: ef,
            seed1: 3,
            seed2: 4,
        };
        let mut list = EdgeList::zeroed(params).unwrap();
        kron.par_map_into(0, list.edges_mut(), |e| {
            PackedEdge::from_wide(e.u, e.v, e.w)
        });
        // Rank 0 and the other ranks choose apart.
        let apart = source.regenerating(true, false);
        assert!(apart.reread_slice(true) && !apart.reread_slice(false));
        // Kept between the passes or generated twice: the same shards.
        for (threads, regenerate) in [(1, false), (3, false), (1, true), (3, true)] {
            let source = source.regenerating(regenerate, regenerate);
            let p = Partition::new(PartitionKind::Cyclic, 1 << scale, 1, threads).unwrap();
            let want: Vec<_> = build_rank(&list, &p, 0).unwrap();
            let got = gossamer::main(threads as usize, move || {
                let (g, _) = ShardedGraph::build_from(source, PartitionKind::Cyclic).unwrap();
                g.on_trustees(|ctx| ctx.local.apply_returning(|s| s.shard().clone()))
            });
            for (w, g) in want.iter().zip(&got) {
                assert_eq!(w.offsets(), g.offsets());
                for l in 0..w.num_local_vertices() {
                    let mut a: Vec<(u32, u32)> =
                        w.neighbors(l).map(|(v, x)| (v, x.to_bits())).collect();
                    a.sort_unstable();
                    let mut b: Vec<(u32, u32)> =
                        g.neighbors(l).map(|(v, x)| (v, x.to_bits())).collect();
                    b.sort_unstable();
                    assert_eq!(a, b, "row {l} of trustee {}", w.trustee());
                }
            }
        }
    }

    #[test]
    fn unit_weights_and_bad_parameters() {
        let s = Graph500Source::new(6, 4, 1, 2).unwrap().with_unit_weights();
        let kron = s.open().unwrap();
        let mut out = [PackedEdge::default(); 10];
        s.read(&kron, 5, &mut out);
        assert!(out.iter().all(|e| e.w == 1.0));
        assert_eq!(kron.edge(7).u as u32, out[2].u);
        assert!(Graph500Source::new(6, 0, 1, 2).is_err());
    }
}
