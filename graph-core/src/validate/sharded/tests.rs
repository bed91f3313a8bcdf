//! The sharded validators against the list validators: the same verdict,
//! problem count and traversed-edge count on random graphs, broken
//! answers, both partitions and 1-4 trustees.

use super::*;
use crate::sharded::{non_isolated_sharded, ShardedGraph};
use crate::validate::problems::MAX_LISTED;
use crate::validate::{
    reference, validate_bfs_list, validate_sssp_list, Validated, ValidationError, NO_PARENT,
};
use crate::{EdgeList, PackedEdge, PartitionKind};

const KINDS: [PartitionKind; 2] = [PartitionKind::Block, PartitionKind::Cyclic];

/// The BFS answer in 4 bytes a vertex (`u32::MAX` unreached), when every
/// value fits.
fn narrow(parent: &[u64], level: Option<&[i64]>) -> Option<(Vec<u32>, Option<Vec<i32>>)> {
    let p: Option<Vec<u32>> = parent
        .iter()
        .map(|&p| match p {
            NO_PARENT => Some(u32::MAX),
            p => u32::try_from(p).ok().filter(|&p| p != u32::MAX),
        })
        .collect();
    let l = match level {
        Some(l) => Some(Some(
            l.iter()
                .map(|&l| i32::try_from(l).ok())
                .collect::<Option<Vec<i32>>>()?,
        )),
        None => Some(None),
    };
    Some((p?, l?))
}

/// [`validate_bfs_sharded_u32`] and [`count_traversed_sharded_u32`] on the
/// narrowed answer give what the `u64` ones give.
fn narrow_agrees(g: &ShardedGraph, root: u64, parent: &[u64], level: Option<&[i64]>, what: &str) {
    let Some((p, l)) = narrow(parent, level) else {
        return;
    };
    let wide = validate_bfs_sharded(g, root, parent, level);
    let thin = validate_bfs_sharded_u32(g, root, &p, l.as_deref());
    assert_eq!(wide, thin, "{what}: u32 answer");
    let counts = (
        count_traversed_sharded(g, parent),
        count_traversed_sharded_u32(g, &p),
    );
    assert_eq!(counts.0, counts.1, "{what}: u32 count");
}

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

/// Renames every shard's targets as a kernel does ([`Shard::rewrite_rows`]):
/// a random permutation of the ids, each row reversed, so the scans read
/// the answer by renamed id (on odd seeds, in the tests below).
fn rename(g: &ShardedGraph, seed: u64) {
    let n = g.num_vertices() as usize;
    let mut names: Vec<u32> = (0..n as u32).collect();
    let mut r = Rng(seed ^ 0xFACE);
    for i in (1..n).rev() {
        names.swap(i, r.below(i as u64 + 1) as usize);
    }
    g.on_trustees_with(names, |ctx, names| {
        ctx.local.apply_with(
            |s, names: Vec<u32>| {
                let mut inv = vec![0u32; names.len()];
                for (t, &v) in names.iter().enumerate() {
                    inv[v as usize] = t as u32;
                }
                let renamed =
                    s.shard_mut()
                        .rewrite_rows(names.into(), |offsets, targets, weights| {
                            for w in offsets.windows(2) {
                                let row = w[0] as usize..w[1] as usize;
                                targets[row.clone()].reverse();
                                weights[row.clone()].reverse();
                                for t in &mut targets[row] {
                                    *t = inv[*t as usize];
                                }
                            }
                        });
                assert!(renamed, "the test's shards are weighted and in memory");
            },
            names,
        )
    });
}

fn dijkstra(list: &EdgeList<'_>, root: u64) -> (Vec<u64>, Vec<f32>) {
    reference::dijkstra(list, root, false)
}

fn bfs(list: &EdgeList<'_>, root: u64) -> (Vec<u64>, Vec<i64>) {
    reference::bfs(list, root, false)
}

/// The CLI's count over the edge list: reached entries, and non-loop
/// edges with both ends reached (plus half of each with one end reached,
/// which only a broken answer has).
fn count_list(list: &EdgeList<'_>, parent: &[u64]) -> (u64, u64) {
    let is = |v: u32| parent.get(v as usize).is_some_and(|&p| p != NO_PARENT);
    let reached = parent.iter().filter(|&&p| p != NO_PARENT).count() as u64;
    // Both ends reached: the edge; one end (a broken answer's reached set
    // that is not closed): half of it, as the sharded count documents.
    let halves: u64 = list
        .edges()
        .iter()
        .filter(|e| e.u != e.v)
        .map(|e| u64::from(is(e.u)) + u64::from(is(e.v)))
        .sum();
    (reached, halves / 2)
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
                    if seed % 2 == 1 {
                        rename(&g, seed);
                    }
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
                            let reached_tails = arcs
                                .iter()
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
                            narrow_agrees(&g, root, &bp, Some(&bl), &what);
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
                    if seed % 2 == 1 {
                        rename(&g, seed);
                    }
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
                        let what = format!("{what}, root {root}, case {case} (broken {broken})");
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
                            narrow_agrees(&g, root, &bparent, lv, &what);
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

/// A distance beyond `f32::MAX` leaves a vertex unreached: the list and
/// the sharded validators both say the distance overflows (the weights are
/// too large), not that the search missed an edge; undirected and
/// directed.
#[test]
fn distances_that_overflow_f32_are_named() {
    // 0 -3e38- 1 -3e38- 2 -1- 3: d(2) would be 6e38.
    let edges = vec![
        PackedEdge::new(0, 1, 3e38),
        PackedEdge::new(1, 2, 3e38),
        PackedEdge::new(2, 3, 1.0),
    ];
    let parent = [0, 0, NO_PARENT, NO_PARENT];
    let dist = [0.0, 3e38, f32::INFINITY, f32::INFINITY];
    for directed in [false, true] {
        let list = EdgeList::from_edges(4, edges.clone()).unwrap();
        let e = if directed {
            super::super::validate_sssp_directed(
                0,
                &parent,
                &dist,
                list.edges()
                    .iter()
                    .map(|e| (u64::from(e.u), u64::from(e.v), e.w)),
            )
            .unwrap_err()
        } else {
            validate_sssp_list(&list, 0, &parent, &dist).unwrap_err()
        };
        let check = |e: &ValidationError| {
            assert!(e.overflow, "{e}");
            assert_eq!(e.count, 1, "{e}");
            let text = e.to_string();
            assert!(text.contains("distances overflow f32"), "{text}");
            assert!(
                text.contains(
                    "d(1) = 3e38 plus its weight 3e38 overflows f32, so vertex 2 has no distance"
                ),
                "{text}"
            );
        };
        check(&e);
        for threads in 1..=2 {
            let list = EdgeList::from_edges(4, edges.clone()).unwrap();
            let e = gossamer::main(threads, move || {
                let g = ShardedGraph::build_with(&list, PartitionKind::Block, directed).unwrap();
                validate_sssp_sharded(&g, 0, &parent, &dist)
            })
            .unwrap_err();
            check(&e);
        }
    }
    // A split without an overflow is not called one.
    let list = EdgeList::from_edges(4, edges).unwrap();
    let e = validate_sssp_list(
        &list,
        0,
        &[0, NO_PARENT, NO_PARENT, NO_PARENT],
        &[0.0, f32::INFINITY, f32::INFINITY, f32::INFINITY],
    )
    .unwrap_err();
    assert!(!e.overflow, "{e}");
    assert!(!e.to_string().contains("overflow"), "{e}");
}
