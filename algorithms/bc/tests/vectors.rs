//! Betweenness centrality against the sequential reference on the Graph500
//! reference graphs (SCALE 10 and 12), from their first 4 search roots (as
//! GAPBS's bc runs 4 sources): 1, 2 and 3 trustees, both partitions; the
//! verifier accepts the results and rejects corrupted ones; bad sources are
//! refused.
//!
//! Scores are compared within `bc::TOLERANCE` (1e-9 of the largest score),
//! not bit for bit: the kernel adds each vertex's path counts and dependency
//! shares in arrival order, which depends on the trustees and the partition,
//! and f64 addition is not associative. The test also bounds the differences
//! actually seen (1e-12), so a drift towards the tolerance shows up.
//!
//! Vectors come from `$GRAPH500_VECTORS` or the bundled `graph-core/vectors`.

use bc::{bc, bc_sequential, verify_bc, MAX_SOURCES};
use graph_core::io::vectors::Vectors;
use graph_core::sharded::{KernelError, ShardedGraph};
use graph_core::{EdgeList, PackedEdge, PartitionKind};

fn load(scale: u32) -> (EdgeList<'static>, Vec<u64>) {
    let vectors = Vectors::bundled().unwrap_or_else(|e| panic!("{e}"));
    let roots = vectors.roots(scale).unwrap();
    (vectors.edge_list(scale).unwrap(), roots[..4].to_vec())
}

fn check_scale(scale: u32) {
    let (list, sources) = load(scale);
    let want = bc_sequential(&list, &sources).unwrap();
    assert_eq!(verify_bc(&list, &sources, &want), Ok(0.0));
    // Not a degenerate answer: one vertex at 1, many in between.
    assert_eq!(want.iter().copied().fold(0.0, f64::max), 1.0);
    assert!(want.iter().filter(|&&x| x > 0.0 && x < 1.0).count() > 100);
    for threads in [1, 2, 3] {
        for kind in [PartitionKind::Block, PartitionKind::Cyclic] {
            let (l, s) = (list.clone(), sources.clone());
            let out = gossamer::main(threads, move || {
                let g = ShardedGraph::build(&l, kind).unwrap();
                bc(&g, &s, &Default::default()).unwrap()
            });
            let what = format!("scale {scale}, {threads} threads, {kind:?}");
            assert_eq!(out.sources, sources, "{what}");
            assert_eq!(out.levels.len(), 4, "{what}");
            assert!(
                out.levels.iter().all(|&d| d >= 3),
                "{what}: {:?}",
                out.levels
            );
            let worst =
                verify_bc(&list, &sources, &out.scores).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert!(worst < 1e-12, "{what}: differs by {worst:e}");
            if threads == 1 {
                assert_eq!(out.records, 0, "{what}");
            } else {
                assert!(out.records > 0, "{what}");
            }
        }
    }
}

#[test]
fn scale10_matches_sequential() {
    check_scale(10);
}

#[test]
fn scale12_matches_sequential() {
    check_scale(12);
}

#[test]
fn verifier_rejects_corrupted_scores() {
    let (list, sources) = load(10);
    let good = bc_sequential(&list, &sources).unwrap();
    let mid = good.iter().position(|&x| x > 0.01 && x < 0.5).unwrap();
    let top = good.iter().position(|&x| x == 1.0).unwrap();
    // One score off by a little more than rounding could explain.
    let mut nudged = good.clone();
    nudged[mid] += 1e-6;
    assert!(verify_bc(&list, &sources, &nudged)
        .unwrap_err()
        .contains(&format!("vertex {mid}")));
    // Two scores swapped.
    let mut swapped = good.clone();
    swapped.swap(mid, good.iter().position(|&x| x == 0.0).unwrap());
    assert!(verify_bc(&list, &sources, &swapped).is_err());
    // Not normalised.
    let doubled: Vec<f64> = good.iter().map(|x| x * 0.5).collect();
    assert!(verify_bc(&list, &sources, &doubled)
        .unwrap_err()
        .contains("largest"));
    let mut above = good.clone();
    above[top] = 1.5;
    assert!(verify_bc(&list, &sources, &above)
        .unwrap_err()
        .contains("[0, 1]"));
    let mut nan = good.clone();
    nan[mid] = f64::NAN;
    assert!(verify_bc(&list, &sources, &nan).is_err());
    // Scores of other sources.
    let other = bc_sequential(&list, &[sources[1], sources[2]]).unwrap();
    assert!(verify_bc(&list, &sources, &other).is_err());
    // Wrong length.
    assert!(verify_bc(&list, &sources, &good[1..])
        .unwrap_err()
        .contains("scores for a graph"));
}

#[test]
fn repeated_edges_and_self_loops_are_ignored() {
    let (list, sources) = load(10);
    let want = bc_sequential(&list, &sources).unwrap();
    let mut edges: Vec<PackedEdge> = list.edges().to_vec();
    edges.extend(list.edges().iter().map(|e| PackedEdge::new(e.v, e.u, e.w)));
    edges.extend((0..list.num_vertices() as u32).map(|v| PackedEdge::new(v, v, 1.0)));
    let noisy = EdgeList::from_edges(list.num_vertices(), edges).unwrap();
    assert_eq!(bc_sequential(&noisy, &sources).unwrap(), want);
    let s = sources.clone();
    let out = gossamer::main(2, move || {
        let g = ShardedGraph::build(&noisy, PartitionKind::Cyclic).unwrap();
        bc(&g, &s, &Default::default()).unwrap()
    });
    assert!(verify_bc(&list, &sources, &out.scores).unwrap() < 1e-12);
}

#[test]
fn bad_sources_are_refused_and_runs_repeat() {
    let (list, sources) = load(10);
    let want = bc_sequential(&list, &sources).unwrap();
    let n = list.num_vertices();
    let (errs, again) = gossamer::main(2, move || {
        let g = ShardedGraph::build(&list, PartitionKind::Block).unwrap();
        let errs = [
            bc(&g, &[], &Default::default()).unwrap_err(),
            bc(&g, &[0; MAX_SOURCES + 1], &Default::default()).unwrap_err(),
            bc(&g, &[1, n], &Default::default()).unwrap_err(),
        ];
        let a = bc(&g, &sources, &Default::default()).unwrap().scores;
        let b = bc(&g, &sources, &Default::default()).unwrap().scores;
        (errs, [a, b])
    });
    assert!(matches!(&errs[0], KernelError::Config(m) if m.contains("0 sources")));
    assert!(matches!(&errs[1], KernelError::Config(m) if m.contains("65 sources")));
    assert!(matches!(errs[2], KernelError::RootOutOfRange { root, .. } if root == n));
    for scores in again {
        let worst = scores
            .iter()
            .zip(&want)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        assert!(worst < 1e-12);
    }
}
