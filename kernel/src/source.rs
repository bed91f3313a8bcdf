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
    /// Thousandths of each trustee's slice kept between the two passes
    /// (the rest is generated twice): on rank 0, and on the other ranks
    /// (their memory differs: rank 0 gathers).
    kept_permille: [u32; 2],
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
            kept_permille: [1000; 2],
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

    /// Keeps `on_rank_0` thousandths of each trustee's slice between the
    /// two passes of a build on rank 0, `elsewhere` thousandths on the
    /// other ranks, and generates the rest twice (once to count degrees,
    /// once to fill the rows): 12 B per kept edge at construction against
    /// one more generation of the rest. `gossamer-graph` keeps what stays
    /// under the rank's later peak
    /// ([`MemoryEstimate::kept_permille`](graph_core::memory::MemoryEstimate::kept_permille)).
    /// Default: keep all.
    pub fn keeping(self, on_rank_0: u32, elsewhere: u32) -> Self {
        Graph500Source {
            kept_permille: [on_rank_0.min(1000), elsewhere.min(1000)],
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

    fn kept_permille(&self, on_rank_0: bool) -> u32 {
        self.kept_permille[usize::from(!on_rank_0)]
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
        let apart = source.keeping(0, 2000);
        assert_eq!(
            (apart.kept_permille(true), apart.kept_permille(false)),
            (0, 1000)
        );
        // Kept between the passes, generated twice, or part of each (the
        // kept part ends inside a read chunk): the same shards.
        let cases = [(1, 1000), (3, 1000), (1, 0), (3, 0), (1, 437), (3, 1)];
        for (threads, permille) in cases {
            let source = source.keeping(permille, permille);
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
