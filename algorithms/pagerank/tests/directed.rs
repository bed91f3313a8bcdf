//! PageRank on directed graphs: pulled along in-arcs, over out-degrees,
//! dangling vertices leaking their share (GAPBS's formulation), checked
//! against the sequential reference for 1-3 trustees, on plain and
//! compressed in-rows alike.

use graph_core::sharded::ShardedGraph;
use graph_core::{EdgeList, PackedEdge, PartitionKind};
use graph_kernel::{prepare_with, Prepare, RowsFormat};
use pagerank::{pagerank, pagerank_sequential, verify_pagerank, PageRankConfig, Sweep};

/// 0 -> 1 -> 2 -> 0 (a cycle), 3 -> 0, 1 -> 4 (4 dangling: no out-arc),
/// a parallel arc 3 -> 0, a self-loop on 2 and an isolated vertex 5.
fn graph() -> EdgeList<'static> {
    let e = |u, v| PackedEdge::new(u, v, 1.0);
    let edges = vec![
        e(0, 1),
        e(1, 2),
        e(2, 0),
        e(3, 0),
        e(1, 4),
        e(3, 0),
        e(2, 2),
    ];
    EdgeList::from_edges(6, edges).unwrap()
}

#[test]
fn directed_pagerank_equals_the_sequential_reference() {
    let cfg = PageRankConfig {
        max_iterations: 120,
        tolerance: 0.0,
        sweep: Sweep::Jacobi,
        ..Default::default()
    };
    let (d, max) = (cfg.damping, cfg.max_iterations);
    let want = pagerank_sequential(&graph(), true, d, max, 0.0).unwrap();
    let undirected = pagerank_sequential(&graph(), false, d, max, 0.0).unwrap();
    let n = 6.0;
    let base = 0.15 / n;
    // 3 has no in-arc, 4 and 5 only the base and 1's half-share: the
    // directed answer differs from the symmetrized one.
    assert!((want.scores[3] - base).abs() < 1e-15);
    assert!((want.scores[5] - base).abs() < 1e-15);
    assert!((want.scores[4] - (base + 0.85 * want.scores[1] / 2.0)).abs() < 1e-6);
    assert!((want.scores[3] - undirected.scores[3]).abs() > 1e-3);
    // The dangling vertex 4 leaks: the scores sum to less than 1.
    assert!(want.scores.iter().sum::<f64>() < 0.99);
    assert!(verify_pagerank(&graph(), true, &want.scores, d).unwrap() < 1e-6);
    assert!(verify_pagerank(&graph(), true, &undirected.scores, d).unwrap() > 1e-3);
    for threads in 1..=3 {
        for kind in [PartitionKind::Block, PartitionKind::Cyclic] {
            let list = graph();
            let (got, packed) = gossamer::main(threads, move || {
                let g = ShardedGraph::build_with(&list, kind, true).unwrap();
                let h = ShardedGraph::build_with(&list, kind, true).unwrap();
                prepare_with(&h, Prepare::Boundary, RowsFormat::Compressed);
                (pagerank(&g, &cfg).unwrap(), pagerank(&h, &cfg).unwrap())
            });
            // Compressed in-rows (a copy on a directed graph) give the same
            // scores bit for bit.
            assert_eq!(got.iterations, packed.iterations, "{threads} {kind:?}");
            let bits = |s: &[f64]| s.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(
                bits(&got.scores),
                bits(&packed.scores),
                "{threads} {kind:?}"
            );
            assert_eq!(got.iterations, want.iterations, "{threads} {kind:?}");
            for (v, (a, b)) in got.scores.iter().zip(&want.scores).enumerate() {
                assert!(
                    (a - b).abs() < 1e-12,
                    "{threads} {kind:?}: vertex {v}: {a} vs {b}"
                );
            }
        }
    }
}
