//! bc and tc refuse a directed graph (built with its arcs) with a reason,
//! instead of counting along out-arcs only.

use graph_core::sharded::ShardedGraph;
use graph_core::{EdgeList, PackedEdge, PartitionKind};

#[test]
fn bc_and_tc_refuse_directed_graphs() {
    let e = |u, v| PackedEdge::new(u, v, 1.0);
    let list = EdgeList::from_edges(3, vec![e(0, 1), e(1, 2), e(2, 0)]).unwrap();
    let (t, b) = gossamer::main(2, move || {
        let g = ShardedGraph::build_with(&list, PartitionKind::Block, true).unwrap();
        (tc::tc(&g).unwrap_err(), bc::bc(&g, &[0]).unwrap_err())
    });
    assert!(
        t.to_string()
            .contains("triangles are counted on undirected graphs"),
        "{t}"
    );
    assert!(
        b.to_string()
            .contains("betweenness on directed graphs is not supported"),
        "{b}"
    );
}
