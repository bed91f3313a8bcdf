//! [`run`], [`Kernel`] (the per-trustee driver fiber) and [`gather`].

use std::marker::PhantomData;

use gossamer::{Delegable, Op};
use graph_core::sharded::{KernelError, ShardedGraph, TrusteeCtx};
use graph_core::{Partition, Shard};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::frontier::FrontierMode;
use crate::local::{core, slot, Core, KernelStats, Local};
use crate::program::Program;

/// Work per sweep step (edges scanned + vertices visited) before the driver
/// sends its batches and yields, so that its worker serves the other trustees.
const STEP_BUDGET: u64 = 16 * 1024;

/// Fixed-point scale of [`Kernel::sum_f64`]: 2^-40 resolution.
const F64_SCALE: f64 = (1u64 << 40) as f64;

/// The driver of a kernel on one trustee: one fiber per trustee runs the body
/// given to [`run`] with a `&mut Kernel<P>`. It sweeps vertices in steps
/// (applying a closure to each on the trustee's own state, sending the batches
/// it queued between steps), ends supersteps, and agrees with the other
/// trustees through reductions. Every trustee must make the same sequence of
/// collective calls ([`end_superstep`](Self::end_superstep),
/// [`sync`](Self::sync), [`reduce`](Self::reduce) and its shorthands).
///
/// ```
/// use graph_kernel::{run, Program};
/// struct Nop;
/// impl Program for Nop { type Msg = u32; fn receive(&mut self, _: u32, _: u32) -> bool { false } }
/// let list = graph_kernel::doc::path(6);
/// let out = gossamer::main(2, move || {
///     let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
///     run(&g, |_| Nop, |k| (k.me(), k.num_trustees(), k.num_vertices()))
/// });
/// assert_eq!(out, [(0, 2, 6), (1, 2, 6)]);
/// ```
pub struct Kernel<P: Program> {
    ctx: TrusteeCtx,
    supersteps: u64,
    _p: PhantomData<fn() -> P>,
}

impl<P: Program> Kernel<P> {
    /// This trustee's index.
    ///
    /// See the example on [`Kernel`].
    pub fn me(&self) -> u32 {
        self.ctx.me
    }

    /// Number of trustees.
    ///
    /// See the example on [`Kernel`].
    pub fn num_trustees(&self) -> u32 {
        self.ctx.partition.num_trustees()
    }

    /// Number of vertices of the whole graph.
    ///
    /// See the example on [`Kernel`].
    pub fn num_vertices(&self) -> u64 {
        self.ctx.partition.num_vertices()
    }

    /// The graph's partition.
    ///
    /// ```
    /// # use graph_kernel::{run, Program};
    /// # struct Nop;
    /// # impl Program for Nop { type Msg = u32; fn receive(&mut self, _: u32, _: u32) -> bool { false } }
    /// # let list = graph_kernel::doc::path(6);
    /// let owners = gossamer::main(2, move || {
    ///     let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Cyclic).unwrap();
    ///     run(&g, |_| Nop, |k| k.partition().trustee_of(5))
    /// });
    /// assert_eq!(owners, [1, 1]);
    /// ```
    pub fn partition(&self) -> &Partition {
        &self.ctx.partition
    }

    /// Supersteps ended so far in this run ([`end_superstep`](Self::end_superstep) calls).
    ///
    /// ```
    /// # use graph_kernel::{run, Program};
    /// # struct Nop;
    /// # impl Program for Nop { type Msg = u32; fn receive(&mut self, _: u32, _: u32) -> bool { false } }
    /// # let list = graph_kernel::doc::path(6);
    /// let s = gossamer::main(2, move || {
    ///     let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Cyclic).unwrap();
    ///     run(&g, |_| Nop, |k| { k.end_superstep(); k.end_superstep(); k.supersteps() })
    /// });
    /// assert_eq!(s, [2, 2]);
    /// ```
    pub fn supersteps(&self) -> u64 {
        self.supersteps
    }

    /// Runs `f` once on this trustee's [`Local`] view and returns its result;
    /// updates it sent are then on their way (flushed). Use it to seed a
    /// frontier, read or reset state, or finish a superstep locally.
    ///
    /// `f` may capture and return only plain values (it is [`Delegable`], like
    /// every closure applied to a trust); per-vertex vectors come out with
    /// [`gather`].
    ///
    /// ```
    /// # use graph_kernel::{doc, run};
    /// # let list = doc::path(4);
    /// # gossamer::main(2, move || {
    /// # let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
    /// // Seed: the owner of vertex 2 activates it; the result comes back.
    /// let seeded = run(&g, doc::zeros, |k| k.with(|l| match l.local_of(2) {
    ///     Some(v) => { l.activate(v); true }
    ///     None => false,
    /// }));
    /// assert_eq!(seeded, [false, true]);
    /// # });
    /// ```
    pub fn with<U: Delegable>(&mut self, f: impl FnOnce(&mut Local<'_, P>) -> U + Delegable) -> U {
        self.ctx.local.apply(move |s| {
            let (shard, c) = core::<P>(s);
            let u = f(&mut c.local(shard));
            c.net.flush();
            u
        })
    }

    /// Calls `f(local, v)` for every local vertex `v` (a dense sweep in vertex
    /// order, ignoring the frontier). The sweep runs in steps of about 16 Ki
    /// edges; between steps the queued updates are sent (for a combining
    /// program, batches of at least 64 Ki records; the rest at the end of the
    /// sweep) and the fiber yields, so batches overlap with computation and
    /// peers are served.
    ///
    /// ```
    /// # use graph_kernel::{doc, run};
    /// # let list = doc::path(4);
    /// # gossamer::main(2, move || {
    /// # let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
    /// let visited = run(&g, doc::zeros, |k| {
    ///     k.for_each_vertex(|l, v| l.state().0[v as usize] = l.global(v) as u32 * 10);
    ///     k.with(|l| { let s = &l.state().0; [s[0], s[1]] })
    /// });
    /// assert_eq!(visited, [[0, 10], [20, 30]]);
    /// # });
    /// ```
    pub fn for_each_vertex(&mut self, f: impl Fn(&mut Local<'_, P>, u32) + Delegable) {
        self.sweep(f, false);
    }

    /// Calls `f(local, v)` for every vertex `v` of this trustee's current
    /// frontier (queue order while sparse, vertex order when dense), in steps
    /// like [`for_each_vertex`](Self::for_each_vertex).
    ///
    /// ```
    /// # use graph_kernel::{doc, run};
    /// # let list = doc::path(4);
    /// # gossamer::main(2, move || {
    /// # let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
    /// let r = run(&g, doc::zeros, |k| {
    ///     k.with(|l| l.activate(1)); // local vertex 1 on each trustee: 1 and 3
    ///     k.end_superstep();
    ///     k.for_each_active(|l, v| l.state().0[v as usize] += 1);
    ///     k.with(|l| { let s = &l.state().0; [s[0], s[1]] })
    /// });
    /// assert_eq!(r, [[0, 1], [0, 1]]);
    /// # });
    /// ```
    pub fn for_each_active(&mut self, f: impl Fn(&mut Local<'_, P>, u32) + Delegable) {
        self.sweep(f, true);
    }

    fn sweep(&mut self, f: impl Fn(&mut Local<'_, P>, u32) + Delegable, active: bool) {
        self.ctx.local.apply(|s| core::<P>(s).1.cursor = 0);
        loop {
            let more = self.ctx.local.apply(move |s| {
                let (shard, c) = core::<P>(s);
                let mut pos = c.cursor;
                let n = shard.num_local_vertices() as usize;
                let mut work = 0u64;
                let more = loop {
                    let v = if active {
                        match c.cur.at(&mut pos) {
                            Some(v) => v,
                            None => break false,
                        }
                    } else if pos < n {
                        pos += 1;
                        (pos - 1) as u32
                    } else {
                        break false;
                    };
                    f(&mut c.local(shard), v);
                    work += 1 + shard.degree(u64::from(v));
                    if work >= STEP_BUDGET {
                        break true;
                    }
                };
                c.cursor = pos;
                if more {
                    c.net.flush_step();
                } else {
                    c.net.flush();
                }
                more
            });
            if !more {
                break;
            }
            gossamer::yield_now();
        }
    }

    /// Waits until every update sent so far by every trustee has been applied
    /// (this trustee's batches answered, then a barrier). Collective.
    ///
    /// ```
    /// # use graph_kernel::{doc, run};
    /// # let list = doc::path(4);
    /// # gossamer::main(2, move || {
    /// # let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
    /// let r = run(&g, doc::zeros, |k| {
    ///     // Trustee 0 sends 5 to vertex 3 (owned by trustee 1).
    ///     k.with(|l| if l.me() == 0 { l.send(3, 5) });
    ///     k.sync();
    ///     k.with(|l| { let s = &l.state().0; [s[0], s[1]] }) // trustee 1 has applied it
    /// });
    /// assert_eq!(r[1], [0, 5]);
    /// # });
    /// ```
    pub fn sync(&mut self) {
        self.ctx.local.apply(|s| core::<P>(s).1.net.flush());
        gossamer::wait_outstanding();
        self.ctx.party.barrier();
    }

    /// Ends the superstep: [`sync`](Self::sync), then the vertices activated
    /// meanwhile become the current frontier (and the next one is emptied).
    /// Returns the size of the new frontier over all trustees; 0 means no
    /// vertex is active anywhere (the usual termination test). Collective.
    ///
    /// ```
    /// # use graph_kernel::{doc, run};
    /// # let list = doc::path(4);
    /// # gossamer::main(2, move || {
    /// # let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
    /// let r = run(&g, doc::zeros, |k| {
    ///     k.with(|l| if l.me() == 0 { l.send(2, 1); l.send(3, 1) }); // doc::Sum activates
    ///     let first = k.end_superstep();
    ///     let second = k.end_superstep(); // nothing activated meanwhile
    ///     (first, second)
    /// });
    /// assert_eq!(r, [(2, 0), (2, 0)]);
    /// # });
    /// ```
    pub fn end_superstep(&mut self) -> u64 {
        self.sync();
        let n = self.ctx.local.apply(|s| {
            let c = core::<P>(s).1;
            c.net.sent_since_mark();
            c.advance()
        });
        self.supersteps += 1;
        self.sum(n)
    }

    /// Ends the superstep in one collective round instead of the two of
    /// [`end_superstep`](Self::end_superstep), for loops that only need to
    /// know whether to go on. Returns false when no vertex is active
    /// anywhere (every update sent has been applied and activated nothing
    /// more): the same termination test. True can mean a superstep whose
    /// frontier turns out empty (updates were in flight, but activated
    /// nothing), which costs one more, empty, superstep. Collective.
    ///
    /// Why one round is enough: the all-reduce is also a flush (requests
    /// between two workers run in issue order and every contribution
    /// travels behind its sender's batches), so when it returns every
    /// update of the superstep has been applied and the new frontier is
    /// complete; only the count a trustee contributed may miss what landed
    /// after it counted, so each trustee also reports whether it sent
    /// anything.
    ///
    /// ```
    /// # use graph_kernel::{doc, run};
    /// # let list = doc::path(4);
    /// # gossamer::main(2, move || {
    /// # let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
    /// let r = run(&g, doc::zeros, |k| {
    ///     k.with(|l| if l.me() == 0 { l.send(3, 1) }); // doc::Sum activates 3
    ///     let first = k.end_superstep_quick();
    ///     let active = k.with(|l| l.frontier().len());
    ///     let second = k.end_superstep_quick(); // nothing sent or activated
    ///     (first, active, second)
    /// });
    /// assert_eq!(r, [(true, 0, false), (true, 1, false)]);
    /// # });
    /// ```
    pub fn end_superstep_quick(&mut self) -> bool {
        let (active, sent) = self.ctx.local.apply(|s| {
            let c = core::<P>(s).1;
            c.net.flush();
            (c.next.len() as u64, c.net.sent_since_mark())
        });
        let [active, sent] = self.reduce([active, u64::from(sent)], [Op::Sum, Op::Or]);
        // Every update of the superstep has landed: the frontier is complete.
        self.ctx.local.apply(|s| core::<P>(s).1.advance());
        self.supersteps += 1;
        active > 0 || sent != 0
    }

    /// Chooses how this trustee keeps its frontiers from the next superstep on
    /// (default [`FrontierMode::Auto`]).
    ///
    /// ```
    /// # use graph_kernel::{run, FrontierMode, Program};
    /// # struct Nop;
    /// # impl Program for Nop { type Msg = u32; fn receive(&mut self, _: u32, _: u32) -> bool { false } }
    /// # let list = graph_kernel::doc::path(6);
    /// let sparse = gossamer::main(2, move || {
    ///     let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Cyclic).unwrap();
    ///     run(&g, |_| Nop, |k| {
    ///         k.set_frontier_mode(FrontierMode::Dense);
    ///         k.with(|l| l.activate(0));
    ///         k.end_superstep();
    ///         k.with(|l| l.frontier().is_sparse())
    ///     })
    /// });
    /// assert_eq!(sparse, [false, false]);
    /// ```
    pub fn set_frontier_mode(&mut self, mode: FrontierMode) {
        self.ctx.local.apply(move |s| {
            let c = core::<P>(s).1;
            c.mode = mode;
            c.next.set_mode(mode);
        });
    }

    /// Combines `vals` over all trustees lane by lane with `ops` (sum, min, max,
    /// or) and returns the result on every trustee. Collective; at most 8 lanes.
    ///
    /// ```
    /// # use graph_kernel::{run, Program};
    /// # struct Nop;
    /// # impl Program for Nop { type Msg = u32; fn receive(&mut self, _: u32, _: u32) -> bool { false } }
    /// use gossamer::Op;
    /// # let list = graph_kernel::doc::path(6);
    /// let r = gossamer::main(2, move || {
    ///     let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Cyclic).unwrap();
    ///     run(&g, |_| Nop, |k| {
    ///         let me = u64::from(k.me());
    ///         let lanes = k.reduce([me + 1, me + 1, me + 1, me], [Op::Sum, Op::Min, Op::Max, Op::Or]);
    ///         (lanes, k.sum(1), k.min(me), k.max(me), k.any(me == 1), k.sum_f64(0.25 - me as f64))
    ///     })
    /// });
    /// assert_eq!(r[0], ([3, 1, 2, 1], 2, 0, 1, true, -0.5));
    /// assert_eq!(r[0], r[1]);
    /// ```
    pub fn reduce<const N: usize>(&mut self, vals: [u64; N], ops: [Op; N]) -> [u64; N] {
        self.ctx.party.all_reduce(vals, ops)
    }

    /// Sum over all trustees (wrapping). Collective. See [`reduce`](Self::reduce).
    pub fn sum(&mut self, v: u64) -> u64 {
        self.ctx.party.sum(v)
    }

    /// Minimum over all trustees. Collective. See [`reduce`](Self::reduce).
    pub fn min(&mut self, v: u64) -> u64 {
        self.ctx.party.min(v)
    }

    /// Maximum over all trustees. Collective. See [`reduce`](Self::reduce).
    pub fn max(&mut self, v: u64) -> u64 {
        self.reduce([v], [Op::Max])[0]
    }

    /// True on every trustee when `b` is true on any. Collective. See [`reduce`](Self::reduce).
    pub fn any(&mut self, b: bool) -> bool {
        self.ctx.party.any(b)
    }

    /// Sum of `f64` values over all trustees, in fixed point: each value is
    /// rounded to a multiple of 2^-40 (about 1e-12) and the total must stay
    /// below 2^23 in magnitude (larger values saturate). Exact and independent
    /// of arrival order, which a floating-point sum would not be. Collective.
    /// See [`reduce`](Self::reduce).
    pub fn sum_f64(&mut self, x: f64) -> f64 {
        let fixed = (x * F64_SCALE).round() as i64;
        (self.sum(fixed as u64) as i64) as f64 / F64_SCALE
    }

    /// This trustee's counters for the run so far.
    ///
    /// ```
    /// # use graph_kernel::{run, Program};
    /// # struct Nop;
    /// # impl Program for Nop { type Msg = u32; fn receive(&mut self, _: u32, _: u32) -> bool { false } }
    /// # let list = graph_kernel::doc::path(4);
    /// let stats = gossamer::main(2, move || {
    ///     let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
    ///     run(&g, |_| Nop, |k| {
    ///         // Every vertex sends 1 to each neighbour; only edge 1-2 crosses trustees.
    ///         k.for_each_vertex(|l, v| for &u in l.neighbors(v) { l.send(u, 1) });
    ///         k.sync();
    ///         k.stats()
    ///     })
    /// });
    /// assert_eq!((stats[0].sent, stats[0].local), (1, 2));
    /// ```
    pub fn stats(&mut self) -> KernelStats {
        self.ctx.local.apply(|s| core::<P>(s).1.net.stats)
    }
}

/// Runs a kernel on `graph`: on every trustee, `init` builds the program state
/// from the trustee's shard, then one fiber per trustee runs `body` with its
/// [`Kernel`]; returns the bodies' results by trustee. Call from a fiber of the
/// runtime that built the graph.
///
/// The state stays on the trustees after the run (read it with [`gather`] or
/// another `run`); a new `run` of the same program type replaces it.
///
/// Both closures travel to the trustees as bytes (also to other processes of a
/// rack run), so they capture only plain values; results come back serialized.
///
/// # Panics
///
/// When a kernel rewrote the graph's rows in place (SSSP with
/// `in_place`: see [`ShardedGraph::check_global_ids`]): the shards'
/// stored targets are no longer global ids, which is what
/// [`Local::neighbors`](crate::Local::neighbors) hands out. Kernels that
/// return errors call `check_global_ids` themselves first.
///
/// ```
/// use graph_kernel::{gather, run, Program};
/// /// Degree of every vertex, counted by the neighbours' owners.
/// struct Degree(Vec<u32>);
/// impl Program for Degree {
///     type Msg = u32;
///     fn receive(&mut self, v: u32, one: u32) -> bool { self.0[v as usize] += one; false }
/// }
/// let list = graph_kernel::doc::path(5);
/// let deg = gossamer::main(2, move || {
///     let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Cyclic).unwrap();
///     run(&g, |s| Degree(vec![0; s.num_local_vertices() as usize]), |k| {
///         k.for_each_vertex(|l, v| for &u in l.neighbors(v) { l.send(u, 1) });
///         k.sync();
///     });
///     gather(&g, 0, |d: &Degree| d.0.clone()).unwrap()
/// });
/// assert_eq!(deg, [1, 2, 2, 2, 1]);
/// ```
pub fn run<P, R>(
    graph: &ShardedGraph,
    init: impl Fn(&Shard) -> P + Delegable + Sync,
    body: impl Fn(&mut Kernel<P>) -> R + Copy + Send + Sync + 'static,
) -> Vec<R>
where
    P: Program,
    R: Send + Serialize + DeserializeOwned + 'static,
{
    if let Err(e) = graph.check_global_ids("graph_kernel::run") {
        panic!("{e}");
    }
    graph.on_trustees(move |mut ctx: TrusteeCtx| {
        let me = ctx.me;
        let peers = ctx.peers.clone();
        ctx.local.apply_with(
            move |s, peers| {
                let (shard, c) = slot::<P>(s);
                *c = None; // the previous run's state goes first
                *c = Some(Core::new(shard, init(shard), me, peers));
            },
            peers,
        );
        // No update may reach a trustee before its state exists.
        ctx.party.barrier();
        let mut k = Kernel {
            ctx,
            supersteps: 0,
            _p: PhantomData,
        };
        let r = body(&mut k);
        // Everything sent is applied before the peers list is dropped.
        k.sync();
        k.ctx.local.apply(|s| core::<P>(s).1.net.peers.clear());
        r
    })
}

/// Collects one value per vertex from every trustee's program state, indexed
/// by global vertex id: `get` runs on each trustee and returns its values by
/// local index (`fill` where a trustee returns fewer). Call from a fiber after
/// [`run`]; returns [`KernelError::Runtime`] if `P` never ran on `graph`.
///
/// ```
/// use graph_kernel::{doc, gather, run};
/// let list = doc::path(5);
/// let (ids, missing) = gossamer::main(2, move || {
///     let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Cyclic).unwrap();
///     let missing = gather(&g, 0, |s: &doc::Sum| s.0.clone()).is_err(); // not run yet
///     run(&g, doc::zeros, |k| k.for_each_vertex(|l, v| l.state().0[v as usize] = l.global(v) as u32));
///     (gather(&g, 0, |s: &doc::Sum| s.0.clone()).unwrap(), missing)
/// });
/// assert_eq!(ids, [0, 1, 2, 3, 4]); // by global id, whoever owns them
/// assert!(missing);
/// ```
pub fn gather<P, T>(
    graph: &ShardedGraph,
    fill: T,
    get: impl Fn(&P) -> Vec<T> + Delegable,
) -> Result<Vec<T>, KernelError>
where
    P: Program,
    T: Copy + Serialize + DeserializeOwned + 'static,
{
    let p = *graph.partition();
    let mut out = vec![fill; p.num_vertices() as usize];
    for t in 0..graph.num_trustees() {
        let part: Option<Vec<T>> = graph
            .trustee(t)
            .apply_returning(move |s| slot::<P>(s).1.as_ref().map(|c| get(&c.prog)));
        let part = part.ok_or_else(|| {
            KernelError::Runtime(format!(
                "gather: kernel `{}` has not run on this graph (call graph_kernel::run first)",
                std::any::type_name::<P>()
            ))
        })?;
        for (l, x) in part
            .into_iter()
            .enumerate()
            .take(p.local_count(t as u32) as usize)
        {
            out[p.global(t as u32, l as u64) as usize] = x;
        }
    }
    Ok(out)
}
