//! The built file against the build: every partition's shards, field by
//! field; what is refused and when; the whole check and the list.

use std::path::PathBuf;

use super::header::CHUNK;
use super::*;
use crate::csr::{build_trustees_with, Shard};
use crate::edge_list::{EdgeList, PackedEdge};
use crate::meta::{GraphMeta, IdMap};
use crate::partition::{Partition, PartitionKind};

pub(crate) fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gg-built-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A pseudo-random multigraph with self-loops, duplicates, a hub and
/// isolated vertices; weights 1.0 when `weighted` is false (as an
/// unweighted graph's records carry).
pub(crate) fn graph(n: u32, m: usize, seed: u64, weighted: bool) -> EdgeList<'static> {
    let mut x = seed | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let edges = (0..m)
        .map(|i| {
            let u = if i % 9 == 0 {
                2
            } else {
                (next() % u64::from(n - n / 8)) as u32
            };
            let v = if i % 13 == 0 {
                u
            } else {
                (next() % u64::from(n - n / 8)) as u32
            };
            let w = if weighted {
                (next() % 1000) as f32 / 1000.0
            } else {
                1.0
            };
            PackedEdge::new(u, v, w)
        })
        .collect();
    EdgeList::from_edges(u64::from(n), edges).unwrap()
}

fn meta(directed: bool, weighted: bool) -> GraphMeta {
    GraphMeta {
        directed,
        weighted,
        ids: IdMap::Offset(0),
    }
}

#[test]
fn every_partition_takes_the_shards_the_build_makes() {
    let d = scratch("partitions");
    for directed in [false, true] {
        for weighted in [true, false] {
            let list = graph(97, 3000, 5 + u64::from(directed), weighted);
            let path = d.join(format!("g-{directed}-{weighted}"));
            let h = write(&path, &list, &meta(directed, weighted), &[3, 4], None).unwrap();
            assert_eq!((h.directed, h.weighted), (directed, weighted));
            let g = open(&path).unwrap();
            assert_eq!(g.roots(), [3, 4]);
            for kind in [PartitionKind::Block, PartitionKind::Cyclic] {
                for (ranks, threads) in [(1, 1), (1, 3), (2, 1), (2, 3)] {
                    let p = Partition::new(kind, 97, ranks, threads).unwrap();
                    for t in 0..p.num_trustees() {
                        let want: Shard = build_trustees_with(&list, &p, t..t + 1, directed)
                            .unwrap()
                            .remove(0);
                        let what = format!("{kind:?} {ranks}x{threads} trustee {t}, directed {directed}, weighted {weighted}");
                        let stored = g.shard(&p, t, Weights::Stored).unwrap();
                        assert_eq!(stored, want, "{what}");
                        assert_eq!(stored.is_directed(), directed);
                        let unit = g.shard(&p, t, Weights::Unit).unwrap();
                        assert!(unit.weights().iter().all(|&w| w == 1.0));
                        assert_eq!(unit.targets(), want.targets());
                        let skip = g.shard(&p, t, Weights::Skip).unwrap();
                        assert_eq!(skip, want.clone().without_weights(), "{what}");
                        // A block trustee's rows are views of the mapping.
                        let block = kind == PartitionKind::Block || p.num_trustees() == 1;
                        assert_eq!(stored.heap_bytes() < want.heap_bytes(), block, "{what}");
                        if block && weighted {
                            // Offsets alone: 8 B per owned vertex plus one.
                            let owned = 8 * (stored.num_local_vertices() + 1);
                            let in_owned = if directed { owned } else { 0 };
                            assert_eq!(stored.heap_bytes(), owned + in_owned, "{what}");
                        }
                    }
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn ids_and_the_list_come_back() {
    let d = scratch("ids");
    let list = graph(50, 400, 9, true);
    let table: Vec<u64> = (0..50).map(|v| 1000 + 7 * v).collect();
    let m = GraphMeta {
        directed: false,
        weighted: true,
        ids: IdMap::Table(table.clone()),
    };
    let path = d.join("g");
    write(&path, &list, &m, &[], Some(0xfeed)).unwrap();
    let g = open(&path).unwrap();
    assert_eq!(g.meta(), &m);
    assert_eq!(g.header().source_checksum, Some(0xfeed));
    assert_eq!(g.header().num_edges, 400);
    g.verify().unwrap();
    // The list read back builds the same rows, up to their order.
    let back = g.edge_list().unwrap();
    let sorted = |l: &EdgeList<'_>| {
        let s = crate::build_whole(l).unwrap();
        (0..50)
            .map(|v| {
                let mut r: Vec<(u32, u32)> =
                    s.neighbors(v).map(|(x, w)| (x, w.to_bits())).collect();
                r.sort_unstable();
                r
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(sorted(&back), sorted(&list));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn damage_is_refused_with_what_to_do_never_a_panic() {
    let d = scratch("damage");
    // Enough entries for several checksum chunks: 2 x 300 000 x 4 B.
    let list = graph(20_000, 300_000, 3, true);
    let path = d.join("g");
    let h = write(&path, &list, &meta(false, true), &[], None).unwrap();
    assert!(h.chunks(Section::Targets) >= 2);
    let bytes = std::fs::read(&path).unwrap();
    let p = Partition::new(PartitionKind::Block, 20_000, 1, 2).unwrap();
    let bad = d.join("bad");
    let refused = |b: &[u8]| -> String {
        std::fs::write(&bad, b).unwrap();
        match open(&bad) {
            Err(e) => e.to_string(),
            Ok(g) => {
                let mut first = None;
                for t in 0..2 {
                    if let Err(e) = g.shard(&p, t, Weights::Stored) {
                        first.get_or_insert(e.to_string());
                    }
                }
                first.unwrap_or_else(|| "accepted".into())
            }
        }
    };
    let rebuild = "write it again with `gossamer-graph convert GRAPH --built -o FILE`";
    let e = refused(&bytes[..bytes.len() - 10]);
    assert!(
        e.contains("is truncated: its header promises") && e.contains(rebuild),
        "{e}"
    );
    let e = refused(&bytes[..600]);
    assert!(e.contains("fewer than the 1024-byte header"), "{e}");
    let mut v = bytes.clone();
    v.extend_from_slice(&[0; 3]);
    assert!(refused(&v).contains("but its header implies"));
    let mut v = bytes.clone();
    v[header::OFF_VERSION] = 9;
    assert!(refused(&v).contains("format v9, this build reads v1"));
    let mut v = bytes.clone();
    v[header::OFF_VERTICES] ^= 1;
    assert!(refused(&v).contains("corrupt header"));
    assert!(refused(b"GOSGRAPH and more").contains("not a built graph file"));
    // A flipped bit in the second chunk of the neighbour ids: refused by
    // the trustee that reads it.
    let t = h.sections[Section::Targets as usize].start as usize;
    let mut v = bytes.clone();
    v[t + CHUNK as usize + 5] ^= 4;
    let e = refused(&v);
    assert!(
        e.contains("its neighbour ids do not match their checksum"),
        "{e}"
    );
    // In the weights: refused when they are read, not otherwise (an
    // unweighted run never reads them); the whole check finds it.
    let w = h.sections[Section::Weights as usize].start as usize;
    let mut v = bytes.clone();
    v[w + 17] ^= 1;
    assert!(refused(&v).contains("its weights do not match"));
    std::fs::write(&bad, &v).unwrap();
    let g = open(&bad).unwrap();
    for t in 0..2 {
        g.shard(&p, t, Weights::Skip).unwrap();
    }
    assert!(g
        .verify()
        .unwrap_err()
        .to_string()
        .contains("weights do not match"));
    // Digests in order but a neighbour id out of range: still refused.
    let mut v = bytes.clone();
    v[t..t + 4].copy_from_slice(&20_000u32.to_le_bytes());
    let digests = &h.sections[Section::Digests as usize];
    let chunk0 = crate::io::file::chunk_digest(&v[t..t + CHUNK as usize], 0);
    let first = h.first_digest(Section::Targets) as usize;
    let at = digests.start as usize + 8 * first;
    v[at..at + 8].copy_from_slice(&chunk0.to_le_bytes());
    let sum = crate::io::file::checksum64(&v[digests.start as usize..digests.end as usize]);
    let mut hh = h.clone();
    hh.sums[Section::Digests as usize] = sum;
    hh.sums[Section::Targets as usize] =
        crate::io::file::checksum64(&v[t..h.sections[Section::Targets as usize].end as usize]);
    v[..HEADER_LEN].copy_from_slice(&header::encode(&hh));
    let e = refused(&v);
    assert!(
        e.contains("is 20000, not a vertex (the graph has 20000)"),
        "{e}"
    );
    // Offsets that fall: refused.
    let o = h.sections[Section::Offsets as usize].start as usize;
    let mut v = bytes.clone();
    v[o + 8 * 3..o + 8 * 4].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(refused(&v).contains("do not match their checksum"));
    assert!(matches!(
        open(d.join("missing")).unwrap_err().problem,
        Problem::NotFound
    ));
    assert!(open(&d)
        .unwrap_err()
        .to_string()
        .contains("not a regular file"));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn the_header_says_what_the_file_holds() {
    let d = scratch("header");
    let list = graph(64, 500, 1, false);
    let path = d.join("g");
    let h = write(&path, &list, &meta(true, false), &[], None).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    assert!(is_built(&bytes));
    assert_eq!(parse_header(&bytes).unwrap(), h);
    assert_eq!(bytes.len() as u64, h.file_len());
    // No weight section; the sections are page-aligned.
    assert!(h.sections[Section::Weights as usize].is_empty());
    for s in &h.sections {
        assert!(s.is_empty() || s.start % ALIGN == 0);
    }
    assert_eq!(h.in_entries, h.entries);
    let _ = std::fs::remove_dir_all(&d);
}

/// Each local vertex's entries by global id (weights as bits), sorted.
fn entries(s: &Shard) -> Vec<Vec<(u32, u32)>> {
    (0..s.num_local_vertices())
        .map(|l| {
            let mut r: Vec<(u32, u32)> = s.neighbors(l).map(|(v, w)| (v, w.to_bits())).collect();
            r.sort_unstable();
            r
        })
        .collect()
}

#[test]
fn a_kernel_takes_the_rows_into_memory_and_the_shard_drops_its_view() {
    let d = scratch("release");
    let n = 120u32;
    let list = graph(n, 4000, 21, true);
    let path = d.join("g");
    write(&path, &list, &meta(false, true), &[], None).unwrap();
    let g = open(&path).unwrap();
    // Stored id x names global vertex n - 1 - x.
    let names: std::sync::Arc<[u32]> = (0..n).rev().collect();
    for (kind, threads) in [
        (PartitionKind::Block, 1),
        (PartitionKind::Block, 3),
        (PartitionKind::Cyclic, 3),
    ] {
        let p = Partition::new(kind, u64::from(n), 1, threads).unwrap();
        for t in 0..threads {
            let what = format!("{kind:?} x{threads}, trustee {t}");
            let block = kind == PartitionKind::Block;
            // Unweighted rows, shared with a kernel in its order.
            let mut s = g.shard(&p, t, Weights::Skip).unwrap();
            assert_eq!(
                s.is_mapped(),
                block,
                "{what}: a block trustee views its rows"
            );
            let want = entries(&s);
            let local = s.num_local_vertices() as u32;
            let slots: Vec<u32> = (0..local).rev().collect();
            let mut seen = vec![0; local as usize];
            let shared = s
                .share_rows(names.clone(), &slots, |v, row| {
                    row.iter_mut().for_each(|x| *x = n - 1 - *x);
                    row.sort_unstable();
                    seen[v] += 1;
                })
                .expect("an unweighted shard lends its rows");
            assert!(!s.is_mapped(), "{what}: no view of the mapping is left");
            assert!(seen.iter().all(|&c| c == 1), "{what}: every row once");
            assert_eq!(s.row_slots(), slots, "{what}");
            assert_eq!(&shared.0[..], s.targets(), "{what}");
            assert_eq!(&shared.1[..], s.offsets(), "{what}");
            assert_eq!(entries(&s), want, "{what}: the same entries by global id");
            for l in 0..u64::from(local) {
                assert!(s.adjacency(l).0.is_sorted(), "{what}: row {l} ordered");
            }
            assert!(s.share_rows(names.clone(), &slots, |_, _| {}).is_none());
            // Weighted rows, rewritten in place by a kernel.
            let mut s = g.shard(&p, t, Weights::Stored).unwrap();
            assert_eq!(s.is_mapped(), block, "{what}");
            let want = entries(&s);
            assert!(s.rewrite_rows(names.clone(), |off, t, w| {
                t.iter_mut().for_each(|x| *x = n - 1 - *x);
                for r in off.windows(2) {
                    t[r[0] as usize..r[1] as usize].reverse();
                    w[r[0] as usize..r[1] as usize].reverse();
                }
            }));
            assert!(!s.is_mapped(), "{what}: rewritten in memory of its own");
            assert_eq!(entries(&s), want, "{what}");
        }
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn whole_graph_checks_read_the_rows_as_the_list() {
    use crate::validate::verify_pagerank_rows;
    use crate::validate::{reference, verify_cc, verify_cc_rows, verify_pagerank};
    let d = scratch("row-checks");
    for directed in [false, true] {
        // Several 2 MiB pieces of rows; isolated vertices at the end.
        let n = 20_000u32;
        let list = graph(n, 600_000, 11 + u64::from(directed), false);
        let path = d.join(format!("g-{directed}"));
        write(&path, &list, &meta(directed, false), &[], None).unwrap();
        let g = open(&path).unwrap();
        let rows = |in_rows: bool| rows_of(&g, in_rows);
        // Every row, in vertex order, as the whole shard holds it.
        let whole: Shard =
            build_trustees_with(&list, &Partition::single(u64::from(n)), 0..1, directed)
                .unwrap()
                .remove(0);
        let mut next = 0;
        g.for_each_row(false, |v, r| {
            assert_eq!((v, r), (next, whole.adjacency(v as u64).0));
            next += 1;
        })
        .unwrap();
        assert_eq!(next, n as usize);
        let what = format!("directed {directed}");

        // cc: the right labels, a split class, a class joining two components.
        let labels = reference::cc(&list);
        assert!(verify_cc_rows(u64::from(n), &labels, rows(false)).is_ok());
        assert_eq!(
            verify_cc_rows(u64::from(n), &labels, rows(false)),
            verify_cc(&list, &labels),
            "{what}"
        );
        let joined = {
            let mut l = labels.clone();
            *l.last_mut().unwrap() = 0; // an isolated vertex in 0's class
            l
        };
        let split = {
            let mut l = labels.clone();
            let v = (1..n as usize).find(|&v| l[v] != v as u64).unwrap();
            l[v] = v as u64; // a vertex with neighbours alone
            l
        };
        for bad in [&joined, &split] {
            let (a, b) = (
                verify_cc(&list, bad),
                verify_cc_rows(u64::from(n), bad, rows(false)),
            );
            assert!(a.is_err() && b.is_err(), "{what}: {a:?} {b:?}");
        }
        assert!(verify_cc_rows(u64::from(n), &labels[1..], rows(false)).is_err());

        // PageRank: the same residual, bit for bit, on converged scores and
        // on spoiled ones; too low a score refused by both.
        let pr = reference::pagerank(&list, directed, 0.85, 100, 1e-9).unwrap();
        let mut spoiled = pr.scores.clone();
        spoiled[7] *= 3.0;
        spoiled[1234] *= 0.5;
        for scores in [&pr.scores, &spoiled] {
            let a = verify_pagerank(&list, directed, scores, 0.85);
            let b = verify_pagerank_rows(u64::from(n), scores, 0.85, rows(false), rows(true));
            assert_eq!(a.map(f64::to_bits), b.map(f64::to_bits), "{what}");
        }
        let mut low = pr.scores.clone();
        low[3] = 0.0;
        assert!(verify_pagerank_rows(u64::from(n), &low, 0.85, rows(false), rows(true)).is_err());
    }
    // A damaged row is refused, not read.
    let path = d.join("g-false");
    let mut bytes = std::fs::read(&path).unwrap();
    let h = open(&path).unwrap().header().clone();
    let at = h.sections[Section::Targets as usize].start as usize + 4 * 1000;
    bytes[at] ^= 1;
    let bad = d.join("bad");
    std::fs::write(&bad, &bytes).unwrap();
    let g = open(&bad).unwrap();
    let labels = vec![0u64; 20_000];
    let e = verify_cc_rows(20_000, &labels, rows_of(&g, false)).unwrap_err();
    assert!(e.contains("corrupt") || e.contains("checksum"), "{e}");
}

/// `g`'s rows for the whole-graph checks.
fn rows_of(g: &BuiltGraph, in_rows: bool) -> crate::validate::RowPass<'_> {
    Box::new(move |f| {
        g.for_each_row(in_rows, |v, r| f(v, r))
            .map_err(|e| e.to_string())
    })
}

#[test]
fn nonempty_rows_are_the_vertices_with_an_edge_to_another() {
    let d = scratch("nonempty");
    // Self-loops (every 13th record), a hub and isolated vertices (the
    // top eighth of the ids); undirected and directed.
    let list = graph(300, 900, 5, false);
    for directed in [false, true] {
        let path = d.join(format!("g{directed}"));
        write(&path, &list, &meta(directed, false), &[], None).unwrap();
        let g = open(&path).unwrap();
        let bits = g.nonempty_rows().unwrap();
        assert_eq!(bits.len(), 300usize.div_ceil(64));
        let mut want = vec![false; 300];
        for e in list.edges().iter().filter(|e| e.u != e.v) {
            want[e.u as usize] = true;
            if !directed {
                want[e.v as usize] = true;
            }
        }
        let got: Vec<bool> = (0..300)
            .map(|v| bits[v / 64] >> (v % 64) & 1 == 1)
            .collect();
        assert_eq!(got, want, "directed {directed}");
        // Some vertices have only self-loops or nothing: not every bit is set.
        assert!(want.iter().any(|&x| !x) && want.iter().filter(|&&x| x).count() > 200);
        assert!(
            bits[300 / 64] >> (300 % 64) == 0,
            "no bit past the last vertex"
        );
        // A damaged offset is refused, not read.
        let mut bytes = std::fs::read(&path).unwrap();
        let o = g.header().sections[Section::Offsets as usize].start as usize;
        bytes[o + 8 * 7] ^= 1;
        let bad = d.join("bad");
        std::fs::write(&bad, &bytes).unwrap();
        let e = open(&bad).unwrap().nonempty_rows().unwrap_err().to_string();
        assert!(e.contains("row offsets do not match their checksum"), "{e}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn bc_and_tc_checks_read_the_rows_one_vertex_at_a_time() {
    use crate::validate::{bc_rows, tc_rows, tc_sequential, verify_bc_rows, verify_tc_rows};
    let d = scratch("row-reads");
    // Several 2 MiB pieces of rows; self-loops, repeats, a hub, isolated vertices.
    let n = 20_000u32;
    let list = graph(n, 600_000, 21, false);
    let path = d.join("g");
    write(&path, &list, &meta(false, false), &[], None).unwrap();
    let g = open(&path).unwrap();
    // The reader hands out the build's rows, in any order.
    let whole: Shard = build_trustees_with(&list, &Partition::single(u64::from(n)), 0..1, false)
        .unwrap()
        .remove(0);
    let mut r = g.row_reader().unwrap();
    assert_eq!(r.num_vertices(), u64::from(n));
    for v in [5, 2, 19_999, 0, 2, 7_000] {
        assert_eq!(r.row(v).unwrap(), whole.adjacency(u64::from(v)).0);
    }
    assert!(r.row(n).is_err(), "past the last vertex");
    drop(r);
    let mut memory: Vec<Vec<u32>> = (0..u64::from(n))
        .map(|v| whole.adjacency(v).0.to_vec())
        .collect();

    // tc: the list's count; one more or one fewer refused.
    let want = tc_sequential(&list).unwrap();
    assert!(want > 1000, "{want}");
    let mut r = g.row_reader().unwrap();
    assert_eq!(tc_rows(&mut r), Ok(want));
    assert_eq!(verify_tc_rows(want, &mut r), Ok(want));
    for bad in [want - 1, want + 1] {
        let e = verify_tc_rows(bad, &mut r).unwrap_err();
        assert!(e.contains(&format!("has {want}")), "{e}");
    }

    // bc: the same reference from the file as from the rows in memory,
    // bit for bit (ascending passes either way).
    let sources = [2u64, 17, 4_000, 19_999];
    let mut r = g.row_reader().unwrap();
    let from_file = bc_rows(&sources, &mut r).unwrap();
    let from_memory = bc_rows(&sources, &mut memory).unwrap();
    assert_eq!(from_file, from_memory);
    assert_eq!(from_file.iter().copied().fold(0.0, f64::max), 1.0);
    assert!(from_file.iter().filter(|&&x| x > 0.0 && x < 1.0).count() > 1000);
    assert_eq!(verify_bc_rows(&sources, &from_file, 1e-9, &mut r), Ok(0.0));
    // A score off by more than the tolerance, another source's scores,
    // too few scores, a score past 1: refused.
    let v = (0..n as usize)
        .find(|&v| from_file[v] > 0.0 && from_file[v] < 0.5)
        .unwrap();
    let mut off = from_file.clone();
    off[v] += 1e-6;
    let e = verify_bc_rows(&sources, &off, 1e-9, &mut r).unwrap_err();
    assert!(e.contains(&format!("vertex {v} ")), "{e}");
    let other = bc_rows(&[3], &mut memory).unwrap();
    assert!(verify_bc_rows(&sources, &other, 1e-9, &mut r).is_err());
    assert!(verify_bc_rows(&sources, &from_file[1..], 1e-9, &mut r).is_err());
    let mut past = from_file.clone();
    past[v] = 1.5;
    assert!(verify_bc_rows(&sources, &past, 1e-9, &mut r).is_err());
    assert!(verify_bc_rows(&[u64::from(n)], &from_file, 1e-9, &mut r).is_err());
    drop(r);

    // A damaged row is refused, not read, by both.
    let mut bytes = std::fs::read(&path).unwrap();
    let h = g.header().clone();
    let at = h.sections[Section::Targets as usize].start as usize + 4 * 1000;
    bytes[at] ^= 1;
    let bad = d.join("bad");
    std::fs::write(&bad, &bytes).unwrap();
    let g = open(&bad).unwrap();
    for e in [
        verify_tc_rows(want, &mut g.row_reader().unwrap()).unwrap_err(),
        verify_bc_rows(&sources, &from_file, 1e-9, &mut g.row_reader().unwrap()).unwrap_err(),
    ] {
        assert!(e.contains("corrupt") || e.contains("checksum"), "{e}");
    }
    let _ = std::fs::remove_dir_all(&d);
}
