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
//! # As delegated kernels
//!
//! Each trustee owns its vertices' parents and depths and its part of the
//! frontier in its [`TrusteeState`] property (type `Trustee` here), together
//! with a kernel-ready adjacency built on the first run (not timed): parallel
//! edges merged, each neighbour renamed to a *flat* id (`base[owner] + local
//! index`, bases 64-aligned). One fiber per trustee drives the levels:
//!
//! - **top-down**: an unvisited neighbour owned by the same trustee is claimed
//!   directly (local shortcut); one owned elsewhere becomes a [`Visit`] record
//!   `(local index, parent)` appended to the owner's batch, sent as a POD slice
//!   and applied by a delegated closure on the owner (first claim wins); a
//!   sender sends at most one visit per remote vertex per search (a bitmap);
//! - **bottom-up**: needs "is `u` in the frontier?" for every neighbour `u`, so
//!   before such a level every trustee sends its words of the frontier bitmap
//!   over flat ids (POD slices) to every other trustee; the step itself is
//!   then purely local;
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

use gossamer::Op;
use graph_core::memory::{reserve_or_exit, vec_or_exit};
use graph_core::sharded::{KernelError, ShardedGraph, TrusteeCtx, TrusteeState};
use graph_core::validate::NO_PARENT;
use graph_core::{Partition, Shard};

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
}

impl Default for BfsConfig {
    fn default() -> Self {
        BfsConfig {
            mode: BfsMode::DirectionOptimizing,
            alpha: 15.0,
            beta: 18.0,
        }
    }
}

/// Result of one BFS run, indexed by global vertex id.
#[derive(Clone, Debug, PartialEq)]
pub struct BfsOutput {
    /// Parent in the BFS tree (the root is its own parent), [`NO_PARENT`]
    /// when unreached.
    pub parent: Vec<u64>,
    /// Depth (root 0), `-1` when unreached.
    pub level: Vec<i64>,
    /// Time of the search (excludes preparing the adjacency and gathering).
    pub kernel_time: Duration,
    /// Levels run bottom-up (statistics).
    pub bottom_up_levels: u32,
}

gossamer::pod_struct! {
    /// A top-down visit sent to the owner of a vertex: "`v` (local index at its
    /// owner) is reached from `parent`" (the parent's flat id: trustee base +
    /// local index, see the kernel state). 8 bytes.
    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    pub struct Visit { pub v: u32, pub parent: u32 }
}

/// Parent marker of an unvisited vertex in per-trustee state.
const NONE: u32 = u32::MAX;
/// Outgoing visits buffered before the fiber stops to send them.
const SEND_BUDGET: usize = 16 * 1024;
/// Bitmap words per bitmap message (fits a 64 KiB slot).
const BITS_PIECE: usize = 4096;

/// Kernel-ready adjacency and per-root state of one trustee.
///
/// Vertices are named by *flat* ids: trustee `o`'s local vertex `l` is
/// `base[o] + l`, where each `base[o]` is a multiple of 64, so every trustee's
/// vertices fill whole words of a bitmap over flat ids. This trustee's own
/// vertices are `lo..lo + n`.
#[derive(Default)]
struct Trustee {
    partition: Option<Partition>,
    /// Degree order: `rank[o][l]` is the flat offset of trustee `o`'s local
    /// vertex `l` (its position by decreasing degree); only the own entry is
    /// kept after preparing.
    rank: Vec<Vec<u32>>,
    /// Global id of every flat id (for parents).
    global_of: Vec<u32>,
    me: usize,
    base: Vec<u32>,
    lo: u32,
    /// Entries of local vertex `l`: `start[l]..start[l + 1]`, flat target ids
    /// (parallel edges merged).
    start: Vec<u64>,
    adj: Vec<u32>,
    /// Flat id of each own vertex's parent.
    parent: Vec<u32>,
    depth: Vec<i32>,
    /// Depth of the vertices being discovered in the current level.
    cur: i32,
    frontier: Vec<u32>,
    next: Vec<u32>,
    /// The current frontier of every trustee, as a bitmap over flat ids
    /// (own words built here, the others received before a bottom-up level).
    bits: Vec<u64>,
    /// Other trustees' vertices this trustee already sent a visit for during
    /// this search (a sender-side filter: the owner claimed them already).
    sent: Vec<u64>,
    /// Edges out of still-unvisited local vertices.
    unexplored: u64,
    out: Vec<Vec<Visit>>,
}

impl Trustee {
    /// First preparation step: this trustee's vertices by decreasing degree
    /// (the rank of each local vertex, to be sent to every trustee).
    fn prepare_order(shard: &Shard) -> (Self, Vec<u32>) {
        let p = *shard.partition();
        let n = shard.num_local_vertices() as u32;
        let mut by_degree: Vec<u32> = (0..n).collect();
        by_degree.sort_by_key(|&l| std::cmp::Reverse(shard.degree(u64::from(l))));
        let mut rank = vec![0u32; n as usize];
        for (r, &l) in by_degree.iter().enumerate() {
            rank[l as usize] = r as u32;
        }
        let t = Trustee {
            partition: Some(p),
            rank: (0..p.num_trustees()).map(|_| Vec::new()).collect(),
            ..Default::default()
        };
        (t, rank)
    }

    /// Second step, once every trustee's ranks arrived: flat ids in degree
    /// order, parallel edges merged, each row sorted by flat id. The hubs then
    /// come first in every row, which is where bottom-up finds a frontier
    /// neighbour soonest, and their frontier bits share a few cache lines.
    fn prepare_adjacency(&mut self, shard: &Shard) {
        let p = self.partition.expect("ordered");
        let n = shard.num_local_vertices() as usize;
        let mut acc = 0u32;
        let base: Vec<u32> = (0..p.num_trustees())
            .map(|o| {
                let b = acc;
                acc += (p.local_count(o) as u32).div_ceil(64) * 64;
                b
            })
            .collect();
        let me = shard.trustee() as usize;
        self.me = me;
        self.lo = base[me];
        self.global_of = vec_or_exit(acc as usize, 0, "BFS flat-id map");
        for (o, ranks) in self.rank.iter().enumerate() {
            for (l, &r) in ranks.iter().enumerate() {
                self.global_of[(base[o] + r) as usize] = p.global(o as u32, l as u64) as u32;
            }
        }
        let mut order = vec![0u32; n];
        for (l, &r) in self.rank[me].iter().enumerate() {
            order[r as usize] = l as u32;
        }
        self.start = Vec::new();
        reserve_or_exit(&mut self.start, n + 1, "BFS row offsets");
        self.start.push(0);
        // At most one entry per CSR entry: reserved once, not grown by doubling.
        reserve_or_exit(&mut self.adj, shard.num_entries() as usize, "BFS adjacency");
        let mut row: Vec<u32> = Vec::new();
        for &l in &order {
            row.clear();
            for &v in shard.adjacency(u64::from(l)).0 {
                let o = p.owner(u64::from(v));
                row.push(
                    base[o.trustee as usize] + self.rank[o.trustee as usize][o.local as usize],
                );
            }
            row.sort_unstable();
            row.dedup();
            self.adj.extend_from_slice(&row);
            self.start.push(self.adj.len() as u64);
        }
        for (o, r) in self.rank.iter_mut().enumerate() {
            if o != me {
                *r = Vec::new();
            }
        }
        self.parent = vec_or_exit(n, NONE, "BFS parents");
        self.depth = vec_or_exit(n, -1, "BFS depths");
        self.bits = vec_or_exit(acc as usize / 64, 0u64, "BFS frontier bits");
        self.sent = vec_or_exit(acc as usize / 64, 0u64, "BFS sent bits");
        self.out = (0..p.num_trustees()).map(|_| Vec::new()).collect();
        self.base = base;
    }

    fn degree(&self, l: u32) -> u64 {
        self.start[l as usize + 1] - self.start[l as usize]
    }

    /// Clears per-root state and seeds the root (original local index) if it
    /// is ours.
    fn reset(&mut self, root: Option<u32>) {
        let root = root.map(|l| self.rank[self.me][l as usize]);
        self.parent.fill(NONE);
        self.depth.fill(-1);
        self.sent.fill(0);
        self.frontier.clear();
        self.next.clear();
        self.cur = 0;
        self.unexplored = *self.start.last().unwrap_or(&0);
        if let Some(r) = root {
            self.parent[r as usize] = self.lo + r;
            self.depth[r as usize] = 0;
            self.next.push(r);
        }
    }

    #[inline(always)]
    fn claim(&mut self, v: u32, parent: u32) {
        let i = v as usize;
        if self.parent[i] == NONE {
            self.parent[i] = parent;
            self.depth[i] = self.cur;
            self.next.push(v);
        }
    }

    /// Owner trustee of flat id `f` (branch-free over the few trustees).
    #[inline(always)]
    fn owner_of(&self, f: u32) -> usize {
        self.base[1..].iter().map(|&b| (f >= b) as usize).sum()
    }

    /// Top-down over the frontier from position `*pos`, until `budget` visits
    /// are queued for other trustees. True when stopped early.
    fn top_down_pass(&mut self, pos: &mut usize, mut budget: usize) -> bool {
        let n = self.parent.len() as u32;
        while *pos < self.frontier.len() {
            let u = self.frontier[*pos] as usize;
            *pos += 1;
            let g = self.lo + u as u32;
            for j in self.start[u] as usize..self.start[u + 1] as usize {
                let f = self.adj[j];
                let v = f.wrapping_sub(self.lo);
                if v < n {
                    self.claim(v, g);
                } else {
                    let (w, bit) = ((f >> 6) as usize, 1u64 << (f & 63));
                    if self.sent[w] & bit == 0 {
                        self.sent[w] |= bit;
                        let o = self.owner_of(f);
                        self.out[o].push(Visit {
                            v: f - self.base[o],
                            parent: g,
                        });
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

    /// Bottom-up: every unvisited local vertex looks for a frontier neighbour.
    fn bottom_up(&mut self) {
        for v in 0..self.parent.len() {
            if self.parent[v] != NONE {
                continue;
            }
            for j in self.start[v] as usize..self.start[v + 1] as usize {
                let f = self.adj[j];
                if self.bits[(f >> 6) as usize] & (1u64 << (f & 63)) != 0 {
                    self.parent[v] = f;
                    self.depth[v] = self.cur;
                    self.next.push(v as u32);
                    break;
                }
            }
        }
    }

    /// Makes the discovered vertices the frontier and moves to the next depth
    /// (before the reduction that ends the level, so no visit of the next level
    /// can arrive first); returns `(n_f, m_f, m_u)`.
    fn advance(&mut self) -> [u64; 3] {
        self.cur += 1;
        std::mem::swap(&mut self.frontier, &mut self.next);
        self.next.clear();
        let m_f: u64 = self.frontier.iter().map(|&v| self.degree(v)).sum();
        self.unexplored -= m_f;
        [self.frontier.len() as u64, m_f, self.unexplored]
    }

    /// Builds this trustee's words of the frontier bitmap; returns a copy of
    /// them and the index of the first.
    fn own_bits(&mut self) -> (Vec<u64>, usize) {
        let first = (self.lo / 64) as usize;
        let words = &mut self.bits[first..first + self.parent.len().div_ceil(64)];
        words.fill(0);
        for &v in &self.frontier {
            words[(v >> 6) as usize] |= 1u64 << (v & 63);
        }
        (words.to_vec(), first)
    }

    /// Own parents as global ids (`NONE` when unreached), by (original) local
    /// index.
    fn parents(&self) -> Vec<u32> {
        self.rank[self.me]
            .iter()
            .map(|&r| match self.parent[r as usize] {
                NONE => NONE,
                f => self.global_of[f as usize],
            })
            .collect()
    }

    /// Own depths by (original) local index.
    fn depths(&self) -> Vec<i32> {
        self.rank[self.me]
            .iter()
            .map(|&r| self.depth[r as usize])
            .collect()
    }
}

#[inline(always)]
fn state(s: &mut TrusteeState) -> &mut Trustee {
    s.kernel::<Trustee>(|_| Trustee::default()).1
}

/// Applies a batch of top-down visits on the owner (delegated closure body).
fn receive(s: &mut TrusteeState, recs: &[Visit]) {
    let t = state(s);
    for r in recs {
        t.claim(r.v, r.parent);
    }
}

/// One top-down level: local passes, batches sent (applied by the next barrier).
fn top_down(ctx: &TrusteeCtx) {
    let mut pos = 0usize;
    loop {
        let (out, more, p) = ctx.local.apply_returning(move |s| {
            let t = state(s);
            let mut p = pos;
            let more = t.top_down_pass(&mut p, SEND_BUDGET);
            (std::mem::take(&mut t.out), more, p)
        });
        pos = p;
        for (o, recs) in out.iter().enumerate() {
            if !recs.is_empty() {
                ctx.peers[o].apply_slice_chunked_then(receive, recs, |()| {});
            }
        }
        ctx.local.apply_with(
            |s, mut out: Vec<Vec<Visit>>| {
                out.iter_mut().for_each(Vec::clear);
                state(s).out = out;
            },
            out,
        );
        if !more {
            break;
        }
        gossamer::yield_now();
    }
}

/// Sends this trustee's frontier bitmap words to every other trustee.
fn exchange_bits(ctx: &TrusteeCtx) {
    let (words, first) = ctx.local.apply_returning(|s| state(s).own_bits());
    for (o, peer) in ctx.peers.iter().enumerate() {
        if o == ctx.me as usize {
            continue;
        }
        for (i, piece) in words.chunks(BITS_PIECE).enumerate() {
            let at = first + i * BITS_PIECE;
            peer.apply_slice_then(
                move |s, w: &[u64]| state(s).bits[at..at + w.len()].copy_from_slice(w),
                piece,
                |()| {},
            );
        }
    }
}

/// The per-trustee driver: levels until every trustee's frontier is empty.
fn run_trustee(mut ctx: TrusteeCtx, cfg: BfsConfig, n: u64) -> u32 {
    let mut stats = ctx
        .party
        .all_reduce(ctx.local.apply(|s| state(s).advance()), [Op::Sum; 3]);
    let mut bottom_up = false;
    let mut bu_levels = 0;
    let mut prev_nf = 0;
    while stats[0] > 0 {
        let [n_f, m_f, m_u] = stats;
        if cfg.mode == BfsMode::DirectionOptimizing {
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
            ctx.local.apply(|s| state(s).bottom_up());
        } else {
            top_down(&ctx);
            ctx.party.barrier();
        }
        stats = ctx
            .party
            .all_reduce(ctx.local.apply(|s| state(s).advance()), [Op::Sum; 3]);
    }
    bu_levels
}

/// Builds the kernel-ready state on every trustee (a collective step: the
/// degree ranks travel to every trustee as POD slices).
fn prepare(ctx: &mut TrusteeCtx) {
    let ranks = ctx.local.apply_returning(|s| {
        let (shard, t) = s.kernel::<Trustee>(|_| Trustee::default());
        let (fresh, ranks) = Trustee::prepare_order(shard);
        *t = fresh;
        ranks
    });
    // Every trustee has its fresh state before any peer writes into it (in a
    // rack run the fibers on other ranks start later than the local ones).
    ctx.party.barrier();
    let me = ctx.me as usize;
    for peer in &ctx.peers {
        for (i, piece) in ranks.chunks(BITS_PIECE * 2).enumerate() {
            let at = i * BITS_PIECE * 2;
            peer.apply_slice_then(
                move |s, r: &[u32]| {
                    let own = &mut state(s).rank[me];
                    own.resize(own.len().max(at + r.len()), 0);
                    own[at..at + r.len()].copy_from_slice(r);
                },
                piece,
                |()| {},
            );
        }
    }
    gossamer::wait_outstanding();
    ctx.party.barrier();
    ctx.local.apply(|s| {
        let (shard, t) = s.kernel::<Trustee>(|_| Trustee::default());
        t.prepare_adjacency(shard);
    });
}

/// BFS from `root` over `graph`, from a fiber of the runtime that built the
/// graph. Returns [`KernelError::RootOutOfRange`] for a bad root and
/// [`KernelError::Config`] for bad `alpha` / `beta`.
pub fn bfs(graph: &ShardedGraph, root: u64, cfg: &BfsConfig) -> Result<BfsOutput, KernelError> {
    graph.check_root(root)?;
    if !(cfg.alpha > 0.0 && cfg.beta > 0.0) {
        return Err(KernelError::Config(format!(
            "alpha = {}, beta = {}: both must be positive (defaults 15 and 18)",
            cfg.alpha, cfg.beta
        )));
    }
    if graph.num_trustees() > usize::from(u16::MAX) {
        return Err(KernelError::Config(
            "BFS supports at most 65535 trustees".into(),
        ));
    }
    let owner = graph.partition().owner(root);
    graph.on_trustees(move |mut ctx| {
        let me = ctx.me;
        if ctx.local.apply(|s| state(s).partition.is_none()) {
            prepare(&mut ctx);
        }
        ctx.local.apply(move |s| {
            state(s).reset((owner.trustee == me).then_some(owner.local as u32));
        })
    });
    let (cfg, n) = (*cfg, graph.num_vertices());
    let t0 = Instant::now();
    let bu = graph.on_trustees(move |ctx| run_trustee(ctx, cfg, n));
    let kernel_time = t0.elapsed();
    let parent = graph
        .gather(NONE, |s| state(s).parents())
        .into_iter()
        .map(|p| if p == NONE { NO_PARENT } else { u64::from(p) })
        .collect();
    let level = graph
        .gather(-1i32, |s| state(s).depths())
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
