//! What a memory estimate is about and what it says: the command
//! ([`Workload`]), how the graph is spread ([`Shape`]), and the answer per
//! phase ([`MemoryEstimate`], [`Phase`]).

/// What a run does with the graph: each command's kernel state differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Workload {
    /// `generate`: the edge list and the roots, no kernel.
    Generate,
    /// `sssp`: delta-stepping from each root, validated.
    Sssp,
    /// `bfs`: BFS from each root, validated.
    Bfs,
    /// `graph500`: BFS, then SSSP, on the same shards (both states kept).
    Graph500,
    /// `cc`: connected components (graph-kernel).
    Cc,
    /// `pagerank`: PageRank (graph-kernel).
    PageRank,
    /// `bc`: betweenness centrality from a few sources (graph-kernel).
    Bc,
    /// `tc`: triangle counting (graph-kernel).
    Tc,
    /// `kcore`: k-core decomposition (graph-kernel).
    Kcore,
}

impl Workload {
    /// Whether no rank holds the edge list while the shards are built and
    /// the kernel runs: every trustee generates or reads only its slice
    /// ([`crate::construct`]). `generate` holds the whole list, and so does
    /// `bc` when it chooses its sources among the vertices with edges (it
    /// then builds its shards from the list it holds). The other whole-graph
    /// commands (`cc`, `pagerank`, `tc`, `kcore`) read the list again to
    /// verify, after the shards are gone.
    pub fn streams(self) -> bool {
        !matches!(self, Workload::Generate | Workload::Bc)
    }

    /// Whether the command's answer is verified on the shards (the
    /// searches) rather than against the edge list after the shards are
    /// dropped (the whole-graph commands).
    pub fn validates_on_shards(self) -> bool {
        matches!(self, Workload::Sssp | Workload::Bfs | Workload::Graph500)
    }

    /// Whether the command's shards keep a weight per entry: SSSP reads
    /// them (`graph500` runs it); the other commands build their shards
    /// without weights (4 B per entry less).
    pub fn weighted(self) -> bool {
        matches!(self, Workload::Sssp | Workload::Graph500)
    }

    /// Every workload, in the CLI's order.
    pub const ALL: [Workload; 9] = [
        Workload::Generate,
        Workload::Sssp,
        Workload::Bfs,
        Workload::Graph500,
        Workload::Cc,
        Workload::PageRank,
        Workload::Bc,
        Workload::Tc,
        Workload::Kcore,
    ];

    /// The command's name.
    pub fn name(self) -> &'static str {
        match self {
            Workload::Generate => "generate",
            Workload::Sssp => "sssp",
            Workload::Bfs => "bfs",
            Workload::Graph500 => "graph500",
            Workload::Cc => "cc",
            Workload::PageRank => "pagerank",
            Workload::Bc => "bc",
            Workload::Tc => "tc",
            Workload::Kcore => "kcore",
        }
    }
}

impl std::str::FromStr for Workload {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Workload::ALL
            .into_iter()
            .find(|w| w.name() == s)
            .ok_or_else(|| {
                format!("unknown command {s:?}: expected one of generate, sssp, bfs, graph500, cc, pagerank, bc, tc, kcore")
            })
    }
}

/// The phases, in the order they run today.
pub const PHASES: [&str; 5] = [
    "generation",
    "construction",
    "exchange",
    "kernel state",
    "validation",
];

/// One phase of a rank's run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Phase {
    /// Its name (one of [`PHASES`]).
    pub name: &'static str,
    /// Bytes this phase allocates on this rank (held and transient).
    pub allocates: u64,
    /// Resident bytes of the rank at the phase's peak (everything held
    /// from earlier phases plus what this phase allocates).
    pub peak: u64,
}

/// The shape of a run: graph size and how it is spread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Graph500 SCALE.
    pub scale: u32,
    /// Edges per vertex.
    pub edgefactor: u32,
    /// Ranks the graph is spread over (at least 1).
    pub ranks: u32,
    /// Trustees per rank (at least 1).
    pub threads_per_rank: u32,
    /// The estimated rank's share of the graph's edge endpoints (its
    /// adjacency entries), relative to an even split, in thousandths:
    /// 1000 for an even split. A partition need not split evenly: the
    /// Graph500 generator's fixed scrambling leaves the last of 4 blocks of
    /// ids 12% above average at SCALE 20 (1120), see
    /// `generators::Kronecker::expected_endpoint_shares`. Values below 1000
    /// count as 1000.
    pub share_permille: u32,
    /// The graph's vertex and edge-record counts when it is not the
    /// Graph500 graph of `scale` and `edgefactor` (a graph file of another
    /// origin, another tool's format): the model then counts these, and
    /// `scale` and `edgefactor` only round them up for display. `None`:
    /// `2^scale` vertices, `edgefactor x 2^scale` records.
    pub exact: Option<(u64, u64)>,
}

impl Shape {
    /// A shape whose ranks hold even shares.
    pub fn even(scale: u32, edgefactor: u32, ranks: u32, threads_per_rank: u32) -> Shape {
        Shape {
            scale,
            edgefactor,
            ranks,
            threads_per_rank,
            share_permille: 1000,
            exact: None,
        }
    }

    /// An even shape for any graph of `vertices` vertices and `edges` edge
    /// records ([`exact`](Self::exact)); `scale` and `edgefactor` are the
    /// smallest Graph500 shape at least as large.
    ///
    /// ```
    /// use graph_core::memory::Shape;
    /// let s = Shape::of_graph(1 << 32, 1, 1, 2);
    /// assert_eq!((s.scale, s.edgefactor, s.exact), (32, 1, Some((1 << 32, 1))));
    /// ```
    pub fn of_graph(vertices: u64, edges: u64, ranks: u32, threads_per_rank: u32) -> Shape {
        let scale = (u64::BITS - vertices.saturating_sub(1).leading_zeros()).max(1);
        let per = edges.div_ceil(1u64.checked_shl(scale).unwrap_or(u64::MAX));
        Shape {
            exact: Some((vertices, edges)),
            ..Shape::even(
                scale,
                u32::try_from(per).unwrap_or(u32::MAX),
                ranks,
                threads_per_rank,
            )
        }
    }
}

/// `share` (a fraction of the whole) relative to an even split over
/// `ranks`, in thousandths, rounded up: the [`Shape::share_permille`] of a
/// rank that holds `share`.
pub fn share_permille(share: f64, ranks: u32) -> u32 {
    let p = (share * f64::from(ranks.max(1)) * 1000.0).ceil();
    if p.is_finite() && p > 0.0 {
        (p as u32).max(1000)
    } else {
        1000
    }
}

/// Per-rank memory needs of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryEstimate {
    /// The command.
    pub workload: Workload,
    /// Graph500 SCALE.
    pub scale: u32,
    /// Edges per vertex.
    pub edgefactor: u32,
    /// Ranks the graph is spread over.
    pub ranks: u32,
    /// Trustees per rank.
    pub threads_per_rank: u32,
    /// The rank this estimate is for.
    pub rank: u32,
    /// The rank's phases, in [`PHASES`] order.
    pub phases: [Phase; 5],
    /// The rank's peak: the largest phase peak. This is what must fit.
    pub per_rank_bytes: u64,
    /// [`Shape::exact`] of the estimated shape: the graph's vertex and
    /// edge-record counts when it is not a Graph500 graph.
    pub exact: Option<(u64, u64)>,
    /// Sum of every rank's peak.
    pub total_bytes: u64,
    /// Streamed builds: thousandths of the slice it generated in the first
    /// pass that each trustee keeps for the second (12 B per kept edge)
    /// rather than generate it twice: as much as does not raise the rank's
    /// peak ([`estimate_rank`](super::estimate_rank)). Zero for other builds.
    pub kept_permille: u32,
}

impl MemoryEstimate {
    /// The phase that sets the peak.
    pub fn peak_phase(&self) -> &Phase {
        let mut best = &self.phases[0];
        for p in &self.phases {
            if p.peak > best.peak {
                best = p;
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workload_names_parse() {
        for w in Workload::ALL {
            assert_eq!(w.name().parse::<Workload>(), Ok(w));
        }
        assert!("dfs"
            .parse::<Workload>()
            .unwrap_err()
            .contains("expected one of"));
    }
}
