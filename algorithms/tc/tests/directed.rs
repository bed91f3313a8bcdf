//! tc refuses a directed graph (built with its arcs) with a reason, instead
//! of counting along out-arcs only, as GAPBS's tc counts on undirected
//! graphs. (bc runs on directed graphs: see algorithms/bc/tests/directed.rs.)

use graph_core::sharded::ShardedGraph;
use graph_core::{EdgeList, PackedEdge, PartitionKind};

#[test]
fn tc_refuses_directed_graphs() {
    let e = |u, v| PackedEdge::new(u, v, 1.0);
    let list = EdgeList::from_edges(3, vec![e(0, 1), e(1, 2), e(2, 0)]).unwrap();
    let t = gossamer::main(2, move || {
        let g = ShardedGraph::build_with(&list, PartitionKind::Block, true).unwrap();
        tc::tc(&g, &Default::default()).unwrap_err()
    });
    assert!(
        t.to_string()
            .contains("triangles are counted on undirected graphs"),
        "{t}"
    );
}
