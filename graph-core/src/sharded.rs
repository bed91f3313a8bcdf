//! The graph layer of the kernels: the shards of this rank, each entrusted to its
//! trustee (a gossamer worker), plus what every kernel shares (error type,
//! per-trustee fibers, a reduction group, gathering results).
//!
//! A [`ShardedGraph`] holds one [`Trust<TrusteeState>`] per trustee. The
//! property on trustee `t` owns `t`'s [`Shard`] and the per-trustee state of
//! every kernel that ran on it ([`TrusteeState::kernel`]): distances, parents,
//! buckets, frontiers, and any kernel-ready copy of the adjacency. That state is
//! created by the first run and reset by later ones, so running many roots on
//! one graph never rebuilds a CSR.
//!
//! Kernels run as one fiber per trustee ([`ShardedGraph::on_trustees`]): the
//! fiber on worker `t` reaches its own state with inline applies on its local
//! trust, every other trustee's state only by applying closures to their trusts,
//! and agrees with the other fibers through a [`Collective`].
//!
//! ```
//! use graph_core::sharded::ShardedGraph;
//! use graph_core::{EdgeList, PackedEdge, PartitionKind};
//! let degrees = gossamer::main(2, || {
//!     let list = EdgeList::from_edges(4, vec![PackedEdge::new(0, 1, 0.5), PackedEdge::new(1, 2, 0.5)]).unwrap();
//!     let g = ShardedGraph::build(&list, PartitionKind::Cyclic).unwrap();
//!     assert_eq!((g.num_vertices(), g.num_trustees()), (4, 2));
//!     // Sum of degrees, computed by each trustee on its own shard.
//!     g.on_trustees(|ctx| ctx.local.apply(|s| s.shard().num_entries()))
//! });
//! assert_eq!(degrees.iter().sum::<u64>(), 4);
//! ```

use std::any::Any;
use std::fmt;

use gossamer::{Collective, Party, Trust, WorkerId};

use crate::csr::{CsrError, Shard};
use crate::edge_list::EdgeList;
use crate::partition::{Partition, PartitionError, PartitionKind};

/// Why a graph could not be sharded or a kernel could not run.
#[derive(Clone, Debug, PartialEq)]
pub enum KernelError {
    /// The search root is not a vertex of the graph.
    RootOutOfRange {
        /// The requested root.
        root: u64,
        /// Vertex count of the graph.
        vertices: u64,
    },
    /// The partition could not be made.
    Partition(PartitionError),
    /// The CSR could not be built (bad edge list).
    Csr(CsrError),
    /// Called outside a gossamer runtime fiber, or with an unusable setup; the
    /// message says what to do.
    Runtime(String),
    /// A kernel parameter is out of range; the message says which.
    Config(String),
}

impl fmt::Display for KernelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KernelError::RootOutOfRange { root, vertices } => write!(
                f,
                "search root {root} is not a vertex: the graph has vertices 0..{vertices}"
            ),
            KernelError::Partition(e) => write!(f, "cannot partition the graph: {e}"),
            KernelError::Csr(e) => write!(f, "cannot shard the graph: {e}"),
            KernelError::Runtime(m) | KernelError::Config(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for KernelError {}

impl From<CsrError> for KernelError {
    fn from(e: CsrError) -> Self {
        KernelError::Csr(e)
    }
}

impl From<PartitionError> for KernelError {
    fn from(e: PartitionError) -> Self {
        KernelError::Partition(e)
    }
}

/// The property on one trustee: its shard and the kernels' state for it.
pub struct TrusteeState {
    shard: Shard,
    kernels: Vec<Box<dyn Any + Send>>,
}

impl fmt::Debug for TrusteeState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "TrusteeState of trustee {} ({} vertices, {} entries, {} kernel states)",
            self.shard.trustee(),
            self.shard.num_local_vertices(),
            self.shard.num_entries(),
            self.kernels.len()
        )
    }
}

impl TrusteeState {
    /// This trustee's adjacency.
    #[inline]
    pub fn shard(&self) -> &Shard {
        &self.shard
    }

    /// This trustee's adjacency, to [rewrite in place](Shard::rewrite_rows)
    /// (the only change a shard takes; the kernel calls
    /// [`ShardedGraph::mark_rows_rewritten`] first).
    #[inline]
    pub fn shard_mut(&mut self) -> &mut Shard {
        &mut self.shard
    }

    /// The shard and kernel state `S` of this trustee, creating the state with
    /// `init` on first use. One state per type: a kernel keeps its per-trustee
    /// data (and any kernel-ready adjacency) in its own type and resets it per run.
    #[inline]
    pub fn kernel<S: Any + Send>(&mut self, init: impl FnOnce(&Shard) -> S) -> (&Shard, &mut S) {
        let i = match self.kernels.iter().position(|k| k.is::<S>()) {
            Some(i) => i,
            None => {
                let s = init(&self.shard);
                self.kernels.push(Box::new(s));
                self.kernels.len() - 1
            }
        };
        let s = self.kernels[i]
            .downcast_mut::<S>()
            .expect("kernel state has the type it was found by");
        (&self.shard, s)
    }

    /// [`kernel`](Self::kernel) with the shard writable, for a kernel that
    /// [rewrites its rows in place](Shard::rewrite_rows) while it sets up.
    #[inline]
    pub fn kernel_mut<S: Any + Send>(
        &mut self,
        init: impl FnOnce(&Shard) -> S,
    ) -> (&mut Shard, &mut S) {
        self.kernel(init);
        let s = self
            .kernels
            .iter_mut()
            .find_map(|k| k.downcast_mut::<S>())
            .expect("created just above");
        (&mut self.shard, s)
    }

    /// Drops kernel state `S` (e.g. to free memory between kernels).
    pub fn drop_kernel<S: Any + Send>(&mut self) {
        self.kernels.retain(|k| !k.is::<S>());
    }

    /// A trustee's state holding `shard` and no kernel state yet.
    pub(crate) fn new(shard: Shard) -> Self {
        TrusteeState {
            shard,
            kernels: Vec::new(),
        }
    }

    /// Takes this trustee's shard out (leaving an empty one of the same
    /// shape) and drops every kernel state made for it: the first step of
    /// a block move ([`ShardedGraph::move_blocks`]).
    pub(crate) fn take_shard(&mut self) -> Shard {
        self.kernels.clear();
        let (p, t) = (*self.shard.partition(), self.shard.trustee());
        let n = p.local_count(t) as usize;
        let empty = Shard::from_parts(p, t, vec![0; n + 1], Vec::new(), Vec::new());
        std::mem::replace(&mut self.shard, empty)
    }

    /// Puts `shard` in place of this trustee's shard (the last step of a
    /// distributed build), dropping every kernel state made for the old one.
    pub(crate) fn replace_shard(&mut self, shard: Shard) {
        self.kernels.clear();
        self.shard = shard;
    }
}

/// What a kernel fiber on one trustee gets from [`ShardedGraph::on_trustees`].
pub struct TrusteeCtx {
    /// Global index of this trustee (== its worker on this rank).
    pub me: u32,
    /// The partition of the graph.
    pub partition: Partition,
    /// This trustee's own state (applies on it run inline).
    pub local: Trust<TrusteeState>,
    /// Every trustee's state, indexed by trustee (`peers[me]` is `local`).
    pub peers: Vec<Trust<TrusteeState>>,
    /// This fiber's party in the graph's reduction group.
    pub party: Party,
}

impl TrusteeCtx {
    /// The context of trustee `t`'s fiber, on its worker: its own trust
    /// among `peers` and its party in the graph's `collective`.
    fn of(
        t: usize,
        partition: Partition,
        peers: Vec<Trust<TrusteeState>>,
        collective: &Collective,
    ) -> TrusteeCtx {
        TrusteeCtx {
            me: t as u32,
            partition,
            local: peers[t].clone(),
            party: collective.party(),
            peers,
        }
    }
}

/// The shards of this rank, entrusted to their trustees. See the module docs.
pub struct ShardedGraph {
    partition: Partition,
    num_edges_input: u64,
    directed: bool,
    /// The shards keep their weights ([`Shard::is_weighted`](crate::Shard::is_weighted)).
    weighted: bool,
    trustees: Vec<Trust<TrusteeState>>,
    collective: Collective,
    /// Which kernel rewrote the shards' rows in place, if one did
    /// ([`ShardedGraph::mark_rows_rewritten`]).
    rewritten_by: std::sync::OnceLock<&'static str>,
}

impl fmt::Debug for ShardedGraph {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ShardedGraph({} vertices, {} input edges, {:?} over {} trustees)",
            self.partition.num_vertices(),
            self.num_edges_input,
            self.partition.kind(),
            self.trustees.len()
        )
    }
}

impl ShardedGraph {
    /// Partitions `list` over this runtime's workers (one trustee each), builds
    /// the shards in parallel (rayon; loading only) and entrusts shard `t` to
    /// worker `t`.
    ///
    /// Call from a fiber inside the gossamer runtime; otherwise (or in delegated
    /// context) returns [`KernelError::Runtime`].
    pub fn build(list: &EdgeList<'_>, kind: PartitionKind) -> Result<Self, KernelError> {
        Self::build_with(list, kind, false)
    }

    /// [`build`](Self::build) with the records read as arcs `u -> v` when
    /// `directed` (rows of out-edges plus an in-edge index, see
    /// [`Shard::is_directed`](crate::Shard::is_directed)).
    pub fn build_with(
        list: &EdgeList<'_>,
        kind: PartitionKind,
        directed: bool,
    ) -> Result<Self, KernelError> {
        let workers = in_fiber("ShardedGraph::build")?;
        let partition = Partition::new(kind, list.num_vertices(), 1, workers as u32)?;
        let shards = crate::csr::build_rank_with(list, &partition, 0, directed)?;
        let mut g = Self::entrust(partition, list.num_edges(), shards);
        g.directed = directed;
        Ok(g)
    }

    /// Whether the graph is directed (its shards hold out-edges in their rows).
    pub fn is_directed(&self) -> bool {
        self.directed
    }

    /// Marks the graph directed (its shards were built so).
    pub(crate) fn set_directed(&mut self, directed: bool) {
        self.directed = directed;
    }

    /// Whether the shards keep a weight per entry: false when the graph was
    /// built for kernels that never read them
    /// ([`Unweighted`](crate::construct::Unweighted)), which then read
    /// every weight as 1.0 ([`Shard::neighbors`](crate::Shard::neighbors)).
    pub fn is_weighted(&self) -> bool {
        self.weighted
    }

    /// Records whether the shards were built with their weights.
    pub(crate) fn set_weighted(&mut self, weighted: bool) {
        self.weighted = weighted;
    }

    /// Entrusts `shards[t]` to worker `t` (shipping the shards of other
    /// ranks' workers there) and wraps them as a graph.
    pub(crate) fn entrust(
        partition: Partition,
        num_edges_input: u64,
        shards: impl IntoIterator<Item = Shard>,
    ) -> Self {
        let trustees = shards
            .into_iter()
            .enumerate()
            .map(|(t, shard)| {
                if gossamer::is_local_worker(WorkerId(t)) {
                    gossamer::entrust_on(
                        WorkerId(t),
                        TrusteeState {
                            shard,
                            kernels: Vec::new(),
                        },
                    )
                } else {
                    // Another rank of a rack run: the shard travels serialized and
                    // is entrusted there by a fiber on its trustee.
                    gossamer::spawn_on_with(
                        WorkerId(t),
                        |shard: Shard| {
                            gossamer::entrust(TrusteeState {
                                shard,
                                kernels: Vec::new(),
                            })
                        },
                        shard,
                    )
                    .join()
                }
            })
            .collect();
        Self::from_trusts(partition, num_edges_input, trustees)
    }

    /// A graph of already entrusted trustee states (`trustees[t]` on worker `t`).
    pub(crate) fn from_trusts(
        partition: Partition,
        num_edges_input: u64,
        trustees: Vec<Trust<TrusteeState>>,
    ) -> Self {
        ShardedGraph {
            partition,
            num_edges_input,
            directed: false,
            weighted: true,
            trustees,
            collective: Collective::new(),
            rewritten_by: std::sync::OnceLock::new(),
        }
    }

    /// Takes `next` as the partition after a block move: the shards now
    /// installed follow it and hold global ids again.
    pub(crate) fn set_moved(&mut self, next: Partition) {
        self.partition = next;
        self.rewritten_by = std::sync::OnceLock::new();
    }

    /// Records that kernel `by` rewrites the shards' rows in place
    /// ([`Shard::rewrite_rows`]), before it does, on every rank alike (the
    /// kernel's settings decide, not whether a shard could be rewritten: a
    /// mapped one cannot). From then on the graph serves kernels that read
    /// rows through [`Shard::neighbors`] or the renamed ids (SSSP, BFS, the
    /// Graph500 validation), and [`check_global_ids`](Self::check_global_ids)
    /// refuses the others.
    pub fn mark_rows_rewritten(&self, by: &'static str) {
        let _ = self.rewritten_by.set(by);
    }

    /// `Ok` unless a kernel rewrote the rows in place
    /// ([`mark_rows_rewritten`](Self::mark_rows_rewritten)): kernels that
    /// read the shards' stored targets as global ids (`kernel` names the
    /// caller in the message) call this first.
    ///
    /// ```
    /// let list = graph_core::EdgeList::from_edges(2, vec![graph_core::PackedEdge::new(0, 1, 1.0)]).unwrap();
    /// gossamer::main(1, move || {
    ///     let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
    ///     assert!(g.check_global_ids("tc").is_ok());
    ///     g.mark_rows_rewritten("SSSP");
    ///     let e = g.check_global_ids("tc").unwrap_err().to_string();
    ///     assert!(e.contains("tc cannot run"), "{e}");
    /// });
    /// ```
    pub fn check_global_ids(&self, kernel: &str) -> Result<(), KernelError> {
        match self.rewritten_by.get() {
            None => Ok(()),
            Some(by) => Err(KernelError::Runtime(format!(
                "{kernel} cannot run on this graph: {by} rewrote its shards' rows in place to save memory, \
                 and {kernel} reads them by global id; build or open the graph again for {kernel}, \
                 or run {by} with `in_place: false` (it then keeps its own copy of the rows)"
            ))),
        }
    }

    /// Vertex count.
    pub fn num_vertices(&self) -> u64 {
        self.partition.num_vertices()
    }

    /// The vertex partition.
    pub fn partition(&self) -> &Partition {
        &self.partition
    }

    /// Records of the input edge list (self-loops and duplicates included).
    pub fn num_edges_input(&self) -> u64 {
        self.num_edges_input
    }

    /// Number of trustees (== workers of the runtime that built the graph).
    pub fn num_trustees(&self) -> usize {
        self.trustees.len()
    }

    /// Trustee `t`'s state.
    pub fn trustee(&self, t: usize) -> &Trust<TrusteeState> {
        &self.trustees[t]
    }

    /// Checks that `root` is a vertex.
    pub fn check_root(&self, root: u64) -> Result<(), KernelError> {
        if root >= self.num_vertices() {
            Err(KernelError::RootOutOfRange {
                root,
                vertices: self.num_vertices(),
            })
        } else {
            Ok(())
        }
    }

    /// Runs `f` in one fiber per trustee (on that trustee's worker), waits for
    /// all and returns their results by trustee. Call from a fiber; the calling
    /// fiber is suspended meanwhile.
    ///
    /// `f` is copied to every trustee, also to those in other processes of a rack
    /// run, so it captures only plain values (`Copy`), and results come back
    /// serialized from there.
    pub fn on_trustees<R>(
        &self,
        f: impl Fn(TrusteeCtx) -> R + Copy + Send + Sync + 'static,
    ) -> Vec<R>
    where
        R: Send + serde::Serialize + serde::de::DeserializeOwned + 'static,
    {
        self.on_trustees_with((), move |ctx, ()| f(ctx))
    }

    /// [`on_trustees`](Self::on_trustees) with a `payload` every fiber
    /// gets a clone of (serialized to trustees in other processes): for
    /// what a plain `Copy` closure cannot capture, such as a file path.
    pub fn on_trustees_with<P, R>(
        &self,
        payload: P,
        f: impl Fn(TrusteeCtx, P) -> R + Copy + Send + Sync + 'static,
    ) -> Vec<R>
    where
        P: Clone + Send + serde::Serialize + serde::de::DeserializeOwned + 'static,
        R: Send + serde::Serialize + serde::de::DeserializeOwned + 'static,
    {
        let handles: Vec<_> = (0..self.trustees.len())
            .map(|t| {
                let peers = self.trustees.clone();
                let collective = self.collective.clone();
                let partition = self.partition;
                let payload = payload.clone();
                if !gossamer::is_local_worker(WorkerId(t)) {
                    return gossamer::spawn_on_with(
                        WorkerId(t),
                        move |(peers, collective, partition, payload): (
                            Vec<Trust<TrusteeState>>,
                            Collective,
                            Partition,
                            P,
                        )| {
                            f(TrusteeCtx::of(t, partition, peers, &collective), payload)
                        },
                        (peers, collective, partition, payload),
                    );
                }
                gossamer::spawn_on(WorkerId(t), move || {
                    f(TrusteeCtx::of(t, partition, peers, &collective), payload)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join()).collect()
    }

    /// Gathers per-trustee vectors of local values (`get` runs on each trustee
    /// and returns one value per local vertex, in local order) into one vector
    /// indexed by global vertex id, through `apply_returning`.
    pub fn gather<T>(&self, fill: T, get: fn(&mut TrusteeState) -> Vec<T>) -> Vec<T>
    where
        T: Copy + serde::Serialize + serde::de::DeserializeOwned + 'static,
    {
        let mut out = vec![fill; self.num_vertices() as usize];
        for (t, trust) in self.trustees.iter().enumerate() {
            let part = trust.apply_returning(get);
            for (l, x) in part.into_iter().enumerate() {
                out[self.partition.global(t as u32, l as u64) as usize] = x;
            }
        }
        out
    }
}

/// Per block of a [`PartitionKind::Blocks`] partition: its edge-list
/// entries (row lengths, every edge counted at each end it is stored at)
/// and its live vertices (those with an entry), from the shards on every trustee: the two terms of the
/// balancer's cost model ([`crate::balance::block_cost`]). Empty for the
/// other kinds.
pub fn block_entries_and_live(g: &ShardedGraph) -> (Vec<u64>, Vec<u64>) {
    let p = *g.partition();
    let nb = p.num_blocks() as usize;
    let parts = g.on_trustees(move |ctx| {
        ctx.local.apply_returning(move |s| {
            let sh = s.shard();
            let mut out = vec![(0u64, 0u64); nb];
            for l in 0..sh.num_local_vertices() {
                let b = p.block_of(p.global(sh.trustee(), l)) as usize;
                let d = sh.degree(l);
                out[b].0 += d;
                out[b].1 += u64::from(d > 0);
            }
            out
        })
    });
    let (mut entries, mut live) = (vec![0u64; nb], vec![0u64; nb]);
    for part in parts {
        for (b, (e, l)) in part.into_iter().enumerate() {
            entries[b] += e;
            live[b] += l;
        }
    }
    (entries, live)
}

/// The vertices with at least one edge (degree > 0 in their shard: the
/// endpoints of non-loop input edges; on a directed graph, the vertices
/// with at least one out-arc, the tails), as a bitmap gathered to the caller:
/// vertex `v` is bit `v % 64` of word `v / 64`, `num_vertices.div_ceil(64)`
/// words. Each trustee sends the bits of its own vertices (by local index),
/// so O(vertices / 8) bytes travel. Call from a fiber.
///
/// The same set as the edge list's non-isolated vertices (self-loops do not
/// count), from which the Graph500 roots are drawn.
///
/// ```
/// use graph_core::sharded::{non_isolated_sharded, ShardedGraph};
/// use graph_core::{EdgeList, PackedEdge, PartitionKind};
/// let bits = gossamer::main(2, || {
///     let list = EdgeList::from_edges(70, vec![
///         PackedEdge::new(1, 66, 0.5),
///         PackedEdge::new(3, 3, 0.5), // a self-loop: 3 stays isolated
///     ]).unwrap();
///     non_isolated_sharded(&ShardedGraph::build(&list, PartitionKind::Block).unwrap())
/// });
/// assert_eq!(bits, [1 << 1, 1 << (66 - 64)]);
/// ```
pub fn non_isolated_sharded(g: &ShardedGraph) -> Vec<u64> {
    let parts = g.on_trustees(|ctx| {
        ctx.local.apply_returning(|s| {
            let sh = s.shard();
            let n = sh.num_local_vertices();
            let mut bits = vec![0u64; n.div_ceil(64) as usize];
            for l in (0..n).filter(|&l| sh.degree(l) > 0) {
                bits[(l / 64) as usize] |= 1 << (l % 64);
            }
            bits
        })
    });
    let mut out = vec![0u64; g.num_vertices().div_ceil(64) as usize];
    for (t, bits) in parts.iter().enumerate() {
        for (i, &word) in bits.iter().enumerate() {
            let mut rest = word;
            while rest != 0 {
                let l = (i * 64) as u64 + u64::from(rest.trailing_zeros());
                rest &= rest - 1;
                let v = g.partition.global(t as u32, l);
                out[(v / 64) as usize] |= 1 << (v % 64);
            }
        }
    }
    out
}

/// The worker count when called from a plain fiber of a gossamer runtime.
pub(crate) fn in_fiber(what: &str) -> Result<usize, KernelError> {
    let ok = std::panic::catch_unwind(gossamer::num_workers).ok();
    match ok {
        Some(n) => Ok(n),
        None => Err(KernelError::Runtime(format!(
            "{what} must be called from inside a gossamer runtime (a fiber of gossamer::main or Runtime::builder().run)"
        ))),
    }
}

/// The range of a graph's entry weights and its entries per vertex, over
/// every trustee: what SSSP derives its default Δ from
/// (`sssp::derived_delta`). Computed by [`ShardedGraph::weight_profile`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WeightProfile {
    /// The smallest entry weight (`+inf` without entries).
    pub min: f32,
    /// The largest entry weight (`-inf` without entries).
    pub max: f32,
    /// Adjacency entries, all trustees (self-loops are not entries).
    pub entries: u64,
    /// Vertices of the graph.
    pub vertices: u64,
}

impl WeightProfile {
    /// Entries per vertex, at least 1.
    pub fn average_degree(&self) -> f64 {
        (self.entries as f64 / self.vertices.max(1) as f64).max(1.0)
    }
}

impl ShardedGraph {
    /// The profile of the graph's adjacency: each trustee scans its shard's
    /// weights once. Call from a fiber of the graph's runtime.
    ///
    /// ```
    /// use graph_core::sharded::{ShardedGraph, WeightProfile};
    /// use graph_core::{EdgeList, PackedEdge, PartitionKind};
    /// // A path 0-1-...-9 with weights 1..=9 and a self-loop of weight 100,
    /// // which is no entry.
    /// let mut edges: Vec<PackedEdge> =
    ///     (0..9).map(|v| PackedEdge::new(v, v + 1, (v + 1) as f32)).collect();
    /// edges.push(PackedEdge::new(4, 4, 100.0));
    /// let list = EdgeList::from_edges(10, edges).unwrap();
    /// for threads in [1, 3] {
    ///     let list = list.clone();
    ///     let p = gossamer::main(threads, move || {
    ///         ShardedGraph::build(&list, PartitionKind::Cyclic).unwrap().weight_profile()
    ///     });
    ///     let want = WeightProfile { min: 1.0, max: 9.0, entries: 18, vertices: 10 };
    ///     assert_eq!(p, want, "{threads} trustees");
    ///     assert_eq!(p.average_degree(), 1.8);
    /// }
    /// ```
    pub fn weight_profile(&self) -> WeightProfile {
        let parts = self.on_trustees(|ctx| {
            ctx.local.apply_returning(|s| {
                let sh = s.shard();
                // Ready rows carry the whole graph's range: no pass.
                if let Some((lo, hi)) = sh.ready_weight_range() {
                    return (lo, hi, sh.num_entries());
                }
                let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
                for &w in sh.weights() {
                    lo = lo.min(w);
                    hi = hi.max(w);
                }
                (lo, hi, sh.num_entries())
            })
        });
        let empty = WeightProfile {
            min: f32::INFINITY,
            max: f32::NEG_INFINITY,
            entries: 0,
            vertices: self.num_vertices(),
        };
        parts
            .into_iter()
            .fold(empty, |p, (lo, hi, n)| WeightProfile {
                min: p.min.min(lo),
                max: p.max.max(hi),
                entries: p.entries + n,
                ..p
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edge_list::PackedEdge;

    fn path(n: u32) -> EdgeList<'static> {
        EdgeList::from_edges(
            u64::from(n),
            (1..n).map(|v| PackedEdge::new(v - 1, v, 0.5)).collect(),
        )
        .unwrap()
    }

    #[test]
    fn shards_land_on_their_trustees_and_gather_by_global_id() {
        for kind in [PartitionKind::Block, PartitionKind::Cyclic] {
            let got = gossamer::main(3, move || {
                let g = ShardedGraph::build(&path(10), kind).unwrap();
                let on = g.on_trustees(|ctx| {
                    let me = ctx.me;
                    let (t, w) = ctx.local.apply(|s| {
                        (
                            s.shard().trustee(),
                            gossamer::current_worker().index() as u32,
                        )
                    });
                    assert_eq!((t, w), (me, me));
                    ctx.peers.len()
                });
                assert_eq!(on, vec![3; 3]);
                // Degree per vertex, gathered: ends of the path have 1.
                g.gather(0u64, |s| {
                    let sh = s.shard();
                    (0..sh.num_local_vertices()).map(|l| sh.degree(l)).collect()
                })
            });
            assert_eq!(got, [1, 2, 2, 2, 2, 2, 2, 2, 2, 1]);
        }
    }

    #[test]
    fn kernel_state_is_created_once_and_kept() {
        let runs = gossamer::main(2, || {
            let g = ShardedGraph::build(&path(6), PartitionKind::Block).unwrap();
            for _ in 0..3 {
                g.trustee(1).apply(|s| {
                    let (sh, count) = s.kernel::<u64>(|sh| sh.num_local_vertices() * 100);
                    *count += sh.num_local_vertices();
                });
            }
            let v = g.trustee(1).apply(|s| *s.kernel::<u64>(|_| 0).1);
            g.trustee(1).apply(|s| s.drop_kernel::<u64>());
            (v, g.trustee(1).apply(|s| *s.kernel::<u64>(|_| 7).1))
        });
        assert_eq!(runs, (309, 7));
    }

    #[test]
    fn errors_are_clear() {
        let e = ShardedGraph::build(&path(3), PartitionKind::Block).unwrap_err();
        assert!(e.to_string().contains("inside a gossamer runtime"), "{e}");
        let msg = gossamer::main(1, || {
            let g = ShardedGraph::build(&path(3), PartitionKind::Block).unwrap();
            g.check_root(3).unwrap_err().to_string()
        });
        assert_eq!(
            msg,
            "search root 3 is not a vertex: the graph has vertices 0..3"
        );
    }
}
