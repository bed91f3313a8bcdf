//! Compressed rows ([`RowsFormat::Compressed`]) decode to exactly the plain
//! rows: every row of every trustee, read with `Rows::for_each` and
//! `Rows::find`, against the plain rows of the same graph prepared apart,
//! on a skewed graph (a hub of more than 2^16 distinct neighbours, the
//! largest id, parallel edges, self-loops, isolated vertices) and a
//! uniform one, built with weights (the rows a copy) and without (the
//! rows the shard's own array), 1-3 trustees, block and cyclic; and the
//! in-rows of a directed graph.

mod common;

use common::Looked;
use graph_core::construct::{LocalSource, Unweighted};
use graph_core::sharded::ShardedGraph;
use graph_core::{EdgeList, PackedEdge, PartitionKind};
use graph_kernel::{prepare_with, rows_footprint, run, Prepare, Program, RowsFormat};

fn rng(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed | 1;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}

/// Vertex 0 a hub of 70 000 distinct neighbours (some twice), the last
/// vertex joined to it and to a few others, random edges among the first
/// 2000 (parallels and self-loops among them), the rest isolated.
fn skewed() -> EdgeList<'static> {
    let n = 90_000u32;
    let mut next = rng(5);
    let mut edges = Vec::new();
    for v in 1..=70_000 {
        edges.push(PackedEdge::new(0, v, 1.0));
        if v % 97 == 0 {
            edges.push(PackedEdge::new(v, 0, 2.0)); // parallel
        }
    }
    for v in [1, 2, 5000, 69_999] {
        edges.push(PackedEdge::new(n - 1, v, 1.0));
    }
    edges.push(PackedEdge::new(n - 1, 0, 1.0));
    for _ in 0..6000 {
        let (u, v) = ((next() % 2000) as u32, (next() % 2000) as u32);
        edges.push(PackedEdge::new(u, v, 0.5)); // a few self-loops
    }
    EdgeList::from_edges(u64::from(n), edges).unwrap()
}

fn uniform(seed: u64, n: u32, m: usize) -> EdgeList<'static> {
    let mut next = rng(seed);
    let edges = (0..m)
        .map(|_| {
            let (u, v) = (
                (next() % u64::from(n)) as u32,
                (next() % u64::from(n)) as u32,
            );
            PackedEdge::new(u, v, 0.25)
        })
        .collect();
    EdgeList::from_edges(u64::from(n), edges).unwrap()
}

/// Per trustee: each position's row and in-row as global ids, their
/// degrees, and for each nonempty row the target `find` returns for "at
/// least the middle one" with how many targets it looked at.
type Seen = (Vec<Vec<u32>>, Vec<Vec<u32>>, Vec<u64>, Vec<(u32, usize)>);

#[derive(Clone, Copy)]
enum Build {
    Weighted,
    Unweighted,
    Directed,
}

fn look(
    list: &EdgeList<'static>,
    build: Build,
    kind: PartitionKind,
    threads: usize,
    format: RowsFormat,
) -> (Vec<Seen>, graph_kernel::RowsFootprint) {
    let list = EdgeList::from_edges(list.num_vertices(), list.edges().to_vec()).unwrap();
    gossamer::main(threads, move || {
        let g = match build {
            Build::Weighted => ShardedGraph::build(&list, kind).unwrap(),
            Build::Unweighted => {
                ShardedGraph::build_from(Unweighted(LocalSource::publish_list(list)), kind)
                    .unwrap()
                    .0
            }
            Build::Directed => ShardedGraph::build_with(&list, kind, true).unwrap(),
        };
        prepare_with(&g, Prepare::InRows, format);
        let init = move |s: &mut graph_kernel::Setup<'_>, _: Option<Looked<Seen>>| {
            let a = s.adjacency().clone();
            let (rows, in_rows) = (s.rows(), s.in_rows());
            assert_eq!(rows.format(), format);
            assert_eq!(a.rows_format(), format);
            let global = |r: &graph_kernel::adjacency::Rows, v: u32| {
                let mut out = Vec::new();
                r.for_each(v, |f| out.push(a.global_of(f)));
                assert_eq!(out.len() as u64, r.degree(v));
                out
            };
            let by_position = (0..a.num_own()).map(|v| global(rows, v)).collect();
            let in_by_position = (0..a.num_own()).map(|v| global(in_rows, v)).collect();
            let degrees = (0..a.num_own()).map(|v| rows.degree(v)).collect();
            let found = (0..a.num_own())
                .filter(|&v| rows.degree(v) > 0)
                .map(|v| {
                    let mut flat = Vec::new();
                    rows.for_each(v, |f| flat.push(f));
                    let middle = flat[flat.len() / 2];
                    let mut looked = 0;
                    let f = rows
                        .find(v, |f| {
                            looked += 1;
                            f >= middle
                        })
                        .expect("the middle target is in the row");
                    assert_eq!(rows.find(v, |_| false), None);
                    (a.global_of(f), looked)
                })
                .collect();
            Looked(Some((by_position, in_by_position, degrees, found)))
        };
        let seen = run(&g, init, |k| {
            k.with_returning(|l| l.state().0.clone().expect("set by init"))
        });
        (seen, rows_footprint(&g).expect("rows built"))
    })
}

fn compare(list: &EdgeList<'static>, builds: &[Build]) {
    for &build in builds {
        for threads in [1, 2, 3] {
            for kind in [PartitionKind::Block, PartitionKind::Cyclic] {
                let (plain, pf) = look(list, build, kind, threads, RowsFormat::Plain);
                let (packed, cf) = look(list, build, kind, threads, RowsFormat::Compressed);
                assert_eq!(plain, packed, "{threads} trustees, {kind:?}");
                assert_eq!(
                    (pf.format, cf.format),
                    (RowsFormat::Plain, RowsFormat::Compressed)
                );
                assert_eq!(pf.entries, cf.entries);
                assert!(
                    cf.target_bytes < pf.target_bytes,
                    "compressed {} B, plain {} B",
                    cf.target_bytes,
                    pf.target_bytes
                );
            }
        }
    }
}

#[test]
fn compressed_rows_decode_to_the_plain_rows_on_a_skewed_graph() {
    let list = skewed();
    // The hub's row is there, whole.
    let (seen, _) = look(
        &list,
        Build::Unweighted,
        PartitionKind::Block,
        1,
        RowsFormat::Compressed,
    );
    assert!(seen[0].0.iter().any(|r| r.len() > 1 << 16));
    compare(&list, &[Build::Weighted, Build::Unweighted]);
}

#[test]
fn compressed_rows_decode_to_the_plain_rows_on_uniform_and_directed_graphs() {
    let list = uniform(11, 5000, 40_000);
    compare(
        &list,
        &[Build::Weighted, Build::Unweighted, Build::Directed],
    );
}

struct Visits;

impl Program for Visits {
    type Msg = u32;
    fn receive(&mut self, _: u32, _: u32) -> bool {
        false
    }
}

/// Every row read through `Local::for_each_target` gives the same targets
/// in the same order on compressed rows as on plain ones, and so does a
/// visit nested inside a long row (each target's own row, summed): rows of up to
/// 16 entries decode on the stack, longer ones into the scratch vector,
/// and a long row inside a long one (the hub 0 and vertex 1, given 40
/// more neighbours here) finds the scratch vector taken.
#[test]
fn for_each_target_reads_compressed_rows_as_plain() {
    let base = skewed();
    let mut edges = base.edges().to_vec();
    edges.extend((3000..3040).map(|v| PackedEdge::new(1, v, 1.0)));
    let read = move |format: RowsFormat, threads: usize| {
        let list = EdgeList::from_edges(base.num_vertices(), edges.clone()).unwrap();
        gossamer::main(threads, move || {
            let g = ShardedGraph::build(&list, PartitionKind::Block).unwrap();
            prepare_with(&g, Prepare::Rows, format);
            run(
                &g,
                |_, _| Visits,
                |k| {
                    k.with_returning(|l| {
                        (0..l.num_own())
                            .map(|v| {
                                let mut out = Vec::new();
                                // Nested in long rows only (the hub's
                                // inside each of its 70 000 would be slow).
                                let nest = l.degree(v) > 16;
                                l.for_each_target(v, |l, f| {
                                    let mut nested = 0u64;
                                    if let Some(u) = l.own(f).filter(|_| nest) {
                                        l.for_each_target(u, |l, t| {
                                            nested += u64::from(l.global(t))
                                        });
                                    }
                                    out.push((l.global(f), nested));
                                });
                                out
                            })
                            .collect::<Vec<_>>()
                    })
                },
            )
        })
    };
    for threads in [1, 2] {
        let plain = read(RowsFormat::Plain, threads);
        assert_eq!(plain, read(RowsFormat::Compressed, threads));
        let hub = plain.iter().flatten().max_by_key(|r| r.len()).unwrap();
        assert!(hub.len() > 70_000, "the hub's row");
        assert!(
            hub.iter().any(|&(_, nested)| nested > 0),
            "rows read inside it"
        );
    }
}
