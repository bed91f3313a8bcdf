//! Getting the input graph: generated in memory (after a memory check),
//! memory-mapped from a graph file, or parsed from another tool's format;
//! what it is (directed, weighted: what each kernel accepts); and its
//! search roots.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use generators::{Graph500Config, Kronecker, VertexSet};
use graph_core::construct::LocalSource;
use graph_core::formats::{self, Format};
use graph_core::prepared::GraphIdentity;
use graph_core::{file, memory, EdgeList, Graph500Params, GraphMeta, MappedGraph, PackedEdge};
use graph_kernel::Graph500Source;
use rayon::prelude::*;

use crate::args::{GenParams, Input, RootChoice, TextInput};
use crate::error::{CliError, Result};
use crate::progress::Progress;

/// Number of search roots Graph500 uses.
pub const GRAPH500_ROOTS: usize = 64;

/// Default `--seed` for picking roots of graphs that store none (GAPBS's
/// fixed seed, though the pick is not GAPBS's sequence).
pub const DEFAULT_ROOT_SEED: u64 = 27491095;

/// The input graph and where it came from.
pub struct LoadedGraph {
    storage: Storage,
    /// Seconds spent generating the edges (for a graph file: opening and
    /// verifying it, as the reference times reading its edge file; opened
    /// in slices, only opening it: each trustee's check of its slice counts
    /// as construction).
    pub generation_time: f64,
}

enum Storage {
    Generated {
        list: EdgeList<'static>,
        kron: Box<Kronecker>,
    },
    /// A generated graph that no process holds whole: every trustee
    /// generates its own slice while the shards are built
    /// ([`load_streamed`]).
    Streamed {
        source: Graph500Source,
        kron: Box<Kronecker>,
    },
    /// A graph file, mapped. The search commands open it in slices
    /// ([`file::open_in_slices`]): every trustee checks and reads only its
    /// slice, and there is no edge list.
    Mapped {
        graph: Arc<MappedGraph>,
        /// `--unit-weights` on a file opened in slices: the meta that says
        /// unweighted (the build reads every weight as 1.0).
        unit_meta: Option<GraphMeta>,
    },
    /// A graph file known by its header (and id table) only: the graph
    /// itself comes from prepared shards (`--prepared`).
    Described {
        header: file::GraphHeader,
        meta: GraphMeta,
    },
    /// Read from another tool's format (or re-weighted by `--unit-weights`).
    Parsed {
        list: Arc<EdgeList<'static>>,
        meta: GraphMeta,
    },
}

/// Where the kernels' graph is built from (see [`LoadedGraph::build_source`]).
#[derive(Clone, Debug)]
pub enum BuildSource {
    /// Every trustee generates its slice.
    Graph500(Graph500Source),
    /// Every process holds the records (mapped or parsed); each trustee
    /// reads its slice.
    Local(LocalSource),
    /// Every trustee maps its shard saved in `dir` (`--prepared`).
    Prepared {
        /// The directory of the shard files.
        dir: std::path::PathBuf,
        /// The graph the shards must be of.
        graph: GraphIdentity,
    },
}

impl BuildSource {
    /// Drops this process's entry in the table of published records (a
    /// no-op for generated graphs).
    pub fn withdraw(&self) {
        if let BuildSource::Local(s) = self {
            s.withdraw();
        }
    }
}

/// The search roots of a run: known before the graph is built, or chosen
/// from its shards (the vertices with edges) once it is.
#[derive(Clone, Debug, PartialEq)]
pub enum RootPlan {
    /// Dense ids, checked against the vertex count.
    Fixed(Vec<u64>),
    /// The reference's first `count` roots of a generated graph.
    Graph500(usize),
    /// `count` random vertices with edges (on a directed graph: with an
    /// out-arc), from `seed` (GAPBS's way).
    Random {
        /// Roots to pick.
        count: usize,
        /// `--seed`.
        seed: u64,
    },
}

/// Kernels that refuse directed graphs ([`LoadedGraph::check_kernel`]).
const DIRECTED_REFUSED: [&str; 1] = ["tc"];

/// The Graph500 generator's graphs: undirected, weighted, ids as they are.
static GENERATED_META: std::sync::LazyLock<GraphMeta> =
    std::sync::LazyLock::new(GraphMeta::default);

impl LoadedGraph {
    /// The edge list (borrowed, zero-copy).
    ///
    /// # Panics
    ///
    /// On a streamed graph or a graph file opened in slices
    /// ([`load_streamed`]), which no process holds (or has checked)
    /// whole; the commands that load one never ask.
    pub fn edge_list(&self) -> EdgeList<'_> {
        match &self.storage {
            Storage::Generated { list, .. } => list.clone_view(),
            Storage::Streamed { .. } => {
                panic!("a streamed graph has no edge list: load it with graph::load")
            }
            Storage::Mapped { graph, .. } => graph.edge_list(),
            Storage::Described { .. } => {
                panic!("a graph run from prepared shards has no edge list")
            }
            Storage::Parsed { list, .. } => list.clone_view(),
        }
    }

    /// What the kernels' graph is built from, slice by slice on every
    /// trustee. For records this process holds, this publishes them in the
    /// process's table (call it once per run on every rank, in the same
    /// order; [`BuildSource::withdraw`] after the run).
    pub fn build_source(&self) -> BuildSource {
        match &self.storage {
            Storage::Streamed { source, .. } => BuildSource::Graph500(*source),
            Storage::Generated { list, .. } => {
                // Rare (the search commands stream generated graphs): copy
                // the borrowed view into an owned list the table can keep.
                let owned = EdgeList::from_edges(list.num_vertices(), list.edges().to_vec())
                    .expect("the records were valid in the list");
                BuildSource::Local(LocalSource::publish_list(owned))
            }
            Storage::Mapped { graph, unit_meta } => {
                let source = LocalSource::publish(graph.clone());
                BuildSource::Local(match unit_meta {
                    Some(_) => source.with_unit_weights(),
                    None => source,
                })
            }
            Storage::Described { .. } => {
                panic!("a graph known by its header only is built from prepared shards")
            }
            Storage::Parsed { list, meta } => {
                BuildSource::Local(LocalSource::publish(list.clone()).with_direction(meta.directed))
            }
        }
    }

    /// Directed or not, weighted or not, the input file's ids.
    pub fn meta(&self) -> &GraphMeta {
        match &self.storage {
            Storage::Generated { .. } | Storage::Streamed { .. } => &GENERATED_META,
            Storage::Mapped { graph, unit_meta } => unit_meta.as_ref().unwrap_or(graph.meta()),
            Storage::Described { meta, .. } => meta,
            Storage::Parsed { meta, .. } => meta,
        }
    }

    /// Refuses what `kernel` cannot run on: directed graphs for `tc` (the
    /// others follow arcs: BFS, SSSP and BC out-arcs, CC weak components,
    /// PageRank in-arcs), and unweighted graphs when it needs
    /// weights (SSSP) unless `--unit-weights` was given (then call
    /// [`LoadedGraph::with_unit_weights`]).
    pub fn check_kernel(
        &self,
        kernel: &str,
        needs_weights: bool,
        unit_weights: bool,
    ) -> Result<()> {
        let meta = self.meta();
        if meta.directed && DIRECTED_REFUSED.contains(&kernel) {
            return Err(CliError::new(format!(
                "{kernel} does not run on directed graphs: triangles are counted on undirected graphs (as GAPBS's tc); convert with --undirected to symmetrize (or pass --undirected with a text --graph file)"
            )));
        }
        if needs_weights && !meta.weighted && !unit_weights {
            return Err(CliError::new(format!(
                "the graph is unweighted, and {kernel} needs edge weights: pass --unit-weights to give every edge weight 1.0"
            )));
        }
        Ok(())
    }

    /// The graph with every weight 1.0 (`--unit-weights`): unchanged when
    /// it is unweighted (its records already carry 1.0), else a copy.
    /// Choose the roots first: the copy no longer knows a generated
    /// graph's Graph500 roots.
    pub fn with_unit_weights(self) -> LoadedGraph {
        if let Storage::Streamed { source, kron } = self.storage {
            return LoadedGraph {
                storage: Storage::Streamed {
                    source: source.with_unit_weights(),
                    kron,
                },
                generation_time: self.generation_time,
            };
        }
        if !self.meta().weighted {
            return self;
        }
        if let Storage::Mapped {
            graph,
            unit_meta: None,
        } = &self.storage
        {
            if !graph.is_verified() {
                // Opened in slices: the build reads every weight as 1.0.
                let unit_meta = Some(GraphMeta {
                    weighted: false,
                    ..graph.meta().clone()
                });
                return LoadedGraph {
                    storage: Storage::Mapped {
                        graph: graph.clone(),
                        unit_meta,
                    },
                    generation_time: self.generation_time,
                };
            }
        }
        if let Storage::Described { header, meta } = self.storage {
            // The prepared shards carry the weights (the identity says unit).
            return LoadedGraph {
                storage: Storage::Described {
                    header,
                    meta: GraphMeta {
                        weighted: false,
                        ..meta
                    },
                },
                generation_time: self.generation_time,
            };
        }
        let n = self.num_vertices();
        let edges: Vec<PackedEdge> = self
            .edge_list()
            .edges()
            .par_iter()
            .map(|e| PackedEdge::new(e.u, e.v, 1.0))
            .collect();
        let meta = GraphMeta {
            weighted: false,
            ..self.meta().clone()
        };
        let list = match self.params() {
            Some(p) => EdgeList::from_graph500(p, edges),
            None => EdgeList::from_edges(n, edges),
        }
        .expect("the counts were valid for the same records");
        LoadedGraph {
            storage: Storage::Parsed {
                list: Arc::new(list),
                meta,
            },
            generation_time: self.generation_time,
        }
    }

    /// Number of vertices.
    pub fn num_vertices(&self) -> u64 {
        match &self.storage {
            Storage::Generated { list, .. } => list.num_vertices(),
            Storage::Streamed { kron, .. } => kron.num_vertices(),
            Storage::Mapped { graph: m, .. } => m.header().num_vertices,
            Storage::Described { header, .. } => header.num_vertices,
            Storage::Parsed { list, .. } => list.num_vertices(),
        }
    }

    /// Number of edge records.
    pub fn num_edges(&self) -> u64 {
        match &self.storage {
            Storage::Generated { list, .. } => list.num_edges(),
            Storage::Streamed { kron, .. } => kron.num_edges(),
            Storage::Mapped { graph: m, .. } => m.header().num_edges,
            Storage::Described { header, .. } => header.num_edges,
            Storage::Parsed { list, .. } => list.num_edges(),
        }
    }

    /// Graph500 parameters, if known.
    pub fn params(&self) -> Option<Graph500Params> {
        match &self.storage {
            Storage::Generated { list, .. } => list.params(),
            Storage::Streamed { source, .. } => {
                let c = source.config();
                Some(Graph500Params {
                    scale: c.scale,
                    edgefactor: c.edgefactor,
                    seed1: c.seed1,
                    seed2: c.seed2,
                })
            }
            Storage::Mapped { graph: m, .. } => m.header().params,
            Storage::Described { header, .. } => header.params,
            Storage::Parsed { list, .. } => list.params(),
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

    /// The roots to search from (dense ids), checked against the graph.
    /// `--root` is in the input file's ids. Needs the edge list when the
    /// roots are picked among vertices with edges; see [`Self::root_plan`].
    pub fn choose_roots(&self, choice: &RootChoice) -> Result<Vec<u64>> {
        let plan = self.root_plan(choice)?;
        if matches!(plan, RootPlan::Fixed(_)) {
            return self.resolve_roots(plan, |_| false);
        }
        let live = non_isolated(&self.edge_list(), self.meta().directed);
        self.resolve_roots(plan, |v| live.contains(v))
    }

    /// What `choice` asks for, checked as far as it can be without the
    /// graph's edges; [`Self::resolve_roots`] finishes once they are known.
    pub fn root_plan(&self, choice: &RootChoice) -> Result<RootPlan> {
        let n = self.num_vertices();
        if let Some(r) = choice.root {
            let ids = &self.meta().ids;
            if ids.is_identity() {
                check_root(r, n)?;
                return Ok(RootPlan::Fixed(vec![r]));
            }
            return match ids.dense_id_in(r, n) {
                Some(v) => Ok(RootPlan::Fixed(vec![v])),
                None if ids.table().is_some() => Err(CliError::new(format!(
                    "root {r} is not a vertex: no edge of the input file names vertex {r}"
                ))),
                None => Err(CliError::new(format!(
                    "root {r} is out of range: the input file's vertices are {}..={}",
                    ids.file_id(0),
                    ids.file_id(n.saturating_sub(1))
                ))),
            };
        }
        let stored = match &self.storage {
            Storage::Mapped { graph, .. } => graph.roots(),
            Storage::Described { header, .. } => &header.roots,
            _ => &[],
        };
        let generated = matches!(
            self.storage,
            Storage::Generated { .. } | Storage::Streamed { .. }
        );
        if !stored.is_empty() {
            let count = choice.roots.unwrap_or(stored.len());
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
            return Ok(RootPlan::Fixed(stored[..count].to_vec()));
        }
        let count = choice.roots.unwrap_or(GRAPH500_ROOTS);
        if count == 0 {
            return Err(CliError::new(
                "--roots 0 asks for no search: give at least 1 root",
            ));
        }
        Ok(if generated {
            RootPlan::Graph500(count)
        } else {
            RootPlan::Random {
                count,
                seed: choice.seed,
            }
        })
    }

    /// The roots of `plan`, given which vertices have an edge to another
    /// vertex (`live`, not called for fixed roots).
    pub fn resolve_roots(&self, plan: RootPlan, live: impl Fn(u64) -> bool) -> Result<Vec<u64>> {
        match plan {
            RootPlan::Fixed(roots) => Ok(roots),
            RootPlan::Graph500(count) => match &self.storage {
                Storage::Generated { kron, .. } | Storage::Streamed { kron, .. } => {
                    Ok(kron.search_roots(count, live))
                }
                _ => Err(CliError::new(
                    "internal error: Graph500 roots asked of a graph that was not generated",
                )),
            },
            RootPlan::Random { count, seed } => {
                random_roots(self.num_vertices(), live, count, seed)
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

/// `count` roots picked as GAPBS picks its sources: uniformly at random
/// among the vertices with at least one edge to another vertex
/// (duplicates possible), from `seed`.
fn random_roots(n: u64, live: impl Fn(u64) -> bool, count: usize, seed: u64) -> Result<Vec<u64>> {
    let candidates: Vec<u64> = (0..n).filter(|&v| live(v)).collect();
    if candidates.is_empty() {
        return Err(CliError::new(
            "the graph has no edge between two distinct vertices: there is no root to search from",
        ));
    }
    let mut state = seed;
    Ok((0..count)
        .map(|_| {
            // splitmix64, then Lemire's multiply-shift onto 0..len.
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^= z >> 31;
            let i = ((u128::from(z) * candidates.len() as u128) >> 64) as usize;
            candidates[i]
        })
        .collect())
}

/// The reference's first `count` search roots of a generated graph.
pub fn graph500_roots(kron: &Kronecker, list: &EdgeList<'_>, count: usize) -> Vec<u64> {
    let live = non_isolated(list, false);
    kron.search_roots(count, |v| live.contains(v))
}

/// Vertices with an incident non-self-loop edge (parallel over the list);
/// when `directed`, the vertices with an out-arc (tails).
fn non_isolated(list: &EdgeList<'_>, directed: bool) -> VertexSet {
    let n = list.num_vertices();
    list.edges()
        .par_chunks(1 << 16)
        .fold(
            || VertexSet::new(n),
            |mut set, chunk| {
                for e in chunk.iter().filter(|e| !e.is_self_loop()) {
                    // Ids were checked by construction (the generator emits ids < n).
                    let _ = set.insert(u64::from(e.u));
                    if !directed {
                        let _ = set.insert(u64::from(e.v));
                    }
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
    /// How the command spreads vertices over trustees (ranks' shares of
    /// the edges follow from it).
    pub partition: graph_core::PartitionKind,
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
        partition: graph_core::PartitionKind::Block,
        rank: 0,
        ranks: 1,
    })
}

/// Each rank's expected share of a generated graph's edge endpoints under
/// `partition` over `ranks` x `threads` trustees (see
/// `Kronecker::expected_endpoint_shares`), as [`memory::Shape::share_permille`].
pub fn rank_shares(
    kron: &Kronecker,
    partition: graph_core::PartitionKind,
    ranks: u32,
    threads: u32,
) -> Vec<u32> {
    if ranks <= 1 {
        return vec![1000; ranks as usize];
    }
    let Ok(p) = graph_core::Partition::new(partition, kron.num_vertices(), ranks, threads) else {
        return vec![1000; ranks as usize];
    };
    let t = threads.max(1);
    kron.expected_endpoint_shares(ranks as usize, |v| (p.owner(v).trustee / t) as usize)
        .into_iter()
        .map(|s| memory::share_permille(s, ranks))
        .collect()
}

/// The heaviest rank's share of a generated graph's edges for each rank
/// count under `partition`, for the advice of a refusal.
pub fn heaviest_share(
    kron: &Kronecker,
    partition: graph_core::PartitionKind,
    threads: u32,
) -> impl Fn(u32) -> u32 + '_ {
    move |ranks| {
        rank_shares(kron, partition, ranks, threads)
            .into_iter()
            .max()
            .unwrap_or(1000)
    }
}

/// Refuses a run whose memory estimate for this rank (see
/// [`MemoryContext`]), holding `share` of the edges (thousandths of an even
/// split, see [`memory::Shape::share_permille`]), exceeds the available
/// memory, before anything large is allocated; with `force`, says on stderr
/// that it goes ahead anyway. `heaviest` gives the advice's rank count the
/// real shares of a generated graph (otherwise it allows for 25% skew).
pub fn check_memory(
    scale: u32,
    edgefactor: u32,
    threads: usize,
    share: u32,
    heaviest: Option<&dyn Fn(u32) -> u32>,
    force: bool,
) -> Result<()> {
    let ctx = memory_context();
    let shape = memory::Shape {
        share_permille: share,
        ..memory::Shape::even(
            scale,
            edgefactor,
            ctx.ranks,
            u32::try_from(threads).unwrap_or(u32::MAX),
        )
    };
    let estimate = memory::estimate_rank(ctx.workload, shape, ctx.rank);
    let Some(avail) = available_memory() else {
        return Ok(());
    };
    match memory::check_fits(&estimate, avail) {
        Ok(()) => Ok(()),
        Err(_) if force => {
            // One write, so the ranks of a job sharing a terminal do not
            // interleave their lines.
            let line = format!(
                "warning: --force: running although the estimate ({}) for rank {} of {} exceeds the available memory ({})\n",
                memory::human_bytes(estimate.per_rank_bytes),
                ctx.rank,
                ctx.ranks,
                memory::human_bytes(avail)
            );
            let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), line.as_bytes());
            Ok(())
        }
        Err(mut refusal) => {
            if let Some(h) = heaviest {
                refusal.ranks_needed = memory::ranks_needed_with(
                    estimate.workload,
                    estimate.scale,
                    estimate.edgefactor,
                    estimate.threads_per_rank,
                    avail,
                    h,
                );
            }
            Err(CliError::new(format!(
                "{refusal} Pass --force to try anyway."
            )))
        }
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

/// The memory check for a graph of the Graph500 generator `kron` (to be
/// generated, or a graph file it wrote): the partition does not split its
/// edges evenly, so each rank is checked with its own expected share, and
/// a refusal's advice counts ranks with the heaviest share. Returns every
/// rank's share ([`rank_shares`]).
fn check_generated_memory(kron: &Kronecker, threads: usize, force: bool) -> Result<Vec<u32>> {
    let ctx = memory_context();
    let t = u32::try_from(threads).unwrap_or(u32::MAX);
    let shares = rank_shares(kron, ctx.partition, ctx.ranks, t);
    let share = shares.get(ctx.rank as usize).copied().unwrap_or(1000);
    let heaviest = heaviest_share(kron, ctx.partition, t);
    let (scale, edgefactor) = (kron.config().scale, kron.config().edgefactor);
    check_memory(scale, edgefactor, threads, share, Some(&heaviest), force)?;
    Ok(shares)
}

/// The Graph500 parameters of `--graph` when it names a graph file the
/// generator wrote, from its header; `None` for `--scale`, a text format,
/// or a file that cannot be read (the run itself then says why).
pub fn graph500_file_params(input: &Input) -> Option<Graph500Params> {
    match (&input.scale, &input.graph) {
        (None, Some(path)) if text_format(path, &input.text).is_none() => {
            file::open_header(path).ok()?.0.params
        }
        _ => None,
    }
}

/// The memory check for a graph file: a Graph500 graph's by its
/// generator's shares ([`check_generated_memory`]); any other is not
/// checked (its size says nothing the model knows).
fn check_file_memory(header: &file::GraphHeader, threads: usize, force: bool) -> Result<()> {
    if let Some(p) = header.params {
        let (kron, _) = generator(p.scale, p.edgefactor, p.seed1, p.seed2)?;
        check_generated_memory(&kron, threads, force)?;
    }
    Ok(())
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
    let (kron, params) = generator(scale, edgefactor, seed1, seed2)?;
    check_memory(scale, edgefactor, threads, 1000, None, force)?;
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

/// The generator of a graph, or why these parameters make none.
fn generator(
    scale: u32,
    edgefactor: u32,
    seed1: u64,
    seed2: u64,
) -> Result<(Kronecker, Graph500Params)> {
    if !(1..=graph_core::MAX_SCALE).contains(&scale) {
        return Err(CliError::new(format!(
            "SCALE {scale} is out of range: use 1..={} (the graph has 2^SCALE vertices and graph-core stores vertex ids in 32 bits)",
            graph_core::MAX_SCALE
        )));
    }
    let kron = Kronecker::new(Graph500Config {
        scale,
        edgefactor,
        seed1,
        seed2,
    })?;
    let params = Graph500Params {
        scale,
        edgefactor,
        seed1,
        seed2,
    };
    params.num_edges()?; // SCALE <= 32 and a representable edge count
    Ok((kron, params))
}

/// Opens a graph file, then checks memory for a run on it: verified whole
/// (`in_slices: false`), or checked only as far as it can be without
/// reading the records, which the build then checks slice by slice
/// ([`file::open_in_slices`]).
fn open(path: &Path, threads: usize, force: bool, in_slices: bool) -> Result<MappedGraph> {
    let g = if in_slices {
        file::open_in_slices(path)
    } else {
        let bar = Progress::spinner("reading");
        let g = file::open(path);
        bar.finish();
        g
    };
    let g = g.map_err(|e| match e {
        graph_core::GraphFileError::NotAGraphFile => CliError::new(format!(
            "{}: {e}; for another tool's format give the file its extension (.el .wel .mtx .gr .sg .wsg) or pass --format",
            path.display()
        )),
        e => e.into(),
    })?;
    check_file_memory(g.header(), threads, force)?;
    Ok(g)
}

/// A graph file as the input of a run ([`open`], timed).
fn load_file(path: &Path, threads: usize, force: bool, in_slices: bool) -> Result<LoadedGraph> {
    let start = Instant::now();
    let mapped = open(path, threads, force, in_slices)?;
    Ok(LoadedGraph {
        storage: Storage::Mapped {
            graph: Arc::new(mapped),
            unit_meta: None,
        },
        generation_time: start.elapsed().as_secs_f64(),
    })
}

/// The format of a `--graph` file that is not a gossamer-graph file: from
/// `--format`, else from its extension (a `.ggraph` or unknown extension
/// is read as a graph file).
fn text_format(path: &Path, text: &TextInput) -> Option<Format> {
    text.format
        .map(|f| f.format())
        .or_else(|| Format::from_path(path))
}

/// Reads an input in another tool's format, with a progress bar in bytes
/// and the reader's notes on stderr.
pub fn read_foreign(
    path: &Path,
    format: Format,
    opts: &formats::ReadOptions,
) -> Result<formats::Converted> {
    let total = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let bar = Progress::bytes("reading", total);
    let read = formats::read(path, format, opts, &|done| bar.set(done));
    bar.finish();
    let read = read.map_err(|e| match e {
        formats::FormatError::Line { .. } | formats::FormatError::Invalid { .. } => {
            CliError::new(format!("{} (read as .{format}): {e}", path.display()))
        }
        e => CliError::new(e.to_string()),
    })?;
    for note in &read.notes {
        eprintln!("note: {note}");
    }
    Ok(read)
}

/// The input of a search command (`sssp`, `bfs`, `graph500`): like
/// [`load`], except that a generated graph is *streamed*: nothing is
/// generated here; every trustee generates its own slice of the edge
/// stream while the shards are built, so no process ever holds the whole
/// edge list. Likewise a graph file is opened in slices: every trustee
/// checks (ids, weights, its part of the data checksum) and reads only its
/// own slice, so no process reads the whole file.
pub fn load_streamed(
    input: &Input,
    gen: &GenParams,
    threads: usize,
    force: bool,
) -> Result<LoadedGraph> {
    let (Some(scale), None) = (input.scale, &input.graph) else {
        return match (&input.scale, &input.graph) {
            // A graph file: every trustee checks and reads its own slice.
            (None, Some(path)) if text_format(path, &input.text).is_none() => {
                load_file(path, threads, force, true)
            }
            _ => load(input, gen, threads, force),
        };
    };
    let (kron, _) = generator(scale, gen.edgefactor, gen.seed1, gen.seed2)?;
    let ctx = memory_context();
    let t = u32::try_from(threads).unwrap_or(u32::MAX);
    let shares = check_generated_memory(&kron, threads, force)?;
    let share_of = |rank: u32| shares.get(rank as usize).copied().unwrap_or(1000);
    // The source travels from rank 0 to every trustee, so it carries the
    // part of the slices rank 0 keeps and the part the others keep (made
    // for the heaviest): as much as stays under the rank's later peak.
    let shape = memory::Shape::even(scale, gen.edgefactor, ctx.ranks, t);
    let heaviest_other = (1..ctx.ranks).map(share_of).max().unwrap_or(1000);
    let kept = |rank: u32, share: u32| {
        memory::estimate_rank(
            ctx.workload,
            memory::Shape {
                share_permille: share,
                ..shape
            },
            rank,
        )
        .kept_permille
    };
    let source = Graph500Source::new(scale, gen.edgefactor, gen.seed1, gen.seed2)
        .map_err(|e| CliError::new(e.to_string()))?
        .keeping(kept(0, share_of(0)), kept(1, heaviest_other));
    Ok(LoadedGraph {
        storage: Storage::Streamed {
            source,
            kron: Box::new(kron),
        },
        generation_time: 0.0,
    })
}

impl LoadedGraph {
    /// Whether the graph is generated slice by slice during construction
    /// (its generation time is then measured there).
    pub fn is_streamed(&self) -> bool {
        matches!(self.storage, Storage::Streamed { .. })
    }

    /// Which graph this is, as prepared shards record it: the generator's
    /// parameters, or the graph file's data checksum; `unit_weights` as
    /// the run asks (it changes nothing on an unweighted graph). Call
    /// before [`Self::with_unit_weights`]. Graphs read from another
    /// tool's format have no identity short of parsing them: refused.
    pub fn identity(&self, unit_weights: bool) -> Result<GraphIdentity> {
        let file_checksum = match &self.storage {
            Storage::Mapped { graph: m, .. } => Some(m.header().data_checksum),
            Storage::Described { header, .. } => Some(header.data_checksum),
            Storage::Generated { .. } | Storage::Streamed { .. } => None,
            Storage::Parsed { .. } => {
                return Err(CliError::new(
                    "--save-prepared and --prepared need a generated graph (--scale) or a graph file: convert the text file once with `gossamer-graph convert`, then pass --graph GRAPH.ggraph",
                ))
            }
        };
        Ok(GraphIdentity {
            num_vertices: self.num_vertices(),
            num_edges: self.num_edges(),
            params: self.params(),
            file_checksum,
            unit_weights: unit_weights && self.meta().weighted,
            directed: self.meta().directed,
        })
    }
}

/// The input of a search command run on prepared shards (`--prepared`):
/// what the run needs to know of the graph without its edges. A generated
/// graph is described by its parameters (nothing is generated), a graph
/// file by its header and id table (its records are not read); a text
/// file cannot be described without parsing it, and is refused.
pub fn load_described(
    input: &Input,
    gen: &GenParams,
    threads: usize,
    force: bool,
) -> Result<LoadedGraph> {
    let path = match (&input.scale, &input.graph) {
        (None, Some(path)) => path,
        _ => return load_streamed(input, gen, threads, force),
    };
    if text_format(path, &input.text).is_some() {
        return Err(CliError::new(format!(
            "--prepared needs a generated graph (--scale) or a graph file, not the text file {}: convert it once with `gossamer-graph convert`, then save and reuse the prepared graph of --graph GRAPH.ggraph",
            path.display()
        )));
    }
    let start = Instant::now();
    let (header, meta) = file::open_header(path)?;
    check_file_memory(&header, threads, force)?;
    Ok(LoadedGraph {
        storage: Storage::Described { header, meta },
        generation_time: start.elapsed().as_secs_f64(),
    })
}

/// The input graph of a run: generated (`--scale`) or from `--graph`.
pub fn load(input: &Input, gen: &GenParams, threads: usize, force: bool) -> Result<LoadedGraph> {
    if let (None, Some(path)) = (&input.scale, &input.graph) {
        if let Some(format) = text_format(path, &input.text) {
            eprintln!(
                "note: reading {} as a .{format} file on every run; `gossamer-graph convert {}{} -o GRAPH.ggraph` once, then `--graph GRAPH.ggraph`, is faster",
                path.display(),
                path.display(),
                if input.text.undirected { " --undirected" } else { "" }
            );
            let start = Instant::now();
            let opts = formats::ReadOptions {
                directed: input.text.undirected.then_some(false),
                ignore_weights: false,
            };
            let read = read_foreign(path, format, &opts)?;
            return Ok(LoadedGraph {
                storage: Storage::Parsed {
                    list: Arc::new(read.edges),
                    meta: read.meta,
                },
                generation_time: start.elapsed().as_secs_f64(),
            });
        }
    }
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
        (None, Some(path)) => load_file(path, threads, force, false),
        // clap's argument group makes these unreachable; keep a clear message anyway.
        _ => Err(CliError::new(
            "give exactly one of --scale S (generate the graph) or --graph FILE (read it)",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_rank_is_checked_with_its_own_share_of_the_edges() {
        let kron = Kronecker::new(Graph500Config::with_scale(18)).unwrap();
        let block = rank_shares(&kron, graph_core::PartitionKind::Block, 4, 2);
        let cyclic = rank_shares(&kron, graph_core::PartitionKind::Cyclic, 4, 2);
        // The last block of a Graph500 graph is the heavy one; round-robin
        // is close to even. No share is reported below even.
        assert!(block[3] > 1040, "{block:?}");
        assert!(block.iter().all(|&s| s >= 1000), "{block:?}");
        assert!(
            cyclic.iter().all(|&s| (1000..1030).contains(&s)),
            "{cyclic:?}"
        );
        // The heavy rank's estimate is larger than an even one.
        let even = memory::Shape::even(18, 16, 4, 2);
        let heavy = memory::Shape {
            share_permille: block[3],
            ..even
        };
        let w = memory::Workload::Sssp;
        assert!(
            memory::estimate_rank(w, heavy, 3).per_rank_bytes
                > memory::estimate_rank(w, even, 3).per_rank_bytes
        );
        assert_eq!(
            rank_shares(&kron, graph_core::PartitionKind::Block, 1, 2),
            [1000]
        );
    }
}
