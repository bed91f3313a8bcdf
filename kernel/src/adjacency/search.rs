//! Searching on the prepared adjacency: [`prepare_search`] sets every
//! trustee up for one root, [`gather_parents`] collects a parent array by
//! global id for the validator.

use std::sync::Arc;

use graph_core::sharded::{ShardedGraph, TrusteeState};
use graph_core::validate::NO_PARENT;

use super::flat::{Adjacency, NO_FLAT};
use super::prepare::{prepare, shared};

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
