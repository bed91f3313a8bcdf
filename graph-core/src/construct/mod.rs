//! Distributed construction: every trustee reads its own slice of the edge
//! stream and sends each adjacency entry once, in bulk, to the trustee that
//! owns it, so no process ever holds the whole edge list.
//!
//! [`ShardedGraph::build_from`] takes an [`EdgeSource`]: something every
//! trustee can open in its own process and read any range of (the Graph500
//! generator, a graph file on a shared filesystem, a list every process
//! holds). Trustee `t` of `W` reads edges `t*M/W .. (t+1)*M/W` of the `M`
//! input edges; the source decides what the edge at an index is, so the
//! graph is the same for any number of ranks and threads.
//!
//! Two passes over the slice, so that every array is allocated once, at its
//! final size, and nothing grows by doubling. A mapped or in-memory slice is
//! read again; a generated one is generated again, except the part the
//! first pass kept for the second (12 B per edge until the shards are
//! built) when the source says so ([`EdgeSource::kept_permille`]): what is
//! kept saves its generation time, but once the kernels no longer copy the
//! rows the kept part adds to the rank's construction peak, so the
//! commands keep only as much as stays under the rank's later peak
//! (`graph_core::memory::MemoryEstimate::kept_permille`).
//!
//! 0. **check** (only a source that asks, [`EdgeSource::checks_slices`]: a
//!    graph file opened without reading it, `file::open_in_slices`): every
//!    trustee checks its slice's ids and weights and hashes the chunks of
//!    the file's data checksum that start in it; the builder folds the
//!    digests and compares them with the header, so a corrupt file is
//!    refused before anything is built, and no process reads more than
//!    its slices;
//! 1. **count**: each non-loop edge `(u, v)` sends `u`'s local index to
//!    `u`'s owner and `v`'s to `v`'s; owners count degrees;
//! 2. **fill**: after a prefix sum every owner allocates its rows exactly;
//!    the slice is read again and each edge sends `(local u, v, w)` to
//!    `u`'s owner and `(local v, u, w)` to `v`'s, written at a cursor.
//!
//! A **directed** source ([`EdgeSource::directed`]) reads each record as
//! the arc `u -> v`: the same two passes send `(local u, v, w)` to `u`'s
//! owner as a row entry (an out-edge) and `(local v, u)` to `v`'s owner as
//! an entry of its in-edge index, so each row holds its vertex's
//! out-edges only and [`Shard::in_neighbors`] the tails of its in-arcs
//! (see `csr.rs`). The same messages travel as for an undirected graph.
//!
//! Records travel as POD slices in slot-sized pieces
//! ([`Trust::apply_slice_chunked_then`](gossamer::Trust::apply_slice_chunked_then)),
//! pipelined, with no round trip per piece; a sender that runs ahead of a
//! busy owner waits (gossamer's backpressure), so the queues stay a few
//! slots deep. Entries arrive in no fixed order, so the order *within* a row
//! depends on timing: the kernels renumber and sort every row anyway
//! (graph-kernel's adjacency) and the validators do not depend on it, so
//! the rows are not sorted here (measured: sorting cost 0.5 s of CPU at
//! SCALE 20).
//!
//! Peak memory per trustee: its shard (8 bytes per entry, 16 per owned
//! non-loop edge), its offsets and cursors (16 bytes per owned vertex), a
//! few MiB of send buffers and read chunks, and the kept part of a
//! generated slice (12 bytes per kept edge). A graph file opened in
//! slices gives its pages back as each read chunk is done with
//! ([`EdgeSource::release`]), so they do not stay in the resident set (a
//! file opened whole stays mapped for the commands that read it whole).
//!
//! ```
//! use graph_core::construct::LocalSource;
//! use graph_core::sharded::ShardedGraph;
//! use graph_core::{EdgeList, PackedEdge, PartitionKind};
//! let list = EdgeList::from_edges(4, vec![
//!     PackedEdge::new(0, 1, 0.5),
//!     PackedEdge::new(2, 1, 0.25),
//!     PackedEdge::new(3, 3, 1.0), // self-loop: not in the shards
//! ]).unwrap();
//! let source = LocalSource::publish_list(list);
//! let degrees = gossamer::main(2, move || {
//!     let (g, _) = ShardedGraph::build_from(source, PartitionKind::Cyclic).unwrap();
//!     g.gather(0u64, |s| {
//!         let sh = s.shard();
//!         (0..sh.num_local_vertices()).map(|l| sh.degree(l)).collect()
//!     })
//! });
//! assert_eq!(degrees, [1, 2, 1, 0]);
//! ```

use std::ops::Range;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use gossamer::{Op, Trust, WorkerId};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::alloc::{try_reserve, try_vec};
use crate::csr::{huge_pages, prefetch, Shard};
use crate::edge_list::{EdgeList, PackedEdge};
use crate::io::file::MappedGraph;
use crate::partition::{Partition, PartitionKind};
use crate::sharded::{in_fiber, KernelError, ShardedGraph, TrusteeCtx, TrusteeState};

mod prepared;

/// How many records ahead the owner's loops prefetch.
const AHEAD: usize = 16;

/// Edges read from the source at a time, per trustee.
const READ_CHUNK: usize = 1 << 14;

/// Most records queued for one destination before they are sent (a few
/// slots' worth: large enough to fill slots, small enough to stay in cache).
const MAX_SEND_BATCH: usize = 1 << 13;

/// Fewest records queued per destination, however many trustees.
const MIN_SEND_BATCH: usize = 1 << 8;

/// What one trustee's send buffers may hold in all: with many trustees
/// each destination gets a smaller batch, so the buffers stay bounded.
const SEND_BUDGET: usize = 4 << 20;

/// Records queued per destination with `trustees` destinations.
fn send_batch(trustees: u64) -> usize {
    let per = SEND_BUDGET / (std::mem::size_of::<Entry>() * trustees.max(1) as usize);
    per.clamp(MIN_SEND_BATCH, MAX_SEND_BATCH)
}

/// Scratch one trustee uses during a build with `trustees` trustees in
/// all: its send buffers at their largest and its read chunk (for the
/// memory model).
pub fn scratch_bytes_per_trustee(trustees: u64) -> u64 {
    let bufs = send_batch(trustees) * std::mem::size_of::<Entry>() * trustees.max(1) as usize;
    (bufs + READ_CHUNK * PackedEdge::BYTES) as u64
}

/// Where a distributed build reads its edges. Cloned (and serialized, for
/// trustees in other processes) to every trustee, which opens it in its own
/// process and reads its slice.
pub trait EdgeSource: Clone + Send + Sync + Serialize + DeserializeOwned + 'static {
    /// The source opened in one process (a generator, a mapping).
    type Reader;
    /// Vertex count.
    fn num_vertices(&self) -> u64;
    /// Input edge records (self-loops and duplicates included).
    fn num_edges(&self) -> u64;
    /// Opens the source in this process; the message says what failed.
    fn open(&self) -> Result<Self::Reader, String>;
    /// Writes edges `start .. start + out.len()` into `out`.
    fn read(&self, reader: &Self::Reader, start: u64, out: &mut [PackedEdge]);
    /// Whether each record is an arc `u -> v` (then the shards hold
    /// out-edges in their rows and an in-edge index, see
    /// [`Shard::is_directed`]) rather than an undirected edge. Default:
    /// undirected (the Graph500 generator's records).
    fn directed(&self) -> bool {
        false
    }
    /// Thousandths of its slice a trustee keeps from the first pass for
    /// the second (12 B per kept edge, until the shards are built); the
    /// rest the second pass reads again. Keeping saves reading (for a
    /// generator: generating) it twice; a mapping or a list in memory
    /// reads again for free and keeps nothing. `on_rank_0`: the trustee
    /// runs in rank 0's process. Default: keep all (1000).
    fn kept_permille(&self, on_rank_0: bool) -> u32 {
        let _ = on_rank_0;
        1000
    }
    /// Whether the records must be checked before the build reads them: a
    /// graph file each process opened without reading. Then every trustee
    /// hashes ([`slice_digests`](Self::slice_digests)) and checks
    /// ([`check_slice`](Self::check_slice)) its slice, and the builder
    /// checks the digests ([`check_digests`](Self::check_digests)) before
    /// it reports a bad record: a corrupt file is called corrupt. Default: no.
    fn checks_slices(&self) -> bool {
        false
    }
    /// Digests of the part of a checksum that starts in edges `slice`.
    fn slice_digests(&self, reader: &Self::Reader, slice: Range<u64>) -> Vec<u64> {
        let _ = (reader, slice);
        Vec::new()
    }
    /// Checks the records of edges `slice` (ids, weights).
    fn check_slice(&self, reader: &Self::Reader, slice: Range<u64>) -> Result<(), String> {
        let _ = (reader, slice);
        Ok(())
    }
    /// Says that edges `range` were read and are not needed until read
    /// again (a mapped file gives their pages back). Default: nothing.
    fn release(&self, reader: &Self::Reader, range: Range<u64>) {
        let _ = (reader, range);
    }
    /// On the builder: every trustee's digests, in trustee order (which is
    /// record order); an error if they do not add up to the source's.
    fn check_digests(&self, reader: &Self::Reader, digests: &[u64]) -> Result<(), String> {
        let _ = (reader, digests);
        Ok(())
    }
}

/// Time a trustee spent on its part of a build.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BuildTimes {
    /// Seconds reading (generating) edges, both passes, on the slowest trustee.
    pub read_s: f64,
    /// Seconds of the whole build.
    pub total_s: f64,
}

gossamer::pod_struct! {
    /// One adjacency entry on its way to its owner: the row (local index
    /// there), the neighbour's global id and the weight.
    struct Entry { row: u32, target: u32, weight: f32 }
}

/// A trustee's shard while it is being received.
#[derive(Default)]
struct Building {
    /// Pass 1: degrees at `[l + 1]`; then offsets.
    offsets: Vec<u64>,
    /// Directed graphs: the in-edge index, built like the rows.
    in_offsets: Vec<u64>,
    in_cursor: Vec<u64>,
    in_sources: Vec<u32>,
    /// Pass 2: where the next entry of each row goes.
    cursor: Vec<u64>,
    targets: Vec<u32>,
    weights: Vec<f32>,
    /// An entry named a row this trustee does not have (never with a sound
    /// source; reported instead of trusted).
    stray: u64,
}

fn building(s: &mut TrusteeState) -> &mut Building {
    s.kernel::<Building>(|_| Building::default()).1
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
        let start = Instant::now();
        let workers = in_fiber("ShardedGraph::build_from")?;
        let n = source.num_vertices();
        if n > u64::from(u32::MAX) + 1 {
            return Err(KernelError::Config(format!(
                "the graph has {n} vertices; vertex ids are 32-bit, so at most 2^32"
            )));
        }
        let partition = Partition::new(kind, n, 1, workers as u32)?;
        let mut graph = ShardedGraph::with_placeholders(partition, source.num_edges());
        graph.set_directed(source.directed());
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

/// The trustees' results, or the message of the first trustee that
/// failed itself (not one that only heard of another's failure).
pub(crate) fn first_failure<T>(outcomes: Vec<Result<T, String>>) -> Result<Vec<T>, KernelError> {
    let mut oks = Vec::with_capacity(outcomes.len());
    let mut echo = None;
    for o in outcomes {
        match o {
            Ok(x) => oks.push(x),
            Err(m) if m.starts_with(ANOTHER) => echo = echo.or(Some(m)),
            Err(m) => return Err(KernelError::Runtime(m)),
        }
    }
    match echo {
        Some(m) => Err(KernelError::Runtime(m)),
        None => Ok(oks),
    }
}

/// An empty shard of the right shape, until the build installs the real one.
fn placeholder(p: Partition, t: u32) -> Shard {
    let n = p.local_count(t) as usize;
    Shard::from_parts(p, t, vec![0; n + 1], Vec::new(), Vec::new())
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
    let mut out: Vec<Vec<u32>> = vec![Vec::new(); w as usize];
    let mut out_in: Vec<Vec<u32>> = vec![Vec::new(); if directed { w as usize } else { 0 }];
    for_each_edge(
        &source,
        &reader,
        slice.clone(),
        &mut chunk,
        &mut read_s,
        Some((&mut kept, kept_len)),
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
    let allocated = ctx.local.apply_returning(move |s| {
        let n = s.shard().num_local_vertices() as usize;
        let b = building(s);
        if b.offsets.is_empty() {
            b.offsets = try_vec(n + 1, 0u64, "CSR offsets").map_err(|e| e.to_string())?;
        }
        let mut acc = 0;
        for d in b.offsets.iter_mut() {
            acc += *d;
            *d = acc;
        }
        let entries = acc as usize;
        b.cursor = try_vec(b.offsets.len().saturating_sub(1), 0u64, "CSR cursors")
            .map_err(|e| e.to_string())?;
        b.cursor.copy_from_slice(&b.offsets[..b.offsets.len() - 1]);
        // Zeroed allocations stay untouched until written; the writes land
        // at random, so huge pages save most TLB misses (see csr.rs).
        b.targets = try_vec(entries, 0u32, "CSR targets").map_err(|e| e.to_string())?;
        b.weights = try_vec(entries, 0f32, "CSR weights").map_err(|e| e.to_string())?;
        huge_pages::advise(&mut b.targets);
        huge_pages::advise(&mut b.weights);
        if directed {
            if b.in_offsets.is_empty() {
                b.in_offsets =
                    try_vec(n + 1, 0u64, "in-edge offsets").map_err(|e| e.to_string())?;
            }
            let mut acc = 0;
            for d in b.in_offsets.iter_mut() {
                acc += *d;
                *d = acc;
            }
            b.in_cursor = try_vec(n, 0u64, "in-edge cursors").map_err(|e| e.to_string())?;
            b.in_cursor.copy_from_slice(&b.in_offsets[..n]);
            b.in_sources =
                try_vec(acc as usize, 0u32, "in-edge sources").map_err(|e| e.to_string())?;
        }
        Ok::<(), String>(())
    });
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
    std::mem::take(&mut kept).into_iter().for_each(&mut place);
    for_each_edge(
        &source,
        &reader,
        reread,
        &mut chunk,
        &mut read_s,
        None,
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
    let finished = ctx.local.apply_returning(move |s| {
        let b = std::mem::take(building(s));
        s.drop_kernel::<Building>();
        let filled = b.cursor.iter().zip(b.offsets.iter().skip(1)).all(|(c, e)| c == e)
            && b.in_cursor.iter().zip(b.in_offsets.iter().skip(1)).all(|(c, e)| c == e);
        if b.stray > 0 || !filled {
            return Err(format!(
                "trustee {} received {} entries for rows it does not have and {} rows not filled: the ranks disagree about the graph",
                s.shard().trustee(),
                b.stray,
                b.cursor.iter().zip(b.offsets.iter().skip(1)).filter(|(c, e)| c != e).count()
            ));
        }
        let (p, t) = (*s.shard().partition(), s.shard().trustee());
        let shard = Shard::from_parts(p, t, b.offsets, b.targets, b.weights);
        s.replace_shard(if directed {
            let n = shard.num_local_vertices() as usize;
            // A trustee that received no in-edge never allocated the index.
            let offsets = if b.in_offsets.is_empty() { vec![0; n + 1] } else { b.in_offsets };
            shard.with_in_edges(offsets, b.in_sources)
        } else {
            shard
        });
        Ok(())
    });
    agree(&mut ctx, finished.err(), "finish the shards")?;
    Ok(read_s)
}

/// How a trustee that did not fail reports a step that failed elsewhere.
pub(crate) const ANOTHER: &str = "another trustee";

/// An all-reduce of "did this step fail here?": every trustee learns
/// whether any failed; the first to fail keeps its own message.
pub(crate) fn agree(
    ctx: &mut TrusteeCtx,
    failed: Option<String>,
    step: &str,
) -> Result<(), String> {
    let [any] = ctx
        .party
        .all_reduce([u64::from(failed.is_some())], [Op::Or]);
    match (failed, any) {
        (Some(m), _) => Err(m),
        (None, 0) => Ok(()),
        (None, _) => Err(format!("{ANOTHER} could not {step}")),
    }
}

/// Calls `f(index, edge)` for every edge of `range`, read in chunks; with
/// `keep = Some((kept, limit))` the first edges are also appended to
/// `kept` until it holds `limit`.
fn for_each_edge<S: EdgeSource>(
    source: &S,
    reader: &S::Reader,
    range: Range<u64>,
    chunk: &mut [PackedEdge],
    read_s: &mut f64,
    mut keep: Option<(&mut Vec<PackedEdge>, usize)>,
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
        at += len as u64;
    }
}

/// Sends `buf` to `peer` (pipelined, slot-sized pieces) and empties it.
/// `deliver` is a function item (zero-sized), never a function pointer: a
/// pointer would not mean the same code in another process.
fn send<R: gossamer::Pod, F>(peer: &Trust<TrusteeState>, buf: &mut Vec<R>, deliver: F)
where
    F: FnOnce(&mut TrusteeState, &[R]) + gossamer::Delegable,
{
    const { assert!(std::mem::size_of::<F>() == 0) };
    if !buf.is_empty() {
        peer.apply_slice_chunked_then(deliver, buf, |()| {});
        buf.clear();
    }
}

/// Pass 1 on the owner: one more entry for each listed row.
fn count_degrees(s: &mut TrusteeState, rows: &[u32]) {
    let n = s.shard().num_local_vertices() as usize;
    let b = building(s);
    if b.offsets.is_empty() {
        b.offsets = crate::alloc::vec_or_exit(n + 1, 0, "CSR offsets");
    }
    for (i, &l) in rows.iter().enumerate() {
        if let Some(ahead) = rows
            .get(i + AHEAD)
            .and_then(|&a| b.offsets.get(a as usize + 1))
        {
            prefetch::line(ahead);
        }
        match b.offsets.get_mut(l as usize + 1) {
            Some(d) => *d += 1,
            None => b.stray += 1,
        }
    }
}

/// Pass 1 on the owner of a directed graph: one more in-edge for each
/// listed vertex.
fn count_in_degrees(s: &mut TrusteeState, rows: &[u32]) {
    let n = s.shard().num_local_vertices() as usize;
    let b = building(s);
    if b.in_offsets.is_empty() {
        b.in_offsets = crate::alloc::vec_or_exit(n + 1, 0, "in-edge offsets");
    }
    for &l in rows {
        match b.in_offsets.get_mut(l as usize + 1) {
            Some(d) => *d += 1,
            None => b.stray += 1,
        }
    }
}

/// Pass 2 on the owner of a directed graph: each in-edge (the entry's
/// target is the arc's tail; its weight is not kept) at its cursor.
fn place_in_entries(s: &mut TrusteeState, entries: &[Entry]) {
    let b = building(s);
    for e in entries {
        let row = e.row as usize;
        match b.in_cursor.get(row) {
            Some(&c) if c < b.in_offsets[row + 1] => {
                b.in_sources[c as usize] = e.target;
                b.in_cursor[row] = c + 1;
            }
            _ => b.stray += 1,
        }
    }
}

/// Pass 2 on the owner: each entry at its row's cursor.
fn place_entries(s: &mut TrusteeState, entries: &[Entry]) {
    let b = building(s);
    for (i, e) in entries.iter().enumerate() {
        // Two-stage prefetch: the cursor of an entry far ahead, then the
        // target and weight lines of a nearer one (its cursor is in cache).
        if let Some(c) = entries
            .get(i + 2 * AHEAD)
            .and_then(|f| b.cursor.get(f.row as usize))
        {
            prefetch::line(c);
        }
        if let Some(&c) = entries
            .get(i + AHEAD)
            .and_then(|f| b.cursor.get(f.row as usize))
        {
            if let (Some(t), Some(w)) = (b.targets.get(c as usize), b.weights.get(c as usize)) {
                prefetch::line(t);
                prefetch::line(w);
            }
        }
        let row = e.row as usize;
        match b.cursor.get(row) {
            Some(&c) if c < b.offsets[row + 1] => {
                b.targets[c as usize] = e.target;
                b.weights[c as usize] = e.weight;
                b.cursor[row] = c + 1;
            }
            _ => b.stray += 1,
        }
    }
}

/// Edge records a process holds in memory or maps: an owned
/// [`EdgeList`] or a [`MappedGraph`] (a graph file on a filesystem every
/// rank sees).
pub trait EdgeRecords: Send + Sync {
    /// Vertex count.
    fn num_vertices(&self) -> u64;
    /// The records.
    fn records(&self) -> &[PackedEdge];
    /// Whether the records are arcs (see [`EdgeSource::directed`]);
    /// default undirected.
    fn directed(&self) -> bool {
        false
    }
    /// What identifies these records beyond their counts, so that ranks
    /// holding different graphs of the same size are caught (a graph
    /// file's data checksum); default 0 (nothing more).
    fn fingerprint(&self) -> u64 {
        0
    }
    /// Whether the records still need checking, slice by slice
    /// ([`EdgeSource::checks_slices`]); default no (checked on creation).
    fn needs_check(&self) -> bool {
        false
    }
    /// See [`EdgeSource::slice_digests`].
    fn slice_digests(&self, range: Range<u64>) -> Vec<u64> {
        let _ = range;
        Vec::new()
    }
    /// See [`EdgeSource::check_slice`].
    fn check_slice(&self, range: Range<u64>) -> Result<(), String> {
        let _ = range;
        Ok(())
    }
    /// See [`EdgeSource::check_digests`].
    fn check_digests(&self, digests: &[u64]) -> Result<(), String> {
        let _ = digests;
        Ok(())
    }
    /// See [`EdgeSource::release`].
    fn release(&self, range: Range<u64>) {
        let _ = range;
    }
}

impl EdgeRecords for EdgeList<'static> {
    fn num_vertices(&self) -> u64 {
        EdgeList::num_vertices(self)
    }
    fn records(&self) -> &[PackedEdge] {
        self.edges()
    }
}

impl EdgeRecords for MappedGraph {
    fn num_vertices(&self) -> u64 {
        self.header().num_vertices
    }
    fn records(&self) -> &[PackedEdge] {
        self.edges()
    }
    fn directed(&self) -> bool {
        self.meta().directed
    }
    fn fingerprint(&self) -> u64 {
        self.header().data_checksum
    }
    fn needs_check(&self) -> bool {
        !self.is_verified()
    }
    fn slice_digests(&self, range: Range<u64>) -> Vec<u64> {
        MappedGraph::slice_digests(self, range)
    }
    fn check_slice(&self, range: Range<u64>) -> Result<(), String> {
        MappedGraph::check_slice(self, range).map_err(|e| e.to_string())
    }
    fn check_digests(&self, digests: &[u64]) -> Result<(), String> {
        MappedGraph::check_digests(self, digests).map_err(|e| e.to_string())
    }
    fn release(&self, range: Range<u64>) {
        MappedGraph::release(self, range);
    }
}

/// Edges every process of the job holds itself (parsed from a text file
/// by each rank, a graph file each rank mapped, a list a test built), as an
/// [`EdgeSource`]: [`LocalSource::publish`] puts the records in a
/// per-process table, and the source travels as their number there. Each
/// trustee reads only its slice, so a mapped file is paged in piecewise
/// (and, opened with [`crate::io::file::open_in_slices`], checked piecewise).
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct LocalSource {
    id: u64,
    vertices: u64,
    edges: u64,
    directed: bool,
    fingerprint: u64,
    needs_check: bool,
    unit_weights: bool,
}

type Published = Vec<(u64, Arc<dyn EdgeRecords>)>;

static PUBLISHED: Mutex<Published> = Mutex::new(Vec::new());

impl LocalSource {
    /// Puts `records` in this process's table and returns their source.
    /// Every process of a rack job must publish its copy of the same
    /// graph, and the n-th graph published in one process is the n-th in
    /// every other (the CLI publishes one per run, on every rank).
    pub fn publish(records: Arc<dyn EdgeRecords>) -> LocalSource {
        let mut table = PUBLISHED.lock().unwrap_or_else(|e| e.into_inner());
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let source = LocalSource {
            id,
            vertices: records.num_vertices(),
            edges: records.records().len() as u64,
            directed: records.directed(),
            fingerprint: records.fingerprint(),
            needs_check: records.needs_check(),
            unit_weights: false,
        };
        table.push((id, records));
        source
    }

    /// The same records read as arcs (`true`) or undirected edges: for
    /// records that do not know it themselves (an [`EdgeList`] parsed from
    /// a text file, whose [`GraphMeta`](crate::GraphMeta) says).
    pub fn with_direction(self, directed: bool) -> LocalSource {
        LocalSource { directed, ..self }
    }

    /// The same records with every weight read as 1.0 (`--unit-weights`).
    pub fn with_unit_weights(self) -> LocalSource {
        LocalSource {
            unit_weights: true,
            ..self
        }
    }

    /// [`publish`](Self::publish) for an owned list.
    pub fn publish_list(list: EdgeList<'static>) -> LocalSource {
        Self::publish(Arc::new(list))
    }

    /// Drops this process's reference (after the build); later opens fail.
    pub fn withdraw(&self) {
        let mut table = PUBLISHED.lock().unwrap_or_else(|e| e.into_inner());
        table.retain(|(id, _)| *id != self.id);
    }
}

impl EdgeSource for LocalSource {
    type Reader = Arc<dyn EdgeRecords>;

    fn num_vertices(&self) -> u64 {
        self.vertices
    }

    fn num_edges(&self) -> u64 {
        self.edges
    }

    fn open(&self) -> Result<Self::Reader, String> {
        let table = PUBLISHED.lock().unwrap_or_else(|e| e.into_inner());
        let records = table
            .iter()
            .find(|(id, _)| *id == self.id)
            .map(|(_, l)| l.clone())
            .ok_or_else(|| {
                format!(
                    "graph {} was not published in this process (every rank must publish its copy)",
                    self.id
                )
            })?;
        let (n, m) = (records.num_vertices(), records.records().len() as u64);
        if (n, m) != (self.vertices, self.edges) {
            return Err(format!(
                "this process's graph {} has {n} vertices and {m} edges, the builder's has {} and {}: the ranks read different graphs",
                self.id, self.vertices, self.edges
            ));
        }
        if records.fingerprint() != self.fingerprint {
            return Err(format!(
                "this process's graph {} has the same size as the builder's but other records (fingerprint {:#018x}, the builder's {:#018x}): the ranks read different graph files",
                self.id,
                records.fingerprint(),
                self.fingerprint
            ));
        }
        Ok(records)
    }

    fn read(&self, reader: &Self::Reader, start: u64, out: &mut [PackedEdge]) {
        let s = start as usize;
        out.copy_from_slice(&reader.records()[s..s + out.len()]);
        if self.unit_weights {
            out.iter_mut().for_each(|e| e.w = 1.0);
        }
    }

    fn checks_slices(&self) -> bool {
        self.needs_check
    }

    fn slice_digests(&self, reader: &Self::Reader, slice: Range<u64>) -> Vec<u64> {
        reader.slice_digests(slice)
    }

    fn check_slice(&self, reader: &Self::Reader, slice: Range<u64>) -> Result<(), String> {
        reader.check_slice(slice)
    }

    fn check_digests(&self, reader: &Self::Reader, digests: &[u64]) -> Result<(), String> {
        reader.check_digests(digests)
    }

    fn release(&self, reader: &Self::Reader, range: Range<u64>) {
        reader.release(range);
    }

    fn kept_permille(&self, _: bool) -> u32 {
        0
    }

    fn directed(&self) -> bool {
        self.directed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csr::build_rank;

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
