//! CC on directed graphs: weakly connected components (arcs as undirected
//! edges), checked against the sequential union-find for 1-3 trustees, on
//! plain and compressed rows.

use graph_core::sharded::ShardedGraph;
use graph_core::{EdgeList, PackedEdge, PartitionKind};
use graph_kernel::RowsFormat;

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
            let formats = [RowsFormat::Plain, RowsFormat::Compressed];
            for (skip_largest, rows) in [true, false]
                .into_iter()
                .zip(formats)
                .chain([(true, formats[1])])
            {
                let list = graph();
                let got = gossamer::main(threads, move || {
                    let g = ShardedGraph::build_with(&list, kind, true).unwrap();
                    let cfg = components::CcConfig {
                        skip_largest,
                        rows,
                        ..Default::default()
                    };
                    components::cc(&g, &cfg).unwrap()
                });
                let what = format!("{threads} {kind:?} skip {skip_largest} {rows:?}");
                assert_eq!(got.labels, want, "{what}");
                assert_eq!(got.components, 3);
                assert_eq!(components::verify_cc(&graph(), &got.labels), Ok(3));
            }
        }
    }
}

/// A random directed multigraph: many small weak components, one large one
/// (a dense core), arcs pointing both into and out of it.
fn random(seed: u64, n: u32) -> EdgeList<'static> {
    let mut x = seed | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut edges = Vec::new();
    for i in 0..(2 * n) {
        let (u, v) = match i % 4 {
            // The core.
            0 => ((next() % 64) as u32, (next() % 64) as u32),
            // Out of the core, into it, and between the rest.
            1 => ((next() % 64) as u32, (next() % u64::from(n)) as u32),
            2 => ((next() % u64::from(n)) as u32, (next() % 64) as u32),
            _ => (
                (next() % u64::from(n)) as u32,
                (next() % u64::from(n)) as u32,
            ),
        };
        if i % 4 == 3 || next() % 3 == 0 {
            edges.push(PackedEdge::new(u, v, 1.0));
        }
    }
    EdgeList::from_edges(u64::from(n), edges).unwrap()
}

#[test]
fn directed_cc_with_the_skip_matches_union_find_on_random_graphs() {
    for seed in [5u64, 21, 77] {
        let want = components::cc_sequential(&random(seed, 3000));
        let comps = {
            let mut roots = want.clone();
            roots.sort_unstable();
            roots.dedup();
            roots.len() as u64
        };
        assert!(comps > 10, "seed {seed}: {comps} components");
        for threads in 1..=3 {
            for kind in [PartitionKind::Block, PartitionKind::Cyclic] {
                for rows in [RowsFormat::Plain, RowsFormat::Compressed] {
                    let list = random(seed, 3000);
                    let got = gossamer::main(threads, move || {
                        let g = ShardedGraph::build_with(&list, kind, true).unwrap();
                        let cfg = components::CcConfig {
                            rows,
                            ..Default::default()
                        };
                        components::cc(&g, &cfg).unwrap()
                    });
                    let what = format!("seed {seed}, {threads} {kind:?} {rows:?}");
                    assert_eq!(got.labels, want, "{what}");
                    assert_eq!(got.components, comps);
                }
            }
        }
    }
}
