//! The rules on the answer arrays alone (1-3: parents are vertices, the
//! root is its own, every chain of parents ends at the root), the tree
//! depths they give, and the distances' and levels' agreement with them.

use super::problems::Problems;

/// Marks an unreached vertex in a parent array.
pub const NO_PARENT: u64 = u64::MAX;

pub(super) const UNREACHED: u32 = u32::MAX;

const IN_PROGRESS: u32 = u32::MAX - 1;

/// A parent array as the validators read it: each vertex's parent as a
/// global id, or none. `[u64]` marks none with [`NO_PARENT`]; `[u32]`
/// (a search's answer in 4 bytes a vertex, where every id is below
/// `u32::MAX`, as graph-kernel's ids are) with `u32::MAX`.
pub(crate) trait Parents: Sync {
    /// Number of vertices.
    fn len(&self) -> usize;
    /// The parent of `v`, [`NO_PARENT`] for none.
    fn at(&self, v: usize) -> u64;
}

impl Parents for [u64] {
    fn len(&self) -> usize {
        <[u64]>::len(self)
    }
    #[inline(always)]
    fn at(&self, v: usize) -> u64 {
        self[v]
    }
}

impl Parents for [u32] {
    fn len(&self) -> usize {
        <[u32]>::len(self)
    }
    #[inline(always)]
    fn at(&self, v: usize) -> u64 {
        match self[v] {
            u32::MAX => NO_PARENT,
            p => u64::from(p),
        }
    }
}

/// A BFS level array as the validators read it (`-1` unreached): `[i64]`,
/// or `[i32]` beside a `[u32]` parent array.
pub(crate) trait Levels: Sync {
    /// Number of vertices.
    fn len(&self) -> usize;
    /// The level of `v`.
    fn at(&self, v: usize) -> i64;
}

impl Levels for [i64] {
    fn len(&self) -> usize {
        <[i64]>::len(self)
    }
    #[inline(always)]
    fn at(&self, v: usize) -> i64 {
        self[v]
    }
}

impl Levels for [i32] {
    fn len(&self) -> usize {
        <[i32]>::len(self)
    }
    #[inline(always)]
    fn at(&self, v: usize) -> i64 {
        i64::from(self[v])
    }
}

/// Depth of every vertex in the parent tree, checking rules 1-3. Returns
/// `None` (with problems recorded) when the tree is malformed.
fn tree_depths<P: Parents + ?Sized>(
    root: u64,
    parent: &P,
    problems: &mut Problems,
) -> Option<Vec<u32>> {
    let n = parent.len() as u64;
    if root >= n {
        problems.push(|| format!("root {root} is out of range (the graph has {n} vertices)"));
        return None;
    }
    for v in 0..parent.len() {
        let p = parent.at(v);
        if p != NO_PARENT && p >= n {
            problems.push(|| format!("parent {p} of vertex {v} is out of range"));
        }
    }
    if parent.at(root as usize) != root {
        problems.push(|| {
            format!(
                "root {root} has parent {}, expected itself",
                show_parent(parent.at(root as usize))
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
        if parent.at(start) == NO_PARENT || depth[start] != UNREACHED {
            continue;
        }
        // Walk up until a vertex of known depth, marking the chain.
        let mut v = start;
        let mut broken = false;
        while depth[v] == UNREACHED {
            depth[v] = IN_PROGRESS;
            chain.push(v);
            let p = parent.at(v);
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

/// The parts of BFS validation that need only the parent (and level)
/// array: rules 1-3 and the levels. Returns the problems so far and, when
/// the edges are to be checked, the tree depths as `f32` distances
/// (`+inf` unreached) for rules 4-6 with unit weights.
pub(super) fn bfs_prelude<P: Parents + ?Sized, L: Levels + ?Sized>(
    root: u64,
    parent: &P,
    levels: Option<&L>,
) -> (Problems, Option<Vec<f32>>) {
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
            for (v, &d) in depth.iter().enumerate() {
                let l = levels.at(v);
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

/// The parts of SSSP validation that need only the parent and distance
/// arrays: their lengths, rules 1-3 and each distance's range and
/// agreement with its parent. Returns the problems so far and whether the
/// edges are to be checked (rules 4-6).
pub(super) fn sssp_prelude(root: u64, parent: &[u64], dist: &[f32]) -> (Problems, bool) {
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

/// Rule 2's distance half: the root is at distance 0.
pub(super) fn root_distance(root: u64, dist: &[f32], problems: &mut Problems) {
    if dist[root as usize] != 0.0 {
        problems.push(|| {
            format!(
                "root {root} has distance {}, expected 0",
                dist[root as usize]
            )
        });
    }
}
