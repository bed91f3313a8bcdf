//! Triangle counting against the sequential reference on the Graph500
//! reference graphs (SCALE 10 and 12): 1, 2 and 3 trustees, both partitions,
//! plain and compressed rows,
//! exact counts; the verifier accepts the right count and rejects wrong ones.
//!
//! Vectors come from `$GRAPH500_VECTORS` or the bundled `graph-core/vectors`.

use graph_core::io::vectors::Vectors;
use graph_core::sharded::ShardedGraph;
use graph_core::{EdgeList, PackedEdge, PartitionKind};
use graph_kernel::RowsFormat;
use tc::{tc, tc_sequential, verify_tc, TcConfig};

fn load(scale: u32) -> EdgeList<'static> {
    let vectors = Vectors::bundled().unwrap_or_else(|e| panic!("{e}"));
    vectors.edge_list(scale).unwrap()
}

/// Brute force over vertex triples of the simple graph (small graphs only).
fn brute_force(list: &EdgeList<'_>) -> u64 {
    let n = list.num_vertices() as usize;
    let mut adj = vec![vec![false; n]; n];
    for e in list.edges() {
        if e.u != e.v {
            adj[e.u as usize][e.v as usize] = true;
            adj[e.v as usize][e.u as usize] = true;
        }
    }
    let mut count = 0;
    for a in 0..n {
        for b in a + 1..n {
            if adj[a][b] {
                count += (b + 1..n).filter(|&c| adj[a][c] && adj[b][c]).count() as u64;
            }
        }
    }
    count
}

fn check_scale(scale: u32) {
    let list = load(scale);
    let want = tc_sequential(&list).unwrap();
    assert_eq!(verify_tc(&list, want), Ok(want));
    assert!(want > 1000, "a Kronecker graph has many triangles: {want}");
    for threads in [1, 2, 3] {
        for kind in [PartitionKind::Block, PartitionKind::Cyclic] {
            for rows in [RowsFormat::Plain, RowsFormat::Compressed] {
                let l = list.clone();
                let cfg = TcConfig {
                    rows,
                    ..Default::default()
                };
                let out = gossamer::main(threads, move || {
                    let g = ShardedGraph::build(&l, kind).unwrap();
                    tc(&g, &cfg).unwrap()
                });
                let what = format!("scale {scale}, {threads} threads, {kind:?}, {rows:?} rows");
                assert_eq!(out.triangles, want, "{what}");
                if threads == 1 {
                    assert_eq!(out.records, 0, "{what}");
                } else {
                    assert!(out.records > 0, "{what}");
                }
            }
        }
    }
}

/// The out-lists' records are filed as they arrive, at any step size
/// (1: records leave after every vertex, interleaved with the receiver's
/// own filing; a step larger than the graph: all in one batch).
#[test]
fn any_step_work_gives_the_same_count() {
    let list = load(10);
    let want = tc_sequential(&list).unwrap();
    for step_work in [1, 100, 1 << 30] {
        let l = list.clone();
        let cfg = TcConfig {
            step_work,
            ..Default::default()
        };
        let out = gossamer::main(3, move || {
            let g = ShardedGraph::build(&l, PartitionKind::Cyclic).unwrap();
            tc(&g, &cfg).unwrap()
        });
        assert_eq!(out.triangles, want, "step_work {step_work}");
    }
}

#[test]
fn scale10_matches_sequential() {
    let list = load(10);
    assert_eq!(tc_sequential(&list).unwrap(), brute_force(&list));
    check_scale(10);
}

#[test]
fn scale12_matches_sequential() {
    check_scale(12);
}

#[test]
fn verifier_rejects_wrong_counts() {
    let list = load(10);
    let want = tc_sequential(&list).unwrap();
    for wrong in [0, want - 1, want + 1, 2 * want, want * 3] {
        let e = verify_tc(&list, wrong).unwrap_err();
        assert!(e.contains(&format!("has {want}")), "{e}");
    }
}

#[test]
fn repeated_edges_and_self_loops_are_ignored() {
    // Every edge of the SCALE 10 graph twice (once reversed) plus a self-loop
    // on every vertex: the same triangles.
    let list = load(10);
    let want = tc_sequential(&list).unwrap();
    let mut edges: Vec<PackedEdge> = list.edges().to_vec();
    edges.extend(list.edges().iter().map(|e| PackedEdge::new(e.v, e.u, e.w)));
    edges.extend((0..list.num_vertices() as u32).map(|v| PackedEdge::new(v, v, 1.0)));
    let noisy = EdgeList::from_edges(list.num_vertices(), edges).unwrap();
    assert_eq!(tc_sequential(&noisy).unwrap(), want);
    assert_eq!(verify_tc(&noisy, want), Ok(want));
    let out = gossamer::main(2, move || {
        let g = ShardedGraph::build(&noisy, PartitionKind::Block).unwrap();
        tc(&g, &Default::default()).unwrap()
    });
    assert_eq!(out.triangles, want);
}

#[test]
fn runs_again_on_the_same_graph() {
    let list = load(10);
    let want = tc_sequential(&list).unwrap();
    let counts = gossamer::main(3, move || {
        let g = ShardedGraph::build(&list, PartitionKind::Cyclic).unwrap();
        [
            tc(&g, &Default::default()).unwrap().triangles,
            tc(&g, &Default::default()).unwrap().triangles,
        ]
    });
    assert_eq!(counts, [want, want]);
}
