//! The one shape's own parts: sending once, messages to a trustee, steps in
//! every direction, kernel-ordered passes and state kept between runs; 1-3
//! trustees, both partitions.

use graph_core::sharded::ShardedGraph;
use graph_core::{build_whole, EdgeList, PartitionKind};
use graph_kernel::adjacency::NO_FLAT;
use graph_kernel::{doc, gather, run, Direction, Program};

const KINDS: [PartitionKind; 2] = [PartitionKind::Block, PartitionKind::Cyclic];

fn levels_from(list: &EdgeList<'_>, root: u64) -> Vec<i64> {
    let g = build_whole(list).unwrap();
    let mut depth = vec![-1i64; list.num_vertices() as usize];
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

/// The tutorial's fast BFS, with a counter of the visits that arrived.
struct Bfs {
    parent: Vec<u32>,
    depth: Vec<i64>,
    level: i64,
    arrived: u64,
}

impl Program for Bfs {
    type Msg = u32;
    fn receive(&mut self, v: u32, parent: u32) -> bool {
        self.arrived += 1;
        let first = self.parent[v as usize] == NO_FLAT;
        if first {
            self.parent[v as usize] = parent;
            self.depth[v as usize] = self.level;
        }
        first
    }
    fn next_superstep(&mut self, level: u32) {
        self.level = i64::from(level);
    }
}

/// Levels and (pulls, visits sent) per trustee.
fn bfs(g: &ShardedGraph, root: u64, d: Direction) -> (Vec<i64>, Vec<(u32, u64)>) {
    let per = run(
        g,
        |s, old: Option<Bfs>| {
            let n = s.num_own() as usize;
            let mut b = old.unwrap_or(Bfs {
                parent: vec![NO_FLAT; n],
                depth: vec![-1; n],
                level: 0,
                arrived: 0,
            });
            b.parent.fill(NO_FLAT);
            b.depth.fill(-1);
            (b.level, b.arrived) = (0, 0);
            b
        },
        move |k| {
            k.set_direction(d);
            k.with(move |l| {
                if let Some(r) = l.position_of(root) {
                    l.receive(r, l.flat(r));
                }
            });
            let mut active = k.end_superstep();
            while active > 0 {
                active = k.step(
                    |l, v| {
                        let me = l.flat(v);
                        for &f in l.row(v) {
                            l.send_first(f, me);
                        }
                    },
                    |l, v| {
                        if l.state().parent[v as usize] == NO_FLAT {
                            if let Some(&f) = l.row(v).iter().find(|&&f| l.was_active(f)) {
                                l.receive(v, f);
                            }
                        }
                    },
                );
            }
            (k.pulls(), k.stats().sent)
        },
    );
    (
        gather(g, -1, |b: &Bfs, v| b.depth[v as usize]).unwrap(),
        per,
    )
}

#[test]
fn steps_in_every_direction_give_the_levels() {
    let list = doc::random(3000, 12_000, 5);
    let want = levels_from(&list, 0);
    assert!(*want.iter().max().unwrap() > 3);
    for threads in [1, 2, 3] {
        for kind in KINDS {
            let l = list.clone();
            let got = gossamer::main(threads, move || {
                let g = ShardedGraph::build(&l, kind).unwrap();
                [
                    Direction::Push,
                    Direction::Pull,
                    Direction::Auto {
                        alpha: 15.0,
                        beta: 18.0,
                    },
                ]
                .map(|d| bfs(&g, 0, d))
            });
            let what = format!("{threads} threads, {kind:?}");
            for (levels, _) in &got {
                assert_eq!(levels, &want, "{what}");
            }
            // Push never pulls, Pull always does, Auto does in between.
            let pulls = |i: usize| got[i].1[0].0;
            assert_eq!(pulls(0), 0, "{what}");
            let steps = *want.iter().max().unwrap() as u32 + 1;
            assert_eq!(pulls(1), steps, "{what}");
            assert!(pulls(2) > 0 && pulls(2) < steps, "{what}: {}", pulls(2));
        }
    }
}

#[test]
fn send_first_sends_each_remote_vertex_once_per_run() {
    let list = doc::random(2000, 20_000, 9);
    for threads in [2, 3] {
        let l = list.clone();
        let (sent, arrived) = gossamer::main(threads, move || {
            let g = ShardedGraph::build(&l, PartitionKind::Cyclic).unwrap();
            // Every vertex offers itself to every neighbour at once.
            let per = run(
                &g,
                |s, _| Bfs {
                    parent: vec![NO_FLAT; s.num_own() as usize],
                    depth: vec![-1; s.num_own() as usize],
                    level: 0,
                    arrived: 0,
                },
                |k| {
                    k.for_each_vertex(|l, v| {
                        let me = l.flat(v);
                        for &f in l.row(v) {
                            l.send_first(f, me);
                        }
                    });
                    k.sync();
                    let arrived = k.with(|l| l.state().arrived);
                    (k.stats().sent, arrived)
                },
            );
            (
                per.iter().map(|p| p.0).sum::<u64>(),
                per.iter().map(|p| p.1).sum::<u64>(),
            )
        });
        // At most one visit per (sender, remote vertex) pair: fewer than
        // the trustees times the vertices; every one of them arrived.
        assert!(sent > 0 && sent <= 2000 * (threads as u64 - 1), "{sent}");
        assert!(arrived >= sent, "{arrived} < {sent}");
    }
}

/// Sums what every trustee sends to every trustee.
struct Tally {
    got: u64,
    from: u64,
}

impl Program for Tally {
    type Msg = u64;
    fn receive(&mut self, _: u32, _: u64) -> bool {
        unreachable!("only trustees are sent to")
    }
    fn receive_here(&mut self, x: u64) {
        self.got += x;
        self.from += 1;
    }
}

#[test]
fn messages_to_a_trustee_arrive_once_each() {
    for threads in [1, 2, 3] {
        let list = doc::path(10);
        let got = gossamer::main(threads, move || {
            let g = ShardedGraph::build(&list, PartitionKind::Block).unwrap();
            run(
                &g,
                |_, _| Tally { got: 0, from: 0 },
                |k| {
                    let n = k.num_trustees();
                    k.with(move |l| {
                        for t in 0..n {
                            l.send_to_trustee(t, 1 + u64::from(l.me()));
                        }
                    });
                    k.sync();
                    k.with(|l| (l.state().got, l.state().from))
                },
            )
        });
        let n = threads as u64;
        assert_eq!(got, vec![(n * (n + 1) / 2, n); threads], "{threads}");
    }
}

/// Counts down a budget in passes, sending one record per pass around a ring.
struct Countdown {
    left: u32,
    passes: u32,
    got: u32,
}

impl Program for Countdown {
    type Msg = u32;
    fn receive(&mut self, _: u32, x: u32) -> bool {
        self.got += x;
        false
    }
}

#[test]
fn passes_run_until_the_kernel_says_done_and_ship_each_pass() {
    for threads in [1, 2, 3] {
        let list = doc::path(64);
        let out = gossamer::main(threads, move || {
            let g = ShardedGraph::build(&list, PartitionKind::Cyclic).unwrap();
            run(
                &g,
                |_, _| Countdown {
                    left: 5,
                    passes: 0,
                    got: 0,
                },
                |k| {
                    let next = k.partition().global((k.me() + 1) % k.num_trustees(), 0);
                    k.passes(move |l| {
                        let f = l.flat_of(next);
                        l.send(f, 1);
                        let s = l.state();
                        s.passes += 1;
                        s.left -= 1;
                        s.left > 0
                    });
                    k.sync();
                    k.with(|l| (l.state().passes, l.state().got))
                },
            )
        });
        assert_eq!(out, vec![(5, 5); threads], "{threads}");
    }
}

#[test]
fn init_gets_the_previous_state_of_the_same_graph() {
    let list = doc::path(8);
    let seen = gossamer::main(2, move || {
        let g = ShardedGraph::build(&list, PartitionKind::Block).unwrap();
        (0..3)
            .map(|_| {
                run(
                    &g,
                    |_, old: Option<Tally>| {
                        let runs = old.map_or(0, |t| t.from + 1);
                        Tally { got: 0, from: runs }
                    },
                    |k| k.with(|l| l.state().from),
                )
            })
            .collect::<Vec<_>>()
    });
    assert_eq!(seen, [vec![0, 0], vec![1, 1], vec![2, 2]]);
}
