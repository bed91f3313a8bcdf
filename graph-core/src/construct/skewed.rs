//! A test graph the block moves are checked on (in one process and
//! across ranks).

use crate::construct::{LocalSource, Unweighted};
use crate::partition::Partition;
use crate::sharded::ShardedGraph;
use crate::{EdgeList, PackedEdge};

/// A skewed random multigraph: low ids are hubs (as in a graph sorted
/// by degree), with self-loops and parallel edges.
pub(super) fn list(n: u32, m: usize, seed: u64) -> EdgeList<'static> {
    let mut x = seed;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let edges = (0..m)
        .map(|_| {
            let hub = |r: u64| ((r % u64::from(n)) * (r >> 40 & 0xff) / 255) as u32;
            let (u, v) = (hub(next()), (next() % u64::from(n)) as u32);
            PackedEdge::new(u, v, (next() % 1000) as f32 / 1000.0 + 0.001)
        })
        .collect();
    EdgeList::from_edges(u64::from(n), edges).unwrap()
}

/// The graph of `source` built over `p`, with its weights or without.
pub(super) fn build(source: LocalSource, weighted: bool, p: Partition) -> ShardedGraph {
    if weighted {
        ShardedGraph::build_from_placed(source, p).unwrap().0
    } else {
        ShardedGraph::build_from_placed(Unweighted(source), p)
            .unwrap()
            .0
    }
}
