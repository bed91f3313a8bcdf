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
//! On a directed graph (its shards hold each arc once, in its tail's row)
//! the rules are the directed ones of the module docs: each trustee checks
//! rules 4 and 5 and counts the arcs whose tail it owns and has reached;
//! rule 6 is confirmed by the trustee owning the parent (the arc
//! `parent(v) -> v` is in the parent's row), which returns a bitmap of the
//! vertices it confirmed (1 bit per vertex per trustee), and the caller
//! ORs them. Arc problems are listed by `(tail, head, weight)`.
//!
//! The trustees read the answer through a per-process copy
//! (`crate::per_rank`): 8 bytes per vertex (parent as `u32`, distance as
//! `f32` bits; the traversed-edge count needs only a reached bitmap, 1 bit
//! per vertex), sent once to each other process of a rack run and freed
//! when the check ends.

use serde::{Deserialize, Serialize};

use super::{
    arc_split_message, arc_triangle_message, arc_unconfirmed_message, bfs_prelude, length_mismatch,
    root_distance, split_message, sssp_prelude, triangle_message, unconfirmed_message, Problems,
    Validated, ValidationError, MAX_LISTED, NO_PARENT,
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
/// entries between reached vertices; on a directed graph, the number of
/// non-loop arcs whose tail is reached (the module docs of
/// [`validate`](super)). Vertices beyond `parent`'s end count
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

/// Entries `(u -> v)` with `u < v` between two reached vertices; on a
/// directed shard, the entries (arcs) of reached vertices.
fn count_reached_edges(shard: &Shard, bits: &[u64]) -> u64 {
    let is = |v: u64| bits[(v / 64) as usize] >> (v % 64) & 1 == 1;
    let mut count = 0;
    for (l, u) in shard.vertices() {
        if !is(u) {
            continue;
        }
        if shard.is_directed() {
            count += shard.degree(l);
            continue;
        }
        count += shard
            .neighbors(l)
            .filter(|&(v, _)| u64::from(v) > u && is(u64::from(v)))
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
    /// Directed rule 4: the arc `u -> v` leaves reached `u` for unreached `v`.
    ArcSplit { u: u64, v: u64 },
    /// Directed rule 5: `d(v) > d(u) + w` along the arc `u -> v`.
    ArcTriangle {
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
            EdgeProblem::Outside { u, v }
            | EdgeProblem::Split { u, v, .. }
            | EdgeProblem::ArcSplit { u, v } => (u, v, 0),
            EdgeProblem::Triangle { u, v, w, .. } | EdgeProblem::ArcTriangle { u, v, w, .. } => {
                (u, v, w.to_bits())
            }
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
            EdgeProblem::ArcSplit { u, v } => arc_split_message(u, v),
            EdgeProblem::ArcTriangle { u, v, w, du, dv } => arc_triangle_message(u, v, w, du, dv),
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
    /// Directed graphs: the vertices confirmed (rule 6) by an arc from
    /// their parent in this shard, as a bitmap over global ids (empty
    /// otherwise).
    confirmed: Vec<u64>,
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
        self.edges_listed.sort_unstable_by_key(EdgeProblem::key);
        self.edges_listed.truncate(MAX_LISTED);
        self.unconfirmed_listed.sort_unstable();
        self.unconfirmed_listed.truncate(MAX_LISTED);
    }
}

/// Calls `f(rep, v, w)` for each entry `u -> v` of local vertex `l` (vertex
/// `u`) whose head is another vertex of the graph, `w` being the weight as
/// `weights` reads it; a head outside the graph is reported in `rep` and
/// skipped, and so is a self-loop.
fn entries(
    shard: &Shard,
    l: u64,
    u: u64,
    n: u64,
    weights: Weights,
    rep: &mut ShardReport,
    mut f: impl FnMut(&mut ShardReport, u64, f32),
) {
    // By global id, also when a kernel renamed the stored ones.
    for (v, w) in shard.neighbors(l) {
        let v = u64::from(v);
        let w = match weights {
            Weights::Shard => w,
            Weights::Unit => 1.0,
        };
        if v >= n {
            rep.edge(EdgeProblem::Outside { u, v });
        } else if v != u {
            f(rep, v, w);
        }
    }
}

/// Rules 4-6 and the traversed-edge count on one shard, reading the packed
/// answer `words` of every vertex.
fn scan(shard: &Shard, words: &[u64], root: u64, weights: Weights) -> ShardReport {
    if shard.is_directed() {
        return scan_arcs(shard, words, weights);
    }
    let n = words.len() as u64;
    let mut rep = ShardReport::default();
    for (l, u) in shard.vertices() {
        let mine = unpack(words[u as usize]);
        let mut confirmed = mine.is_none() || u == root;
        entries(shard, l, u, n, weights, &mut rep, |rep, v, w| {
            let other = unpack(words[v as usize]);
            // Rule 6 for u, on any entry (both directions of an edge are here).
            if let (Some((pu, du)), Some((_, dv))) = (mine, other) {
                if !confirmed && pu == v && du == dv + w {
                    confirmed = true;
                }
            }
            if v < u {
                return;
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
        });
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

/// [`scan`] on a directed shard: rules 4 and 5 along the arcs of its rows,
/// the arcs of reached tails counted, and rule 6's confirmations returned
/// as a bitmap (the caller finds the unconfirmed vertices).
fn scan_arcs(shard: &Shard, words: &[u64], weights: Weights) -> ShardReport {
    let n = words.len() as u64;
    let mut rep = ShardReport {
        confirmed: vec![0; n.div_ceil(64) as usize],
        ..ShardReport::default()
    };
    for (l, u) in shard.vertices() {
        let Some((_, du)) = unpack(words[u as usize]) else {
            continue;
        };
        entries(shard, l, u, n, weights, &mut rep, |rep, v, w| {
            rep.traversed += 1;
            match unpack(words[v as usize]) {
                None => rep.edge(EdgeProblem::ArcSplit { u, v }),
                Some((pv, dv)) => {
                    if dv > du + w {
                        rep.edge(EdgeProblem::ArcTriangle { u, v, w, du, dv });
                    }
                    if pv == u && dv == du + w {
                        rep.confirmed[(v / 64) as usize] |= 1 << (v % 64);
                    }
                }
            }
        });
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
        unconfirmed_count += r.unconfirmed;
        edges.extend(r.edges_listed);
        unconfirmed.extend(r.unconfirmed_listed);
        for (c, x) in confirmed.iter_mut().zip(&r.confirmed) {
            *c |= x;
        }
    }
    if directed {
        // Rule 6: every reached vertex but the root needs an arc from its parent.
        for (v, &p) in parent.iter().enumerate() {
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
            let (p, d) = (parent[v as usize], dist[v as usize]);
            if directed {
                arc_unconfirmed_message(v, p, d)
            } else {
                unconfirmed_message(v, p, d)
            }
        }),
    );
    let reached = parent.iter().filter(|&&p| p != NO_PARENT).count() as u64;
    problems.into_result(Validated {
        reached,
        traversed_edges: traversed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sharded::non_isolated_sharded;
    use crate::validate::{reference, validate_bfs_list, validate_sssp_list};
    use crate::{EdgeList, PackedEdge, PartitionKind};

    const KINDS: [PartitionKind; 2] = [PartitionKind::Block, PartitionKind::Cyclic];

    /// splitmix64: a small deterministic generator for the test graphs.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }

        fn below(&mut self, k: u64) -> u64 {
            self.next() % k
        }
    }

    /// A random graph with several components, isolated vertices,
    /// self-loops, duplicate edges (same and other weights) and ties.
    fn random_graph(seed: u64) -> EdgeList<'static> {
        let mut r = Rng(seed);
        let n = 20 + r.below(60);
        let groups = 1 + r.below(3);
        // Group of each vertex; `groups` means isolated (no edge chosen for it).
        let group: Vec<u64> = (0..n)
            .map(|_| {
                if r.below(8) == 0 {
                    groups
                } else {
                    r.below(groups)
                }
            })
            .collect();
        let members: Vec<Vec<u32>> = (0..groups)
            .map(|gr| (0..n as u32).filter(|&v| group[v as usize] == gr).collect())
            .collect();
        let mut edges: Vec<PackedEdge> = Vec::new();
        for _ in 0..2 * n {
            let m = &members[r.below(groups) as usize];
            if m.is_empty() {
                continue;
            }
            let u = m[r.below(m.len() as u64) as usize];
            let v = if r.below(10) == 0 {
                u // self-loop
            } else {
                m[r.below(m.len() as u64) as usize]
            };
            let w = match r.below(4) {
                0 => 0.25,
                1 => 0.5,
                _ => (1 + r.below(1000)) as f32 / 1000.0,
            };
            edges.push(PackedEdge::new(u, v, w));
            if r.below(8) == 0 {
                // A duplicate, maybe reversed, maybe with another weight.
                let w2 = if r.below(2) == 0 { w } else { w * 3.0 };
                edges.push(PackedEdge::new(v, u, w2));
            }
        }
        EdgeList::from_edges(n, edges).unwrap()
    }

    fn dijkstra(list: &EdgeList<'_>, root: u64) -> (Vec<u64>, Vec<f32>) {
        reference::dijkstra(list, root, false)
    }

    fn bfs(list: &EdgeList<'_>, root: u64) -> (Vec<u64>, Vec<i64>) {
        reference::bfs(list, root, false)
    }

    /// The CLI's count over the edge list: reached entries, and non-loop
    /// edges with both ends reached.
    fn count_list(list: &EdgeList<'_>, parent: &[u64]) -> (u64, u64) {
        let is = |v: u32| parent.get(v as usize).is_some_and(|&p| p != NO_PARENT);
        let reached = parent.iter().filter(|&&p| p != NO_PARENT).count() as u64;
        let traversed = list
            .edges()
            .iter()
            .filter(|e| e.u != e.v && is(e.u) && is(e.v))
            .count() as u64;
        (reached, traversed)
    }

    fn non_isolated_list(list: &EdgeList<'_>) -> Vec<u64> {
        let mut bits = vec![0u64; list.num_vertices().div_ceil(64) as usize];
        for e in list.edges().iter().filter(|e| e.u != e.v) {
            for v in [e.u, e.v] {
                bits[v as usize / 64] |= 1 << (v % 64);
            }
        }
        bits
    }

    type Verdict = Result<Validated, ValidationError>;

    /// The sharded verdict must be the list verdict: equal `Ok`s, or errors
    /// with the same problem count.
    fn agree(what: &str, list: &Verdict, sharded: &Verdict) {
        match (list, sharded) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{what}"),
            (Err(a), Err(b)) => assert_eq!(a.count, b.count, "{what}:\nlist {a}\nsharded {b}"),
            _ => panic!("{what}: list says {list:?}, sharded says {sharded:?}"),
        }
    }

    /// One answer broken in a random way (or left correct with `kind` 0).
    fn perturb(
        r: &mut Rng,
        kind: u64,
        root: u64,
        parent: &mut [u64],
        dist: &mut [f32],
        level: &mut [i64],
    ) {
        let n = parent.len() as u64;
        let v = r.below(n) as usize;
        match kind {
            0 => {}
            1 if v as u64 != root && parent[v] != NO_PARENT => dist[v] += 1e-3,
            2 if v as u64 != root && parent[v] != NO_PARENT && dist[v] > 0.0 => {
                dist[v] = f32::from_bits(dist[v].to_bits() - 1)
            }
            3 if v as u64 != root => {
                // Another (reached or not) parent: a cycle, a non-neighbour, a split.
                let p = r.below(n);
                parent[v] = p;
                if dist[v].is_infinite() {
                    dist[v] = dist[p as usize] + 0.5;
                }
                level[v] = level[p as usize] + 1;
            }
            4 if v as u64 != root => {
                parent[v] = NO_PARENT;
                dist[v] = f32::INFINITY;
                level[v] = -1;
            }
            5 => parent[v] = n + 3,
            6 => level[v] += 1,
            7 => parent[root as usize] = v as u64,
            8 if parent[v] != NO_PARENT => dist[v] = f32::NAN,
            9 => {
                let x = r.below(n) as usize;
                dist.swap(v, x);
            }
            10 => dist[root as usize] = 0.25,
            _ => {}
        }
    }

    /// The same on the random graphs read as directed: the sharded
    /// validators on directed shards agree with the directed list
    /// validators, the traversed count is the arcs with a reached tail and
    /// the non-isolated set is the tails.
    #[test]
    fn directed_sharded_checks_agree_with_the_list() {
        for threads in 1..=3 {
            for kind in KINDS {
                gossamer::main(threads, move || {
                    for seed in 0..6u64 {
                        let list = random_graph(seed);
                        let g = ShardedGraph::build_with(&list, kind, true).unwrap();
                        let what = format!("seed {seed}, {threads} trustee(s), {kind:?}");
                        let arcs: Vec<(u64, u64, f32)> = list
                            .edges()
                            .iter()
                            .map(|e| (u64::from(e.u), u64::from(e.v), e.w))
                            .collect();
                        let mut tails = vec![0u64; list.num_vertices().div_ceil(64) as usize];
                        for &(u, _, _) in arcs.iter().filter(|a| a.0 != a.1) {
                            tails[u as usize / 64] |= 1 << (u % 64);
                        }
                        assert_eq!(non_isolated_sharded(&g), tails, "{what}");
                        let mut r = Rng(seed ^ 0x5EED);
                        for case in 0..24 {
                            let root = r.below(list.num_vertices());
                            let (sp, sd) = reference::dijkstra(&list, root, true);
                            let (bp, bl) = reference::bfs(&list, root, true);
                            let (mut parent, mut dist, mut level) = (sp, sd, bl.clone());
                            let broken = if case < 4 { 0 } else { r.below(11) };
                            perturb(&mut r, broken, root, &mut parent, &mut dist, &mut level);
                            let what = format!("{what}, root {root}, case {case} ({broken})");
                            let a = super::super::validate_sssp_directed(
                                root,
                                &parent,
                                &dist,
                                arcs.iter().copied(),
                            );
                            let b = validate_sssp_sharded(&g, root, &parent, &dist);
                            agree(&format!("SSSP {what}"), &a, &b);
                            if broken == 0 {
                                let ok = a.expect("a correct answer validates");
                                let reached_tails =
                                    arcs.iter()
                                        .filter(|a| a.0 != a.1 && parent[a.0 as usize] != NO_PARENT)
                                        .count() as u64;
                                assert_eq!(ok.traversed_edges, reached_tails, "{what}");
                                assert_eq!(
                                    count_traversed_sharded(&g, &parent),
                                    (ok.reached, reached_tails),
                                    "{what}"
                                );
                                let a2 = super::super::validate_bfs_directed(
                                    root,
                                    &bp,
                                    Some(&bl),
                                    arcs.iter().map(|a| (a.0, a.1)),
                                );
                                let b2 = validate_bfs_sharded(&g, root, &bp, Some(&bl));
                                agree(&format!("BFS {what}"), &a2, &b2);
                                assert!(a2.is_ok(), "{what}");
                            }
                        }
                    }
                });
            }
        }
    }

    /// A vertex reached only against an arc's direction fails both ways.
    #[test]
    fn reaching_against_an_arc_fails() {
        // 0 -> 1, 2 -> 1: from 0, only 1 is reachable.
        let edges = vec![PackedEdge::new(0, 1, 1.0), PackedEdge::new(2, 1, 1.0)];
        let list = EdgeList::from_edges(3, edges).unwrap();
        let arcs: Vec<(u64, u64, f32)> = vec![(0, 1, 1.0), (2, 1, 1.0)];
        // The undirected answer: 2 reached through 1.
        let parent = [0, 0, 1];
        let dist = [0.0, 1.0, 2.0];
        let a = super::super::validate_sssp_directed(0, &parent, &dist, arcs.clone());
        let e = a.unwrap_err();
        assert!(
            e.to_string()
                .contains("vertex 2: no input arc from its parent 1"),
            "{e}"
        );
        assert!(validate_sssp_list(&list, 0, &parent, &dist).is_ok());
        for threads in 1..=3 {
            let list = EdgeList::from_edges(3, list.edges().to_vec()).unwrap();
            let b = gossamer::main(threads, move || {
                let g = ShardedGraph::build_with(&list, PartitionKind::Cyclic, true).unwrap();
                validate_sssp_sharded(&g, 0, &parent, &dist)
            });
            let e = b.unwrap_err();
            assert_eq!(e.count, 1, "{e}");
            assert!(
                e.to_string().contains("no input arc from its parent 1"),
                "{e}"
            );
        }
        // Unreached 1 while 0 -> 1 leaves reached 0.
        let e = super::super::validate_bfs_directed(
            0,
            &[0, NO_PARENT, NO_PARENT],
            None,
            arcs.iter().map(|a| (a.0, a.1)),
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .contains("arc (0, 1) leads from reached vertex 0"),
            "{e}"
        );
    }

    /// On random graphs, with 1-4 trustees and both partitions: correct
    /// answers validate exactly as on the list (reached and traversed
    /// counts), randomly broken ones fail with the same problem count (and
    /// the same listed problems for every partition), and the count of
    /// traversed edges and the non-isolated set equal the list's.
    #[test]
    fn sharded_checks_agree_with_the_list_on_random_graphs() {
        let mut errors_by_run: Vec<Vec<String>> = Vec::new();
        let mut oks = 0;
        for threads in 1..=4 {
            for kind in KINDS {
                let (errors, ok) = gossamer::main(threads, move || {
                    let (mut errors, mut oks) = (Vec::new(), 0);
                    for seed in 0..6u64 {
                        let list = random_graph(seed);
                        let g = ShardedGraph::build(&list, kind).unwrap();
                        let what = format!("seed {seed}, {threads} trustee(s), {kind:?}");
                        assert_eq!(non_isolated_sharded(&g), non_isolated_list(&list), "{what}");
                        let mut r = Rng(seed ^ 0xABCD);
                        for case in 0..24 {
                            let root = r.below(list.num_vertices());
                            let (sp, sd) = dijkstra(&list, root);
                            let (bp, bl) = bfs(&list, root);
                            let (mut parent, mut dist, mut level) = (sp.clone(), sd, bl.clone());
                            let broken = if case < 4 { 0 } else { r.below(11) };
                            perturb(&mut r, broken, root, &mut parent, &mut dist, &mut level);
                            let what =
                                format!("{what}, root {root}, case {case} (broken {broken})");
                            let a = validate_sssp_list(&list, root, &parent, &dist);
                            let b = validate_sssp_sharded(&g, root, &parent, &dist);
                            agree(&format!("SSSP {what}"), &a, &b);
                            let (mut bparent, mut blevel) = (bp.clone(), level.clone());
                            if broken != 0 {
                                // The BFS answer broken the same way, on its own tree.
                                bparent.clone_from(&bp);
                                blevel.clone_from(&bl);
                                let mut d: Vec<f32> = bl.iter().map(|&l| l as f32).collect();
                                let mut r2 = Rng(seed ^ case);
                                perturb(&mut r2, broken, root, &mut bparent, &mut d, &mut blevel);
                            }
                            for lv in [Some(&blevel[..]), None] {
                                let a2 = validate_bfs_list(&list, root, &bparent, lv);
                                let b2 = validate_bfs_sharded(&g, root, &bparent, lv);
                                agree(&format!("BFS {what} levels {}", lv.is_some()), &a2, &b2);
                                if let Err(e) = &b2 {
                                    errors.push(e.to_string());
                                }
                                if broken == 0 {
                                    assert!(b2.is_ok(), "{what}");
                                }
                            }
                            if broken == 0 {
                                assert!(b.is_ok(), "{what}");
                                oks += 1;
                            }
                            match &b {
                                Err(e) => errors.push(e.to_string()),
                                Ok(v) => assert_eq!(
                                    count_traversed_sharded(&g, &parent),
                                    (v.reached, v.traversed_edges),
                                    "{what}"
                                ),
                            }
                            assert_eq!(
                                count_traversed_sharded(&g, &parent),
                                count_list(&list, &parent),
                                "{what}"
                            );
                        }
                    }
                    (errors, oks)
                });
                errors_by_run.push(errors);
                oks += ok;
            }
        }
        // The listed problems do not depend on the partition.
        for e in &errors_by_run[1..] {
            assert_eq!(e, &errors_by_run[0]);
        }
        // Both outcomes were exercised.
        assert!(errors_by_run[0].len() > 50, "{}", errors_by_run[0].len());
        assert!(oks >= 8 * 6 * 4, "{oks}");
    }

    fn path(n: u32, w: f32) -> Vec<PackedEdge> {
        (1..n).map(|v| PackedEdge::new(v - 1, v, w)).collect()
    }

    /// `check(&g)` on `edges` over `n` vertices, for 1-4 trustees and both
    /// partitions; asserts every run gives the same answer and returns it.
    fn everywhere<R>(n: u64, edges: Vec<PackedEdge>, check: fn(&ShardedGraph) -> R) -> R
    where
        R: PartialEq + std::fmt::Debug + Send + 'static,
    {
        let mut first: Option<R> = None;
        for threads in 1..=4 {
            for kind in KINDS {
                let edges = edges.clone();
                let got = gossamer::main(threads, move || {
                    let list = EdgeList::from_edges(n, edges).unwrap();
                    check(&ShardedGraph::build(&list, kind).unwrap())
                });
                match &first {
                    None => first = Some(got),
                    Some(f) => assert_eq!(&got, f, "{threads} trustee(s), {kind:?}"),
                }
            }
        }
        first.unwrap()
    }

    fn expect_problem(r: &Verdict, needle: &str) {
        match r {
            Ok(v) => panic!("validation passed ({v:?}) but should report {needle:?}"),
            Err(e) => assert!(
                e.problems.iter().any(|p| p.contains(needle)),
                "expected a problem containing {needle:?}, got:\n{e}"
            ),
        }
    }

    /// Each rule broken on its own is caught, from the shards, with the
    /// problem named as the list validator names it.
    #[test]
    fn each_broken_rule_is_reported() {
        const N: f32 = f32::INFINITY;
        // Rule 1: a parent that is not a vertex.
        let r = everywhere(4, path(4, 0.5), |g| {
            validate_sssp_sharded(g, 0, &[0, 0, 9, 2], &[0.0, 0.5, 1.0, 1.5])
        });
        expect_problem(&r, "parent 9 of vertex 2 is out of range");
        // Rule 2: the root is not its own parent; its distance is not 0.
        let r = everywhere(4, path(4, 0.5), |g| {
            validate_bfs_sharded(g, 0, &[1, 0, 1, 2], None)
        });
        expect_problem(&r, "root 0 has parent 1, expected itself");
        let r = everywhere(4, path(4, 0.5), |g| {
            validate_sssp_sharded(g, 0, &[0, 0, 1, 2], &[0.25, 0.75, 1.25, 1.75])
        });
        expect_problem(&r, "root 0 has distance 0.25, expected 0");
        // Rule 3: a cycle (2 and 3 are each other's parents).
        let mut e = path(4, 0.5);
        e.push(PackedEdge::new(3, 1, 0.5));
        let r = everywhere(4, e, |g| validate_bfs_sharded(g, 0, &[0, 0, 3, 2], None));
        expect_problem(&r, "form a cycle");
        // Rule 4: a reached vertex next to an unreached one (4 is isolated).
        let r = everywhere(5, path(4, 0.5), |g| {
            let parent = [0, 0, 1, NO_PARENT, NO_PARENT];
            (
                validate_sssp_sharded(g, 0, &parent, &[0.0, 0.5, 1.0, N, N]),
                validate_bfs_sharded(g, 0, &parent, None),
            )
        });
        expect_problem(
            &r.0,
            "edge (2, 3) joins reached vertex 2 and unreached vertex 3",
        );
        expect_problem(
            &r.1,
            "edge (2, 3) joins reached vertex 2 and unreached vertex 3",
        );
        // Rule 5: a shortcut 0-2 the distances ignore.
        let mut e = path(3, 1.0);
        e.push(PackedEdge::new(2, 0, 0.5));
        let r = everywhere(3, e, |g| {
            validate_sssp_sharded(g, 0, &[0, 0, 1], &[0.0, 1.0, 2.0])
        });
        expect_problem(
            &r,
            "edge (0, 2) with weight 0.5 breaks the triangle rule: d(0) = 0, d(2) = 2",
        );
        assert_eq!(r.unwrap_err().count, 1);
        let mut e = path(4, 1.0);
        e.push(PackedEdge::new(0, 3, 1.0));
        let r = everywhere(4, e, |g| validate_bfs_sharded(g, 0, &[0, 0, 1, 2], None));
        expect_problem(&r, "edge (0, 3) with weight 1 breaks the triangle rule");
        // Rule 6: a parent that is not a neighbour, and a wrong weight.
        let r = everywhere(4, path(4, 1.0), |g| {
            (
                validate_sssp_sharded(g, 0, &[0, 0, 1, 0], &[0.0, 1.0, 2.0, 3.0]),
                validate_bfs_sharded(g, 0, &[0, 0, 1, 1], None),
                validate_sssp_sharded(g, 0, &[0, 0, 1, 2], &[0.0, 1.0, 2.0, 2.5]),
            )
        });
        expect_problem(&r.0, "vertex 3: no input edge from its parent 0");
        expect_problem(&r.1, "vertex 3: no input edge from its parent 1");
        expect_problem(
            &r.2,
            "vertex 3: no input edge from its parent 2 gives its distance 2.5",
        );
        // ... which a duplicate edge with that weight confirms (a self-loop does not).
        let mut e = path(4, 1.0);
        e.push(PackedEdge::new(3, 3, 0.5));
        e.push(PackedEdge::new(3, 2, 0.5));
        let r = everywhere(4, e.clone(), |g| {
            validate_sssp_sharded(g, 0, &[0, 0, 1, 2], &[0.0, 1.0, 2.0, 2.5])
        });
        assert_eq!(
            r,
            Ok(Validated {
                reached: 4,
                traversed_edges: 4
            })
        );
        let r = everywhere(4, e, |g| {
            validate_sssp_sharded(g, 0, &[0, 0, 1, 3], &[0.0, 1.0, 2.0, 2.5])
        });
        assert!(r.is_err(), "a self-loop confirmed vertex 3");
        // Levels: one off by one.
        let r = everywhere(4, path(4, 1.0), |g| {
            (
                validate_bfs_sharded(g, 0, &[0, 0, 1, 2], Some(&[0, 1, 2, 2])),
                validate_bfs_sharded(g, 0, &[0, 0, 1, 2], Some(&[0, 1, 2, 3])),
            )
        });
        expect_problem(&r.0, "vertex 3 has level 2 but its tree depth is 3");
        assert_eq!(
            r.1,
            Ok(Validated {
                reached: 4,
                traversed_edges: 3
            })
        );
    }

    /// Many problems: the count is exact, the listed ones are the first by
    /// edge then by vertex, whatever the partition.
    #[test]
    fn many_problems_are_counted_exactly_and_the_first_listed() {
        let e = everywhere(100, path(100, 1.0), |g| {
            let parent: Vec<u64> = (0..100u64).map(|v| v.saturating_sub(1)).collect();
            let dist: Vec<f32> = (0..100).map(|v| 1.5 * v as f32).collect();
            validate_sssp_sharded(g, 0, &parent, &dist)
        })
        .unwrap_err();
        // 99 edges break the triangle rule, 99 vertices are unconfirmed.
        assert_eq!(e.count, 198);
        assert_eq!(e.problems.len(), MAX_LISTED);
        for (i, p) in e.problems.iter().enumerate() {
            assert!(
                p.starts_with(&format!("edge ({i}, {}) with weight 1", i + 1)),
                "{p}"
            );
        }
        assert!(e.to_string().ends_with("... and 178 more"), "{e}");
        let list = EdgeList::from_edges(100, path(100, 1.0)).unwrap();
        let parent: Vec<u64> = (0..100u64).map(|v| v.saturating_sub(1)).collect();
        let dist: Vec<f32> = (0..100).map(|v| 1.5 * v as f32).collect();
        assert_eq!(
            validate_sssp_list(&list, 0, &parent, &dist).unwrap_err(),
            e,
            "same text as the list validator here (edges input as (u, u + 1))"
        );
    }

    /// Lengths that do not fit the graph are refused before any trustee runs.
    #[test]
    fn arrays_of_the_wrong_length_are_errors() {
        let r = everywhere(4, path(4, 1.0), |g| {
            (
                validate_sssp_sharded(g, 0, &[0, 0, 1], &[0.0, 1.0, 2.0]),
                validate_sssp_sharded(g, 0, &[0, 0, 1, 2], &[0.0, 1.0]),
                validate_bfs_sharded(g, 0, &[0, 0, 1, 2], Some(&[0, 1])),
                validate_bfs_sharded(g, 7, &[0, 0, 1, 2], None),
            )
        });
        expect_problem(
            &r.0,
            "parent array has 3 entries but the graph has 4 vertices",
        );
        expect_problem(&r.1, "distance array has 2 entries for 4 vertices");
        expect_problem(&r.2, "level array has 2 entries for 4 vertices");
        expect_problem(&r.3, "root 7 is out of range");
    }
}
