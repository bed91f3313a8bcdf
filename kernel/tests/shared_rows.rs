//! The unweighted rows kept in the shard itself: a graph built without
//! weights (its rows stored by degree) gives the kernels rows that are the
//! shard's own array, equal to the rows copied from the same graph built
//! with weights, while the shard still reads every entry by global id; a
//! built graph file's mapped rows end the same, taken into memory.

use graph_core::construct::{LocalSource, Unweighted};
use graph_core::io::built::Weights;
use graph_core::sharded::ShardedGraph;
use graph_core::{EdgeList, GraphMeta, IdMap, PackedEdge, PartitionKind};
use graph_kernel::{run, Program};

/// A small multigraph with parallel edges, self-loops and isolated vertices.
fn graph() -> EdgeList<'static> {
    let mut edges = Vec::new();
    let mut x = 777u64;
    for _ in 0..1500 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
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

struct Looked(Option<Seen>);

impl Program for Looked {
    type Msg = u32;
    fn receive(&mut self, _: u32, _: u32) -> bool {
        false
    }
}

/// Where a run takes its graph from.
#[derive(Clone)]
enum From {
    Built(LocalSource, bool),
    File(std::path::PathBuf),
}

fn look(from: From, kind: PartitionKind, threads: usize) -> Vec<Seen> {
    gossamer::main(threads, move || {
        let g = match from {
            From::Built(source, true) => ShardedGraph::build_from(source, kind).unwrap().0,
            From::Built(source, false) => {
                ShardedGraph::build_from(Unweighted(source), kind)
                    .unwrap()
                    .0
            }
            From::File(path) => {
                ShardedGraph::open_built(&path, kind, Weights::Skip)
                    .unwrap()
                    .0
            }
        };
        let init = |s: &mut graph_kernel::Setup<'_>, _: Option<Looked>| {
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
    let mut all = vec![Vec::new(); 210];
    for e in list.edges().iter().filter(|e| e.u != e.v) {
        all[e.u as usize].push(e.v);
        all[e.v as usize].push(e.u);
    }
    all.iter_mut()
        .for_each(|r: &mut Vec<u32>| r.sort_unstable());
    // The same graph as a built graph file, which the runs below map.
    let dir = std::env::temp_dir().join(format!("gg-shared-rows-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("g.gbuilt");
    let meta = GraphMeta {
        directed: false,
        weighted: true,
        ids: IdMap::Offset(0),
    };
    graph_core::io::built::write(&file, &list, &meta, &[], None).unwrap();
    let source = LocalSource::publish_list(list);
    for threads in [1, 2, 3] {
        for kind in [PartitionKind::Block, PartitionKind::Cyclic] {
            let copied = look(From::Built(source, true), kind, threads);
            let shared = look(From::Built(source, false), kind, threads);
            // Mapped rows are taken into memory, renamed and ordered as
            // the built ones, and the shard gives up its view.
            let mapped = look(From::File(file.clone()), kind, threads);
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
    let _ = std::fs::remove_dir_all(&dir);
}
