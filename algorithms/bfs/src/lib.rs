//! Direction-optimizing breadth-first search as delegated kernels.
//!
//! # The algorithm (Beamer, Asanović & Patterson, "Direction-Optimizing
//! Breadth-First Search", SC 2012)
//!
//! A level-synchronous BFS expands the *frontier* (the vertices at depth `d`)
//! into the next frontier (depth `d + 1`) in one of two directions:
//!
//! - **top-down**: every frontier vertex looks at all its neighbours and claims
//!   the unvisited ones. Cheap while the frontier is small, wasteful once most
//!   edges out of the frontier lead to vertices that are already visited;
//! - **bottom-up**: every *unvisited* vertex looks at its neighbours until it
//!   finds one in the frontier, and takes it as parent. Cheap when the frontier
//!   is a large part of the graph: most unvisited vertices stop early.
//!
//! The switch follows the paper's heuristic, with `m_f` = edges out of the
//! frontier, `m_u` = edges out of unvisited vertices, `n_f` = frontier size:
//! go bottom-up when `m_f > m_u / alpha`, and back top-down when `n_f < n / beta`
//! and the frontier has stopped growing. On Kronecker graphs the middle two or
//! three levels (which hold most of the edges) then run bottom-up. One
//! guard of ours: bottom-up also needs `m_f >= n / 8`
//! ([`graph_kernel::PULL_MIN`]), since a bottom-up level sweeps every
//! vertex. Without it the tail of a search, where `m_u` is small, went
//! bottom-up for a handful of vertices: a level at the end of a Kronecker
//! search, and 17-19 levels of a road grid's (4 M vertices swept each for
//! a frontier of a few thousand).
//!
//! # In graph-kernel's one shape
//!
//! Each trustee's [`Program`] state is its vertices' parents (as flat ids)
//! and depths, by position in graph-kernel's renumbered adjacency (shared
//! with every other kernel on the graph). A level is one
//! [`Kernel::step`](graph_kernel::Kernel::step), and the driver picks its
//! direction with the heuristic above ([`Direction::Auto`]):
//!
//! - **top-down** (the push closure): every frontier vertex sends its flat
//!   id along its row with [`send_first`](graph_kernel::Local::send_first):
//!   applied at once to an own vertex, queued at most once per remote
//!   vertex and search for its owner; [`Program::receive`] claims an
//!   unvisited vertex (first claim wins) and activates it;
//! - **bottom-up** (the pull closure): every unvisited own vertex looks
//!   along its row for a neighbour in the frontier, which the driver shared
//!   as a bitmap over flat ids before the step, and takes the first as its
//!   parent. Rows start with the hubs (on a graph that has hubs), where a
//!   frontier neighbour is found soonest.
//!
//! Both directions read the rows through
//! [`for_each_target`](graph_kernel::Local::for_each_target) and
//! [`find_in_target`](graph_kernel::Local::find_in_target), which cost
//! what loops over plain rows' slices cost, so the search runs on plain or
//! compressed rows alike ([`BfsConfig::rows`]; compressed rows
//! hold byte-coded differences, about 1.5 B an entry on a Graph500 graph
//! instead of 4, and cost a decode per entry read).
//!
//! Depths are the levels (root 0, `-1` unreached); the parent tree is a
//! valid Graph500 BFS tree. On a **directed** graph
//! ([`ShardedGraph::is_directed`]) the search follows out-edges: top-down
//! sends along the rows (out-edges), and bottom-up looks for a parent among
//! the tails of the arcs into a vertex (graph-kernel's in-rows, made from
//! the shard's in-edge index before the clock), as GAPBS does with its
//! in-edge CSR. The switch counts out-edges on both sides, as the paper's.
//!
//! ```
//! use graph_core::sharded::ShardedGraph;
//! use graph_core::{EdgeList, PackedEdge, PartitionKind};
//! let out = gossamer::main(2, || {
//!     let list = EdgeList::from_edges(5, vec![
//!         PackedEdge::new(0, 1, 1.0),
//!         PackedEdge::new(1, 2, 1.0),
//!         PackedEdge::new(0, 2, 1.0),
//!         PackedEdge::new(2, 3, 1.0),
//!     ]).unwrap();
//!     let g = ShardedGraph::build(&list, PartitionKind::Block).unwrap();
//!     bfs::bfs(&g, 0, &bfs::BfsConfig::default()).unwrap()
//! });
//! assert_eq!(out.level, [0, 1, 1, 2, -1]);
//! assert_eq!(out.parent[3], 2);
//! ```

use std::time::{Duration, Instant};

use graph_core::alloc::huge_vec_or_exit;
use graph_core::sharded::{KernelError, ShardedGraph};
use graph_core::validate::NO_PARENT;
use graph_kernel::adjacency::NO_FLAT;
use graph_kernel::{gather, gather_flat_u32, run, Direction, Prepare, Program, RowsFormat, Setup};

/// Which directions a BFS may use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BfsMode {
    /// Top-down and bottom-up levels, switched by the Beamer heuristic.
    #[default]
    DirectionOptimizing,
    /// Top-down levels only.
    TopDown,
}

/// Settings of one BFS run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BfsConfig {
    /// Direction policy.
    pub mode: BfsMode,
    /// Go bottom-up when the frontier's edges exceed unexplored edges / `alpha`.
    pub alpha: f64,
    /// Go back top-down when the frontier is smaller than `n / beta` vertices
    /// (and no longer growing).
    pub beta: f64,
    /// Work of a sweep step (vertices + row entries + 4 per visit queued
    /// for another trustee) before the visits leave and the fiber yields
    /// ([`graph_kernel::Kernel::set_step_work`]).
    pub step_work: usize,
    /// How the rows are stored when this search is the first to prepare
    /// the graph ([`graph_kernel::prepare_with`]); a graph prepared
    /// already keeps its format. Both directions read either.
    pub rows: RowsFormat,
}

impl Default for BfsConfig {
    fn default() -> Self {
        BfsConfig {
            mode: BfsMode::DirectionOptimizing,
            alpha: 15.0,
            beta: 18.0,
            step_work: graph_kernel::STEP_WORK,
            rows: RowsFormat::Plain,
        }
    }
}

impl BfsConfig {
    /// Checks the settings; the error says which is wrong.
    fn check(&self) -> Result<(), KernelError> {
        let why = if !(self.alpha > 0.0 && self.beta > 0.0) {
            format!(
                "alpha = {}, beta = {}: both must be positive (defaults 15 and 18)",
                self.alpha, self.beta
            )
        } else if self.step_work == 0 {
            format!(
                "step_work = 0: give at least 1 (default {})",
                graph_kernel::STEP_WORK
            )
        } else {
            return Ok(());
        };
        Err(KernelError::Config(why))
    }
}

/// What one BFS run found; the vectors are indexed by global vertex id.
#[derive(Clone, Debug, PartialEq)]
pub struct BfsOutput {
    /// Depth (root 0), `-1` when unreached.
    pub level: Vec<i64>,
    /// Levels run bottom-up (statistics).
    pub bottom_up_levels: u32,
    /// The BFS tree: each vertex's parent, the root's being itself and an
    /// unreached vertex's [`NO_PARENT`].
    pub parent: Vec<u64>,
    /// Time of the search, with its per-root reset (excludes what is made
    /// once per graph: the adjacency and this kernel's arrays; and
    /// gathering the output).
    pub kernel_time: Duration,
}

/// [`BfsOutput`] in 4 bytes a vertex each ([`bfs_u32`]): what the gathering
/// rank holds is 8 bytes per vertex less, for the validators'
/// `validate_bfs_sharded_u32` (graph-core).
#[derive(Clone, Debug, PartialEq)]
pub struct BfsOutputU32 {
    /// Depth (root 0), `-1` when unreached.
    pub level: Vec<i32>,
    /// Levels run bottom-up (statistics).
    pub bottom_up_levels: u32,
    /// Each vertex's parent as a global id, `u32::MAX` when unreached.
    pub parent: Vec<u32>,
    /// As [`BfsOutput::kernel_time`].
    pub kernel_time: Duration,
}

impl BfsOutputU32 {
    /// The same answer in 8 bytes a vertex each.
    pub fn widen(self) -> BfsOutput {
        let parent = self.parent.iter().map(|&p| match p {
            u32::MAX => NO_PARENT,
            p => u64::from(p),
        });
        BfsOutput {
            level: self.level.iter().map(|&l| i64::from(l)).collect(),
            bottom_up_levels: self.bottom_up_levels,
            parent: parent.collect(),
            kernel_time: self.kernel_time,
        }
    }
}

/// One trustee's search state, by position.
struct Bfs {
    /// Flat id of each own vertex's parent, [`NO_FLAT`] while unvisited.
    parent: Vec<u32>,
    /// Depth of each own vertex, meaningful only where a parent is set.
    depth: Vec<i32>,
    /// Depth of the vertices claimed in the current level.
    level: i32,
}

impl Program for Bfs {
    /// A visit: the parent's flat id.
    type Msg = u32;

    #[inline(always)]
    fn receive(&mut self, v: u32, parent: u32) -> bool {
        let i = v as usize;
        let first = self.parent[i] == NO_FLAT;
        if first {
            self.parent[i] = parent;
            self.depth[i] = self.level;
        }
        first
    }

    #[inline(always)]
    fn prefetch(&self, v: u32) {
        if let (Some(p), Some(d)) = (self.parent.get(v as usize), self.depth.get(v as usize)) {
            graph_core::csr::prefetch_line(p);
            graph_core::csr::prefetch_line(d);
        }
    }

    fn next_superstep(&mut self, level: u32) {
        self.level = level as i32;
    }
}

/// BFS from `root` over `graph`, from a fiber of the runtime that built the
/// graph. Returns [`KernelError::RootOutOfRange`] for a bad root and
/// [`KernelError::Config`] for bad `alpha` / `beta` / `step_work`.
pub fn bfs(graph: &ShardedGraph, root: u64, cfg: &BfsConfig) -> Result<BfsOutput, KernelError> {
    bfs_u32(graph, root, cfg).map(BfsOutputU32::widen)
}

/// [`bfs`], its answer gathered in 4 bytes a vertex each.
pub fn bfs_u32(
    graph: &ShardedGraph,
    root: u64,
    cfg: &BfsConfig,
) -> Result<BfsOutputU32, KernelError> {
    graph.check_root(root)?;
    cfg.check()?;
    let cfg = *cfg;
    let direction = match cfg.mode {
        BfsMode::DirectionOptimizing => Direction::Auto {
            alpha: cfg.alpha,
            beta: cfg.beta,
        },
        BfsMode::TopDown => Direction::Push,
    };
    // Bottom-up reads in-rows: on a directed graph they are made here.
    graph_kernel::prepare_with(
        graph,
        match direction {
            Direction::Push => Prepare::Rows,
            _ => Prepare::InRows,
        },
        cfg.rows,
    );
    // The state, once per graph, before the clock.
    let make = |s: &mut Setup<'_>, old: Option<Bfs>| {
        let n = s.num_own() as usize;
        old.unwrap_or_else(|| Bfs {
            parent: huge_vec_or_exit(n, NO_FLAT, "BFS parents"),
            depth: huge_vec_or_exit(n, -1, "BFS depths"),
            level: 0,
        })
    };
    run(graph, make, |_| ());
    let t0 = Instant::now();
    let pulls = run(
        graph,
        move |s, old: Option<Bfs>| {
            let mut b = make(s, old);
            // A depth counts only where a parent is set: no second fill.
            b.parent.fill(NO_FLAT);
            b.level = 0;
            b
        },
        move |k| {
            k.set_direction(direction);
            k.set_step_work(cfg.step_work);
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
                        l.for_each_target(v, |l, f| l.send_first(f, me));
                    },
                    |l, v| {
                        if l.state().parent[v as usize] != NO_FLAT {
                            return;
                        }
                        if let Some(f) = l.find_in_target(v, |f| l.was_active(f)) {
                            l.receive(v, f);
                        }
                    },
                );
            }
            k.pulls()
        },
    );
    let kernel_time = t0.elapsed();
    // What the search freed (frontiers, queues: kept in the allocator's
    // heaps otherwise) goes back in every process before the answer is
    // gathered beside it.
    graph_kernel::update_states(graph, |_: &mut Bfs| graph_core::alloc::give_back_freed());
    let parent = gather_flat_u32(graph, |b: &Bfs| &b.parent[..])?;
    let level = gather(graph, -1, |b: &Bfs, v| match b.parent[v as usize] {
        NO_FLAT => -1,
        _ => b.depth[v as usize],
    })?;
    // And what gathering freed (the trustees' parts).
    graph_core::alloc::give_back_freed();
    Ok(BfsOutputU32 {
        parent,
        level,
        kernel_time,
        bottom_up_levels: pulls.into_iter().max().unwrap_or(0),
    })
}
