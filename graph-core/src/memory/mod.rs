//! Memory estimates for a run, per rank, and the refusal text when it will
//! not fit; and [`try_vec`], the fallible allocation of the large arrays.
//!
//! The model follows what the code does today, phase by phase, for rank `r`
//! of `R` ranks with `T` trustees each (`W = R x T`), `n = 2^SCALE`
//! vertices and `m = edgefactor x n` edge records. Adjacency counts are
//! upper bounds (`2m` entries: self-loops and duplicates are not
//! subtracted); per-vertex sizes are the arrays the kernels allocate, with
//! the queues' share calibrated against measured peaks
//! (results/memory/estimate.md). A process also holds [`BASE_BYTES`].
//!
//! 1. *generation*: `sssp`, `bfs` and `graph500` generate nothing up
//!    front ([`Workload::streams`]); `generate`, `cc` and `pagerank` hold
//!    the whole edge list on every rank, `12 B x m` ([`edge_list_bytes`]).
//! 2. *construction*: streamed, every rank builds only its own shards
//!    while its trustees generate their slices
//!    ([`streamed_construction_bytes`]: `8 B` per adjacency entry, `8 B`
//!    per vertex of offsets; as scratch 16 B per vertex, the send buffers
//!    and as much of its share of the generated edges, 12 B per edge, kept
//!    between the two passes instead of generated twice, as stays under
//!    the rank's later peak ([`MemoryEstimate::kept_permille`]));
//!    otherwise rank 0 builds the CSR shards of all `W` trustees
//!    from the list with a `u32` cursor per vertex per extra sorting chunk
//!    as scratch ([`construction_bytes`]) and the other ranks wait.
//! 3. *exchange* (not streamed): rank 0 ships every remote shard, one at
//!    a time, as a serialized copy (about two shard sizes at once,
//!    measured); every rank then keeps its own `T` shards.
//! 4. *kernel state*: per command (see [`Workload`]): SSSP splits its rows
//!    inside the shards (no copy), BFS builds unweighted rows (4 B per
//!    entry); the renumbering tables (8 B per vertex of the whole graph)
//!    once per rank; SSSP's distance bounds (4 B per vertex of the whole
//!    graph) on every trustee, or shared per rank for the other ranks'
//!    vertices ([`sssp_shares_bounds`]); rank 0 gathers the answer (O(n)).
//! 5. *validation*: `sssp`, `bfs`, `graph500`: on every trustee over its
//!    own shard, with one packed copy of the answer per rank (8 B per
//!    vertex) and the tree checks on rank 0; `cc` and `pagerank`: on rank 0
//!    over the edge list, after dropping the shards.
//!
//! A rank's need is the largest resident size over the phases.

use std::collections::TryReserveError;
use std::fmt;

use crate::edge_list::MAX_SCALE;

/// Bytes per adjacency entry (u32 neighbour + f32 weight).
pub const ENTRY_BYTES: u64 = 8;
/// Bytes per edge record.
pub const RECORD_BYTES: u64 = 12;
/// What a process holds before any graph: code, runtime, threads, slots.
pub const BASE_BYTES: u64 = 8 << 20;

/// The request-slot size, in bytes, the commands give a runtime of
/// `threads` workers per rank and `workers` in all: 256 MiB of slots per
/// rank, between 1 KiB and 64 KiB each, rounded up to a power of two.
pub fn kernel_slot_bytes(threads: usize, workers: usize) -> usize {
    // One rule, the runtime's default for rack runs.
    gossamer::rack_slot_size(threads, workers)
}

/// The request and response slots one rank holds: one pair per local
/// worker and worker of the job.
pub fn slot_bytes(shape: Shape) -> u64 {
    let t = shape.threads_per_rank.max(1) as usize;
    let w = t.saturating_mul(shape.ranks.max(1) as usize);
    let slot = kernel_slot_bytes(t, w) as u128;
    clamp(2 * t as u128 * w as u128 * slot)
}

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
}

impl Workload {
    /// Whether the command builds its shards with the distributed
    /// construction ([`crate::construct`]): every trustee generates or reads
    /// only its slice, so no rank holds the edge list. `generate`, `cc` and
    /// `pagerank` still load the whole list on every rank.
    pub fn streams(self) -> bool {
        matches!(self, Workload::Sssp | Workload::Bfs | Workload::Graph500)
    }

    /// Every workload, in the CLI's order.
    pub const ALL: [Workload; 8] = [
        Workload::Generate,
        Workload::Sssp,
        Workload::Bfs,
        Workload::Graph500,
        Workload::Cc,
        Workload::PageRank,
        Workload::Bc,
        Workload::Tc,
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
                format!("unknown command {s:?}: expected one of generate, sssp, bfs, graph500, cc, pagerank, bc, tc")
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

/// Whether SSSP's trustees keep their distance bounds for their own rank's
/// vertices only and share one filter per rank for the others'
/// (`graph_kernel::Filter`), rather than each keep one array over every
/// vertex: when there are several ranks of several trustees each and the
/// whole arrays would outweigh the graph, i.e. 4 B x `vertices` x the
/// trustees of all ranks above 16 B x `edges` (more than 4 x edgefactor
/// trustees). Shared bounds cost a choice per scanned edge (measured 7%
/// slower at 2 ranks x 2 threads); at SCALE 27 on 12 ranks x 32 threads
/// they save 14 GiB per rank.
///
/// ```
/// use graph_core::memory::sssp_shares_bounds;
/// let (n, m) = (1u64 << 27, 16u64 << 27);
/// assert!(sssp_shares_bounds(n, m, 12, 32));
/// assert!(!sssp_shares_bounds(n, m, 1, 32)); // one rank: nothing to share
/// assert!(!sssp_shares_bounds(n, m, 12, 1)); // one trustee per rank
/// assert!(!sssp_shares_bounds(n, m, 2, 2)); // small next to the graph
/// ```
pub fn sssp_shares_bounds(vertices: u64, edges: u64, ranks: u64, threads_per_rank: u64) -> bool {
    let trustees = u128::from(ranks) * u128::from(threads_per_rank);
    ranks > 1
        && threads_per_rank > 1
        && 4 * u128::from(vertices) * trustees > 16 * u128::from(edges)
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
    /// Sum of every rank's peak.
    pub total_bytes: u64,
    /// Streamed builds: thousandths of the slice it generated in the first
    /// pass that each trustee keeps for the second (12 B per kept edge)
    /// rather than generate it twice: as much as does not raise the rank's
    /// peak ([`estimate_rank`]). Zero for other builds.
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

type Wide = u128;

fn clamp(x: Wide) -> u64 {
    u64::try_from(x).unwrap_or(u64::MAX)
}

/// Sizes the phases use, for one shape.
struct Sizes {
    n: Wide,
    m: Wide,
    ranks: Wide,
    threads: Wide,
    trustees: Wide,
    /// This rank's share of the entries relative to an even split, in
    /// thousandths.
    share: Wide,
}

impl Sizes {
    fn new(s: Shape) -> Sizes {
        let ranks = Wide::from(s.ranks.max(1));
        let threads = Wide::from(s.threads_per_rank.max(1));
        let n: Wide = 1 << s.scale.min(100);
        Sizes {
            n,
            m: n * Wide::from(s.edgefactor),
            ranks,
            threads,
            trustees: ranks * threads,
            share: Wide::from(s.share_permille.max(1000)),
        }
    }
    /// Records (input edges) whose entries one rank holds, with its share.
    fn m_rank(&self) -> Wide {
        (self.m * self.share).div_ceil(1000 * self.ranks)
    }
    /// Vertices one rank owns (the partitions split evenly up to one).
    fn n_rank(&self) -> Wide {
        self.n.div_ceil(self.ranks)
    }
    /// Adjacency entries one rank owns (at most 2 per record).
    fn entries_rank(&self) -> Wide {
        (2 * self.m * self.share).div_ceil(1000 * self.ranks)
    }
    /// The CSR of `shards` trustees holding `entries` entries and
    /// `vertices` vertices: targets and weights, offsets (`n + 1` each).
    fn csr(&self, entries: Wide, vertices: Wide, shards: Wide) -> Wide {
        Wide::from(ENTRY_BYTES) * entries + 8 * (vertices + shards)
    }
}

/// The edge list rank `rank` holds for a command that loads it whole
/// (`generate`, `cc`, `pagerank`): all of it, on every rank. Commands that
/// [stream](Workload::streams) hold none.
pub fn edge_list_bytes(shape: Shape, rank: u32) -> u64 {
    let _ = rank;
    clamp(Wide::from(RECORD_BYTES) * Sizes::new(shape).m)
}

/// The distributed construction on one rank (every rank alike): its own
/// shards (held), and as scratch the placeholder and cursor arrays (16 B
/// per owned vertex), the send buffers and read chunk of each trustee
/// ([`crate::construct::scratch_bytes_per_trustee`]) and the kept part of
/// the rank's slices of the generated edges (`kept_permille` thousandths of
/// them, 12 B per edge, kept between the two passes). Returns (held,
/// scratch).
pub fn streamed_construction_bytes(shape: Shape, kept_permille: u32) -> (u64, u64) {
    let z = Sizes::new(shape);
    let held = z.csr(z.entries_rank(), z.n_rank(), z.threads);
    let per_trustee = crate::construct::scratch_bytes_per_trustee(z.trustees as u64);
    // The slices of the stream are even (unlike the entries); a mapped
    // file keeps nothing (reading it again is free), so this overcounts
    // files.
    let slice = Wide::from(RECORD_BYTES) * z.m.div_ceil(z.ranks);
    let kept = slice * Wide::from(kept_permille.min(1000)) / 1000;
    let scratch = 16 * (z.n_rank() + z.threads) + z.threads * Wide::from(per_trustee) + kept;
    (clamp(held), clamp(scratch))
}

/// Construction on rank `rank`: today rank 0 builds every trustee's shard
/// (and its sorting scratch), the others build nothing. Returns (held,
/// scratch).
pub fn construction_bytes(shape: Shape, rank: u32) -> (u64, u64) {
    let z = Sizes::new(shape);
    if rank != 0 {
        return (0, 0);
    }
    let held = z.csr(2 * z.m, z.n, z.trustees);
    // One u32 cursor per vertex for each sorting chunk but the last (one
    // chunk per rayon thread), capped at 1 B per edge by the builder.
    let scratch = (4 * z.n * (z.threads - 1)).min(z.m);
    (clamp(held), clamp(scratch))
}

/// Estimates rank `rank`'s memory for `workload` on `shape` (rank 0, which
/// gathers the answers, is the largest today).
///
/// A streamed build keeps as much of its generated slices between the two
/// construction passes as does not raise the rank's peak, and generates
/// the rest twice: each kept edge saves one generation (at SCALE 22, 2
/// threads, all of them would save about 4 s) but costs 12 B until the
/// shards are built, and kept whole they would be the peak (about 29 B per
/// edge for `sssp`, against 23 B).
///
/// ```
/// use graph_core::memory::{estimate_rank, Shape, Workload};
/// let one = Shape::even(20, 16, 1, 2);
/// let e = estimate_rank(Workload::Sssp, one, 0);
/// // Shards (16 B per edge) and SSSP's per-vertex state; no edge list, no
/// // copy of the rows, and only part of the generated slices kept.
/// assert!(e.per_rank_bytes > 16 * (16 << 20));
/// assert!(e.per_rank_bytes < 26 * (16 << 20));
/// assert!(e.kept_permille > 0 && e.kept_permille < 1000);
/// assert_eq!(e.phases[0].name, "generation");
/// ```
pub fn estimate_rank(workload: Workload, shape: Shape, rank: u32) -> MemoryEstimate {
    if !workload.streams() {
        return estimate_rank_as(workload, shape, rank, 0);
    }
    let twice = estimate_rank_as(workload, shape, rank, 0);
    // The peak grows with the kept part once construction sets it: the
    // largest part that leaves it where generating twice puts it.
    let (mut lo, mut hi) = (0u32, 1000u32);
    let fits =
        |p: u32| estimate_rank_as(workload, shape, rank, p).per_rank_bytes <= twice.per_rank_bytes;
    if fits(hi) {
        return estimate_rank_as(workload, shape, rank, hi);
    }
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    estimate_rank_as(workload, shape, rank, lo)
}

/// [`estimate_rank`] with `kept_permille` thousandths of the generated
/// slices kept between the passes of a streamed build (the rest generated
/// twice).
fn estimate_rank_as(
    workload: Workload,
    shape: Shape,
    rank: u32,
    kept_permille: u32,
) -> MemoryEstimate {
    let z = Sizes::new(shape);
    let (n, t) = (z.n, z.threads);
    let nr = z.n_rank();
    let root_rank = rank == 0;
    let streams = workload.streams();
    let list = if streams {
        0
    } else {
        Wide::from(edge_list_bytes(shape, rank))
    };

    // 1. Generation (the roots' vertex sets: one bit per vertex for each
    //    piece rayon's fold splits the list into, about two per thread).
    let mut held = Wide::from(BASE_BYTES) + list;
    let roots = if streams {
        0
    } else if workload == Workload::Generate || root_rank {
        n.div_ceil(8) * 2 * (t + 1)
    } else {
        0
    };
    let generation = (list + roots, held + roots);

    if workload == Workload::Generate {
        // Writing the graph file: a 1 MiB write buffer, and scratch of
        // about 1 B per vertex (calibrated: 5 MiB more than the same
        // generation inside `sssp` at SCALE 22).
        let write = (1 << 20) + n;
        let generation = (generation.0 + write, generation.1 + write);
        let zero = (0, held);
        return finish(workload, shape, rank, [generation, zero, zero, zero, zero]);
    }

    // The runtime starts: its request/response slots.
    held += Wide::from(slot_bytes(shape));

    // 2. Construction.
    let (all_shards, scratch) = if streams {
        let (own, scratch) = streamed_construction_bytes(shape, kept_permille);
        // Rank 0 then gathers which vertices have edges (the roots): 1 B
        // per vertex, and each trustee's part of it.
        let live = if root_rank { n + nr } else { nr };
        (Wide::from(own), Wide::from(scratch).max(live))
    } else {
        let (all, scratch) = construction_bytes(shape, rank);
        (Wide::from(all), Wide::from(scratch))
    };
    let construction = (all_shards + scratch, held + all_shards + scratch);
    held += all_shards;

    // 3. Exchange: each remote shard travels as one serialized copy
    //    (streamed: nothing left to exchange).
    let own = z.csr(z.entries_rank(), nr, t);
    // Measured (SCALE 20, 2 ranks x 1 thread): sending one shard costs
    // about two copies of it (the serialized bytes as they grow, and the
    // pieces in flight), so two are counted.
    let one_shard = if z.ranks > 1 {
        2 * z.csr((2 * z.m).div_ceil(z.trustees), n.div_ceil(z.trustees), 1)
    } else {
        0
    };
    let exchange = if z.ranks == 1 || streams {
        (0, held)
    } else if root_rank {
        let peak = held + one_shard;
        held = held - all_shards + own;
        (one_shard, peak)
    } else {
        held += own;
        (own + one_shard, held + one_shard)
    };

    // 4. Kernel state: (held per rank, transient, gathered on rank 0).
    let er = z.entries_rank();
    let gather = |bytes_per_vertex: Wide| if root_rank { bytes_per_vertex * n } else { 0 };
    // Every kernel on the shared adjacency: every trustee's positions and
    // the flat-id map, 4 B + 4 B per vertex of the whole graph, held once
    // per rank (process) and shared by its trustees.
    let tables = 8 * n;
    // SSSP: its rows are the shards' own (split in place); per trustee a
    // whole-graph `best` (4 B per vertex), or shared bounds (below); per own vertex the row span,
    // parent, two done marks and the queues (64 B); rank 0 gathers 16 B
    // per vertex.
    // Outgoing records waiting in the outboxes and request queues grow with
    // the share of edges a pass sends before the peers drain them, more so
    // when ranks wait for cores: SSSP 2 B per own edge with several ranks
    // (measured per rank with 2 ranks x 1 thread at SCALE 20 and 22 and
    // 4 ranks x 1 thread at SCALE 20 on 2 cores, each rank with its own
    // share of the edges), 0.5 B in one process, where
    // the trustees drain each other's records within a pass (SCALE 20-24,
    // 2 threads); BFS 0.5 B.
    // Rank 0 also receives the other ranks' parts of each answer serialized
    // (about 12 B per remote vertex in flight while it gathers).
    let m_rank = z.m_rank();
    let arrivals = if root_rank { 12 * (n - nr) } else { 0 };
    let sssp_in_flight = if z.ranks > 1 { 2 * m_rank } else { m_rank / 2 };
    // With shared bounds each trustee keeps its rank's vertices and the
    // rank one filter over the others' ([`sssp_shares_bounds`]).
    let bounds = if sssp_shares_bounds(clamp(n), clamp(z.m), clamp(z.ranks), clamp(t)) {
        4 * n.div_ceil(z.ranks) * t + 4 * (n - n.div_ceil(z.ranks))
    } else {
        4 * n * t
    };
    let sssp = (bounds + 64 * nr, sssp_in_flight + arrivals, gather(16));
    // BFS: 4 B entries; per trustee two frontier bitmaps (0.25 B per
    // vertex); per own vertex offsets, parent, depth and the queues (48 B);
    // rank 0 gathers parents and levels (8 B + 8 B) from 4 B + 4 B per
    // vertex.
    let bfs = (
        4 * er + n.div_ceil(4) * t + 48 * nr,
        m_rank / 2 + arrivals,
        gather(24),
    );
    // cc (Afforest) and pagerank (pull) on the kernel blocks: the shared
    // adjacency's unweighted rows (4 B per entry), the per-rank replicas
    // (parents; two contribution arrays) and per own vertex state
    // (calibrated at SCALE 20, 2 threads: 40 B and 16 B + 48 B per vertex;
    // pagerank 4 B per vertex per trustee more).
    let cc = (4 * er + 40 * n, 0, gather(8));
    let pagerank = (4 * er + 4 * n * t + 16 * n + 48 * nr, 0, gather(8));
    // bc (Brandes, level-synchronous pushes of f64 shares) and tc (ordered
    // count; the out-lists a trustee needs arrive as update records and
    // are kept): calibrated at SCALE 20, 2 threads, one process (measured
    // peak: bc 694 MiB, tc 901 MiB): bc 96 B per vertex beside cc's rows,
    // tc 15 B per entry and 16 B per vertex.
    let bc = (4 * er + 96 * n, 0, gather(8));
    let tc = (15 * er + 16 * n, 0, 0);
    let (k_held, k_transient, k_gather) = match workload {
        Workload::Sssp => sssp,
        Workload::Bfs => bfs,
        // Both states stay; over 64 roots the queues keep their largest
        // capacities (32 B per own vertex more, calibrated).
        Workload::Graph500 => (bfs.0 + sssp.0 + 32 * nr, sssp.1, sssp.2),
        Workload::Cc => cc,
        Workload::PageRank => pagerank,
        Workload::Bc => bc,
        Workload::Tc => tc,
        Workload::Generate => unreachable!("returned above"),
    };
    let k_held = k_held + tables;
    let kernel = (
        k_held + k_transient + k_gather,
        held + k_held + k_transient + k_gather,
    );
    held += k_held + k_gather;

    // 5. Validation (rank 0): SSSP/BFS: tree depths (4 B) and confirmed
    //    marks (1 B) per vertex next to everything held; cc/pagerank run
    //    after the shards are dropped: labels / scores and the checker's
    //    per-vertex arrays, pagerank's checker also a per-edge copy.
    let validation = if streams {
        // On the shards: every rank holds one packed copy of the answer
        // (8 B per vertex: rank 0 packs it from the gathered arrays, the
        // others receive it); rank 0 also checks the tree (depths, marks
        // and BFS's derived distances: 9 B per vertex).
        let v = if root_rank { 8 * n + 9 * n } else { 8 * n };
        (v, held + v)
    } else if !root_rank {
        (0, held)
    } else {
        match workload {
            Workload::Sssp | Workload::Bfs | Workload::Graph500 => (5 * n, held + 5 * n),
            Workload::Cc | Workload::Bc | Workload::Tc => {
                let v = 32 * n;
                (v, Wide::from(BASE_BYTES) + list + v)
            }
            Workload::PageRank => {
                // The verifier's own simple graph of the list (measured
                // at SCALE 20: 32 B per edge with its scratch).
                let v = 32 * z.m + 40 * n;
                (v, Wide::from(BASE_BYTES) + list + v)
            }
            Workload::Generate => unreachable!("returned above"),
        }
    };
    let mut e = finish(
        workload,
        shape,
        rank,
        [generation, construction, exchange, kernel, validation],
    );
    e.kept_permille = if streams { kept_permille } else { 0 };
    e
}

fn finish(workload: Workload, shape: Shape, rank: u32, parts: [(Wide, Wide); 5]) -> MemoryEstimate {
    let mut phases = [Phase {
        name: "",
        allocates: 0,
        peak: 0,
    }; 5];
    for (i, (p, (allocates, peak))) in phases.iter_mut().zip(parts).enumerate() {
        *p = Phase {
            name: PHASES[i],
            allocates: clamp(allocates),
            peak: clamp(peak),
        };
    }
    let per_rank = phases.iter().map(|p| p.peak).max().unwrap_or(0);
    MemoryEstimate {
        workload,
        scale: shape.scale,
        edgefactor: shape.edgefactor,
        ranks: shape.ranks.max(1),
        threads_per_rank: shape.threads_per_rank.max(1),
        rank,
        phases,
        per_rank_bytes: per_rank,
        total_bytes: 0,
        kept_permille: 0,
    }
}

/// The estimate for the largest rank of a run (rank 0 today) with the sum
/// over all ranks in `total_bytes`. Zero ranks or threads count as one.
///
/// ```
/// use graph_core::memory::{estimate, Workload};
/// let one = estimate(Workload::Sssp, 20, 16, 1, 2);
/// let two = estimate(Workload::Sssp, 20, 16, 2, 2);
/// assert!(two.per_rank_bytes < one.per_rank_bytes);
/// ```
pub fn estimate(
    workload: Workload,
    scale: u32,
    edgefactor: u32,
    ranks: u32,
    threads_per_rank: u32,
) -> MemoryEstimate {
    estimate_shape(
        workload,
        Shape::even(scale, edgefactor, ranks.max(1), threads_per_rank.max(1)),
    )
}

/// [`estimate`] for `shape` (its ranks and threads at least one): the
/// larger of rank 0's and rank 1's estimates, every other rank taken as
/// rank 1, with the total over all ranks.
fn estimate_shape(workload: Workload, shape: Shape) -> MemoryEstimate {
    let zero = estimate_rank(workload, shape, 0);
    let other = (shape.ranks > 1).then(|| estimate_rank(workload, shape, 1));
    let mut worst = zero;
    if let Some(o) = other {
        if o.per_rank_bytes > worst.per_rank_bytes {
            worst = o;
        }
    }
    let others = other.map_or(0, |o| {
        u128::from(o.per_rank_bytes) * u128::from(shape.ranks - 1)
    });
    worst.total_bytes = clamp(u128::from(zero.per_rank_bytes) + others);
    worst
}

/// Available memory from `/proc/meminfo` (`MemAvailable`), in bytes; `None`
/// where that file does not exist or cannot be parsed.
pub fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_meminfo(&text)
}

/// Extracts `MemAvailable` (kB) from `/proc/meminfo` text, in bytes.
pub fn parse_meminfo(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let mut parts = line.split_whitespace().skip(1);
    let kb: u64 = parts.next()?.parse().ok()?;
    match parts.next() {
        Some("kB") | None => kb.checked_mul(1024),
        Some(_) => None,
    }
}

/// Largest SCALE (<= 32) whose estimate on the largest rank fits
/// `available` bytes, or `None` if not even SCALE 1 fits.
pub fn largest_fitting_scale(
    workload: Workload,
    edgefactor: u32,
    ranks: u32,
    threads_per_rank: u32,
    available: u64,
) -> Option<u32> {
    (1..=MAX_SCALE).rev().find(|&s| {
        estimate(workload, s, edgefactor, ranks, threads_per_rank).per_rank_bytes <= available
    })
}

/// The share [`ranks_needed`] assumes for every rank of a count above
/// one (25% above an even split): partitions of Graph500 graphs reach
/// about 1.19 at 8-12 ranks (see [`Shape::share_permille`]), and each
/// rank checks its own share when it runs.
pub const ADVICE_SHARE_PERMILLE: u32 = 1250;

/// Most ranks [`ranks_needed`] tries.
pub const MAX_RANKS: u32 = 1 << 16;

/// Fewest ranks, each with `available` bytes, on which every rank's
/// estimate fits (`None` when no count up to [`MAX_RANKS`] does: today
/// every rank holds the whole edge list and rank 0 builds every shard, so
/// adding ranks stops helping once those alone exceed `available`). Every
/// rank of a count above one is taken to hold [`ADVICE_SHARE_PERMILLE`] of
/// an even share of the edges; [`ranks_needed_with`] takes the shares.
pub fn ranks_needed(
    workload: Workload,
    scale: u32,
    edgefactor: u32,
    threads_per_rank: u32,
    available: u64,
) -> Option<u32> {
    let allowance = |r: u32| if r > 1 { ADVICE_SHARE_PERMILLE } else { 1000 };
    let one = Shape::even(scale, edgefactor, 1, threads_per_rank.max(1));
    first_fitting(workload, one, available, &allowance)
}

/// [`ranks_needed`] where `heaviest(r)` is the largest share of the edges a
/// rank of `r` holds ([`Shape::share_permille`]; e.g. from the generator,
/// which costs a pass over the vertices per call). It is asked only
/// between the count an even split needs (no fewer can do) and the count
/// [`ranks_needed`] names, at most [`MAX_SHARE_QUERIES`] times; past that
/// the latter is the answer.
pub fn ranks_needed_with(
    workload: Workload,
    scale: u32,
    edgefactor: u32,
    threads_per_rank: u32,
    available: u64,
    heaviest: &dyn Fn(u32) -> u32,
) -> Option<u32> {
    let one = Shape::even(scale, edgefactor, 1, threads_per_rank.max(1));
    let even = first_fitting(workload, one, available, &|_| 1000)?;
    let allowed = ranks_needed(workload, scale, edgefactor, threads_per_rank, available);
    let last = allowed
        .unwrap_or(MAX_RANKS)
        .min(even.saturating_add(MAX_SHARE_QUERIES - 1));
    (even..=last)
        .find(|&r| need(workload, one, r, heaviest(r)) <= available)
        .or(allowed)
}

/// Most shares [`ranks_needed_with`] asks for.
pub const MAX_SHARE_QUERIES: u32 = 8;

/// The largest rank's estimate for `one` spread over `ranks` ranks whose
/// heaviest holds `share` (every rank taken as that heavy).
fn need(workload: Workload, one: Shape, ranks: u32, share: u32) -> u64 {
    let shape = Shape {
        ranks,
        share_permille: share,
        ..one
    };
    estimate_shape(workload, shape).per_rank_bytes
}

/// The first rank count over which `one` (a one-rank shape) fits when the
/// heaviest rank of `r` holds `share(r)`.
fn first_fitting(
    workload: Workload,
    one: Shape,
    available: u64,
    share: &dyn Fn(u32) -> u32,
) -> Option<u32> {
    // Rank 0's floor does not depend on the rank count: stop early.
    let floor = BASE_BYTES
        .saturating_add(edge_list_bytes(one, 0))
        .saturating_add(construction_bytes(one, 0).0);
    if !workload.streams() && workload != Workload::Generate && floor > available {
        return None;
    }
    // Not monotone: more ranks shrink the kernel state but add slots.
    (1..=MAX_RANKS).find(|&r| need(workload, one, r, share(r)) <= available)
}

/// Why no rank count fits: what rank 0 holds however many ranks there are.
pub fn why_no_rank_count_fits(workload: Workload, shape: Shape) -> String {
    if workload == Workload::Generate {
        return format!(
            "every rank generates the whole edge list ({})",
            human_bytes(edge_list_bytes(shape, 0))
        );
    }
    let least = (0..=16)
        .map(|k| {
            estimate(
                workload,
                shape.scale,
                shape.edgefactor,
                1 << k,
                shape.threads_per_rank,
            )
            .per_rank_bytes
        })
        .min()
        .unwrap_or(0);
    if workload.streams() {
        return format!(
            "more ranks do not bring the largest rank below about {}: per-vertex arrays of the whole graph on each of the {} trustees of a rank and the answers gathered on rank 0 do not shrink with ranks; use fewer threads per rank",
            human_bytes(least),
            shape.threads_per_rank.max(1),
        );
    }
    format!(
        "more ranks do not bring the largest rank below about {}: every rank holds the whole edge list ({}), rank 0 builds every shard ({}), and per-vertex arrays of the whole graph on each of the {} trustees of a rank and the gathered answers do not shrink with ranks",
        human_bytes(least),
        human_bytes(edge_list_bytes(shape, 0)),
        human_bytes(construction_bytes(shape, 0).0),
        shape.threads_per_rank.max(1),
    )
}

/// A run that does not fit: everything the refusal message needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryRefusal {
    /// What this rank needs (boxed: the phases make it large).
    pub estimate: Box<MemoryEstimate>,
    /// Bytes available per rank.
    pub available: u64,
    /// Largest SCALE that fits here with the same shape.
    pub largest_scale: Option<u32>,
    /// Fewest ranks with this much memory each that the requested SCALE fits on.
    pub ranks_needed: Option<u32>,
}

/// `bytes` in GiB with one decimal (or MiB below 1 GiB).
pub fn human_bytes(bytes: u64) -> String {
    const GIB: f64 = (1u64 << 30) as f64;
    const MIB: f64 = (1u64 << 20) as f64;
    let b = bytes as f64;
    if b >= GIB {
        format!("{:.1} GiB", b / GIB)
    } else {
        format!("{:.1} MiB", b / MIB)
    }
}

impl fmt::Display for MemoryRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = &self.estimate;
        let peak = e.peak_phase();
        write!(
            f,
            "{} at SCALE {} (edgefactor {}) needs about {} on rank {} of {} ({} thread(s) per rank; the peak is in {}), but only {} is available here (MemAvailable).",
            e.workload.name(),
            e.scale,
            e.edgefactor,
            human_bytes(e.per_rank_bytes),
            e.rank,
            e.ranks,
            e.threads_per_rank,
            peak.name,
            human_bytes(self.available),
        )?;
        match self.largest_scale {
            Some(s) => write!(f, " The largest SCALE that fits here is {s}.")?,
            None => write!(f, " No SCALE fits in this much memory.")?,
        }
        match self.ranks_needed {
            Some(1) => write!(
                f,
                " SCALE {} fits on 1 rank with this much memory.",
                e.scale
            )?,
            Some(r) => write!(
                f,
                " SCALE {} fits on {r} ranks with this much memory each (--ranks {r}), on separate hosts: ranks started on one host share its memory.",
                e.scale
            )?,
            None => write!(
                f,
                " No number of ranks with this much memory each fits SCALE {} today: {}.",
                e.scale,
                why_no_rank_count_fits(
                    e.workload,
                    Shape::even(e.scale, e.edgefactor, e.ranks, e.threads_per_rank)
                ),
            )?,
        }
        write!(
            f,
            " Per phase: gossamer-graph plan --scale {} --edgefactor {} --ranks {} --threads {} --memory {}.",
            e.scale,
            e.edgefactor,
            e.ranks,
            e.threads_per_rank,
            self.available
        )
    }
}

impl std::error::Error for MemoryRefusal {}

/// Checks `estimate` (one rank's) against `available` bytes per rank;
/// `Err` carries the user-facing refusal (its `Display` is the message),
/// whose advice is consistent: a rank count it names fits on every rank.
///
/// ```
/// use graph_core::memory::{check_fits, estimate_rank, Shape, Workload};
/// let shape = Shape::even(26, 16, 1, 2);
/// let e = estimate_rank(Workload::Sssp, shape, 0);
/// let refusal = check_fits(&e, 1 << 30).unwrap_err();
/// let text = refusal.to_string();
/// assert!(text.contains("sssp at SCALE 26 (edgefactor 16) needs about"));
/// assert!(text.contains("The largest SCALE that fits here is"));
/// assert!(check_fits(&e, u64::MAX).is_ok());
/// ```
pub fn check_fits(estimate: &MemoryEstimate, available: u64) -> Result<(), MemoryRefusal> {
    if estimate.per_rank_bytes <= available {
        return Ok(());
    }
    Err(MemoryRefusal {
        estimate: Box::new(*estimate),
        available,
        largest_scale: largest_fitting_scale(
            estimate.workload,
            estimate.edgefactor,
            estimate.ranks,
            estimate.threads_per_rank,
            available,
        ),
        ranks_needed: ranks_needed(
            estimate.workload,
            estimate.scale,
            estimate.edgefactor,
            estimate.threads_per_rank,
            available,
        ),
    })
}

/// A failed allocation of one of the large arrays: what, how large, why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutOfMemory {
    /// What was being allocated ("the edge list", "CSR targets", ...).
    pub what: &'static str,
    /// Bytes asked for.
    pub bytes: u128,
    /// The allocator's reason.
    pub reason: String,
}

impl fmt::Display for OutOfMemory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "out of memory while allocating {} ({}): {}; `gossamer-graph plan` shows what a run needs per rank",
            self.what,
            human_bytes(clamp(self.bytes)),
            self.reason
        )
    }
}

impl std::error::Error for OutOfMemory {}

fn oom<T>(what: &'static str, len: usize, e: TryReserveError) -> OutOfMemory {
    OutOfMemory {
        what,
        bytes: std::mem::size_of::<T>() as u128 * len as u128,
        reason: e.to_string(),
    }
}

/// Reserves room for `additional` more elements in `v`, or says what
/// could not be allocated.
pub fn try_reserve<T>(
    v: &mut Vec<T>,
    additional: usize,
    what: &'static str,
) -> Result<(), OutOfMemory> {
    v.try_reserve_exact(additional)
        .map_err(|e| oom::<T>(what, v.len().saturating_add(additional), e))
}

/// `vec![value; len]`, but a failed allocation is an [`OutOfMemory`]
/// error instead of an abort.
///
/// The size is first reserved with `try_reserve_exact` (which reports
/// failure) and released, then allocated by `vec!`, which for zeros asks
/// the allocator for zeroed memory (`calloc`): its pages stay untouched,
/// and so unbacked, until used, where filling a reservation would write
/// every byte. The allocator has just granted the same size, so the
/// second request succeeds unless memory vanished in between.
///
/// ```
/// use graph_core::memory::try_vec;
/// assert_eq!(try_vec(3, 7u8, "a test").unwrap(), [7, 7, 7]);
/// let e = try_vec(usize::MAX / 4, 0u64, "an absurd array").unwrap_err();
/// assert!(e.to_string().starts_with("out of memory while allocating an absurd array ("));
/// ```
pub fn try_vec<T: Clone>(len: usize, value: T, what: &'static str) -> Result<Vec<T>, OutOfMemory> {
    let mut probe: Vec<T> = Vec::new();
    probe
        .try_reserve_exact(len)
        .map_err(|e| oom::<T>(what, len, e))?;
    drop(probe);
    Ok(vec![value; len])
}

/// [`try_vec`] for code that cannot return an error (kernel state built
/// inside a trustee): a failed allocation prints the error and ends the
/// process with status 1, not an abort with a backtrace.
pub fn vec_or_exit<T: Clone>(len: usize, value: T, what: &'static str) -> Vec<T> {
    try_vec(len, value, what).unwrap_or_else(|e| exit_out_of_memory(&e))
}

/// [`try_reserve`] for code that cannot return an error; see [`vec_or_exit`].
pub fn reserve_or_exit<T>(v: &mut Vec<T>, additional: usize, what: &'static str) {
    if let Err(e) = try_reserve(v, additional, what) {
        exit_out_of_memory(&e)
    }
}

fn exit_out_of_memory(e: &OutOfMemory) -> ! {
    eprintln!("error: {e}");
    std::process::exit(1)
}

/// [`check_fits`] against this machine's `MemAvailable`; passes when it
/// cannot be read (no basis for refusing).
pub fn check_fits_here(estimate: &MemoryEstimate) -> Result<(), MemoryRefusal> {
    match available_memory() {
        Some(avail) => check_fits(estimate, avail),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(scale: u32, ranks: u32, threads: u32) -> Shape {
        Shape::even(scale, 16, ranks, threads)
    }

    #[test]
    fn the_advice_asks_for_few_shares_and_never_when_nothing_fits() {
        use std::cell::Cell;
        let w = Workload::Sssp;
        let asked = Cell::new(0u32);
        // SCALE 22 on 1 GiB ranks needs a few ranks.
        let even = ranks_needed_with(w, 22, 16, 2, 1 << 30, &|_| {
            asked.set(asked.get() + 1);
            1000
        })
        .unwrap();
        let allowed = ranks_needed(w, 22, 16, 2, 1 << 30).unwrap();
        assert!(even <= allowed && asked.get() == 1, "{even} {allowed}");
        // A share heavier than the allowance: at most MAX_SHARE_QUERIES
        // asks, then the allowance's answer.
        asked.set(0);
        let heavy = ranks_needed_with(w, 22, 16, 2, 1 << 30, &|_| {
            asked.set(asked.get() + 1);
            4000
        });
        assert!(asked.get() <= MAX_SHARE_QUERIES);
        assert!(heavy.unwrap() >= even);
        // Nothing fits 1 MiB: no share is asked for.
        asked.set(0);
        let none = ranks_needed_with(w, 30, 16, 2, 1 << 20, &|_| {
            asked.set(asked.get() + 1);
            1000
        });
        assert_eq!((none, asked.get()), (None, 0));
    }

    #[test]
    fn a_heavier_share_raises_the_edge_terms_only() {
        let even = shape(22, 4, 1);
        let heavy = Shape {
            share_permille: 1120,
            ..even
        };
        let (e, h) = (
            estimate_rank(Workload::Sssp, even, 3),
            estimate_rank(Workload::Sssp, heavy, 3),
        );
        // The shards (8 B per entry) and in-flight records grow by 12%,
        // per-vertex state does not.
        let entries = 2 * (16u64 << 22) / 4;
        let grown = h.per_rank_bytes - e.per_rank_bytes;
        assert!(grown >= 8 * entries * 12 / 100, "{grown}");
        assert!(h.per_rank_bytes < e.per_rank_bytes * 112 / 100);
        // Below an even split counts as even.
        let light = Shape {
            share_permille: 900,
            ..even
        };
        assert_eq!(estimate_rank(Workload::Sssp, light, 3), e);
        assert_eq!(share_permille(0.28, 4), 1120);
        assert_eq!(share_permille(0.2, 4), 1000);
        assert_eq!(share_permille(f64::NAN, 4), 1000);
    }

    #[test]
    fn grows_with_scale_and_edgefactor() {
        for w in Workload::ALL {
            for s in 1..32 {
                let a = estimate(w, s, 16, 2, 2);
                let b = estimate(w, s + 1, 16, 2, 2);
                assert!(b.per_rank_bytes > a.per_rank_bytes, "{w:?} scale {s}");
                assert!(estimate(w, s, 32, 2, 2).per_rank_bytes > a.per_rank_bytes);
                assert_eq!(
                    a.per_rank_bytes,
                    a.phases.iter().map(|p| p.peak).max().unwrap()
                );
            }
        }
    }

    #[test]
    fn scale_20_sssp_phases() {
        let e = estimate_rank(Workload::Sssp, shape(20, 1, 2), 0);
        let (n, m) = (1u64 << 20, 16u64 << 20);
        let names: Vec<_> = e.phases.iter().map(|p| p.name).collect();
        assert_eq!(names, PHASES);
        // Streamed: nothing is generated before the build.
        assert_eq!(e.phases[0].peak, BASE_BYTES);
        // Shards: 8 B x 2 entries per edge, offsets; scratch: 16 B per
        // vertex, two trustees' send buffers and read chunks, and the part
        // of the slices (12 B per edge) that keeps construction under the
        // later phases' peak; the rest is generated twice.
        let p = u64::from(e.kept_permille);
        assert!(p > 200 && p < 800, "{p}");
        let scratch = 16 * (n + 2) + 2 * crate::construct::scratch_bytes_per_trustee(2);
        assert_eq!(
            e.phases[1].allocates,
            16 * m + 8 * (n + 2) + scratch + 12 * m * p / 1000
        );
        assert!(e.phases[1].peak <= e.per_rank_bytes);
        assert_eq!(e.phases[2].allocates, 0, "one rank ships nothing");
        // Kernel state and validation are the peak, level: the shards
        // (SSSP splits its rows inside them), per-vertex state and the
        // records in flight, then the gathered answer and its packed copy
        // (measured: 390 MiB).
        assert!(["kernel state", "validation"].contains(&e.peak_phase().name));
        assert!(e.phases[3].peak.abs_diff(e.phases[4].peak) < m);
        let per_edge = e.per_rank_bytes as f64 / m as f64;
        assert!((24.0..28.0).contains(&per_edge), "{per_edge}");
        // Generating twice leaves the same peak; one thousandth more kept,
        // or all of it, makes construction the peak.
        let twice = estimate_rank_as(Workload::Sssp, shape(20, 1, 2), 0, 0);
        assert_eq!(twice.per_rank_bytes, e.per_rank_bytes);
        for more in [e.kept_permille + 1, 1000] {
            let keep = estimate_rank_as(Workload::Sssp, shape(20, 1, 2), 0, more);
            assert_eq!(keep.peak_phase().name, "construction");
            assert!(keep.per_rank_bytes > e.per_rank_bytes);
        }
        let all = estimate_rank_as(Workload::Sssp, shape(20, 1, 2), 0, 1000);
        assert_eq!(all.phases[1].allocates, twice.phases[1].allocates + 12 * m);
    }

    #[test]
    fn sssp_bounds_are_shared_where_whole_arrays_outweigh_the_graph() {
        let kernel = |ef, ranks| estimate_rank(Workload::Sssp, Shape::even(27, ef, ranks, 32), 1);
        let n = 1u64 << 27;
        // 12 x 32 trustees, edgefactor 16: each trustee's bounds cover its
        // rank's vertices, the rank's filter the others'.
        let shared = kernel(16, 12);
        let whole = 4 * n * 32;
        let split = 4 * n.div_ceil(12) * 32 + 4 * (n - n.div_ceil(12));
        assert!(sssp_shares_bounds(n, 16 * n, 12, 32));
        assert!(shared.phases[3].allocates > split);
        assert!(shared.phases[3].allocates < whole, "{shared:?}");
        // 4 x 32 trustees, edgefactor 32: the whole arrays are no larger
        // than the graph and stay.
        assert!(!sssp_shares_bounds(n, 32 * n, 4, 32));
        assert!(kernel(32, 4).phases[3].allocates > whole);
    }

    #[test]
    fn streamed_ranks_build_only_their_share() {
        let one = estimate_rank(Workload::Sssp, shape(24, 1, 2), 0);
        let four = estimate_rank(Workload::Sssp, shape(24, 4, 2), 0);
        let other = estimate_rank(Workload::Sssp, shape(24, 4, 2), 3);
        for e in [&one, &four, &other] {
            assert_eq!(e.phases[0].allocates, 0, "no rank generates the list");
            assert_eq!(
                e.phases[2].allocates, 0,
                "nothing is shipped after the build"
            );
        }
        // Each of 4 ranks builds a quarter of the shards (plus scratch).
        let (a, b) = (one.phases[1].allocates, other.phases[1].allocates);
        assert!(b < a / 4 + a / 20, "{a} {b}");
        assert!(four.per_rank_bytes < one.per_rank_bytes);
        assert!(other.per_rank_bytes < four.per_rank_bytes);
        let total = estimate(Workload::Sssp, 24, 16, 4, 2).total_bytes;
        assert_eq!(total, four.per_rank_bytes + 3 * other.per_rank_bytes);
        // cc still loads the whole list on every rank.
        let cc = estimate_rank(Workload::Cc, shape(24, 4, 2), 3);
        let list = edge_list_bytes(shape(24, 4, 2), 3);
        assert_eq!(list, 12 * (16 << 24));
        assert_eq!(cc.phases[0].allocates, list);
    }

    #[test]
    fn refusal_advice_names_a_rank_count_that_passes() {
        for w in Workload::ALL {
            for (scale, avail) in [(22u32, 3u64 << 30), (24, 12 << 30), (20, 600 << 20)] {
                let e = estimate_rank(w, shape(scale, 1, 2), 0);
                let Err(r) = check_fits(&e, avail) else {
                    continue;
                };
                let text = r.to_string();
                assert!(
                    text.contains(&format!(
                        "{} at SCALE {scale} (edgefactor 16) needs about",
                        w.name()
                    )),
                    "{text}"
                );
                if let Some(k) = r.largest_scale {
                    assert!(estimate(w, k, 16, 1, 2).per_rank_bytes <= avail);
                    assert!(estimate(w, k + 1, 16, 1, 2).per_rank_bytes > avail);
                    assert!(text.contains(&format!("The largest SCALE that fits here is {k}.")));
                }
                match r.ranks_needed {
                    Some(need) => {
                        assert!(text.contains(&format!("--ranks {need}")), "{text}");
                        // Every rank fits, even the heaviest a partition
                        // makes (up to the advice's allowance).
                        let heavy = |r: u32| Shape {
                            share_permille: if r > 1 { ADVICE_SHARE_PERMILLE } else { 1000 },
                            ..shape(scale, r, 2)
                        };
                        for rank in 0..need {
                            let mine = estimate_rank(w, heavy(need), rank);
                            assert!(
                                check_fits(&mine, avail).is_ok(),
                                "{w:?} rank {rank} of {need}"
                            );
                        }
                        // And no smaller count would.
                        for fewer in 1..need {
                            let worst = (0..fewer.min(2))
                                .map(|rank| estimate_rank(w, heavy(fewer), rank).per_rank_bytes)
                                .max()
                                .unwrap();
                            assert!(worst > avail, "{w:?} {fewer} ranks would fit");
                        }
                    }
                    None => {
                        assert!(text.contains("No number of ranks"), "{text}");
                        for ranks in [1, 2, 3, 8, 64, 1024] {
                            assert!(estimate(w, scale, 16, ranks, 2).per_rank_bytes > avail);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn some_refusals_are_cured_by_more_ranks() {
        // SSSP at SCALE 22 (about 1.5 GiB on one rank) in 1 GiB: the
        // shards and the kernel state spread over the ranks.
        let e = estimate_rank(Workload::Sssp, shape(22, 1, 2), 0);
        let r = check_fits(&e, 1 << 30).unwrap_err();
        let need = r.ranks_needed.expect("more ranks help");
        assert!(need >= 2, "{need}");
        assert!(r
            .to_string()
            .contains(&format!("SCALE 22 fits on {need} ranks")));
    }

    #[test]
    fn absurd_allocations_are_errors_not_aborts() {
        let e = try_vec(usize::MAX / 2, 0u32, "the test's array").unwrap_err();
        let text = e.to_string();
        assert!(
            text.starts_with("out of memory while allocating the test's array ("),
            "{text}"
        );
        assert!(text.contains("gossamer-graph plan"), "{text}");
        let mut v = vec![1u8];
        let e = try_reserve(&mut v, usize::MAX - 8, "more bytes").unwrap_err();
        assert!(e.to_string().contains("allocating more bytes"), "{e}");
        assert_eq!(try_vec(4, 2u16, "four").unwrap(), [2, 2, 2, 2]);
    }

    #[test]
    fn generate_refusal_blames_only_the_edge_list() {
        let e = estimate_rank(Workload::Generate, shape(26, 1, 2), 0);
        let text = check_fits(&e, 1 << 30).unwrap_err().to_string();
        assert!(
            text.contains("every rank generates the whole edge list (12.0 GiB)"),
            "{text}"
        );
        assert!(!text.contains("shard"), "{text}");
    }

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

    #[test]
    fn meminfo_parsing() {
        let text = "MemTotal:       24000000 kB\nMemFree:  1 kB\nMemAvailable:   20000000 kB\n";
        assert_eq!(parse_meminfo(text), Some(20_000_000 * 1024));
        assert_eq!(parse_meminfo("MemTotal: 5 kB\n"), None);
        assert_eq!(parse_meminfo("MemAvailable: lots kB\n"), None);
    }
}
