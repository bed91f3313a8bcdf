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
//! three levels (which hold most of the edges) then run bottom-up.
//!
//! # As delegated kernels, on graph-kernel's blocks
//!
//! Each trustee owns its vertices' parents and depths and its part of the
//! frontier in its [`TrusteeState`] property (type `Trustee` here). The
//! adjacency is graph-kernel's [`Adjacency`], prepared once per graph and
//! shared with every other kernel: vertices renumbered by decreasing degree to
//! *flat* ids (64-aligned per trustee, so each trustee's frontier fills whole
//! bitmap words), rows sorted by flat id with parallel edges merged. One fiber
//! per trustee drives the levels:
//!
//! - **top-down** (`Search::top_down_pass`): an unvisited neighbour owned by
//!   the same trustee is claimed directly (local shortcut); one owned
//!   elsewhere becomes a [`Visit`] record `(position at the owner, parent)`
//!   in the trustee's [`Outbox`], shipped as POD slices after each pass and
//!   applied by a delegated closure on the owner (first claim wins); a sender
//!   sends at most one visit per remote vertex per search (a bitmap);
//! - **bottom-up** (`Search::bottom_up`): needs "is `u` in the frontier?"
//!   for every neighbour `u`, so before such a level every trustee writes its
//!   words of the frontier bitmap over flat ids into a [`Replica`] (one per
//!   process, shared by its trustees; published to other processes as POD
//!   slices); the step itself is then purely local. Rows start with the hubs,
//!   where a frontier neighbour is found soonest;
//! - **agreement**: each fiber meets the others at a barrier, which is also a
//!   flush (requests between two workers run in issue order and every party's
//!   arrival travels behind its batches, see [`gossamer::Collective`]): after
//!   it every visit and bitmap word of the level has been applied. Then an
//!   all-reduce of `(n_f, m_f, m_u)` decides the next direction and whether to
//!   stop.
//!
//! Depths are the levels (root 0, `-1` unreached); the parent tree is a valid
//! Graph500 BFS tree.
//!
//! On a **directed** graph ([`ShardedGraph::is_directed`]) the search
//! follows out-edges (the rows) and runs **top-down only**, whatever
//! [`BfsMode`]: a bottom-up step needs each unvisited vertex's
//! in-neighbours, which the rows do not hold. Top-down alone is the simple
//! correct choice (no second renumbered copy of the in-edges per trustee, no
//! heuristic to retune for in- against out-degrees); it costs speed on the
//! middle levels of low-diameter graphs, not correctness.
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

use std::sync::Arc;
use std::time::{Duration, Instant};

use gossamer::Op;
use graph_core::alloc::vec_or_exit;
use graph_core::sharded::{KernelError, ShardedGraph, TrusteeCtx, TrusteeState};
use graph_kernel::adjacency::{self, gather_parents, Adjacency, Rows, NO_FLAT};
use graph_kernel::outbox::{ship, Outbox};
use graph_kernel::replica::{self, Replica};

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
    /// Visits a top-down pass queues for other trustees before the fiber
    /// stops to ship them and lets its worker serve the others (default
    /// 16 Ki: a few slots' worth).
    pub send_budget: usize,
}

impl Default for BfsConfig {
    fn default() -> Self {
        BfsConfig {
            mode: BfsMode::DirectionOptimizing,
            alpha: 15.0,
            beta: 18.0,
            send_budget: 16 * 1024,
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
        } else if self.send_budget == 0 {
            "send_budget = 0: give at least 1 visit per pass (default 16384)".into()
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
    /// unreached vertex's [`NO_PARENT`](graph_core::validate::NO_PARENT).
    pub parent: Vec<u64>,
    /// Time of the search (excludes preparing the adjacency and gathering).
    pub kernel_time: Duration,
}

gossamer::pod_struct! {
    /// A top-down visit sent to the owner of a vertex: "`v` (its position at
    /// its owner) is reached from `parent`" (the parent's flat id, see
    /// [`Adjacency`]). 8 bytes.
    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    pub struct Visit { pub v: u32, pub parent: u32 }
}

/// One trustee's kernel state: the shared adjacency and the search.
#[derive(Default)]
struct Trustee {
    adj: Option<Arc<Adjacency>>,
    search: Search,
}

/// Per-root state of one trustee, by position (see [`Adjacency`]).
#[derive(Default)]
struct Search {
    /// Flat id of each own vertex's parent.
    parent: Vec<u32>,
    depth: Vec<i32>,
    /// Depth of the vertices being discovered in the current level.
    cur: i32,
    frontier: Vec<u32>,
    next: Vec<u32>,
    /// The current frontier of every trustee, as a bitmap over flat ids,
    /// shared by the trustees of this process (own words written here
    /// before a bottom-up level, those of other processes received).
    bits: Option<Arc<Replica>>,
    /// Other trustees' vertices this trustee already sent a visit for during
    /// this search (a sender-side filter: the owner claimed them already).
    sent: Vec<u64>,
    /// Edges out of still-unvisited own vertices.
    unexplored: u64,
    out: Outbox<Visit>,
}

impl Search {
    /// Sizes the state for `a` (first search on this graph).
    fn attach(&mut self, a: &Adjacency) {
        let n = a.num_own() as usize;
        self.parent = vec_or_exit(n, NO_FLAT, "BFS parents");
        self.depth = vec_or_exit(n, -1, "BFS depths");
        self.bits = Some(Replica::bitmap(a, "bfs.frontier"));
        self.sent = vec_or_exit(a.num_flat() as usize / 64, 0u64, "BFS sent bits");
        self.out = Outbox::new(a.num_trustees());
    }

    /// Clears per-root state and seeds the root (a position) if it is ours.
    fn reset(&mut self, a: &Adjacency, entries: u64, root: Option<u32>) {
        self.parent.fill(NO_FLAT);
        self.depth.fill(-1);
        self.sent.fill(0);
        self.frontier.clear();
        self.next.clear();
        self.cur = 0;
        self.unexplored = entries;
        if let Some(r) = root {
            self.parent[r as usize] = a.flat(r);
            self.depth[r as usize] = 0;
            self.next.push(r);
        }
    }

    #[inline(always)]
    fn claim(&mut self, v: u32, parent: u32) {
        let i = v as usize;
        if self.parent[i] == NO_FLAT {
            self.parent[i] = parent;
            self.depth[i] = self.cur;
            self.next.push(v);
        }
    }

    /// Top-down over the frontier from position `*pos`, until `budget` visits
    /// are queued for other trustees. True when stopped early.
    fn top_down_pass(
        &mut self,
        a: &Adjacency,
        rows: &Rows,
        pos: &mut usize,
        mut budget: usize,
    ) -> bool {
        let (starts, targets) = (rows.starts(), rows.targets());
        while *pos < self.frontier.len() {
            let u = self.frontier[*pos];
            *pos += 1;
            let g = a.flat(u);
            let row = &targets[starts[u as usize] as usize..starts[u as usize + 1] as usize];
            for &f in row {
                if let Some(v) = a.own(f) {
                    self.claim(v, g);
                } else {
                    let (w, bit) = ((f >> 6) as usize, 1u64 << (f & 63));
                    if self.sent[w] & bit == 0 {
                        self.sent[w] |= bit;
                        let (o, v) = a.locate(f);
                        self.out.push(o, Visit { v, parent: g });
                        budget = budget.saturating_sub(1);
                    }
                }
            }
            if budget == 0 {
                return true;
            }
        }
        false
    }

    /// Bottom-up: every unvisited own vertex looks for a frontier neighbour.
    fn bottom_up(&mut self, rows: &Rows) {
        let bits = Arc::clone(self.bits.as_ref().expect("attached"));
        for v in 0..self.parent.len() as u32 {
            if self.parent[v as usize] != NO_FLAT {
                continue;
            }
            for &f in rows.row(v) {
                if bits.bit(f) {
                    self.parent[v as usize] = f;
                    self.depth[v as usize] = self.cur;
                    self.next.push(v);
                    break;
                }
            }
        }
    }

    /// Makes the discovered vertices the frontier and moves to the next depth
    /// (before the reduction that ends the level, so no visit of the next level
    /// can arrive first); returns `(n_f, m_f, m_u)`.
    fn advance(&mut self, rows: &Rows) -> [u64; 3] {
        self.cur += 1;
        std::mem::swap(&mut self.frontier, &mut self.next);
        self.next.clear();
        let m_f: u64 = self.frontier.iter().map(|&v| rows.degree(v)).sum();
        self.unexplored -= m_f;
        [self.frontier.len() as u64, m_f, self.unexplored]
    }

    /// Writes this trustee's words of the frontier bitmap; returns their
    /// range.
    fn own_bits(&mut self, a: &Adjacency) -> (usize, usize) {
        let bits = self.bits.as_ref().expect("attached");
        let words = a.own_words();
        bits.clear(words.clone());
        for &v in &self.frontier {
            bits.set_bit(a.flat(v));
        }
        (words.start, words.end)
    }
}

#[inline(always)]
fn state(s: &mut TrusteeState) -> &mut Trustee {
    s.kernel::<Trustee>(|_| Trustee::default()).1
}

/// The adjacency, its rows and the search of this trustee (after [`bfs`]
/// attached them).
#[inline(always)]
fn parts(s: &mut TrusteeState) -> (&Adjacency, &Rows, &mut Search) {
    let (shard, t) = s.kernel::<Trustee>(|_| Trustee::default());
    let a = t.adj.as_deref().expect("bfs: adjacency attached");
    (a, a.rows(shard), &mut t.search)
}

fn outbox(s: &mut TrusteeState) -> &mut Outbox<Visit> {
    &mut state(s).search.out
}

/// Applies a batch of top-down visits on the owner (delegated closure body).
fn receive(s: &mut TrusteeState, recs: &[Visit]) {
    let t = &mut state(s).search;
    for r in recs {
        t.claim(r.v, r.parent);
    }
}

/// One top-down level: local passes, each followed by shipping the visits
/// it queued (applied by the next barrier).
fn top_down(ctx: &TrusteeCtx, budget: usize) {
    let mut pos = 0usize;
    loop {
        let (out, more, p) = ctx.local.apply_returning(move |s| {
            let (a, rows, t) = parts(s);
            let mut p = pos;
            let more = t.top_down_pass(a, rows, &mut p, budget);
            (t.out.take(), more, p)
        });
        pos = p;
        ship(ctx, out, receive, outbox);
        if !more {
            break;
        }
        gossamer::yield_now();
    }
}

fn frontier(s: &mut TrusteeState) -> &Replica {
    state(s).search.bits.as_deref().expect("attached")
}

/// Writes this trustee's part of the frontier bitmap, which the trustees of
/// this process share, and publishes it to those of other processes.
fn exchange_bits(ctx: &TrusteeCtx) {
    let (a, b) = ctx.local.apply(|s| {
        let (a, _, t) = parts(s);
        t.own_bits(a)
    });
    replica::publish(ctx, a..b, frontier);
}

/// The per-trustee driver: levels until every trustee's frontier is empty.
fn run_trustee(mut ctx: TrusteeCtx, cfg: BfsConfig, n: u64, directed: bool) -> u32 {
    let advance = |s: &mut TrusteeState| {
        let (_, rows, t) = parts(s);
        t.advance(rows)
    };
    let mut stats = ctx.party.all_reduce(ctx.local.apply(advance), [Op::Sum; 3]);
    let mut bottom_up = false;
    let mut bu_levels = 0;
    let mut prev_nf = 0;
    while stats[0] > 0 {
        let [n_f, m_f, m_u] = stats;
        // Bottom-up needs in-edges (a vertex looks for a parent among its
        // in-neighbours); the rows of a directed graph are out-edges, so it
        // searches top-down only (see the module docs).
        if cfg.mode == BfsMode::DirectionOptimizing && !directed {
            if !bottom_up && m_f as f64 > m_u as f64 / cfg.alpha {
                bottom_up = true;
            } else if bottom_up && n_f < prev_nf && (n_f as f64) < n as f64 / cfg.beta {
                bottom_up = false;
            }
        }
        prev_nf = n_f;
        if bottom_up {
            bu_levels += 1;
            exchange_bits(&ctx);
            ctx.party.barrier();
            ctx.local.apply(|s| {
                let (_, rows, t) = parts(s);
                t.bottom_up(rows)
            });
        } else {
            top_down(&ctx, cfg.send_budget);
            ctx.party.barrier();
        }
        stats = ctx.party.all_reduce(ctx.local.apply(advance), [Op::Sum; 3]);
    }
    bu_levels
}

/// BFS from `root` over `graph`, from a fiber of the runtime that built the
/// graph. Returns [`KernelError::RootOutOfRange`] for a bad root and
/// [`KernelError::Config`] for bad `alpha` / `beta` / `send_budget`.
pub fn bfs(graph: &ShardedGraph, root: u64, cfg: &BfsConfig) -> Result<BfsOutput, KernelError> {
    graph.check_root(root)?;
    cfg.check()?;
    adjacency::prepare_search(graph, root, |s, a, root| {
        let entries = a.rows(s.shard()).num_entries();
        let t = state(s);
        if !t.adj.as_ref().is_some_and(|b| Arc::ptr_eq(b, &a)) {
            t.search.attach(&a);
        }
        t.search.reset(&a, entries, root);
        t.adj = Some(a);
    });
    let (cfg, n, directed) = (*cfg, graph.num_vertices(), graph.is_directed());
    let t0 = Instant::now();
    let bu = graph.on_trustees(move |ctx| run_trustee(ctx, cfg, n, directed));
    let kernel_time = t0.elapsed();
    let parent = gather_parents(graph, |s| {
        let (a, _, t) = parts(s);
        (a, &t.parent)
    });
    let level = graph
        .gather(-1i32, |s| {
            let (a, _, t) = parts(s);
            a.by_local(|v| t.depth[v as usize])
        })
        .into_iter()
        .map(i64::from)
        .collect();
    Ok(BfsOutput {
        parent,
        level,
        kernel_time,
        bottom_up_levels: bu.into_iter().max().unwrap_or(0),
    })
}
