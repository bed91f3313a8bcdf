//! The building blocks against plain recomputation: the prepared adjacency
//! (rows, degree order, owner lookup, light/heavy split) on 1-3 trustees and
//! both partitions, seen from a program's setup; and supersteps ended in one
//! round against two.

mod common;

use common::Looked;
use graph_core::sharded::ShardedGraph;
use graph_core::{EdgeList, PackedEdge, PartitionKind};
use graph_kernel::run;

/// A small multigraph with parallel edges, self-loops and an isolated vertex.
fn graph() -> EdgeList<'static> {
    let n = 150u32;
    let mut edges = Vec::new();
    let mut x = 12345u64;
    for _ in 0..900 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let (u, v) = (((x >> 33) % 120) as u32, ((x >> 13) % 140) as u32);
        let w = ((x >> 50) % 1000) as f32 / 1000.0 + 0.001;
        edges.push(PackedEdge::new(u, v, w));
    }
    edges.push(PackedEdge::new(3, 4, 0.9));
    edges.push(PackedEdge::new(3, 4, 0.1));
    edges.push(PackedEdge::new(7, 7, 0.5));
    EdgeList::from_edges(u64::from(n), edges).unwrap()
}

/// Per trustee, for every position: (global id, row as global ids, light
/// entries as (global, weight), heavy entries), plus the merged count.
type Seen = (Vec<(u32, Vec<u32>, Vec<(u32, f32)>, Vec<(u32, f32)>)>, u64);

#[test]
fn prepared_rows_match_the_shards() {
    let list = graph();
    let delta = 0.3f32;
    // The expected rows: distinct neighbours (no self-loops) with the
    // lightest weight.
    let mut want: Vec<std::collections::BTreeMap<u32, f32>> =
        vec![Default::default(); list.num_vertices() as usize];
    for e in list.edges() {
        let (u, v, w) = (e.u, e.v, e.w);
        if u == v {
            continue;
        }
        for (a, b) in [(u, v), (v, u)] {
            let m = want[a as usize].entry(b).or_insert(w);
            *m = m.min(w);
        }
    }
    // Every entry of each vertex, parallels included, by global id.
    let mut all: Vec<Vec<(u32, u32)>> = vec![Vec::new(); list.num_vertices() as usize];
    for e in list.edges() {
        if e.u != e.v {
            all[e.u as usize].push((e.v, e.w.to_bits()));
            all[e.v as usize].push((e.u, e.w.to_bits()));
        }
    }
    all.iter_mut().for_each(|r| r.sort_unstable());
    // Leaked: the trustee closures are `Copy`.
    let all: &'static [Vec<(u32, u32)>] = Vec::leak(all);
    for (threads, in_place) in [
        (1, false),
        (2, false),
        (3, false),
        (1, true),
        (2, true),
        (3, true),
    ] {
        for kind in [PartitionKind::Block, PartitionKind::Cyclic] {
            let l = list.clone();
            let seen: Vec<Seen> = gossamer::main(threads, move || {
                let g = ShardedGraph::build(&l, kind).unwrap();
                if in_place {
                    g.mark_rows_rewritten("this test");
                }
                graph_kernel::prepare(&g, graph_kernel::Prepare::Rows);
                graph_kernel::prepare(&g, graph_kernel::Prepare::Rows); // finds it
                let init = move |s: &mut graph_kernel::Setup<'_>, _: Option<Looked<Seen>>| {
                    let a = s.adjacency().clone();
                    let mut lh = a.light_heavy(s.shard_mut(), delta, in_place);
                    assert_eq!(lh.in_shard(), in_place);
                    assert_eq!(s.shard().renamed().is_some(), in_place);
                    let adj_rows = a.rows(s.shard());
                    let p = *a.partition();
                    let mut rows = Vec::new();
                    let mut last_degree = u64::MAX;
                    // The order graph-core's rule gives (by degree when skewed).
                    let n = a.num_own();
                    let want = graph_core::csr::positions(n, |l| s.shard().degree(u64::from(l)));
                    let by_degree = want.iter().enumerate().any(|(l, &r)| r as usize != l);
                    for v in 0..a.num_own() {
                        let f = a.flat(v);
                        assert_eq!(a.own(f), Some(v));
                        assert_eq!(a.locate(f), (a.me() as usize, v));
                        let l = a.local(v);
                        assert_eq!(a.position(l), v);
                        assert_eq!(want[l as usize], v);
                        let g = a.global_of(f);
                        assert_eq!(u64::from(g), p.global(a.me(), u64::from(l)));
                        assert_eq!(a.flat_of(g), f);
                        // Degree order (of the shard's degrees, with parallels).
                        let d = s.shard().degree(u64::from(l));
                        assert!(!by_degree || d <= last_degree, "degree order");
                        last_degree = d;
                        let row = adj_rows.row(v);
                        assert!(row.windows(2).all(|w| w[0] < w[1]), "sorted, distinct");
                        for &t in row {
                            let (o, at) = a.locate(t);
                            assert_eq!(t, a.base(o) + at);
                            let g = u64::from(a.global_of(t));
                            assert_eq!(p.trustee_of(g), o as u32, "owner of {t}");
                            assert_eq!(a.flat_of(g as u32), t);
                            assert_eq!(a.own(t).is_some(), o == a.me() as usize);
                        }
                        // The shard still holds every entry, by global id.
                        let mut kept: Vec<(u32, u32)> = s
                            .shard()
                            .neighbors(u64::from(l))
                            .map(|(t, w)| (t, w.to_bits()))
                            .collect();
                        kept.sort_unstable();
                        assert_eq!(kept, all[g as usize], "entries of {g}");
                        let (ts, ws) = lh.arrays(s.shard());
                        let ent = |r: std::ops::Range<usize>| -> Vec<(u32, f32)> {
                            r.map(|i| (a.global_of(ts[i]), ws[i])).collect()
                        };
                        rows.push((
                            g,
                            row.iter().map(|&t| a.global_of(t)).collect(),
                            ent(lh.light(s.shard(), v)),
                            ent(lh.heavy(s.shard(), v)),
                        ));
                    }
                    // A new Δ: the same entries, split again, each part ascending.
                    let before: Vec<usize> = (0..a.num_own())
                        .map(|v| lh.light(s.shard(), v).len() + lh.heavy(s.shard(), v).len())
                        .collect();
                    lh.resplit(s.shard_mut(), 0.6);
                    let (ts, ws) = lh.arrays(s.shard());
                    for v in 0..a.num_own() {
                        let (li, he) = (lh.light(s.shard(), v), lh.heavy(s.shard(), v));
                        assert_eq!(li.len() + he.len(), before[v as usize]);
                        // The whole row: the light part, then the heavy one.
                        assert_eq!(lh.row(v), li.start..he.end);
                        assert_eq!(li.end, he.start);
                        assert!(
                            li.clone().all(|i| ws[i] <= 0.6) && he.clone().all(|i| ws[i] > 0.6)
                        );
                        assert!(
                            ts[li].windows(2).all(|p| p[0] < p[1])
                                && ts[he].windows(2).all(|p| p[0] < p[1])
                        );
                    }
                    Looked(Some((rows, a.rows(s.shard()).entries_merged())))
                };
                run(&g, init, |k| {
                    k.with_returning(|l| l.state().0.take().unwrap())
                })
            });
            let mut merged = 0;
            let mut covered = 0;
            for (rows, m) in seen {
                merged += m;
                for (g, row, light, heavy) in rows {
                    covered += 1;
                    let w = &want[g as usize];
                    let mut got: Vec<u32> = row.clone();
                    got.sort_unstable();
                    assert_eq!(got, w.keys().copied().collect::<Vec<_>>(), "row of {g}");
                    assert!(light.iter().all(|&(_, x)| x <= delta));
                    assert!(heavy.iter().all(|&(_, x)| x > delta));
                    let mut both: Vec<(u32, f32)> = light.iter().chain(&heavy).copied().collect();
                    both.sort_by_key(|e| e.0);
                    let lightest: Vec<(u32, f32)> = w.iter().map(|(&k, &x)| (k, x)).collect();
                    assert_eq!(both, lightest, "weights of {g}");
                }
            }
            assert_eq!(covered, list.num_vertices());
            let entries: usize = want.iter().map(|m| m.len()).sum();
            let loops = list.edges().iter().filter(|e| e.u == e.v).count() as u64;
            assert_eq!(
                merged + entries as u64,
                2 * (list.num_edges() - loops),
                "merged counts the parallel entries"
            );
        }
    }
}

/// Minimum global id per connected component, by label propagation.
struct MinLabel(Vec<u32>);

impl graph_kernel::Program for MinLabel {
    type Msg = u32;
    const COMBINE: bool = true;
    fn receive(&mut self, v: u32, l: u32) -> bool {
        let lower = l < self.0[v as usize];
        if lower {
            self.0[v as usize] = l;
        }
        lower
    }
    fn combine(acc: &mut u32, l: u32) {
        *acc = (*acc).min(l);
    }
}

#[test]
fn one_round_supersteps_end_where_two_round_ones_do() {
    let list = graph();
    // Sequential reference: union-find.
    let n = list.num_vertices() as usize;
    let mut up: Vec<usize> = (0..n).collect();
    fn find(up: &mut [usize], mut x: usize) -> usize {
        while up[x] != x {
            up[x] = up[up[x]];
            x = up[x];
        }
        x
    }
    for e in list.edges() {
        let (a, b) = (find(&mut up, e.u as usize), find(&mut up, e.v as usize));
        up[a.max(b)] = a.min(b);
    }
    let mut want: Vec<u32> = (0..n).map(|v| find(&mut up, v) as u32).collect();
    // The root of each set is its minimum (unions keep the smaller root).
    for v in 0..n {
        want[v] = want[want[v] as usize];
    }
    for threads in [1, 2, 3] {
        for quick in [false, true] {
            let l = list.clone();
            let (labels, steps) = gossamer::main(threads, move || {
                let g = ShardedGraph::build(&l, PartitionKind::Cyclic).unwrap();
                let steps = graph_kernel::run(
                    &g,
                    |s, _| {
                        let a = s.adjacency();
                        MinLabel((0..a.num_own()).map(|v| a.global_of(a.flat(v))).collect())
                    },
                    move |k| {
                        k.with(|l| l.activate_all());
                        let more = |k: &mut graph_kernel::Kernel<MinLabel>| {
                            if quick {
                                k.end_superstep_quick()
                            } else {
                                k.end_superstep() > 0
                            }
                        };
                        while more(k) {
                            k.for_each_active(|l, v| {
                                let label = l.state().0[v as usize];
                                for &f in l.row(v) {
                                    l.send(f, label)
                                }
                            });
                        }
                        k.supersteps()
                    },
                );
                let labels =
                    graph_kernel::gather(&g, 0, |m: &MinLabel, v| m.0[v as usize]).unwrap();
                (labels, steps[0])
            });
            assert_eq!(labels, want, "{threads} threads, quick {quick}");
            assert!(steps > 2 && steps < 40, "{steps} supersteps");
        }
    }
}
