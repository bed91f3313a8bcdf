//! Search roots: what `--root`, `--roots` and `--seed` ask for
//! ([`RootPlan`]), checked against the graph, and resolved once the
//! vertices with edges are known (stored in the file, the generator's, or
//! picked at random as GAPBS picks them).

use generators::{Kronecker, VertexSet};
use graph_core::EdgeList;
use rayon::prelude::*;

use crate::args::RootChoice;
use crate::error::{CliError, Result};

use super::loaded::{LoadedGraph, Storage};

/// Number of search roots Graph500 uses.
pub const GRAPH500_ROOTS: usize = 64;

/// The search roots of a run: known before the graph is built, or chosen
/// from its shards (the vertices with edges) once it is.
#[derive(Clone, Debug, PartialEq)]
pub enum RootPlan {
    /// Dense ids, checked against the vertex count.
    Fixed(Vec<u64>),
    /// The reference's first `count` roots of a generated graph.
    Graph500(usize),
    /// `count` random vertices with edges (on a directed graph: with an
    /// out-arc), from `seed` (GAPBS's way).
    Random {
        /// Roots to pick.
        count: usize,
        /// `--seed`.
        seed: u64,
    },
}

impl LoadedGraph {
    /// `--root` is in the input file's ids. Needs the edge list when the
    /// roots are picked among vertices with edges; see [`Self::root_plan`].
    pub fn choose_roots(&self, choice: &RootChoice) -> Result<Vec<u64>> {
        let plan = self.root_plan(choice)?;
        if matches!(plan, RootPlan::Fixed(_)) {
            return self.resolve_roots(plan, |_| false);
        }
        let live = self.live()?;
        self.resolve_roots(plan, live)
    }

    /// Whether a vertex has an edge to another vertex (on a directed graph:
    /// an out-arc): a built file says it by its row offsets alone (no edge
    /// is read, no list made), other graphs by a pass over the edge list.
    fn live(&self) -> Result<Box<dyn Fn(u64) -> bool + '_>> {
        if let Storage::Built { graph, .. } = &self.storage {
            let bits = graph
                .nonempty_rows()
                .map_err(|e| CliError::new(e.to_string()))?;
            return Ok(Box::new(move |v| {
                bits[(v / 64) as usize] >> (v % 64) & 1 == 1
            }));
        }
        let set = non_isolated(&self.edge_list(), self.meta().directed);
        Ok(Box::new(move |v| set.contains(v)))
    }

    /// Betweenness's sources: the `given` ones (input file ids, each at
    /// most once), or `count` distinct vertices with edges chosen as the
    /// searches' roots are (a generated graph's Graph500 roots, a graph
    /// file's stored roots, or picked at random from `seed`), fewer when
    /// fewer vertices have edges. Dense ids, and a note for the user when
    /// there are fewer than asked. Needs the edge list when they are
    /// picked or the generator's, unless the graph is a built file (its
    /// offsets say which vertices have edges).
    pub fn choose_sources(
        &self,
        given: &[u64],
        count: usize,
        seed: u64,
    ) -> Result<(Vec<u64>, Option<String>)> {
        if !given.is_empty() {
            let mut sources = Vec::with_capacity(given.len());
            for &v in given {
                let one = self.choose_roots(&RootChoice {
                    root: Some(v),
                    roots: None,
                    seed,
                })?;
                if sources.contains(&one[0]) {
                    return Err(CliError::new(format!(
                        "--source {v} is given twice: each source counts once"
                    )));
                }
                sources.push(one[0]);
            }
            return Ok((sources, None));
        }
        let choice = RootChoice {
            root: None,
            roots: Some(count),
            seed,
        };
        let plan = self.root_plan(&choice)?;
        let mut sources = match plan {
            // Stored roots need no look at the edges.
            RootPlan::Fixed(roots) => roots,
            RootPlan::Random { count, seed } => {
                distinct_random_roots(self.num_vertices(), self.live()?, count, seed)?
            }
            plan => self.resolve_roots(plan, self.live()?)?,
        };
        // The reference's give-up rule repeats roots on a graph with fewer
        // vertices with edges than asked for: keep each once.
        let mut seen = std::collections::HashSet::new();
        sources.retain(|&v| seen.insert(v));
        let note = (sources.len() < count).then(|| {
            format!(
                "bc runs from {} distinct sources, not {count}: only {} vertices have an edge to another vertex (on a directed graph: an out-arc)",
                sources.len(),
                sources.len()
            )
        });
        Ok((sources, note))
    }

    /// What `choice` asks for, checked as far as it can be without the
    /// graph's edges; [`Self::resolve_roots`] finishes once they are known.
    pub fn root_plan(&self, choice: &RootChoice) -> Result<RootPlan> {
        let n = self.num_vertices();
        if let Some(r) = choice.root {
            let ids = &self.meta().ids;
            if ids.is_identity() {
                check_root(r, n)?;
                return Ok(RootPlan::Fixed(vec![r]));
            }
            return match ids.dense_id_in(r, n) {
                Some(v) => Ok(RootPlan::Fixed(vec![v])),
                None if ids.table().is_some() => Err(CliError::new(format!(
                    "root {r} is not a vertex: no edge of the input file names vertex {r}"
                ))),
                None => Err(CliError::new(format!(
                    "root {r} is out of range: the input file's vertices are {}..={}",
                    ids.file_id(0),
                    ids.file_id(n.saturating_sub(1))
                ))),
            };
        }
        let stored = match &self.storage {
            Storage::Mapped { graph, .. } => graph.roots(),
            Storage::Described { header, .. } => &header.roots,
            Storage::Built { graph, .. } => graph.roots(),
            _ => &[],
        };
        let generated = matches!(
            self.storage,
            Storage::Generated { .. } | Storage::Streamed { .. }
        );
        if !stored.is_empty() {
            let count = choice.roots.unwrap_or(stored.len());
            if count == 0 || count > stored.len() {
                return Err(CliError::new(format!(
                    "--roots {count}: the graph file stores {} roots; ask for 1..={} or pass --root R",
                    stored.len(),
                    stored.len()
                )));
            }
            for &r in &stored[..count] {
                check_root(r, n)?;
            }
            return Ok(RootPlan::Fixed(stored[..count].to_vec()));
        }
        let count = choice.roots.unwrap_or(GRAPH500_ROOTS);
        if count == 0 {
            return Err(CliError::new(
                "--roots 0 asks for no search: give at least 1 root",
            ));
        }
        Ok(if generated {
            RootPlan::Graph500(count)
        } else {
            RootPlan::Random {
                count,
                seed: choice.seed,
            }
        })
    }

    /// The roots of `plan`, given which vertices have an edge to another
    /// vertex (`live`, not called for fixed roots).
    pub fn resolve_roots(&self, plan: RootPlan, live: impl Fn(u64) -> bool) -> Result<Vec<u64>> {
        match plan {
            RootPlan::Fixed(roots) => Ok(roots),
            RootPlan::Graph500(count) => match &self.storage {
                Storage::Generated { kron, .. } | Storage::Streamed { kron, .. } => {
                    Ok(kron.search_roots(count, live))
                }
                _ => Err(CliError::new(
                    "internal error: Graph500 roots asked of a graph that was not generated",
                )),
            },
            RootPlan::Random { count, seed } => {
                random_roots(self.num_vertices(), live, count, seed)
            }
        }
    }
}

/// Error unless `root` is a vertex of a graph with `n` vertices.
pub fn check_root(root: u64, n: u64) -> Result<()> {
    if root < n {
        Ok(())
    } else if n == 0 {
        Err(CliError::new(format!(
            "root {root} is out of range: the graph has no vertices"
        )))
    } else {
        Err(CliError::new(format!(
            "root {root} is out of range: the graph has {n} vertices (0..={})",
            n - 1
        )))
    }
}

/// `count` roots picked as GAPBS picks its sources: uniformly at random
/// among the vertices with at least one edge to another vertex
/// (duplicates possible), from `seed`.
fn random_roots(n: u64, live: impl Fn(u64) -> bool, count: usize, seed: u64) -> Result<Vec<u64>> {
    let candidates: Vec<u64> = (0..n).filter(|&v| live(v)).collect();
    if candidates.is_empty() {
        return Err(CliError::new(
            "the graph has no edge between two distinct vertices: there is no root to search from",
        ));
    }
    let mut state = seed;
    Ok((0..count)
        .map(|_| candidates[pick(&mut state, candidates.len())])
        .collect())
}

/// `count` distinct vertices with an edge to another vertex, picked at
/// random from `seed` as [`random_roots`] picks (a pick already taken is
/// drawn again); every such vertex, in a random order, when there are no
/// more than `count`.
fn distinct_random_roots(
    n: u64,
    live: impl Fn(u64) -> bool,
    count: usize,
    seed: u64,
) -> Result<Vec<u64>> {
    let candidates: Vec<u64> = (0..n).filter(|&v| live(v)).collect();
    if candidates.is_empty() {
        return Err(CliError::new(
            "the graph has no edge between two distinct vertices: there is no source to start from",
        ));
    }
    let count = count.min(candidates.len());
    let mut taken = vec![false; candidates.len()];
    let mut picked = Vec::with_capacity(count);
    let mut state = seed;
    while picked.len() < count {
        let i = pick(&mut state, candidates.len());
        if !std::mem::replace(&mut taken[i], true) {
            picked.push(candidates[i]);
        }
    }
    Ok(picked)
}

/// The next index in `0..len` of the splitmix64 stream at `state`
/// (Lemire's multiply-shift onto the range).
fn pick(state: &mut u64, len: usize) -> usize {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    ((u128::from(z) * len as u128) >> 64) as usize
}

/// The reference's first `count` search roots of a generated graph.
pub fn graph500_roots(kron: &Kronecker, list: &EdgeList<'_>, count: usize) -> Vec<u64> {
    let live = non_isolated(list, false);
    kron.search_roots(count, |v| live.contains(v))
}

/// Vertices with an incident non-self-loop edge (parallel over the list);
/// when `directed`, the vertices with an out-arc (tails).
fn non_isolated(list: &EdgeList<'_>, directed: bool) -> VertexSet {
    let n = list.num_vertices();
    list.edges()
        .par_chunks(1 << 16)
        .fold(
            || VertexSet::new(n),
            |mut set, chunk| {
                for e in chunk.iter().filter(|e| !e.is_self_loop()) {
                    // Ids were checked by construction (the generator emits ids < n).
                    let _ = set.insert(u64::from(e.u));
                    if !directed {
                        let _ = set.insert(u64::from(e.v));
                    }
                }
                set
            },
        )
        .reduce(
            || VertexSet::new(n),
            |mut a, b| {
                let _ = a.union_with(&b);
                a
            },
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distinct_picks_never_repeat_and_stop_at_the_candidates() {
        // 6 vertices, 4 with edges (1, 2, 4, 5).
        let live = |v: u64| [1, 2, 4, 5].contains(&v);
        for seed in 0..50 {
            let two = distinct_random_roots(6, live, 2, seed).unwrap();
            assert_eq!(two.len(), 2);
            assert_ne!(two[0], two[1], "seed {seed}");
            assert!(two.iter().all(|&v| live(v)));
            let mut all = distinct_random_roots(6, live, 9, seed).unwrap();
            all.sort_unstable();
            assert_eq!(all, [1, 2, 4, 5], "seed {seed}");
        }
        // The first pick is the one the searches' picker makes.
        assert_eq!(
            distinct_random_roots(6, live, 1, 7).unwrap(),
            random_roots(6, live, 1, 7).unwrap()
        );
        assert!(distinct_random_roots(6, |_| false, 1, 7).is_err());
    }
}
