//! Getting the input graph: generated in memory (after a memory check) or
//! memory-mapped from a graph file; and its search roots.

use std::path::Path;
use std::time::Instant;

use generators::{Graph500Config, Kronecker, VertexSet};
use graph_core::{file, memory, EdgeList, Graph500Params, MappedGraph, PackedEdge};
use rayon::prelude::*;

use crate::args::{GenParams, Input, RootChoice};
use crate::error::{CliError, Result};
use crate::progress::Progress;

/// Number of search roots Graph500 uses.
pub const GRAPH500_ROOTS: usize = 64;

/// The input graph and where it came from.
pub struct LoadedGraph {
    storage: Storage,
    /// Seconds spent generating the edges (for a graph file: opening and
    /// verifying it, as the reference times reading its edge file).
    pub generation_time: f64,
}

enum Storage {
    Generated {
        list: EdgeList<'static>,
        kron: Box<Kronecker>,
    },
    Mapped(MappedGraph),
}

impl LoadedGraph {
    /// The edge list (borrowed, zero-copy).
    pub fn edge_list(&self) -> EdgeList<'_> {
        match &self.storage {
            Storage::Generated { list, .. } => list.clone_view(),
            Storage::Mapped(m) => m.edge_list(),
        }
    }

    /// Number of vertices.
    pub fn num_vertices(&self) -> u64 {
        match &self.storage {
            Storage::Generated { list, .. } => list.num_vertices(),
            Storage::Mapped(m) => m.header().num_vertices,
        }
    }

    /// Number of edge records.
    pub fn num_edges(&self) -> u64 {
        match &self.storage {
            Storage::Generated { list, .. } => list.num_edges(),
            Storage::Mapped(m) => m.header().num_edges,
        }
    }

    /// Graph500 parameters, if known.
    pub fn params(&self) -> Option<Graph500Params> {
        match &self.storage {
            Storage::Generated { list, .. } => list.params(),
            Storage::Mapped(m) => m.header().params,
        }
    }

    /// SCALE: from the parameters, or log2 of a power-of-two vertex count.
    pub fn scale(&self) -> Option<u32> {
        self.params().map(|p| p.scale).or_else(|| {
            let n = self.num_vertices();
            n.is_power_of_two().then(|| n.trailing_zeros())
        })
    }

    /// Edgefactor: from the parameters, or edges / vertices.
    pub fn edgefactor(&self) -> Option<u32> {
        self.params().map(|p| p.edgefactor).or_else(|| {
            let n = self.num_vertices();
            (n > 0)
                .then(|| self.num_edges() / n)
                .and_then(|e| u32::try_from(e).ok())
        })
    }

    /// The roots to search from, checked against the graph.
    pub fn choose_roots(&self, choice: &RootChoice) -> Result<Vec<u64>> {
        let n = self.num_vertices();
        if let Some(r) = choice.root {
            check_root(r, n)?;
            return Ok(vec![r]);
        }
        match &self.storage {
            Storage::Generated { list, kron } => {
                let count = choice.roots.unwrap_or(GRAPH500_ROOTS);
                if count == 0 {
                    return Err(CliError::new(
                        "--roots 0 asks for no search: give at least 1 root",
                    ));
                }
                Ok(graph500_roots(kron, list, count))
            }
            Storage::Mapped(m) => {
                let stored = m.roots();
                let count = choice.roots.unwrap_or(stored.len());
                if stored.is_empty() {
                    return Err(CliError::new(
                        "the graph file stores no search roots: pass --root R",
                    ));
                }
                if count == 0 || count > stored.len() {
                    return Err(CliError::new(format!(
                        "--roots {count}: the graph file stores {} roots; ask for 1..={} or pass --root R",
                        stored.len(),
                        stored.len()
                    )));
                }
                for &r in &stored[..count] {
                    check_root(r, n)?;
                }
                Ok(stored[..count].to_vec())
            }
        }
    }
}

/// Error unless `root` is a vertex of a graph with `n` vertices.
pub fn check_root(root: u64, n: u64) -> Result<()> {
    if root < n {
        Ok(())
    } else if n == 0 {
        Err(CliError::new(format!(
            "root {root} is out of range: the graph has no vertices"
        )))
    } else {
        Err(CliError::new(format!(
            "root {root} is out of range: the graph has {n} vertices (0..={})",
            n - 1
        )))
    }
}

trait CloneView {
    fn clone_view(&self) -> EdgeList<'_>;
}

impl CloneView for EdgeList<'static> {
    /// A borrowed view of an owned list (no copy).
    fn clone_view(&self) -> EdgeList<'_> {
        match self.params() {
            Some(p) => EdgeList::from_graph500(p, self.edges())
                .expect("an owned Graph500 list re-borrows with the same counts"),
            None => EdgeList::borrowed(self.num_vertices(), self.edges())
                .expect("an owned list re-borrows with the same vertex count"),
        }
    }
}

/// The reference's first `count` search roots of a generated graph.
pub fn graph500_roots(kron: &Kronecker, list: &EdgeList<'_>, count: usize) -> Vec<u64> {
    let live = non_isolated(list);
    kron.search_roots(count, |v| live.contains(v))
}

/// Vertices with an incident non-self-loop edge (parallel over the list).
fn non_isolated(list: &EdgeList<'_>) -> VertexSet {
    let n = list.num_vertices();
    list.edges()
        .par_chunks(1 << 16)
        .fold(
            || VertexSet::new(n),
            |mut set, chunk| {
                for e in chunk.iter().filter(|e| !e.is_self_loop()) {
                    // Ids were checked by construction (the generator emits ids < n).
                    let _ = set.insert(u64::from(e.u));
                    let _ = set.insert(u64::from(e.v));
                }
                set
            },
        )
        .reduce(
            || VertexSet::new(n),
            |mut a, b| {
                let _ = a.union_with(&b);
                a
            },
        )
}

/// What the memory check needs to know about this process: the command
/// it runs and its place in the job (rank `rank` of `ranks`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryContext {
    /// The command's memory profile.
    pub workload: memory::Workload,
    /// This process's rank.
    pub rank: u32,
    /// Ranks in the job.
    pub ranks: u32,
}

static MEMORY_CONTEXT: std::sync::OnceLock<MemoryContext> = std::sync::OnceLock::new();

/// Sets the memory check's context (once, in `main`, before any graph).
pub fn set_memory_context(ctx: MemoryContext) {
    let _ = MEMORY_CONTEXT.set(ctx);
}

/// The context set in `main`; unset, the largest profile on one rank.
fn memory_context() -> MemoryContext {
    MEMORY_CONTEXT.get().copied().unwrap_or(MemoryContext {
        workload: memory::Workload::Graph500,
        rank: 0,
        ranks: 1,
    })
}

/// Refuses a run whose memory estimate for this rank (see
/// [`MemoryContext`]) exceeds the available memory, before anything large
/// is allocated; with `force`, says on stderr that it goes ahead anyway.
pub fn check_memory(scale: u32, edgefactor: u32, threads: usize, force: bool) -> Result<()> {
    let ctx = memory_context();
    let shape = memory::Shape {
        scale,
        edgefactor,
        ranks: ctx.ranks,
        threads_per_rank: u32::try_from(threads).unwrap_or(u32::MAX),
    };
    let estimate = memory::estimate_rank(ctx.workload, shape, ctx.rank);
    let Some(avail) = available_memory() else {
        return Ok(());
    };
    match memory::check_fits(&estimate, avail) {
        Ok(()) => Ok(()),
        Err(_) if force => {
            eprintln!(
                "warning: --force: running although the estimate ({}) exceeds the available memory ({})",
                memory::human_bytes(estimate.per_rank_bytes),
                memory::human_bytes(avail)
            );
            Ok(())
        }
        Err(refusal) => Err(CliError::new(format!(
            "{refusal} Pass --force to try anyway."
        ))),
    }
}

/// Available memory: `MemAvailable`, unless the hidden test hook
/// `GOSSAMER_GRAPH_AVAILABLE_BYTES` overrides it.
pub fn available_memory() -> Option<u64> {
    std::env::var("GOSSAMER_GRAPH_AVAILABLE_BYTES")
        .ok()
        .and_then(|s| s.parse().ok())
        .or_else(memory::available_memory)
}

/// Validates the parameters, checks memory, then generates the graph in
/// parallel (rayon's current pool) straight into the packed edge list.
pub fn generate(
    scale: u32,
    edgefactor: u32,
    seed1: u64,
    seed2: u64,
    threads: usize,
    force: bool,
) -> Result<(EdgeList<'static>, Kronecker, f64)> {
    let cfg = Graph500Config {
        scale,
        edgefactor,
        seed1,
        seed2,
    };
    if !(1..=graph_core::MAX_SCALE).contains(&scale) {
        return Err(CliError::new(format!(
            "SCALE {scale} is out of range: use 1..={} (the graph has 2^SCALE vertices and graph-core stores vertex ids in 32 bits)",
            graph_core::MAX_SCALE
        )));
    }
    let kron = Kronecker::new(cfg)?;
    let params = Graph500Params {
        scale,
        edgefactor,
        seed1,
        seed2,
    };
    params.num_edges()?; // SCALE <= 32 and a representable edge count
    check_memory(scale, edgefactor, threads, force)?;
    let start = Instant::now();
    crate::memtrace::start();
    let mut list = EdgeList::zeroed(params)?;
    const STEPS: usize = 64;
    let edges = list.edges_mut();
    let chunk = edges.len().div_ceil(STEPS).max(1 << 16);
    let bar = Progress::new("generating", edges.len().div_ceil(chunk) as u64);
    for (i, part) in edges.chunks_mut(chunk).enumerate() {
        kron.par_map_into((i * chunk) as u64, part, |e| {
            PackedEdge::from_wide(e.u, e.v, e.w)
        });
        bar.tick();
    }
    bar.finish();
    crate::memtrace::end("generation");
    let elapsed = start.elapsed().as_secs_f64();
    Ok((list, kron, elapsed))
}

/// Opens and verifies a graph file, then checks memory for a run on it.
pub fn open(path: &Path, threads: usize, force: bool) -> Result<MappedGraph> {
    let bar = Progress::spinner("reading");
    let g = file::open(path);
    bar.finish();
    let g = g?;
    if let Some(p) = g.header().params {
        check_memory(p.scale, p.edgefactor, threads, force)?;
    }
    Ok(g)
}

/// The input graph of a run: generated (`--scale`) or from `--graph`.
pub fn load(input: &Input, gen: &GenParams, threads: usize, force: bool) -> Result<LoadedGraph> {
    match (&input.scale, &input.graph) {
        (Some(scale), None) => {
            let (list, kron, generation_time) =
                generate(*scale, gen.edgefactor, gen.seed1, gen.seed2, threads, force)?;
            Ok(LoadedGraph {
                storage: Storage::Generated {
                    list,
                    kron: Box::new(kron),
                },
                generation_time,
            })
        }
        (None, Some(path)) => {
            let start = Instant::now();
            let mapped = open(path, threads, force)?;
            Ok(LoadedGraph {
                storage: Storage::Mapped(mapped),
                generation_time: start.elapsed().as_secs_f64(),
            })
        }
        // clap's argument group makes these unreachable; keep a clear message anyway.
        _ => Err(CliError::new(
            "give exactly one of --scale S (generate the graph) or --graph FILE (read it)",
        )),
    }
}
