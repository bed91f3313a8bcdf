//! CC on directed graphs: weakly connected components (arcs as undirected
//! edges), checked against the sequential union-find for 1-3 trustees.

use graph_core::sharded::ShardedGraph;
use graph_core::{EdgeList, PackedEdge, PartitionKind};

/// A star of arcs out of hub 0 (so the hub's component is the largest),
/// arcs into it from 7 and 8, a chain 9 -> 10 <- 11, and isolated 12.
fn graph() -> EdgeList<'static> {
    let e = |u, v| PackedEdge::new(u, v, 1.0);
    let edges = vec![
        e(0, 1),
        e(0, 2),
        e(0, 3),
        e(0, 4),
        e(0, 5),
        e(5, 6),
        e(7, 0),
        e(8, 7),
        e(9, 10),
        e(11, 10),
        e(6, 6),
    ];
    EdgeList::from_edges(13, edges).unwrap()
}

#[test]
fn directed_cc_gives_weak_components() {
    let want = components::cc_sequential(&graph());
    assert_eq!(want, [0, 0, 0, 0, 0, 0, 0, 0, 0, 9, 9, 9, 12]);
    for threads in 1..=3 {
        for kind in [PartitionKind::Block, PartitionKind::Cyclic] {
            for skip_largest in [true, false] {
                let list = graph();
                let got = gossamer::main(threads, move || {
                    let g = ShardedGraph::build_with(&list, kind, true).unwrap();
                    let cfg = components::CcConfig {
                        skip_largest,
                        ..Default::default()
                    };
                    components::cc(&g, &cfg).unwrap()
                });
                assert_eq!(got.labels, want, "{threads} {kind:?} skip {skip_largest}");
                assert_eq!(got.components, 3);
                assert_eq!(components::verify_cc(&graph(), &got.labels), Ok(3));
            }
        }
    }
}
