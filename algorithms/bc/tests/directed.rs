//! Betweenness centrality on directed graphs (arcs `u -> v`), with GAPBS's
//! semantics: the search and the successors follow out-arcs. Small
//! hand-made graphs (a path, a diamond with two shortest paths, arcs one way
//! only) against hand-computed scores and the sequential reference; the
//! Graph500 SCALE 10 records read as arcs against the reference; 1, 2 and 3
//! trustees, both partitions; the verifier rejects corrupted directed
//! answers, among them the undirected reading's scores.

use bc::{bc, bc_sequential, bc_sequential_as, verify_bc, verify_bc_as, TOLERANCE};
use graph_core::io::vectors::Vectors;
use graph_core::sharded::ShardedGraph;
use graph_core::{EdgeList, PackedEdge, PartitionKind};

fn arcs(n: u64, arcs: &[(u32, u32)]) -> EdgeList<'static> {
    let edges = arcs
        .iter()
        .map(|&(u, v)| PackedEdge::new(u, v, 1.0))
        .collect();
    EdgeList::from_edges(n, edges).unwrap()
}

/// The kernel's scores on `list` read as arcs, for every trustee count and
/// partition, with a label for messages.
fn kernel_runs(list: &EdgeList<'static>, sources: &[u64]) -> Vec<(String, bc::BcOutput)> {
    let mut runs = Vec::new();
    for threads in [1, 2, 3] {
        for kind in [PartitionKind::Block, PartitionKind::Cyclic] {
            let (l, s) = (list.clone(), sources.to_vec());
            let out = gossamer::main(threads, move || {
                let g = ShardedGraph::build_with(&l, kind, true).unwrap();
                assert!(g.is_directed());
                bc(&g, &s, &Default::default()).unwrap()
            });
            runs.push((format!("{threads} threads, {kind:?}"), out));
        }
    }
    runs
}

/// Checks that the kernel, the reference and the verifier agree with
/// `want` (within the tolerance: on graphs this small the sums are exact).
fn check(list: &EdgeList<'static>, sources: &[u64], want: &[f64]) {
    let seq = bc_sequential_as(list, true, sources).unwrap();
    assert_eq!(seq, want, "sequential reference");
    assert_eq!(verify_bc_as(list, true, sources, want), Ok(0.0));
    for (what, out) in kernel_runs(list, sources) {
        assert_eq!(out.sources, sources, "{what}");
        assert_eq!(out.scores, want, "{what}");
        assert_eq!(verify_bc_as(list, true, sources, &out.scores), Ok(0.0));
    }
}

#[test]
fn directed_path() {
    // 0 -> 1 -> 2 -> 3: from 0, vertex 1 carries the paths to 2 and 3, vertex
    // 2 the one to 3. Raw dependencies 3, 2, 1, 0; divided by 3.
    let list = arcs(4, &[(0, 1), (1, 2), (2, 3)]);
    check(&list, &[0], &[1.0, 2.0 / 3.0, 1.0 / 3.0, 0.0]);
    // From 3 nothing is reached: every score stays 0 (the arcs point away).
    check(&list, &[3], &[0.0; 4]);
    // From 2 only 3 is reached: 2 depends on itself once.
    check(&list, &[2], &[0.0, 0.0, 1.0, 0.0]);
    let out = &kernel_runs(&list, &[0, 3])[3].1;
    assert_eq!(out.levels, [4, 1]);
}

#[test]
fn directed_diamond_with_two_shortest_paths() {
    // 0 -> {1, 2} -> 3 -> 4: two shortest paths to 3 and to 4, one through
    // each of 1 and 2. sigma = 1, 1, 1, 2, 2; delta(3) = 1,
    // delta(1) = delta(2) = 1/2 * (1 + 1) = 1, delta(0) = 2 + 2 = 4.
    let list = arcs(5, &[(0, 1), (0, 2), (1, 3), (2, 3), (3, 4)]);
    check(&list, &[0], &[1.0, 0.25, 0.25, 0.25, 0.0]);
    // Both sources 0 and 1: from 1, delta(3) = 1, delta(1) = 2; sums
    // 4, 3, 1, 2, 0, divided by 4.
    check(&list, &[0, 1], &[1.0, 0.75, 0.25, 0.5, 0.0]);
}

#[test]
fn arcs_one_way_differ_from_the_undirected_graph() {
    // 0 -> 1 -> 2 -> 4 and 3 -> 1, and 4 -> 0 closing a cycle. From 0,
    // 3 is not reached (its arc points into 1) and 4 -> 0 leads back to the
    // source; undirected, 3 hangs off 1 and 4 is next to 0.
    let list = arcs(5, &[(0, 1), (1, 2), (2, 4), (3, 1), (4, 0)]);
    // Directed from 0: path 0, 1, 2, 4; raw 3, 2, 1, 0, 0.
    let directed = [1.0, 2.0 / 3.0, 1.0 / 3.0, 0.0, 0.0];
    check(&list, &[0], &directed);
    // Undirected from 0: 1 and 4 at depth 1, 2 and 3 at depth 2 (2 reached
    // along both 1 and 4): delta(1) = 1/2 + 1 = 1.5, delta(4) = 0.5,
    // delta(0) = 4; raw 4, 1.5, 0, 0, 0.5.
    let undirected = [1.0, 0.375, 0.0, 0.0, 0.125];
    assert_eq!(bc_sequential(&list, &[0]).unwrap(), undirected);
    assert_eq!(bc_sequential_as(&list, false, &[0]).unwrap(), undirected);
    // Each verifier accepts its own reading only.
    assert!(verify_bc_as(&list, true, &[0], &undirected).is_err());
    assert!(verify_bc(&list, &[0], &directed).is_err());
    // And the undirected kernel still gives the undirected scores.
    let l = list.clone();
    let out = gossamer::main(2, move || {
        let g = ShardedGraph::build(&l, PartitionKind::Cyclic).unwrap();
        bc(&g, &[0], &Default::default()).unwrap()
    });
    assert_eq!(out.scores, undirected);
}

#[test]
fn repeated_arcs_and_self_loops_are_ignored() {
    let clean = arcs(5, &[(0, 1), (0, 2), (1, 3), (2, 3), (3, 4)]);
    let noisy = arcs(
        5,
        &[
            (0, 1),
            (0, 2),
            (1, 3),
            (2, 3),
            (3, 4),
            (1, 3),
            (3, 3),
            (0, 2),
            (4, 4),
        ],
    );
    check(&noisy, &[0], &bc_sequential_as(&clean, true, &[0]).unwrap());
}

#[test]
fn arcs_both_ways_give_the_undirected_scores() {
    // Every edge of the SCALE 10 graph as two arcs: the directed reading is
    // the undirected graph, so the references agree bit for bit.
    let vectors = Vectors::bundled().unwrap_or_else(|e| panic!("{e}"));
    let list = vectors.edge_list(10).unwrap();
    let sources = vectors.roots(10).unwrap()[..4].to_vec();
    let mut edges: Vec<PackedEdge> = list.edges().to_vec();
    edges.extend(list.edges().iter().map(|e| PackedEdge::new(e.v, e.u, e.w)));
    let both = EdgeList::from_edges(list.num_vertices(), edges).unwrap();
    let want = bc_sequential(&list, &sources).unwrap();
    assert_eq!(bc_sequential_as(&both, true, &sources).unwrap(), want);
    let s = sources.clone();
    let out = gossamer::main(3, move || {
        let g = ShardedGraph::build_with(&both, PartitionKind::Block, true).unwrap();
        bc(&g, &s, &Default::default()).unwrap()
    });
    assert!(verify_bc(&list, &sources, &out.scores).unwrap() < 1e-12);
}

#[test]
fn scale10_as_arcs_matches_sequential() {
    // The Graph500 records read as arcs (each edge one way, as generated),
    // from 4 vertices with out-arcs.
    let vectors = Vectors::bundled().unwrap_or_else(|e| panic!("{e}"));
    let list = vectors.edge_list(10).unwrap();
    let mut out_degree = vec![0u32; list.num_vertices() as usize];
    for e in list.edges().iter().filter(|e| e.u != e.v) {
        out_degree[e.u as usize] += 1;
    }
    let sources: Vec<u64> = vectors.roots(10).unwrap()[..]
        .iter()
        .copied()
        .filter(|&r| out_degree[r as usize] > 0)
        .take(4)
        .collect();
    assert_eq!(sources.len(), 4);
    let want = bc_sequential_as(&list, true, &sources).unwrap();
    assert_eq!(want.iter().copied().fold(0.0, f64::max), 1.0);
    assert!(want.iter().filter(|&&x| x > 0.0 && x < 1.0).count() > 20);
    // The directed answer is not the undirected one.
    assert_ne!(want, bc_sequential(&list, &sources).unwrap());
    for (what, out) in kernel_runs(&list, &sources) {
        let worst = verify_bc_as(&list, true, &sources, &out.scores)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(worst < 1e-12, "{what}: differs by {worst:e}");
    }
}

#[test]
fn verifier_rejects_corrupted_directed_scores() {
    // The diamond from 0 and from 3: from 3 only 4 is reached (delta(3) =
    // 1); sums 4, 1, 1, 2, 0, divided by 4.
    let list = arcs(5, &[(0, 1), (0, 2), (1, 3), (2, 3), (3, 4)]);
    let sources = [0, 3];
    let good = [1.0, 0.25, 0.25, 0.5, 0.0];
    check(&list, &sources, &good);
    // One score changed by more than rounding.
    let mut nudged = good;
    nudged[3] += 10.0 * TOLERANCE;
    assert!(verify_bc_as(&list, true, &sources, &nudged)
        .unwrap_err()
        .contains("vertex 3"));
    // The undirected reading's scores: from 3 the search also runs back
    // against the arcs, through 1 and 2 to 0 (delta(3) = 4); sums 4, 1.5,
    // 1.5, 5, 0, divided by 5.
    let undirected = bc_sequential(&list, &sources).unwrap();
    assert_eq!(undirected, [0.8, 0.3, 0.3, 1.0, 0.0]);
    assert!(verify_bc_as(&list, true, &sources, &undirected)
        .unwrap_err()
        .contains("vertex 0"));
    // Not normalised, out of range, other sources, wrong length.
    let halved: Vec<f64> = good.iter().map(|x| x / 2.0).collect();
    assert!(verify_bc_as(&list, true, &sources, &halved)
        .unwrap_err()
        .contains("largest"));
    let mut above = good;
    above[0] = 1.5;
    assert!(verify_bc_as(&list, true, &sources, &above)
        .unwrap_err()
        .contains("[0, 1]"));
    assert!(verify_bc_as(&list, true, &[0], &good).is_err());
    assert!(verify_bc_as(&list, true, &sources, &good[1..])
        .unwrap_err()
        .contains("scores for a graph"));
}
