//! [`run`]: a program on every trustee of a graph, one driver fiber each;
//! [`Setup`], what a program's state is made from; [`gather`] and
//! [`gather_flat`], per-vertex results by global id.

use std::sync::Arc;

use gossamer::Delegable;
use graph_core::sharded::{KernelError, ShardedGraph};
use graph_core::validate::NO_PARENT;
use graph_core::{Partition, PartitionKind, Shard};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::adjacency::{self, Adjacency, Rows, RowsFormat, NO_FLAT};
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
        let _ = adjacency::prepare(&mut ctx, RowsFormat::Plain);
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

/// Applies `f` to every trustee's state of program `P`, made by an earlier
/// [`run`] on `graph`, outside any kernel's clock: e.g. to free what the
/// next [`run`]'s `init` makes again (SSSP frees its bounds and parents
/// once a search's answer is gathered, so validation does not sit beside
/// them).
pub fn update_states<P: Program>(
    graph: &ShardedGraph,
    f: impl Fn(&mut P) + Copy + Send + Sync + 'static,
) {
    run(
        graph,
        move |_, old: Option<P>| {
            let mut st = old.expect("update_states: no earlier run made this program's state");
            f(&mut st);
            st
        },
        |_| (),
    );
}

/// [`update_states`] for an `f` that frees part of each state (e.g. a
/// kernel's [`Replica`](crate::Replica)s, replaced by empty ones, once its
/// iterations end and before its answer is gathered), then gives the freed
/// memory back to the system
/// ([`give_back_freed`](graph_core::alloc::give_back_freed): glibc keeps
/// freed arrays under 32 MiB resident otherwise), so what follows does not
/// sit beside it. A few milliseconds, outside any kernel's clock.
pub fn release_states<P: Program>(
    graph: &ShardedGraph,
    f: impl Fn(&mut P) + Copy + Send + Sync + 'static,
) {
    update_states(graph, f);
    graph_core::alloc::give_back_freed();
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
    let parts = parts(graph, move |c: &Core<P>| {
        c.adj.by_local(|v| get(&c.prog, v))
    })?;
    Ok(by_global(graph.partition(), parts, fill, |x| x))
}

/// The trustees' parts (each by local index) as one array by global id,
/// `map` applied to each value, written front to back in one pass (no
/// fill first, no scattered writes). A missing value becomes `fill`.
fn by_global<T, U: Copy>(
    p: &Partition,
    parts: Vec<Vec<T>>,
    fill: U,
    map: impl Fn(T) -> U,
) -> Vec<U> {
    let mut out = Vec::with_capacity(p.num_vertices() as usize);
    in_global_order(p, parts, |x| out.push(x.map_or(fill, &map)));
    out
}

/// Calls `emit` with the value of every global id in increasing order,
/// taken from the trustees' parts (each by local index; `None` where a
/// part is shorter than its trustee's vertices): a block partition's parts
/// follow each other, a cyclic one's interleave (global id
/// `l * trustees + t` is part `t`'s entry `l`); a striped or blocks one's
/// parts are taken in turn by owner (each trustee's vertices rise with their global
/// ids under every partition).
fn in_global_order<T>(p: &Partition, parts: Vec<Vec<T>>, mut emit: impl FnMut(Option<T>)) {
    let n = p.num_vertices() as usize;
    let mut done = 0;
    match p.kind() {
        PartitionKind::Block => {
            for (t, part) in parts.into_iter().enumerate() {
                let count = p.local_count(t as u32) as usize;
                let mut it = part.into_iter();
                for _ in 0..count {
                    emit(it.next());
                }
                done += count;
            }
        }
        PartitionKind::Cyclic => {
            let mut iters: Vec<_> = parts.into_iter().map(|part| part.into_iter()).collect();
            while done < n && !iters.is_empty() {
                for it in &mut iters {
                    if done == n {
                        break;
                    }
                    emit(it.next());
                    done += 1;
                }
            }
        }
        PartitionKind::Striped | PartitionKind::Blocks => {
            let mut iters: Vec<_> = parts.into_iter().map(|part| part.into_iter()).collect();
            for g in 0..n as u64 {
                let it = iters.get_mut(p.trustee_of(g) as usize);
                emit(it.and_then(|it| it.next()));
            }
            done = n;
        }
    }
    for _ in done..n {
        emit(None);
    }
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
    let parts = parts(graph, global_parts(get))?;
    Ok(by_global(
        graph.partition(),
        parts,
        NO_PARENT,
        |x| match x {
            NO_FLAT => NO_PARENT,
            x => u64::from(x),
        },
    ))
}

/// [`gather_flat`] in 4 bytes a vertex: the global ids as `u32`,
/// [`NO_FLAT`] (`u32::MAX`) where there is none (half the gathered
/// array; graph-kernel's global ids are below `u32::MAX`).
pub fn gather_flat_u32<P: Program>(
    graph: &ShardedGraph,
    get: impl Fn(&P) -> &[u32] + Delegable + Sync,
) -> Result<Vec<u32>, KernelError> {
    let parts = parts(graph, global_parts(get))?;
    Ok(by_global(graph.partition(), parts, NO_FLAT, |x| x))
}

/// A trustee's part of [`gather_flat`]: each own vertex's flat id as a
/// global id, by local index.
fn global_parts<P: Program>(
    get: impl Fn(&P) -> &[u32] + Delegable + Sync,
) -> impl Fn(&Core<P>) -> Vec<u32> + Delegable + Sync {
    move |c: &Core<P>| {
        let v = get(&c.prog);
        c.adj.by_local(|r| match v[r as usize] {
            NO_FLAT => NO_FLAT,
            f => c.adj.global_of(f),
        })
    }
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
    /// As `InRows`, and the own vertices that other processes read
    /// ([`Adjacency::boundary`], for
    /// [`Kernel::publish_to_neighbours`](crate::Kernel::publish_to_neighbours)).
    Boundary,
}

/// Prepares the renumbered [`Adjacency`] of `graph` and what else `what`
/// names, which the first [`run`] on a graph would otherwise build inside
/// it: a kernel calls it before it starts its clock, as GAPBS's kernels
/// time the search, not the graph's construction. Later calls find
/// everything in place. Collective over the graph's trustees; call from a
/// fiber.
pub fn prepare(graph: &ShardedGraph, what: Prepare) {
    prepare_with(graph, what, RowsFormat::Plain)
}

/// [`prepare`], with the rows stored in `format` when this is the graph's
/// first preparation (a graph prepared already, by any call, keeps the
/// format it has: [`Adjacency::rows_format`] says which). A kernel that
/// reads its rows only through [`Local::for_each_target`](crate::Local::for_each_target)
/// and [`Local::find_target`](crate::Local::find_target) (or
/// [`Rows::for_each`] and [`Rows::find`]) runs on either format.
///
/// ```
/// use graph_core::sharded::ShardedGraph;
/// use graph_kernel::{prepare_with, run, Prepare, Program, RowsFormat};
/// struct Sum(u64);
/// impl Program for Sum { type Msg = u32; fn receive(&mut self, _: u32, _: u32) -> bool { false } }
/// let list = graph_kernel::doc::path(5); // 0-1-2-3-4
/// let sums = gossamer::main(2, move || {
///     let g = ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
///     prepare_with(&g, Prepare::Rows, RowsFormat::Compressed);
///     let init = |s: &mut graph_kernel::Setup<'_>, _: Option<Sum>| {
///         let (a, rows) = (s.adjacency(), s.rows());
///         assert_eq!(rows.format(), RowsFormat::Compressed);
///         let mut sum = 0;
///         (0..a.num_own()).for_each(|v| rows.for_each(v, |f| sum += u64::from(a.global_of(f))));
///         Sum(sum)
///     };
///     run(&g, init, |k| k.with_returning(|l| l.state().0))
/// });
/// assert_eq!(sums, [1 + 2 + 1 + 3, 2 + 4 + 3]); // neighbours of 0, 1, 2 | 3, 4
/// ```
pub fn prepare_with(graph: &ShardedGraph, what: Prepare, format: RowsFormat) {
    let prepared = graph.on_trustees(move |mut ctx| {
        let prepared = adjacency::prepare(&mut ctx, format);
        ctx.local.apply(move |s| {
            let a = adjacency::shared(s).expect("prepared just above");
            if what != Prepare::Renumbering {
                a.rows(s.shard());
            }
            if matches!(what, Prepare::InRows | Prepare::Boundary) {
                a.in_rows(s.shard());
            }
            if what == Prepare::Boundary {
                a.boundary(s.shard());
            }
        });
        prepared
    });
    // With compressed rows (the choice of memory over time), what
    // preparing freed (the shards' plain rows, the positions, the coding's
    // spare room) is given back before a kernel's state is made beside the
    // rows: glibc keeps freed arrays under 32 MiB resident in its heaps
    // otherwise (cc at SCALE 22: 454 against 516 MB). Not with plain rows:
    // a kernel's state would then be faulted in from the system inside its
    // clock instead of reusing that memory (cc at SCALE 20: 8-10% slower).
    // Once per graph, outside any clock.
    if format == RowsFormat::Compressed && prepared.contains(&true) {
        graph_core::alloc::give_back_freed();
    }
}

/// What a graph's unweighted rows (and a directed graph's in-rows) hold
/// over all its trustees ([`rows_footprint`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct RowsFootprint {
    /// How they are stored.
    pub format: RowsFormat,
    /// Targets, after merging parallel edges.
    pub entries: u64,
    /// Bytes of the targets ([`Rows::target_bytes`]).
    pub target_bytes: u64,
    /// Bytes in all, the per-vertex arrays included ([`Rows::footprint`]).
    pub bytes: u64,
}

/// The [`RowsFootprint`] of `graph`'s rows as built so far, summed over
/// its trustees; `None` before the graph is prepared or when no kernel
/// built rows. Collective over the graph's trustees; call from a fiber.
pub fn rows_footprint(graph: &ShardedGraph) -> Option<RowsFootprint> {
    let each = graph.on_trustees(|ctx| {
        ctx.local.apply(|s| {
            let a = adjacency::shared(s)?;
            let rows = a.rows_if_built()?;
            let mut f = RowsFootprint {
                format: rows.format(),
                entries: rows.num_entries(),
                target_bytes: rows.target_bytes(),
                bytes: rows.footprint(),
            };
            if let Some(r) = a.in_rows_if_built() {
                f.entries += r.num_entries();
                f.target_bytes += r.target_bytes();
                f.bytes += r.footprint();
            }
            Some(f)
        })
    });
    each.into_iter().flatten().reduce(|a, b| RowsFootprint {
        format: a.format,
        entries: a.entries + b.entries,
        target_bytes: a.target_bytes + b.target_bytes,
        bytes: a.bytes + b.bytes,
    })
}

fn not_run<P>() -> KernelError {
    KernelError::Runtime(format!(
        "gather: kernel `{}` has not run on this graph (call graph_kernel::run first)",
        std::any::type_name::<P>()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each trustee's part holds the global ids of its vertices, so the
    /// gathered array must read 0, 1, 2, ... whatever the partition.
    #[test]
    fn parts_land_on_their_global_ids() {
        for kind in [
            PartitionKind::Block,
            PartitionKind::Cyclic,
            PartitionKind::Striped,
            PartitionKind::Blocks,
        ] {
            for (n, ranks, threads) in [
                (7, 1, 3),
                (10, 2, 2),
                (3, 1, 4),
                (64, 1, 1),
                (0, 1, 2),
                (300_000, 1, 3),
            ] {
                let p = Partition::new(kind, n, ranks, threads).unwrap();
                let parts: Vec<Vec<u64>> = (0..p.num_trustees())
                    .map(|t| p.vertices_of(t).collect())
                    .collect();
                let ids: Vec<u64> = (0..n).collect();
                assert_eq!(
                    by_global(&p, parts, u64::MAX, |x| x),
                    ids,
                    "{kind:?} {n} {ranks}x{threads}"
                );
            }
        }
    }

    /// A part shorter than its trustee's vertices leaves `fill` for the
    /// rest, at the right global ids, and the result has every vertex.
    #[test]
    fn short_parts_leave_the_fill() {
        let block = Partition::new(PartitionKind::Block, 7, 1, 3).unwrap(); // 3, 2, 2
        let parts = vec![vec![0u64], vec![3, 4], vec![]];
        assert_eq!(by_global(&block, parts, 9, |x| x), [0, 9, 9, 3, 4, 9, 9]);
        let cyclic = Partition::new(PartitionKind::Cyclic, 7, 1, 3).unwrap(); // 0 3 6 | 1 4 | 2 5
        let parts = vec![vec![0u64, 3], vec![1, 4], vec![2]];
        assert_eq!(
            by_global(&cyclic, parts, 9, |x| x + 100),
            [100, 101, 102, 103, 104, 9, 9]
        );
    }
}
