//! The sharded validators and edge count: the caller's checks on the
//! answer, the trustees' scans of their shards, and the merge of their
//! reports into one verdict.

use std::sync::Arc;

use super::scan::{by_names, pack, scan, EdgeProblem, Ids, Weights};
use crate::per_rank;
use crate::sharded::ShardedGraph;
use crate::validate::problems::{
    arc_unconfirmed_message, length_mismatch, unconfirmed_message, Problems, Validated,
    ValidationError, MAX_LISTED,
};
use crate::validate::tree::{bfs_prelude, root_distance, sssp_prelude, Levels, Parents, NO_PARENT};

/// [`validate_sssp_list`](crate::validate::validate_sssp_list) from the shards of `g`:
/// the same six rules, the same [`Validated`] on success and an error for
/// exactly the same inputs, with the same problem count. `parent` and `dist`
/// are the whole answer, indexed by global vertex id (`NO_PARENT` and
/// `f32::INFINITY` where unreached). See the module docs for where each
/// rule runs.
///
/// Call from a fiber of the gossamer runtime `g` was built in (in a rack
/// run, on the rank that holds the answer arrays).
///
/// ```
/// use graph_core::sharded::ShardedGraph;
/// use graph_core::validate::{validate_sssp_sharded, NO_PARENT};
/// use graph_core::{EdgeList, PackedEdge, PartitionKind};
/// let ok = gossamer::main(2, || {
///     let list = EdgeList::from_edges(4, vec![
///         PackedEdge::new(0, 1, 0.5),
///         PackedEdge::new(1, 2, 0.25),
///         PackedEdge::new(0, 2, 1.0),
///     ]).unwrap();
///     let g = ShardedGraph::build(&list, PartitionKind::Cyclic).unwrap();
///     let parent = [0, 0, 1, NO_PARENT];
///     // Too long: breaks the triangle rule on edge (0, 2), found by trustee 0.
///     let bad = validate_sssp_sharded(&g, 0, &parent, &[0.0, 0.5, 1.5, f32::INFINITY]);
///     assert!(bad.unwrap_err().to_string().contains("edge (0, 2) with weight 1"));
///     validate_sssp_sharded(&g, 0, &parent, &[0.0, 0.5, 0.75, f32::INFINITY])
/// }).unwrap();
/// assert_eq!((ok.reached, ok.traversed_edges), (3, 3));
/// ```
pub fn validate_sssp_sharded(
    g: &ShardedGraph,
    root: u64,
    parent: &[u64],
    dist: &[f32],
) -> Result<Validated, ValidationError> {
    let n = g.num_vertices();
    if parent.len() as u64 != n {
        return Err(length_mismatch("parent", parent.len(), n));
    }
    let (mut problems, go_on) = sssp_prelude(root, parent, dist);
    if !go_on {
        return problems.into_result(Validated {
            reached: 0,
            traversed_edges: 0,
        });
    }
    root_distance(root, dist, &mut problems);
    let words = pack_all(parent, dist);
    check_shards(g, root, parent, words, Weights::Shard, problems)
}

/// The answer words ([`pack`]) of `parent` and `dist`.
fn pack_all(parent: &[u64], dist: &[f32]) -> Vec<u64> {
    parent.iter().zip(dist).map(|(&p, &d)| pack(p, d)).collect()
}

/// [`validate_bfs_list`](crate::validate::validate_bfs_list) from the shards of `g`:
/// the depths come from the parent tree (and must equal `level` when
/// given), and the edge rules use unit weights; same results as the list
/// validator. See [`validate_sssp_sharded`].
pub fn validate_bfs_sharded(
    g: &ShardedGraph,
    root: u64,
    parent: &[u64],
    level: Option<&[i64]>,
) -> Result<Validated, ValidationError> {
    bfs_sharded(g, root, parent, level)
}

/// [`validate_bfs_sharded`] for an answer in 4 bytes a vertex, as
/// `bfs::bfs_u32` gathers it: parents as `u32` global ids (`u32::MAX`
/// unreached), levels as `i32`. The same checks and results; the caller
/// holds 8 bytes per vertex less.
pub fn validate_bfs_sharded_u32(
    g: &ShardedGraph,
    root: u64,
    parent: &[u32],
    level: Option<&[i32]>,
) -> Result<Validated, ValidationError> {
    bfs_sharded(g, root, parent, level)
}

fn bfs_sharded<P: Parents + ?Sized, L: Levels + ?Sized>(
    g: &ShardedGraph,
    root: u64,
    parent: &P,
    level: Option<&L>,
) -> Result<Validated, ValidationError> {
    let n = g.num_vertices();
    if parent.len() as u64 != n {
        return Err(length_mismatch("parent", parent.len(), n));
    }
    match bfs_prelude(root, parent, level) {
        (mut problems, Some(dist)) => {
            root_distance(root, &dist, &mut problems);
            let words = match level {
                // The levels are the tree's depths: the words are made
                // from them, the depths freed first (4 B per vertex less
                // at the validation's peak).
                Some(level) if problems.count == 0 => {
                    drop(dist);
                    let d = |l: i64| if l < 0 { f32::INFINITY } else { l as f32 };
                    let word = |v| pack(parent.at(v), d(level.at(v)));
                    (0..parent.len()).map(word).collect()
                }
                _ => (0..parent.len())
                    .map(|v| pack(parent.at(v), dist[v]))
                    .collect(),
            };
            check_shards(g, root, parent, words, Weights::Unit, problems)
        }
        (problems, None) => problems.into_result(Validated {
            reached: 0,
            traversed_edges: 0,
        }),
    }
}

/// Without validating: `(reached, traversed)`, the number of entries of
/// `parent` that are not `NO_PARENT` and the number of non-loop input edges
/// (duplicates included) whose ends are both reached; on a directed graph,
/// the number of non-loop arcs whose tail is reached (the module docs of
/// [`validate`](crate::validate)). Vertices beyond `parent`'s end count
/// as unreached.
///
/// On an undirected graph this is half the degree sum of the reached
/// vertices, read from the shards' offsets (a pass over the vertices, not
/// the entries), which is exact when every neighbour of a reached vertex
/// is reached: true of every search answer that validates (its reached
/// set is the root's component). An unchecked answer that breaks it gets
/// the count of the edges it touches instead, with a half for each edge
/// with one reached end (rounded down overall). The validators count the
/// traversed edges themselves, entry by entry.
pub fn count_traversed_sharded(g: &ShardedGraph, parent: &[u64]) -> (u64, u64) {
    count_traversed(g, parent)
}

/// [`count_traversed_sharded`] for parents as `u32` ids (`u32::MAX`
/// unreached), as [`validate_bfs_sharded_u32`] takes them.
pub fn count_traversed_sharded_u32(g: &ShardedGraph, parent: &[u32]) -> (u64, u64) {
    count_traversed(g, parent)
}

fn count_traversed<P: Parents + ?Sized>(g: &ShardedGraph, parent: &P) -> (u64, u64) {
    let n = g.num_vertices() as usize;
    let within = n.min(parent.len());
    let is_reached = |v: usize| u64::from(parent.at(v) != NO_PARENT);
    // One pass: a word of the reached bitmap per 64 entries, counted as made.
    let bits: Vec<u64> = (0..within)
        .step_by(64)
        .map(|at| {
            let reached = (at..within.min(at + 64)).map(is_reached);
            reached.enumerate().fold(0, |w, (i, r)| w | r << i)
        })
        .chain(std::iter::repeat(0))
        .take(n.div_ceil(64))
        .collect();
    let reached = bits.iter().map(|w| u64::from(w.count_ones())).sum::<u64>()
        + (within..parent.len()).map(is_reached).sum::<u64>();
    let published = per_rank::publish(g, bits);
    let id = published.id();
    let per_trustee = g.on_trustees(move |ctx| {
        ctx.local.apply(move |s| {
            let (shard, bits) = (s.shard(), per_rank::get(id));
            let is = |v: u64| bits[(v / 64) as usize] >> (v % 64) & 1 == 1;
            let reached = shard.vertices().filter(|&(_, u)| is(u));
            reached.map(|(l, _)| shard.degree(l)).sum::<u64>()
        })
    });
    drop(published);
    let degrees: u64 = per_trustee.iter().sum();
    let halves = if g.is_directed() { 1 } else { 2 };
    (reached, degrees / halves)
}

/// Rules 4-6 on every trustee, merged with the caller's `problems`;
/// `words` is the answer packed ([`pack`]), by global id.
fn check_shards<P: Parents + ?Sized>(
    g: &ShardedGraph,
    root: u64,
    parent: &P,
    words: Vec<u64>,
    weights: Weights,
    mut problems: Problems,
) -> Result<Validated, ValidationError> {
    let published = per_rank::publish(g, words);
    let id = published.id();
    let reports = g.on_trustees(move |ctx| {
        ctx.local.apply_returning(move |s| {
            let (shard, words) = (s.shard(), per_rank::get(id));
            match shard.renamed() {
                None => {
                    let ids = Ids {
                        words: &words,
                        names: None,
                        by_global: false,
                    };
                    scan(shard, &words, &ids, root, weights)
                }
                // Rows a kernel took (kept compressed to save memory): the
                // words read by global id, through the names, with no
                // re-indexed copy beside them.
                Some(names) if shard.rows_taken() => {
                    let ids = Ids {
                        words: &words,
                        names: Some(names),
                        by_global: true,
                    };
                    scan(shard, &words, &ids, root, weights)
                }
                // Rows a kernel renamed: the answer by renamed id, made
                // once per process for the names its trustees share.
                Some(names) => {
                    let key = Arc::as_ptr(names) as *const u32 as usize;
                    let by_name = per_rank::derived(id, key, |w| by_names(w, names));
                    let ids = Ids {
                        words: &by_name,
                        names: Some(names),
                        by_global: false,
                    };
                    scan(shard, &words, &ids, root, weights)
                }
            }
        })
    });
    // The distances of the listed vertices, from the words.
    let words = per_rank::get(id);
    drop(published);

    let mut edges: Vec<EdgeProblem> = Vec::new();
    let mut unconfirmed: Vec<u64> = Vec::new();
    let (mut traversed, mut edge_count, mut unconfirmed_count) = (0, 0, 0);
    let directed = g.is_directed();
    let mut confirmed = vec![
        0u64;
        if directed {
            parent.len().div_ceil(64)
        } else {
            0
        }
    ];
    for r in reports {
        traversed += r.traversed;
        edge_count += r.edge_problems;
        problems.overflow |= r.overflows > 0;
        unconfirmed_count += r.unconfirmed;
        edges.extend(r.edges_listed);
        unconfirmed.extend(r.unconfirmed_listed);
        for (c, x) in confirmed.iter_mut().zip(&r.confirmed) {
            *c |= x;
        }
    }
    if directed {
        // Rule 6: every reached vertex but the root needs an arc from its parent.
        for v in 0..parent.len() {
            let p = parent.at(v);
            if p != NO_PARENT && v as u64 != root && confirmed[v / 64] >> (v % 64) & 1 == 0 {
                unconfirmed_count += 1;
                if unconfirmed.len() < MAX_LISTED {
                    unconfirmed.push(v as u64);
                }
            }
        }
    }
    edges.sort_by_key(EdgeProblem::key);
    unconfirmed.sort_unstable();
    problems.add_many(edge_count, edges.iter().map(EdgeProblem::describe));
    problems.add_many(
        unconfirmed_count,
        unconfirmed.iter().map(|&v| {
            let p = parent.at(v as usize);
            let d = super::scan::distance(words[v as usize]);
            if directed {
                arc_unconfirmed_message(v, p, d)
            } else {
                unconfirmed_message(v, p, d)
            }
        }),
    );
    let reached = (0..parent.len())
        .filter(|&v| parent.at(v) != NO_PARENT)
        .count() as u64;
    problems.into_result(Validated {
        reached,
        traversed_edges: traversed,
    })
}
