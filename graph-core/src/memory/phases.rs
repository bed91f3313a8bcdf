//! The memory model, phase by phase (see the [module docs](super)): what
//! one rank of a run holds at the peak of each phase.

use super::run::{MemoryEstimate, Phase, Shape, Workload, PHASES};

/// Bytes per adjacency entry (u32 neighbour + f32 weight).
pub const ENTRY_BYTES: u64 = 8;

/// Bytes per adjacency entry of shards built without weights (u32
/// neighbour): the streamed commands whose kernels never read weights
/// ([`Workload::weighted`]).
pub const UNWEIGHTED_ENTRY_BYTES: u64 = 4;

/// Bytes per adjacency entry of `workload`'s shards.
fn entry_bytes(workload: Workload) -> Wide {
    Wide::from(if workload.weighted() {
        ENTRY_BYTES
    } else {
        UNWEIGHTED_ENTRY_BYTES
    })
}

/// Bytes per edge record.
pub const RECORD_BYTES: u64 = 12;

/// What a process holds before any graph: code, runtime, threads, slots.
pub const BASE_BYTES: u64 = 8 << 20;

/// The request and response slots one rank holds: one pair per local
/// worker and worker of the job.
pub fn slot_bytes(shape: Shape) -> u64 {
    let t = shape.threads_per_rank.max(1) as usize;
    let w = t.saturating_mul(shape.ranks.max(1) as usize);
    // The commands' slots: the runtime's default rule for rack runs.
    let slot = gossamer::rack_slot_size(t, w) as u128;
    clamp(2 * t as u128 * w as u128 * slot)
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
        let (n, m) = match s.exact {
            Some((n, m)) => (Wide::from(n), Wide::from(m)),
            None => {
                let n: Wide = 1 << s.scale.min(100);
                (n, n * Wide::from(s.edgefactor))
            }
        };
        Sizes {
            n,
            m,
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
    /// The CSR of `shards` trustees holding `entries` entries of
    /// `entry_bytes` each and `vertices` vertices: targets (and weights),
    /// offsets (`n + 1` each).
    fn csr(&self, entry_bytes: Wide, entries: Wide, vertices: Wide, shards: Wide) -> Wide {
        entry_bytes * entries + 8 * (vertices + shards)
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
/// per owned vertex; unweighted shards, stored by degree, also each row's
/// end, 8 B, and hold the row slots, 4 B), the send buffers and read chunk of each trustee
/// ([`crate::construct::scratch_bytes_per_trustee`]) and the kept part of
/// the rank's slices of the generated edges (`kept_permille` thousandths of
/// them, 12 B per edge, kept between the two passes). The shards hold
/// `entry_bytes` per entry ([`ENTRY_BYTES`] with weights,
/// [`UNWEIGHTED_ENTRY_BYTES`] without). Returns (held, scratch).
pub fn streamed_construction_bytes(
    shape: Shape,
    kept_permille: u32,
    entry_bytes: u64,
) -> (u64, u64) {
    let z = Sizes::new(shape);
    let by_degree = entry_bytes < ENTRY_BYTES;
    let slots = if by_degree { 4 * z.n_rank() } else { 0 };
    let held = z.csr(
        Wide::from(entry_bytes),
        z.entries_rank(),
        z.n_rank(),
        z.threads,
    ) + slots;
    let per_vertex = if by_degree { 24 } else { 16 };
    let per_trustee = crate::construct::scratch_bytes_per_trustee(z.trustees as u64);
    // The slices of the stream are even (unlike the entries); a mapped
    // file keeps nothing (reading it again is free), so this overcounts
    // files.
    let slice = Wide::from(RECORD_BYTES) * z.m.div_ceil(z.ranks);
    let kept = slice * Wide::from(kept_permille.min(1000)) / 1000;
    let scratch =
        per_vertex * (z.n_rank() + z.threads) + z.threads * Wide::from(per_trustee) + kept;
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
    let held = z.csr(Wide::from(ENTRY_BYTES), 2 * z.m, z.n, z.trustees);
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

    // 2. Construction: every command builds its own shards with the
    //    distributed construction (`bc` from the list it holds).
    let (all_shards, scratch) = {
        let entry = clamp(entry_bytes(workload));
        let (own, scratch) = streamed_construction_bytes(shape, kept_permille, entry);
        // Rank 0 then gathers which vertices have edges (the roots): 1 B
        // per vertex, and each trustee's part of it.
        let live = if root_rank { n + nr } else { nr };
        (Wide::from(own), Wide::from(scratch).max(live))
    };
    let construction = (all_shards + scratch, held + all_shards + scratch);
    held += all_shards;

    // 3. Exchange: nothing (the distributed construction builds each
    //    rank's shards where they stay; only the in-memory build,
    //    [`construction_bytes`], which no command uses, would ship them).
    let exchange = (0, held);

    // 4. Kernel state: (held per rank, transient, gathered on rank 0).
    let er = z.entries_rank();
    let gather = |bytes_per_vertex: Wide| if root_rank { bytes_per_vertex * n } else { 0 };
    // Every kernel on the shared adjacency: every trustee's positions and
    // the flat-id map, 4 B + 4 B per vertex of the whole graph, held once
    // per rank (process) and shared by its trustees.
    let tables = 8 * n;
    // SSSP: its rows are the shards' own (split in place); per trustee a
    // whole-graph `best` (4 B per vertex), or shared bounds (below); per
    // own vertex its row's word (start and length, 8 B), its place in the
    // degree order (4 B), its parent (4 B) and, while a search runs, the
    // queued entries (8 B each), the wave and the allocator's slack
    // (calibrated: 28 B per own vertex covers the largest of 4 roots at
    // SCALE 22 and 2 at 24, 2 threads; results/memory/scale26.md).
    // Rank 0 gathers the distances (4 B per vertex), then the parents
    // (8 B), each from the trustees' parts by local index (4 B per
    // vertex); each array is freed on the trustees once gathered (and
    // made again before the next search's clock).
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
    let sssp_rows = 12 * nr;
    let sssp_search = bounds + 4 * nr + 28 * nr + sssp_in_flight + arrivals;
    let gather_dist = bounds + 4 * nr + gather(8) + arrivals;
    let gather_parent = 4 * nr + gather(16) + arrivals;
    let sssp = (
        sssp_rows,
        sssp_search.max(gather_dist).max(gather_parent) - gather(12),
        gather(12),
    );
    // The unweighted rows: the shards' own targets, renamed and ordered in
    // place, when the shards are unweighted (4 B per own vertex for the
    // rows' lengths); a copy of the targets (4 B per entry) beside
    // weighted shards (`graph500`'s BFS).
    let rows = if workload.weighted() { 4 * er } else { 4 * nr };
    // BFS: the rows; per trustee two frontier bitmaps (0.25 B per
    // vertex); per own vertex offsets, parent, depth and the queues (48 B);
    // rank 0 gathers parents and levels (8 B + 8 B) from 4 B + 4 B per
    // vertex.
    let bfs = (
        rows + n.div_ceil(4) * t + 48 * nr,
        m_rank / 2 + arrivals,
        gather(24),
    );
    // cc (Afforest) and pagerank (pull) on the kernel blocks: the shared
    // adjacency's unweighted rows, the per-rank replicas
    // (parents; two contribution arrays) and per own vertex state
    // (calibrated at SCALE 20, 2 threads: 40 B and 16 B + 48 B per vertex;
    // pagerank 4 B per vertex per trustee more).
    let cc = (rows + 40 * n, 0, gather(8));
    let pagerank = (rows + 4 * n * t + 16 * n + 48 * nr, 0, gather(8));
    // bc (Brandes, level-synchronous pushes of f64 shares): calibrated at
    // SCALE 20, 2 threads, one process (measured peak 694 MiB): 96 B per
    // vertex beside cc's rows. tc (ordered count): per trustee the
    // out-lists it reads, filed in place as they arrive (4 B an entry:
    // each trustee's own and its out-neighbours', so the more trustees
    // share a rank the more lists are read by several), an offset per
    // vertex of the graph (8 B) and per rank the keys (8 B per vertex);
    // measured from s20.gbuilt, plain rows: 1.9, 3.5 and 6.3 B of lists
    // per entry with 1, 2 and 4 threads (results/memory/unweighted.md).
    let bc = (rows + 96 * n, 0, gather(8));
    let tc = (rows + 2 * t * er + 8 * n * t + 8 * n, 0, 0);
    // kcore (peeling): the rows as cc's, per own vertex its degree, its
    // place in the bins and the bins' inverse (12 B), rank 0 gathers one
    // coreness per vertex.
    let kcore = (rows + 12 * nr, 0, gather(4));
    let (k_held, k_transient, k_gather) = match workload {
        Workload::Sssp => sssp,
        Workload::Bfs => bfs,
        // Both states stay, SSSP's as above (its queues free their buffers
        // as buckets are taken, so 64 roots keep no larger capacities):
        // measured peaks 487 688 KiB at SCALE 20 and 1 925 636 at 22 (2
        // threads, 64 roots of each kernel, validated) against 1.09x that.
        Workload::Graph500 => (bfs.0 + sssp.0, sssp.1, sssp.2),
        Workload::Cc => cc,
        Workload::PageRank => pagerank,
        Workload::Bc => bc,
        Workload::Tc => tc,
        Workload::Kcore => kcore,
        Workload::Generate => unreachable!("returned above"),
    };
    let k_held = k_held + tables;
    let kernel = (
        k_held + k_transient + k_gather,
        held + k_held + k_transient + k_gather,
    );
    held += k_held + k_gather;

    // 5. Validation: SSSP/BFS on the shards; the whole-graph commands on
    //    rank 0 after the shards are dropped: the answer and the checker's
    //    arrays, the sequential references (pagerank, bc, tc, kcore) also
    //    their own copy of the graph.
    //    The whole-graph commands read a list they did not hold again
    //    (mapped whole and checked, or generated): 12 B per edge.
    let reread = Wide::from(edge_list_bytes(shape, rank));
    let validation = if workload == Workload::Sssp {
        // On the shards, renamed by the split: every rank holds the answer
        // packed (8 B per vertex) and re-indexed by renamed id (8 B more);
        // rank 0 checked the tree before (its depths, 4 B per vertex,
        // freed by then).
        let v = 16 * n;
        (v, held + v)
    } else if workload.validates_on_shards() {
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
            Workload::Cc => {
                // The labels and the checker's arrays, and what reading
                // the list again leaves (measured at SCALE 20, generated:
                // 78 B per vertex; from a graph file 45).
                let v = 80 * n;
                (v, Wide::from(BASE_BYTES) + reread + v)
            }
            Workload::Bc | Workload::Tc | Workload::Kcore => {
                // The sequential reference's whole CSR (16 B per edge; its
                // weights freed before) and its neighbour lists (measured
                // at SCALE 20, over 16 B per edge: kcore 114 B per vertex,
                // bc 103, tc 174).
                let per_vertex = if workload == Workload::Tc { 180 } else { 120 };
                let v = 16 * z.m + per_vertex * n;
                (v, Wide::from(BASE_BYTES) + reread + v)
            }
            Workload::PageRank => {
                // The verifier's own simple graph of the list: its whole
                // CSR (16 B per edge), whose weights it frees before making
                // the simple rows (measured at SCALE 20: 16 B per edge with
                // its scratch).
                let v = 16 * z.m + 40 * n;
                (v, Wide::from(BASE_BYTES) + reread + v)
            }
            _ => unreachable!("validated on the shards, or returned above"),
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
        exact: shape.exact,
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
pub(super) fn estimate_shape(workload: Workload, shape: Shape) -> MemoryEstimate {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::run::share_permille;

    fn shape(scale: u32, ranks: u32, threads: u32) -> Shape {
        Shape::even(scale, 16, ranks, threads)
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
        // The kernel state is the peak, during a search: the shards (SSSP
        // splits its rows inside them), the renumbering tables (8 B per
        // vertex), each row's word and place (12 B), two trustees' bounds
        // (4 B per vertex each), the parents (4 B), the queues (28 B) and
        // the records in flight (0.5 B per edge).
        assert_eq!(e.peak_phase().name, "kernel state");
        assert_eq!(
            e.phases[3].allocates,
            8 * n + 12 * n + 8 * n + 4 * n + 28 * n + m / 2
        );
        // Validation after the bounds, parents and queues are freed: the
        // gathered answer (12 B per vertex), packed and re-indexed by
        // renamed id (16 B).
        assert_eq!(e.phases[4].allocates, 16 * n);
        // Held at its peak: the tables, the rows' words and the answer
        // (8 + 12 + 12 B), instead of the search's 40 B and the records.
        assert_eq!(e.phases[4].peak, e.phases[3].peak - 12 * n - m / 2);
        let per_edge = e.per_rank_bytes as f64 / m as f64;
        assert!((20.0..22.0).contains(&per_edge), "{per_edge}");
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
        // Each of 4 ranks builds a quarter of the shards (plus scratch),
        // generating its slices twice in both (ranks with less kernel
        // state above their shards keep more of them).
        let built = |ranks, rank| {
            estimate_rank_as(Workload::Sssp, shape(24, ranks, 2), rank, 0).phases[1].allocates
        };
        let (a, b) = (built(1, 0), built(4, 3));
        assert!(b < a / 4 + a / 20, "{a} {b}");
        assert!(four.per_rank_bytes < one.per_rank_bytes);
        assert!(other.per_rank_bytes < four.per_rank_bytes);
        let total = estimate(Workload::Sssp, 24, 16, 4, 2).total_bytes;
        assert_eq!(total, four.per_rank_bytes + 3 * other.per_rank_bytes);
        // cc streams too, and reads the list again on rank 0 to verify;
        // bc (choosing its sources) holds it on every rank.
        let list = edge_list_bytes(shape(24, 4, 2), 3);
        assert_eq!(list, 12 * (16 << 24));
        let cc = estimate_rank(Workload::Cc, shape(24, 4, 2), 3);
        assert_eq!(cc.phases[0].allocates, 0);
        assert_eq!(cc.phases[4].allocates, 0, "rank 3 verifies nothing");
        let cc0 = estimate_rank(Workload::Cc, shape(24, 4, 2), 0);
        assert!(cc0.phases[4].peak > list);
        let bc = estimate_rank(Workload::Bc, shape(24, 4, 2), 3);
        assert_eq!(bc.phases[0].allocates, list);
    }

    #[test]
    fn only_sssp_keeps_weights() {
        let s = shape(20, 1, 2);
        let (n, m) = (1u64 << 20, 16u64 << 20);
        let built = |w| estimate_rank_as(w, s, 0, 0).phases[1].allocates;
        // The same construction but for the weights (4 B x 2 entries per
        // edge) and the rows stored by degree: slots (4 B per vertex) and
        // ends (8 B scratch).
        let by_degree = 4 * n + 8 * (n + 2);
        assert_eq!(
            built(Workload::Sssp) + by_degree - built(Workload::Bfs),
            8 * m
        );
        assert_eq!(built(Workload::Graph500), built(Workload::Sssp));
        for w in [
            Workload::Cc,
            Workload::PageRank,
            Workload::Tc,
            Workload::Kcore,
        ] {
            assert_eq!(built(w), built(Workload::Bfs), "{w:?}");
            // Verified against the list read again once the shards are gone.
            let e = estimate_rank(w, s, 0);
            assert!(e.phases[4].peak >= BASE_BYTES + 12 * m + 32 * n, "{w:?}");
        }
    }
}
