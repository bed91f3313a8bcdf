//! The prepared rows against a plain reference, on a graph whose hubs have
//! rows of thousands of entries (the ones radix sorted while preparing)
//! and parallel edges of equal and different weights: each position's
//! unweighted row is its distinct neighbours' flat ids ascending (rows
//! copied from a weighted shard, and rows the shard lends), and each
//! weighted split (in the shard and in a copy) lists the distinct
//! neighbours with their lightest weight, light ones then heavy ones,
//! each ascending by flat id, then every other entry; on 1-3 trustees,
//! block and cyclic.

mod common;

use common::Looked;
use graph_core::construct::{LocalSource, Unweighted};
use graph_core::sharded::ShardedGraph;
use graph_core::{EdgeList, PackedEdge, PartitionKind};
use graph_kernel::run;

const N: u32 = 3000;
const DELTA: f32 = 0.3;

/// Hubs 0..8 joined to most vertices (some twice, some at the same
/// weight), and a sparse random rest.
fn graph() -> EdgeList<'static> {
    let mut edges = Vec::new();
    let mut x = 0x1234_5678_9abc_def1u64;
    let mut next = || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        x >> 33
    };
    let weight = |r: u64| [0.125f32, 0.25, 0.3, 0.5, 0.75, 1.0][(r % 6) as usize];
    for hub in 0..8u32 {
        for v in 0..N {
            let r = next();
            if r % 10 < 7 {
                edges.push(PackedEdge::new(hub, v, weight(r >> 8)));
            }
            if r % 13 == 0 {
                // Parallel: the same weight or another one.
                edges.push(PackedEdge::new(v, hub, weight(r >> 12)));
            }
        }
    }
    for _ in 0..20_000 {
        let (u, v, r) = (
            (next() % u64::from(N)) as u32,
            (next() % u64::from(N)) as u32,
            next(),
        );
        edges.push(PackedEdge::new(u, v, weight(r)));
    }
    EdgeList::from_edges(u64::from(N), edges).unwrap()
}

/// Per trustee, per position: the reference row (flat ids) and what the
/// kernels were given.
type Rows = Vec<(Vec<u32>, Vec<u32>)>;
/// Per trustee, per position: the reference split (light, heavy, the
/// other entries) and the split made, in place and copied.
type Split = (Vec<(u32, f32)>, Vec<(u32, f32)>, Vec<(u32, f32)>);

/// The split of one position's entries `(flat id, weight)` as it should be.
fn reference_split(mut entries: Vec<(u32, f32)>) -> Split {
    entries.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let mut unique: Vec<(u32, f32)> = Vec::new();
    let mut rest = Vec::new();
    for e in entries {
        if unique.last().is_some_and(|u| u.0 == e.0) {
            rest.push(e);
        } else {
            unique.push(e);
        }
    }
    let (light, heavy) = unique.into_iter().partition(|e| e.1 <= DELTA);
    (light, heavy, rest)
}

type Saw = (Rows, Vec<(Split, Split, Split)>);

fn look(source: LocalSource, weighted: bool, kind: PartitionKind, threads: usize) -> Vec<Saw> {
    gossamer::main(threads, move || {
        let g = if weighted {
            ShardedGraph::build_from(source, kind).unwrap().0
        } else {
            ShardedGraph::build_from(Unweighted(source), kind)
                .unwrap()
                .0
        };
        if weighted {
            g.mark_rows_rewritten("this test");
        }
        let init = move |s: &mut graph_kernel::Setup<'_>, _: Option<Looked<Saw>>| {
            let a = s.adjacency().clone();
            let order: Vec<u32> = (0..a.num_own()).map(|v| a.local(v)).collect();
            let entries: Vec<Vec<(u32, f32)>> = order
                .iter()
                .map(|&l| {
                    s.shard()
                        .neighbors(u64::from(l))
                        .map(|(g, w)| (a.flat_of(g), w))
                        .collect()
                })
                .collect();
            let rows = a.rows(s.shard());
            let rows: Rows = entries
                .iter()
                .enumerate()
                .map(|(v, e)| {
                    let mut want: Vec<u32> = e.iter().map(|x| x.0).collect();
                    want.sort_unstable();
                    want.dedup();
                    (want, rows.row(v as u32).to_vec())
                })
                .collect();
            let mut splits = Vec::new();
            if weighted {
                let copy = a.light_heavy(s.shard_mut(), DELTA, false);
                let in_place = a.light_heavy(s.shard_mut(), DELTA, true);
                assert!(in_place.in_shard() && !copy.in_shard());
                let shard = s.shard();
                for (v, e) in entries.into_iter().enumerate() {
                    let v = v as u32;
                    let made = |lh: &graph_kernel::LightHeavy| -> Split {
                        let (t, w) = lh.arrays(shard);
                        let pairs = |r: std::ops::Range<usize>| -> Vec<(u32, f32)> {
                            r.map(|i| (t[i], w[i])).collect()
                        };
                        let (light, heavy) = (lh.light(shard, v), lh.heavy(shard, v));
                        let end = light.start + e.len();
                        (pairs(light), pairs(heavy.clone()), pairs(heavy.end..end))
                    };
                    splits.push((reference_split(e.clone()), made(&in_place), made(&copy)));
                }
            }
            Looked(Some((rows, splits)))
        };
        run(&g, init, |k| {
            k.with_returning(|l| l.state().0.take().expect("set by init"))
        })
    })
}

#[test]
fn prepared_rows_and_splits_match_a_plain_reference() {
    let list = graph();
    let source = LocalSource::publish_list(list);
    for threads in [1, 2, 3] {
        for kind in [PartitionKind::Block, PartitionKind::Cyclic] {
            let mut longest = 0;
            for weighted in [false, true] {
                for (t, seen) in look(source, weighted, kind, threads)
                    .into_iter()
                    .enumerate()
                {
                    let (rows, splits) = seen;
                    let at =
                        format!("{threads} threads, {kind:?}, weighted {weighted}, trustee {t}");
                    for (v, (want, got)) in rows.iter().enumerate() {
                        // Not `assert_eq!`: a hub's row is thousands long.
                        assert!(got == want, "{at}: row of position {v} differs");
                        longest = longest.max(want.len());
                    }
                    assert_eq!(splits.is_empty(), !weighted);
                    for (v, (want, in_place, copy)) in splits.iter().enumerate() {
                        let bits = |s: &Split| -> Vec<Vec<(u32, u32)>> {
                            [&s.0, &s.1, &s.2]
                                .iter()
                                .map(|p| p.iter().map(|&(f, w)| (f, w.to_bits())).collect())
                                .collect()
                        };
                        assert_eq!(
                            bits(in_place),
                            bits(want),
                            "{at}: split of position {v}, in place"
                        );
                        assert_eq!(
                            bits(copy),
                            bits(want),
                            "{at}: split of position {v}, copied"
                        );
                    }
                }
            }
            assert!(
                longest >= 1000,
                "hub rows are long enough to be radix sorted: {longest}"
            );
        }
    }
    source.withdraw();
}
