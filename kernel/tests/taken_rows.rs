//! Compressed rows taken from the shard ([`graph_core::Shard::take_rows`]):
//! a graph built without weights (or mapped from a built file) and
//! prepared with compressed rows gives its targets up to the kernel, which
//! keeps them compressed and reads each shard's entries back (parallel
//! ones included) for validation and the TEPS count; BFS on them finds the
//! levels of plain rows, validates with the same counts, and a broken
//! answer is still caught, for 1-3 trustees, block and cyclic; cc gives
//! the labels and PageRank the scores (bit for bit) of plain rows.

mod common;

use bfs::BfsConfig;
use common::{entries_by_vertex, lcg, BuiltFile, From};
use graph_core::construct::LocalSource;
use graph_core::io::built::Weights;
use graph_core::validate::{count_traversed_sharded, validate_bfs_sharded, Validated};
use graph_core::{EdgeList, PackedEdge, PartitionKind};
use graph_kernel::{prepare_with, Prepare, RowsFormat};

/// A multigraph with hubs, parallel edges (some three times), self-loops
/// and isolated vertices.
fn graph() -> EdgeList<'static> {
    let mut edges = Vec::new();
    let mut next = lcg(4242);
    for i in 0..4000u32 {
        let x = next();
        let u = if i % 3 == 0 {
            (x >> 60) as u32
        } else {
            ((x >> 33) % 280) as u32
        };
        let v = ((x >> 13) % 300) as u32;
        edges.push(PackedEdge::new(u, v, 0.5));
        if x.is_multiple_of(5) {
            edges.push(PackedEdge::new(v, u, 0.25)); // parallel
        }
        if x.is_multiple_of(23) {
            edges.push(PackedEdge::new(u, v, 0.75)); // three times
        }
    }
    edges.push(PackedEdge::new(7, 7, 1.0));
    EdgeList::from_edges(320, edges).unwrap()
}

/// Per own vertex of every trustee, by global id: its entries as the
/// shard reads them (global ids, sorted).
type Entries = Vec<(u64, Vec<u32>)>;

/// What one run saw: the entries, then per root the BFS levels and the
/// validation of the right answer, of a wrong parent and of a vertex
/// left unreached, and the TEPS count.
type Seen = (Entries, Vec<(Vec<i64>, Validated, bool, bool, (u64, u64))>);

fn run_on(from: From, kind: PartitionKind, threads: usize, rows: RowsFormat) -> Seen {
    gossamer::main(threads, move || {
        let g = from.open(kind);
        prepare_with(&g, Prepare::InRows, rows);
        let mut entries: Entries = g
            .on_trustees(move |ctx| {
                ctx.local.apply_returning(move |s| {
                    let sh = s.shard();
                    assert_eq!(sh.rows_taken(), rows == RowsFormat::Compressed);
                    if sh.rows_taken() {
                        assert!(sh.targets().is_empty(), "the plain targets are gone");
                        assert!(!sh.is_mapped());
                    }
                    let names = sh.renamed().expect("renamed by the kernel").clone();
                    let mut buf = Vec::new();
                    (0..sh.num_local_vertices())
                        .map(|l| {
                            let ids = sh.row_ids(l, &mut buf);
                            assert_eq!(ids.len() as u64, sh.degree(l));
                            let mut r: Vec<u32> = ids.iter().map(|&t| names[t as usize]).collect();
                            r.sort_unstable();
                            (sh.global_id(l), r)
                        })
                        .collect::<Entries>()
                })
            })
            .into_iter()
            .flatten()
            .collect();
        entries.sort_unstable();
        let searches = [0u64, 1, 2, 150, 299]
            .into_iter()
            .map(|root| {
                let cfg = BfsConfig {
                    rows,
                    ..Default::default()
                };
                let b = bfs::bfs(&g, root, &cfg).unwrap();
                let ok = validate_bfs_sharded(&g, root, &b.parent, Some(&b.level)).unwrap();
                // A reached vertex (not the root) whose parent is a
                // vertex at the right depth but not its neighbour, and
                // one left unreached.
                let v = (0..b.parent.len())
                    .find(|&v| v as u64 != root && b.level[v] > 0)
                    .expect("the root reaches someone");
                let mut wrong = b.parent.clone();
                let not_next = (0..b.parent.len()).find(|&u| {
                    b.level[u] == b.level[v] - 1
                        && !entries_of(&entries, v as u64).contains(&(u as u32))
                });
                let wrong_caught = match not_next {
                    Some(u) => {
                        wrong[v] = u as u64;
                        validate_bfs_sharded(&g, root, &wrong, None).is_err()
                    }
                    None => true,
                };
                let mut cut = b.parent.clone();
                cut[v] = graph_core::validate::NO_PARENT;
                let mut cut_level = b.level.clone();
                cut_level[v] = -1;
                let cut_caught = validate_bfs_sharded(&g, root, &cut, Some(&cut_level)).is_err();
                let count = count_traversed_sharded(&g, &b.parent);
                (b.level, ok, wrong_caught, cut_caught, count)
            })
            .collect();
        (entries, searches)
    })
}

fn entries_of(entries: &Entries, v: u64) -> &[u32] {
    let i = entries.binary_search_by_key(&v, |e| e.0).unwrap();
    &entries[i].1
}

#[test]
fn bfs_on_rows_taken_from_the_shard_matches_plain_rows_and_validates() {
    let list = graph();
    let all = entries_by_vertex(&list, 320);
    let file = BuiltFile::write("taken-rows", &list);
    let source = LocalSource::publish_list(list);
    for threads in [1, 2, 3] {
        for kind in [PartitionKind::Block, PartitionKind::Cyclic] {
            let what = format!("{threads} trustees, {kind:?}");
            let plain = run_on(
                From::BuiltUnweighted(source),
                kind,
                threads,
                RowsFormat::Plain,
            );
            let taken = run_on(
                From::BuiltUnweighted(source),
                kind,
                threads,
                RowsFormat::Compressed,
            );
            let mapped = run_on(
                From::File(file.path().into(), Weights::Skip),
                kind,
                threads,
                RowsFormat::Compressed,
            );
            // Every entry, parallel ones included, read back by global id.
            for (v, r) in &taken.0 {
                assert_eq!(r, &all[*v as usize], "{what}: vertex {v}");
            }
            assert_eq!(plain.0, taken.0, "{what}");
            assert_eq!(mapped.0, taken.0, "{what}: from the built file");
            // The same levels and counts; broken answers fail.
            assert_eq!(plain.1, taken.1, "{what}");
            assert_eq!(mapped.1, taken.1, "{what}: from the built file");
            for (i, s) in taken.1.iter().enumerate() {
                assert!(s.2, "{what}, search {i}: a wrong parent passed");
                assert!(s.3, "{what}, search {i}: a cut tree passed");
                assert_eq!(s.4, (s.1.reached, s.1.traversed_edges), "{what}");
                assert!(s.1.traversed_edges > 0);
            }
        }
    }
}

/// cc's labels and PageRank's scores (Jacobi, and Gauss-Seidel on one
/// trustee, where it is deterministic) on a graph prepared with `rows`.
fn whole_on(from: From, kind: PartitionKind, threads: usize, rows: RowsFormat) -> Vec<Vec<u64>> {
    gossamer::main(threads, move || {
        let g = from.open(kind);
        let cc = components::CcConfig {
            rows,
            ..Default::default()
        };
        let mut seen = vec![components::cc(&g, &cc).unwrap().labels];
        let taken = g.on_trustees(|ctx| ctx.local.apply_returning(|s| s.shard().rows_taken()));
        assert!(taken.iter().all(|&t| t == (rows == RowsFormat::Compressed)));
        let mut sweeps = vec![pagerank::Sweep::Jacobi];
        if threads == 1 {
            sweeps.push(pagerank::Sweep::GaussSeidel);
        }
        for sweep in sweeps {
            // Prepared above, by cc, in `rows`.
            let cfg = pagerank::PageRankConfig {
                sweep,
                tolerance: 0.0,
                ..Default::default()
            };
            let out = pagerank::pagerank(&g, &cfg).unwrap();
            seen.push(out.scores.iter().map(|x| x.to_bits()).collect());
        }
        seen
    })
}

#[test]
fn cc_and_pagerank_on_rows_taken_from_the_shard_match_plain_rows() {
    let list = graph();
    let want = components::cc_sequential(&list);
    let file = BuiltFile::write("taken-whole", &list);
    let seq = pagerank::pagerank_sequential(&list, false, 0.85, 20, 0.0).unwrap();
    let source = LocalSource::publish_list(list);
    for threads in [1, 2, 3] {
        for kind in [PartitionKind::Block, PartitionKind::Cyclic] {
            let what = format!("{threads} trustees, {kind:?}");
            let plain = whole_on(
                From::BuiltUnweighted(source),
                kind,
                threads,
                RowsFormat::Plain,
            );
            let taken = whole_on(
                From::BuiltUnweighted(source),
                kind,
                threads,
                RowsFormat::Compressed,
            );
            let mapped = whole_on(
                From::File(file.path().into(), Weights::Skip),
                kind,
                threads,
                RowsFormat::Compressed,
            );
            assert_eq!(plain[0], want, "{what}: cc labels");
            assert_eq!(plain, taken, "{what}");
            assert_eq!(plain, mapped, "{what}: from the built file");
            // Jacobi is the reference's formulation, up to rounding.
            for (v, (&a, b)) in plain[1].iter().zip(&seq.scores).enumerate() {
                assert!((f64::from_bits(a) - b).abs() < 1e-12, "{what}: vertex {v}");
            }
        }
    }
}
