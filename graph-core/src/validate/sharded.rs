//! The Graph500 validation and TEPS edge count from the shards of a
//! [`ShardedGraph`], without the edge list.
//!
//! The caller (a fiber on the rank that holds the gathered answer, indexed
//! by global vertex id) checks the rules on the answer arrays alone, as
//! the list validators do: lengths, rules 1-3, the distances' ranges (SSSP)
//! or the levels (BFS), the root's distance. The edge rules then run on
//! every trustee over its own shard, in parallel:
//!
//! * rules 4 and 5 and the traversed-edge count look at each input edge
//!   once: a shard has two entries per non-loop input edge, `(u -> v)` in
//!   `u`'s row and `(v -> u)` in `v`'s, and only the one with `u < v` is
//!   checked;
//! * rule 6 is per vertex: the owner of `v` looks in `v`'s row for an entry
//!   to `parent(v)` with `d(v) == d(parent) + w`.
//!
//! Each trustee returns its counts and its first problems (at most
//! `MAX_LISTED` of each kind, smallest first), and the caller merges them:
//! the verdict, the exact problem count and the traversed-edge count equal
//! the list validators'. Listed problems come in a deterministic order that
//! does not depend on the order of entries in a row: the caller's own
//! problems, then edge problems by `(u, v, weight)` with `u < v`, then
//! unconfirmed vertices by id. (The list validators list edge problems in
//! input order and name an edge as it was input; here it is named
//! `(smaller id, larger id)`.)
//!
//! The trustees read the answer through a per-process copy
//! (`crate::per_rank`): 8 bytes per vertex (parent as `u32`, distance as
//! `f32` bits; the traversed-edge count needs only a reached bitmap, 1 bit
//! per vertex), sent once to each other process of a rack run and freed
//! when the check ends.

use serde::{Deserialize, Serialize};

use super::{
    bfs_prelude, length_mismatch, root_distance, split_message, sssp_prelude, triangle_message,
    unconfirmed_message, Problems, Validated, ValidationError, MAX_LISTED, NO_PARENT,
};
use crate::csr::Shard;
use crate::per_rank;
use crate::sharded::ShardedGraph;

/// [`validate_sssp_list`](super::validate_sssp_list) from the shards of `g`:
/// the same six rules, the same [`Validated`] on success and an error for
/// exactly the same inputs, with the same problem count. `parent` and `dist`
/// are the whole answer, indexed by global vertex id (`NO_PARENT` and
/// `f32::INFINITY` where unreached). See the module docs for where each
/// rule runs.
///
/// Call from a fiber of the gossamer runtime `g` was built in (in a rack
/// run, on the rank that holds the answer arrays).
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
    let (problems, go_on) = sssp_prelude(root, parent, dist);
    if !go_on {
        return problems.into_result(Validated {
            reached: 0,
            traversed_edges: 0,
        });
    }
    check_shards(g, root, parent, dist, Weights::Shard, problems)
}

/// [`validate_bfs_list`](super::validate_bfs_list) from the shards of `g`:
/// the depths come from the parent tree (and must equal `level` when
/// given), and the edge rules use unit weights; same results as the list
/// validator. See [`validate_sssp_sharded`].
pub fn validate_bfs_sharded(
    g: &ShardedGraph,
    root: u64,
    parent: &[u64],
    level: Option<&[i64]>,
) -> Result<Validated, ValidationError> {
    let n = g.num_vertices();
    if parent.len() as u64 != n {
        return Err(length_mismatch("parent", parent.len(), n));
    }
    match bfs_prelude(root, parent, level) {
        (problems, Some(dist)) => check_shards(g, root, parent, &dist, Weights::Unit, problems),
        (problems, None) => problems.into_result(Validated {
            reached: 0,
            traversed_edges: 0,
        }),
    }
}

/// Without validating: `(reached, traversed)`, the number of entries of
/// `parent` that are not `NO_PARENT` and the number of non-loop input edges
/// (duplicates included) whose ends are both reached, i.e. half the shard
/// entries between reached vertices. Vertices beyond `parent`'s end count
/// as unreached. The trustees read a reached bitmap (1 bit per vertex,
/// one copy per process).
pub fn count_traversed_sharded(g: &ShardedGraph, parent: &[u64]) -> (u64, u64) {
    let reached = parent.iter().filter(|&&p| p != NO_PARENT).count() as u64;
    let n = g.num_vertices() as usize;
    let mut bits = vec![0u64; n.div_ceil(64)];
    for (v, _) in parent
        .iter()
        .take(n)
        .enumerate()
        .filter(|&(_, &p)| p != NO_PARENT)
    {
        bits[v / 64] |= 1 << (v % 64);
    }
    let published = per_rank::publish(g, bits);
    let id = published.id();
    let per_trustee = g.on_trustees(move |ctx| {
        ctx.local.apply(move |s| {
            let bits = per_rank::get(id);
            count_reached_edges(s.shard(), &bits)
        })
    });
    drop(published);
    (reached, per_trustee.iter().sum())
}

/// Entries `(u -> v)` with `u < v` between two reached vertices.
fn count_reached_edges(shard: &Shard, bits: &[u64]) -> u64 {
    let is = |v: u64| bits[(v / 64) as usize] >> (v % 64) & 1 == 1;
    let mut count = 0;
    for (l, u) in shard.vertices() {
        if !is(u) {
            continue;
        }
        count += shard
            .adjacency(l)
            .0
            .iter()
            .filter(|&&v| u64::from(v) > u && is(u64::from(v)))
            .count() as u64;
    }
    count
}

/// Which weights the edge rules use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Weights {
    /// The shards' (SSSP).
    Shard,
    /// 1 on every edge (BFS depths).
    Unit,
}

/// High half of a packed answer word of an unreached vertex (a NaN pattern
/// no reached vertex's distance takes: their NaNs are made canonical).
const UNREACHED_HIGH: u32 = u32::MAX;

/// One vertex's answer for the trustees: parent in the low 32 bits (the
/// ids were checked, so they fit), distance bits in the high 32 bits, or
/// `UNREACHED_HIGH` there for an unreached vertex.
fn pack(parent: u64, dist: f32) -> u64 {
    if parent == NO_PARENT {
        return u64::from(UNREACHED_HIGH) << 32;
    }
    let d = if dist.is_nan() { f32::NAN } else { dist };
    (u64::from(d.to_bits()) << 32) | (parent & 0xFFFF_FFFF)
}

/// `(parent, distance)` of a reached vertex, `None` if unreached.
fn unpack(word: u64) -> Option<(u64, f32)> {
    let high = (word >> 32) as u32;
    (high != UNREACHED_HIGH).then(|| (word & 0xFFFF_FFFF, f32::from_bits(high)))
}

/// A broken edge rule, as a trustee found it (`u < v`, or the entry's row
/// and target for `Outside`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
enum EdgeProblem {
    /// A shard entry naming a vertex outside the graph (a broken shard).
    Outside { u: u64, v: u64 },
    /// Rule 4: one end reached, the other not.
    Split { u: u64, v: u64, reached: u64 },
    /// Rule 5: the triangle rule fails.
    Triangle {
        u: u64,
        v: u64,
        w: f32,
        du: f32,
        dv: f32,
    },
}

impl EdgeProblem {
    fn key(&self) -> (u64, u64, u32) {
        match *self {
            EdgeProblem::Outside { u, v } | EdgeProblem::Split { u, v, .. } => (u, v, 0),
            EdgeProblem::Triangle { u, v, w, .. } => (u, v, w.to_bits()),
        }
    }

    fn describe(&self) -> String {
        match *self {
            EdgeProblem::Outside { u, v } => {
                format!("shard entry ({u}, {v}) names a vertex outside the graph")
            }
            EdgeProblem::Split { u, v, reached } => {
                let unreached = if reached == u { v } else { u };
                split_message(u, v, reached, unreached)
            }
            EdgeProblem::Triangle { u, v, w, du, dv } => triangle_message(u, v, w, du, dv),
        }
    }
}

/// What one trustee found on its shard.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct ShardReport {
    /// Input edges (`u < v` entries) with both ends reached.
    traversed: u64,
    /// Broken edge rules, all of them.
    edge_problems: u64,
    /// The smallest of them by key, at most `MAX_LISTED`, sorted.
    edges_listed: Vec<EdgeProblem>,
    /// Reached vertices that no entry confirms (rule 6), all of them.
    unconfirmed: u64,
    /// The smallest of them, at most `MAX_LISTED`, ascending.
    unconfirmed_listed: Vec<u64>,
}

impl ShardReport {
    fn edge(&mut self, p: EdgeProblem) {
        self.edge_problems += 1;
        self.edges_listed.push(p);
        if self.edges_listed.len() >= 4 * MAX_LISTED {
            self.trim();
        }
    }

    fn trim(&mut self) {
        self.edges_listed
            .sort_unstable_by(|a, b| a.key().cmp(&b.key()));
        self.edges_listed.truncate(MAX_LISTED);
        self.unconfirmed_listed.sort_unstable();
        self.unconfirmed_listed.truncate(MAX_LISTED);
    }
}

/// Rules 4-6 and the traversed-edge count on one shard, reading the packed
/// answer `words` of every vertex.
fn scan(shard: &Shard, words: &[u64], root: u64, weights: Weights) -> ShardReport {
    let n = words.len() as u64;
    let mut rep = ShardReport::default();
    for (l, u) in shard.vertices() {
        let mine = unpack(words[u as usize]);
        let mut confirmed = mine.is_none() || u == root;
        let (targets, ws) = shard.adjacency(l);
        for (&v, &w) in targets.iter().zip(ws) {
            let v = u64::from(v);
            let w = match weights {
                Weights::Shard => w,
                Weights::Unit => 1.0,
            };
            if v >= n {
                rep.edge(EdgeProblem::Outside { u, v });
                continue;
            }
            if v == u {
                continue;
            }
            let other = unpack(words[v as usize]);
            // Rule 6 for u, on any entry (both directions of an edge are here).
            if let (Some((pu, du)), Some((_, dv))) = (mine, other) {
                if !confirmed && pu == v && du == dv + w {
                    confirmed = true;
                }
            }
            if v < u {
                continue;
            }
            match (mine, other) {
                (None, None) => {}
                (Some(_), None) => rep.edge(EdgeProblem::Split { u, v, reached: u }),
                (None, Some(_)) => rep.edge(EdgeProblem::Split { u, v, reached: v }),
                (Some((_, du)), Some((_, dv))) => {
                    rep.traversed += 1;
                    if dv > du + w || du > dv + w {
                        rep.edge(EdgeProblem::Triangle { u, v, w, du, dv });
                    }
                }
            }
        }
        if !confirmed {
            rep.unconfirmed += 1;
            if rep.unconfirmed_listed.len() < MAX_LISTED {
                rep.unconfirmed_listed.push(u);
            }
        }
    }
    rep.trim();
    rep
}

/// Rules 4-6 on every trustee, merged with the caller's `problems`.
fn check_shards(
    g: &ShardedGraph,
    root: u64,
    parent: &[u64],
    dist: &[f32],
    weights: Weights,
    mut problems: Problems,
) -> Result<Validated, ValidationError> {
    root_distance(root, dist, &mut problems);
    let words: Vec<u64> = parent.iter().zip(dist).map(|(&p, &d)| pack(p, d)).collect();
    let published = per_rank::publish(g, words);
    let id = published.id();
    let reports = g.on_trustees(move |ctx| {
        ctx.local.apply_returning(move |s| {
            let words = per_rank::get(id);
            scan(s.shard(), &words, root, weights)
        })
    });
    drop(published);

    let mut edges: Vec<EdgeProblem> = Vec::new();
    let mut unconfirmed: Vec<u64> = Vec::new();
    let (mut traversed, mut edge_count, mut unconfirmed_count) = (0, 0, 0);
    for r in reports {
        traversed += r.traversed;
        edge_count += r.edge_problems;
        unconfirmed_count += r.unconfirmed;
        edges.extend(r.edges_listed);
        unconfirmed.extend(r.unconfirmed_listed);
    }
    edges.sort_by_key(EdgeProblem::key);
    unconfirmed.sort_unstable();
    problems.add_many(edge_count, edges.iter().map(EdgeProblem::describe));
    problems.add_many(
        unconfirmed_count,
        unconfirmed
            .iter()
            .map(|&v| unconfirmed_message(v, parent[v as usize], dist[v as usize])),
    );
    let reached = parent.iter().filter(|&&p| p != NO_PARENT).count() as u64;
    problems.into_result(Validated {
        reached,
        traversed_edges: traversed,
    })
}
