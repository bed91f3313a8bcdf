//! The validators over the input records (rules 4-6 and the TEPS edge
//! count, see the [module docs](super)): any record iterator
//! ([`validate_bfs`], [`validate_sssp`], their `_directed` forms) or an
//! [`EdgeList`] ([`validate_bfs_list`], [`validate_sssp_list`]).

use super::problems::{
    arc_split_message, arc_triangle_message, arc_unconfirmed_message, length_mismatch,
    overflow_message, overflows, split_message, triangle_message, unconfirmed_message, Problems,
    Validated, ValidationError,
};
use super::tree::{bfs_prelude, root_distance, sssp_prelude, NO_PARENT};
use crate::edge_list::EdgeList;

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
                    let d = dist[r as usize];
                    if overflows(d, w) {
                        problems.overflow = true;
                        problems.push(|| overflow_message("edge", u, v, r, x, d, w));
                    } else {
                        problems.push(|| split_message(u, v, r, x));
                    }
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
                    if overflows(du, w) {
                        problems.overflow = true;
                        problems.push(|| overflow_message("arc", u, v, u, v, du, w));
                    } else {
                        problems.push(|| arc_split_message(u, v));
                    }
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
