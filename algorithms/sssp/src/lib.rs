//! Delta-stepping single-source shortest paths as delegated kernels.
//!
//! # The algorithm (Meyer & Sanders, "Δ-stepping: a parallelizable shortest
//! path algorithm", J. Algorithms 2003)
//!
//! Tentative distances `d(v)` start at `+inf`, `d(root) = 0`. Vertices wait in
//! *buckets* of width Δ: vertex `v` is in bucket `⌊d(v)/Δ⌋`. Edges are *light*
//! (`w <= Δ`) or *heavy* (`w > Δ`). Buckets are emptied in increasing order:
//!
//! 1. take every vertex of the current bucket `k`, remember it in `R`, and relax
//!    its **light** edges: `d(u) <- min(d(u), d(v) + w)`. A light relaxation can
//!    land in bucket `k` again, so repeat until bucket `k` stays empty;
//! 2. then relax the **heavy** edges of all of `R` once: they can only land in
//!    later buckets, and `d(v)` of every vertex in `R` is now final;
//! 3. move on to the next non-empty bucket; stop when none is left.
//!
//! Δ trades work for parallel rounds: Δ -> 0 is Dijkstra (no wasted
//! relaxations, one round per distinct distance), Δ -> ∞ is Bellman-Ford. For
//! Graph500 weights (uniform in (0, 1], about 30 edges per vertex) a small Δ
//! wins, as in GAPBS: since sparse buckets share agreements (epochs, below)
//! 0.002-0.005 is best, with 10-25 % fewer scans than 0.01; the default,
//! [`DEFAULT_DELTA`], is taken from that range (see `results/kernels/delta.md`).
//! Any positive normal Δ works ([`check_delta`]): the buckets near the current
//! one are a fixed ring and the later ones a sparse map, so memory does not
//! grow with `max distance / Δ`.
//!
//! # As delegated kernels
//!
//! Each trustee owns its vertices' `d` (f32), parents and buckets in its
//! [`TrusteeState`] property (type `Trustee` here), together with a kernel-ready
//! copy of its adjacency built on the first run (not timed): parallel edges
//! merged to their minimum weight, each list split into light then heavy
//! entries, every target renamed to a *flat* id (`base[owner] + local index`)
//! so no partition arithmetic is left in the inner loop. One fiber per trustee
//! drives the rounds:
//!
//! - **Relaxing** a vertex's edges: a target owned by the same trustee is
//!   relaxed directly on local state (the *local shortcut*); a target owned by
//!   another trustee becomes a [`Relax`] record `(local index, distance,
//!   parent)` appended to that owner's outgoing batch. Batches travel as POD
//!   slices ([`gossamer::Trust::apply_slice_chunked_then`]) to a delegated closure on the
//!   owner that applies the whole batch: never one request per edge. A sender
//!   remembers the best distance it sent for each remote vertex and sends only
//!   improvements (one `f32` array over all flat ids holds both the own
//!   distances and these bounds).
//! - **Bucket fusion** (as in GAPBS): a local relaxation that lands in the
//!   current bucket is processed in the same pass (in FIFO waves), without a
//!   global round.
//! - **Agreement** goes through a [`gossamer::Collective`]: one all-reduce per
//!   iteration of an *epoch* (a window of buckets, usually one: see
//!   `run_trustee`): "the window still has work" (or) and "the next
//!   bucket" (min). The all-reduce is also a flush (requests between two
//!   workers run in issue order, and every party's contribution travels to
//!   every worker behind its record batches), so when it returns every record
//!   sent in the iteration has been applied; nobody waits for answers. Senders compute the owner's bucket of every record they
//!   send and include it, so a record that lands after its owner reported is
//!   still accounted for. The heavy edges of the settled vertices are relaxed
//!   right after the light pass, before that agreement (a speculation that
//!   saves a round per bucket; a late light record re-settles a vertex).
//!
//! Every relaxation is computed in `f32` as `d(v) + w`, so the result satisfies
//! the Graph500 validator's exact check `d(u) == d(parent(u)) + w`.
//!
//! Multiple roots run one after another on the same [`ShardedGraph`]: the
//! adjacency is prepared once (and re-split only when Δ changes); per-root
//! state is reset with a few `fill`s.
//!
//! ```
//! use graph_core::sharded::ShardedGraph;
//! use graph_core::{EdgeList, PackedEdge, PartitionKind};
//! let out = gossamer::main(2, || {
//!     let list = EdgeList::from_edges(4, vec![
//!         PackedEdge::new(0, 1, 0.5),
//!         PackedEdge::new(1, 2, 0.25),
//!         PackedEdge::new(0, 2, 1.0),
//!     ]).unwrap();
//!     let g = ShardedGraph::build(&list, PartitionKind::Cyclic).unwrap();
//!     sssp::sssp(&g, 0, &sssp::SsspConfig::default()).unwrap()
//! });
//! assert_eq!(out.dist, [0.0, 0.5, 0.75, f32::INFINITY]);
//! assert_eq!(out.parent[2], 1);
//! ```

use std::time::{Duration, Instant};

use gossamer::Op;

mod buckets;
use buckets::{Buckets, MAX_BUCKET, NO_BUCKET};

use graph_core::memory::{reserve_or_exit, vec_or_exit};
use graph_core::sharded::{KernelError, ShardedGraph, TrusteeCtx, TrusteeState};
use graph_core::validate::NO_PARENT;
use graph_core::{Partition, Shard};

/// Δ used by [`SsspConfig::default`]: the flat optimum (0.002-0.005) of the
/// sweep on Graph500 graphs at SCALE 16-22 with 2 threads
/// (`results/kernels/delta.md`, run C). The one place the number is written:
/// the CLI's `--delta` default (and its help), its error hints and
/// [`check_delta`]'s messages take it from here.
pub const DEFAULT_DELTA: f32 = 0.005;

/// Why `delta` cannot be a bucket width, or `Ok` when it can: it must be a
/// positive, finite, normal `f32` (so that `1/Δ` is finite). The reason is a
/// phrase to put after the value, e.g. `"delta = {d}: {reason}"`; it ends with
/// the default as an example. Every such Δ works, however small: the bucket
/// queue's memory does not depend on it (see the `buckets` module), only
/// the number of rounds does (Δ -> 0 is Dijkstra, one round per distance).
///
/// ```
/// assert!(sssp::check_delta(sssp::DEFAULT_DELTA).is_ok());
/// assert!(sssp::check_delta(1e-30).is_ok());
/// for bad in [0.0, -1.0, f32::NAN, f32::INFINITY, 1e-40] {
///     assert!(sssp::check_delta(bad).is_err());
/// }
/// ```
pub fn check_delta(delta: f32) -> Result<(), String> {
    let eg = format!("e.g. {DEFAULT_DELTA} (the default)");
    if delta.is_nan() {
        Err(format!(
            "not a number; give a positive bucket width in weight units, {eg}"
        ))
    } else if delta <= 0.0 {
        Err(format!("the bucket width must be positive, {eg}"))
    } else if delta.is_infinite() {
        Err(format!(
            "the bucket width must be finite (any width at or above the largest weight already makes every edge light), {eg}"
        ))
    } else if !delta.is_normal() || !(1.0 / delta).is_finite() {
        Err(format!(
            "too small: a width below {:e} (the smallest normal f32) has no finite reciprocal; {eg}",
            f32::MIN_POSITIVE
        ))
    } else {
        Ok(())
    }
}

/// Ranks per message while preparing (fits a 64 KiB slot).
const RANK_PIECE: usize = 8192;

/// Work units (edges scanned, plus a few per record queued) after which a pass
/// stops so the fiber sends its records and lets the worker serve the others:
/// a long pass would keep another trustee waiting for its records' answers.
const PASS_BUDGET: usize = 16 * 1024;
/// Entries scanned (all trustees together) an epoch may hold before the
/// window stops growing. 16 K / 64 K / 256 K / 1 M give 105 / 72 / 48 / 39
/// rounds per SCALE 18 search with the same scans (the window grows only in
/// the shrinking tail); 256 K and up were fastest (`results/kernels/delta.md`).
const EPOCH_WORK: u64 = 256 * 1024;
/// Work units charged per record queued for another trustee.
const RECORD_COST: usize = 4;

/// Settings of one SSSP run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SsspConfig {
    /// Bucket width Δ (positive, finite, normal: see [`check_delta`]); edges
    /// with `w <= delta` are light. Default [`DEFAULT_DELTA`].
    pub delta: f32,
}

impl Default for SsspConfig {
    fn default() -> Self {
        SsspConfig {
            delta: DEFAULT_DELTA,
        }
    }
}

/// Result of one SSSP run, indexed by global vertex id.
#[derive(Clone, Debug, PartialEq)]
pub struct SsspOutput {
    /// Shortest distance from the root (`f32`), `+inf` when unreached.
    pub dist: Vec<f32>,
    /// Parent in the shortest-path tree (the root is its own parent),
    /// [`NO_PARENT`] when unreached.
    pub parent: Vec<u64>,
    /// Time of the search itself: from the start of the rounds until every
    /// trustee agreed that no bucket is left (excludes preparing the adjacency
    /// and gathering the output).
    pub kernel_time: Duration,
    /// Agreements (all-reduce rounds) of the search (statistics).
    pub rounds: u64,
    /// Adjacency entries scanned by all trustees, light and heavy, including
    /// re-scans of vertices whose distance dropped again (statistics: the
    /// work; a Dijkstra order would scan each reached vertex's entries once).
    pub scanned: u64,
}

gossamer::pod_struct! {
    /// One relaxation sent to the owner of a vertex: "`d(v)` may be `dist`, via
    /// `parent`", where `v` is the vertex's local index at its owner and
    /// `parent` the parent's flat id (trustee base + local index; see the
    /// kernel state). 12 bytes, no padding.
    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    pub struct Relax { pub v: u32, pub dist: f32, pub parent: u32 }
}

/// Parent marker of an unreached vertex in per-trustee state.
const NONE: u32 = u32::MAX;

/// One adjacency entry: the target's flat id (see [`Trustee`]) and the weight.
#[derive(Clone, Copy, Default)]
struct Entry {
    f: u32,
    w: f32,
}

/// Kernel-ready adjacency and per-root state of one trustee.
///
/// Vertices are named by *flat* ids: trustee `o`'s local vertex `l` is
/// `base[o] + l`, so this trustee's own vertices are the range `lo..hi`.
/// `best[f]` is, for an own vertex, its tentative distance, and for another
/// trustee's vertex the best distance sent to its owner so far (a sender-side
/// filter: the owner's distance is at most that, so a record that does not
/// beat it cannot improve anything). One array, one random access per edge.
#[derive(Default)]
struct Trustee {
    partition: Option<Partition>,
    /// Degree order: `rank[o][l]` is the flat offset of trustee `o`'s local
    /// vertex `l` (its position by decreasing degree). Filled by the exchange
    /// in `prepare_order`; only the own entry is kept afterwards.
    rank: Vec<Vec<u32>>,
    /// Global id of every flat id (for parents).
    global_of: Vec<u32>,
    /// This trustee's index.
    me: usize,
    base: Vec<u32>,
    lo: u32,
    hi: u32,
    /// Entries of local vertex `l`: `start[l]..start[l + 1]`; light ones first,
    /// up to `split[l]`.
    start: Vec<u64>,
    split: Vec<u64>,
    adj: Vec<Entry>,
    /// Δ the light/heavy split was made for.
    delta: f32,
    inv_delta: f32,
    best: Vec<f32>,
    /// Flat id of each own vertex's parent.
    parent: Vec<u32>,
    /// Distance at which each vertex last relaxed its light / heavy edges.
    light_done: Vec<f32>,
    heavy_done: Vec<f32>,
    /// The bucket queue (memory independent of Δ and of the weights).
    buckets: Buckets,
    /// Vertices settled in the current bucket (`R`), for the heavy phase.
    settled: Vec<u32>,
    /// The wave of bucket `k` being relaxed, and the position in it.
    wave: Vec<u32>,
    cursor: usize,
    out: Vec<Vec<Relax>>,
    /// The bucket being processed, and whether its light phase is done (then
    /// the heavy phase of the settled vertices runs).
    cur: u64,
    active: bool,
    heavy: bool,
    /// The epoch: buckets `epoch..epoch_end` are processed between two
    /// agreements. Whether a record sent since the last agreement lands in the
    /// epoch; the smallest later bucket a record sent in this epoch lands in.
    epoch: u64,
    epoch_end: u64,
    sent_cur: bool,
    sent_min: u64,
    /// Entries scanned since the reset (statistics).
    scanned: u64,
}

impl Trustee {
    /// First preparation step: this trustee's vertices by decreasing degree.
    /// Returns the rank (flat offset) of each local vertex, to be sent to every
    /// other trustee.
    fn prepare_order(shard: &Shard) -> (Self, Vec<u32>) {
        let p: Partition = *shard.partition();
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

    /// Second step, once every trustee's ranks arrived: merges parallel edges
    /// (minimum weight), renames targets to flat ids, splits by `delta`.
    ///
    /// Flat ids follow decreasing degree within each trustee, so the distances
    /// of the hubs, which most edges lead to, share a few cache lines.
    fn prepare_adjacency(&mut self, shard: &Shard, delta: f32) {
        let p = self.partition.expect("ordered");
        let n = shard.num_local_vertices() as usize;
        let mut acc = 0u32;
        let base: Vec<u32> = (0..p.num_trustees())
            .map(|o| {
                let b = acc;
                acc += p.local_count(o) as u32;
                b
            })
            .collect();
        let me = shard.trustee() as usize;
        self.me = me;
        self.lo = base[me];
        self.hi = base[me] + n as u32;
        self.global_of = vec_or_exit(acc as usize, 0, "SSSP flat-id map");
        for (o, ranks) in self.rank.iter().enumerate() {
            for (l, &r) in ranks.iter().enumerate() {
                self.global_of[(base[o] + r) as usize] = p.global(o as u32, l as u64) as u32;
            }
        }
        // Rows in flat (degree) order.
        let mut order = vec![0u32; n];
        for (l, &r) in self.rank[me].iter().enumerate() {
            order[r as usize] = l as u32;
        }
        self.start = Vec::new();
        reserve_or_exit(&mut self.start, n + 1, "SSSP row offsets");
        self.start.push(0);
        // At most one entry per CSR entry: reserved once, not grown by doubling.
        reserve_or_exit(
            &mut self.adj,
            shard.num_entries() as usize,
            "SSSP adjacency",
        );
        let mut row: Vec<Entry> = Vec::new();
        for &l in &order {
            row.clear();
            for (v, w) in shard.neighbors(u64::from(l)) {
                let o = p.owner(u64::from(v));
                let f = base[o.trustee as usize] + self.rank[o.trustee as usize][o.local as usize];
                row.push(Entry { f, w });
            }
            // By flat id (hubs first, ascending addresses), lightest duplicate first.
            row.sort_unstable_by(|a, b| a.f.cmp(&b.f).then(a.w.total_cmp(&b.w)));
            row.dedup_by_key(|e| e.f);
            self.adj.extend_from_slice(&row);
            self.start.push(self.adj.len() as u64);
        }
        for (o, r) in self.rank.iter_mut().enumerate() {
            if o != me {
                *r = Vec::new();
            }
        }
        self.split = vec_or_exit(n, 0, "SSSP light/heavy split");
        self.resplit(delta);
        self.best = vec_or_exit(acc as usize, f32::INFINITY, "SSSP distances");
        self.parent = vec_or_exit(n, NONE, "SSSP parents");
        self.light_done = vec_or_exit(n, f32::NAN, "SSSP relaxation marks");
        self.heavy_done = vec_or_exit(n, f32::NAN, "SSSP relaxation marks");
        self.out = (0..p.num_trustees()).map(|_| Vec::new()).collect();
        self.base = base;
    }

    /// Orders each vertex's entries light first for bucket width `delta`.
    fn resplit(&mut self, delta: f32) {
        for l in 0..self.split.len() {
            let (a, b) = (self.start[l] as usize, self.start[l + 1] as usize);
            // Stable: both parts keep their ascending flat order.
            let row = &mut self.adj[a..b];
            row.sort_by_key(|e| e.w > delta);
            let i = row.partition_point(|e| e.w <= delta);
            self.split[l] = (a + i) as u64;
        }
        self.delta = delta;
        self.inv_delta = 1.0 / delta;
    }

    /// Clears per-root state and seeds the root (original local index) if it
    /// is ours.
    fn reset(&mut self, root: Option<u32>) {
        let root = root.map(|l| self.rank[self.me][l as usize]);
        self.best.fill(f32::INFINITY);
        self.parent.fill(NONE);
        self.light_done.fill(f32::NAN);
        self.heavy_done.fill(f32::NAN);
        self.buckets.clear();
        self.settled.clear();
        self.wave.clear();
        self.cursor = 0;
        self.cur = 0;
        self.active = false;
        self.heavy = false;
        self.epoch = 0;
        self.epoch_end = 0;
        self.sent_cur = false;
        self.sent_min = NO_BUCKET;
        self.scanned = 0;
        if let Some(r) = root {
            self.best[(self.lo + r) as usize] = 0.0;
            self.parent[r as usize] = self.lo + r;
            self.push(r, 0.0);
        }
    }

    #[inline(always)]
    fn bucket_of(&self, d: f32) -> u64 {
        // Sender and owner compute it the same way, so a sender knows which
        // bucket its record will land in. The cast saturates (a huge d/Δ, or
        // +inf, gives u64::MAX) and the cap keeps clear of NO_BUCKET: the
        // index never overflows and stays monotone in `d`, whatever Δ and
        // the weights are.
        ((d * self.inv_delta) as u64).min(MAX_BUCKET)
    }

    #[inline(always)]
    fn push(&mut self, v: u32, d: f32) {
        let b = self.bucket_of(d);
        self.buckets.push(b, v);
    }

    #[inline(always)]
    fn dist(&self, v: u32) -> f32 {
        self.best[(self.lo + v) as usize]
    }

    /// Relaxation of own vertex `v` (local index) to `d` via flat `parent`.
    #[inline(always)]
    fn relax_local(&mut self, v: u32, d: f32, parent: u32) {
        let c = (self.lo + v) as usize;
        if d < self.best[c] {
            self.best[c] = d;
            self.parent[v as usize] = parent;
            self.push(v, d);
        }
    }

    /// Owner trustee of flat id `f` (branch-free over the few trustees).
    #[inline(always)]
    fn owner_of(&self, f: u32) -> usize {
        self.base[1..].iter().map(|&b| (f >= b) as usize).sum()
    }

    /// Relaxes entries `a..b` of own vertex with flat id `g` at distance `d`.
    /// Returns the number of records queued for other trustees.
    ///
    /// Two steps per group of 64 entries: first a branch-free scan that only
    /// compares `d + w` with `best` (independent loads, so the CPU overlaps
    /// their cache misses), then the few improving entries are applied.
    #[inline(always)]
    fn relax_range(&mut self, a: usize, b: usize, d: f32, g: u32) -> usize {
        let mut queued = 0;
        let mut j = a;
        while j < b {
            let end = (j + 64).min(b);
            let mut mask = 0u64;
            for (k, e) in self.adj[j..end].iter().enumerate() {
                mask |= u64::from(d + e.w < self.best[e.f as usize]) << k;
            }
            while mask != 0 {
                let e = self.adj[j + mask.trailing_zeros() as usize];
                mask &= mask - 1;
                queued += self.relax_entry(e, d, g);
            }
            j = end;
        }
        queued
    }

    /// Relaxes one entry of own vertex `g` at distance `d`; returns 1 when a
    /// record was queued for another trustee.
    #[inline(always)]
    fn relax_entry(&mut self, e: Entry, d: f32, g: u32) -> usize {
        let nd = d + e.w;
        let c = e.f as usize;
        if nd >= self.best[c] {
            return 0;
        }
        self.best[c] = nd;
        if e.f.wrapping_sub(self.lo) < self.hi - self.lo {
            let v = e.f - self.lo;
            self.parent[v as usize] = g;
            self.push(v, nd);
            0
        } else {
            let bk = self.bucket_of(nd);
            if bk < self.epoch_end {
                self.sent_cur = true;
            } else {
                self.sent_min = self.sent_min.min(bk);
            }
            let o = self.owner_of(e.f);
            self.out[o].push(Relax {
                v: e.f - self.base[o],
                dist: nd,
                parent: g,
            });
            1
        }
    }

    /// Light phase: drains bucket `k` (including what lands back in it) until
    /// `budget` work units are spent. True when stopped early.
    ///
    /// The bucket is taken in generations (FIFO by waves): the vertices present
    /// now are relaxed, and what lands in bucket `k` meanwhile forms the next
    /// wave. Popping one vertex at a time (LIFO) would chase fresh, not yet
    /// final distances depth-first and relax the same vertices over and over.
    fn light_pass(&mut self, k: u64, mut budget: usize) -> bool {
        loop {
            if self.cursor >= self.wave.len() {
                self.wave.clear();
                self.cursor = 0;
                if !self.buckets.take(k, &mut self.wave) {
                    return false;
                }
            }
            let v = self.wave[self.cursor];
            self.cursor += 1;
            let i = v as usize;
            let d = self.dist(v);
            // Stale (moved to a lower bucket) or already relaxed at this distance.
            if self.bucket_of(d) != k || self.light_done[i] == d {
                continue;
            }
            self.settled.push(v);
            self.light_done[i] = d;
            let (a, s) = (self.start[i] as usize, self.split[i] as usize);
            let q = self.relax_range(a, s, d, self.lo + v);
            self.scanned += (s - a) as u64;
            budget = budget.saturating_sub(s - a + 1 + RECORD_COST * q);
            if budget == 0 {
                return true;
            }
        }
    }

    /// Heavy phase: relaxes the heavy edges of the settled vertices.
    fn heavy_pass(&mut self, mut budget: usize) -> bool {
        while let Some(v) = self.settled.pop() {
            let i = v as usize;
            let d = self.dist(v);
            if self.heavy_done[i] == d {
                continue;
            }
            self.heavy_done[i] = d;
            let (s, b) = (self.split[i] as usize, self.start[i + 1] as usize);
            let q = self.relax_range(s, b, d, self.lo + v);
            self.scanned += (b - s) as u64;
            budget = budget.saturating_sub(b - s + 1 + RECORD_COST * q);
            if budget == 0 {
                return true;
            }
        }
        false
    }

    /// Works through the buckets of the epoch in increasing order: the light
    /// phase of the smallest non-empty one, then the heavy phase of what it
    /// settled. Returns false when no bucket of the epoch has work here; true
    /// after a bucket is done or `budget` is spent (the caller sends the
    /// records, yields so incoming records land, and calls again).
    fn epoch_pass(&mut self, budget: usize) -> bool {
        if !self.active {
            let b = self.min_bucket_from(self.epoch);
            if b >= self.epoch_end {
                return false;
            }
            self.cur = b;
            self.active = true;
            self.heavy = false;
        }
        if !self.heavy {
            if self.light_pass(self.cur, budget) {
                return true;
            }
            self.heavy = true;
        }
        if self.heavy_pass(budget) {
            return true;
        }
        self.active = false;
        true
    }

    /// Smallest non-empty bucket at or after `k`.
    fn min_bucket_from(&self, k: u64) -> u64 {
        self.buckets.first_from(k)
    }

    /// Own distances, by (original) local index.
    fn distances(&self) -> Vec<f32> {
        let me = self.me;
        self.rank[me]
            .iter()
            .map(|&r| self.best[(self.lo + r) as usize])
            .collect()
    }

    /// Own parents as global ids (`NONE` when unreached), by local index.
    fn parents(&self) -> Vec<u32> {
        let me = self.me;
        self.rank[me]
            .iter()
            .map(|&r| match self.parent[r as usize] {
                NONE => NONE,
                f => self.global_of[f as usize],
            })
            .collect()
    }
}

/// The kernel state of `s` (empty if the kernel never ran there).
#[inline(always)]
fn state(s: &mut TrusteeState) -> &mut Trustee {
    s.kernel::<Trustee>(|_| Trustee::default()).1
}

/// Applies a batch of relaxations on the owner (delegated closure body).
fn receive(s: &mut TrusteeState, recs: &[Relax]) {
    let t = state(s);
    for r in recs {
        t.relax_local(r.v, r.dist, r.parent);
    }
}

/// Runs one phase pass on the local state and sends the queued records.
/// Returns whether the pass stopped early (more to do) and whether it sent.
fn pass(ctx: &TrusteeCtx) -> bool {
    let (out, more) = ctx.local.apply_returning(move |s| {
        let t = state(s);
        let more = t.epoch_pass(PASS_BUDGET);
        (std::mem::take(&mut t.out), more)
    });
    for (o, recs) in out.iter().enumerate() {
        if !recs.is_empty() {
            ctx.peers[o].apply_slice_chunked_then(receive, recs, |()| {});
        }
    }
    // Give the (cleared) buffers back for reuse.
    ctx.local.apply_with(
        |s, mut out: Vec<Vec<Relax>>| {
            out.iter_mut().for_each(Vec::clear);
            state(s).out = out;
        },
        out,
    );
    more
}

/// Runs passes until the local part of the epoch is done, yielding between
/// passes so the worker sends batches and applies incoming ones.
fn phase(ctx: &TrusteeCtx) {
    while pass(ctx) {
        gossamer::yield_now();
    }
}

/// The per-trustee driver: epochs of buckets until every trustee agrees none
/// is left. Returns the number of collective rounds.
///
/// An *epoch* is a window of buckets `k..k + window` processed between two
/// agreements. Inside it, each trustee takes its smallest non-empty bucket of
/// the window, relaxes its light edges until its part of the bucket is empty,
/// then at once the heavy edges of the vertices it settled, and moves on to
/// the next non-empty bucket of the window (yielding in between, so records
/// from the others land first). When its part of the window is empty it meets
/// the others at one all-reduce of "the window still has work here" (Or),
/// "the next bucket here" (Min) and the entries scanned so far (Sum).
///
/// Both shortcuts are speculations that a late record from another trustee
/// can undo (the vertex it lowers is then settled, and its edges relaxed,
/// again): relaxing heavy edges before the agreement saves a round per
/// bucket; processing bucket `k + 1` before the others finished bucket `k`
/// saves the rounds of a window. The result is exact either way: this is a
/// label-correcting search, and it ends only at the fixpoint.
///
/// The window is 1 (Meyer & Sanders' one agreement per bucket) while the work
/// per bucket grows; in the long tail of a Graph500 search, where most of the
/// 100-200 buckets hold a few hundred edges each, it grows (at most doubling
/// per epoch) while an epoch holds under [`EPOCH_WORK`] entries, so a round is
/// paid per chunk of work instead of per nearly empty bucket. Every trustee
/// computes the same window from the reduced counts.
///
/// When the all-reduce returns, every record sent before it has been applied
/// (it is a flush, see [`gossamer::Collective`]), but a record from another
/// trustee may land after this trustee computed what it reports. So
/// senders report where their records land (they compute the owner's bucket
/// index exactly): "the window has work" also when a record was sent into it,
/// and the next bucket is the minimum of the local minima and of the buckets
/// the records went to.
fn run_trustee(mut ctx: TrusteeCtx) -> u64 {
    let mine = ctx.local.apply(|s| state(s).min_bucket_from(0));
    let mut k = ctx.party.min(mine);
    let mut rounds = 1;
    let mut window = 1usize;
    let mut at_start = 0u64;
    let mut last_per_bucket = 0u64;
    while k != NO_BUCKET {
        let b = k;
        ctx.local.apply(move |s| {
            let t = state(s);
            t.epoch = b;
            t.epoch_end = b.saturating_add(window as u64);
            // Every record of the epoch lands at or after `b`.
            t.buckets.advance(b);
        });
        loop {
            phase(&ctx);
            let report = ctx.local.apply(move |s| {
                let t = state(s);
                let first = t.min_bucket_from(b);
                let busy = t.sent_cur || first < t.epoch_end;
                let next = first.min(t.sent_min);
                t.sent_cur = false;
                t.sent_min = NO_BUCKET;
                [busy as u64, next, t.scanned]
            });
            let [busy, next, scanned] = ctx.party.all_reduce(report, [Op::Or, Op::Min, Op::Sum]);
            rounds += 1;
            if busy == 0 {
                k = next;
                let per_bucket = (scanned - at_start) / window as u64;
                at_start = scanned;
                window = if per_bucket <= last_per_bucket {
                    (EPOCH_WORK / per_bucket.max(1)).clamp(1, 2 * window as u64) as usize
                } else {
                    1
                };
                last_per_bucket = per_bucket;
                break;
            }
        }
    }
    rounds
}

/// Builds the kernel-ready state on every trustee (a collective step: the
/// degree ranks travel to every trustee as POD slices).
fn prepare(ctx: &mut TrusteeCtx, delta: f32) {
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
        for (i, piece) in ranks.chunks(RANK_PIECE).enumerate() {
            let at = i * RANK_PIECE;
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
    ctx.local.apply(move |s| {
        let (shard, t) = s.kernel::<Trustee>(|_| Trustee::default());
        t.prepare_adjacency(shard, delta);
    });
}

/// Delta-stepping SSSP from `root` over `graph`, from a fiber of the runtime
/// that built the graph. Returns [`KernelError::RootOutOfRange`] for a bad root
/// and [`KernelError::Config`] for a bad Δ.
pub fn sssp(graph: &ShardedGraph, root: u64, cfg: &SsspConfig) -> Result<SsspOutput, KernelError> {
    graph.check_root(root)?;
    if let Err(why) = check_delta(cfg.delta) {
        let d = cfg.delta;
        // As typed for tiny or huge values (1e-40, not 0.0000...0001).
        let shown = if d.is_finite() && d != 0.0 && !(1e-4..1e9).contains(&d.abs()) {
            format!("{d:e}")
        } else {
            d.to_string()
        };
        return Err(KernelError::Config(format!("delta = {shown}: {why}")));
    }
    if graph.num_trustees() > usize::from(u16::MAX) {
        return Err(KernelError::Config(
            "SSSP supports at most 65535 trustees".into(),
        ));
    }
    let delta = cfg.delta;
    let owner = graph.partition().owner(root);
    // Prepare (first run, or new Δ) and reset, on every trustee.
    graph.on_trustees(move |mut ctx| {
        let me = ctx.me;
        let fresh = ctx.local.apply(|s| state(s).partition.is_none());
        if fresh {
            prepare(&mut ctx, delta);
        }
        ctx.local.apply(move |s| {
            let t = state(s);
            if t.delta != delta {
                t.resplit(delta);
            }
            t.reset((owner.trustee == me).then_some(owner.local as u32));
        })
    });
    let t0 = Instant::now();
    let rounds = graph.on_trustees(run_trustee);
    let kernel_time = t0.elapsed();
    let scanned = graph
        .on_trustees(|ctx| ctx.local.apply(|s| state(s).scanned))
        .into_iter()
        .sum();
    let dist = graph.gather(f32::INFINITY, |s| state(s).distances());
    let parent32 = graph.gather(NONE, |s| state(s).parents());
    let parent = parent32
        .into_iter()
        .map(|p| if p == NONE { NO_PARENT } else { u64::from(p) })
        .collect();
    Ok(SsspOutput {
        dist,
        parent,
        kernel_time,
        rounds: rounds.into_iter().max().unwrap_or(0),
        scanned,
    })
}
