//! The adapter between the command and the kernels: build the sharded
//! graph, run one SSSP or BFS, hand back plain arrays.
//!
//! Everything here runs inside a Gossamer runtime (`Runtime::run`).
//!
//! FALLBACK: until the delegated kernels (`sssp`, `bfs` crates and
//! `graph_core::sharded`) are published, this module runs sequential
//! reference searches (Dijkstra with `f32` sums, queue BFS) on one
//! whole-graph CSR, so the command, its outputs and tests work end to end.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::time::Instant;

use graph_core::validate::NO_PARENT;
use graph_core::{build_whole, EdgeList, PartitionKind, Shard};

use crate::args::BfsModeArg;
use crate::error::Result;

/// Builds the kernels' sharded graph and drops it: the construction step
/// alone, for measurements. Returns the seconds the build took.
pub fn construct_only(list: &EdgeList<'_>, kind: PartitionKind) -> Result<f64> {
    let start = Instant::now();
    let graph = graph_core::sharded::ShardedGraph::build(list, kind)?;
    let seconds = start.elapsed().as_secs_f64();
    drop(graph);
    Ok(seconds)
}

/// The graph as the kernels see it.
pub struct Engine {
    shard: Shard,
}

/// One SSSP answer.
pub struct SsspRun {
    /// Distance per vertex, `+inf` where unreached.
    pub dist: Vec<f32>,
    /// Parent per vertex, [`NO_PARENT`] where unreached.
    pub parent: Vec<u64>,
    /// Seconds in the kernel.
    pub time_s: f64,
}

/// One BFS answer.
pub struct BfsRun {
    /// Parent per vertex, [`NO_PARENT`] where unreached.
    pub parent: Vec<u64>,
    /// Level per vertex, `-1` where unreached.
    pub level: Vec<i64>,
    /// Seconds in the kernel.
    pub time_s: f64,
}

impl Engine {
    /// Builds the kernels' graph from the edge list.
    pub fn build(list: &EdgeList<'_>, _kind: PartitionKind) -> Result<Engine> {
        Ok(Engine {
            shard: build_whole(list)?,
        })
    }

    /// Shortest paths from `root`.
    pub fn sssp(&self, root: u64, _delta: Option<f32>) -> Result<SsspRun> {
        let start = Instant::now();
        let n = self.shard.num_local_vertices() as usize;
        let mut dist = vec![f32::INFINITY; n];
        let mut parent = vec![NO_PARENT; n];
        let mut heap = BinaryHeap::new();
        dist[root as usize] = 0.0;
        parent[root as usize] = root;
        // Non-negative f32 order as their bit patterns.
        heap.push(Reverse((0f32.to_bits(), root)));
        while let Some(Reverse((d, u))) = heap.pop() {
            let d = f32::from_bits(d);
            if d > dist[u as usize] {
                continue;
            }
            for (v, w) in self.shard.neighbors(u) {
                let nd = d + w;
                if nd < dist[v as usize] {
                    dist[v as usize] = nd;
                    parent[v as usize] = u;
                    heap.push(Reverse((nd.to_bits(), u64::from(v))));
                }
            }
        }
        Ok(SsspRun {
            dist,
            parent,
            time_s: start.elapsed().as_secs_f64(),
        })
    }

    /// Breadth-first search from `root`.
    pub fn bfs(&self, root: u64, _mode: BfsModeArg) -> Result<BfsRun> {
        let start = Instant::now();
        let n = self.shard.num_local_vertices() as usize;
        let mut level = vec![-1i64; n];
        let mut parent = vec![NO_PARENT; n];
        let mut queue = VecDeque::new();
        level[root as usize] = 0;
        parent[root as usize] = root;
        queue.push_back(root);
        while let Some(u) = queue.pop_front() {
            for (v, _) in self.shard.neighbors(u) {
                if level[v as usize] < 0 {
                    level[v as usize] = level[u as usize] + 1;
                    parent[v as usize] = u;
                    queue.push_back(u64::from(v));
                }
            }
        }
        Ok(BfsRun {
            parent,
            level,
            time_s: start.elapsed().as_secs_f64(),
        })
    }
}
