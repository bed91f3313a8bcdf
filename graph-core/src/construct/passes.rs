//! [`ShardedGraph::build_from`]: the build's steps on every trustee (the
//! check of a slice, then the two passes over it, see the [module
//! docs](super)) and the graph of placeholder shards they fill.

use std::ops::Range;
use std::time::Instant;

use gossamer::{Trust, WorkerId};
use serde::{Deserialize, Serialize};

use super::exchange::{
    agree, building, count_degrees, count_in_degrees, first_failure, place_entries,
    place_in_entries, send, send_batch, Building, Entry,
};
use super::progress::{self, BuildStep};
use super::source::EdgeSource;
use crate::alloc::{try_reserve, try_vec};
use crate::csr::{huge_pages, Shard};
use crate::edge_list::PackedEdge;
use crate::partition::{Partition, PartitionKind};
use crate::sharded::{in_fiber, KernelError, ShardedGraph, TrusteeCtx, TrusteeState};

/// Edges read from the source at a time, per trustee.
const READ_CHUNK: usize = 1 << 14;

/// Scratch one trustee uses during a build with `trustees` trustees in
/// all: its send buffers at their largest and its read chunk (for the
/// memory model).
pub fn scratch_bytes_per_trustee(trustees: u64) -> u64 {
    let bufs = send_batch(trustees) * std::mem::size_of::<Entry>() * trustees.max(1) as usize;
    (bufs + READ_CHUNK * PackedEdge::BYTES) as u64
}

/// Time a trustee spent on its part of a build.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BuildTimes {
    /// Seconds reading (generating) edges, both passes, on the slowest trustee.
    pub read_s: f64,
    /// Seconds of the whole build.
    pub total_s: f64,
}

impl ShardedGraph {
    /// Builds the graph from `source` with every trustee reading its own
    /// slice and sending each entry to its owner (see the module docs).
    /// Call from a fiber inside the gossamer runtime (in a rack job: rank
    /// 0's); every rank must be able to open the source. A directed source
    /// ([`EdgeSource::directed`]) gives a directed graph
    /// ([`ShardedGraph::is_directed`]): rows of out-arcs and an in-edge index.
    pub fn build_from<S: EdgeSource>(
        source: S,
        kind: PartitionKind,
    ) -> Result<(Self, BuildTimes), KernelError> {
        let workers = in_fiber("ShardedGraph::build_from")?;
        let n = source.num_vertices();
        if n > u64::from(u32::MAX) + 1 {
            return Err(KernelError::Config(format!(
                "the graph has {n} vertices; vertex ids are 32-bit, so at most 2^32"
            )));
        }
        let partition = Partition::new(kind, n, 1, workers as u32)?;
        Self::build_from_placed(source, partition)
    }

    /// [`build_from`](Self::build_from) over a given `partition` (of the
    /// source's vertices over this runtime's workers), e.g. a blocks
    /// partition with a chosen table.
    pub fn build_from_placed<S: EdgeSource>(
        source: S,
        partition: Partition,
    ) -> Result<(Self, BuildTimes), KernelError> {
        let start = Instant::now();
        let workers = in_fiber("ShardedGraph::build_from")?;
        if partition.num_vertices() != source.num_vertices()
            || partition.num_trustees() as usize != workers
        {
            return Err(KernelError::Config(format!(
                "the partition is of {} vertices over {} trustees, the source has {} vertices and the runtime {workers} workers",
                partition.num_vertices(),
                partition.num_trustees(),
                source.num_vertices()
            )));
        }
        let mut graph = ShardedGraph::with_placeholders(partition, source.num_edges());
        graph.set_directed(source.directed());
        graph.set_weighted(source.weighted());
        // This process's share of the edges, for a progress display.
        let local_edges = (0..workers)
            .filter(|&t| gossamer::is_local_worker(WorkerId(t)))
            .map(|t| {
                let s = slice_of(source.num_edges(), t as u32, workers as u64);
                s.end - s.start
            })
            .sum();
        progress::begin(local_edges);
        if source.checks_slices() {
            // A source no trustee could open, then a wrong checksum, then
            // a bad record: the first of these that happened is the error.
            let outcomes = graph.on_trustees_with(source.clone(), check_on_trustee::<S>);
            let checked = first_failure(outcomes)?;
            let digests: Vec<u64> = checked.iter().flat_map(|(d, _)| d).copied().collect();
            let reader = source.open().map_err(KernelError::Runtime)?;
            source
                .check_digests(&reader, &digests)
                .map_err(KernelError::Runtime)?;
            if let Some(bad) = checked.into_iter().find_map(|(_, bad)| bad) {
                return Err(KernelError::Runtime(bad));
            }
        }
        let outcomes = graph.on_trustees_with(source, build_on_trustee::<S>);
        let read_s = first_failure(outcomes)?.into_iter().fold(0.0, f64::max);
        let times = BuildTimes {
            read_s,
            total_s: start.elapsed().as_secs_f64(),
        };
        Ok((graph, times))
    }

    /// A graph of empty shards of the right shape on every worker, for a
    /// step that installs the real ones on each trustee.
    pub(crate) fn with_placeholders(partition: Partition, num_edges_input: u64) -> Self {
        let workers = partition.num_trustees() as usize;
        let trustees: Vec<Trust<TrusteeState>> = (0..workers)
            .map(|t| {
                let make = move |p: Partition| TrusteeState::new(placeholder(p, t as u32));
                if gossamer::is_local_worker(WorkerId(t)) {
                    gossamer::entrust_on(WorkerId(t), make(partition))
                } else {
                    gossamer::spawn_on_with(
                        WorkerId(t),
                        move |p: Partition| gossamer::entrust(make(p)),
                        partition,
                    )
                    .join()
                }
            })
            .collect();
        ShardedGraph::from_trusts(partition, num_edges_input, trustees)
    }
}

/// An empty shard of the right shape, until the build installs the real one.
pub(super) fn placeholder(p: Partition, t: u32) -> Shard {
    let n = p.local_count(t) as usize;
    let offsets = crate::alloc::vec_or_exit(n + 1, 0, "placeholder CSR offsets");
    Shard::from_parts(p, t, offsets, Vec::new(), Vec::new())
}

/// The edges trustee `me` of `trustees` reads: an even, contiguous share
/// of `edges`, in trustee order.
fn slice_of(edges: u64, me: u32, trustees: u64) -> Range<u64> {
    let me = u64::from(me);
    edges * me / trustees..edges * (me + 1) / trustees
}

/// Every trustee's check of its slice before a build reads it
/// ([`EdgeSource::checks_slices`]): its digests and its first bad record,
/// or why it could not open the source. No collective: each trustee
/// returns on its own.
fn check_on_trustee<S: EdgeSource>(
    ctx: TrusteeCtx,
    source: S,
) -> Result<(Vec<u64>, Option<String>), String> {
    let reader = source.open()?;
    let w = ctx.partition.num_trustees() as u64;
    let slice = slice_of(source.num_edges(), ctx.me, w);
    // Piece by piece, each given back once checked (a rank keeps resident
    // only what it is reading): the digests of consecutive pieces are the
    // slice's, in order.
    let (mut digests, mut bad) = (Vec::new(), None);
    let mut at = slice.start;
    while at < slice.end {
        let piece = at..(at + READ_CHUNK as u64).min(slice.end);
        digests.extend(source.slice_digests(&reader, piece.clone()));
        if bad.is_none() {
            bad = source.check_slice(&reader, piece.clone()).err();
        }
        source.release(&reader, piece.clone());
        progress::add(BuildStep::Checking, piece.end - piece.start);
        at = piece.end;
    }
    Ok((digests, bad))
}

/// Every trustee's part of the build; returns its seconds spent reading.
/// Each step ends with an all-reduce of "did anyone fail?", so a failure
/// anywhere ends the build everywhere instead of leaving peers waiting.
fn build_on_trustee<S: EdgeSource>(mut ctx: TrusteeCtx, source: S) -> Result<f64, String> {
    let opened = source.open();
    agree(
        &mut ctx,
        opened.as_ref().err().cloned(),
        "open the graph source",
    )?;
    let reader = opened.expect("checked by agree");
    let w = ctx.partition.num_trustees() as u64;
    let slice = slice_of(source.num_edges(), ctx.me, w);
    let mut chunk = vec![PackedEdge::default(); READ_CHUNK];
    // Rank 0 (the process of trustee 0) gathers the answers, so its memory
    // differs from the other ranks'.
    let on_rank_0 = gossamer::is_local_worker(WorkerId(0));
    // The first `kept_len` edges of the slice are kept for the second pass
    // (`EdgeSource::kept_permille`), reserved at their exact size.
    let slice_len = slice.end - slice.start;
    let permille = u64::from(source.kept_permille(on_rank_0).min(1000));
    let kept_len = (u128::from(slice_len) * u128::from(permille) / 1000) as usize;
    let mut kept: Vec<PackedEdge> = Vec::new();
    let held = try_reserve(&mut kept, kept_len, "the kept part of the edge slice")
        .map_err(|e| e.to_string());
    agree(&mut ctx, held.err(), "hold its slice")?;
    let batch = send_batch(w);
    let mut read_s = 0.0;

    // Pass 1: degrees.
    let n = source.num_vertices();
    let mut bad = None;
    let directed = source.directed();
    let weighted = source.weighted();
    let mut out: Vec<Vec<u32>> = vec![Vec::new(); w as usize];
    let mut out_in: Vec<Vec<u32>> = vec![Vec::new(); if directed { w as usize } else { 0 }];
    for_each_edge(
        &source,
        &reader,
        slice.clone(),
        &mut chunk,
        &mut read_s,
        (BuildStep::Counting, Some((&mut kept, kept_len))),
        |i, e| {
            if u64::from(e.u) >= n || u64::from(e.v) >= n {
                bad.get_or_insert_with(|| {
                    format!(
                        "edge {i} ({}, {}) names a vertex outside the graph's {n} vertices",
                        e.u, e.v
                    )
                });
                return;
            }
            if e.u == e.v {
                return;
            }
            for (k, x) in [e.u, e.v].into_iter().enumerate() {
                let o = ctx.partition.owner(u64::from(x));
                let t = o.trustee as usize;
                if directed && k == 1 {
                    let buf = &mut out_in[t];
                    buf.push(o.local as u32);
                    if buf.len() >= batch {
                        send(&ctx.peers[t], buf, count_in_degrees);
                    }
                    continue;
                }
                let buf = &mut out[t];
                buf.push(o.local as u32);
                if buf.len() >= batch {
                    send(&ctx.peers[t], buf, count_degrees);
                }
            }
        },
    );
    for (t, buf) in out.iter_mut().enumerate() {
        send(&ctx.peers[t], buf, count_degrees);
    }
    for (t, buf) in out_in.iter_mut().enumerate() {
        send(&ctx.peers[t], buf, count_in_degrees);
    }
    drop(out);
    drop(out_in);
    gossamer::wait_outstanding();
    agree(&mut ctx, bad, "read the edges")?;

    // Offsets and rows, allocated once at their final size.
    let allocated = ctx
        .local
        .apply_returning(move |s| allocate_rows(s, weighted, directed));
    agree(&mut ctx, allocated.err(), "allocate the shard")?;

    // Pass 2: entries.
    let mut out: Vec<Vec<Entry>> = vec![Vec::new(); w as usize];
    let mut out_in: Vec<Vec<Entry>> = vec![Vec::new(); if directed { w as usize } else { 0 }];
    let mut place = |e: PackedEdge| {
        if e.u == e.v {
            return;
        }
        for (k, (x, y)) in [(e.u, e.v), (e.v, e.u)].into_iter().enumerate() {
            let o = ctx.partition.owner(u64::from(x));
            let t = o.trustee as usize;
            let entry = Entry {
                row: o.local as u32,
                target: y,
                weight: e.w,
            };
            if directed && k == 1 {
                let buf = &mut out_in[t];
                buf.push(entry);
                if buf.len() >= batch {
                    send(&ctx.peers[t], buf, place_in_entries);
                }
                continue;
            }
            let buf = &mut out[t];
            buf.push(entry);
            if buf.len() >= batch {
                send(&ctx.peers[t], buf, place_entries);
            }
        }
    };
    let reread = slice.start + kept.len() as u64..slice.end;
    let kept_edges = kept.len() as u64;
    std::mem::take(&mut kept).into_iter().for_each(&mut place);
    progress::add(BuildStep::Placing, kept_edges);
    for_each_edge(
        &source,
        &reader,
        reread,
        &mut chunk,
        &mut read_s,
        (BuildStep::Placing, None),
        |_, e| place(e),
    );
    for (t, buf) in out.iter_mut().enumerate() {
        send(&ctx.peers[t], buf, place_entries);
    }
    for (t, buf) in out_in.iter_mut().enumerate() {
        send(&ctx.peers[t], buf, place_in_entries);
    }
    drop(out);
    drop(out_in);
    drop(chunk);
    gossamer::wait_outstanding();
    agree(&mut ctx, None, "send the entries")?;

    // The rows, installed as the shard.
    let finished = ctx
        .local
        .apply_returning(move |s| install_rows(s, weighted, directed));
    agree(&mut ctx, finished.err(), "finish the shards")?;
    Ok(read_s)
}

/// After the degrees arrived (pass 1 of a build or a block move): the
/// offsets, and the rows allocated once at their final size, on the
/// receiving trustee.
pub(super) fn allocate_rows(
    s: &mut TrusteeState,
    weighted: bool,
    directed: bool,
) -> Result<(), String> {
    let n = s.shard().num_local_vertices() as usize;
    let b = building(s);
    if b.offsets.is_empty() {
        b.offsets = try_vec(n + 1, 0u64, "CSR offsets").map_err(|e| e.to_string())?;
    }
    let entries = if weighted {
        let mut acc = 0;
        for d in b.offsets.iter_mut() {
            acc += *d;
            *d = acc;
        }
        b.cursor = try_vec(n, 0u64, "CSR cursors").map_err(|e| e.to_string())?;
        b.cursor.copy_from_slice(&b.offsets[..n]);
        acc as usize
    } else {
        // Rows stored in the kernels' position order (by decreasing
        // degree where degrees are skewed: `Shard::row_slots`), each
        // row's end kept for the fill.
        lay_out_by_degree(b).map_err(|e| e.to_string())?
    };
    // Zeroed allocations stay untouched until written; the writes land
    // at random, so huge pages save most TLB misses (see csr/huge_pages.rs).
    b.targets = try_vec(entries, 0u32, "CSR targets").map_err(|e| e.to_string())?;
    huge_pages::advise(&mut b.targets);
    // An unweighted build has no weight array (`place_entries` writes
    // weights only where there is one).
    if weighted {
        b.weights = try_vec(entries, 0f32, "CSR weights").map_err(|e| e.to_string())?;
        huge_pages::advise(&mut b.weights);
    }
    if directed {
        if b.in_offsets.is_empty() {
            b.in_offsets = try_vec(n + 1, 0u64, "in-edge offsets").map_err(|e| e.to_string())?;
        }
        let mut acc = 0;
        for d in b.in_offsets.iter_mut() {
            acc += *d;
            *d = acc;
        }
        b.in_cursor = try_vec(n, 0u64, "in-edge cursors").map_err(|e| e.to_string())?;
        b.in_cursor.copy_from_slice(&b.in_offsets[..n]);
        b.in_sources = try_vec(acc as usize, 0u32, "in-edge sources").map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// After every entry arrived (pass 2): checks that each row was filled
/// exactly and installs the rows as the trustee's shard (over the
/// partition of the placeholder shard in its place).
pub(super) fn install_rows(
    s: &mut TrusteeState,
    weighted: bool,
    directed: bool,
) -> Result<(), String> {
    let b = std::mem::take(building(s));
    s.drop_kernel::<Building>();
    let ends = b.row_ends();
    let unfilled = b.cursor.iter().zip(ends).filter(|(c, e)| c != e).count();
    let filled = unfilled == 0
        && b.in_cursor
            .iter()
            .zip(b.in_offsets.iter().skip(1))
            .all(|(c, e)| c == e);
    if b.stray > 0 || !filled {
        return Err(format!(
            "trustee {} received {} entries for rows it does not have and {} rows not filled: the ranks disagree about the graph",
            s.shard().trustee(),
            b.stray,
            unfilled
        ));
    }
    let (p, t) = (*s.shard().partition(), s.shard().trustee());
    let shard = if weighted {
        Shard::from_parts(p, t, b.offsets, b.targets, b.weights)
    } else {
        Shard::from_parts(p, t, b.offsets, b.targets, Vec::new())
            .without_weights()
            .with_row_slots(b.slots)
    };
    s.replace_shard(if directed {
        let n = shard.num_local_vertices() as usize;
        // A trustee that received no in-edge never allocated the index.
        let offsets = if b.in_offsets.is_empty() {
            vec![0; n + 1]
        } else {
            b.in_offsets
        };
        shard.with_in_edges(offsets, b.in_sources)
    } else {
        shard
    });
    Ok(())
}

/// Stores the rows of `b` (degrees at `offsets[l + 1]`) in the kernels'
/// position order ([`crate::csr::positions`]: by decreasing degree, ties by
/// local index, when the degrees are skewed; local order otherwise):
/// `slots[l]` the stored row of local vertex `l`, `offsets` over the stored
/// rows, `cursor[l]` and `end[l]` the start and end of `l`'s row. Returns
/// the number of entries.
fn lay_out_by_degree(b: &mut Building) -> Result<usize, crate::alloc::OutOfMemory> {
    let n = b.offsets.len() - 1;
    b.slots = crate::csr::positions(n as u32, |l| b.offsets[l as usize + 1]);
    let mut offsets = try_vec(n + 1, 0u64, "CSR offsets")?;
    for (l, &slot) in b.slots.iter().enumerate() {
        offsets[slot as usize + 1] = b.offsets[l + 1];
    }
    for k in 0..n {
        offsets[k + 1] += offsets[k];
    }
    b.offsets = offsets;
    b.cursor = try_vec(n, 0u64, "CSR cursors")?;
    b.end = try_vec(n, 0u64, "row ends")?;
    for (l, &slot) in b.slots.iter().enumerate() {
        b.cursor[l] = b.offsets[slot as usize];
        b.end[l] = b.offsets[slot as usize + 1];
    }
    Ok(b.offsets[n] as usize)
}

/// Calls `f(index, edge)` for every edge of `range`, read in chunks, each
/// counted as done in `step` ([`progress`]); with `keep = Some((kept,
/// limit))` the first edges are also appended to `kept` until it holds
/// `limit`.
fn for_each_edge<S: EdgeSource>(
    source: &S,
    reader: &S::Reader,
    range: Range<u64>,
    chunk: &mut [PackedEdge],
    read_s: &mut f64,
    (step, mut keep): (BuildStep, Option<(&mut Vec<PackedEdge>, usize)>),
    mut f: impl FnMut(u64, PackedEdge),
) {
    let mut at = range.start;
    while at < range.end {
        let len = (range.end - at).min(chunk.len() as u64) as usize;
        let started = Instant::now();
        source.read(reader, at, &mut chunk[..len]);
        *read_s += started.elapsed().as_secs_f64();
        if let Some((k, limit)) = keep.as_mut() {
            let room = limit.saturating_sub(k.len()).min(len);
            k.extend_from_slice(&chunk[..room]);
        }
        source.release(reader, at..at + len as u64);
        for (k, &e) in chunk[..len].iter().enumerate() {
            f(at + k as u64, e);
        }
        progress::add(step, len as u64);
        at += len as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    use crate::construct::source::{LocalSource, Unweighted};
    use crate::csr::build_rank;
    use crate::edge_list::EdgeList;

    /// A small random multigraph with self-loops, duplicates and isolated vertices.
    fn random_list(n: u32, m: usize, seed: u64) -> EdgeList<'static> {
        let mut x = seed | 1;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let edges = (0..m)
            .map(|_| {
                let u = (next() % u64::from(n)) as u32;
                let v = if next() % 10 == 0 {
                    u
                } else {
                    (next() % u64::from(n - n / 5)) as u32
                };
                PackedEdge::new(u, v, (next() % 1000) as f32 / 1000.0)
            })
            .collect();
        EdgeList::from_edges(u64::from(n), edges).unwrap()
    }

    /// Rows as sorted (target, weight) lists, by global vertex.
    fn canonical(shards: impl IntoIterator<Item = Shard>, n: u64) -> Vec<Vec<(u32, u32)>> {
        let mut rows = vec![Vec::new(); n as usize];
        for sh in shards {
            for l in 0..sh.num_local_vertices() {
                let mut r: Vec<(u32, u32)> =
                    sh.neighbors(l).map(|(v, w)| (v, w.to_bits())).collect();
                r.sort_unstable();
                rows[sh.global_id(l) as usize] = r;
            }
        }
        rows
    }

    #[test]
    fn distributed_build_gives_the_shards_of_the_local_build() {
        for threads in 1..=4 {
            for kind in [PartitionKind::Block, PartitionKind::Cyclic] {
                let list = random_list(300, 5000, 7 + threads as u64);
                let p = Partition::new(kind, 300, 1, threads as u32).unwrap();
                let want = canonical(build_rank(&list, &p, 0).unwrap(), 300);
                let source = LocalSource::publish_list(list);
                let got = gossamer::main(threads, move || {
                    let (g, _) = ShardedGraph::build_from(source, kind).unwrap();
                    assert_eq!(g.num_edges_input(), 5000);
                    let shards =
                        g.on_trustees(|ctx| ctx.local.apply_returning(|s| s.shard().clone()));
                    shards
                });
                source.withdraw();
                assert_eq!(canonical(got, 300), want, "{threads} threads, {kind:?}");
            }
        }
    }

    #[test]
    fn an_unweighted_build_keeps_no_weights() {
        for (threads, directed) in [(1, false), (3, false), (2, true)] {
            let list = random_list(300, 5000, 3 + threads as u64);
            let source = LocalSource::publish_list(list).with_direction(directed);
            let (weighted, unweighted) = gossamer::main(threads, move || {
                let shards = |g: ShardedGraph| {
                    g.on_trustees(|ctx| ctx.local.apply_returning(|s| s.shard().clone()))
                };
                let (w, _) = ShardedGraph::build_from(source, PartitionKind::Block).unwrap();
                let (u, _) =
                    ShardedGraph::build_from(Unweighted(source), PartitionKind::Block).unwrap();
                assert!(w.is_weighted() && !u.is_weighted());
                (shards(w), shards(u))
            });
            source.withdraw();
            for (w, u) in weighted.iter().zip(&unweighted) {
                assert!(w.is_weighted() && !u.is_weighted());
                // Weighted rows by local index; unweighted ones stored in
                // the kernels' position order (here a uniform random graph,
                // without hubs: local order; see csr::positions).
                assert!(w.row_slots().is_empty());
                let slots = u.row_slots();
                let mut by_slot = vec![u32::MAX; slots.len()];
                for (l, &s) in slots.iter().enumerate() {
                    assert_eq!(by_slot[s as usize], u32::MAX, "a permutation");
                    by_slot[s as usize] = l as u32;
                }
                let want = crate::csr::positions(slots.len() as u32, |l| u.degree(u64::from(l)));
                assert_eq!(slots, &want[..]);
                for (l, &s) in slots.iter().enumerate() {
                    let stored = u.offsets()[s as usize + 1] - u.offsets()[s as usize];
                    assert_eq!(stored, w.degree(l as u64));
                }
                assert_eq!(w.weights().len(), w.targets().len());
                // No weight array at all: 4 B per entry less (and 4 B per
                // vertex more, the slots).
                assert!(u.weights().is_empty());
                let (entries, n) = (u.num_entries(), u.num_local_vertices());
                assert_eq!(w.heap_bytes() + 4 * n - u.heap_bytes(), 4 * entries);
                for l in 0..u.num_local_vertices() {
                    assert!(u.adjacency(l).1.is_empty());
                    // The same entries, each read as weight 1.0.
                    let mut a: Vec<u32> = w.neighbors(l).map(|(v, _)| v).collect();
                    let mut b: Vec<u32> = u.neighbors(l).map(|(v, _)| v).collect();
                    a.sort_unstable();
                    b.sort_unstable();
                    assert_eq!(a, b);
                    assert!(u.neighbors(l).all(|(_, x)| x == 1.0));
                }
                // Rows without weights cannot be rewritten with them.
                let mut u = u.clone();
                let names: Arc<[u32]> = Arc::from(vec![0; 300]);
                assert!(!u.rewrite_rows(names, |_, _, _| unreachable!()));
            }
        }
    }

    /// In-neighbour lists, sorted, by global vertex.
    fn in_rows(shards: &[Shard], n: u64) -> Vec<Vec<u32>> {
        let mut rows = vec![Vec::new(); n as usize];
        for sh in shards {
            for l in 0..sh.num_local_vertices() {
                let mut r = sh.in_neighbors(l).to_vec();
                r.sort_unstable();
                rows[sh.global_id(l) as usize] = r;
            }
        }
        rows
    }

    #[test]
    fn directed_build_keeps_arcs_at_their_tails() {
        for threads in 1..=3 {
            for kind in [PartitionKind::Block, PartitionKind::Cyclic] {
                let list = random_list(200, 3000, 11 + threads as u64);
                // The reference: each arc's tail lists its head, its head lists the tail.
                let mut out_want = vec![Vec::new(); 200];
                let mut in_want = vec![Vec::new(); 200];
                for e in list.edges().iter().filter(|e| e.u != e.v) {
                    out_want[e.u as usize].push((e.v, e.w.to_bits()));
                    in_want[e.v as usize].push(e.u);
                }
                out_want.iter_mut().for_each(|r| r.sort_unstable());
                in_want.iter_mut().for_each(|r| r.sort_unstable());
                let p = Partition::new(kind, 200, 1, threads as u32).unwrap();
                let local = crate::csr::build_rank_with(&list, &p, 0, true).unwrap();
                assert!(local.iter().all(Shard::is_directed));
                assert_eq!(canonical(local.clone(), 200), out_want);
                assert_eq!(in_rows(&local, 200), in_want);
                let source = LocalSource::publish_list(list).with_direction(true);
                let got = gossamer::main(threads, move || {
                    let (g, _) = ShardedGraph::build_from(source, kind).unwrap();
                    assert!(g.is_directed());
                    g.on_trustees(|ctx| ctx.local.apply_returning(|s| s.shard().clone()))
                });
                source.withdraw();
                assert!(got.iter().all(Shard::is_directed));
                assert_eq!(in_rows(&got, 200), in_want, "{threads} threads, {kind:?}");
                assert_eq!(canonical(got, 200), out_want, "{threads} threads, {kind:?}");
            }
        }
    }

    #[test]
    fn a_bad_source_fails_the_build_everywhere() {
        #[derive(Clone, Serialize, Deserialize)]
        struct OutOfRange;
        impl EdgeSource for OutOfRange {
            type Reader = ();
            fn num_vertices(&self) -> u64 {
                10
            }
            fn num_edges(&self) -> u64 {
                100
            }
            fn open(&self) -> Result<(), String> {
                Ok(())
            }
            fn read(&self, _: &(), start: u64, out: &mut [PackedEdge]) {
                for (k, e) in out.iter_mut().enumerate() {
                    let i = (start + k as u64) as u32;
                    *e = PackedEdge::new(i % 10, if i == 77 { 10 } else { (i + 1) % 10 }, 1.0);
                }
            }
        }
        let e = gossamer::main(3, || {
            ShardedGraph::build_from(OutOfRange, PartitionKind::Block).unwrap_err()
        });
        assert_eq!(
            e.to_string(),
            "edge 77 (7, 10) names a vertex outside the graph's 10 vertices"
        );
        let e = gossamer::main(2, || {
            ShardedGraph::build_from(
                LocalSource {
                    id: u64::MAX,
                    vertices: 1,
                    edges: 1,
                    directed: false,
                    fingerprint: 0,
                    needs_check: false,
                    unit_weights: false,
                },
                PartitionKind::Block,
            )
            .unwrap_err()
        });
        assert!(
            e.to_string().contains("was not published in this process"),
            "{e}"
        );
    }

    /// The rows (as [`canonical`]) of the graph `source` builds on
    /// `threads` workers, or its error.
    fn build(source: LocalSource, threads: usize) -> Result<Vec<Vec<(u32, u32)>>, String> {
        let got = gossamer::main(threads, move || {
            ShardedGraph::build_from(source, PartitionKind::Block)
                .map(|(g, _)| g.on_trustees(|ctx| ctx.local.apply_returning(|s| s.shard().clone())))
        });
        source.withdraw();
        got.map(|shards| canonical(shards, source.vertices))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn a_graph_file_opened_in_slices_is_checked_by_the_trustees_before_it_is_built() {
        let dir = std::env::temp_dir().join(format!("gc-slices-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // 120 000 records: 1.4 MB, two checksum chunks.
        let list = random_list(3000, 120_000, 5);
        let path = dir.join("g");
        crate::io::file::write(&path, &list).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let in_slices = |p: &std::path::Path| {
            let g = crate::io::file::open_in_slices(p).unwrap();
            assert!(!g.is_verified());
            LocalSource::publish(Arc::new(g))
        };
        let p = Partition::new(PartitionKind::Block, 3000, 1, 1).unwrap();
        let want = canonical(build_rank(&list, &p, 0).unwrap(), 3000);
        for threads in [1, 3] {
            assert_eq!(build(in_slices(&path), threads).unwrap(), want);
        }
        // Every weight read as 1.0.
        let unit = build(in_slices(&path).with_unit_weights(), 2).unwrap();
        let one = 1f32.to_bits();
        assert!(unit.iter().flatten().all(|&(_, w)| w == one));
        assert_eq!(
            unit.iter().map(Vec::len).collect::<Vec<_>>(),
            want.iter().map(Vec::len).collect::<Vec<_>>()
        );

        // A flipped bit, in either chunk: the file is corrupt, whichever
        // trustee read it.
        for at in [1024 + 12 * 100 + 2, bytes.len() - 5] {
            let mut bad = bytes.clone();
            bad[at] ^= 0x10;
            let path = dir.join("bad");
            std::fs::write(&path, &bad).unwrap();
            for threads in [1, 2, 3] {
                let e = build(in_slices(&path), threads).unwrap_err();
                assert!(e.contains("the graph file's edge data is corrupt"), "{e}");
            }
        }

        // A whole file with a bad weight (both checksums right).
        let mut bad = bytes.clone();
        let at = 1024 + 12 * 90_000 + 8;
        bad[at..at + 4].copy_from_slice(&(-2.5f32).to_le_bytes());
        let sum = crate::io::file::checksum64(&bad[1024..]);
        bad[72..80].copy_from_slice(&sum.to_le_bytes());
        let head = crate::io::file::checksum64(&bad[..1016]);
        bad[1016..1024].copy_from_slice(&head.to_le_bytes());
        let path = dir.join("weight");
        std::fs::write(&path, &bad).unwrap();
        let e = build(in_slices(&path), 3).unwrap_err();
        assert!(e.contains("edge 90000 has weight -2.5"), "{e}");

        // Ranks holding different files of the same size.
        let other = random_list(3000, 120_000, 6);
        let path2 = dir.join("other");
        crate::io::file::write(&path2, &other).unwrap();
        let mine = in_slices(&path);
        let builders = LocalSource {
            fingerprint: crate::io::file::open_header(&path2)
                .unwrap()
                .0
                .data_checksum,
            ..mine
        };
        let e = build(builders, 2).unwrap_err();
        mine.withdraw();
        assert!(e.contains("the ranks read different graph files"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
