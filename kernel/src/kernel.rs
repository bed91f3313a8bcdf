//! [`Kernel`]: the driver fiber of a program on one trustee: sweeps in
//! steps with the messages shipped between them, supersteps, the
//! direction of a step, and reductions.

use std::marker::PhantomData;

use gossamer::{Delegable, Op};
use graph_core::sharded::{TrusteeCtx, TrusteeState};
use graph_core::Partition;

use crate::forest::Forest;
use crate::frontier::FrontierMode;
use crate::local::Local;
use crate::net::KernelStats;
use crate::program::Program;
use crate::replica::{self, Replica};
use crate::state::core;

/// Work of a sweep step (vertices visited + row entries read + 4 per
/// record queued for another trustee) before the driver ships the queued
/// records and yields, so that its worker serves the other trustees.
pub const STEP_WORK: usize = 64 * 1024;

/// Work units charged per record queued for another trustee.
const RECORD_WORK: usize = 4;

/// Fixed-point scale of [`Kernel::sum_f64`]: 2^-40 resolution.
const F64_SCALE: f64 = (1u64 << 40) as f64;

/// [`Direction::Auto`] pulls only when the frontier's row entries reach
/// `n / PULL_MIN` as well: a pull sweeps every vertex, so a frontier whose
/// rows hold fewer entries than an eighth of the vertices is cheaper
/// pushed, however little is left unexplored. At the switch on a Graph500
/// graph `m_f` is about `2 n` (`m_u / alpha` with `m_u` near `32 n`), far
/// above; in the tail of a search on a road-like grid (a frontier of a few
/// thousand of 4 M vertices, little left unexplored) it kept 17-19 levels
/// of a 2048 x 2048 grid's search from sweeping all 4 M vertices each.
pub const PULL_MIN: f64 = 8.0;

/// Which way [`Kernel::step`] goes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Direction {
    /// Always push: the frontier's vertices send along their rows.
    Push,
    /// Always pull: every vertex reads the frontier of its in-neighbours.
    Pull,
    /// Beamer, Asanović and Patterson's switch (SC 2012), for kernels in
    /// which a vertex is active at most once per run (a search): pull when
    /// the frontier's row entries `m_f` exceed the entries of the vertices
    /// never active `m_u` over `alpha` (and reach `n /` [`PULL_MIN`]:
    /// see there); push again when the frontier shrinks below `n / beta`
    /// vertices.
    Auto {
        /// Pull when `m_f > m_u / alpha`.
        alpha: f64,
        /// Push again when the frontier shrinks below `n / beta`.
        beta: f64,
    },
}

/// The driver of a program on one trustee: [`run`](crate::run) starts one
/// fiber per trustee, which runs the kernel's body with a `&mut Kernel<P>`.
/// Every trustee must make the same sequence of collective calls (every
/// method that says "Collective").
///
/// ```
/// use graph_kernel::{run, Program};
/// struct Nop;
/// impl Program for Nop { type Msg = u32; fn receive(&mut self, _: u32, _: u32) -> bool { false } }
/// let list = graph_kernel::doc::path(6);
/// let out = gossamer::main(2, move || {
///     let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
///     run(&g, |_, _| Nop, |k| (k.me(), k.num_trustees(), k.num_vertices()))
/// });
/// assert_eq!(out, [(0, 2, 6), (1, 2, 6)]);
/// ```
pub struct Kernel<P: Program> {
    ctx: TrusteeCtx,
    supersteps: u32,
    direction: Direction,
    pulling: bool,
    pulls: u32,
    rounds: u64,
    last_active: u64,
    step_work: usize,
    /// Records a sweep sends between waits (0: it never waits).
    step_wait: u64,
    _p: PhantomData<fn() -> P>,
}

impl<P: Program> Kernel<P> {
    pub(crate) fn new(ctx: TrusteeCtx) -> Self {
        Kernel {
            ctx,
            supersteps: 0,
            direction: Direction::Push,
            pulling: false,
            pulls: 0,
            rounds: 0,
            last_active: 0,
            step_work: STEP_WORK,
            step_wait: 0,
            _p: PhantomData,
        }
    }

    pub(crate) fn ctx(&mut self) -> &mut TrusteeCtx {
        &mut self.ctx
    }

    /// This trustee's index.
    pub fn me(&self) -> u32 {
        self.ctx.me
    }

    /// Number of trustees.
    pub fn num_trustees(&self) -> u32 {
        self.ctx.partition.num_trustees()
    }

    /// Number of vertices of the whole graph.
    pub fn num_vertices(&self) -> u64 {
        self.ctx.partition.num_vertices()
    }

    /// The graph's partition.
    pub fn partition(&self) -> &Partition {
        &self.ctx.partition
    }

    /// Supersteps ended so far in this run.
    pub fn supersteps(&self) -> u32 {
        self.supersteps
    }

    /// Collective rounds (barriers and all-reduces) of this run's body so
    /// far: what a kernel pays per superstep in latency.
    pub fn rounds(&self) -> u64 {
        self.rounds
    }

    /// Steps of this run that pulled ([`step`](Self::step)).
    pub fn pulls(&self) -> u32 {
        self.pulls
    }

    /// Sets the work of one step of a sweep (default [`STEP_WORK`]): after
    /// it, the queued records leave and the fiber yields. Smaller steps
    /// ship sooner and wait less; larger ones pay less per step.
    pub fn set_step_work(&mut self, work: usize) {
        self.step_work = work.max(1);
    }

    /// Makes a sweep wait, after a step that brings the records it sent
    /// since the last wait to `records` or more, until all of them are
    /// applied (default 0: it never waits, only yields). A step ships its
    /// records from inside the trustee's own apply, where the runtime
    /// cannot hold the sender back, so a sweep that sends much while its
    /// receivers are busy, or not running at all on a loaded machine,
    /// queues records without bound (tc's out-lists: 60 MB at SCALE 20,
    /// more on a loaded machine); waiting bounds them to about `records`
    /// per trustee. Each wait costs a round trip, more when the receiver's
    /// thread waits for a core (waiting after every step of 16 Ki work
    /// made tc's sending 4x slower beside a busy loop on 2 cores).
    pub fn set_step_wait(&mut self, records: u64) {
        self.step_wait = records;
    }

    /// Runs `f` once on this trustee's [`Local`] view and returns its
    /// result; messages it sent are then on their way. Use it to seed a
    /// frontier, read or reset state, or finish a superstep locally.
    ///
    /// `f` may capture and return only plain values (it is [`Delegable`]);
    /// per-vertex results come out with [`gather`](crate::gather).
    pub fn with<U: Delegable>(&mut self, f: impl FnOnce(&mut Local<'_, P>) -> U + Delegable) -> U {
        self.ctx.local.apply(move |s| {
            let (shard, c) = core::<P>(s);
            let u = f(&mut c.local(shard));
            c.net.flush();
            u
        })
    }

    /// [`with`](Self::with) for a result that is not a plain value (a
    /// vector, a map): on the own trustee it comes back as it is, no copy.
    pub fn with_returning<U>(&mut self, f: impl FnOnce(&mut Local<'_, P>) -> U + Delegable) -> U
    where
        U: serde::Serialize + serde::de::DeserializeOwned + 'static,
    {
        self.ctx.local.apply_returning(move |s| {
            let (shard, c) = core::<P>(s);
            let u = f(&mut c.local(shard));
            c.net.flush();
            u
        })
    }

    /// Calls `f(local, v)` for every own vertex `v` (positions in order),
    /// in steps of [`set_step_work`](Self::set_step_work) work; between
    /// steps the queued records leave (a combining program's once a batch
    /// holds 64 Ki; the rest after the sweep) and the fiber yields, so
    /// messages overlap with computing and the other trustees are served.
    pub fn for_each_vertex(&mut self, f: impl Fn(&mut Local<'_, P>, u32) + Delegable) {
        self.sweep::<false, false>(f);
    }

    /// [`for_each_vertex`](Self::for_each_vertex) over the current frontier
    /// (queue order while sparse, position order when dense).
    pub fn for_each_active(&mut self, f: impl Fn(&mut Local<'_, P>, u32) + Delegable) {
        self.sweep::<true, false>(f);
    }

    /// The sweeps: over the frontier (`ACTIVE`) or every own vertex, in
    /// steps of counted work; a pull (`PULL`, over every vertex) sends
    /// nothing, so it runs in one step without counting (reading each
    /// row's length would double its memory traffic).
    fn sweep<const ACTIVE: bool, const PULL: bool>(
        &mut self,
        f: impl Fn(&mut Local<'_, P>, u32) + Delegable,
    ) {
        let budget = self.step_work;
        let wait = self.step_wait;
        // Records sent so far, read only by a sweep that waits: the step's
        // own result stays one `bool` (returning the count beside it made
        // cc's passes about 10% slower on a road grid).
        let sent = |k: &mut Self| k.ctx.local.apply(|s| core::<P>(s).1.net.stats.sent);
        let mut waited = if wait > 0 { sent(self) } else { 0 };
        self.ctx.local.apply(|s| core::<P>(s).1.cursor = 0);
        loop {
            let more = self.ctx.local.apply(move |s| {
                let (shard, c) = core::<P>(s);
                let mut pos = c.cursor;
                let n = c.adj.num_own() as usize;
                let crate::state::Core {
                    prog,
                    adj,
                    net,
                    cur,
                    next,
                    bits,
                    supersteps,
                    ..
                } = c;
                let bits = if PULL { bits.as_deref() } else { None };
                let mut l = Local::new(shard, adj, prog, net, cur, next, bits, *supersteps);
                let more = if PULL {
                    (0..n as u32).for_each(|v| f(&mut l, v));
                    false
                } else {
                    let mut work = 0usize;
                    loop {
                        let v = if ACTIVE {
                            match cur.at(&mut pos) {
                                Some(v) => v,
                                None => break false,
                            }
                        } else if pos < n {
                            pos += 1;
                            (pos - 1) as u32
                        } else {
                            break false;
                        };
                        if ACTIVE {
                            // `pos` is past `v` already.
                            l.prefetch_ahead(|k| cur.queued(pos + k - 1));
                        }
                        f(&mut l, v);
                        work += l.work(v);
                        if work + RECORD_WORK * l.queued() >= budget {
                            break true;
                        }
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
            if wait > 0 {
                let now = sent(self);
                if now - waited >= wait {
                    gossamer::wait_outstanding();
                    waited = now;
                    continue;
                }
            }
            gossamer::yield_now();
        }
    }

    /// Calls `pass` on this trustee until it returns false, shipping the
    /// records each call queued and yielding between calls (so that
    /// records from the other trustees are applied meanwhile). For kernels
    /// that order their own work, such as SSSP's buckets: a pass does a
    /// bounded amount and says whether there is more.
    pub fn passes(&mut self, pass: impl Fn(&mut Local<'_, P>) -> bool + Delegable) {
        loop {
            let more = self.ctx.local.apply(move |s| {
                let (shard, c) = core::<P>(s);
                let more = pass(&mut c.local(shard));
                c.net.flush();
                more
            });
            if !more {
                break;
            }
            gossamer::yield_now();
        }
    }

    /// [`passes`](Self::passes) on every trustee until the graph is quiet:
    /// after the passes, one all-reduce asks whether any trustee sent a
    /// record since the last ask (the all-reduce is also a flush, so such
    /// records have been applied, and may have given their owners work);
    /// if one did, every trustee runs its passes again. Ends when no
    /// trustee has work and nothing is in flight. Collective.
    pub fn settle(&mut self, pass: impl Fn(&mut Local<'_, P>) -> bool + Delegable) {
        loop {
            self.passes(pass);
            let sent = self
                .ctx
                .local
                .apply(|s| core::<P>(s).1.net.sent_since_mark());
            if !self.any(sent) {
                break;
            }
        }
    }

    /// Waits until every message sent so far by every trustee has been
    /// applied: this trustee's batches leave, then a barrier, which travels
    /// behind every party's batches (see [`gossamer::Collective`]).
    /// Collective.
    pub fn sync(&mut self) {
        self.ctx.local.apply(|s| core::<P>(s).1.net.flush());
        self.ctx.party.barrier();
        self.rounds += 1;
    }

    /// Ends the superstep: [`sync`](Self::sync), then the vertices
    /// activated meanwhile become the current frontier (and
    /// [`Program::next_superstep`] runs). Returns the size of the new
    /// frontier over all trustees, exact; 0 means no vertex is active
    /// anywhere. Collective.
    ///
    /// One collective round when no trustee sent a record in the superstep
    /// (every activation was an own vertex's, so each trustee's count was
    /// final when it arrived), else two: the first is the barrier (also a
    /// flush), the second sums the counts made after it.
    pub fn end_superstep(&mut self) -> u64 {
        let auto = matches!(self.direction, Direction::Auto { .. });
        // Flush, and the counts as they stand: final if nothing was sent
        // anywhere (this trustee's are not needed if it sent).
        let (sent, n, e, u) = self.ctx.local.apply(move |s| {
            let (shard, c) = core::<P>(s);
            c.net.flush();
            if c.net.sent_since_mark() {
                return (true, 0, 0, 0);
            }
            let (n, e) = c.next_counts(shard, auto);
            (false, n, e, c.unexplored.saturating_sub(e))
        });
        let [n_f, m_f, m_u, sent] = self.reduce(
            [n, e, u, u64::from(sent)],
            [Op::Sum, Op::Sum, Op::Sum, Op::Or],
        );
        // Every record of the superstep has been applied: the round is a
        // flush. Recount unless the counts above were final.
        let again = sent != 0;
        let (n, e, u) = self.ctx.local.apply(move |s| {
            let (shard, c) = core::<P>(s);
            let (n, e2) = c.advance(shard, auto && again);
            if !again {
                c.unexplored = c.unexplored.saturating_sub(e);
            }
            (n, e2, c.unexplored)
        });
        self.supersteps += 1;
        let [n_f, m_f, m_u] = match (again, auto) {
            (false, _) => [n_f, m_f, m_u],
            (true, false) => [self.sum(n), 0, 0],
            (true, true) => self.reduce([n, e, u], [Op::Sum; 3]),
        };
        self.choose(n_f, m_f, m_u);
        n_f
    }

    /// Ends the superstep in one collective round always (where
    /// [`end_superstep`](Self::end_superstep) takes two if records went
    /// between trustees), for loops that only need to know whether to go
    /// on: false when no vertex is active anywhere and nothing is in
    /// flight. True can mean an empty frontier (messages were in flight but
    /// activated nothing), which costs one more, empty, superstep.
    /// Collective.
    ///
    /// Why one round is enough: the all-reduce is also a flush, so when it
    /// returns every message of the superstep has been applied and the new
    /// frontier is complete; only the count a trustee contributed may miss
    /// what landed after it counted, so each trustee also reports whether
    /// it sent anything.
    pub fn end_superstep_quick(&mut self) -> bool {
        let (active, sent) = self.ctx.local.apply(|s| {
            let c = core::<P>(s).1;
            c.net.flush();
            (c.next.len() as u64, c.net.sent_since_mark())
        });
        let [active, sent] = self.reduce([active, u64::from(sent)], [Op::Sum, Op::Or]);
        self.ctx.local.apply(|s| {
            let (shard, c) = core::<P>(s);
            c.advance(shard, false);
        });
        self.supersteps += 1;
        active > 0 || sent != 0
    }

    /// Chooses how [`step`](Self::step) goes from the next step on
    /// (default [`Direction::Push`]).
    pub fn set_direction(&mut self, d: Direction) {
        self.direction = d;
        self.pulling = d == Direction::Pull;
        if let Direction::Auto { .. } = d {
            // What no vertex active since the run began has in its rows.
            self.ctx.local.apply(|s| {
                let (shard, c) = core::<P>(s);
                let active: u64 = c.cur.iter().map(|v| c.adj.rows(shard).degree(v)).sum();
                c.unexplored = c.adj.rows(shard).num_entries() - active;
            });
        }
    }

    fn choose(&mut self, n_f: u64, m_f: u64, m_u: u64) {
        if let Direction::Auto { alpha, beta } = self.direction {
            let n = self.num_vertices() as f64;
            let m = m_f as f64;
            if !self.pulling && m > m_u as f64 / alpha && m >= n / PULL_MIN {
                self.pulling = true;
            } else if self.pulling && n_f < self.last_active && (n_f as f64) < n / beta {
                self.pulling = false;
            }
            self.last_active = n_f;
        }
    }

    /// One superstep in the direction [`set_direction`](Self::set_direction)
    /// chose, ended with [`end_superstep`](Self::end_superstep) (whose
    /// count it returns).
    ///
    /// - **push**: `push(local, v)` for every active vertex `v`, which
    ///   sends along its row;
    /// - **pull**: first every trustee's frontier is shared as a bitmap
    ///   over flat ids (one per process, copied to the other processes of
    ///   a rack job); then `pull(local, v)` runs for every own vertex `v`,
    ///   reading its in-neighbours' membership with
    ///   [`Local::was_active`] and changing only its own state (a pull
    ///   sends nothing). Collective.
    pub fn step(
        &mut self,
        push: impl Fn(&mut Local<'_, P>, u32) + Delegable,
        pull: impl Fn(&mut Local<'_, P>, u32) + Delegable,
    ) -> u64 {
        if self.pulling {
            self.pulls += 1;
            self.share_frontier();
            self.sweep::<false, true>(pull);
        } else {
            self.sweep::<true, false>(push);
        }
        self.end_superstep()
    }

    /// Writes this trustee's words of the frontier bitmap and copies them
    /// to the other processes; returns after a barrier (every word written).
    fn share_frontier(&mut self) {
        let (a, b) = self.ctx.local.apply(|s| {
            let c = core::<P>(s).1;
            let bits = c.frontier_bits().clone();
            // The own positions are the flat ids from a multiple of 64
            // on: the frontier's bitmap is the own words as they are.
            let words = c.adj.own_words();
            bits.store(words.start, c.cur.words());
            (words.start, words.end)
        });
        // A trustee of another process may get these words before its own
        // first shared frontier, so whichever comes first makes the bitmap.
        replica::publish_by(&self.ctx, a..b, |s: &mut TrusteeState| {
            &**core::<P>(s).1.frontier_bits()
        });
        self.ctx.party.barrier();
        self.rounds += 1;
    }

    /// Copies this trustee's part of a [`Replica`] in its state (its words
    /// of a bitmap, its entries of a per-vertex array) to the trustees of
    /// the other processes; within a process the trustees share it
    /// already. Returns the requests sent. The next collective call orders
    /// the copies before any read.
    pub fn publish(&mut self, replica: impl Fn(&P) -> &Replica + Delegable) -> u64 {
        let (a, b) = self.ctx.local.apply(move |s| {
            let c = core::<P>(s).1;
            let r = replica(&c.prog);
            let own = if r.len() == c.adj.num_flat() as usize {
                c.adj.own_flat()
            } else {
                c.adj.own_words()
            };
            (own.start, own.end)
        });
        replica::publish_by(&self.ctx, a..b, move |s: &mut TrusteeState| {
            replica(&core::<P>(s).1.prog)
        })
    }

    /// [`publish`](Self::publish) of a per-vertex replica that the other
    /// processes read only along in-rows (a pull, as PageRank's): copies
    /// only the entries of own vertices with an out-neighbour in another
    /// process ([`Adjacency::boundary`](crate::Adjacency::boundary)), as
    /// `(index, value)` pairs when they are under a quarter of the own
    /// entries (the few next to a block's edge on a grid), else all own
    /// entries as `publish` does (a scrambled Kronecker graph). The other
    /// processes' copies of the other entries are left as they were, so
    /// they must not read them.
    ///
    /// # Panics
    ///
    /// If the replica is not per-vertex (one word per flat id).
    pub fn publish_to_neighbours(&mut self, replica: impl Fn(&P) -> &Replica + Delegable) -> u64 {
        let load = move |s: &mut TrusteeState| {
            let (shard, c) = core::<P>(s);
            let r = replica(&c.prog);
            assert_eq!(
                r.len(),
                c.adj.num_flat() as usize,
                "graph-kernel: publish_to_neighbours takes a per-vertex replica"
            );
            let own = c.adj.own_flat();
            let edge = c.adj.boundary(shard);
            if edge.len() < own.len() / 4 {
                replica::Words::Pairs(r.load_pairs(edge.iter().map(|&v| own.start + v as usize)))
            } else {
                replica::Words::Run(own.start, r.load(own))
            }
        };
        replica::publish_words(&self.ctx, load, move |s: &mut TrusteeState| {
            replica(&core::<P>(s).1.prog)
        })
    }

    /// Copies to the other processes the own words of a [`Forest`] that
    /// they can read and that changed since they were last sent (see
    /// [`forest`](crate::forest)); `changed` says whether any own word may
    /// have changed since the last publish (read only where every word is
    /// published: a scrambled graph, whose boundary is nearly every
    /// vertex). Returns the requests sent: 0 on every trustee means every
    /// process's copies of what it can read are current. Collective (the
    /// first call decides, over all trustees, whether to send whole runs:
    /// make it, with `changed` false, before the clock).
    pub fn publish_forest(
        &mut self,
        forest: impl Fn(&mut P) -> &mut Forest + Delegable,
        changed: bool,
    ) -> u64 {
        let (alone, undecided, wide) = self.ctx.local.apply(move |s| {
            let f = forest(&mut core::<P>(s).1.prog);
            (f.is_alone(), f.whole().is_none(), f.is_wide())
        });
        if alone {
            return 0;
        }
        let whole = if undecided {
            let whole = self.any(wide);
            self.ctx
                .local
                .apply(move |s| forest(&mut core::<P>(s).1.prog).set_whole(whole));
            whole
        } else {
            self.ctx
                .local
                .apply(move |s| forest(&mut core::<P>(s).1.prog).whole() == Some(true))
        };
        if whole && !changed {
            return 0;
        }
        replica::publish_words(
            &self.ctx,
            move |s: &mut TrusteeState| forest(&mut core::<P>(s).1.prog).changed(),
            move |s: &mut TrusteeState| &**forest(&mut core::<P>(s).1.prog),
        )
    }

    /// Chooses how this trustee keeps its frontiers from the next
    /// superstep on (default [`FrontierMode::Auto`]).
    pub fn set_frontier_mode(&mut self, mode: FrontierMode) {
        self.ctx.local.apply(move |s| {
            let c = core::<P>(s).1;
            c.mode = mode;
            c.next.set_mode(mode);
        });
    }

    /// Combines `vals` over all trustees lane by lane with `ops` (sum, min,
    /// max, or) and returns the result on every trustee. At most 8 lanes.
    /// Collective.
    pub fn reduce<const N: usize>(&mut self, vals: [u64; N], ops: [Op; N]) -> [u64; N] {
        self.rounds += 1;
        self.ctx.party.all_reduce(vals, ops)
    }

    /// Sum over all trustees (wrapping). Collective.
    pub fn sum(&mut self, v: u64) -> u64 {
        self.reduce([v], [Op::Sum])[0]
    }

    /// Minimum over all trustees. Collective.
    pub fn min(&mut self, v: u64) -> u64 {
        self.reduce([v], [Op::Min])[0]
    }

    /// Maximum over all trustees. Collective.
    pub fn max(&mut self, v: u64) -> u64 {
        self.reduce([v], [Op::Max])[0]
    }

    /// True on every trustee when `b` is true on any. Collective.
    pub fn any(&mut self, b: bool) -> bool {
        self.reduce([u64::from(b)], [Op::Or])[0] != 0
    }

    /// Sum of `f64` values over all trustees, in fixed point: each value is
    /// rounded to a multiple of 2^-40 (about 1e-12) and the total must stay
    /// below 2^23 in magnitude. Exact and independent of arrival order,
    /// which a floating-point sum would not be. Collective.
    pub fn sum_f64(&mut self, x: f64) -> f64 {
        let fixed = (x * F64_SCALE).round() as i64;
        (self.sum(fixed as u64) as i64) as f64 / F64_SCALE
    }

    /// This trustee's message counters for the run so far.
    pub fn stats(&mut self) -> KernelStats {
        self.ctx.local.apply(|s| core::<P>(s).1.net.stats)
    }
}
