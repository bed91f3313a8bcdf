//! [`Adjacency`]: a kernel-ready copy of one trustee's adjacency, renumbered
//! by degree, prepared once per graph and shared by every kernel that runs on
//! it; [`LightHeavy`], the weighted rows split at a bucket width for
//! delta-stepping.
//!
//! # Flat ids
//!
//! A [`Shard`] names neighbours by global id, so every edge a kernel follows
//! would cost a partition lookup (a division for a block partition) to find
//! the neighbour's owner and its index there. The prepared adjacency renames
//! every vertex once, to a *flat id*:
//!
//! - each trustee orders its own vertices by decreasing degree (ties by local
//!   index); a vertex's place in that order is its *position* at its owner;
//! - trustee `o`'s vertex at position `r` has flat id `base(o) + r`, where
//!   the bases are cumulative vertex counts rounded up to multiples of 64, so
//!   each trustee's vertices fill whole words of a bitmap over flat ids (what
//!   [`Replica`](crate::Replica) exchanges) and the owner of a flat id is one
//!   comparison per trustee ([`owner_of`](Adjacency::owner_of)).
//!
//! On a directed graph the rows are the out-edges (what the shard's rows
//! hold) and [`Adjacency::in_rows`] gives the in-edges, built the same way
//! from the shard's in-edge index when a kernel pulls along them.
//!
//! [`Rows`] are in position order, their targets are flat ids sorted
//! ascending with parallel edges merged (the count merged stays available for
//! statistics: [`entries_merged`](Rows::entries_merged); TEPS count the
//! input edges, through the validator, not these rows). They are built the
//! first time a kernel asks ([`Adjacency::rows`]), so a kernel that uses only
//! its weighted rows ([`LightHeavy`], split inside the shard or in a copy)
//! does not pay their memory. Hubs come first in every row and their
//! per-vertex state shares a few cache lines, which is where most edges of a
//! Kronecker graph lead.
//!
//! A kernel works on positions (its per-vertex arrays are indexed by them),
//! turns a flat id into "mine, at position `v`" with
//! [`own`](Adjacency::own) or into `(owner, position there)` with
//! [`locate`](Adjacency::locate), and hands results back by original local
//! index with [`by_local`](Adjacency::by_local) (what
//! [`ShardedGraph::gather`](graph_core::sharded::ShardedGraph::gather) wants),
//! flat ids back as global ids with [`global_of`](Adjacency::global_of).
//!
//! # Preparing
//!
//! [`prepare`] is collective (every trustee's fiber calls it, as the first
//! step of a kernel): each trustee sends its positions to every other one as
//! POD slices; the first trustee of each process files them, and the
//! process's trustees then share one copy of the renumbering tables (every
//! trustee's positions and the flat-id map, 8 B per vertex of the whole
//! graph: once per rank, not once per trustee). It does the work only the
//! first time on a graph; later calls (any kernel) find the adjacency in
//! place. Kernels take a shared handle with [`shared`] and keep it in their
//! own state.
//!
//! ```
//! use graph_core::sharded::ShardedGraph;
//! use graph_kernel::adjacency;
//! let list = graph_kernel::doc::path(5); // 0-1-2-3-4
//! let rows = gossamer::main(2, move || {
//!     let g = ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
//!     g.on_trustees(|mut ctx| {
//!         adjacency::prepare(&mut ctx);
//!         ctx.local.apply_returning(|s| {
//!             let a = adjacency::shared(s).expect("prepared");
//!             let rows = a.rows(s.shard());
//!             // Each row, by position, as global ids.
//!             (0..a.num_own())
//!                 .map(|v| rows.row(v).iter().map(|&f| a.global_of(f)).collect::<Vec<u32>>())
//!                 .collect::<Vec<_>>()
//!         })
//!     })
//! });
//! // Trustee 0 owns 0, 1, 2: vertices 1 and 2 (degree 2) come before 0
//! // (degree 1), so their flat ids are 1 -> 0, 2 -> 1, 0 -> 2; rows are in
//! // flat order (vertex 1's row lists 2 before 0).
//! assert_eq!(rows[0], [vec![2, 0], vec![1, 3], vec![1]]);
//! assert_eq!(rows[1], [vec![2, 4], vec![3]]);
//! ```

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use gossamer::Op;

use graph_core::memory::{reserve_or_exit, vec_or_exit};
use graph_core::sharded::{ShardedGraph, TrusteeCtx, TrusteeState};
use graph_core::validate::NO_PARENT;
use graph_core::{Partition, Shard};

/// "No vertex" in an array of flat ids (e.g. the parent of an unreached
/// vertex).
pub const NO_FLAT: u32 = u32::MAX;

/// Draws for graph keys: unique within this process.
static NEXT_KEY: AtomicU64 = AtomicU64::new(1);

/// Positions per message while preparing (32 KiB of `u32`: half a 64 KiB slot).
const RANK_PIECE: usize = 8192;

/// The renumbered adjacency of one trustee; see the module docs.
#[derive(Debug)]
pub struct Adjacency {
    partition: Partition,
    me: u32,
    /// First flat id of each trustee (multiples of 64), then the total.
    base: Vec<u32>,
    /// Own vertices: flat ids `lo..lo + n`.
    lo: u32,
    n: u32,
    /// Every trustee's positions and the flat-id map (one copy per
    /// process, shared by its trustees).
    tables: Arc<Tables>,
    /// `order[v]`: original local index of own position `v`.
    order: Vec<u32>,
    /// The unweighted rows, built on first use.
    rows: OnceLock<Rows>,
    /// Directed graphs: the in-edge rows, built on first use.
    in_rows: OnceLock<Rows>,
    key: u64,
}

/// The unweighted rows of an [`Adjacency`]: position `v`'s targets are
/// `targets[start[v]..start[v + 1]]`, flat ids ascending, parallel edges
/// merged.
#[derive(Debug)]
pub struct Rows {
    start: Vec<u64>,
    targets: Vec<u32>,
    merged: u64,
}

/// Where the prepared adjacency is kept in a trustee's property.
#[derive(Default)]
struct Prepared(Option<Arc<Adjacency>>);

/// While preparing: whether this trustee is the first of its process (the
/// one that files the positions every trustee sends into [`TABLES`]).
#[derive(Default)]
struct Building {
    files: bool,
}

/// The tables that are the same on every trustee of a graph (every
/// trustee's positions and the flat-id map: 8 B per vertex of the whole
/// graph), held once per process instead of once per trustee: at 32
/// trustees per rank that is 31 copies fewer.
#[derive(Debug)]
struct Tables {
    /// `rank[o][l]`: position of trustee `o`'s local vertex `l`.
    rank: Vec<Vec<u32>>,
    /// Global id of every flat id (0 in the padding); an `Arc` of its own
    /// because a shard split in place keeps it as its names.
    global_of: Arc<[u32]>,
}

/// This process's tables by graph key: positions being filed while the
/// graph is prepared, then a weak handle (the adjacencies hold the tables;
/// the last one dropped frees them).
enum Filed {
    Filling(Vec<Vec<u32>>),
    Ready(std::sync::Weak<Tables>),
}

static TABLES: Mutex<Vec<(u64, Filed)>> = Mutex::new(Vec::new());

fn tables() -> std::sync::MutexGuard<'static, Vec<(u64, Filed)>> {
    TABLES.lock().unwrap_or_else(|e| e.into_inner())
}

/// Files trustee `o`'s positions `r`, from `at` on (of `len` in all), for
/// graph `key` of `trustees` trustees (on the first trustee of this process).
fn file_positions(key: u64, trustees: usize, o: usize, len: usize, at: usize, r: &[u32]) {
    let mut all = tables();
    let i = match all.iter().position(|(k, _)| *k == key) {
        Some(i) => i,
        None => {
            all.push((key, Filed::Filling(vec![Vec::new(); trustees])));
            all.len() - 1
        }
    };
    if let Filed::Filling(rank) = &mut all[i].1 {
        let own = &mut rank[o];
        if own.is_empty() {
            reserve_or_exit(own, len, "vertex positions");
        }
        own.resize(own.len().max(at + r.len()), 0);
        own[at..at + r.len()].copy_from_slice(r);
    }
}

/// The tables of graph `key` once every position is filed: the first
/// trustee of the process to ask builds the flat-id map, the others share
/// it. `None` if nothing was filed (a bug: the caller says so).
fn take_tables(key: u64, p: &Partition) -> Option<Arc<Tables>> {
    let mut all = tables();
    all.retain(|(_, f)| !matches!(f, Filed::Ready(w) if w.strong_count() == 0));
    let i = all.iter().position(|(k, _)| *k == key)?;
    if let Filed::Ready(w) = &all[i].1 {
        return w.upgrade();
    }
    let Filed::Filling(rank) =
        std::mem::replace(&mut all[i].1, Filed::Ready(std::sync::Weak::new()))
    else {
        unreachable!("matched above");
    };
    let (base, total) = bases(p);
    let mut global_of = vec_or_exit(total as usize, 0u32, "flat-id map");
    for (o, ranks) in rank.iter().enumerate() {
        for (l, &r) in ranks.iter().enumerate() {
            global_of[(base[o] + r) as usize] = p.global(o as u32, l as u64) as u32;
        }
    }
    let t = Arc::new(Tables {
        rank,
        global_of: global_of.into(),
    });
    all[i].1 = Filed::Ready(Arc::downgrade(&t));
    Some(t)
}

/// First flat id of each trustee (cumulative vertex counts rounded up to
/// multiples of 64), and the total.
fn bases(p: &Partition) -> (Vec<u32>, u32) {
    let mut base = Vec::with_capacity(p.num_trustees() as usize + 1);
    let mut acc = 0u32;
    for o in 0..p.num_trustees() {
        base.push(acc);
        acc += (p.local_count(o) as u32).div_ceil(64) * 64;
    }
    base.push(acc);
    (base, acc)
}

/// Positions of `shard`'s vertices by decreasing degree (stable: ties keep
/// local order): `rank[l]` is local vertex `l`'s position.
fn degree_ranks(shard: &Shard) -> Vec<u32> {
    let n = shard.num_local_vertices() as u32;
    let mut by_degree: Vec<u32> = (0..n).collect();
    by_degree.sort_by_key(|&l| std::cmp::Reverse(shard.degree(u64::from(l))));
    let mut rank = vec![0u32; n as usize];
    for (r, &l) in by_degree.iter().enumerate() {
        rank[l as usize] = r as u32;
    }
    rank
}

/// Prepares the renumbered adjacency on every trustee of the graph, once:
/// a collective step (every trustee's fiber must call it, e.g. first thing
/// in [`ShardedGraph::on_trustees`](graph_core::sharded::ShardedGraph::on_trustees));
/// returns at once when it is already prepared. Costs a barrier, an
/// all-reduce and one exchange of `4 B x vertices` per trustee the first
/// time.
///
/// See the module docs for an example.
pub fn prepare(ctx: &mut TrusteeCtx) {
    if ctx
        .local
        .apply(|s| s.kernel::<Prepared>(|_| Prepared::default()).1 .0.is_some())
    {
        return;
    }
    let me = ctx.me as usize;
    // The first trustee of each process files everybody's positions.
    let files = (0..me).all(|j| !gossamer::is_local_worker(ctx.peers[j].trustee()));
    let ranks = ctx.local.apply_returning(move |s| {
        s.kernel::<Building>(|_| Building::default()).1.files = files;
        degree_ranks(s.shard())
    });
    // One key for the graph; the all-reduce is also the barrier after
    // which every filing trustee knows its role (in a rack run the fibers
    // of other ranks start later than the local ones).
    let draw = NEXT_KEY.fetch_add(1, Ordering::Relaxed);
    let [key] = ctx.party.all_reduce([draw], [Op::Max]);
    let (trustees, len) = (ctx.peers.len(), ranks.len());
    for peer in &ctx.peers {
        let mut at = 0;
        for piece in ranks.chunks(RANK_PIECE) {
            peer.apply_slice_then(
                move |s, r: &[u32]| {
                    if s.kernel::<Building>(|_| Building::default()).1.files {
                        file_positions(key, trustees, me, len, at, r);
                    }
                },
                piece,
                |()| {},
            );
            at += piece.len();
        }
    }
    gossamer::wait_outstanding();
    // Every position is filed in every process before anyone reads.
    ctx.party.barrier();
    ctx.local.apply(move |s| {
        s.drop_kernel::<Building>();
        let tables = take_tables(key, s.shard().partition())
            .expect("graph_kernel::adjacency::prepare: the positions of this graph were not filed in this process");
        let adj = Adjacency::build(s.shard(), tables, key);
        s.kernel::<Prepared>(|_| Prepared::default()).1 .0 = Some(Arc::new(adj));
    });
}

/// Sets up a search from global vertex `root` on every trustee: prepares the
/// adjacency ([`prepare`], the first time on this graph), then runs
/// `setup(state, adjacency, root)` on each trustee's own state, where `root`
/// is the root's position on its owner and `None` elsewhere. A kernel's
/// `setup` sizes or resets its per-trustee state and keeps the handle. Call
/// from a fiber of the runtime that built the graph.
///
/// ```
/// use graph_core::sharded::ShardedGraph;
/// let list = graph_kernel::doc::path(5);
/// let seen = gossamer::main(2, move || {
///     let g = ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
///     graph_kernel::adjacency::prepare_search(&g, 4, |s, a, root| {
///         *s.kernel::<Option<u32>>(|_| None).1 = root.map(|r| a.global_of(a.flat(r)));
///     });
///     g.on_trustees(|ctx| ctx.local.apply(|s| *s.kernel::<Option<u32>>(|_| None).1))
/// });
/// assert_eq!(seen, [None, Some(4)]);
/// ```
pub fn prepare_search<F>(graph: &ShardedGraph, root: u64, setup: F)
where
    F: Fn(&mut TrusteeState, Arc<Adjacency>, Option<u32>) + Copy + Send + Sync + 'static,
{
    let owner = graph.partition().owner(root);
    graph.on_trustees(move |mut ctx| {
        let me = ctx.me;
        prepare(&mut ctx);
        ctx.local.apply(move |s| {
            let a = shared(s).expect("prepared just above");
            let root = (owner.trustee == me).then(|| a.position(owner.local as u32));
            setup(s, a, root);
        })
    });
}

/// The prepared adjacency of this trustee (`None` before [`prepare`]), as a
/// shared handle a kernel keeps in its state.
pub fn shared(s: &mut TrusteeState) -> Option<Arc<Adjacency>> {
    s.kernel::<Prepared>(|_| Prepared::default()).1 .0.clone()
}

impl Adjacency {
    /// Builds the rows of `shard` once every trustee's positions (`rank`) are
    /// known.
    fn build(shard: &Shard, tables: Arc<Tables>, key: u64) -> Self {
        let p = *shard.partition();
        let me = shard.trustee();
        let (base, _) = bases(&p);
        let n = shard.num_local_vertices() as usize;
        let mut order = vec![0u32; n];
        for (l, &r) in tables.rank[me as usize].iter().enumerate() {
            order[r as usize] = l as u32;
        }
        Adjacency {
            partition: p,
            me,
            lo: base[me as usize],
            n: n as u32,
            base,
            order,
            tables,
            rows: OnceLock::new(),
            in_rows: OnceLock::new(),
            key,
        }
    }

    /// A number that names the graph among those prepared in this process
    /// (the same on every trustee of the graph): what
    /// [`Replica`](crate::Replica)s are found by.
    pub fn key(&self) -> u64 {
        self.key
    }

    /// This trustee's words of a bitmap over flat ids.
    pub fn own_words(&self) -> Range<usize> {
        let first = (self.lo / 64) as usize;
        first..first + self.n.div_ceil(64) as usize
    }

    /// This trustee's words of a per-vertex array over flat ids (one word
    /// per flat id, e.g. [`Replica::per_vertex`](crate::Replica::per_vertex)):
    /// its own flat ids.
    pub fn own_flat(&self) -> Range<usize> {
        self.lo as usize..(self.lo + self.n) as usize
    }

    /// The graph's partition.
    pub fn partition(&self) -> &Partition {
        &self.partition
    }

    /// This trustee's index.
    pub fn me(&self) -> u32 {
        self.me
    }

    /// Number of trustees.
    pub fn num_trustees(&self) -> usize {
        self.base.len() - 1
    }

    /// Number of own vertices (positions `0..num_own()`).
    #[inline]
    pub fn num_own(&self) -> u32 {
        self.n
    }

    /// Number of flat ids (all trustees, with the padding to 64): the length
    /// of an array indexed by flat id.
    #[inline]
    pub fn num_flat(&self) -> u32 {
        self.base[self.base.len() - 1]
    }

    /// First flat id of trustee `o` (a multiple of 64).
    #[inline(always)]
    pub fn base(&self, o: usize) -> u32 {
        self.base[o]
    }

    /// Flat id of own position `v`.
    #[inline(always)]
    pub fn flat(&self, v: u32) -> u32 {
        self.lo + v
    }

    /// The own position of flat id `f`, when this trustee owns it.
    #[inline(always)]
    pub fn own(&self, f: u32) -> Option<u32> {
        let v = f.wrapping_sub(self.lo);
        (v < self.n).then_some(v)
    }

    /// Owner trustee of flat id `f` (branch-free over the trustees: one
    /// comparison each).
    #[inline(always)]
    pub fn owner_of(&self, f: u32) -> usize {
        let n = self.base.len() - 1;
        self.base[1..n].iter().map(|&b| (f >= b) as usize).sum()
    }

    /// Owner of flat id `f` and its position there.
    #[inline(always)]
    pub fn locate(&self, f: u32) -> (usize, u32) {
        let o = self.owner_of(f);
        (o, f - self.base[o])
    }

    /// Position of own local vertex `l` (original local index).
    #[inline]
    pub fn position(&self, l: u32) -> u32 {
        self.tables.rank[self.me as usize][l as usize]
    }

    /// Original local index of own position `v`.
    #[inline]
    pub fn local(&self, v: u32) -> u32 {
        self.order[v as usize]
    }

    /// Flat id of global vertex `g`.
    #[inline]
    pub fn flat_of(&self, g: u32) -> u32 {
        let o = self.partition.owner(u64::from(g));
        self.base[o.trustee as usize] + self.tables.rank[o.trustee as usize][o.local as usize]
    }

    /// Global id of flat id `f`.
    #[inline]
    pub fn global_of(&self, f: u32) -> u32 {
        self.tables.global_of[f as usize]
    }

    /// The unweighted rows (see [`Rows`]), built from `shard` (this
    /// trustee's) the first time any kernel asks. On a directed graph
    /// ([`Shard::is_directed`]) these are the out-edges.
    pub fn rows(&self, shard: &Shard) -> &Rows {
        self.rows.get_or_init(|| match shard.renamed() {
            None => self.build_rows(|l| shard.adjacency(l).0, |v| self.flat_of(v)),
            // Split in place by this adjacency: flat ids already.
            Some(n) if Arc::ptr_eq(n, &self.tables.global_of) => {
                self.build_rows(|l| shard.adjacency(l).0, |f| f)
            }
            Some(n) => self.build_rows(|l| shard.adjacency(l).0, |v| self.flat_of(n[v as usize])),
        })
    }

    /// The in-edge rows: for each own position, the flat ids of the tails
    /// of the arcs into it (ascending, parallel arcs merged), from the
    /// shard's in-edge index, built the first time a kernel asks. On an
    /// undirected graph every edge goes both ways: these are [`rows`](Self::rows).
    pub fn in_rows(&self, shard: &Shard) -> &Rows {
        if !shard.is_directed() {
            return self.rows(shard);
        }
        self.in_rows
            .get_or_init(|| self.build_rows(|l| shard.in_neighbors(l), |v| self.flat_of(v)))
    }

    /// Rows in position order from `row(local)`, renamed to flat ids by
    /// `to_flat`, sorted and merged.
    fn build_rows<'s>(
        &self,
        source: impl Fn(u64) -> &'s [u32],
        to_flat: impl Fn(u32) -> u32,
    ) -> Rows {
        {
            let n = self.n as usize;
            let (mut start, mut targets, mut merged) = (Vec::new(), Vec::new(), 0);
            reserve_or_exit(&mut start, n + 1, "row offsets");
            let total: usize = self.order.iter().map(|&l| source(u64::from(l)).len()).sum();
            // At most one entry per shard entry: reserved once, not grown by doubling.
            reserve_or_exit(&mut targets, total, "adjacency rows");
            start.push(0);
            let mut row: Vec<u32> = Vec::new();
            for &l in &self.order {
                row.clear();
                row.extend(source(u64::from(l)).iter().map(|&v| to_flat(v)));
                row.sort_unstable();
                let before = row.len();
                row.dedup();
                merged += (before - row.len()) as u64;
                targets.extend_from_slice(&row);
                start.push(targets.len() as u64);
            }
            Rows {
                start,
                targets,
                merged,
            }
        }
    }

    /// One value per own vertex by original local index, from a function of
    /// its position: the order [`ShardedGraph::gather`](graph_core::sharded::ShardedGraph::gather)
    /// expects.
    pub fn by_local<T>(&self, at: impl Fn(u32) -> T) -> Vec<T> {
        self.tables.rank[self.me as usize]
            .iter()
            .map(|&r| at(r))
            .collect()
    }

    /// The weighted rows split at `delta` (see [`LightHeavy`]), on this
    /// trustee's `shard`. With `in_place` the shard's own arrays become the
    /// rows ([`Shard::rewrite_rows`]: targets renamed to flat ids, each row
    /// reordered, nothing dropped), which saves the copy's 8 B per entry;
    /// the graph must have been marked first
    /// ([`ShardedGraph::mark_rows_rewritten`]). A mapped shard (a
    /// prepared-shard file) cannot be rewritten and gets the copy.
    pub fn light_heavy(&self, shard: &mut Shard, delta: f32, in_place: bool) -> LightHeavy {
        let names = self.tables.global_of.clone();
        let mut spans = Vec::new();
        reserve_or_exit(&mut spans, self.n as usize, "light/heavy rows");
        // Renamed before (by a split of this adjacency) means flat already;
        // another table makes `rewrite_rows` refuse.
        let rename = shard.renamed().is_none();
        if in_place
            && shard.rewrite_rows(names.clone(), |off, t, w| {
                self.split_rows(off, t, w, delta, rename, &mut spans)
            })
        {
            return LightHeavy {
                delta,
                spans,
                copy: None,
            };
        }
        let (mut t, mut w) = (Vec::new(), Vec::new());
        reserve_or_exit(&mut t, shard.num_entries() as usize, "weighted adjacency");
        reserve_or_exit(&mut w, shard.num_entries() as usize, "weighted adjacency");
        // A shard another split renamed holds flat ids already.
        let rename = match shard.renamed() {
            None => {
                t.extend_from_slice(shard.targets());
                true
            }
            Some(n) if Arc::ptr_eq(n, &names) => {
                t.extend_from_slice(shard.targets());
                false
            }
            Some(n) => {
                t.extend(shard.targets().iter().map(|&v| n[v as usize]));
                true
            }
        };
        w.extend_from_slice(shard.weights());
        self.split_rows(shard.offsets(), &mut t, &mut w, delta, rename, &mut spans);
        LightHeavy {
            delta,
            spans,
            copy: Some((t, w)),
        }
    }

    /// Orders each own vertex's row (`offsets` by local index) as
    /// [`LightHeavy`] wants it: unique targets light first, then heavy, both
    /// ascending by flat id, then the heavier parallel entries. Renames the
    /// targets from global to flat ids first when `rename`. Pushes one span
    /// per position.
    fn split_rows(
        &self,
        offsets: &[u64],
        targets: &mut [u32],
        weights: &mut [f32],
        delta: f32,
        rename: bool,
        spans: &mut Vec<Span>,
    ) {
        let mut row: Vec<(u32, f32)> = Vec::new();
        let mut rest: Vec<(u32, f32)> = Vec::new();
        for &l in &self.order {
            let r = offsets[l as usize] as usize..offsets[l as usize + 1] as usize;
            row.clear();
            rest.clear();
            let (t, w) = (&mut targets[r.clone()], &mut weights[r.clone()]);
            row.extend(
                t.iter()
                    .zip(w.iter())
                    .map(|(&v, &x)| (if rename { self.flat_of(v) } else { v }, x)),
            );
            // By flat id, lightest parallel entry first (the one relaxed).
            row.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
            let mut unique = 0;
            for i in 0..row.len() {
                if unique > 0 && row[unique - 1].0 == row[i].0 {
                    rest.push(row[i]);
                } else {
                    row[unique] = row[i];
                    unique += 1;
                }
            }
            row.truncate(unique);
            let span = split_one(&mut row, delta, r.start as u64);
            row.extend_from_slice(&rest);
            for (k, &(v, x)) in row.iter().enumerate() {
                (t[k], w[k]) = (v, x);
            }
            spans.push(span);
        }
    }
}

/// Orders `row` (unique flat ids, ascending) light first for `delta`,
/// both parts ascending, and returns its span starting at `start`.
fn split_one(row: &mut [(u32, f32)], delta: f32, start: u64) -> Span {
    // Stable: both parts keep their ascending order.
    row.sort_by_key(|e| e.1 > delta);
    let light = row.partition_point(|e| e.1 <= delta);
    Span {
        start,
        light: light as u32,
        heavy: (row.len() - light) as u32,
    }
}

/// Gathers a parent array from every trustee, by global id, as the Graph500
/// validator wants it: `parents` returns a trustee's adjacency and its
/// parents by position as flat ids ([`NO_FLAT`] where there is none, which
/// becomes [`NO_PARENT`]). Call from a fiber after the kernel ran.
///
/// ```
/// use graph_core::sharded::{ShardedGraph, TrusteeState};
/// use graph_kernel::adjacency::{self, gather_parents, Adjacency, NO_FLAT};
/// /// Every vertex's parent is itself, except position 0 (none).
/// #[derive(Default)]
/// struct Own(Option<std::sync::Arc<Adjacency>>, Vec<u32>);
/// fn own(s: &mut TrusteeState) -> &mut Own { s.kernel::<Own>(|_| Own::default()).1 }
/// let list = graph_kernel::doc::path(3);
/// let p = gossamer::main(1, move || {
///     let g = ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
///     g.on_trustees(|mut ctx| {
///         adjacency::prepare(&mut ctx);
///         ctx.local.apply(|s| {
///             let a = adjacency::shared(s).unwrap();
///             let mut par: Vec<u32> = (0..a.num_own()).map(|v| a.flat(v)).collect();
///             par[0] = NO_FLAT;
///             *own(s) = Own(Some(a), par);
///         })
///     });
///     gather_parents(&g, |s| { let o = own(s); (o.0.as_deref().unwrap(), &o.1) })
/// });
/// // Position 0 is vertex 1 (the only one of degree 2).
/// assert_eq!(p, [0, graph_core::validate::NO_PARENT, 2]);
/// ```
pub fn gather_parents(
    graph: &ShardedGraph,
    parents: fn(&mut TrusteeState) -> (&Adjacency, &Vec<u32>),
) -> Vec<u64> {
    let p = *graph.partition();
    let mut out = vec![NO_PARENT; p.num_vertices() as usize];
    for t in 0..graph.num_trustees() {
        let part: Vec<u32> = graph.trustee(t).apply_returning(move |s| {
            let (a, par) = parents(s);
            a.by_local(|v| match par[v as usize] {
                NO_FLAT => NO_FLAT,
                f => a.global_of(f),
            })
        });
        for (l, x) in part.into_iter().enumerate() {
            if x != NO_FLAT {
                out[p.global(t as u32, l as u64) as usize] = u64::from(x);
            }
        }
    }
    out
}

impl Rows {
    /// Entries of position `v` as a range of [`targets`](Self::targets).
    #[inline(always)]
    pub fn range(&self, v: u32) -> Range<usize> {
        self.start[v as usize] as usize..self.start[v as usize + 1] as usize
    }

    /// Where each row starts in [`targets`](Self::targets) (`num_own() + 1`
    /// offsets).
    #[inline(always)]
    pub fn starts(&self) -> &[u64] {
        &self.start
    }

    /// Every row's targets (flat ids), row after row.
    #[inline(always)]
    pub fn targets(&self) -> &[u32] {
        &self.targets
    }

    /// Targets of position `v` (flat ids, ascending, no repeats).
    #[inline]
    pub fn row(&self, v: u32) -> &[u32] {
        &self.targets[self.range(v)]
    }

    /// Degree of position `v` after merging parallel edges.
    #[inline(always)]
    pub fn degree(&self, v: u32) -> u64 {
        self.start[v as usize + 1] - self.start[v as usize]
    }

    /// Entries of all own rows (after merging).
    pub fn num_entries(&self) -> u64 {
        self.targets.len() as u64
    }

    /// Shard entries merged away as parallel edges (statistics).
    pub fn entries_merged(&self) -> u64 {
        self.merged
    }
}

/// The rows of an [`Adjacency`] with weights, as delta-stepping relaxes
/// them in its two phases: each own position's row holds its distinct
/// targets (flat ids, the lightest of parallel edges), *light* ones
/// (`w <= delta`) first, then *heavy* ones, both parts ascending by flat id;
/// the heavier parallel entries follow, kept only so the rows still hold
/// every input entry. A kernel owns its split (it depends on its Δ) and
/// re-splits when Δ changes.
///
/// The rows live in the trustee's shard itself when it was split in place
/// (`in_place` of [`Adjacency::light_heavy`]: the shard's arrays, renamed
/// and reordered row by row), or in a copy of them otherwise; either way
/// read them through [`arrays`](Self::arrays) with this trustee's shard.
/// Rows stay where the shard has them (by original local index); a span
/// per position (16 B) points at each.
///
/// ```
/// use graph_core::sharded::ShardedGraph;
/// use graph_kernel::adjacency;
/// let list = graph_core::EdgeList::from_edges(3, vec![
///     graph_core::PackedEdge::new(0, 1, 0.75),
///     graph_core::PackedEdge::new(0, 2, 0.25),
///     graph_core::PackedEdge::new(0, 2, 0.5), // parallel: the lighter one is relaxed
/// ]).unwrap();
/// let rows = gossamer::main(1, move || {
///     let g = ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
///     g.mark_rows_rewritten("this example");
///     g.on_trustees(|mut ctx| {
///         adjacency::prepare(&mut ctx);
///         ctx.local.apply_returning(|s| {
///             let a = adjacency::shared(s).unwrap();
///             let lh = a.light_heavy(s.shard_mut(), 0.5, true);
///             let v = a.position(0);
///             let (_, w) = lh.arrays(s.shard());
///             let ws = |r: std::ops::Range<usize>| w[r].to_vec();
///             let merged = a.rows(s.shard()).entries_merged();
///             (ws(lh.light(v)), ws(lh.heavy(v)), merged, s.shard().degree(0))
///         })
///     })
/// });
/// // The parallel edge was merged at both of its ends, and the shard still
/// // holds all three entries of vertex 0.
/// assert_eq!(rows[0], (vec![0.25], vec![0.75], 2, 3));
/// ```
#[derive(Debug)]
pub struct LightHeavy {
    delta: f32,
    /// Row of each position.
    spans: Vec<Span>,
    /// The rows, when not in the shard: targets and weights.
    copy: Option<(Vec<u32>, Vec<f32>)>,
}

/// Where one position's row is: `light` entries from `start`, then `heavy`.
#[derive(Clone, Copy, Debug)]
struct Span {
    start: u64,
    light: u32,
    heavy: u32,
}

impl LightHeavy {
    /// The Δ of the split.
    pub fn delta(&self) -> f32 {
        self.delta
    }

    /// Whether the rows live in the shard (split in place).
    pub fn in_shard(&self) -> bool {
        self.copy.is_none()
    }

    /// Orders every row light first for bucket width `delta` (both parts
    /// ascending by flat id). `shard` is this trustee's, the one the split
    /// was made on.
    pub fn resplit(&mut self, shard: &mut Shard, delta: f32) {
        let spans = &mut self.spans;
        let mut row: Vec<(u32, f32)> = Vec::new();
        let mut again = |t: &mut [u32], w: &mut [f32]| {
            for s in spans.iter_mut() {
                let r =
                    s.start as usize..(s.start + u64::from(s.light) + u64::from(s.heavy)) as usize;
                row.clear();
                row.extend(
                    t[r.clone()]
                        .iter()
                        .copied()
                        .zip(w[r.clone()].iter().copied()),
                );
                row.sort_unstable_by_key(|e| e.0);
                *s = split_one(&mut row, delta, s.start);
                for (k, &(v, x)) in row.iter().enumerate() {
                    (t[r.start + k], w[r.start + k]) = (v, x);
                }
            }
        };
        match &mut self.copy {
            Some((t, w)) => again(t, w),
            None => {
                let names = shard.renamed().expect("split in place").clone();
                let done = shard.rewrite_rows(names, |_, t, w| again(t, w));
                debug_assert!(done, "a shard split in place can be rewritten again");
            }
        }
        self.delta = delta;
    }

    /// Every row's targets (flat ids) and weights: index them with
    /// [`light`](Self::light) and [`heavy`](Self::heavy). `shard` is this
    /// trustee's, the one the split was made on.
    #[inline(always)]
    pub fn arrays<'a>(&'a self, shard: &'a Shard) -> (&'a [u32], &'a [f32]) {
        match &self.copy {
            Some((t, w)) => (t, w),
            None => (shard.targets(), shard.weights()),
        }
    }

    /// Light entries of position `v`.
    #[inline(always)]
    pub fn light(&self, v: u32) -> Range<usize> {
        let s = self.spans[v as usize];
        s.start as usize..s.start as usize + s.light as usize
    }

    /// Heavy entries of position `v`.
    #[inline(always)]
    pub fn heavy(&self, v: u32) -> Range<usize> {
        let s = self.spans[v as usize];
        let a = s.start as usize + s.light as usize;
        a..a + s.heavy as usize
    }

    /// Heap bytes of the split (the spans, and the copy when there is one).
    pub fn heap_bytes(&self) -> u64 {
        let copy = self
            .copy
            .as_ref()
            .map_or(0, |(t, w)| 4 * (t.capacity() + w.capacity()));
        (self.spans.capacity() * std::mem::size_of::<Span>() + copy) as u64
    }
}

/// Neighbour lists as a simple graph: each list sorted and without repeats,
/// as offsets (one per list, plus one) and entries. For kernels that count
/// a neighbour once however often the input repeats the edge (betweenness,
/// triangles), as GAPBS's builder does; `entries` is a capacity hint.
///
/// ```
/// let (off, nbr) = graph_kernel::adjacency::simple_lists([&[3, 1, 3][..], &[], &[2, 2]].into_iter(), 5);
/// assert_eq!((off, nbr), (vec![0, 2, 2, 3], vec![1, 3, 2]));
/// ```
pub fn simple_lists<'a>(
    lists: impl Iterator<Item = &'a [u32]>,
    entries: usize,
) -> (Vec<usize>, Vec<u32>) {
    let mut off = vec![0usize];
    let mut nbr = Vec::with_capacity(entries);
    for list in lists {
        let start = nbr.len();
        nbr.extend_from_slice(list);
        nbr[start..].sort_unstable();
        let mut keep = start;
        for i in start..nbr.len() {
            if keep == start || nbr[i] != nbr[keep - 1] {
                nbr[keep] = nbr[i];
                keep += 1;
            }
        }
        nbr.truncate(keep);
        off.push(keep);
    }
    (off, nbr)
}
