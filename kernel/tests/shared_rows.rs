//! The unweighted rows kept in the shard itself: a graph built without
//! weights (its rows stored by degree) gives the kernels rows that are the
//! shard's own array, equal to the rows copied from the same graph built
//! with weights, while the shard still reads every entry by global id; a
//! built graph file's mapped rows end the same, taken into memory.

mod common;

use common::{entries_by_vertex, lcg, BuiltFile, From, Looked};
use graph_core::construct::LocalSource;
use graph_core::io::built::Weights;
use graph_core::{EdgeList, PackedEdge, PartitionKind};
use graph_kernel::run;

/// A small multigraph with parallel edges, self-loops and isolated vertices.
fn graph() -> EdgeList<'static> {
    let mut edges = Vec::new();
    let mut next = lcg(777);
    for _ in 0..1500 {
        let x = next();
        let (u, v) = (((x >> 33) % 180) as u32, ((x >> 13) % 200) as u32);
        edges.push(PackedEdge::new(u, v, 0.5));
        if x.is_multiple_of(7) {
            edges.push(PackedEdge::new(v, u, 0.25)); // parallel
        }
    }
    edges.push(PackedEdge::new(9, 9, 1.0));
    EdgeList::from_edges(210, edges).unwrap()
}

/// Per trustee: whether the rows are the shard's, each position's row as
/// global ids, each own vertex's entries by global id (sorted), the merged
/// count, whether the shard still views a mapped file.
type Seen = (bool, Vec<Vec<u32>>, Vec<Vec<u32>>, u64, bool);

fn look(from: From, kind: PartitionKind, threads: usize) -> Vec<Seen> {
    gossamer::main(threads, move || {
        let g = from.open(kind);
        let init = |s: &mut graph_kernel::Setup<'_>, _: Option<Looked<Seen>>| {
            let a = s.adjacency().clone();
            let rows = a.rows(s.shard());
            let by_position = (0..a.num_own())
                .map(|v| rows.row(v).iter().map(|&f| a.global_of(f)).collect())
                .collect();
            let sh = s.shard();
            let entries = (0..sh.num_local_vertices())
                .map(|l| {
                    let mut r: Vec<u32> = sh.neighbors(l).map(|(v, _)| v).collect();
                    r.sort_unstable();
                    assert_eq!(r.len() as u64, sh.degree(l));
                    r
                })
                .collect();
            Looked(Some((
                rows.is_shared(),
                by_position,
                entries,
                rows.entries_merged(),
                sh.is_mapped(),
            )))
        };
        run(&g, init, |k| {
            k.with_returning(|l| l.state().0.clone().expect("set by init"))
        })
    })
}

#[test]
fn unweighted_shards_lend_their_rows_to_the_kernels() {
    let list = graph();
    // Every entry by global id, parallels included.
    let all = entries_by_vertex(&list, 210);
    // The same graph as a built graph file, which the runs below map.
    let file = BuiltFile::write("shared-rows", &list);
    let source = LocalSource::publish_list(list);
    for threads in [1, 2, 3] {
        for kind in [PartitionKind::Block, PartitionKind::Cyclic] {
            let copied = look(From::Built(source), kind, threads);
            let shared = look(From::BuiltUnweighted(source), kind, threads);
            // Mapped rows are taken into memory, renamed and ordered as
            // the built ones, and the shard gives up its view.
            let mapped = look(From::File(file.path().into(), Weights::Skip), kind, threads);
            assert_eq!(
                mapped, shared,
                "{threads} threads, {kind:?}: from the built file"
            );
            assert!(shared.iter().all(|s| !s.4));
            let mut merged = 0;
            for (t, (c, s)) in copied.iter().zip(&shared).enumerate() {
                assert!(!c.0, "weighted shards keep their rows: the kernels copy");
                assert!(
                    s.0,
                    "{threads} threads, {kind:?}: unweighted rows are the shard's"
                );
                // The same rows, position by position.
                assert_eq!(c.1, s.1, "{threads} threads, {kind:?}, trustee {t}");
                assert_eq!(c.3, s.3);
                merged += s.3;
                // The shard still holds every entry, named by global id.
                assert_eq!(c.2, s.2);
                for (l, row) in s.2.iter().enumerate() {
                    let g = graph_core::Partition::new(kind, 210, 1, threads as u32)
                        .unwrap()
                        .global(t as u32, l as u64);
                    assert_eq!(row, &all[g as usize]);
                }
            }
            assert!(merged > 0, "the graph has parallel edges");
        }
    }
    source.withdraw();
}
