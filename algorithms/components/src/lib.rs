//! Connected components of an undirected graph (weakly connected components
//! of a directed one), as a graph-kernel [`Program`].
//!
//! # The algorithm (Sutton, Ben-Nun & Barak, "Optimizing Parallel Graph
//! Connectivity Computation via Subgraph Sampling", IPDPS 2018: Afforest)
//!
//! Components are kept as a forest over the vertices, `comp[v]` being `v`'s
//! parent; a root is its own parent and names its tree. Parents only ever
//! point to smaller ids (a root is *hooked* under a smaller vertex), so the
//! forest has no cycles, and *compressing* (`comp[v] = comp[comp[v]]` until
//! `comp[v]` is a root) flattens every tree to a star. *Linking* an edge
//! (Afforest's `Link`) walks up from both ends until the larger root can be
//! hooked under the smaller vertex. Afforest's idea is that most of the work
//! of union-find is wasted on the one giant component that real graphs have:
//!
//! 1. **sampling**: link only the first `neighbor_rounds` neighbours of
//!    every vertex (Afforest's default is 2; 1 measured faster here, see
//!    [`CcConfig`]), then compress. On a skewed graph that already joins most
//!    of the giant component (the first neighbours are hubs);
//! 2. **finding the largest**: the most frequent root among a few sampled
//!    vertices is the giant component's, `c`;
//! 3. **finishing**: link the remaining neighbours of every vertex *not* in
//!    `c`, then compress. An edge with both ends in `c` needs nothing; one
//!    with an end outside `c` is seen from that end. Most edges are never
//!    read.
//!
//! Every root is then the smallest vertex of its component, and so is every
//! vertex's label, as [`cc_sequential`] gives it.
//!
//! On a **directed** graph the components are the *weakly* connected ones
//! (arcs taken as undirected edges). The rows hold each arc once, at its
//! tail, and linking is symmetric, so linking every row's entries joins
//! the ends of every arc. Step 3 then also links the *in*-neighbours of
//! every vertex outside `c` (graph-kernel's in-rows, as GAPBS does): an arc
//! from a vertex of `c` to one outside sits only in the row of the `c`
//! vertex, which is skipped, so it is linked from its head instead. Every
//! arc with an end outside `c` is still seen from that end.
//!
//! # In graph-kernel's one shape
//!
//! Afforest links with compare-and-swap on one shared parent array; here
//! each trustee owns its vertices' parents. The parent array is a
//! [`Forest`] (a [`Replica`] of vertex names) over flat ids (graph-kernel's
//! renumbering; rows hold flat ids), one per process, filled in by every
//! process alike, held in each trustee's [`Program`] state: every
//! trustee reads every parent, but writes only its own, so no
//! compare-and-swap is needed. A parent is stored as a 64-bit *word*: its
//! global id above its flat id. Words compare as global ids, so "smaller"
//! above means a smaller global id and every root ends as the smallest
//! global id of its component: the label, read off the root's word with no
//! further step.
//!
//! - **link** (`link`): a walk that ends at one of this trustee's roots
//!   hooks it at once; one that ends at another trustee's root becomes a
//!   message for its owner ("unite your vertex with the vertex of this
//!   word"; one per remote root and pass: a second walk that ends there
//!   links its vertex with the first one's instead, as both are in that
//!   root's component), and [`Program::receive`] continues the walk there.
//!   If that walk ends at a third trustee's root, the pair waits for the
//!   next pass (`Cc::pending`);
//! - **settle** (`settle`): a phase's pass over the own rows, then passes
//!   over the pending pairs, until a superstep ends with no message sent
//!   anywhere ([`Kernel::end_superstep_quick`]: one all-reduce, behind
//!   every message); then every trustee compresses its own vertices and
//!   sends the other processes the parents they can read that changed
//!   ([`Forest::flatten`], [`Kernel::publish_forest`]: on a grid cut into
//!   blocks, those next to the cut and the roots they name), repeated in a
//!   rack job until no trustee sends any (a parent read from an older
//!   publish is still an ancestor, but maybe not the root; a repeated
//!   compress walks only from the own vertices whose root was in another
//!   process). Hooks name their vertex to the
//!   forest ([`Forest::expose`]): the receiver may read its parent.
//!
//! Both phases take a few passes on Kronecker graphs.
//!
//! ```
//! use graph_core::sharded::ShardedGraph;
//! use graph_core::{EdgeList, PackedEdge, PartitionKind};
//! let list = EdgeList::from_edges(6, vec![
//!     PackedEdge::new(5, 1, 1.0),
//!     PackedEdge::new(1, 3, 1.0),
//!     PackedEdge::new(2, 4, 1.0),
//! ]).unwrap();
//! let l2 = list.clone();
//! let out = gossamer::main(2, move || {
//!     let g = ShardedGraph::build(&l2, PartitionKind::Cyclic).unwrap();
//!     components::cc(&g, &components::CcConfig::default()).unwrap()
//! });
//! assert_eq!(out.labels, [0, 1, 2, 1, 2, 1]);
//! assert_eq!(out.components, 3);
//! assert_eq!(components::cc_sequential(&list), out.labels);
//! assert_eq!(components::verify_cc(&list, &out.labels), Ok(3));
//! ```

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use graph_core::sharded::{KernelError, ShardedGraph};
use graph_kernel::adjacency::{Adjacency, NO_FLAT};
use graph_kernel::{
    gather, run, Forest, Kernel, Local, Prepare, Program, Replica, RowsFormat, Sender, Setup,
};

/// The sequential reference (union-find over the edge list) and the
/// verifier, kept with the other kernels' in graph-core's `validate`.
pub use graph_core::validate::{reference::cc as cc_sequential, verify_cc};

/// Settings of one connected-components run.
///
/// ```
/// let c = components::CcConfig::default();
/// assert_eq!((c.neighbor_rounds, c.samples, c.skip_largest), (1, 1024, true));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CcConfig {
    /// Neighbours per vertex united in the sampling phase. Default 1:
    /// Afforest uses 2, but on a graph with hubs rows here start with them,
    /// so one neighbour already joins most of the giant component (a graph
    /// without hubs gets more rounds: `extra_rounds`); on Graph500 graphs
    /// (SCALE 18 and 20, 1 and 2 threads) 1 took 0.6-0.8x the time of 2, 3
    /// and 4 took longer still (`results/kernels/cc_pagerank.md`), and
    /// 0.5-0.7x again in this port, roots ordered by global id.
    pub neighbor_rounds: u32,
    /// Vertices sampled, over all trustees, to find the largest component.
    pub samples: u32,
    /// Skip the vertices of the largest sampled component in the finishing
    /// phase (Afforest); without it every remaining edge is read.
    pub skip_largest: bool,
    /// Sampling rounds added, one at a time, while the largest sampled
    /// component holds under a tenth of the samples: on a graph without
    /// hubs, such as a road grid, one neighbour per vertex leaves a forest
    /// of small trees, there is no giant component to skip yet, and the
    /// finishing phase would read nearly every edge (on a 2048 x 2048
    /// grid, 10.5 M of 15 M entries). Afforest's 2 rounds join it there.
    /// Default 2; a Graph500 graph never needs one.
    pub extra_rounds: u32,
    /// How the rows are stored when this run is the first to prepare the
    /// graph ([`graph_kernel::prepare_with`]; default plain): compressed
    /// rows take the place of the shard's array (less memory; a sampled
    /// neighbour is decoded from the row's start, a finishing row whole).
    /// The labels are the same. A graph prepared already keeps its format.
    pub rows: RowsFormat,
}

/// The share of the samples above which the largest sampled component is
/// the giant one (see [`CcConfig::extra_rounds`]): on Graph500 graphs it
/// holds most samples after one round, on a road grid under 1%.
const GIANT_SHARE: f64 = 0.1;

impl Default for CcConfig {
    fn default() -> Self {
        CcConfig {
            neighbor_rounds: 1,
            samples: 1024,
            skip_largest: true,
            extra_rounds: 2,
            rows: RowsFormat::Plain,
        }
    }
}

/// Result of one run, indexed by global vertex id.
///
/// ```
/// # use graph_core::{EdgeList, PackedEdge};
/// let list = EdgeList::from_edges(3, vec![PackedEdge::new(1, 2, 1.0)]).unwrap();
/// let out = gossamer::main(1, move || {
///     let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
///     components::cc(&g, &Default::default()).unwrap()
/// });
/// assert_eq!((out.labels, out.components), (vec![0, 1, 1], 2));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct CcOutput {
    /// The smallest vertex id of each vertex's component.
    pub labels: Vec<u64>,
    /// Number of components (isolated vertices count as one each).
    pub components: u64,
    /// Linking passes run: each phase's pass over the rows and the passes
    /// over pairs left pending between trustees.
    pub sweeps: u64,
    /// Sampling rounds run: `neighbor_rounds` and any extra ones
    /// ([`CcConfig::extra_rounds`]).
    pub sampling_rounds: u32,
    /// Records sent between trustees (hooks).
    pub records: u64,
    /// Own vertices walked again, over all trustees, because a compress
    /// read another process's words before it sent them
    /// ([`Forest::rewalked`]); 0 in one process.
    pub rewalked: u64,
    /// Time of the kernel (excludes preparing the adjacency and gathering).
    pub kernel_time: Duration,
}

/// Slots of the per-pass cache of remote roots already sent a hook.
/// Direct-mapped: a collision only costs one more message.
const CACHE: usize = 1024;

/// One trustee's state.
struct Cc {
    adj: Arc<Adjacency>,
    /// Each vertex's parent by flat id, shared by this process's trustees:
    /// a *parent word*, the parent's global id in the high 32 bits and its
    /// flat id in the low 32 (so words compare as global ids).
    comp: Forest,
    /// Remote roots sent a hook in this pass, with the word sent.
    sent: Vec<(u32, u64)>,
    /// Pairs to unite in the next pass: received hooks whose walk ended at
    /// a root of another trustee.
    pending: Vec<(u32, u32)>,
}

impl Program for Cc {
    /// A hook: "unite the tree of this vertex with that of the vertex this
    /// parent word names".
    type Msg = u64;

    fn receive(&mut self, v: u32, to: u64) -> bool {
        if let Some((hi, lo)) = link(&self.adj, &self.comp, self.adj.flat(v), to as u32) {
            self.pending.push((hi, lo as u32));
        }
        false
    }
}

/// The parent word of the vertex that word `w` names.
#[inline(always)]
fn parent(comp: &Replica, w: u64) -> u64 {
    comp.get(w as u32 as usize)
}

/// Afforest's `Link`: unites the trees of flat ids `u` and `v`, walking up
/// both until the larger root can be hooked under the smaller vertex's
/// parent (Afforest hooks it under the vertex itself; one step up keeps
/// trees shallow: on a grid, round 0 hooks each vertex under the vertex
/// above, whose parent is its tree's root, and left chains that the
/// compress after it rewrote in 1.3-1.6 M of every 2 M words). Any
/// parent may be read (a parent read late or from an older publish is
/// still an ancestor); only this trustee's roots are written, so no
/// compare-and-swap is needed. When the walk ends at another trustee's
/// root, returns `(that root, the word to hook it under)` for its owner.
#[inline(always)]
fn link(a: &Adjacency, comp: &Replica, u: u32, v: u32) -> Option<(u32, u64)> {
    let (mut p1, mut p2) = (parent(comp, u.into()), parent(comp, v.into()));
    while p1 != p2 {
        let (high, low) = (p1.max(p2), p1.min(p2));
        let p_high = parent(comp, high);
        if p_high == low {
            return None;
        }
        if p_high == high {
            let h = high as u32;
            if a.own(h).is_none() {
                return Some((h, low));
            }
            comp.set(h as usize, parent(comp, low));
            return None;
        }
        p1 = parent(comp, p_high);
        p2 = parent(comp, low);
    }
    None
}

impl Cc {
    /// Unites `u` and `v` from the trustee's own pass. The walk is inlined
    /// in each pass's loop (a call per entry cost the 2048 x 2048 grids a
    /// sixth of cc's time), the rare hook for another trustee is not.
    #[inline(always)]
    fn unite(&mut self, a: &Adjacency, out: &mut Sender<'_, Cc>, u: u32, v: u32) {
        if let Some((hi, lo)) = link(a, &self.comp, u, v) {
            self.hook(a, out, hi, lo);
        }
    }

    /// A walk ended at `hi`, another trustee's root: sends its owner a hook
    /// under word `lo`, unless one was sent for `hi` in this pass: then
    /// `hi` is already being hooked under that word, and it is united here
    /// with `lo` instead. When `hi` lies in another process, this process's
    /// copy of its word is set to `lo` as well: nothing else here writes
    /// it before the next publish, which overwrites it with the owner's
    /// (`hi` gets hooked there, so its word changes), and `lo` is smaller
    /// and in its component; the later walks of the pass go on past `hi`
    /// instead of ending there (2 x 1, 1024 x 4096 grid: the lower rank's
    /// round 1 made 203 K such hooks, a second walk each). Only where the
    /// forest publishes changed words one by one (a graph cut in blocks
    /// with a thin boundary): on a Kronecker graph, which publishes whole
    /// runs, it made 2 x 1 12-20% slower.
    #[inline(never)]
    fn hook(&mut self, a: &Adjacency, out: &mut Sender<'_, Cc>, mut hi: u32, mut lo: u64) {
        let process = |t: usize| gossamer::process_of(gossamer::WorkerId(t));
        loop {
            let slot = &mut self.sent[hi as usize % CACHE];
            if slot.0 != hi {
                *slot = (hi, lo);
                self.comp.expose(lo as u32);
                if self.comp.publishes_pairs()
                    && process(a.owner_of(hi)) != process(a.me() as usize)
                {
                    self.comp.set(hi as usize, lo);
                }
                return out.send_remote(hi, lo);
            }
            // Both vertices are in `hi`'s component, and smaller than it.
            match link(a, &self.comp, slot.1 as u32, lo as u32) {
                Some(next) => (hi, lo) = next,
                None => return,
            }
        }
    }
}

/// Which edges a linking pass unites.
#[derive(Clone, Copy)]
enum Pass {
    /// Entry `r` of every own row (Afforest's sampling round `r`).
    Sample(usize),
    /// Entries `k..` of the rows of own vertices whose root is not `skip`
    /// (and, on a directed graph, their whole in-rows).
    Finish(usize, u32),
    /// Only the pending pairs.
    Pending,
}

/// One pass of [`Pass`] over the own rows, then the pending pairs.
fn link_pass(l: &mut Local<'_, Cc>, pass: Pass) {
    let (a, rows) = (l.adjacency(), l.rows());
    let in_rows = l.is_directed().then(|| l.in_rows());
    let (c, mut out) = l.split();
    c.sent.fill((NO_FLAT, 0));
    match pass {
        Pass::Sample(r) => {
            // Round 0 takes the positions in increasing order: on a grid
            // entry 0 is the vertex above, hooked just before under its
            // root, so trees stay stars. Later rounds take them in
            // decreasing order.
            // Roots are their trees' smallest ids, so a tree that reaches
            // the trustee before this one has that trustee's root, and a walk
            // that ends there costs a hook; backwards, the trees far from that
            // trustee are joined among themselves first and those next to it
            // (which it, backwards too, joined first) last. On the 2048 x
            // 2048 grids, one process of 2 threads, round 1's hooks fell from
            // 120-150 K to a few and its pass from 18-23 ms to 15-16
            // (results/kernels/road.md).
            for i in 0..a.num_own() {
                let u = if r == 0 { i } else { a.num_own() - 1 - i };
                if let Some(f) = rows.nth(u, r) {
                    c.unite(a, &mut out, a.flat(u), f);
                }
            }
        }
        Pass::Finish(k, skip) => {
            let (mut buf, mut in_buf) = (Vec::new(), Vec::new());
            for u in 0..a.num_own() {
                // The skip first: most vertices are skipped, unread rows.
                if c.comp.get(a.flat(u) as usize) as u32 == skip {
                    continue;
                }
                let row = rows.read(u, &mut buf);
                let ins = in_rows.map_or(&[][..], |r| r.read(u, &mut in_buf));
                for &f in row.get(k..).unwrap_or(&[]) {
                    c.unite(a, &mut out, a.flat(u), f);
                }
                for &f in ins {
                    c.unite(a, &mut out, a.flat(u), f);
                }
            }
        }
        Pass::Pending => {}
    }
    for (u, v) in std::mem::take(&mut c.pending) {
        c.unite(a, &mut out, u, v);
    }
}

/// Unites the edges of `pass` on every trustee: the pass, then passes over
/// the pairs left pending until no hook is in flight and none is pending;
/// then compresses, so that every parent is a root. Returns the passes and
/// the roots (components).
fn settle(k: &mut Kernel<Cc>, pass: Pass) -> (u64, u64) {
    let mut passes = 1;
    k.with(move |l| link_pass(l, pass));
    // The all-reduce travels behind every hook: when it returns, each has
    // been applied, and a pair it left pending is in the next pass.
    while k.end_superstep_quick() {
        passes += 1;
        k.with(|l| link_pass(l, Pass::Pending));
    }
    // In one process a pass over a quiet forest leaves only roots; across
    // processes a parent read from an older publish may be passed over, so
    // the compress repeats (from the vertices whose root lay in another
    // process) until a turn in which no trustee had anything to send.
    (passes, Forest::flatten(k, |c: &mut Cc| &mut c.comp, true))
}

/// The root most frequent among `samples` vertices spread over the
/// trustees (each trustee's own most frequent; the most counted wins, every
/// trustee gets the same), as a flat id, and the share of its trustee's
/// samples it got.
fn largest(k: &mut Kernel<Cc>, samples: u32) -> (u32, f64) {
    let per = samples.div_ceil(k.num_trustees()).max(1);
    let local = k.with(move |l| {
        let (a, c) = (l.adjacency(), l.state());
        let n = a.num_own();
        let mut count: HashMap<u32, u64> = HashMap::new();
        // A fixed stride over the positions.
        let mut x = 0u64;
        for _ in 0..per.min(n) {
            x = (x + 0x9E37_79B9) % u64::from(n);
            let root = c.comp.get(a.flat(x as u32) as usize) as u32;
            *count.entry(root).or_default() += 1;
        }
        count
            .into_iter()
            .map(|(r, c)| c << 32 | u64::from(r))
            .max()
            .unwrap_or(0)
    });
    let best = k.max(local);
    (best as u32, (best >> 32) as f64 / f64::from(per))
}

/// The state on one trustee, nothing pending; its words are filled in by
/// [`start`].
fn init(s: &mut Setup<'_>, old: Option<Cc>) -> Cc {
    let mut c = old.unwrap_or_else(|| Cc {
        adj: s.adjacency().clone(),
        comp: Forest::new(s, "cc.parents", "cc.exposed"),
        sent: vec![(NO_FLAT, 0); CACHE],
        pending: Vec::new(),
    });
    c.pending.clear();
    c
}

/// Makes every vertex its own root (the own ones, and this trustee's share
/// of the other processes', which are not sent), on every trustee, in the
/// run's first step rather than in `init`: in a rack job the ranks' `init`s
/// run one after the other (rank 0's before the other ranks' fibers have
/// started), the first steps side by side.
fn start(k: &mut Kernel<Cc>) {
    k.with(|l| {
        let a = l.adjacency();
        l.state()
            .comp
            .fill(a, |f| u64::from(a.global_of(f)) << 32 | u64::from(f));
    });
    k.sync();
}

/// Connected components of `graph`, from a fiber of the runtime that built it.
/// The graph must have at most 2^32 vertices (as every [`ShardedGraph`]).
///
/// ```
/// use graph_core::sharded::ShardedGraph;
/// use graph_core::{EdgeList, PackedEdge, PartitionKind};
/// // Two triangles and an isolated vertex; every setting gives the same labels.
/// let e = |u, v| PackedEdge::new(u, v, 1.0);
/// let list = EdgeList::from_edges(7, vec![e(6, 4), e(4, 2), e(2, 6), e(5, 3), e(3, 1), e(1, 5)]).unwrap();
/// let labels = gossamer::main(3, move || {
///     let g = ShardedGraph::build(&list, PartitionKind::Block).unwrap();
///     [0, 1, 2].map(|neighbor_rounds| {
///         let cfg = components::CcConfig { neighbor_rounds, skip_largest: neighbor_rounds != 1, ..Default::default() };
///         components::cc(&g, &cfg).unwrap().labels
///     })
/// });
/// assert_eq!(labels[0], [0, 1, 2, 1, 2, 1, 2]);
/// assert!(labels.iter().all(|l| *l == labels[0]));
/// ```
pub fn cc(graph: &ShardedGraph, cfg: &CcConfig) -> Result<CcOutput, KernelError> {
    let cfg = *cfg;
    // The rows (and a directed graph's in-rows), the state and the way
    // parents are published are made before the clock starts.
    graph_kernel::prepare_with(graph, Prepare::InRows, cfg.rows);
    run(graph, init, |k| {
        start(k);
        k.publish_forest(|c: &mut Cc| &mut c.comp, false)
    });
    let t0 = Instant::now();
    let per = run(graph, init, move |k| {
        start(k);
        let (mut r, mut passes) = (0, 0);
        while r < cfg.neighbor_rounds {
            passes += settle(k, Pass::Sample(r as usize)).0;
            r += 1;
        }
        let mut skip = NO_FLAT;
        if cfg.skip_largest {
            let mut share;
            (skip, share) = largest(k, cfg.samples);
            // More rounds while no component stands out (see
            // `CcConfig::extra_rounds`).
            while share < GIANT_SHARE && r > 0 && r < cfg.neighbor_rounds + cfg.extra_rounds {
                passes += settle(k, Pass::Sample(r as usize)).0;
                r += 1;
                (skip, share) = largest(k, cfg.samples);
            }
        }
        let (last, roots) = settle(k, Pass::Finish(r as usize, skip));
        let again = k.with(|l| l.state().comp.rewalked());
        (roots, passes + last, k.stats().sent, r, again)
    });
    let kernel_time = t0.elapsed();
    // Every parent is a root, whose global id is the smallest of its tree.
    let labels = gather(graph, 0, |c: &Cc, v| {
        c.comp.get(c.adj.flat(v) as usize) >> 32
    })?;
    Ok(CcOutput {
        labels,
        components: per[0].0,
        sweeps: per[0].1,
        sampling_rounds: per[0].3,
        records: per.iter().map(|p| p.2).sum(),
        rewalked: per.iter().map(|p| p.4).sum(),
        kernel_time,
    })
}
