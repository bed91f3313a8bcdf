//! [`run`]: a program on every trustee of a graph, one driver fiber each;
//! [`Setup`], what a program's state is made from; [`gather`] and
//! [`gather_flat`], per-vertex results by global id.

use std::sync::Arc;

use gossamer::Delegable;
use graph_core::sharded::{KernelError, ShardedGraph};
use graph_core::validate::NO_PARENT;
use graph_core::Shard;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::adjacency::{self, Adjacency, Rows, NO_FLAT};
use crate::kernel::Kernel;
use crate::net::Net;
use crate::program::Program;
use crate::state::{core, slot, Core};

/// What a program's state is made from on one trustee: the renumbered
/// adjacency and the shard (see [`run`]).
pub struct Setup<'a> {
    shard: &'a mut Shard,
    adj: &'a Arc<Adjacency>,
}

impl Setup<'_> {
    /// The renumbered adjacency, shared by every kernel on this graph.
    pub fn adjacency(&self) -> &Arc<Adjacency> {
        self.adj
    }

    /// Number of own vertices: the length of a per-vertex array.
    pub fn num_own(&self) -> u32 {
        self.adj.num_own()
    }

    /// The rows of the own vertices (flat ids; see [`Local::row`](crate::Local::row)).
    pub fn rows(&self) -> &Rows {
        self.adj.rows(self.shard)
    }

    /// The in-rows (the rows on an undirected graph).
    pub fn in_rows(&self) -> &Rows {
        self.adj.in_rows(self.shard)
    }

    /// The position of global vertex `g` if this trustee owns it.
    pub fn position_of(&self, g: u64) -> Option<u32> {
        self.adj.own(self.adj.flat_of(g as u32))
    }

    /// The shard as built (global ids, weights).
    pub fn shard(&self) -> &Shard {
        self.shard
    }

    /// The shard, for a kernel that rewrites its rows in place
    /// ([`Adjacency::light_heavy`]).
    pub fn shard_mut(&mut self) -> &mut Shard {
        self.shard
    }
}

/// Runs a kernel on `graph`: on every trustee, `init` makes the program
/// state (given the previous run's state of the same type, if any, so a
/// kernel run once per root resets its arrays instead of allocating them),
/// then one fiber per trustee runs `body` with its [`Kernel`]; returns the
/// bodies' results by trustee. Call from a fiber of the runtime that built
/// the graph.
///
/// The first kernel on a graph prepares its renumbered
/// [`Adjacency`](crate::Adjacency) (collective, once; every later kernel
/// shares it). The state stays on the trustees after the run (read it with
/// [`gather`] or another `run`).
///
/// Both closures travel to the trustees as bytes (also to other processes
/// of a rack run), so they capture only plain values; results come back
/// serialized.
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
///     run(&g, |s, _| Degree(vec![0; s.num_own() as usize]), |k| {
///         k.for_each_vertex(|l, v| for &f in l.row(v) { l.send(f, 1) });
///         k.sync();
///     });
///     gather(&g, 0, |d: &Degree, v| d.0[v as usize]).unwrap()
/// });
/// assert_eq!(deg, [1, 2, 2, 2, 1]);
/// ```
pub fn run<P, R>(
    graph: &ShardedGraph,
    init: impl Fn(&mut Setup<'_>, Option<P>) -> P + Delegable + Sync,
    body: impl Fn(&mut Kernel<P>) -> R + Copy + Send + Sync + 'static,
) -> Vec<R>
where
    P: Program,
    R: Send + Serialize + DeserializeOwned + 'static,
{
    graph.on_trustees(move |mut ctx| {
        adjacency::prepare(&mut ctx);
        ctx.local.apply_with(
            move |s, peers| {
                let adj = adjacency::shared(s).expect("prepared just above");
                let (shard, slot) = slot::<P>(s);
                let mut c = match slot.take() {
                    // The previous run's driver state and program are reused.
                    Some(c) if Arc::ptr_eq(&c.adj, &adj) => {
                        let (prog, mut rest) = c.into_parts();
                        rest.net.peers = peers;
                        Core::from_parts(init(&mut Setup { shard, adj: &adj }, Some(prog)), rest)
                    }
                    _ => {
                        let p = *adj.partition();
                        let counts = (0..p.num_trustees()).map(|t| p.local_count(t) as u32);
                        let net = Net::new(peers, counts);
                        let prog = init(&mut Setup { shard, adj: &adj }, None);
                        Core::new(prog, adj, net)
                    }
                };
                c.begin();
                *slot = Some(c);
            },
            ctx.peers.clone(),
        );
        // No message may reach a trustee before its state exists.
        ctx.party.barrier();
        let mut k = Kernel::new(ctx);
        let r = body(&mut k);
        // Everything sent is applied before the peers list is dropped (a
        // trust held in a trustee's state would keep the graph alive).
        k.sync();
        k.ctx().local.apply(|s| core::<P>(s).1.net.peers.clear());
        r
    })
}

/// Collects one value per vertex from every trustee's program state, by
/// global vertex id: `get(state, v)` runs on each trustee for each own
/// position `v`. `fill` stands for the values of vertices no trustee
/// reports (none, in a graph every trustee of which ran `P`). Call from a
/// fiber after [`run`]; returns [`KernelError::Runtime`] if `P` never ran
/// on `graph`.
///
/// ```
/// use graph_kernel::{doc, gather, run};
/// let list = doc::path(5);
/// let (ids, missing) = gossamer::main(2, move || {
///     let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Cyclic).unwrap();
///     let missing = gather(&g, 0, |s: &doc::Sum, v| s.0[v as usize]).is_err(); // not run yet
///     run(&g, doc::zeros, |k| k.for_each_vertex(|l, v| l.state().0[v as usize] = l.global(l.flat(v))));
///     (gather(&g, 0, |s: &doc::Sum, v| s.0[v as usize]).unwrap(), missing)
/// });
/// assert_eq!(ids, [0, 1, 2, 3, 4]); // by global id, whoever owns them
/// assert!(missing);
/// ```
pub fn gather<P, T>(
    graph: &ShardedGraph,
    fill: T,
    get: impl Fn(&P, u32) -> T + Delegable + Sync,
) -> Result<Vec<T>, KernelError>
where
    P: Program,
    T: Copy + Send + Serialize + DeserializeOwned + 'static,
{
    let p = *graph.partition();
    let mut out = vec![fill; p.num_vertices() as usize];
    for (t, part) in parts(graph, move |c: &Core<P>| {
        c.adj.by_local(|v| get(&c.prog, v))
    })?
    .into_iter()
    .enumerate()
    {
        for (l, x) in part.into_iter().enumerate() {
            out[p.global(t as u32, l as u64) as usize] = x;
        }
    }
    Ok(out)
}

/// Every trustee's part, `read` from its state by a fiber on the trustee's
/// own worker: in this process the parts come back moved (from another
/// process, serialized). [`KernelError::Runtime`] if `P` never ran.
fn parts<P: Program, T>(
    graph: &ShardedGraph,
    read: impl Fn(&Core<P>) -> Vec<T> + Delegable + Sync,
) -> Result<Vec<Vec<T>>, KernelError>
where
    T: Send + Serialize + DeserializeOwned + 'static,
{
    graph
        .on_trustees(move |ctx| {
            ctx.local
                .apply_returning(move |s| slot::<P>(s).1.as_ref().map(read))
        })
        .into_iter()
        .map(|part| part.ok_or_else(|| not_run::<P>()))
        .collect()
}

/// [`gather`] for values that are flat ids (a parent tree), returned as
/// global ids; [`NO_FLAT`] becomes [`NO_PARENT`].
pub fn gather_flat<P: Program>(
    graph: &ShardedGraph,
    get: impl Fn(&P) -> &[u32] + Delegable + Sync,
) -> Result<Vec<u64>, KernelError> {
    let p = *graph.partition();
    let mut out = vec![NO_PARENT; p.num_vertices() as usize];
    let read = move |c: &Core<P>| {
        let v = get(&c.prog);
        c.adj.by_local(|r| match v[r as usize] {
            NO_FLAT => NO_FLAT,
            f => c.adj.global_of(f),
        })
    };
    for (t, part) in parts(graph, read)?.into_iter().enumerate() {
        for (l, x) in part.into_iter().enumerate() {
            if x != NO_FLAT {
                out[p.global(t as u32, l as u64) as usize] = u64::from(x);
            }
        }
    }
    Ok(out)
}

/// What a kernel reads of the graph, for [`prepare`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prepare {
    /// The renumbering only (a kernel with rows of its own, such as SSSP's
    /// weighted split).
    Renumbering,
    /// The rows too.
    Rows,
    /// The rows and, on a directed graph, the in-rows.
    InRows,
}

/// Prepares the renumbered [`Adjacency`] of `graph` and what else `what`
/// names, which the first [`run`] on a graph would otherwise build inside
/// it: a kernel calls it before it starts its clock, as GAPBS's kernels
/// time the search, not the graph's construction. Later calls find
/// everything in place. Collective over the graph's trustees; call from a
/// fiber.
pub fn prepare(graph: &ShardedGraph, what: Prepare) {
    graph.on_trustees(move |mut ctx| {
        adjacency::prepare(&mut ctx);
        ctx.local.apply(move |s| {
            let a = adjacency::shared(s).expect("prepared just above");
            if what != Prepare::Renumbering {
                a.rows(s.shard());
            }
            if what == Prepare::InRows {
                a.in_rows(s.shard());
            }
        });
    });
}

fn not_run<P>() -> KernelError {
    KernelError::Runtime(format!(
        "gather: kernel `{}` has not run on this graph (call graph_kernel::run first)",
        std::any::type_name::<P>()
    ))
}
