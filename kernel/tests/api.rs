//! Behaviour of the graph-kernel API on generated graphs: sweeps that span
//! many steps, combining, frontier modes, superstep isolation, reductions,
//! gathering, and re-running on the same graph; 1-3 trustees, both partitions.

use graph_core::sharded::{KernelError, ShardedGraph};
use graph_core::{build_whole, EdgeList, PackedEdge, PartitionKind};
use graph_kernel::{gather, run, FrontierMode, Program};

/// A random multigraph (self-loops and duplicates included) from a fixed LCG.
fn random_graph(n: u32, m: usize, seed: u64) -> EdgeList<'static> {
    let mut x = seed;
    let mut next = move || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) as u32
    };
    let edges = (0..m)
        .map(|_| PackedEdge::new(next() % n, next() % n, 1.0))
        .collect();
    EdgeList::from_edges(u64::from(n), edges).unwrap()
}

/// Distinct neighbours other than itself of every vertex: the rows'
/// degrees (parallel edges merged, self-loops dropped).
fn simple_degrees(list: &EdgeList<'_>) -> Vec<u64> {
    let whole = build_whole(list).unwrap();
    (0..list.num_vertices())
        .map(|v| {
            let mut row = whole.adjacency(v).0.to_vec();
            row.sort_unstable();
            row.dedup();
            row.len() as u64
        })
        .collect()
}

const KINDS: [PartitionKind; 2] = [PartitionKind::Block, PartitionKind::Cyclic];

struct Count {
    n: Vec<u64>,
}

impl Program for Count {
    type Msg = u64;
    fn receive(&mut self, v: u32, x: u64) -> bool {
        self.n[v as usize] += x;
        false
    }
}

struct CountCombined {
    n: Vec<u64>,
}

impl Program for CountCombined {
    type Msg = u64;
    const COMBINE: bool = true;
    fn receive(&mut self, v: u32, x: u64) -> bool {
        self.n[v as usize] += x;
        false
    }
    fn combine(acc: &mut u64, x: u64) {
        *acc += x;
    }
}

#[test]
fn degree_count_over_many_steps_matches_the_csr() {
    // 200k entries: each trustee's sweep takes several 16 Ki-edge steps.
    let list = random_graph(5000, 100_000, 7);
    let want = simple_degrees(&list);
    for threads in [1, 2, 3] {
        for kind in KINDS {
            let l = list.clone();
            let (plain, combined, stats) = gossamer::main(threads, move || {
                let g = ShardedGraph::build(&l, kind).unwrap();
                run(
                    &g,
                    |s, _| Count {
                        n: vec![0; s.num_own() as usize],
                    },
                    |k| {
                        k.for_each_vertex(|l, v| {
                            for &f in l.row(v) {
                                l.send(f, 1);
                            }
                        });
                        k.sync();
                    },
                );
                let stats = run(
                    &g,
                    |s, _| CountCombined {
                        n: vec![0; s.num_own() as usize],
                    },
                    |k| {
                        k.for_each_vertex(|l, v| {
                            for &f in l.row(v) {
                                l.send(f, 1);
                            }
                        });
                        k.sync();
                        k.stats()
                    },
                );
                (
                    gather(&g, 0, |c: &Count, v| c.n[v as usize]).unwrap(),
                    gather(&g, 0, |c: &CountCombined, v| c.n[v as usize]).unwrap(),
                    stats,
                )
            });
            assert_eq!(plain, want, "{threads} threads, {kind:?}");
            assert_eq!(combined, want, "{threads} threads, {kind:?}, combined");
            let total: u64 = stats.iter().map(|s| s.sent + s.combined + s.local).sum();
            assert_eq!(total, want.iter().sum::<u64>());
            if threads > 1 {
                // 5000 vertices: at most one record per remote vertex per batch,
                // and batches of 64 Ki records are not reached here.
                let sent: u64 = stats.iter().map(|s| s.sent).sum();
                assert!(sent <= 5000 * (threads as u64 - 1), "{sent} records");
                assert!(stats.iter().all(|s| s.combined > 0));
            }
        }
    }
}

/// BFS levels, as in the tutorial.
struct Levels {
    depth: Vec<i32>,
}

impl Program for Levels {
    type Msg = i32;
    fn receive(&mut self, v: u32, d: i32) -> bool {
        let first = self.depth[v as usize] < 0;
        if first {
            self.depth[v as usize] = d;
        }
        first
    }
}

fn bfs_levels(g: &ShardedGraph, root: u64, mode: FrontierMode) -> (Vec<i32>, u32) {
    let steps = run(
        g,
        |s, _| Levels {
            depth: vec![-1; s.num_own() as usize],
        },
        move |k| {
            k.set_frontier_mode(mode);
            k.with(move |l| {
                if let Some(r) = l.position_of(root) {
                    l.receive(r, 0);
                }
            });
            while k.end_superstep() > 0 {
                k.for_each_active(|l, v| {
                    assert!(l.is_active(v));
                    let d = l.state().depth[v as usize] + 1;
                    for &f in l.row(v) {
                        l.send(f, d);
                    }
                });
            }
            k.supersteps()
        },
    );
    (
        gather(g, -1, |s: &Levels, v| s.depth[v as usize]).unwrap(),
        steps[0],
    )
}

fn sequential_levels(list: &EdgeList<'_>, root: u64) -> Vec<i32> {
    let g = build_whole(list).unwrap();
    let mut depth = vec![-1; list.num_vertices() as usize];
    depth[root as usize] = 0;
    let mut q = std::collections::VecDeque::from([root as u32]);
    while let Some(v) = q.pop_front() {
        for &u in g.adjacency(u64::from(v)).0 {
            if depth[u as usize] < 0 {
                depth[u as usize] = depth[v as usize] + 1;
                q.push_back(u);
            }
        }
    }
    depth
}

#[test]
fn bfs_levels_agree_in_every_frontier_mode() {
    // Sparse enough to have a long tail of small frontiers, big enough for
    // dense ones in the middle.
    let list = random_graph(20_000, 30_000, 11);
    let want = sequential_levels(&list, 5);
    let max = *want.iter().max().unwrap() as u64;
    assert!(max > 5, "the test graph should have several levels");
    for threads in [1, 2, 3] {
        for kind in KINDS {
            let l = list.clone();
            let got = gossamer::main(threads, move || {
                let g = ShardedGraph::build(&l, kind).unwrap();
                [
                    FrontierMode::Auto,
                    FrontierMode::Sparse,
                    FrontierMode::Dense,
                ]
                .map(|m| bfs_levels(&g, 5, m))
            });
            for (depth, steps) in got {
                assert_eq!(depth, want, "{threads} threads, {kind:?}");
                // Seed, one superstep per level, and the empty last one.
                assert_eq!(u64::from(steps), max + 2);
            }
        }
    }
}

/// Counts arrivals in a separate array: nothing sent in superstep `s` may be
/// seen after the superstep ended elsewhere, nor lost.
struct Echo {
    got: Vec<u32>,
}

impl Program for Echo {
    type Msg = u32;
    fn receive(&mut self, v: u32, x: u32) -> bool {
        self.got[v as usize] += x;
        true
    }
}

#[test]
fn every_update_is_applied_when_the_superstep_ends() {
    let list = random_graph(3000, 20_000, 3);
    let degrees = simple_degrees(&list);
    for threads in [2, 3] {
        let l = list.clone();
        let ok = gossamer::main(threads, move || {
            let g = ShardedGraph::build(&l, PartitionKind::Cyclic).unwrap();
            run(
                &g,
                |s, _| Echo {
                    got: vec![0; s.num_own() as usize],
                },
                |k| {
                    let mut seen = Vec::new();
                    for round in 1..=3u32 {
                        k.for_each_vertex(move |l, v| {
                            for &f in l.row(v) {
                                l.send(f, round);
                            }
                        });
                        let active = k.end_superstep();
                        // Sum over this trustee of what arrived so far.
                        let got =
                            k.with(|l| l.state().got.iter().map(|&x| u64::from(x)).sum::<u64>());
                        seen.push((active, k.sum(got)));
                    }
                    seen
                },
            )
        });
        let entries: u64 = degrees.iter().sum();
        let reached = degrees.iter().filter(|&&d| d > 0).count() as u64;
        for seen in ok {
            assert_eq!(
                seen,
                [
                    (reached, entries),
                    (reached, 3 * entries),
                    (reached, 6 * entries)
                ]
            );
        }
    }
}

#[test]
fn gather_before_any_run_is_a_clear_error() {
    let list = random_graph(10, 10, 1);
    let msg = gossamer::main(2, move || {
        let g = ShardedGraph::build(&list, PartitionKind::Block).unwrap();
        match gather(&g, 0, |c: &Count, v| c.n[v as usize]) {
            Err(KernelError::Runtime(m)) => m,
            other => panic!("expected an error, got {other:?}"),
        }
    });
    assert!(msg.contains("has not run on this graph"), "{msg}");
}

#[test]
fn a_new_run_starts_from_fresh_state() {
    let list = random_graph(100, 300, 5);
    let (first, second) = gossamer::main(2, move || {
        let g = ShardedGraph::build(&list, PartitionKind::Cyclic).unwrap();
        let count = |g: &ShardedGraph| {
            run(
                g,
                |s, _| Count {
                    n: vec![0; s.num_own() as usize],
                },
                |k| {
                    k.for_each_vertex(|l, v| l.send(l.flat(v), 1));
                    k.sync();
                },
            );
            gather(g, 0, |c: &Count, v| c.n[v as usize]).unwrap()
        };
        (count(&g), count(&g))
    });
    assert_eq!(first, vec![1; 100]);
    assert_eq!(second, first);
}

#[test]
fn reductions_agree_on_every_trustee() {
    let list = random_graph(10, 10, 1);
    let out = gossamer::main(3, move || {
        let g = ShardedGraph::build(&list, PartitionKind::Cyclic).unwrap();
        run(
            &g,
            |_, _| Count { n: Vec::new() },
            |k| {
                let me = k.me();
                let x = [0.1, -2.5, 1e-9][me as usize];
                (
                    k.sum_f64(x),
                    k.min(u64::from(me) + 4),
                    k.max(u64::from(me)),
                    k.any(me == 2),
                    k.any(false),
                )
            },
        )
    });
    for o in &out {
        assert!((o.0 - (0.1 - 2.5 + 1e-9)).abs() < 1e-11, "{}", o.0);
        assert_eq!((o.1, o.2, o.3, o.4), (4, 2, true, false));
    }
    assert!(out.iter().all(|o| o == &out[0]));
}

/// Every trustee activates its own vertices only.
struct Flood;

impl Program for Flood {
    type Msg = u32;
    fn receive(&mut self, _: u32, _: u32) -> bool {
        true
    }
}

#[test]
fn a_superstep_without_records_ends_in_one_round() {
    // A path of 64 in blocks. First every trustee activates two own
    // vertices (no record leaves: one round), then the vertices at the
    // blocks' edges send across them (two rounds); the counts are exact
    // either way.
    for threads in [2, 3] {
        let out = gossamer::main(threads, move || {
            let g =
                ShardedGraph::build(&graph_kernel::doc::path(64), PartitionKind::Block).unwrap();
            run(
                &g,
                |_, _| Flood,
                |k| {
                    let r0 = k.rounds();
                    k.with(|l| {
                        l.activate(0);
                        l.activate(1);
                    });
                    let own = k.end_superstep();
                    let r1 = k.rounds();
                    // Every vertex at a block's edge sends to its neighbour
                    // across it.
                    k.for_each_vertex(|l, v| {
                        for &f in l.row(v) {
                            if l.own(f).is_none() {
                                l.send(f, 1);
                            }
                        }
                    });
                    let sent = k.end_superstep();
                    (own, r1 - r0, sent, k.rounds() - r1)
                },
            )
        });
        let t = threads as u64;
        assert_eq!(
            out,
            vec![(2 * t, 1, 2 * (t - 1), 2); threads],
            "{threads} threads"
        );
    }
}
