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
//! 0.0005-0.002 is best on a quiet machine ([`DEFAULT_DELTA`] is taken from
//! that range; see `results/kernels/delta.md`, run D). Other weights want
//! other widths (a road grid with lengths 1..1000: about 100), so the
//! default for a graph is derived from it:
//! **Δ = max(w_min, w_max / d²)**, its smallest and largest entry weight
//! and its entries per vertex ([`WeightProfile`], [`derived_delta`]; run E
//! of `delta.md` measures it on Graph500, road-like and unit-weight
//! graphs). The kernel itself takes the Δ it is given ([`SsspConfig`]).
//! Any positive normal Δ works ([`check_delta`]): the buckets near the current
//! one are a fixed ring and the later ones a sparse map, so memory does not
//! grow with `max distance / Δ`.
//!
//! # In graph-kernel's one shape
//!
//! Each trustee's [`Program`] state holds its vertices' parents and
//! relaxation marks by position in graph-kernel's renumbered adjacency
//! (every target a *flat* id: no partition arithmetic in the inner loop),
//! its [`LightHeavy`] split of the weighted rows (parallel edges merged to
//! their minimum weight, each row light entries first; with
//! [`SsspConfig::in_place`], what `gossamer-graph` runs, inside the shard
//! itself, so the rows cost no memory beyond the graph), its bucket queue,
//! and its [`Bounds`]: each own vertex's tentative distance and the best
//! distance already sent to every other vertex, so a relaxation that
//! cannot improve anything is dropped at the sender (the trustees of a
//! rank share one filter for the other ranks' vertices where whole arrays
//! would outweigh the graph).
//!
//! The kernel orders its own work, so it runs in
//! [`passes`](graph_kernel::Kernel::passes): each relaxes a bounded amount
//! (own targets at once, others queued as [`Relax`] records that the
//! driver ships between passes and [`Program::receive`] applies on the
//! owner), and the driver yields between passes so that records from the
//! others land.
//!
//! - **Bucket fusion** (as in GAPBS): a local relaxation that lands in the
//!   current bucket is processed in the same pass (in FIFO waves), without
//!   a global round.
//! - **Agreement**: one all-reduce per iteration of an *epoch* (a window of
//!   buckets, usually one: see `search`): "the window still has work"
//!   (or) and "the next bucket" (min). The all-reduce is also a flush, so
//!   when it returns every record of the iteration has been applied;
//!   senders compute the owner's bucket of every record they send and
//!   report it, so a record that lands after its owner reported is still
//!   accounted for.
//! - **No heavy phase**: a vertex taken from its bucket relaxes its whole
//!   row at once, light entries and heavy ones (as GAPBS, which has no
//!   split), instead of the heavy ones after the bucket: a speculation
//!   that a vertex lowered again within its bucket (by a light edge or a
//!   late record) pays for with a second scan of its row. The separate
//!   phase re-read every row of a bucket after the whole bucket, and a
//!   wide bucket (Δ 500 on a road grid) no longer was in the cache by
//!   then: one thread's search there took 20 % longer at Δ 500 than at
//!   Δ 100 for 1 % more entries scanned (`results/kernels/road.md`).
//!   Buckets hold each vertex with the distance it was queued at, so an
//!   entry whose vertex has gone lower since is stale, with no mark of
//!   what was relaxed.
//!
//! - **Prefetching**: a bucket's vertices are scattered (a road grid's
//!   are a ring around the root), so a pass asks the cache for what the
//!   wave's next vertices will read (their row words, bounds and rows, their
//!   first targets' bounds and parents:
//!   [`LightHeavy::prefetch_ahead`]) while it relaxes the current one; one
//!   thread on a 2048 x 2048 grid took 0.33 s a search instead of 0.59 s.
//!
//! Every relaxation is computed in `f32` as `d(v) + w`, so the result
//! satisfies the Graph500 validator's exact check `d(u) == d(parent(u)) + w`.
//! Roots run one after another on the same graph: the split is made once
//! (and again only when Δ changes); per-root state is reset with `fill`s.
//! Once a search's answer is gathered, its bounds and parents are freed
//! (and its bucket queue holds nothing by then), so that the validation
//! after it does not sit beside them; they are made again before the next
//! search's clock starts.
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
use buckets::{Buckets, Window, MAX_BUCKET, NO_BUCKET};
mod delta;
pub use delta::derived_delta;
pub use graph_core::sharded::WeightProfile;

use graph_core::alloc::{huge_vec_or_exit, refill};
use graph_core::sharded::{KernelError, ShardedGraph};
use graph_kernel::adjacency::NO_FLAT;
use graph_kernel::{gather, gather_flat, run, update_states, Bounds, LightHeavy, Local};
use graph_kernel::{Prepare, Program, RowsFormat, Sender, Setup};

/// Δ for Graph500 weights, used by [`SsspConfig::default`]: the middle of
/// the flat optimum (0.0005-0.002) of the sweep on Graph500 graphs at
/// SCALE 18-22 with 2 threads on a quiet machine, one process and 2 ranks
/// alike (`results/kernels/delta.md`, run D; 0.005, chosen under load 4-5,
/// was 15-32% slower). The one place the number is written: the CLI's
/// `graph500 --delta` default (and its help), the error hints,
/// [`check_delta`]'s messages and [`derived_delta`]'s fallback take it
/// from here. `gossamer-graph sssp` derives its default from the graph
/// instead ([`derived_delta`]), which gives about this value on Graph500
/// graphs.
pub const DEFAULT_DELTA: f32 = 0.001;

/// Why `delta` cannot be a bucket width, or `Ok` when it can: it must be a
/// positive, finite, normal `f32` (so that `1/Δ` is finite). The reason is a
/// phrase to put after the value, e.g. `"delta = {d}: {reason}"`; it ends with
/// [`DEFAULT_DELTA`] as an example. Every such Δ works, however small: the bucket
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
    LightHeavy::check_width(delta)
        .map_err(|why| format!("{why}, e.g. {DEFAULT_DELTA} (the default for Graph500 weights)"))
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
    /// [`Adjacency::light_heavy`](graph_kernel::adjacency::Adjacency::light_heavy)).
    /// Every kernel still runs on the graph afterwards (graph-kernel builds
    /// its rows from the renamed ids); saving prepared shards refuses it
    /// ([`ShardedGraph::check_global_ids`]). Shards mapped from a file are
    /// copied anyway. Default false; `gossamer-graph` sets it.
    pub in_place: bool,
    /// How the split keeps its targets with [`in_place`](Self::in_place):
    /// [`RowsFormat::Compressed`] takes them out of the shard as
    /// byte-coded differences (about 2 B an entry instead of 4 on
    /// Kronecker graphs; the weights stay in the shard), the same answers
    /// ([`Adjacency::light_heavy_compressed`](graph_kernel::adjacency::Adjacency::light_heavy_compressed):
    /// such a graph then runs SSSP at its first Δ only). Default plain.
    pub rows: RowsFormat,
}

impl Default for SsspConfig {
    fn default() -> Self {
        SsspConfig {
            delta: DEFAULT_DELTA,
            pass_budget: 16 * 1024,
            epoch_work: 256 * 1024,
            in_place: false,
            rows: RowsFormat::Plain,
        }
    }
}

impl SsspConfig {
    /// Checks the settings; the error says which is wrong and what to give.
    fn check(&self) -> Result<(), KernelError> {
        let why = match check_delta(self.delta) {
            Err(why) => format!("delta = {:?}: {why}", self.delta),
            Ok(()) if self.pass_budget == 0 || self.epoch_work == 0 => format!(
                "pass_budget = {}, epoch_work = {}: both must be at least 1 (defaults 16384 and 262144)",
                self.pass_budget, self.epoch_work
            ),
            Ok(()) => return Ok(()),
        };
        Err(KernelError::Config(why))
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
    /// Time of the search with its per-root reset, until every trustee
    /// agreed that no bucket is left (excludes what is made once per graph
    /// and Δ: the adjacency, the rows split at Δ, this kernel's arrays; and
    /// gathering the output).
    pub kernel_time: Duration,
    /// Agreements (all-reduce rounds) of the search (statistics).
    pub rounds: u64,
    /// Adjacency entries scanned by all trustees, light and heavy, including
    /// re-scans of vertices whose distance dropped again (statistics: the
    /// work; a Dijkstra order would scan each reached vertex's entries once).
    pub scanned: u64,
}

gossamer::pod_struct! {
    /// One relaxation on its way to the owner of a vertex: "its distance
    /// may be `dist`, via `parent`" (the parent's flat id). 8 bytes.
    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    pub struct Relax { pub dist: f32, pub parent: u32 }
}

/// One trustee's state: what a pass reads beside the search, and the search.
struct Sssp {
    rows: Rows,
    s: Search,
}

/// The rows split at Δ and the bounds (own tentative distances, best
/// distances sent).
struct Rows {
    lh: LightHeavy,
    bounds: Bounds,
}

/// Where a pass sends its relaxations.
type Out<'l> = Sender<'l, Sssp>;

/// Per-root state of one trustee, by position.
#[derive(Default)]
struct Search {
    inv_delta: f32,
    /// Flat id of each own vertex's parent.
    parent: Vec<u32>,
    /// Own vertices with the distance each was queued at: an entry whose
    /// vertex has a lower distance since is stale (each distance a vertex
    /// takes is queued once, so no mark says what was relaxed).
    buckets: Buckets<(u32, f32)>,
    /// The wave of the bucket being relaxed, and the position in it.
    wave: Vec<(u32, f32)>,
    cursor: usize,
    /// The bucket being processed.
    cur: Option<u64>,
    /// The epoch's buckets `epoch..epoch_end`, and the least bucket a
    /// record sent since the last agreement lands in.
    epoch: u64,
    epoch_end: u64,
    sent_min: u64,
    /// Entries scanned since the reset (statistics).
    scanned: u64,
}

impl Program for Sssp {
    type Msg = Relax;

    #[inline(always)]
    fn receive(&mut self, v: u32, r: Relax) -> bool {
        let d = self.rows.bounds.own_mut(v);
        if r.dist < *d {
            *d = r.dist;
            self.s.parent[v as usize] = r.parent;
            self.s.push(v, r.dist);
        }
        false
    }
}

impl Search {
    fn reset(&mut self, n: usize, delta: f32) {
        refill(&mut self.parent, n, NO_FLAT, "SSSP parents");
        self.buckets.clear();
        self.wave.clear();
        (self.inv_delta, self.cursor, self.cur, self.epoch) = (1.0 / delta, 0, None, 0);
        (self.epoch_end, self.sent_min, self.scanned) = (0, NO_BUCKET, 0);
    }

    #[inline(always)]
    fn bucket_of(&self, d: f32) -> u64 {
        // Sender and owner compute it alike, so a sender knows where its
        // record lands. The cast saturates and the cap keeps clear of
        // NO_BUCKET: monotone in `d` whatever Δ and the weights are.
        ((d * self.inv_delta) as u64).min(MAX_BUCKET)
    }

    #[inline(always)]
    fn push(&mut self, v: u32, d: f32) {
        self.buckets.push(self.bucket_of(d), (v, d));
    }

    /// Relaxes the entries of own vertex `v`, light and heavy; returns the
    /// work done (entries, and 4 per record queued for another trustee).
    #[inline(always)]
    fn relax(&mut self, r: &mut Rows, out: &mut Out, v: u32, d: f32) -> usize {
        let a = out.adjacency();
        let (targets, weights) = r.lh.read_row(out.shard(), v);
        let (g, mut work) = (a.flat(v), 1 + targets.len());
        self.scanned += targets.len() as u64;
        r.bounds.relax_row(targets, weights, d, |f, x| {
            if let Some(u) = a.own(f) {
                self.parent[u as usize] = g;
                return self.push(u, x);
            }
            self.sent_min = self.sent_min.min(self.bucket_of(x));
            out.send_remote(f, Relax { dist: x, parent: g });
            work += RECORD_COST;
        });
        work
    }

    /// Asks the cache for what the wave's vertices after `i` will read
    /// ([`LightHeavy::prefetch_ahead`]), and for the parents of the
    /// first targets of the one 4 ahead.
    #[inline(always)]
    fn prefetch(&self, r: &Rows, out: &Out, i: usize) {
        let next = |k: usize| self.wave.get(i + k).map(|e| e.0);
        r.lh.prefetch_ahead(out.shard(), &r.bounds, next, |f| {
            if let Some(u) = out.adjacency().own(f) {
                graph_core::csr::prefetch_line(&self.parent[u as usize]);
            }
        });
    }

    /// Works on the smallest non-empty bucket `k` of the epoch until
    /// `budget` is spent (true) or no bucket of the epoch has work here
    /// (false), in FIFO waves of what lands back in it (LIFO would chase
    /// fresh distances depth-first); each vertex relaxes its whole row at
    /// once (see the module docs: no heavy phase).
    fn epoch_pass(&mut self, r: &mut Rows, out: &mut Out, mut budget: usize) -> bool {
        let k = self
            .cur
            .unwrap_or_else(|| self.buckets.first_from(self.epoch));
        if k >= self.epoch_end {
            return false;
        }
        self.cur = Some(k);
        loop {
            if self.cursor >= self.wave.len() {
                (self.cursor, self.cur) = (0, None);
                self.wave.clear();
                if !self.buckets.take(k, &mut self.wave) {
                    return true;
                }
                self.cur = Some(k);
            }
            let (v, d) = self.wave[self.cursor];
            self.prefetch(r, out, self.cursor);
            self.cursor += 1;
            // Stale: the vertex has a lower distance (queued again).
            if r.bounds.own(v) == d {
                budget = budget.saturating_sub(self.relax(r, out, v, d));
                if budget == 0 {
                    return true;
                }
            }
        }
    }
}

/// One pass of the epoch on this trustee.
fn pass(l: &mut Local<'_, Sssp>, budget: usize) -> bool {
    let (Sssp { rows, s }, mut out) = l.split();
    s.epoch_pass(rows, &mut out, budget)
}

/// Delta-stepping SSSP from `root` over `graph`, from a fiber of the runtime
/// that built the graph. Returns [`KernelError::RootOutOfRange`] for a bad root
/// and [`KernelError::Config`] for a bad setting (Δ, budgets).
///
/// The search runs in *epochs*, windows of buckets `k..k + window`
/// processed between two agreements: each trustee works through its
/// non-empty buckets of the window (whole rows, until its part of a bucket
/// is empty), then all meet at one all-reduce of "the window still has
/// work here" (or), "the next bucket here" (min) and the entries scanned
/// (sum). Relaxing heavy entries at once is a speculation a later record
/// can undo (the vertex is relaxed again);
/// the result is exact either way, as the search ends only at the
/// fixpoint. The window is 1 (one agreement per bucket) while the work per
/// bucket grows; in the long tail, where most buckets hold a few hundred
/// edges, it grows (at most doubling) while an epoch holds under
/// [`SsspConfig::epoch_work`] entries.
pub fn sssp(graph: &ShardedGraph, root: u64, cfg: &SsspConfig) -> Result<SsspOutput, KernelError> {
    graph.check_root(root)?;
    cfg.check()?;
    let (cfg, delta, edges) = (*cfg, cfg.delta, graph.num_edges_input());
    if cfg.in_place {
        graph.mark_rows_rewritten("SSSP");
    }
    graph_kernel::prepare(graph, Prepare::Renumbering);
    // The state and the rows split at Δ, once per graph and Δ, before the clock.
    let make = move |s: &mut Setup<'_>, old: Option<Sssp>| {
        let a = s.adjacency().clone();
        let mut st = old.unwrap_or_else(|| Sssp {
            rows: Rows {
                bounds: Bounds::for_graph(&a, edges, "sssp.sent"),
                lh: a.light_heavy_with(s.shard_mut(), delta, cfg.in_place, cfg.rows),
            },
            s: Search::default(),
        });
        st.rows.lh.resplit(s.shard_mut(), delta);
        // What the last search's gathering freed, made again before the clock.
        st.rows.bounds.restore();
        let n = a.num_own() as usize;
        if st.s.parent.len() != n {
            st.s.parent = huge_vec_or_exit(n, NO_FLAT, "SSSP parents");
        }
        st
    };
    run(graph, make, |_| ());
    let t0 = Instant::now();
    let per = run(
        graph,
        move |s, old: Option<Sssp>| {
            let (a, mut st) = (s.adjacency().clone(), make(s, old));
            st.rows.bounds.reset(&a);
            st.s.reset(a.num_own() as usize, delta);
            if let Some(r) = s.position_of(root) {
                *st.rows.bounds.own_mut(r) = 0.0;
                st.s.parent[r as usize] = a.flat(r);
                st.s.push(r, 0.0);
            }
            st
        },
        move |k| {
            let mine = k.with(|l| l.state().s.buckets.first_from(0));
            let (mut b, mut window) = (k.min(mine), Window::new(cfg.epoch_work));
            while b != NO_BUCKET {
                let width = window.width;
                k.with(move |l| {
                    let s = &mut l.state().s;
                    (s.epoch, s.epoch_end) = (b, b.saturating_add(width));
                    // Every record of the epoch lands at or after `b`.
                    s.buckets.advance(b);
                });
                loop {
                    k.passes(move |l| pass(l, cfg.pass_budget));
                    let report = k.with(move |l| {
                        let s = &mut l.state().s;
                        // The epoch has work while a bucket in it, here or
                        // where a record went, is not empty.
                        let next = s.buckets.first_from(b).min(s.sent_min);
                        s.sent_min = NO_BUCKET;
                        [(next < s.epoch_end) as u64, next, s.scanned]
                    });
                    let [busy, next, scanned] = k.reduce(report, [Op::Or, Op::Min, Op::Sum]);
                    if busy == 0 {
                        b = next;
                        window.end_epoch(scanned);
                        break;
                    }
                }
            }
            (k.rounds(), window.at_start)
        },
    );
    let kernel_time = t0.elapsed();
    // Each array is freed once gathered (and made again before the next
    // search's clock): the bounds and parents (8 B per vertex per trustee
    // and 4 B per own vertex) would otherwise sit beside the answer and its
    // validation, the peak of a run.
    let dist = gather(graph, f32::INFINITY, |st: &Sssp, v| st.rows.bounds.own(v))?;
    update_states(graph, |st: &mut Sssp| st.rows.bounds.release());
    let parent = gather_flat(graph, |st: &Sssp| &st.s.parent[..])?;
    // And given back to the system in every process (glibc keeps arrays
    // under 32 MiB in its heaps otherwise: SCALE 22 and below).
    update_states(graph, |st: &mut Sssp| {
        st.s.parent = Vec::new();
        graph_core::alloc::give_back_freed();
    });
    Ok(SsspOutput {
        dist,
        parent,
        kernel_time,
        rounds: per.iter().map(|p| p.0).max().unwrap_or(0),
        scanned: per[0].1,
    })
}
