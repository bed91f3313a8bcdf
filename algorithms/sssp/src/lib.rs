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
//! 0.0005-0.002 is best on a quiet machine; the default, [`DEFAULT_DELTA`],
//! is taken from that range (see `results/kernels/delta.md`, run D).
//! Any positive normal Δ works ([`check_delta`]): the buckets near the current
//! one are a fixed ring and the later ones a sparse map, so memory does not
//! grow with `max distance / Δ`.
//!
//! # As delegated kernels
//!
//! Each trustee owns its vertices' `d` (f32), parents and buckets in its
//! [`TrusteeState`] property (type `Trustee` here). The adjacency is
//! graph-kernel's [`Adjacency`], prepared once per graph (not timed) and
//! shared with every other kernel: every target renamed to a *flat* id (by
//! owner, then decreasing degree) so no partition arithmetic is left in the
//! inner loop. This kernel keeps its own [`LightHeavy`] view of it: parallel
//! edges merged to their minimum weight, each row split into light then heavy
//! entries for its Δ; with [`SsspConfig::in_place`] (what `gossamer-graph`
//! runs) the split lives inside the shard itself, renamed and reordered row
//! by row, so the rows cost no memory beyond the graph. One fiber per trustee
//! drives the rounds:
//!
//! - **Relaxing** a vertex's edges: a target owned by the same trustee is
//!   relaxed directly on local state (the *local shortcut*); a target owned by
//!   another trustee becomes a [`Relax`] record `(position at the owner,
//!   distance, parent)` in the trustee's [`Outbox`]. After each pass the
//!   batches are shipped as POD slices in slot-sized pieces to a delegated
//!   closure on the owner that applies the whole batch: never one request per
//!   edge. A sender remembers the best distance it sent for each remote
//!   vertex and sends only improvements, in one `f32` array over all flat
//!   ids beside its own vertices' distances. In a rack job whose trustees
//!   would hold more in those arrays than the graph itself (several ranks
//!   of several trustees, more than 4 x edgefactor trustees in all: 16 GiB
//!   per rank at SCALE 27 on 12 ranks x 32 threads), each trustee keeps
//!   only its rank's vertices and the trustees of a rank share one
//!   [`Filter`] for the other ranks' vertices (1.8 GiB per rank there).
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
//! state is reset with a few `fill`s. The tunables besides Δ (the work of a
//! pass, the work of an epoch) are fields of [`SsspConfig`] with measured
//! defaults.
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

use std::sync::Arc;
use std::time::{Duration, Instant};

use gossamer::Op;

mod buckets;
use buckets::{Buckets, MAX_BUCKET, NO_BUCKET};

use graph_core::alloc::vec_or_exit;
use graph_core::sharded::{KernelError, ShardedGraph, TrusteeCtx, TrusteeState};
use graph_kernel::adjacency::{self, gather_parents, Adjacency, LightHeavy, NO_FLAT};
use graph_kernel::outbox::{ship, Outbox};
use graph_kernel::Filter;

/// Δ used by [`SsspConfig::default`]: the middle of the flat optimum
/// (0.0005-0.002) of the sweep on Graph500 graphs at SCALE 18-22 with 2
/// threads on a quiet machine, one process and 2 ranks alike
/// (`results/kernels/delta.md`, run D; 0.005, chosen under load 4-5, was
/// 15-32% slower). The one place the number is written:
/// the CLI's `--delta` default (and its help), its error hints and
/// [`check_delta`]'s messages take it from here.
pub const DEFAULT_DELTA: f32 = 0.001;

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

/// Work units charged per record queued for another trustee.
const RECORD_COST: usize = 4;

/// Settings of one SSSP run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SsspConfig {
    /// Bucket width Δ (positive, finite, normal: see [`check_delta`]); edges
    /// with `w <= delta` are light. Default [`DEFAULT_DELTA`].
    pub delta: f32,
    /// Work units (entries scanned, plus 4 per record queued for another
    /// trustee) after which a pass stops so the fiber ships its records and
    /// lets the worker serve the others: a long pass would keep another
    /// trustee waiting for its records. Default 16 Ki.
    pub pass_budget: usize,
    /// Entries scanned (all trustees together) an epoch may hold before the
    /// window of buckets stops growing. 16 K / 64 K / 256 K / 1 M give
    /// 105 / 72 / 48 / 39 rounds per SCALE 18 search with the same scans (the
    /// window grows only in the shrinking tail); 256 K and up were fastest
    /// (`results/kernels/delta.md`). Default 256 Ki.
    pub epoch_work: u64,
    /// Split the rows inside the graph's own shards instead of a copy (8 B
    /// per entry, about a third of the peak at Graph500 sizes; see
    /// [`Adjacency::light_heavy`]). The graph then serves SSSP, BFS, CC,
    /// PageRank and the Graph500 validation only: bc, tc, programs run
    /// with `graph_kernel::run` and saving prepared shards refuse it
    /// ([`ShardedGraph::check_global_ids`]). Shards mapped from a file are
    /// copied anyway. Default false; `gossamer-graph` sets it.
    pub in_place: bool,
}

impl Default for SsspConfig {
    fn default() -> Self {
        SsspConfig {
            delta: DEFAULT_DELTA,
            pass_budget: 16 * 1024,
            epoch_work: 256 * 1024,
            in_place: false,
        }
    }
}

impl SsspConfig {
    /// The defaults with bucket width `delta`.
    ///
    /// ```
    /// let c = sssp::SsspConfig::with_delta(0.01);
    /// assert_eq!((c.delta, c.pass_budget), (0.01, sssp::SsspConfig::default().pass_budget));
    /// ```
    pub fn with_delta(delta: f32) -> Self {
        SsspConfig {
            delta,
            ..Default::default()
        }
    }

    /// Checks the settings; the error says which is wrong and what to give.
    fn check(&self) -> Result<(), KernelError> {
        if let Err(why) = check_delta(self.delta) {
            let d = self.delta;
            // As typed for tiny or huge values (1e-40, not 0.0000...0001).
            let shown = if d.is_finite() && d != 0.0 && !(1e-4..1e9).contains(&d.abs()) {
                format!("{d:e}")
            } else {
                d.to_string()
            };
            return Err(KernelError::Config(format!("delta = {shown}: {why}")));
        }
        if self.pass_budget == 0 || self.epoch_work == 0 {
            return Err(KernelError::Config(format!(
                "pass_budget = {}, epoch_work = {}: both must be at least 1 (defaults 16384 and 262144)",
                self.pass_budget, self.epoch_work
            )));
        }
        Ok(())
    }
}

/// Result of one SSSP run, indexed by global vertex id.
#[derive(Clone, Debug, PartialEq)]
pub struct SsspOutput {
    /// Shortest distance from the root (`f32`), `+inf` when unreached.
    pub dist: Vec<f32>,
    /// Parent in the shortest-path tree (the root is its own parent),
    /// [`NO_PARENT`](graph_core::validate::NO_PARENT) when unreached.
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
    /// `parent`", where `v` is the vertex's position at its owner and
    /// `parent` the parent's flat id (see [`Adjacency`]). 12 bytes, no
    /// padding.
    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    pub struct Relax { pub v: u32, pub dist: f32, pub parent: u32 }
}

/// One trustee's kernel state: the shared adjacency, this kernel's
/// light/heavy split of it, the rank's filter of sent distances, and the
/// search.
#[derive(Default)]
struct Trustee {
    adj: Option<Arc<Adjacency>>,
    split: Option<LightHeavy>,
    sent: Option<Arc<Filter>>,
    search: Search,
}

/// Per-root state of one trustee, by position (see [`Adjacency`]).
///
/// Every flat id has a *bound*: the distance its owner will end with is at
/// most that. `best[f - lo]` holds it for flat ids `lo..lo + best.len()`:
/// an own vertex's tentative distance, another trustee's vertex's best
/// distance sent to it. That is every flat id (`lo = 0`) unless the rank
/// shares a [`Filter`] (`sent`, passed in; see [`use_filter`]): then it
/// holds this rank's flat ids and the filter the other ranks' (the best
/// distance any trustee of the rank sent). A relaxation `d + w` that does
/// not beat the bound cannot improve anything; one random access per edge.
#[derive(Default)]
struct Search {
    inv_delta: f32,
    best: Vec<f32>,
    /// First flat id of this rank; `own_at`: the index in `best` of own
    /// position 0.
    lo: u32,
    own_at: usize,
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
    out: Outbox<Relax>,
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

impl Search {
    /// Sizes the state for `a` (first search on this graph).
    fn attach(&mut self, a: &Adjacency, sent: Option<&Filter>) {
        let n = a.num_own() as usize;
        let local = sent.map_or(0..a.num_flat(), |f| f.local());
        self.lo = local.start;
        self.own_at = (a.flat(0) - local.start) as usize;
        self.best = vec_or_exit(local.len(), f32::INFINITY, "SSSP distances");
        self.parent = vec_or_exit(n, NO_FLAT, "SSSP parents");
        self.light_done = vec_or_exit(n, f32::NAN, "SSSP relaxation marks");
        self.heavy_done = vec_or_exit(n, f32::NAN, "SSSP relaxation marks");
        self.out = Outbox::new(a.num_trustees());
    }

    /// Clears per-root state (and this trustee's share of the rank's
    /// filter) and seeds the root (a position) if it is ours.
    fn reset(&mut self, a: &Adjacency, sent: Option<&Filter>, delta: f32, root: Option<u32>) {
        self.inv_delta = 1.0 / delta;
        self.best.fill(f32::INFINITY);
        if let Some(f) = sent {
            f.reset_share(a);
        }
        self.parent.fill(NO_FLAT);
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
            self.best[self.own_at + r as usize] = 0.0;
            self.parent[r as usize] = a.flat(r);
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

    /// Own position `v`'s tentative distance.
    #[inline(always)]
    fn dist(&self, v: u32) -> f32 {
        self.best[self.own_at + v as usize]
    }

    /// Relaxation of own position `v` to `d` via flat `parent`.
    #[inline(always)]
    fn relax_local(&mut self, v: u32, d: f32, parent: u32) {
        let c = self.own_at + v as usize;
        if d < self.best[c] {
            self.best[c] = d;
            self.parent[v as usize] = parent;
            self.push(v, d);
        }
    }

    /// Relaxes `entries` of own vertex with flat id `g` at distance `d`.
    /// Returns the number of records queued for other trustees.
    ///
    /// Two steps per group of 64 entries: first a branch-free scan that only
    /// compares `d + w` with the target's bound (independent loads, so the
    /// CPU overlaps their cache misses), then the few entries that beat it
    /// are applied. `SHARED`: the rank shares a filter (see [`Search`]).
    #[inline(always)]
    fn relax_range<const SHARED: bool>(
        &mut self,
        a: &Adjacency,
        sent: Option<&Filter>,
        targets: &[u32],
        weights: &[f32],
        d: f32,
        g: u32,
    ) -> usize {
        let mut queued = 0;
        for (ts, ws) in targets.chunks(64).zip(weights.chunks(64)) {
            let mut mask = 0u64;
            match sent.filter(|_| SHARED) {
                None => {
                    for (k, (&f, &w)) in ts.iter().zip(ws).enumerate() {
                        mask |= u64::from(d + w < self.best[f as usize]) << k;
                    }
                }
                Some(sent) => {
                    // Both bounds are loaded (clamped indices) and one is
                    // picked: no branch on where the target lives.
                    let (lo, own) = (self.lo, &self.best[..]);
                    for (k, (&f, &w)) in ts.iter().zip(ws).enumerate() {
                        let i = f.wrapping_sub(lo) as usize;
                        let near = own[i.min(own.len() - 1)];
                        let far = sent.get_clamped(f);
                        let b = if i < own.len() { near } else { far };
                        mask |= u64::from(d + w < b) << k;
                    }
                }
            }
            while mask != 0 {
                let k = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                queued += self.relax_entry::<SHARED>(a, sent, ts[k], ws[k], d, g);
            }
        }
        queued
    }

    /// Relaxes one entry of own vertex `g` at distance `d`; returns 1 when a
    /// record was queued for another trustee.
    #[inline(always)]
    fn relax_entry<const SHARED: bool>(
        &mut self,
        a: &Adjacency,
        sent: Option<&Filter>,
        f: u32,
        w: f32,
        d: f32,
        g: u32,
    ) -> usize {
        let nd = d + w;
        if !SHARED {
            // Every flat id has its bound here (`lo = 0`).
            let c = f as usize;
            if nd >= self.best[c] {
                return 0;
            }
            self.best[c] = nd;
        } else {
            match self.best.get_mut(f.wrapping_sub(self.lo) as usize) {
                Some(b) if nd < *b => *b = nd,
                Some(_) => return 0,
                None => match sent {
                    Some(sent) if nd < sent.get(f) => sent.lower(f, nd),
                    _ => return 0,
                },
            }
        }
        if let Some(v) = a.own(f) {
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
            let (o, v) = a.locate(f);
            self.out.push(
                o,
                Relax {
                    v,
                    dist: nd,
                    parent: g,
                },
            );
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
    fn light_pass<const SHARED: bool>(
        &mut self,
        a: &Adjacency,
        rows: Split<'_>,
        k: u64,
        mut budget: usize,
    ) -> bool {
        let sent = rows.sent;
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
            let r = rows.lh.light(v);
            let work = r.len();
            let q = self.relax_range::<SHARED>(
                a,
                sent,
                &rows.targets[r.clone()],
                &rows.weights[r],
                d,
                a.flat(v),
            );
            self.scanned += work as u64;
            budget = budget.saturating_sub(work + 1 + RECORD_COST * q);
            if budget == 0 {
                return true;
            }
        }
    }

    /// Heavy phase: relaxes the heavy edges of the settled vertices.
    fn heavy_pass<const SHARED: bool>(
        &mut self,
        a: &Adjacency,
        rows: Split<'_>,
        mut budget: usize,
    ) -> bool {
        let sent = rows.sent;
        while let Some(v) = self.settled.pop() {
            let i = v as usize;
            let d = self.dist(v);
            if self.heavy_done[i] == d {
                continue;
            }
            self.heavy_done[i] = d;
            let r = rows.lh.heavy(v);
            let work = r.len();
            let q = self.relax_range::<SHARED>(
                a,
                sent,
                &rows.targets[r.clone()],
                &rows.weights[r],
                d,
                a.flat(v),
            );
            self.scanned += work as u64;
            budget = budget.saturating_sub(work + 1 + RECORD_COST * q);
            if budget == 0 {
                return true;
            }
        }
        false
    }

    /// Works through the buckets of the epoch in increasing order: the light
    /// phase of the smallest non-empty one, then the heavy phase of what it
    /// settled. Returns false when no bucket of the epoch has work here; true
    /// after a bucket is done or `budget` is spent (the caller ships the
    /// records, yields so incoming records land, and calls again).
    fn epoch_pass(&mut self, a: &Adjacency, rows: Split<'_>, budget: usize) -> bool {
        // One copy of the passes per kind of bounds, so the whole-array one
        // has no choice left in its inner loops.
        if rows.sent.is_some() {
            self.epoch_pass_as::<true>(a, rows, budget)
        } else {
            self.epoch_pass_as::<false>(a, rows, budget)
        }
    }

    fn epoch_pass_as<const SHARED: bool>(
        &mut self,
        a: &Adjacency,
        rows: Split<'_>,
        budget: usize,
    ) -> bool {
        if !self.active {
            let b = self.buckets.first_from(self.epoch);
            if b >= self.epoch_end {
                return false;
            }
            self.cur = b;
            self.active = true;
            self.heavy = false;
        }
        if !self.heavy {
            if self.light_pass::<SHARED>(a, rows, self.cur, budget) {
                return true;
            }
            self.heavy = true;
        }
        if self.heavy_pass::<SHARED>(a, rows, budget) {
            return true;
        }
        self.active = false;
        true
    }
}

/// Whether this rank's trustees share a [`Filter`] for the other ranks'
/// vertices (and each keeps bounds for its own rank's only): where one
/// array over every vertex per trustee would outweigh the graph, see
/// [`graph_core::memory::sssp_shares_bounds`]. Every trustee of the job
/// decides alike (the filter's reset is split between them).
fn use_filter(a: &Adjacency, vertices: u64, edges: u64) -> bool {
    let w = a.num_trustees();
    let t = graph_kernel::filter::process_trustees(w).len().max(1);
    graph_core::memory::sssp_shares_bounds(vertices, edges, (w / t) as u64, t as u64)
}

/// The split rows with the arrays they index (the shard's, or a copy), and
/// the rank's filter of sent distances.
#[derive(Clone, Copy)]
struct Split<'a> {
    lh: &'a LightHeavy,
    targets: &'a [u32],
    weights: &'a [f32],
    sent: Option<&'a Filter>,
}

/// The kernel state of `s` (empty if the kernel never ran there).
#[inline(always)]
fn state(s: &mut TrusteeState) -> &mut Trustee {
    s.kernel::<Trustee>(|_| Trustee::default()).1
}

fn outbox(s: &mut TrusteeState) -> &mut Outbox<Relax> {
    &mut state(s).search.out
}

/// Applies a batch of relaxations on the owner (delegated closure body).
fn receive(s: &mut TrusteeState, recs: &[Relax]) {
    let t = state(s);
    for r in recs {
        t.search.relax_local(r.v, r.dist, r.parent);
    }
}

/// Runs passes until the local part of the epoch is done, shipping the
/// records of each pass and yielding between passes so the worker sends
/// batches and applies incoming ones.
fn phase(ctx: &TrusteeCtx, budget: usize) {
    loop {
        let (out, more) = ctx.local.apply_returning(move |s| {
            let (shard, t) = s.kernel::<Trustee>(|_| Trustee::default());
            let (a, lh) = (t.adj.as_deref(), t.split.as_ref());
            let (a, lh) = (a.expect("attached"), lh.expect("split"));
            let sent = t.sent.as_deref();
            let (targets, weights) = lh.arrays(shard);
            let rows = Split {
                lh,
                targets,
                weights,
                sent,
            };
            let more = t.search.epoch_pass(a, rows, budget);
            (t.search.out.take(), more)
        });
        ship(ctx, out, receive, outbox);
        if !more {
            break;
        }
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
/// per epoch) while an epoch holds under [`SsspConfig::epoch_work`] entries, so a round is
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
fn run_trustee(mut ctx: TrusteeCtx, cfg: SsspConfig) -> u64 {
    let mine = ctx.local.apply(|s| state(s).search.buckets.first_from(0));
    let mut k = ctx.party.min(mine);
    let mut rounds = 1;
    let mut window = 1usize;
    let mut at_start = 0u64;
    let mut last_per_bucket = 0u64;
    while k != NO_BUCKET {
        let b = k;
        ctx.local.apply(move |s| {
            let t = &mut state(s).search;
            t.epoch = b;
            t.epoch_end = b.saturating_add(window as u64);
            // Every record of the epoch lands at or after `b`.
            t.buckets.advance(b);
        });
        loop {
            phase(&ctx, cfg.pass_budget);
            let report = ctx.local.apply(move |s| {
                let t = &mut state(s).search;
                let first = t.buckets.first_from(b);
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
                    (cfg.epoch_work / per_bucket.max(1)).clamp(1, 2 * window as u64) as usize
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

/// Delta-stepping SSSP from `root` over `graph`, from a fiber of the runtime
/// that built the graph. Returns [`KernelError::RootOutOfRange`] for a bad root
/// and [`KernelError::Config`] for a bad setting (Δ, budgets).
pub fn sssp(graph: &ShardedGraph, root: u64, cfg: &SsspConfig) -> Result<SsspOutput, KernelError> {
    graph.check_root(root)?;
    cfg.check()?;
    let (cfg, delta, in_place) = (*cfg, cfg.delta, cfg.in_place);
    if in_place {
        graph.mark_rows_rewritten("SSSP");
    }
    // The adjacency (prepared by the first kernel on this graph), its split
    // (first run, or new Δ) and the reset, on every trustee.
    let (vertices, edges) = (graph.partition().num_vertices(), graph.num_edges_input());
    adjacency::prepare_search(graph, root, move |s, a, root| {
        let lh = match state(s).split.take() {
            Some(mut lh) if state(s).adj.as_ref().is_some_and(|b| Arc::ptr_eq(b, &a)) => {
                if lh.delta() != delta {
                    lh.resplit(s.shard_mut(), delta);
                }
                lh
            }
            _ => {
                let t = state(s);
                t.sent = use_filter(&a, vertices, edges).then(|| Filter::shared(&a, "sssp.sent"));
                t.search.attach(&a, t.sent.as_deref());
                a.light_heavy(s.shard_mut(), delta, in_place)
            }
        };
        let t = state(s);
        t.search.reset(&a, t.sent.as_deref(), delta, root);
        (t.adj, t.split) = (Some(a), Some(lh));
    });
    let t0 = Instant::now();
    let rounds = graph.on_trustees(move |ctx| run_trustee(ctx, cfg));
    let kernel_time = t0.elapsed();
    let scanned = graph
        .on_trustees(|ctx| ctx.local.apply(|s| state(s).search.scanned))
        .into_iter()
        .sum();
    let dist = graph.gather(f32::INFINITY, |s| {
        let t = state(s);
        let a = t.adj.as_deref().expect("attached");
        a.by_local(|v| t.search.dist(v))
    });
    let parent = gather_parents(graph, |s| {
        let t = state(s);
        (t.adj.as_deref().expect("attached"), &t.search.parent)
    });
    Ok(SsspOutput {
        dist,
        parent,
        kernel_time,
        rounds: rounds.into_iter().max().unwrap_or(0),
        scanned,
    })
}
