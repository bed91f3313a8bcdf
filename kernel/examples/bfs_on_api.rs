//! How a BFS written on the graph-kernel API (the tutorial's, ~25 lines of
//! kernel code) compares with the hand-written `bfs` crate on Graph500
//! graphs: same levels (checked), median kernel times over a few roots.
//!
//! ```text
//! cargo run --release -p graph-kernel --example bfs_on_api -- --scale 18 --threads 2 --roots 8
//! ```

use std::time::Instant;

use bfs::{BfsConfig, BfsMode};
use generators::{Graph500Config, Kronecker};
use graph_core::sharded::ShardedGraph;
use graph_core::{EdgeList, Graph500Params, PackedEdge, PartitionKind};
use graph_kernel::{gather, run, Program};

/// The tutorial's BFS, with combining (keep the first offer) added.
struct Levels {
    depth: Vec<i32>,
}

impl Program for Levels {
    type Msg = i32;
    const COMBINE: bool = true;
    fn receive(&mut self, v: u32, d: i32) -> bool {
        let first = self.depth[v as usize] < 0;
        if first {
            self.depth[v as usize] = d;
        }
        first
    }
}

fn api_bfs(g: &ShardedGraph, root: u64) -> (Vec<i32>, f64) {
    let t = Instant::now();
    run(
        g,
        |s| Levels {
            depth: vec![-1; s.num_local_vertices() as usize],
        },
        move |k| {
            k.with(move |l| {
                if let Some(r) = l.local_of(root) {
                    l.state().depth[r as usize] = 0;
                    l.activate(r);
                }
            });
            while k.end_superstep() > 0 {
                k.for_each_active(|l, v| {
                    let d = l.state().depth[v as usize] + 1;
                    for &u in l.neighbors(v) {
                        l.send(u, d);
                    }
                });
            }
        },
    );
    let time = t.elapsed().as_secs_f64();
    (
        gather(g, -1, |s: &Levels| s.depth.clone()).expect("ran"),
        time,
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
    let times = gossamer::Runtime::builder()
        .threads(threads)
        .slot_size(64 * 1024)
        .run(move || {
            let g = ShardedGraph::build(&list, PartitionKind::Cyclic).expect("shardable");
            let (mut api, mut td, mut dobfs) = (Vec::new(), Vec::new(), Vec::new());
            for &root in &roots {
                let (levels, time) = api_bfs(&g, root);
                api.push(time);
                for (mode, out) in [
                    (BfsMode::TopDown, &mut td),
                    (BfsMode::DirectionOptimizing, &mut dobfs),
                ] {
                    let o = bfs::bfs(
                        &g,
                        root,
                        &BfsConfig {
                            mode,
                            ..Default::default()
                        },
                    )
                    .expect("root ok");
                    out.push(o.kernel_time.as_secs_f64());
                    let want: Vec<i32> = o.level.iter().map(|&l| l as i32).collect();
                    assert_eq!(levels, want, "root {root}: levels differ");
                }
            }
            (median(api), median(td), median(dobfs))
        })
        .expect("runtime");
    println!(
        "scale {scale}, {threads} threads, {nroots} roots (levels equal): API BFS {:.4} s (run: state setup + search), bfs crate top-down {:.4} s, direction-optimizing {:.4} s (kernel time)",
        times.0, times.1, times.2
    );
}
