//! Opening a built graph file ([`open`](fn@open)): the header, the length,
//! the digest section and the id table are checked at once; a trustee's
//! rows are checked (their chunks' digests, their neighbour ids) when it
//! takes them ([`BuiltGraph::shard`]); [`BuiltGraph::verify`] checks the
//! whole file.

use std::io;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::error::{BuiltError, Problem};
use super::header::{parse_header, BuiltHeader, Section, CHUNK, HEADER_LEN};
use crate::csr::{Array, Shard};
use crate::edge_list::{EdgeList, PackedEdge};
use crate::io::file::{checksum64, chunk_digest, open_regular, OpenRegular};
use crate::mapped::{self, MappedSlice, Plain};
use crate::meta::{GraphMeta, IdMap};
use crate::partition::{Partition, PartitionKind};

/// Which weights a trustee's shard gets from a built file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Weights {
    /// None: an [unweighted](Shard::is_weighted) shard, for kernels that
    /// never read them (the weight section is not touched).
    Skip,
    /// The file's weights, viewed in place (1.0 each when the file has none).
    Stored,
    /// Every weight 1.0 (`--unit-weights`), whatever the file holds.
    Unit,
}

/// A built graph file, mapped (pages are read as they are touched).
///
/// The file must not be modified while it is open (files are written to a
/// temporary name and renamed into place, which is safe).
pub struct BuiltGraph {
    path: PathBuf,
    header: BuiltHeader,
    meta: GraphMeta,
    map: Arc<memmap2::Mmap>,
    /// The digest of every checksum chunk of every section.
    digests: Vec<u64>,
    /// Which chunks were checked in this process already.
    checked: Vec<AtomicBool>,
}

impl std::fmt::Debug for BuiltGraph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BuiltGraph")
            .field("path", &self.path)
            .field("header", &self.header)
            .finish_non_exhaustive()
    }
}

/// Opens and maps the built graph file at `path`, checking its header, its
/// length, its digest section and its id table; the rows are checked by
/// whoever reads them ([`BuiltGraph::shard`], [`BuiltGraph::verify`]).
pub fn open(path: impl AsRef<Path>) -> Result<BuiltGraph, BuiltError> {
    let path = path.as_ref();
    let err = |problem| BuiltError {
        path: path.to_path_buf(),
        problem,
    };
    let io_err = |action: &'static str| {
        move |e: io::Error| {
            err(if e.kind() == io::ErrorKind::NotFound {
                Problem::NotFound
            } else {
                Problem::Io(action, e)
            })
        }
    };
    let (file, actual) = open_regular(path).map_err(|e| match e {
        OpenRegular::Io(action, e) => io_err(action)(e),
        OpenRegular::NotRegular(kind) => err(Problem::NotARegularFile(kind)),
    })?;
    if actual < HEADER_LEN as u64 {
        let mut bytes = Vec::new();
        io::Read::read_to_end(&mut io::Read::take(&file, HEADER_LEN as u64), &mut bytes)
            .map_err(io_err("read"))?;
        parse_header(&bytes).map_err(err)?;
        return Err(err(Problem::TruncatedHeader(actual)));
    }
    let map = Arc::new(mapped::map_file(&file, false).map_err(io_err("map"))?);
    let header = parse_header(&map).map_err(err)?;
    let expected = header.file_len();
    if actual < expected {
        return Err(err(Problem::Truncated { expected, actual }));
    }
    if actual > expected {
        return Err(err(Problem::SizeMismatch { expected, actual }));
    }
    let whole = |s: Section| -> Result<&[u8], BuiltError> {
        let r = &header.sections[s as usize];
        let bytes = &map[r.start as usize..r.end as usize];
        if checksum64(bytes) != header.sums[s as usize] {
            return Err(err(Problem::CorruptSection(s.name())));
        }
        Ok(bytes)
    };
    let digests: Vec<u64> = decode(whole(Section::Digests)?);
    let ids = if header.has_id_table() {
        let table: Vec<u64> = decode(whole(Section::Ids)?);
        let ids = IdMap::Table(table);
        ids.check(header.num_vertices)
            .map_err(|e| err(Problem::BadSection(e)))?;
        ids
    } else {
        IdMap::Offset(header.id_base)
    };
    let checked = (0..digests.len()).map(|_| AtomicBool::new(false)).collect();
    Ok(BuiltGraph {
        path: path.to_path_buf(),
        meta: GraphMeta {
            directed: header.directed,
            weighted: header.weighted,
            ids,
        },
        header,
        map,
        digests,
        checked,
    })
}

/// Little-endian values from `bytes` (a whole number of them).
fn decode<T: Plain>(bytes: &[u8]) -> Vec<T> {
    bytes
        .chunks_exact(std::mem::size_of::<T>())
        .map(T::get_le)
        .collect()
}

/// Bytes of a shard's neighbour ids checked before their pages are given
/// back ([`BuiltGraph::shard`]).
pub(super) const RELEASE_PIECE: usize = 2 << 20;

impl BuiltGraph {
    /// The decoded header.
    pub fn header(&self) -> &BuiltHeader {
        &self.header
    }

    /// Directed or not, weighted or not, and the input file's ids.
    pub fn meta(&self) -> &GraphMeta {
        &self.meta
    }

    /// Stored search roots (possibly empty).
    pub fn roots(&self) -> &[u64] {
        &self.header.roots
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The header's checksum: what names this file's content (a ready-rows
    /// file records it, [`super::ReadyRows`]).
    pub fn header_checksum(&self) -> u64 {
        crate::io::le::u64_at(&self.map, super::header::OFF_HEADER_SUM)
    }

    /// Trustee `t`'s row offsets under the block partition `partition`
    /// (rebased to 0, checked) and where its entries are in the file.
    pub(crate) fn block_offsets(
        &self,
        partition: &Partition,
        t: u32,
    ) -> Result<(Array<u64>, Range<u64>), BuiltError> {
        let rotate = (u64::from(t), u64::from(partition.num_trustees()));
        let rows = Rows::of(
            self,
            partition,
            t,
            Section::Offsets,
            self.header.entries,
            rotate,
        )?;
        match rows.span {
            Ok(r) => Ok((rows.offsets, r)),
            Err(_) => Err(self.err(Problem::BadSection(
                "asked for a block trustee's offsets of another partition".into(),
            ))),
        }
    }

    pub(super) fn err(&self, problem: Problem) -> BuiltError {
        BuiltError {
            path: self.path.clone(),
            problem,
        }
    }

    /// The bytes of section `s`.
    fn bytes(&self, s: Section) -> &[u8] {
        let r = &self.header.sections[s as usize];
        &self.map[r.start as usize..r.end as usize]
    }

    /// Checks the chunks of section `s` that hold its bytes `bytes`
    /// against their digests, each once per process; the chunks are taken
    /// from the `rotate`-th part of the range on (so that trustees of one
    /// process checking the same range start apart).
    pub(super) fn check_chunks(
        &self,
        s: Section,
        bytes: Range<u64>,
        rotate: (u64, u64),
    ) -> Result<(), BuiltError> {
        if bytes.is_empty() {
            return Ok(());
        }
        let data = self.bytes(s);
        let first = self.header.first_digest(s);
        let (lo, hi) = (bytes.start / CHUNK, bytes.end.div_ceil(CHUNK));
        let count = hi - lo;
        let skip = count * rotate.0 / rotate.1.max(1);
        for k in 0..count {
            let c = lo + (k + skip) % count;
            let slot = &self.checked[(first + c) as usize];
            if slot.load(Ordering::Relaxed) {
                continue;
            }
            let at = (c * CHUNK) as usize;
            let chunk = &data[at..(at + CHUNK as usize).min(data.len())];
            if chunk_digest(chunk, c) != self.digests[(first + c) as usize] {
                return Err(self.err(Problem::CorruptSection(s.name())));
            }
            slot.store(true, Ordering::Relaxed);
            // Checked: its pages go (they stay in the page cache), so the
            // trustees checking a file together hold a chunk each, not the
            // file.
            let from = self.header.sections[s as usize].start as usize + at;
            crate::mapped::release(&self.map, from..from + chunk.len());
        }
        Ok(())
    }

    /// Elements `r` of section `s` as an array: viewed in place, or decoded
    /// where that is impossible (big-endian hosts).
    pub(super) fn view<T: Plain>(&self, s: Section, r: Range<u64>) -> Array<T> {
        let size = std::mem::size_of::<T>() as u64;
        let start = self.header.sections[s as usize].start;
        let bytes = (start + r.start * size) as usize..(start + r.end * size) as usize;
        match MappedSlice::new(&self.map, bytes.clone()) {
            Some(m) => Array::Mapped(m),
            None => Array::Owned(decode(&self.map[bytes])),
        }
    }

    /// Trustee `trustee`'s shard of `partition` (which must be over this
    /// graph's vertices), with `weights`: the same shard, field by field,
    /// as [`build_trustees_with`](crate::csr::build_trustees_with) makes
    /// from the graph's edge list (with
    /// [`without_weights`](Shard::without_weights) for [`Weights::Skip`]).
    ///
    /// A block partition's trustee owns consecutive vertices, whose rows
    /// are consecutive in the file: its neighbour ids (and weights, and
    /// in-edge sources) are views of the mapping, not copies, and only its
    /// offsets are copied (rebased to 0), O(its vertices). A cyclic
    /// partition's rows are spread over the whole file: they are copied
    /// into the shard, row by row (no sort), O(its entries).
    ///
    /// Checks what it reads: the digests of the chunks that hold its rows
    /// (each chunk once per process), that its offsets rise within the
    /// entries, and that its neighbour ids are vertices.
    ///
    /// Then gives the pages it read back (they stay in the page cache): a
    /// view's pages come back as a kernel reads them, and a kernel that
    /// copies the rows out of the view gives them back behind its copy
    /// ([`Shard::share_rows`], [`Shard::rewrite_rows`]), so a run from a
    /// built file holds about one copy of the rows at any time, not the
    /// mapped pages beside the kernel's copy.
    pub fn shard(
        &self,
        partition: &Partition,
        trustee: u32,
        weights: Weights,
    ) -> Result<Shard, BuiltError> {
        let n = self.header.num_vertices;
        if partition.num_vertices() != n || trustee >= partition.num_trustees() {
            return Err(self.err(Problem::BadSection(format!(
                "asked for trustee {trustee} of a partition of {} vertices into {} trustees, for a graph of {n} vertices",
                partition.num_vertices(),
                partition.num_trustees()
            ))));
        }
        let rotate = (u64::from(trustee), u64::from(partition.num_trustees()));
        let rows = Rows::of(
            self,
            partition,
            trustee,
            Section::Offsets,
            self.header.entries,
            rotate,
        )?;
        let targets: Array<u32> = rows.take(self, Section::Targets, rotate)?;
        // Checked piece by piece: the pages go until a kernel reads them
        // (see above).
        let piece = (RELEASE_PIECE / 4).max(1);
        for at in (0..targets.len()).step_by(piece) {
            let end = (at + piece).min(targets.len());
            self.check_ids(&targets[at..end], Section::Targets)?;
            targets.release(at..end);
        }
        let weights = match weights {
            Weights::Skip => None,
            Weights::Stored if self.header.weighted => {
                let w: Array<f32> = rows.take(self, Section::Weights, rotate)?;
                w.release(0..w.len());
                Some(w)
            }
            Weights::Stored | Weights::Unit => Some(Array::Owned(crate::alloc::vec_or_exit(
                targets.len(),
                1.0f32,
                "unit weights",
            ))),
        };
        let shard = match weights {
            Some(w) => Shard::from_arrays(*partition, trustee, rows.offsets, targets, w),
            None => Shard::unweighted_from_arrays(*partition, trustee, rows.offsets, targets),
        };
        if !self.header.directed {
            return Ok(shard);
        }
        let rows = Rows::of(
            self,
            partition,
            trustee,
            Section::InOffsets,
            self.header.in_entries,
            rotate,
        )?;
        let sources: Array<u32> = rows.take(self, Section::InSources, rotate)?;
        self.check_ids(&sources, Section::InSources)?;
        sources.release(0..sources.len());
        Ok(shard.with_in_edges(rows.offsets, sources))
    }

    /// Refuses an id that is not a vertex (the first one of `ids`).
    pub(super) fn check_ids(&self, ids: &[u32], s: Section) -> Result<(), BuiltError> {
        let n = self.header.num_vertices;
        match ids.iter().find(|&&v| u64::from(v) >= n) {
            Some(v) => Err(self.err(Problem::BadSection(format!(
                "one of its {} is {v}, not a vertex (the graph has {n})",
                s.name()
            )))),
            None => Ok(()),
        }
    }

    /// Checks the whole file: every section against its checksum, and the
    /// rows' structure (offsets rising from 0 to the entries, every id a
    /// vertex). Reads every byte.
    pub fn verify(&self) -> Result<(), BuiltError> {
        for s in Section::ALL {
            if checksum64(self.bytes(s)) != self.header.sums[s as usize] {
                return Err(self.err(Problem::CorruptSection(s.name())));
            }
        }
        for c in &self.checked {
            c.store(true, Ordering::Relaxed);
        }
        let n = self.header.num_vertices;
        let pairs = [
            (Section::Offsets, Section::Targets, self.header.entries),
            (
                Section::InOffsets,
                Section::InSources,
                self.header.in_entries,
            ),
        ];
        for (o, t, entries) in pairs {
            if o == Section::InOffsets && !self.header.directed {
                continue;
            }
            let offsets: Array<u64> = self.view(o, 0..n + 1);
            if offsets.first() != Some(&0)
                || offsets.last() != Some(&entries)
                || offsets.windows(2).any(|w| w[0] > w[1])
            {
                return Err(self.err(Problem::BadSection(format!(
                    "its {} do not rise from 0 to {entries}",
                    o.name()
                ))));
            }
            let ids: Array<u32> = self.view(t, 0..entries);
            self.check_ids(&ids, t)?;
        }
        Ok(())
    }

    /// Calls `f` with every vertex's row, in vertex order: its neighbour
    /// ids (a directed graph's out-arcs), or with `in_rows` the sources of
    /// the arcs into it (directed files; an undirected graph's rows are
    /// both). For the checks that read the whole graph without a list
    /// (e.g. [`verify_cc_rows`](crate::validate::verify_cc_rows)): the
    /// rows are read from the mapping in pieces of about 2 MiB, each
    /// checked first as a trustee checks its rows (the chunks' digests,
    /// the offsets rising within the entries, every id a vertex) and its
    /// pages given back once read, so the pass holds a piece of the file,
    /// not the file.
    pub fn for_each_row(
        &self,
        in_rows: bool,
        mut f: impl FnMut(usize, &[u32]),
    ) -> Result<(), BuiltError> {
        let (o, t, entries) = if in_rows && self.header.directed {
            (
                Section::InOffsets,
                Section::InSources,
                self.header.in_entries,
            )
        } else {
            (Section::Offsets, Section::Targets, self.header.entries)
        };
        let n = self.header.num_vertices as usize;
        let bad = || {
            self.err(Problem::BadSection(format!(
                "its {} do not rise from 0 to {entries}",
                o.name()
            )))
        };
        self.check_chunks(o, 0..(n as u64 + 1) * 8, (0, 1))?;
        let offsets: Array<u64> = self.view(o, 0..n as u64 + 1);
        let targets: Array<u32> = self.view(t, 0..entries);
        if offsets[0] != 0 || offsets[n] != entries {
            return Err(bad());
        }
        let piece = (RELEASE_PIECE / 4) as u64;
        let mut u = 0;
        while u < n {
            // Rows u..end: about a piece of entries (a longer row whole).
            let first = offsets[u];
            let mut end = u;
            while end < n && (end == u || offsets[end] - first < piece) {
                if offsets[end + 1] < offsets[end] || offsets[end + 1] > entries {
                    return Err(bad());
                }
                end += 1;
            }
            let span = first..offsets[end];
            self.check_chunks(t, span.start * 4..span.end * 4, (0, 1))?;
            let ids = &targets[span.start as usize..span.end as usize];
            self.check_ids(ids, t)?;
            for v in u..end {
                f(v, &targets[offsets[v] as usize..offsets[v + 1] as usize]);
            }
            targets.release(span.start as usize..span.end as usize);
            offsets.release(u..end);
            u = end;
        }
        Ok(())
    }

    /// Which vertices have a row that is not empty, from the row offsets
    /// alone (8 B per vertex read, checked against their digests, the
    /// pages given back): bit `v % 64` of word `v / 64` is set when vertex
    /// `v` has an edge to another vertex (self-loops are not in the rows;
    /// on a directed graph, an out-arc). What picking sources or roots
    /// among the vertices with edges (as GAPBS does) needs, without reading
    /// the edges or making a list of them.
    pub fn nonempty_rows(&self) -> Result<Vec<u64>, BuiltError> {
        let n = self.header.num_vertices;
        self.check_chunks(Section::Offsets, 0..8 * (n + 1), (0, 1))?;
        let offsets: Array<u64> = self.view(Section::Offsets, 0..n + 1);
        let mut bits = vec![0u64; n.div_ceil(64) as usize];
        for (v, pair) in offsets.windows(2).enumerate() {
            if pair[1] < pair[0] || pair[1] > self.header.entries {
                return Err(self.err(Problem::BadSection(format!(
                    "its row offsets do not rise within the {} entries",
                    self.header.entries
                ))));
            }
            if pair[1] > pair[0] {
                bits[v / 64] |= 1 << (v % 64);
            }
        }
        if let Array::Mapped(m) = &offsets {
            m.release(0..offsets.len());
        }
        Ok(bits)
    }

    /// The graph's edges as a list (checked whole first, [`verify`](Self::verify)),
    /// for the checks that read a list: an undirected graph's edge `{u, v}`
    /// once, as `(min, max)`, in row order; a directed graph's arcs in row
    /// order; every weight 1.0 without a weight section. Self-loops are not
    /// in the rows, so not in the list; the vertex count is the file's.
    pub fn edge_list(&self) -> Result<EdgeList<'static>, BuiltError> {
        self.verify()?;
        let n = self.header.num_vertices;
        let m = self.header.entries;
        let offsets: Array<u64> = self.view(Section::Offsets, 0..n + 1);
        let targets: Array<u32> = self.view(Section::Targets, 0..m);
        let weights: Option<Array<f32>> = self
            .header
            .weighted
            .then(|| self.view(Section::Weights, 0..m));
        let directed = self.header.directed;
        let mut edges: Vec<PackedEdge> = Vec::new();
        let len = if directed { m } else { m / 2 };
        crate::alloc::reserve_or_exit(&mut edges, len as usize, "the edge list of a built graph");
        for u in 0..n as usize {
            for e in offsets[u] as usize..offsets[u + 1] as usize {
                let v = targets[e];
                if directed || (u as u32) < v {
                    let w = weights.as_ref().map_or(1.0, |w| w[e]);
                    edges.push(PackedEdge::new(u as u32, v, w));
                }
            }
        }
        EdgeList::from_edges(n, edges).map_err(|e| self.err(Problem::BadSection(e.to_string())))
    }
}

/// A trustee's rows of one offsets section: its offsets (rebased to 0),
/// and where its entries are in the file.
struct Rows {
    offsets: Array<u64>,
    /// The entries of a block trustee's rows, consecutive in the file;
    /// `None` for rows spread over the file (cyclic), with their ranges.
    span: Result<Range<u64>, Vec<Range<u64>>>,
}

impl Rows {
    /// Trustee `t`'s rows of `partition`, from offsets section `s` over
    /// `entries` entries, checked.
    fn of(
        g: &BuiltGraph,
        partition: &Partition,
        t: u32,
        s: Section,
        entries: u64,
        rotate: (u64, u64),
    ) -> Result<Rows, BuiltError> {
        let count = partition.local_count(t);
        let bad = || {
            g.err(Problem::BadSection(format!(
                "its {} do not rise within the {entries} entries",
                s.name()
            )))
        };
        if count == 0 {
            return Ok(Rows {
                offsets: Array::Owned(vec![0]),
                span: Ok(0..0),
            });
        }
        let first = partition.global(t, 0);
        if partition.kind() == PartitionKind::Block || partition.num_trustees() == 1 {
            g.check_chunks(s, 8 * first..8 * (first + count + 1), rotate)?;
            let view: Array<u64> = g.view(s, first..first + count + 1);
            if view.windows(2).any(|w| w[0] > w[1]) || view[count as usize] > entries {
                return Err(bad());
            }
            let (a, b) = (view[0], view[count as usize]);
            let mut offsets = crate::alloc::vec_or_exit(count as usize + 1, 0u64, "row offsets");
            for (o, &x) in offsets.iter_mut().zip(view.iter()) {
                *o = x - a;
            }
            // Copied: the mapped pages are not read again.
            view.release(0..view.len());
            return Ok(Rows {
                offsets: Array::Owned(offsets),
                span: Ok(a..b),
            });
        }
        let last = partition.global(t, count - 1);
        g.check_chunks(s, 8 * first..8 * (last + 2), rotate)?;
        let all: Array<u64> = g.view(s, first..last + 2);
        let mut offsets = crate::alloc::vec_or_exit(count as usize + 1, 0u64, "row offsets");
        let mut ranges = Vec::new();
        crate::alloc::reserve_or_exit(&mut ranges, count as usize, "row ranges");
        for l in 0..count {
            let i = (partition.global(t, l) - first) as usize;
            let (a, b) = (all[i], all[i + 1]);
            if a > b || b > entries {
                return Err(bad());
            }
            offsets[l as usize + 1] = offsets[l as usize] + (b - a);
            ranges.push(a..b);
        }
        all.release(0..all.len());
        Ok(Rows {
            offsets: Array::Owned(offsets),
            span: Err(ranges),
        })
    }

    /// The entries of these rows in section `s` (checked against their
    /// digests): a view for consecutive rows, else a copy.
    fn take<T: Plain>(
        &self,
        g: &BuiltGraph,
        s: Section,
        rotate: (u64, u64),
    ) -> Result<Array<T>, BuiltError> {
        let size = std::mem::size_of::<T>() as u64;
        match &self.span {
            Ok(r) => {
                g.check_chunks(s, size * r.start..size * r.end, rotate)?;
                Ok(g.view(s, r.clone()))
            }
            Err(ranges) => {
                let lo = ranges.iter().map(|r| r.start).min().unwrap_or(0);
                let hi = ranges.iter().map(|r| r.end).max().unwrap_or(0);
                g.check_chunks(s, size * lo..size * hi, rotate)?;
                let all: Array<T> = g.view(s, lo..hi);
                let total = ranges.iter().map(|r| r.end - r.start).sum::<u64>();
                let mut out = Vec::new();
                crate::alloc::reserve_or_exit(&mut out, total as usize, "a trustee's rows");
                for r in ranges {
                    out.extend_from_slice(&all[(r.start - lo) as usize..(r.end - lo) as usize]);
                }
                // Copied: the mapped pages are not read again here (other
                // trustees of this process read them on, faulting back
                // in what they still need).
                all.release(0..all.len());
                Ok(Array::Owned(out))
            }
        }
    }
}
