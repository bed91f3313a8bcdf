//! The build's progress counts (`construct::build_progress`): every edge of
//! this process's slices is counted once in each pass. Alone in its test
//! binary, since the counts are per process and other builds would move
//! them.

use graph_core::construct::{build_progress, BuildStep, LocalSource};
use graph_core::sharded::ShardedGraph;
use graph_core::{EdgeList, PackedEdge, PartitionKind};

#[test]
fn every_edge_is_counted_once_per_pass() {
    let edges: Vec<PackedEdge> = (0..50_000u32)
        .map(|i| PackedEdge::new(i % 977, (i * 7 + 3) % 977, 1.0))
        .collect();
    let m = edges.len() as u64;
    let list = EdgeList::from_edges(977, edges).unwrap();
    let source = LocalSource::publish_list(list);
    let progress = gossamer::main(3, move || {
        let (_g, _) = ShardedGraph::build_from(source, PartitionKind::Block).unwrap();
        build_progress()
    });
    assert_eq!(progress.total, m);
    assert_eq!(progress.counted, m);
    assert_eq!(progress.placed, m);
    // An edge list in memory needs no check.
    assert_eq!(progress.checked, 0);
    assert_eq!(progress.current(), Some((BuildStep::Placing, m)));
}
