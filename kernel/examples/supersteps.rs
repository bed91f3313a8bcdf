//! The fixed cost of a superstep (issue 25, item 1): what the driver pays
//! per superstep when there is no work in it, and per level of a search on
//! a path, where every level holds one vertex.
//!
//! Two figures per kind: **typical**, the median over blocks of 256 calls
//! (or levels) of the time per call, which leaves out the blocks in which
//! the OS ran something else on a core for a while (on a shared machine
//! that costs milliseconds at a time); and **mean**, the whole loop's time
//! per call, which keeps them. Each is the median of `--reps` runs, with
//! the range.
//!
//! Empty supersteps, `--iters` of each, timed on trustee 0:
//!
//! - `barrier`: [`Kernel::sync`] (a flush and one collective round);
//! - `reduce`: one all-reduce of one lane ([`Kernel::sum`]);
//! - `end_superstep`: [`Kernel::end_superstep`] with nothing active;
//! - `end_quick`: [`Kernel::end_superstep_quick`] with nothing active;
//! - `step`: [`Kernel::step`] (a push sweep over an empty frontier and
//!   `end_superstep`).
//!
//! Then searches on the path `0 - 1 - ... - (n-1)` (`--chain n`) from
//! vertex 0, which take `n` levels: a top-down BFS written on
//! [`Kernel::step`] (as the `bfs` crate's push step, timed per block of
//! levels), the `bfs` crate's search (direction-optimizing; its kernel
//! time per level), and `sssp` with Δ = the edge weight (one vertex per
//! bucket; its kernel time per collective round). The partition
//! (`--partition block|cyclic`) decides whether the frontier stays on one
//! trustee for half the path (block) or changes trustee at every level
//! (cyclic).
//!
//! `--only grid` runs the kernels instead on a road-like grid of `--grid w`
//! x `w` vertices (default 1000) with about a tenth of the streets removed
//! and integer weights 1-1000 (BFS, SSSP with Δ = 100, cc), in
//! milliseconds per run and microseconds per level or round.
//! `--only NAME` runs one of the empty kinds (`--only empty` all of them),
//! or `--only path` the path's searches only.
//!
//! ```text
//! cargo run --release -p graph-kernel --example supersteps -- --threads 2
//! cargo run --release -p graph-kernel --example supersteps -- --ranks 2 --threads 1
//! ```

use std::time::Instant;

use bfs::BfsConfig;
use graph_core::sharded::ShardedGraph;
use graph_core::PartitionKind;
use graph_kernel::{run, Kernel, Program};
use sssp::SsspConfig;

/// One empty superstep (or collective call) of the first measurements.
type Body = fn(&mut Kernel<Idle>);

/// Calls (or levels) per timed block.
const BLOCK: u32 = 256;

/// A program with nothing to do: messages are never sent.
struct Idle;

impl Program for Idle {
    type Msg = u32;
    fn receive(&mut self, _: u32, _: u32) -> bool {
        false
    }
}

/// A top-down BFS: a vertex's first visit activates it.
struct Seen(Vec<bool>);

impl Program for Seen {
    type Msg = u32;
    fn receive(&mut self, v: u32, _: u32) -> bool {
        !std::mem::replace(&mut self.0[v as usize], true)
    }
}

fn arg(name: &str) -> Option<String> {
    let a: Vec<String> = std::env::args().collect();
    a.iter()
        .position(|x| x == name)
        .and_then(|i| a.get(i + 1))
        .cloned()
}

fn num(name: &str, default: usize) -> usize {
    arg(name).map_or(default, |v| {
        v.parse()
            .unwrap_or_else(|_| panic!("{name} {v}: expected a number"))
    })
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// Prints the median and range of `xs`.
fn show(what: &str, unit: &str, xs: Vec<f64>) {
    let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = xs.iter().copied().fold(0.0, f64::max);
    let m = median(xs);
    println!("{what:<34} {m:>9.2} {unit}  (range {lo:.2}-{hi:.2})");
}

/// Block times (seconds) into (typical, mean) microseconds per call.
fn typical_mean(blocks: &[f64], calls: u32) -> (f64, f64) {
    let typical = median(blocks.to_vec()) * 1e6 / f64::from(BLOCK);
    let mean = blocks.iter().sum::<f64>() * 1e6 / f64::from(calls);
    (typical, mean)
}

/// Times `body`'s `iters` calls in blocks of [`BLOCK`] on trustee 0:
/// (typical, mean) microseconds per call.
fn per_call(g: &ShardedGraph, iters: u32, body: Body) -> (f64, f64) {
    let blocks = iters.div_ceil(BLOCK);
    let times = run(
        g,
        |_, _| Idle,
        move |k| {
            // Every trustee starts together.
            k.sync();
            (0..blocks)
                .map(|_| {
                    let t = Instant::now();
                    (0..BLOCK).for_each(|_| body(k));
                    t.elapsed().as_secs_f64()
                })
                .collect::<Vec<f64>>()
        },
    );
    typical_mean(&times[0], blocks * BLOCK)
}

/// The top-down BFS from vertex 0 on `g`, levels timed in blocks on
/// trustee 0: (typical, mean) microseconds per level, and the levels.
fn path_bfs(g: &ShardedGraph) -> (f64, f64, u32) {
    let times = run(
        g,
        |s, _| Seen(vec![false; s.num_own() as usize]),
        |k| {
            k.with(|l| {
                if let Some(r) = l.position_of(0) {
                    l.receive(r, 0);
                }
            });
            let (mut levels, mut blocks) = (0u32, Vec::new());
            let mut active = k.end_superstep();
            let mut t = Instant::now();
            while active > 0 {
                active = k.step(
                    |l, v| {
                        let me = l.flat(v);
                        for &f in l.row(v) {
                            l.send_first(f, me);
                        }
                    },
                    |_, _| {},
                );
                levels += 1;
                if levels.is_multiple_of(BLOCK) {
                    blocks.push(t.elapsed().as_secs_f64());
                    t = Instant::now();
                }
            }
            (blocks, levels)
        },
    );
    let (blocks, levels) = &times[0];
    let (typical, mean) = typical_mean(blocks, blocks.len() as u32 * BLOCK);
    (typical, mean, *levels)
}

fn main() {
    if let Some(n) = arg("--ranks")
        .map(|r| r.parse::<usize>().expect("--ranks N"))
        .filter(|&n| n > 1 && std::env::var_os("GOSSAMER_RANK").is_none())
    {
        let a: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
        let i = a.iter().position(|x| x == "--ranks").expect("seen above");
        let rest: Vec<_> = a
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i && j != i + 1)
            .map(|(_, x)| x.clone())
            .collect();
        let code = gossamer::rack::launch_local(n, &rest).unwrap_or_else(|e| {
            eprintln!("{e}");
            2
        });
        std::process::exit(code);
    }
    let threads = num("--threads", 2);
    let iters = num("--iters", 20_000) as u32;
    let chain = num("--chain", 100_000) as u32;
    let grid = num("--grid", 1000) as u32;
    let reps = num("--reps", 5);
    let only = arg("--only");
    let kind = match arg("--partition").as_deref() {
        None | Some("block") => PartitionKind::Block,
        Some("cyclic") => PartitionKind::Cyclic,
        Some(p) => panic!("--partition {p}: expected block or cyclic"),
    };
    let b = graph_kernel::runtime::builder(threads).unwrap_or_else(|e| panic!("{e}"));
    let ranks = b.ranks();
    let r = b.run(move || {
        println!(
            "{ranks} rank(s) x {threads} thread(s), {kind:?} partition, medians of {reps} runs"
        );
        if only.as_deref() == Some("grid") {
            return grid_runs(kind, grid, reps);
        }
        let tiny = ShardedGraph::build(&graph_kernel::doc::path(64), kind).expect("path");
        let empty: [(&str, Body); 5] = [
            ("barrier", |k| k.sync()),
            ("reduce", |k| {
                k.sum(1);
            }),
            ("end_superstep", |k| {
                k.end_superstep();
            }),
            ("end_quick", |k| {
                k.end_superstep_quick();
            }),
            ("step", |k| {
                k.step(|_, _| {}, |_, _| {});
            }),
        ];
        for (name, body) in empty {
            if only.as_deref().is_some_and(|o| o != name && o != "empty") {
                continue;
            }
            per_call(&tiny, iters / 10, body); // warm-up
            let (typical, mean): (Vec<f64>, Vec<f64>) =
                (0..reps).map(|_| per_call(&tiny, iters, body)).unzip();
            show(&format!("empty {name}, typical"), "us/call", typical);
            show(&format!("empty {name}, mean"), "us/call", mean);
        }
        drop(tiny);
        if only.is_some_and(|o| o != "path") {
            return;
        }

        println!("a path of {chain} vertices");
        let g = ShardedGraph::build(&graph_kernel::doc::path(chain), kind).expect("path");
        let (mut typical, mut mean) = (Vec::new(), Vec::new());
        for rep in 0..=reps {
            let (t, m, levels) = path_bfs(&g);
            assert_eq!(levels, chain);
            if rep > 0 {
                typical.push(t);
                mean.push(m);
            }
        }
        show("path top-down step, typical", "us/level", typical);
        show("path top-down step, mean", "us/level", mean);
        let mut xs = Vec::new();
        for rep in 0..=reps {
            let o = bfs::bfs(&g, 0, &BfsConfig::default()).expect("root 0");
            assert_eq!(o.level[chain as usize - 1], i64::from(chain) - 1);
            if rep > 0 {
                xs.push(o.kernel_time.as_secs_f64() * 1e6 / f64::from(chain));
            }
        }
        show("path bfs crate, mean", "us/level", xs);
        // Δ = the edge weight (0.5): one vertex per bucket.
        let cfg = SsspConfig {
            delta: 0.5,
            ..SsspConfig::default()
        };
        let (mut per_round, mut rounds) = (Vec::new(), 0);
        for rep in 0..=reps {
            let o = sssp::sssp(&g, 0, &cfg).expect("root 0");
            assert_eq!(o.dist[chain as usize - 1], 0.5 * (chain - 1) as f32);
            if rep > 0 {
                per_round.push(o.kernel_time.as_secs_f64() * 1e6 / o.rounds as f64);
                rounds = o.rounds;
            }
        }
        show(
            &format!("path sssp crate, mean ({rounds} rounds)"),
            "us/round",
            per_round,
        );
    });
    if let Err(e) = r {
        eprintln!("{e}");
        std::process::exit(1);
    }
}

/// A `w` x `w` grid, vertex `y w + x`, streets to the right and down, about
/// one in ten removed, integer weights 1-1000 (from a hash of the street).
fn grid_list(w: u32) -> graph_core::EdgeList<'static> {
    let hash = |a: u64| {
        let mut x = a.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        x ^= x >> 29;
        x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x ^ (x >> 32)
    };
    let mut edges = Vec::new();
    for y in 0..w {
        for x in 0..w {
            let v = y * w + x;
            for (ok, u, dir) in [(x + 1 < w, v + 1, 0), (y + 1 < w, v + w, 1)] {
                let h = hash(2 * u64::from(v) + dir);
                if ok && h % 10 != 0 {
                    let weight = 1 + (h >> 8) % 1000;
                    edges.push(graph_core::PackedEdge::new(v, u, weight as f32));
                }
            }
        }
    }
    graph_core::EdgeList::from_edges(u64::from(w) * u64::from(w), edges).expect("ids below n")
}

/// BFS, SSSP (Δ = 100) and cc on the grid of `w` x `w`, from vertex 0.
fn grid_runs(kind: PartitionKind, w: u32, reps: usize) {
    println!("a grid of {w} x {w}");
    let g = ShardedGraph::build(&grid_list(w), kind).expect("grid");
    let (mut ms, mut per, mut levels) = (Vec::new(), Vec::new(), 0);
    for rep in 0..=reps {
        let o = bfs::bfs(&g, 0, &BfsConfig::default()).expect("root 0");
        levels = o.level.iter().copied().max().unwrap_or(0) + 1;
        if rep > 0 {
            let t = o.kernel_time.as_secs_f64();
            ms.push(t * 1e3);
            per.push(t * 1e6 / levels as f64);
        }
    }
    show("grid bfs", "ms", ms);
    show(&format!("grid bfs ({levels} levels)"), "us/level", per);
    let cfg = SsspConfig {
        delta: 100.0,
        ..SsspConfig::default()
    };
    let (mut ms, mut per, mut rounds) = (Vec::new(), Vec::new(), 0);
    for rep in 0..=reps {
        let o = sssp::sssp(&g, 0, &cfg).expect("root 0");
        if rep > 0 {
            let t = o.kernel_time.as_secs_f64();
            ms.push(t * 1e3);
            per.push(t * 1e6 / o.rounds as f64);
            rounds = o.rounds;
        }
    }
    show("grid sssp delta 100", "ms", ms);
    show(&format!("grid sssp ({rounds} rounds)"), "us/round", per);
    let mut ms = Vec::new();
    for rep in 0..=reps {
        let o = components::cc(&g, &components::CcConfig::default()).expect("cc");
        if rep > 0 {
            ms.push(o.kernel_time.as_secs_f64() * 1e3);
        }
    }
    show("grid cc", "ms", ms);
}
