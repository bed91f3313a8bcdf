//! k-core decomposition: the coreness of every vertex, by distributed
//! peeling.
//!
//! # The algorithm (Batagelj & Zaversnik, "An O(m) Algorithm for Cores
//! Decomposition of Networks", 2003; level-synchronous as in Dhulipala,
//! Blelloch & Shun's Julienne, SPAA 2017)
//!
//! The *k-core* of an undirected graph is its largest subgraph in which
//! every vertex has at least `k` neighbours; a vertex's *coreness* is the
//! largest `k` whose core holds it. Peeling finds all of them at once:
//! at level `k`, remove every vertex of degree at most `k` (its coreness is
//! `k`), which lowers its neighbours' degrees, and repeat until no vertex
//! of degree at most `k` is left; then go to the least degree left.
//!
//! Batagelj and Zaversnik keep the vertices sorted by degree in one array
//! of *bins* (`vert`, with `start[d]` the first vertex of degree `d` and
//! `pos` the inverse): lowering a degree by one swaps the vertex with the
//! first of its bin and moves the bin's start, O(1). The peeled vertices
//! are then a prefix of `vert`, and those of degree at most `k` the range
//! after it, which grows at its end as degrees fall to `k`.
//!
//! # In graph-kernel's one shape
//!
//! Each trustee keeps the bins of its own vertices (positions). A level is
//! [`settle`](graph_kernel::Kernel::settle)d in passes: a pass peels the
//! trustee's range and sends `1` to every neighbour; an own neighbour is
//! lowered at once (possibly joining the range), a remote one gets a
//! record, combined by addition ([`Program::COMBINE`]), and lowered on
//! arrival. A degree is never lowered below the level: a vertex at the
//! level is peeled at it whatever it loses meanwhile. When every trustee's
//! range is empty and no record is in flight, the next level is the least
//! degree left anywhere (an all-reduce), so levels without vertices cost
//! nothing. The graph is taken as simple (the rows: parallel edges merged,
//! self-loops dropped); directed graphs are refused, as Ligra's and GBBS's
//! k-core are for symmetric graphs.
//!
//! ```
//! use graph_core::sharded::ShardedGraph;
//! use graph_core::{EdgeList, PackedEdge, PartitionKind};
//! // A triangle 0-1-2 with a tail 2-3-4 and a lone vertex 5.
//! let e = |u, v| PackedEdge::new(u, v, 1.0);
//! let list = EdgeList::from_edges(6, vec![e(0, 1), e(1, 2), e(2, 0), e(2, 3), e(3, 4)]).unwrap();
//! let l2 = list.clone();
//! let out = gossamer::main(2, move || {
//!     let g = ShardedGraph::build(&l2, PartitionKind::Cyclic).unwrap();
//!     kcore::kcore(&g, &kcore::KcoreConfig::default()).unwrap()
//! });
//! assert_eq!(out.core, [2, 2, 2, 1, 1, 0]);
//! assert_eq!(out.max_core, 2);
//! assert_eq!(kcore::kcore_sequential(&list).unwrap(), out.core);
//! assert!(kcore::verify_kcore(&list, &out.core).is_ok());
//! assert!(kcore::verify_kcore(&list, &[2, 2, 2, 2, 1, 0]).is_err());
//! ```

use std::time::{Duration, Instant};

use graph_core::alloc::vec_or_exit;
use graph_core::sharded::{KernelError, ShardedGraph};
use graph_core::EdgeList;
use graph_kernel::{gather, run, Local, Prepare, Program};

/// Settings of one k-core run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KcoreConfig {
    /// Work of a pass (vertices peeled and row entries read) before the
    /// records leave and the fiber yields. Default 64 Ki, as the driver's
    /// sweeps.
    pub pass_work: usize,
}

impl Default for KcoreConfig {
    fn default() -> Self {
        KcoreConfig {
            pass_work: graph_kernel::STEP_WORK,
        }
    }
}

/// What one run found, by global vertex id.
#[derive(Clone, Debug, PartialEq)]
pub struct KcoreOutput {
    /// The coreness of every vertex (0 for a vertex without edges).
    pub core: Vec<u32>,
    /// The largest coreness: the graph's degeneracy.
    pub max_core: u32,
    /// Levels that held vertices (statistics).
    pub levels: u32,
    /// Collective rounds of the run (statistics).
    pub rounds: u64,
    /// Time of the decomposition (excludes preparing the adjacency and
    /// gathering the answer).
    pub kernel_time: Duration,
}

/// One trustee's bins over its own positions.
struct Kcore {
    /// Degree left of an unpeeled vertex, coreness of a peeled one.
    deg: Vec<u32>,
    /// Vertices by degree; `pos` is its inverse, `start[d]` the first of
    /// degree `d`.
    vert: Vec<u32>,
    pos: Vec<u32>,
    start: Vec<u32>,
    /// `vert[..done]` are peeled.
    done: usize,
    level: u32,
}

impl Program for Kcore {
    /// How many neighbours were peeled.
    type Msg = u32;
    const COMBINE: bool = true;

    fn receive(&mut self, v: u32, n: u32) -> bool {
        // Not below the level: the vertex is peeled at it anyway.
        for _ in 0..n.min(self.deg[v as usize].saturating_sub(self.level)) {
            let d = self.deg[v as usize] as usize;
            let (first, at) = (self.start[d], self.pos[v as usize]);
            let w = self.vert[first as usize];
            self.vert.swap(first as usize, at as usize);
            (self.pos[w as usize], self.pos[v as usize]) = (at, first);
            self.start[d] += 1;
            self.deg[v as usize] -= 1;
        }
        false
    }

    fn combine(acc: &mut u32, n: u32) {
        *acc += n;
    }
}

impl Kcore {
    fn new(degrees: Vec<u32>) -> Self {
        let top = degrees.iter().copied().max().unwrap_or(0) as usize;
        let mut start = vec![0u32; top + 2];
        for &d in &degrees {
            start[d as usize + 1] += 1;
        }
        for d in 1..start.len() {
            start[d] += start[d - 1];
        }
        let n = degrees.len();
        let mut vert = vec_or_exit(n, 0, "k-core bins");
        let (mut next, mut pos) = (start.clone(), vec_or_exit(n, 0, "k-core places"));
        for (v, &d) in degrees.iter().enumerate() {
            (vert[next[d as usize] as usize], pos[v]) = (v as u32, next[d as usize]);
            next[d as usize] += 1;
        }
        Kcore {
            deg: degrees,
            vert,
            pos,
            start,
            done: 0,
            level: 0,
        }
    }

    /// The least degree left here (`u32::MAX` when everything is peeled).
    fn least(&self) -> u64 {
        self.vert
            .get(self.done)
            .map_or(u64::from(u32::MAX), |&v| u64::from(self.deg[v as usize]))
    }

    /// The end of the range of degree at most the level.
    fn end(&self) -> usize {
        self.start
            .get(self.level as usize + 1)
            .map_or(self.vert.len(), |&e| e as usize)
    }
}

/// Peels this trustee's range at the level until `budget` work is spent
/// (true) or the range is empty (false).
fn peel(l: &mut Local<'_, Kcore>, budget: usize) -> bool {
    let mut work = 0;
    while l.state().done < l.state().end() {
        let s = l.state();
        let v = s.vert[s.done];
        s.done += 1;
        s.deg[v as usize] = s.level;
        for &f in l.row(v) {
            l.send(f, 1);
        }
        work += 1 + l.degree(v) as usize;
        if work >= budget {
            return true;
        }
    }
    false
}

/// The k-core decomposition of undirected `graph`, from a fiber of the
/// runtime that built it. Returns [`KernelError::Config`] for a directed
/// graph or a zero `pass_work`.
pub fn kcore(graph: &ShardedGraph, cfg: &KcoreConfig) -> Result<KcoreOutput, KernelError> {
    if graph.is_directed() {
        return Err(KernelError::Config(
            "k-cores are defined on undirected graphs (as Ligra's and GBBS's k-core): read a text graph with --undirected, or convert it with --undirected".into(),
        ));
    }
    if cfg.pass_work == 0 {
        return Err(KernelError::Config(
            "pass_work = 0: give at least 1 (default 65536)".into(),
        ));
    }
    graph_kernel::prepare(graph, Prepare::Rows);
    let budget = cfg.pass_work;
    let t0 = Instant::now();
    let per = run(
        graph,
        |s, _| {
            Kcore::new(
                (0..s.num_own())
                    .map(|v| s.rows().degree(v) as u32)
                    .collect(),
            )
        },
        move |k| {
            let mut levels = 0;
            let least = |k: &mut graph_kernel::Kernel<Kcore>| {
                let here = k.with(|l| l.state().least());
                k.min(here)
            };
            let mut level = least(k);
            while level != u64::from(u32::MAX) {
                levels += 1;
                k.with(move |l| l.state().level = level as u32);
                k.settle(move |l| peel(l, budget));
                level = least(k);
            }
            (levels, k.rounds())
        },
    );
    let kernel_time = t0.elapsed();
    let core = gather(graph, 0, |s: &Kcore, v| s.deg[v as usize])?;
    Ok(KcoreOutput {
        max_core: core.iter().copied().max().unwrap_or(0),
        core,
        levels: per[0].0,
        rounds: per[0].1,
        kernel_time,
    })
}

/// Batagelj and Zaversnik's sequential algorithm on one array of bins.
pub fn kcore_sequential(list: &EdgeList<'_>) -> Result<Vec<u32>, KernelError> {
    let rows = graph_kernel::sequential::simple_rows(list, false)?;
    let mut s = Kcore::new(rows.iter().map(|r| r.len() as u32).collect());
    while s.done < s.vert.len() {
        let v = s.vert[s.done];
        s.done += 1;
        s.level = s.level.max(s.deg[v as usize]);
        for &u in &rows[v as usize] {
            s.receive(u, 1);
        }
    }
    Ok(s.deg)
}

/// Checks `core` against [`kcore_sequential`]; the error names the first
/// vertex that differs. Returns the largest coreness.
pub fn verify_kcore(list: &EdgeList<'_>, core: &[u32]) -> Result<u32, String> {
    let want = kcore_sequential(list).map_err(|e| e.to_string())?;
    if core.len() != want.len() {
        return Err(format!(
            "{} values for a graph of {} vertices",
            core.len(),
            want.len()
        ));
    }
    match core.iter().zip(&want).position(|(a, b)| a != b) {
        Some(v) => Err(format!(
            "vertex {v} has coreness {}, but it is {}",
            core[v], want[v]
        )),
        None => Ok(want.iter().copied().max().unwrap_or(0)),
    }
}
