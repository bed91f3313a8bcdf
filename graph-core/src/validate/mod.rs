//! Graph500 validation of a search result.
//!
//! The checks follow the Graph500 specification (and the reference's
//! `validate.c`), restated here in our own terms. A result is a parent array
//! (`NO_PARENT` for unreached vertices) plus, for SSSP, a distance array; for
//! BFS the validator derives each vertex's depth from the parent tree itself.
//!
//! 1. Every parent is a vertex id or `NO_PARENT`.
//! 2. The root is its own parent at depth / distance 0.
//! 3. Following parents from any reached vertex ends at the root: no cycle,
//!    no chain into an unreached vertex.
//! 4. Every input edge (self-loops ignored) joins two reached or two unreached
//!    vertices: the tree spans the root's whole component.
//! 5. The triangle rule holds on every input edge: `d(v) <= d(u) + w` both
//!    ways, in `f32` for SSSP and with `w = 1` on depths for BFS.
//! 6. Every reached non-root vertex is *confirmed* by an input edge from its
//!    parent with `d(v) == d(parent) + w` exactly (in `f32`): the parent is a
//!    neighbour and the distance is the length of the tree path.
//!
//! While it scans the edges, the validator also counts the edges of the
//! traversed component the Graph500 way (each non-loop input edge whose ends
//! are reached, duplicates included): that count is the TEPS numerator.
//!
//! # Directed graphs
//!
//! Graph500's rules assume undirected edges. On a directed graph (each
//! record an arc `u -> v`; [`validate_bfs_directed`],
//! [`validate_sssp_directed`], and the sharded validators on a directed
//! [`ShardedGraph`](crate::sharded::ShardedGraph)) rules 4-6 follow the
//! arcs:
//!
//! 4. every arc `u -> v` whose tail `u` is reached has its head `v`
//!    reached (an arc into a reached vertex from an unreached one is fine);
//! 5. `d(v) <= d(u) + w` along every arc from a reached tail (one way only);
//! 6. every reached non-root vertex `v` is confirmed by an arc
//!    `parent(v) -> v` with `d(v) == d(parent) + w`.
//!
//! The traversed-edge count is the number of non-loop arcs (duplicates
//! included) whose tail is reached: the arcs a search from the root
//! examines, as GAPBS's TEPS count them. On a valid answer their heads are
//! reached too.
//!
//! The generic forms ([`validate_bfs`], [`validate_sssp`]) take any edge
//! iterator (a file, a generator stream); [`validate_bfs_list`] and
//! [`validate_sssp_list`] take an [`EdgeList`]. [`validate_bfs_sharded`]
//! and [`validate_sssp_sharded`] need no edge list: rules 4-6 and the edge
//! count run on every trustee of a [`ShardedGraph`](crate::sharded::ShardedGraph)
//! over its own shard, with the same results (see `validate/sharded.rs`);
//! [`count_traversed_sharded`] is their edge count without the checks.
//!
//! ```
//! use graph_core::validate::{validate_sssp_list, NO_PARENT};
//! use graph_core::{EdgeList, PackedEdge};
//! let list = EdgeList::from_edges(4, vec![
//!     PackedEdge::new(0, 1, 0.5),
//!     PackedEdge::new(1, 2, 0.25),
//!     PackedEdge::new(0, 2, 1.0),
//! ]).unwrap();
//! let parent = [0, 0, 1, NO_PARENT];
//! let dist = [0.0, 0.5, 0.75, f32::INFINITY];
//! let ok = validate_sssp_list(&list, 0, &parent, &dist).unwrap();
//! assert_eq!((ok.reached, ok.traversed_edges), (3, 3));
//! // A distance that is too long breaks the triangle rule on edge (0, 2).
//! let bad = [0.0, 0.5, 1.0, f32::INFINITY];
//! assert!(validate_sssp_list(&list, 0, &parent, &bad).is_err());
//! ```

use std::fmt;

use crate::edge_list::EdgeList;

pub mod reference;
mod sharded;

pub use sharded::{count_traversed_sharded, validate_bfs_sharded, validate_sssp_sharded};

/// Marks an unreached vertex in a parent array.
pub const NO_PARENT: u64 = u64::MAX;

/// How many individual problems a failed validation lists before it stops
/// collecting (the count of all problems is still exact).
const MAX_LISTED: usize = 20;

/// What a successful validation measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Validated {
    /// Vertices reached from the root, the root included.
    pub reached: u64,
    /// Input edges (self-loops excluded, duplicates included) with both ends
    /// reached: the Graph500 TEPS numerator.
    pub traversed_edges: u64,
}

/// A failed validation: every rule broken, the first few spelled out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidationError {
    /// Total number of violations found.
    pub count: u64,
    /// Human-readable descriptions of the first violations.
    pub problems: Vec<String>,
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "validation failed with {} problem(s)", self.count)?;
        for p in &self.problems {
            write!(f, "\n  - {p}")?;
        }
        if self.count > self.problems.len() as u64 {
            write!(
                f,
                "\n  - ... and {} more",
                self.count - self.problems.len() as u64
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for ValidationError {}

#[derive(Default)]
struct Problems {
    count: u64,
    listed: Vec<String>,
}

impl Problems {
    fn push(&mut self, describe: impl FnOnce() -> String) {
        self.count += 1;
        if self.listed.len() < MAX_LISTED {
            self.listed.push(describe());
        }
    }

    /// Adds `count` problems, of which `listed` describes the first ones in
    /// order (at most `count` of them are taken).
    fn add_many(&mut self, count: u64, listed: impl IntoIterator<Item = String>) {
        self.count += count;
        let room = MAX_LISTED.saturating_sub(self.listed.len());
        let take = room.min(usize::try_from(count).unwrap_or(usize::MAX));
        self.listed.extend(listed.into_iter().take(take));
    }

    fn into_result(self, ok: Validated) -> Result<Validated, ValidationError> {
        if self.count == 0 {
            Ok(ok)
        } else {
            Err(ValidationError {
                count: self.count,
                problems: self.listed,
            })
        }
    }
}

/// Validates a BFS result: `parent[v]` for every vertex, `NO_PARENT` where
/// unreached. `edges` yields every input edge `(u, v)` once (self-loops and
/// duplicates as generated; the weight is ignored).
///
/// If `levels` is given, it must equal the depth of each vertex in the parent
/// tree (`-1` when unreached).
pub fn validate_bfs<I>(
    root: u64,
    parent: &[u64],
    levels: Option<&[i64]>,
    edges: I,
) -> Result<Validated, ValidationError>
where
    I: IntoIterator<Item = (u64, u64)>,
{
    bfs_along(Sides::Edges, root, parent, levels, edges)
}

/// [`validate_bfs`] or [`validate_bfs_directed`], by `sides`.
fn bfs_along<I>(
    sides: Sides,
    root: u64,
    parent: &[u64],
    levels: Option<&[i64]>,
    records: I,
) -> Result<Validated, ValidationError>
where
    I: IntoIterator<Item = (u64, u64)>,
{
    let (problems, dist) = bfs_prelude(root, parent, levels);
    match dist {
        Some(dist) => check_records(
            sides,
            root,
            parent,
            &dist,
            records.into_iter().map(|(u, v)| (u, v, 1.0)),
            problems,
        ),
        None => problems.into_result(Validated {
            reached: 0,
            traversed_edges: 0,
        }),
    }
}

/// The parts of BFS validation that need only the parent (and level)
/// array: rules 1-3 and the levels. Returns the problems so far and, when
/// the edges are to be checked, the tree depths as `f32` distances
/// (`+inf` unreached) for rules 4-6 with unit weights.
fn bfs_prelude(root: u64, parent: &[u64], levels: Option<&[i64]>) -> (Problems, Option<Vec<f32>>) {
    let mut problems = Problems::default();
    let depth = match tree_depths(root, parent, &mut problems) {
        Some(d) => d,
        None => return (problems, None),
    };
    if let Some(levels) = levels {
        if levels.len() != parent.len() {
            problems.push(|| {
                format!(
                    "level array has {} entries for {} vertices",
                    levels.len(),
                    parent.len()
                )
            });
        } else {
            for (v, (&l, &d)) in levels.iter().zip(&depth).enumerate() {
                let expect = if d == UNREACHED { -1 } else { d as i64 };
                if l != expect {
                    problems.push(|| {
                        format!("vertex {v} has level {l} but its tree depth is {expect}")
                    });
                }
            }
        }
    }
    let dist: Vec<f32> = depth
        .iter()
        .map(|&d| {
            if d == UNREACHED {
                f32::INFINITY
            } else {
                d as f32
            }
        })
        .collect();
    (problems, Some(dist))
}

/// Validates an SSSP result: `parent[v]` and `dist[v]` for every vertex
/// (`NO_PARENT` and `f32::INFINITY` where unreached). `edges` yields every
/// input edge `(u, v, w)` once.
pub fn validate_sssp<I>(
    root: u64,
    parent: &[u64],
    dist: &[f32],
    edges: I,
) -> Result<Validated, ValidationError>
where
    I: IntoIterator<Item = (u64, u64, f32)>,
{
    sssp_along(Sides::Edges, root, parent, dist, edges)
}

/// [`validate_sssp`] or [`validate_sssp_directed`], by `sides`.
fn sssp_along<I>(
    sides: Sides,
    root: u64,
    parent: &[u64],
    dist: &[f32],
    records: I,
) -> Result<Validated, ValidationError>
where
    I: IntoIterator<Item = (u64, u64, f32)>,
{
    let (problems, go_on) = sssp_prelude(root, parent, dist);
    if !go_on {
        return problems.into_result(Validated {
            reached: 0,
            traversed_edges: 0,
        });
    }
    check_records(sides, root, parent, dist, records, problems)
}

/// The parts of SSSP validation that need only the parent and distance
/// arrays: their lengths, rules 1-3 and each distance's range and
/// agreement with its parent. Returns the problems so far and whether the
/// edges are to be checked (rules 4-6).
fn sssp_prelude(root: u64, parent: &[u64], dist: &[f32]) -> (Problems, bool) {
    let mut problems = Problems::default();
    if dist.len() != parent.len() {
        problems.push(|| {
            format!(
                "distance array has {} entries for {} vertices",
                dist.len(),
                parent.len()
            )
        });
        return (problems, false);
    }
    if tree_depths(root, parent, &mut problems).is_none() {
        return (problems, false);
    }
    for (v, (&d, &p)) in dist.iter().zip(parent).enumerate() {
        let reached = p != NO_PARENT;
        if d.is_nan() || d < 0.0 {
            problems.push(|| format!("vertex {v} has distance {d}, which is out of range"));
        } else if reached != d.is_finite() {
            problems.push(|| {
                format!(
                    "vertex {v} has inconsistent parent {} and distance {d}",
                    show_parent(p)
                )
            });
        }
    }
    (problems, true)
}

/// [`validate_bfs`] over the edges of an [`EdgeList`].
pub fn validate_bfs_list(
    list: &EdgeList<'_>,
    root: u64,
    parent: &[u64],
    levels: Option<&[i64]>,
) -> Result<Validated, ValidationError> {
    let n = list.num_vertices();
    if parent.len() as u64 != n {
        return Err(length_mismatch("parent", parent.len(), n));
    }
    validate_bfs(
        root,
        parent,
        levels,
        list.edges()
            .iter()
            .map(|e| (u64::from(e.u), u64::from(e.v))),
    )
}

/// [`validate_sssp`] over the edges of an [`EdgeList`].
pub fn validate_sssp_list(
    list: &EdgeList<'_>,
    root: u64,
    parent: &[u64],
    dist: &[f32],
) -> Result<Validated, ValidationError> {
    let n = list.num_vertices();
    if parent.len() as u64 != n {
        return Err(length_mismatch("parent", parent.len(), n));
    }
    validate_sssp(
        root,
        parent,
        dist,
        list.edges()
            .iter()
            .map(|e| (u64::from(e.u), u64::from(e.v), e.w)),
    )
}

/// [`validate_bfs`] on a directed graph: `arcs` yields every input arc
/// `(u, v)` (`u -> v`) once; rules 4-6 follow the arcs (see the module
/// docs) and the traversed-edge count is the arcs whose tail is reached.
///
/// ```
/// use graph_core::validate::{validate_bfs_directed, NO_PARENT};
/// let arcs = [(0, 1), (2, 1)]; // 0 -> 1 <- 2
/// let ok = validate_bfs_directed(0, &[0, 0, NO_PARENT], None, arcs).unwrap();
/// assert_eq!((ok.reached, ok.traversed_edges), (2, 1));
/// // 2 cannot be reached from 0: only against the arc 2 -> 1.
/// assert!(validate_bfs_directed(0, &[0, 0, 1], None, arcs).is_err());
/// ```
pub fn validate_bfs_directed<I>(
    root: u64,
    parent: &[u64],
    levels: Option<&[i64]>,
    arcs: I,
) -> Result<Validated, ValidationError>
where
    I: IntoIterator<Item = (u64, u64)>,
{
    bfs_along(Sides::Arcs, root, parent, levels, arcs)
}

/// [`validate_sssp`] on a directed graph: `arcs` yields every input arc
/// `(u, v, w)` (`u -> v`) once; see [`validate_bfs_directed`].
pub fn validate_sssp_directed<I>(
    root: u64,
    parent: &[u64],
    dist: &[f32],
    arcs: I,
) -> Result<Validated, ValidationError>
where
    I: IntoIterator<Item = (u64, u64, f32)>,
{
    sssp_along(Sides::Arcs, root, parent, dist, arcs)
}

/// Directed rule 4's problem text.
fn arc_split_message(u: u64, v: u64) -> String {
    format!("arc ({u}, {v}) leads from reached vertex {u} to unreached vertex {v}")
}

/// Directed rule 5's problem text.
fn arc_triangle_message(u: u64, v: u64, w: f32, du: f32, dv: f32) -> String {
    format!("arc ({u}, {v}) with weight {w} breaks the triangle rule: d({u}) = {du}, d({v}) = {dv}")
}

/// Directed rule 6's problem text.
fn arc_unconfirmed_message(v: u64, p: u64, d: f32) -> String {
    format!(
        "vertex {v}: no input arc from its parent {p} gives its distance {d} (no arc {p} -> {v}, or wrong distance)"
    )
}

fn length_mismatch(what: &str, len: usize, n: u64) -> ValidationError {
    ValidationError {
        count: 1,
        problems: vec![format!(
            "{what} array has {len} entries but the graph has {n} vertices"
        )],
    }
}

const UNREACHED: u32 = u32::MAX;
const IN_PROGRESS: u32 = u32::MAX - 1;

/// Depth of every vertex in the parent tree, checking rules 1-3. Returns
/// `None` (with problems recorded) when the tree is malformed.
fn tree_depths(root: u64, parent: &[u64], problems: &mut Problems) -> Option<Vec<u32>> {
    let n = parent.len() as u64;
    if root >= n {
        problems.push(|| format!("root {root} is out of range (the graph has {n} vertices)"));
        return None;
    }
    for (v, &p) in parent.iter().enumerate() {
        if p != NO_PARENT && p >= n {
            problems.push(|| format!("parent {p} of vertex {v} is out of range"));
        }
    }
    if parent[root as usize] != root {
        problems.push(|| {
            format!(
                "root {root} has parent {}, expected itself",
                show_parent(parent[root as usize])
            )
        });
    }
    if problems.count > 0 {
        return None;
    }
    let mut depth = vec![UNREACHED; parent.len()];
    depth[root as usize] = 0;
    let mut chain = Vec::new();
    for start in 0..parent.len() {
        if parent[start] == NO_PARENT || depth[start] != UNREACHED {
            continue;
        }
        // Walk up until a vertex of known depth, marking the chain.
        let mut v = start;
        let mut broken = false;
        while depth[v] == UNREACHED {
            depth[v] = IN_PROGRESS;
            chain.push(v);
            let p = parent[v];
            if p == NO_PARENT {
                problems.push(|| format!("vertex {start} leads up to unreached vertex {v}"));
                broken = true;
                break;
            }
            v = p as usize;
        }
        if !broken && depth[v] == IN_PROGRESS {
            problems
                .push(|| format!("the parents of vertex {start} form a cycle through vertex {v}"));
            broken = true;
        }
        let base = if broken { None } else { Some(depth[v]) };
        // Unwind: depths increase by one per step down the chain.
        for (k, &c) in chain.iter().rev().enumerate() {
            depth[c] = match base {
                Some(b) => b + 1 + k as u32,
                None => UNREACHED,
            };
        }
        chain.clear();
    }
    if problems.count > 0 {
        None
    } else {
        Some(depth)
    }
}

fn show_parent(p: u64) -> String {
    if p == NO_PARENT {
        "none".to_string()
    } else {
        p.to_string()
    }
}

/// Rule 2's distance half: the root is at distance 0.
fn root_distance(root: u64, dist: &[f32], problems: &mut Problems) {
    if dist[root as usize] != 0.0 {
        problems.push(|| {
            format!(
                "root {root} has distance {}, expected 0",
                dist[root as usize]
            )
        });
    }
}

/// Rule 4's problem text.
fn split_message(u: u64, v: u64, reached: u64, unreached: u64) -> String {
    format!("edge ({u}, {v}) joins reached vertex {reached} and unreached vertex {unreached}")
}

/// Rule 5's problem text.
fn triangle_message(u: u64, v: u64, w: f32, du: f32, dv: f32) -> String {
    format!(
        "edge ({u}, {v}) with weight {w} breaks the triangle rule: d({u}) = {du}, d({v}) = {dv}"
    )
}

/// Rule 6's problem text.
fn unconfirmed_message(v: u64, p: u64, d: f32) -> String {
    format!(
        "vertex {v}: no input edge from its parent {p} gives its distance {d} (parent not a neighbour, or wrong distance)"
    )
}

/// How the records of rules 4-6 are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sides {
    /// Undirected edges: each record joins both ways.
    Edges,
    /// Arcs of a directed graph: each record leads from `u` to `v`.
    Arcs,
}

/// Rules 4-6 over every record, given well-formed trees and distances:
/// undirected edges or the arcs of a directed graph (see the module docs).
fn check_records<I>(
    sides: Sides,
    root: u64,
    parent: &[u64],
    dist: &[f32],
    records: I,
    mut problems: Problems,
) -> Result<Validated, ValidationError>
where
    I: IntoIterator<Item = (u64, u64, f32)>,
{
    let n = parent.len() as u64;
    root_distance(root, dist, &mut problems);
    let mut confirmed = vec![false; parent.len()];
    confirmed[root as usize] = true;
    let mut traversed = 0u64;
    let reached = |x: u64| parent[x as usize] != NO_PARENT;
    for (u, v, w) in records {
        if u >= n || v >= n {
            let kind = if sides == Sides::Arcs { "arc" } else { "edge" };
            problems.push(|| format!("input {kind} ({u}, {v}) names a vertex outside the graph"));
            continue;
        }
        if u == v {
            continue;
        }
        let (ru, rv) = (reached(u), reached(v));
        let (du, dv) = (dist[u as usize], dist[v as usize]);
        match sides {
            Sides::Edges => {
                if !ru && !rv {
                    continue;
                }
                if ru != rv {
                    let (r, x) = if ru { (u, v) } else { (v, u) };
                    problems.push(|| split_message(u, v, r, x));
                    continue;
                }
                traversed += 1;
                if dv > du + w || du > dv + w {
                    problems.push(|| triangle_message(u, v, w, du, dv));
                }
                if parent[u as usize] == v && du == dv + w {
                    confirmed[u as usize] = true;
                }
            }
            Sides::Arcs => {
                if !ru {
                    continue;
                }
                traversed += 1;
                if !rv {
                    problems.push(|| arc_split_message(u, v));
                    continue;
                }
                if dv > du + w {
                    problems.push(|| arc_triangle_message(u, v, w, du, dv));
                }
            }
        }
        if parent[v as usize] == u && dv == du + w {
            confirmed[v as usize] = true;
        }
    }
    let mut reached = 0u64;
    for (v, (&p, &ok)) in parent.iter().zip(&confirmed).enumerate() {
        if p == NO_PARENT {
            continue;
        }
        reached += 1;
        if !ok {
            let (v, d) = (v as u64, dist[v]);
            problems.push(|| match sides {
                Sides::Edges => unconfirmed_message(v, p, d),
                Sides::Arcs => arc_unconfirmed_message(v, p, d),
            });
        }
    }
    problems.into_result(Validated {
        reached,
        traversed_edges: traversed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edge_list::PackedEdge;

    fn vectors() -> crate::io::vectors::Vectors {
        crate::io::vectors::Vectors::bundled().unwrap_or_else(|e| panic!("{e}"))
    }

    fn load(scale: u32) -> EdgeList<'static> {
        vectors().edge_list(scale).unwrap()
    }

    fn roots(scale: u32) -> Vec<u64> {
        vectors().roots(scale).unwrap()[..4].to_vec()
    }

    fn oracle_dist(scale: u32, root: u64) -> Vec<f32> {
        vectors().dist(scale, root).unwrap()
    }

    fn oracle_level(scale: u32, root: u64) -> Vec<i64> {
        vectors().levels(scale, root).unwrap()
    }

    /// A parent for every reached vertex: the first input edge that confirms it.
    fn parents_from(
        list: &EdgeList<'_>,
        root: u64,
        d: impl Fn(u64) -> Option<f32>,
        step: impl Fn(f32) -> f32,
    ) -> Vec<u64> {
        let mut parent = vec![NO_PARENT; list.num_vertices() as usize];
        parent[root as usize] = root;
        for e in list.edges() {
            let (u, v) = (u64::from(e.u), u64::from(e.v));
            if u == v {
                continue;
            }
            for (a, b) in [(u, v), (v, u)] {
                if let (Some(da), Some(db)) = (d(a), d(b)) {
                    if b != root && parent[b as usize] == NO_PARENT && db == da + step(e.w) {
                        parent[b as usize] = a;
                    }
                }
            }
        }
        parent
    }

    struct Sssp {
        list: EdgeList<'static>,
        root: u64,
        parent: Vec<u64>,
        dist: Vec<f32>,
    }

    fn sssp_case(scale: u32, k: usize) -> Sssp {
        let list = load(scale);
        let root = roots(scale)[k];
        let dist = oracle_dist(scale, root);
        let parent = parents_from(
            &list,
            root,
            |v| Some(dist[v as usize]).filter(|d| d.is_finite()),
            |w| w,
        );
        Sssp {
            list,
            root,
            parent,
            dist,
        }
    }

    struct Bfs {
        list: EdgeList<'static>,
        root: u64,
        parent: Vec<u64>,
        level: Vec<i64>,
    }

    fn bfs_case(scale: u32, k: usize) -> Bfs {
        let list = load(scale);
        let root = roots(scale)[k];
        let level = oracle_level(scale, root);
        let parent = parents_from(
            &list,
            root,
            |v| (level[v as usize] >= 0).then(|| level[v as usize] as f32),
            |_| 1.0,
        );
        Bfs {
            list,
            root,
            parent,
            level,
        }
    }

    fn expect_problem(r: Result<Validated, ValidationError>, needle: &str) {
        match r {
            Ok(v) => panic!("validation passed ({v:?}) but should report {needle:?}"),
            Err(e) => assert!(
                e.problems.iter().any(|p| p.contains(needle)),
                "expected a problem containing {needle:?}, got:\n{e}"
            ),
        }
    }

    /// Expected component edge counts from the vectors' README.
    const NEDGE: [(u32, u64); 2] = [(10, 16239), (12, 65327)];

    #[test]
    fn oracle_answers_pass_and_count_edges() {
        for (scale, nedge) in NEDGE {
            for k in 0..4 {
                let s = sssp_case(scale, k);
                let ok = validate_sssp_list(&s.list, s.root, &s.parent, &s.dist)
                    .unwrap_or_else(|e| panic!("scale {scale} root {}: {e}", s.root));
                assert_eq!(ok.traversed_edges, nedge);
                let b = bfs_case(scale, k);
                let okb = validate_bfs_list(&b.list, b.root, &b.parent, Some(&b.level))
                    .unwrap_or_else(|e| panic!("scale {scale} root {}: {e}", b.root));
                assert_eq!(okb, ok, "BFS and SSSP reach the same component");
            }
        }
    }

    #[test]
    fn wrong_distance_fails() {
        let mut s = sssp_case(10, 0);
        let v = (0..s.dist.len())
            .find(|&v| s.dist[v].is_finite() && v as u64 != s.root)
            .unwrap();
        s.dist[v] += 1e-3;
        expect_problem(
            validate_sssp_list(&s.list, s.root, &s.parent, &s.dist),
            &format!("vertex {v}"),
        );
        // Too short by one ulp is also caught (no edge confirms it).
        let mut s = sssp_case(10, 1);
        s.dist[v] = f32::from_bits(s.dist[v].to_bits() - 1);
        assert!(validate_sssp_list(&s.list, s.root, &s.parent, &s.dist).is_err());
    }

    #[test]
    fn parent_that_is_not_a_neighbour_fails() {
        let list = EdgeList::from_edges(
            4,
            vec![
                PackedEdge::new(0, 1, 1.0),
                PackedEdge::new(1, 2, 1.0),
                PackedEdge::new(2, 3, 1.0),
            ],
        )
        .unwrap();
        // 3's parent 0 is not adjacent, though its distance is right for the path.
        let parent = [0, 0, 1, 0];
        expect_problem(
            validate_sssp_list(&list, 0, &parent, &[0.0, 1.0, 2.0, 3.0]),
            "vertex 3: no input edge from its parent 0",
        );
        expect_problem(
            validate_bfs_list(&list, 0, &[0, 0, 1, 1], None),
            "vertex 3: no input edge from its parent 1",
        );
    }

    #[test]
    fn cycle_in_parents_fails() {
        let mut b = bfs_case(10, 0);
        // Two adjacent reached non-root vertices pointing at each other.
        let e = b
            .list
            .edges()
            .iter()
            .find(|e| {
                e.u != e.v
                    && u64::from(e.u) != b.root
                    && u64::from(e.v) != b.root
                    && b.level[e.u as usize] > 0
            })
            .copied()
            .unwrap();
        b.parent[e.u as usize] = u64::from(e.v);
        b.parent[e.v as usize] = u64::from(e.u);
        expect_problem(
            validate_bfs_list(&b.list, b.root, &b.parent, None),
            "form a cycle",
        );
        let s = sssp_case(10, 0);
        let mut parent = s.parent.clone();
        parent[e.u as usize] = u64::from(e.v);
        parent[e.v as usize] = u64::from(e.u);
        expect_problem(
            validate_sssp_list(&s.list, s.root, &parent, &s.dist),
            "form a cycle",
        );
    }

    #[test]
    fn unreached_vertex_that_should_be_reached_fails() {
        let mut s = sssp_case(12, 2);
        // A leaf of the tree (no child), so the tree itself stays well formed.
        let mut has_child = vec![false; s.parent.len()];
        for (v, &p) in s.parent.iter().enumerate() {
            if p != NO_PARENT && p != v as u64 {
                has_child[p as usize] = true;
            }
        }
        let leaf = (0..s.parent.len())
            .find(|&v| s.parent[v] != NO_PARENT && v as u64 != s.root && !has_child[v])
            .unwrap();
        s.parent[leaf] = NO_PARENT;
        s.dist[leaf] = f32::INFINITY;
        expect_problem(
            validate_sssp_list(&s.list, s.root, &s.parent, &s.dist),
            &format!("unreached vertex {leaf}"),
        );
        let mut b = bfs_case(12, 2);
        b.parent[leaf] = NO_PARENT;
        b.level[leaf] = -1;
        expect_problem(
            validate_bfs_list(&b.list, b.root, &b.parent, Some(&b.level)),
            &format!("unreached vertex {leaf}"),
        );
    }

    #[test]
    fn reached_vertex_next_to_unreached_fails() {
        // 3 is adjacent to reached 2 but left unreached, with a consistent tree otherwise.
        let list = EdgeList::from_edges(
            5,
            vec![
                PackedEdge::new(0, 1, 0.5),
                PackedEdge::new(1, 2, 0.5),
                PackedEdge::new(2, 3, 0.5),
            ],
        )
        .unwrap();
        let parent = [0, 0, 1, NO_PARENT, NO_PARENT];
        let dist = [0.0, 0.5, 1.0, f32::INFINITY, f32::INFINITY];
        expect_problem(
            validate_sssp_list(&list, 0, &parent, &dist),
            "joins reached vertex 2 and unreached vertex 3",
        );
        expect_problem(
            validate_bfs_list(&list, 0, &parent, None),
            "joins reached vertex 2 and unreached vertex 3",
        );
    }

    #[test]
    fn wrong_root_parent_fails() {
        let mut s = sssp_case(10, 3);
        let other = (0..s.parent.len() as u64)
            .find(|&v| v != s.root && s.parent[v as usize] != NO_PARENT)
            .unwrap();
        s.parent[s.root as usize] = other;
        expect_problem(
            validate_sssp_list(&s.list, s.root, &s.parent, &s.dist),
            "expected itself",
        );
        let mut b = bfs_case(10, 3);
        b.parent[b.root as usize] = NO_PARENT;
        expect_problem(
            validate_bfs_list(&b.list, b.root, &b.parent, None),
            "expected itself",
        );
        // Root distance must be zero.
        let mut s = sssp_case(10, 3);
        s.dist[s.root as usize] = 0.25;
        expect_problem(
            validate_sssp_list(&s.list, s.root, &s.parent, &s.dist),
            "expected 0",
        );
    }

    #[test]
    fn wrong_level_fails() {
        let mut b = bfs_case(12, 1);
        let v = (0..b.level.len()).find(|&v| b.level[v] > 1).unwrap();
        b.level[v] -= 1;
        expect_problem(
            validate_bfs_list(&b.list, b.root, &b.parent, Some(&b.level)),
            &format!("vertex {v} has level"),
        );
        // A parent two levels up gives a tree depth that breaks the triangle rule.
        let mut b = bfs_case(12, 1);
        let deep = (0..b.level.len()).find(|&v| b.level[v] == 2).unwrap();
        let gp = b.parent[b.parent[deep] as usize];
        b.parent[deep] = gp;
        assert!(validate_bfs_list(&b.list, b.root, &b.parent, None).is_err());
    }

    #[test]
    fn malformed_inputs_are_errors() {
        let list = EdgeList::from_edges(3, vec![PackedEdge::new(0, 1, 1.0)]).unwrap();
        expect_problem(
            validate_sssp_list(&list, 0, &[0, 0], &[0.0, 1.0]),
            "parent array has 2 entries",
        );
        expect_problem(
            validate_sssp_list(&list, 7, &[0, 0, NO_PARENT], &[0.0, 1.0, f32::INFINITY]),
            "root 7 is out of range",
        );
        expect_problem(
            validate_sssp_list(&list, 0, &[0, 9, NO_PARENT], &[0.0, 1.0, f32::INFINITY]),
            "parent 9 of vertex 1",
        );
        expect_problem(
            validate_sssp_list(
                &list,
                0,
                &[0, 0, NO_PARENT],
                &[0.0, f32::NAN, f32::INFINITY],
            ),
            "out of range",
        );
        expect_problem(
            validate_sssp_list(&list, 0, &[0, 0, NO_PARENT], &[0.0, 1.0, 2.0]),
            "inconsistent parent none",
        );
        expect_problem(
            validate_bfs(0, &[0, 0, NO_PARENT], None, [(0, 5)]),
            "outside the graph",
        );
        // The message lists problems and counts the rest.
        let e = validate_sssp_list(&list, 0, &[0, 0, NO_PARENT], &[0.0, 1.0, 2.0]).unwrap_err();
        assert!(e
            .to_string()
            .starts_with("validation failed with 1 problem(s)"));
    }
}
