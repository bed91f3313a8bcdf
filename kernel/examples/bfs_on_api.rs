//! The tutorial's kernels, written the way a user would, against the
//! built-in kernels that run the same algorithms, on a Graph500 graph:
//!
//! - the top-down BFS of the tutorial's step 4 against `bfs` in top-down mode;
//! - the fast BFS of step 5 (push, pull, `Direction::Auto`) against `bfs`'s
//!   direction-optimizing default;
//! - the crate docs' minimum-label components (label propagation) against
//!   a label propagation that sends a label only when it beats the last one
//!   sent, and against `components::cc` (Afforest).
//!
//! Each time is the kernel's run: for the tutorial's kernels the call of
//! `run` (making the state as a user writes it, and the search), for the
//! built-in ones their reported `kernel_time` (the search with its per-call
//! reset); gathering the answers is left out of both. Medians over the
//! roots (and rounds for components); answers are checked equal.
//!
//! ```text
//! cargo run --release -p graph-kernel --example bfs_on_api -- --scale 20 --threads 2 --roots 16
//! ```

use std::time::Instant;

use bfs::{BfsConfig, BfsMode};
use generators::{Graph500Config, Kronecker};
use graph_core::sharded::ShardedGraph;
use graph_core::{EdgeList, Graph500Params, PackedEdge, PartitionKind};
use graph_kernel::adjacency::NO_FLAT;
use graph_kernel::{gather, run, Direction, Program};

/// Step 4's BFS: depths offered along the frontier's edges, once per vertex.
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

fn tutorial_top_down(g: &ShardedGraph, root: u64) -> (Vec<i32>, f64) {
    let t = Instant::now();
    run(
        g,
        |s, _| Levels {
            depth: vec![-1; s.num_own() as usize],
        },
        move |k| {
            k.with(move |l| {
                if let Some(r) = l.position_of(root) {
                    l.receive(r, 0);
                }
            });
            while k.end_superstep() > 0 {
                k.for_each_active(|l, v| {
                    let d = l.state().depth[v as usize] + 1;
                    for &f in l.row(v) {
                        l.send_first(f, d);
                    }
                });
            }
        },
    );
    let t = t.elapsed().as_secs_f64();
    (
        gather(g, -1, |s: &Levels, v| s.depth[v as usize]).expect("ran"),
        t,
    )
}

/// Step 5's BFS: parents, sent once, and a pull step.
struct Bfs {
    parent: Vec<u32>,
    depth: Vec<i32>,
    level: i32,
}

impl Program for Bfs {
    type Msg = u32;
    fn receive(&mut self, v: u32, parent: u32) -> bool {
        let first = self.parent[v as usize] == NO_FLAT;
        if first {
            self.parent[v as usize] = parent;
            self.depth[v as usize] = self.level;
        }
        first
    }
    fn next_superstep(&mut self, level: u32) {
        self.level = level as i32;
    }
}

fn tutorial_fast(g: &ShardedGraph, root: u64) -> (Vec<i32>, f64) {
    let t = Instant::now();
    run(
        g,
        |s, _| {
            let n = s.num_own() as usize;
            Bfs {
                parent: vec![NO_FLAT; n],
                depth: vec![-1; n],
                level: 0,
            }
        },
        move |k| {
            k.set_direction(Direction::Auto {
                alpha: 15.0,
                beta: 18.0,
            });
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
        },
    );
    let t = t.elapsed().as_secs_f64();
    (
        gather(g, -1, |b: &Bfs, v| b.depth[v as usize]).expect("ran"),
        t,
    )
}

/// The crate docs' minimum labels, and the tuned variant's last labels sent.
struct MinLabel {
    label: Vec<u32>,
}

impl Program for MinLabel {
    type Msg = u32;
    const COMBINE: bool = true;
    fn receive(&mut self, v: u32, l: u32) -> bool {
        let lower = l < self.label[v as usize];
        if lower {
            self.label[v as usize] = l;
        }
        lower
    }
    fn combine(acc: &mut u32, l: u32) {
        *acc = (*acc).min(l);
    }
}

fn labels(tuned: bool, g: &ShardedGraph) -> (Vec<u32>, f64) {
    let t = Instant::now();
    run(
        g,
        |s, _| {
            let a = s.adjacency();
            MinLabel {
                label: (0..a.num_own()).map(|v| a.global_of(a.flat(v))).collect(),
            }
        },
        move |k| {
            k.with(|l| l.activate_all());
            if !tuned {
                // As the crate docs write it.
                while k.end_superstep() > 0 {
                    k.for_each_active(|l, v| {
                        let label = l.state().label[v as usize];
                        for &f in l.row(v) {
                            l.send(f, label)
                        }
                    });
                }
                return;
            }
            // One collective round per superstep, and a vertex sends only
            // to neighbours whose flat id is not already labelled lower
            // by an own neighbour (the own ones are applied at once).
            while k.end_superstep_quick() {
                k.for_each_active(|l, v| {
                    let label = l.state().label[v as usize];
                    for &f in l.row(v) {
                        match l.own(f) {
                            Some(u) if l.state().label[u as usize] <= label => {}
                            _ => l.send(f, label),
                        }
                    }
                });
            }
        },
    );
    let t = t.elapsed().as_secs_f64();
    (
        gather(g, u32::MAX, |m: &MinLabel, v| m.label[v as usize]).expect("ran"),
        t,
    )
}

fn arg(name: &str, default: usize) -> usize {
    let a: Vec<String> = std::env::args().collect();
    a.iter()
        .position(|x| x == name)
        .and_then(|i| a.get(i + 1))
        .map(|v| {
            v.parse()
                .unwrap_or_else(|_| panic!("{name} {v}: expected a number"))
        })
        .unwrap_or(default)
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() {
    let (scale, threads, nroots) = (
        arg("--scale", 16) as u32,
        arg("--threads", 2),
        arg("--roots", 8),
    );
    let gen = Kronecker::new(Graph500Config::with_scale(scale)).expect("valid scale");
    let mut list = EdgeList::zeroed(Graph500Params::reference(scale)).expect("fits");
    gen.par_map_into(0, list.edges_mut(), |e| {
        PackedEdge::from_wide(e.u, e.v, e.w)
    });
    let live = generators::non_isolated(
        list.num_vertices(),
        list.edges()
            .iter()
            .map(|e| (u64::from(e.u), u64::from(e.v))),
    )
    .expect("ids in range");
    let roots = gen.search_roots(nroots, |v| live.contains(v));
    let list = std::sync::Arc::new(list);
    let t = graph_kernel::runtime::builder(threads)
        .expect("launcher environment")
        .run(move || {
            let g = ShardedGraph::build(&list, PartitionKind::Cyclic).expect("shardable");
            graph_kernel::prepare(&g, graph_kernel::Prepare::Rows);
            let mut times: [Vec<f64>; 7] = Default::default();
            for &root in &roots {
                let (td, t0) = tutorial_top_down(&g, root);
                let (fast, t1) = tutorial_fast(&g, root);
                for (i, mode) in [(2, BfsMode::TopDown), (3, BfsMode::DirectionOptimizing)] {
                    let cfg = BfsConfig {
                        mode,
                        ..Default::default()
                    };
                    let o = bfs::bfs(&g, root, &cfg).expect("root ok");
                    let want: Vec<i32> = o.level.iter().map(|&l| l as i32).collect();
                    assert_eq!(td, want, "root {root}: top-down levels differ");
                    assert_eq!(fast, want, "root {root}: fast levels differ");
                    times[i].push(o.kernel_time.as_secs_f64());
                }
                times[0].push(t0);
                times[1].push(t1);
            }
            for _ in 0..3 {
                let (plain, t4) = labels(false, &g);
                let (tuned, t5) = labels(true, &g);
                let cfg = components::CcConfig::default();
                let af = components::cc(&g, &cfg).expect("cc");
                assert_eq!(plain, tuned, "labels differ");
                assert!(
                    plain
                        .iter()
                        .zip(&af.labels)
                        .all(|(&a, &b)| u64::from(a) == b),
                    "label propagation and Afforest differ"
                );
                times[4].push(t4);
                times[5].push(t5);
                times[6].push(af.kernel_time.as_secs_f64());
            }
            times.map(median)
        })
        .expect("runtime");
    println!(
        "scale {scale}, {threads} threads, {nroots} roots, answers equal; median seconds per call:"
    );
    println!(
        "BFS top-down:   tutorial {:.4}  built-in {:.4}  ratio {:.2}",
        t[0],
        t[2],
        t[0] / t[2]
    );
    println!(
        "BFS direction-optimizing: tutorial {:.4}  built-in {:.4}  ratio {:.2}",
        t[1],
        t[3],
        t[1] / t[3]
    );
    println!(
        "components: min-label {:.4}  tuned label propagation {:.4}  ratio {:.2}  Afforest {:.4}  (min-label / Afforest {:.1})",
        t[4],
        t[5],
        t[4] / t[5],
        t[6],
        t[4] / t[6]
    );
}
