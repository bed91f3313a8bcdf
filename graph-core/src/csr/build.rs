//! Building shards from an edge list: [`build_rank`] and its relatives
//! cut the list into chunks and sort their entries in parallel (see the
//! [module docs](super)).

use std::ops::Range;

use super::error::CsrError;
use super::shard::Shard;
use super::sort::{sort_entries, Sides};
use crate::edge_list::{EdgeList, PackedEdge};
use crate::partition::Partition;

/// The whole graph as one shard (partition: one trustee), for validators
/// and sequential references. Local index == global id.
pub fn build_whole(list: &EdgeList<'_>) -> Result<Shard, CsrError> {
    let p = Partition::single(list.num_vertices());
    let mut shards = build_trustees(list, &p, 0..1)?;
    Ok(shards.remove(0))
}

/// All shards of `rank` (trustees `rank * threads .. (rank + 1) * threads`),
/// in trustee order.
///
/// ```
/// use graph_core::{build_rank, EdgeList, PackedEdge, Partition, PartitionKind};
/// let list = EdgeList::from_edges(4, vec![PackedEdge::new(0, 3, 1.0), PackedEdge::new(1, 2, 2.0)]).unwrap();
/// let p = Partition::new(PartitionKind::Cyclic, 4, 2, 2).unwrap();
/// let shards = build_rank(&list, &p, 1).unwrap(); // trustees 2 and 3
/// assert_eq!(shards[0].trustee(), 2);
/// assert_eq!(shards[0].global_id(0), 2);
/// assert_eq!(shards[0].neighbors(0).collect::<Vec<_>>(), [(1, 2.0)]);
/// assert_eq!(shards[1].neighbors(0).collect::<Vec<_>>(), [(0, 1.0)]);
/// ```
pub fn build_rank(
    list: &EdgeList<'_>,
    partition: &Partition,
    rank: u32,
) -> Result<Vec<Shard>, CsrError> {
    build_trustees(list, partition, partition.trustees_of_rank(rank))
}

/// Shards of the trustees in `trustees` (any contiguous range of global
/// trustee indices), built together by one parallel counting sort of the
/// adjacency entries (see the module docs).
pub fn build_trustees(
    list: &EdgeList<'_>,
    partition: &Partition,
    trustees: Range<u32>,
) -> Result<Vec<Shard>, CsrError> {
    build_trustees_with(list, partition, trustees, false)
}

/// [`build_trustees`] for records that are arcs `u -> v` when `directed`:
/// each row then holds its vertex's out-edges only, and the shard an
/// in-edge index ([`Shard::in_neighbors`]); undirected (`false`) is
/// [`build_trustees`].
///
/// ```
/// use graph_core::csr::build_trustees_with;
/// use graph_core::{EdgeList, PackedEdge, Partition};
/// let list = EdgeList::from_edges(3, vec![
///     PackedEdge::new(0, 1, 0.5),
///     PackedEdge::new(2, 1, 0.25),
/// ]).unwrap();
/// let g = build_trustees_with(&list, &Partition::single(3), 0..1, true).unwrap().remove(0);
/// assert!(g.is_directed());
/// assert_eq!(g.neighbors(0).collect::<Vec<_>>(), [(1, 0.5)]);
/// assert_eq!(g.degree(1), 0); // 1 has no out-edge
/// assert_eq!(g.in_neighbors(1), [0, 2]);
/// assert_eq!(g.num_entries(), 2); // one entry per arc
/// ```
pub fn build_trustees_with(
    list: &EdgeList<'_>,
    partition: &Partition,
    trustees: Range<u32>,
    directed: bool,
) -> Result<Vec<Shard>, CsrError> {
    let chunks = chunk_count(list, partition, &trustees, rayon::current_num_threads());
    if !directed {
        return build_in_chunks(list, partition, trustees, chunks, Sides::Both);
    }
    let out = build_in_chunks(list, partition, trustees.clone(), chunks, Sides::Out)?;
    let inn = build_in_chunks(list, partition, trustees, chunks, Sides::In)?;
    Ok(out
        .into_iter()
        .zip(inn)
        .map(|(o, i)| o.with_in_edges(i.offsets.into_vec(), i.targets.into_vec()))
        .collect())
}

/// [`build_rank`] with a direction (see [`build_trustees_with`]).
pub fn build_rank_with(
    list: &EdgeList<'_>,
    partition: &Partition,
    rank: u32,
    directed: bool,
) -> Result<Vec<Shard>, CsrError> {
    build_trustees_with(list, partition, partition.trustees_of_rank(rank), directed)
}

/// Most scratch the per-chunk cursor arrays may add, in bytes per input
/// edge (each chunk but the last needs 4 bytes per owned vertex).
const MAX_CURSOR_BYTES_PER_EDGE: u64 = 1;

/// Fewest edges worth a chunk of their own.
const MIN_CHUNK_EDGES: u64 = 1 << 14;

/// How many contiguous chunks of the edge list to sort in parallel: one per
/// worker thread, fewer when the graph is small, when the cursor scratch
/// would exceed [`MAX_CURSOR_BYTES_PER_EDGE`], or when 32-bit cursors
/// could overflow (then one chunk with 64-bit cursors).
fn chunk_count(
    list: &EdgeList<'_>,
    partition: &Partition,
    trustees: &Range<u32>,
    threads: usize,
) -> usize {
    let m = list.num_edges();
    if 2 * m > u64::from(u32::MAX) {
        return 1;
    }
    let owned: u64 = trustees
        .clone()
        .map(|t| partition.local_count(t))
        .sum::<u64>()
        .max(1);
    let by_memory = 1 + MAX_CURSOR_BYTES_PER_EDGE * m / (4 * owned);
    let by_size = (m / MIN_CHUNK_EDGES).max(1);
    (threads as u64).min(by_memory).min(by_size).max(1) as usize
}

/// [`build_trustees`] with the edge list cut into exactly `chunks`
/// contiguous chunks (`chunks >= 1`; the result does not depend on it).
fn build_in_chunks(
    list: &EdgeList<'_>,
    partition: &Partition,
    trustees: Range<u32>,
    chunks: usize,
    sides: Sides,
) -> Result<Vec<Shard>, CsrError> {
    let n = list.num_vertices();
    if partition.num_vertices() != n {
        return Err(CsrError::PartitionMismatch {
            graph: n,
            partition: partition.num_vertices(),
        });
    }
    if trustees.start > trustees.end || trustees.end > partition.num_trustees() {
        return Err(CsrError::NoSuchTrustees {
            requested: trustees,
            trustees: partition.num_trustees(),
        });
    }
    // Ids must be in range before any of them is used as an index.
    list.validate()?;
    let edges = list.edges();
    let chunks = if 2 * edges.len() as u64 > u64::from(u32::MAX) {
        1
    } else {
        chunks.clamp(1, edges.len().max(1))
    };
    let step = edges.len().div_ceil(chunks).max(1);
    let parts: Vec<&[PackedEdge]> = if edges.is_empty() {
        vec![edges]
    } else {
        edges.chunks(step).collect()
    };
    let counts: Vec<usize> = trustees
        .clone()
        .map(|t| partition.local_count(t) as usize)
        .collect();
    let (offsets, targets, weights) = if partition.num_trustees() == 1 {
        // One trustee owns everything and local index == global id.
        sort_entries(&parts, &counts, sides, |x| Some((0, x as usize)))?
    } else {
        let first = u64::from(trustees.start);
        let shards = trustees.len() as u64;
        sort_entries(&parts, &counts, sides, move |x| {
            let (t, local) = partition.locate(u64::from(x));
            let s = t.wrapping_sub(first);
            (s < shards).then_some((s as usize, local as usize))
        })?
    };
    let shards = offsets
        .into_iter()
        .zip(targets)
        .zip(weights)
        .zip(trustees)
        .map(|(((offsets, targets), weights), trustee)| {
            Shard::from_parts(*partition, trustee, offsets, targets, weights)
        })
        .collect();
    Ok(shards)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edge_list::EdgeListError;
    use crate::partition::PartitionKind;

    fn small() -> EdgeList<'static> {
        EdgeList::from_edges(
            5,
            vec![
                PackedEdge::new(0, 1, 0.5),
                PackedEdge::new(1, 0, 0.25),
                PackedEdge::new(2, 2, 1.0),
                PackedEdge::new(4, 2, 0.75),
                PackedEdge::new(3, 1, 0.125),
            ],
        )
        .unwrap()
    }

    #[test]
    fn whole_graph_lists() {
        let g = build_whole(&small()).unwrap();
        assert_eq!(g.offsets(), &[0, 2, 5, 6, 7, 8]);
        let lists: Vec<Vec<(u32, f32)>> = (0..5).map(|v| g.neighbors(v).collect()).collect();
        assert_eq!(lists[0], [(1, 0.5), (1, 0.25)]);
        assert_eq!(lists[1], [(0, 0.5), (0, 0.25), (3, 0.125)]);
        assert_eq!(lists[2], [(4, 0.75)]);
        assert_eq!(lists[3], [(1, 0.125)]);
        assert_eq!(lists[4], [(2, 0.75)]);
        assert_eq!(g.degree(99), 0);
    }

    #[test]
    fn shards_split_the_whole_graph() {
        let list = small();
        let whole = build_whole(&list).unwrap();
        let p = Partition::new(PartitionKind::Block, 5, 2, 2).unwrap();
        let mut total = 0;
        for rank in 0..2 {
            for s in build_rank(&list, &p, rank).unwrap() {
                total += s.num_entries();
                let owned = (0..7).filter(|&v| s.local_of(v).is_some()).count() as u64;
                assert_eq!(owned, s.num_local_vertices(), "ids 5, 6 are not vertices");
                for (l, gid) in s.vertices() {
                    assert_eq!(s.local_of(gid), Some(l));
                    let a: Vec<_> = s.neighbors(l).collect();
                    let b: Vec<_> = whole.neighbors(gid).collect();
                    assert_eq!(a, b, "vertex {gid}");
                }
            }
        }
        assert_eq!(total, whole.num_entries());
    }

    #[test]
    fn bad_inputs_are_errors() {
        let list = EdgeList::from_edges(3, vec![PackedEdge::new(0, 7, 1.0)]).unwrap();
        assert!(matches!(
            build_whole(&list),
            Err(CsrError::Edge(EdgeListError::VertexOutOfRange {
                index: 0,
                ..
            }))
        ));
        let list = small();
        let p = Partition::single(4);
        assert!(matches!(
            build_rank(&list, &p, 0),
            Err(CsrError::PartitionMismatch { .. })
        ));
        let p = Partition::single(5);
        assert!(matches!(
            build_rank(&list, &p, 1),
            Err(CsrError::NoSuchTrustees { .. })
        ));
    }

    #[test]
    fn empty_graph_builds() {
        let list = EdgeList::from_edges(0, vec![]).unwrap();
        let g = build_whole(&list).unwrap();
        assert_eq!(g.num_local_vertices(), 0);
        assert_eq!(g.num_entries(), 0);
    }

    /// A pseudo-random graph with self-loops, duplicates and hubs.
    fn scrambled(n: u32, m: usize) -> EdgeList<'static> {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let edges = (0..m)
            .map(|i| {
                let r = next();
                // Every 7th edge touches hub 3; every 11th is a self-loop.
                let u = if i % 7 == 0 {
                    3
                } else {
                    (r % u64::from(n)) as u32
                };
                let v = if i % 11 == 0 {
                    u
                } else {
                    ((r >> 32) % u64::from(n)) as u32
                };
                PackedEdge::new(u, v, (i % 1000) as f32 / 1000.0)
            })
            .collect();
        EdgeList::from_edges(u64::from(n), edges).unwrap()
    }

    /// Each vertex's list by the definition: both directions, input order,
    /// no self-loops.
    fn reference_lists(list: &EdgeList<'_>) -> Vec<Vec<(u32, f32)>> {
        let mut lists = vec![Vec::new(); list.num_vertices() as usize];
        for e in list.edges().iter().filter(|e| !e.is_self_loop()) {
            lists[e.u as usize].push((e.v, e.w));
            lists[e.v as usize].push((e.u, e.w));
        }
        lists
    }

    #[test]
    fn any_chunk_count_gives_the_defined_lists() {
        let list = scrambled(97, 3000);
        let want = reference_lists(&list);
        let shapes = [
            (PartitionKind::Block, 1, 1),
            (PartitionKind::Block, 2, 3),
            (PartitionKind::Cyclic, 3, 2),
            (PartitionKind::Cyclic, 1, 4),
        ];
        for (kind, ranks, threads) in shapes {
            let p = Partition::new(kind, 97, ranks, threads).unwrap();
            for rank in 0..ranks {
                let trustees = p.trustees_of_rank(rank);
                let one = build_in_chunks(&list, &p, trustees.clone(), 1, Sides::Both).unwrap();
                for s in &one {
                    for (l, gid) in s.vertices() {
                        let got: Vec<_> = s.neighbors(l).collect();
                        assert_eq!(got, want[gid as usize], "{kind:?} vertex {gid}");
                    }
                    assert_eq!(s.offsets()[0], 0);
                    assert_eq!(*s.offsets().last().unwrap(), s.num_entries());
                }
                for chunks in [2, 3, 5, 64, 5000] {
                    let many =
                        build_in_chunks(&list, &p, trustees.clone(), chunks, Sides::Both).unwrap();
                    assert_eq!(many, one, "{kind:?} rank {rank}, {chunks} chunks");
                }
            }
        }
    }

    #[test]
    fn chunk_count_follows_threads_size_and_memory() {
        let n = 1 << 13;
        let p = Partition::single(n);
        // 16 edges per vertex, 128 Ki edges: one chunk per thread, up to
        // what the cursor memory cap allows (1 + 16 / 4 = 5).
        let big = EdgeList::from_edges(n, vec![PackedEdge::new(0, 1, 1.0); 1 << 17]).unwrap();
        assert_eq!(chunk_count(&big, &p, &(0..1), 2), 2);
        assert_eq!(chunk_count(&big, &p, &(0..1), 64), 5);
        // Too few edges for a second chunk.
        let small = EdgeList::from_edges(n, vec![PackedEdge::new(0, 1, 1.0); 100]).unwrap();
        assert_eq!(chunk_count(&small, &p, &(0..1), 8), 1);
    }

    #[test]
    fn all_self_loops_give_empty_lists() {
        let list = EdgeList::from_edges(3, vec![PackedEdge::new(2, 2, 1.0); 10]).unwrap();
        let p = Partition::single(3);
        let g = build_in_chunks(&list, &p, 0..1, 4, Sides::Both)
            .unwrap()
            .remove(0);
        assert_eq!(g.offsets(), &[0, 0, 0, 0]);
        assert_eq!(g.num_entries(), 0);
    }
}
