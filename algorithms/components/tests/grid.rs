//! CC on a road-like grid with scattered ids, a graph without hubs: one
//! sampled neighbour per vertex leaves a forest of small trees, so the
//! kernel samples more neighbours before it skips the giant component
//! (`CcConfig::extra_rounds`).

use components::{cc, cc_sequential, CcConfig};
use graph_core::sharded::ShardedGraph;
use graph_core::{EdgeList, PackedEdge, PartitionKind};

/// A `side` x `side` grid with every seventh street left out, its
/// crossings numbered in a scattered order (a multiplicative permutation).
fn grid(side: u32) -> EdgeList<'static> {
    let n = side * side;
    let id = |v: u32| (u64::from(v) * 7919 % u64::from(n)) as u32;
    assert!(
        !n.is_multiple_of(7919),
        "7919 is prime: a permutation of 0..n"
    );
    let mut edges = Vec::new();
    let mut i = 0u32;
    for r in 0..side {
        for c in 0..side {
            let v = r * side + c;
            for (ok, w) in [(c + 1 < side, v + 1), (r + 1 < side, v + side)] {
                i += 1;
                if ok && !i.is_multiple_of(7) {
                    edges.push(PackedEdge::new(id(v), id(w), 1.0));
                }
            }
        }
    }
    EdgeList::from_edges(u64::from(n), edges).unwrap()
}

#[test]
fn a_grid_gets_extra_sampling_rounds_and_the_same_labels() {
    let want = cc_sequential(&grid(120));
    for threads in [1, 2, 3] {
        for kind in [PartitionKind::Block, PartitionKind::Cyclic] {
            let list = grid(120);
            let (adaptive, fixed) = gossamer::main(threads, move || {
                let g = ShardedGraph::build(&list, kind).unwrap();
                let fixed = CcConfig {
                    extra_rounds: 0,
                    ..Default::default()
                };
                (
                    cc(&g, &CcConfig::default()).unwrap(),
                    cc(&g, &fixed).unwrap(),
                )
            });
            assert_eq!(adaptive.labels, want, "{threads} {kind:?}");
            assert_eq!(fixed.labels, want, "{threads} {kind:?}");
            // At least one more sampling round ran (the passes over
            // pending pairs vary from run to run; the rounds do not).
            assert_eq!(fixed.sampling_rounds, 1, "{threads} {kind:?}");
            assert!(
                adaptive.sampling_rounds > 1,
                "{threads} {kind:?}: {} sampling rounds",
                adaptive.sampling_rounds
            );
        }
    }
}
