//! SSSP with its rows split inside the shards (`SsspConfig::in_place`)
//! against the same search on a copy: identical distances and parents, for
//! several Δ in a row (the in-place re-split), on 1-3 trustees and both
//! partitions; and what the rewritten graph still serves: the Graph500
//! validation on the shards (which must still catch a wrong answer and count
//! the same edges), BFS, and a clear refusal from the kernels that read
//! global ids.

use graph_core::io::vectors::Vectors;
use graph_core::sharded::ShardedGraph;
use graph_core::validate::{count_traversed_sharded, validate_sssp_sharded, NO_PARENT};
use graph_core::PartitionKind;
use sssp::{sssp, SsspConfig, SsspOutput};

/// Δ in turn: the default, a wider one, then the default again.
const DELTAS: [f32; 3] = [sssp::DEFAULT_DELTA, 0.05, sssp::DEFAULT_DELTA];

#[test]
fn in_place_equals_the_copy_and_still_validates() {
    let vectors = Vectors::bundled().unwrap_or_else(|e| panic!("{e}"));
    let list = vectors.edge_list(10).unwrap();
    let roots = vectors.roots(10).unwrap()[..3].to_vec();
    for threads in [1, 2, 3] {
        for kind in [PartitionKind::Block, PartitionKind::Cyclic] {
            let (l, r) = (list.clone(), roots.clone());
            let runs = gossamer::main(threads, move || {
                let mut per_mode = Vec::new();
                for in_place in [false, true] {
                    let g = ShardedGraph::build(&l, kind).unwrap();
                    let mut outs: Vec<(SsspOutput, u64, u64, bool)> = Vec::new();
                    for &delta in &DELTAS {
                        for &root in &r {
                            let cfg = SsspConfig {
                                in_place,
                                delta,
                                ..SsspConfig::default()
                            };
                            let out = sssp(&g, root, &cfg).unwrap();
                            let ok = validate_sssp_sharded(&g, root, &out.parent, &out.dist)
                                .unwrap_or_else(|e| panic!("in_place {in_place}: {e}"));
                            let (reached, traversed) = count_traversed_sharded(&g, &out.parent);
                            assert_eq!((ok.reached, ok.traversed_edges), (reached, traversed));
                            // A wrong answer must still be caught on the
                            // rewritten shards: one reached vertex (not the
                            // root) claims a shorter distance.
                            let mut bad = out.dist.clone();
                            let v = (0..bad.len())
                                .find(|&v| v as u64 != root && out.parent[v] != NO_PARENT)
                                .expect("the root reaches someone");
                            bad[v] *= 0.5;
                            let caught =
                                validate_sssp_sharded(&g, root, &out.parent, &bad).is_err();
                            outs.push((out, reached, traversed, caught));
                        }
                    }
                    // BFS still runs on the graph, and tc refuses it.
                    let levels = bfs::bfs(&g, r[0], &bfs::BfsConfig::default())
                        .unwrap()
                        .level;
                    per_mode.push((outs, levels, g.check_global_ids("tc").is_err()));
                }
                per_mode
            });
            let what = format!("{threads} trustees, {kind:?}");
            let (copy, copy_levels, copy_refuses) = &runs[0];
            let (inplace, inplace_levels, inplace_refuses) = &runs[1];
            assert!(!copy_refuses && *inplace_refuses, "{what}");
            assert_eq!(copy_levels, inplace_levels, "{what}: BFS after SSSP");
            for (i, (a, b)) in copy.iter().zip(inplace).enumerate() {
                let bits = |o: &SsspOutput| o.dist.iter().map(|d| d.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&a.0), bits(&b.0), "{what}: run {i} distances");
                assert_eq!(a.0.parent, b.0.parent, "{what}: run {i} parents");
                assert_eq!((a.1, a.2), (b.1, b.2), "{what}: run {i} counts");
                assert!(a.3 && b.3, "{what}: run {i}: the wrong answer was accepted");
            }
        }
    }
}
