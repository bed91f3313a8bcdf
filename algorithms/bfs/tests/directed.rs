//! BFS and SSSP on directed graphs follow out-arcs: checked against
//! sequential references and the directed validators, for 1-3 trustees and
//! both partitions, on graphs where the undirected answer differs (and
//! where direction-optimizing BFS goes bottom-up, along in-edges).

use bfs::{BfsConfig, BfsMode};
use graph_core::sharded::ShardedGraph;
use graph_core::validate::{reference, validate_bfs_sharded, validate_sssp_sharded, NO_PARENT};
use graph_core::{EdgeList, PackedEdge, PartitionKind};
use sssp::SsspConfig;

/// A random directed multigraph: a dense core (so an undirected search
/// would go bottom-up) plus a sparse tail, with self-loops and duplicates.
fn graph(seed: u64) -> EdgeList<'static> {
    let mut x = seed | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let n = 400u32;
    let mut edges = Vec::new();
    for i in 0..3000 {
        let (u, v) = if i % 3 == 0 {
            ((next() % 400) as u32, (next() % 400) as u32)
        } else {
            ((next() % 40) as u32, (next() % 40) as u32)
        };
        edges.push(PackedEdge::new(u, v, (1 + next() % 1000) as f32 / 1000.0));
    }
    EdgeList::from_edges(u64::from(n), edges).unwrap()
}

fn out_rows(list: &EdgeList<'_>) -> Vec<Vec<(u64, f32)>> {
    reference::adjacency(list, true)
}

fn levels(list: &EdgeList<'_>, root: u32) -> Vec<i64> {
    reference::bfs(list, u64::from(root), true).1
}

fn dijkstra(list: &EdgeList<'_>, root: u32) -> Vec<f32> {
    reference::dijkstra(list, u64::from(root), true).1
}

#[test]
fn directed_searches_follow_out_arcs() {
    for seed in [3u64, 8] {
        let list = graph(seed);
        let roots: Vec<u32> = (0..40)
            .filter(|&v| !out_rows(&list)[v as usize].is_empty())
            .take(3)
            .collect();
        let want: Vec<(Vec<i64>, Vec<f32>)> = roots
            .iter()
            .map(|&r| (levels(&list, r), dijkstra(&list, r)))
            .collect();
        // The undirected answer differs: some vertex is reached only against an arc.
        let sym = {
            let mut e = list.edges().to_vec();
            e.extend(list.edges().iter().map(|x| PackedEdge::new(x.v, x.u, x.w)));
            EdgeList::from_edges(400, e).unwrap()
        };
        assert_ne!(levels(&sym, roots[0]), want[0].0);
        for threads in 1..=3 {
            for kind in [PartitionKind::Block, PartitionKind::Cyclic] {
                let (list, roots) = (
                    EdgeList::from_edges(400, list.edges().to_vec()).unwrap(),
                    roots.clone(),
                );
                let (got, pulled) = gossamer::main(threads, move || {
                    let g = ShardedGraph::build_with(&list, kind, true).unwrap();
                    let mut out = Vec::new();
                    let mut pulled = 0;
                    for &r in &roots {
                        let r = u64::from(r);
                        for mode in [BfsMode::DirectionOptimizing, BfsMode::TopDown] {
                            let cfg = BfsConfig {
                                mode,
                                ..Default::default()
                            };
                            let b = bfs::bfs(&g, r, &cfg).unwrap();
                            // Bottom-up only when allowed; it reads in-edges.
                            if mode == BfsMode::TopDown {
                                assert_eq!(b.bottom_up_levels, 0);
                            }
                            pulled += b.bottom_up_levels;
                            let ok =
                                validate_bfs_sharded(&g, r, &b.parent, Some(&b.level)).unwrap();
                            assert_eq!(
                                ok.reached,
                                b.level.iter().filter(|&&l| l >= 0).count() as u64
                            );
                            out.push((b.level, None));
                        }
                        let s = sssp::sssp(&g, r, &SsspConfig::default()).unwrap();
                        validate_sssp_sharded(&g, r, &s.parent, &s.dist).unwrap();
                        assert!(s
                            .parent
                            .iter()
                            .zip(&s.dist)
                            .all(|(&p, d)| (p == NO_PARENT) == d.is_infinite()));
                        out.push((Vec::new(), Some(s.dist)));
                    }
                    (out, pulled)
                });
                // The dense core makes direction-optimizing BFS go bottom-up.
                assert!(
                    pulled > 0,
                    "seed {seed}, {threads} {kind:?}: never bottom-up"
                );
                for (i, (level, dist)) in got.into_iter().enumerate() {
                    let (wl, wd) = &want[i / 3];
                    match dist {
                        None => assert_eq!(&level, wl, "seed {seed}, {threads} {kind:?}"),
                        Some(d) => {
                            for (v, (a, b)) in d.iter().zip(wd).enumerate() {
                                assert!(
                                    a == b || (a - b).abs() < 1e-5,
                                    "seed {seed}, {threads} {kind:?}: vertex {v}: {a} vs {b}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The same searches on compressed rows (the graph's first preparation
/// asks for them): the levels of the sequential reference, validated, and
/// bottom-up levels that read the compressed in-rows.
#[test]
fn directed_bfs_on_compressed_rows_follows_out_arcs() {
    let list = graph(3);
    let roots: Vec<u32> = (0..40)
        .filter(|&v| !out_rows(&list)[v as usize].is_empty())
        .take(3)
        .collect();
    let want: Vec<Vec<i64>> = roots.iter().map(|&r| levels(&list, r)).collect();
    for threads in 1..=3 {
        for kind in [PartitionKind::Block, PartitionKind::Cyclic] {
            let (list, roots) = (
                EdgeList::from_edges(400, list.edges().to_vec()).unwrap(),
                roots.clone(),
            );
            let (got, pulled) = gossamer::main(threads, move || {
                let g = ShardedGraph::build_with(&list, kind, true).unwrap();
                let (mut out, mut pulled) = (Vec::new(), 0);
                for &r in &roots {
                    let r = u64::from(r);
                    for mode in [BfsMode::DirectionOptimizing, BfsMode::TopDown] {
                        let cfg = BfsConfig {
                            mode,
                            rows: graph_kernel::RowsFormat::Compressed,
                            ..Default::default()
                        };
                        let b = bfs::bfs(&g, r, &cfg).unwrap();
                        pulled += b.bottom_up_levels;
                        validate_bfs_sharded(&g, r, &b.parent, Some(&b.level)).unwrap();
                        out.push(b.level);
                    }
                }
                let rows = graph_kernel::rows_footprint(&g).expect("rows built");
                assert_eq!(rows.format, graph_kernel::RowsFormat::Compressed);
                (out, pulled)
            });
            assert!(pulled > 0, "{threads} {kind:?}: never bottom-up");
            for (i, level) in got.iter().enumerate() {
                assert_eq!(level, &want[i / 2], "{threads} {kind:?}, search {i}");
            }
        }
    }
}
