//! Ready rows: a sidecar of a built graph file (`FILE.w<W>.ready`, written
//! by `gossamer-graph ready FILE --threads W`) that holds, for one layout
//! (a block partition into `W` trustees), every trustee's rows as the
//! kernels' preparation leaves them: BFS's unweighted rows by position
//! (targets renamed to the kernels' flat ids, each row's distinct targets
//! ascending, then its parallel entries) and SSSP's weighted rows split
//! light/heavy at one Δ (flat ids, its spans). A run of that layout takes
//! its shards from here ([`ReadyRows::shard`]), views of the mapping, so
//! the kernels' preparation is O(vertices): no renaming, sorting or copying
//! of entries. Any other layout, unit weights or a directed graph take the
//! built file's rows as before.
//!
//! The flat ids are the kernels' (graph-kernel's adjacency): they depend
//! on the partition (each trustee's vertices by decreasing degree, bases
//! rounded to 64), so the file serves one trustee count; the kernel checks
//! that the renaming table it makes is the file's
//! ([`Shard::adopt_names`](crate::Shard::adopt_names)) and that its
//! positions are the file's, and otherwise copies the rows as it would from
//! the built file (same answers, the general path's time).
//!
//! # Layout
//!
//! Little-endian; sections at multiples of 4096, in trustee order, each
//! trustee's in the order of [`Part`].
//!
//! | offset | size | field |
//! |---:|---:|---|
//! | 0 | 8 | magic `b"GOSREADY"` |
//! | 8 | 4 | format version ([`READY_VERSION`]) |
//! | 12 | 4 | header length (a multiple of 4096) |
//! | 16 | 4 | trustees `W` (block partition) |
//! | 20 | 4 | flags: bit 0 SSSP's split present |
//! | 24 | 8 | the built file's header checksum (its bytes 1016..1024) |
//! | 32 | 8 | the built file's length |
//! | 40 | 8 | vertices |
//! | 48 | 8 | row entries |
//! | 56 | 4 | flat ids (all trustees, with the padding) |
//! | 60 | 4 | Δ of the split (`f32`) |
//! | 64 | 8 | smallest and largest weight (`f32` x 2) |
//! | 128 | 200 x W | per trustee: its first flat id (`u32`), 4 zero bytes, its entries, its merged parallel entries (`u64`), then its 7 sections' start, length, [`checksum64`] (`u64` x 3) |
//! | len - 8 | 8 | header checksum (of the bytes before it) |

use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use super::open::BuiltGraph;
use crate::csr::{Array, Ready, Shard};
use crate::io::file::{checksum64, open_regular, CommitError, OpenRegular, Staged};
use crate::io::le::{put_u32, put_u64, u32_at, u64_at};
use crate::mapped::{self, MappedSlice, Plain};
use crate::partition::{Partition, PartitionKind};

/// Identifies a ready-rows file.
pub const READY_MAGIC: [u8; 8] = *b"GOSREADY";
/// The format version this build writes and reads.
pub const READY_VERSION: u32 = 1;

const PAGE: u64 = 4096;
const FIXED: usize = 128;
const PER_TRUSTEE: usize = 24 + 24 * PARTS;
/// Most trustees a file serves.
pub const MAX_TRUSTEES: u32 = 4096;
/// Span lengths at or above this do not fit SSSP's packed span word.
const WIDE: u64 = (1 << 24) - 1;

/// A trustee's sections, in file order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// `u32` per local vertex: its flat id.
    Flat = 0,
    /// `u64` per position and one more: BFS's row offsets.
    Start = 1,
    /// `u32` per position: distinct targets of each row (empty when no row
    /// has parallel entries).
    Distinct = 2,
    /// `u32` per entry: BFS's rows (flat ids) by position.
    Targets = 3,
    /// `u32` per entry: SSSP's rows (flat ids), by local index, split.
    SplitTargets = 4,
    /// `f32` per entry, parallel to the split targets.
    SplitWeights = 5,
    /// `u64` per position: SSSP's span of each row.
    Spans = 6,
}
const PARTS: usize = 7;
const ALL: [Part; PARTS] = [
    Part::Flat,
    Part::Start,
    Part::Distinct,
    Part::Targets,
    Part::SplitTargets,
    Part::SplitWeights,
    Part::Spans,
];

impl Part {
    fn name(self) -> &'static str {
        match self {
            Part::Flat => "flat ids",
            Part::Start => "row offsets",
            Part::Distinct => "distinct counts",
            Part::Targets => "rows",
            Part::SplitTargets => "split rows",
            Part::SplitWeights => "split weights",
            Part::Spans => "spans",
        }
    }
}

/// The ready-rows file of built file `built` for `trustees` trustees:
/// `BUILT.w<trustees>.ready`.
pub fn ready_path(built: &Path, trustees: u32) -> PathBuf {
    let mut s = built.as_os_str().to_owned();
    s.push(format!(".w{trustees}.ready"));
    PathBuf::from(s)
}

/// Why a ready-rows file could not be written or used; the message says
/// what to do.
#[derive(Debug)]
pub struct ReadyError {
    /// The file concerned.
    pub path: PathBuf,
    /// What is wrong.
    pub what: String,
}

impl std::fmt::Display for ReadyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ready rows {}: {}; delete it (runs then prepare their rows from the built file) or write it again with `gossamer-graph ready BUILT --threads W`",
            self.path.display(),
            self.what
        )
    }
}

impl std::error::Error for ReadyError {}

/// One trustee's rows as the kernels' preparation left them, to write.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct ReadyPart {
    /// Its first flat id.
    pub base: u32,
    /// The flat id of each local vertex.
    pub flat: Vec<u32>,
    /// BFS's rows by position: offsets, distinct counts (empty without
    /// parallel entries), targets, parallel entries merged.
    pub start: Vec<u64>,
    /// See `start`.
    pub distinct: Vec<u32>,
    /// See `start`.
    pub targets: Vec<u32>,
    /// See `start`.
    pub merged: u64,
    /// SSSP's split rows (targets, weights by local index; spans by
    /// position), when written.
    pub split: Option<(Vec<u32>, Vec<f32>, Vec<u64>)>,
}

/// What every trustee's parts share: the split's Δ and the graph's
/// weight range (for SSSP's default Δ), and the flat ids' count.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReadyShape {
    /// Flat ids of all trustees, with the padding.
    pub num_flat: u32,
    /// Δ of the split (0 without one).
    pub delta: f32,
    /// Smallest and largest weight of the graph.
    pub weights: (f32, f32),
}

fn bytes_of<T: Plain>(xs: &[T]) -> Vec<u8> {
    match mapped::plain_as_bytes(xs) {
        Some(b) => b.to_vec(),
        None => {
            let mut out = Vec::with_capacity(std::mem::size_of_val(xs));
            xs.iter().for_each(|x| x.put_le(&mut out));
            out
        }
    }
}

fn header_len(trustees: u32) -> u64 {
    ((FIXED + PER_TRUSTEE * trustees as usize + 8) as u64).next_multiple_of(PAGE)
}

/// Writes the ready rows `parts` (one per trustee, in order) of the built
/// file `built` at `path` (whole or not at all).
pub fn write_ready(
    path: &Path,
    built: &BuiltGraph,
    parts: &[ReadyPart],
    shape: ReadyShape,
) -> Result<(), ReadyError> {
    let err = |what: String| ReadyError {
        path: path.to_path_buf(),
        what,
    };
    let w = parts.len() as u32;
    if w == 0 || w > MAX_TRUSTEES {
        return Err(err(format!("{w} trustees (1 to {MAX_TRUSTEES})")));
    }
    let split = parts[0].split.is_some();
    if parts.iter().any(|p| p.split.is_some() != split) {
        return Err(err("some trustees have SSSP's split, some not".into()));
    }
    for p in parts {
        if let Some((_, _, spans)) = &p.split {
            if spans.iter().any(|&s| s & WIDE == WIDE) {
                return Err(err(
                    "a row too long for the ready format (2^24 - 1 distinct targets or more)"
                        .into(),
                ));
            }
        }
    }
    let h = built.header();
    let hlen = header_len(w);
    let mut head = vec![0u8; hlen as usize];
    head[..8].copy_from_slice(&READY_MAGIC);
    put_u32(&mut head, 8, READY_VERSION);
    put_u32(&mut head, 12, hlen as u32);
    put_u32(&mut head, 16, w);
    put_u32(&mut head, 20, u32::from(split));
    put_u64(&mut head, 24, built.header_checksum());
    put_u64(&mut head, 32, h.file_len());
    put_u64(&mut head, 40, h.num_vertices);
    put_u64(&mut head, 48, h.entries);
    put_u32(&mut head, 56, shape.num_flat);
    put_u32(&mut head, 60, shape.delta.to_bits());
    put_u32(&mut head, 64, shape.weights.0.to_bits());
    put_u32(&mut head, 68, shape.weights.1.to_bits());
    let mut at = hlen;
    let mut bodies: Vec<Vec<u8>> = Vec::new();
    for (t, p) in parts.iter().enumerate() {
        let o = FIXED + PER_TRUSTEE * t;
        put_u32(&mut head, o, p.base);
        put_u64(&mut head, o + 8, p.targets.len() as u64);
        put_u64(&mut head, o + 16, p.merged);
        let (st, sw, ss) = match &p.split {
            Some((a, b, c)) => (bytes_of(a), bytes_of(b), bytes_of(c)),
            None => (Vec::new(), Vec::new(), Vec::new()),
        };
        let sections = [
            bytes_of(&p.flat),
            bytes_of(&p.start),
            bytes_of(&p.distinct),
            bytes_of(&p.targets),
            st,
            sw,
            ss,
        ];
        for (k, b) in sections.into_iter().enumerate() {
            let start = if b.is_empty() {
                at
            } else {
                at.next_multiple_of(PAGE)
            };
            put_u64(&mut head, o + 24 + 24 * k, start);
            put_u64(&mut head, o + 32 + 24 * k, b.len() as u64);
            put_u64(&mut head, o + 40 + 24 * k, checksum64(&b));
            if !b.is_empty() {
                bodies.push(vec![0u8; (start - at) as usize]);
                at = start + b.len() as u64;
                bodies.push(b);
            }
        }
    }
    let sum = checksum64(&head[..hlen as usize - 8]);
    put_u64(&mut head, hlen as usize - 8, sum);
    let staged = Staged::write(path, |out: &mut dyn Write| {
        out.write_all(&head)?;
        for b in &bodies {
            out.write_all(b)?;
        }
        std::io::Result::Ok(())
    })
    .map_err(|(action, e)| err(format!("could not {action} it: {e}")))?;
    staged.commit().map_err(|e| {
        err(match e {
            CommitError::Target(e) => e.to_string(),
            CommitError::Rename(e) => format!("could not rename it into place: {e}"),
        })
    })
}

/// The values of `a` in memory of their own, the mapped pages given back
/// (small per-vertex arrays a kernel keeps as its own).
fn owned<T: Plain>(a: Array<T>) -> Vec<T> {
    let mut v = Vec::new();
    crate::alloc::reserve_or_exit(&mut v, a.len(), "ready rows' per-vertex arrays");
    // Read at random by a search, as the kernel's own copy would be.
    crate::csr::advise_huge_pages(v.spare_capacity_mut());
    v.extend_from_slice(&a);
    a.release(0..a.len());
    v
}

/// A trustee's place in the header.
#[derive(Clone, Debug)]
struct TrusteeEntry {
    base: u32,
    entries: u64,
    merged: u64,
    sections: [(Range<u64>, u64); PARTS],
}

/// A ready-rows file, mapped; see the module docs.
pub struct ReadyRows {
    path: PathBuf,
    map: Arc<memmap2::Mmap>,
    trustees: u32,
    split: bool,
    shape: ReadyShape,
    entries: Vec<TrusteeEntry>,
    /// The global id of every flat id (0 in the padding), made on first use.
    names: OnceLock<Result<Arc<[u32]>, String>>,
}

impl std::fmt::Debug for ReadyRows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadyRows")
            .field("path", &self.path)
            .field("trustees", &self.trustees)
            .finish_non_exhaustive()
    }
}

impl ReadyRows {
    /// Opens and maps the ready rows at `path` for the built file `built`,
    /// checking the header (magic, version, checksum), that it was written
    /// for this built file (its header checksum and length), and the
    /// sections' places and the file's length; the sections are checked by
    /// whoever reads them ([`shard`](Self::shard)).
    pub fn open(path: &Path, built: &BuiltGraph) -> Result<ReadyRows, ReadyError> {
        let err = |what: String| ReadyError {
            path: path.to_path_buf(),
            what,
        };
        let (file, len) = open_regular(path).map_err(|e| match e {
            OpenRegular::Io(action, e) => err(format!("could not {action} it: {e}")),
            OpenRegular::NotRegular(kind) => err(format!("a {kind}, not a regular file")),
        })?;
        if len < FIXED as u64 {
            return Err(err(format!("truncated: {len} bytes, less than a header")));
        }
        let map = Arc::new(
            mapped::map_file(&file, false).map_err(|e| err(format!("could not map it: {e}")))?,
        );
        let b: &[u8] = &map;
        if b[..8] != READY_MAGIC {
            return Err(err("not a ready-rows file (no GOSREADY magic)".into()));
        }
        let version = u32_at(b, 8);
        if version != READY_VERSION {
            return Err(err(format!(
                "written by format v{version}, this build reads v{READY_VERSION}"
            )));
        }
        let (hlen, w) = (u64::from(u32_at(b, 12)), u32_at(b, 16));
        if w == 0 || w > MAX_TRUSTEES || hlen != header_len(w) {
            return Err(err(format!("a bad header ({w} trustees, {hlen} bytes)")));
        }
        if len < hlen {
            return Err(err(format!(
                "truncated: {len} bytes, less than its {hlen}-byte header"
            )));
        }
        let head = &b[..hlen as usize];
        if u64_at(head, hlen as usize - 8) != checksum64(&head[..hlen as usize - 8]) {
            return Err(err("a corrupt header (checksum mismatch)".into()));
        }
        let h = built.header();
        if u64_at(head, 24) != built.header_checksum()
            || u64_at(head, 32) != h.file_len()
            || u64_at(head, 40) != h.num_vertices
            || u64_at(head, 48) != h.entries
        {
            return Err(err(format!(
                "written for another built file than {}",
                built.path().display()
            )));
        }
        let split = u32_at(head, 20) & 1 == 1;
        let shape = ReadyShape {
            num_flat: u32_at(head, 56),
            delta: f32::from_bits(u32_at(head, 60)),
            weights: (
                f32::from_bits(u32_at(head, 64)),
                f32::from_bits(u32_at(head, 68)),
            ),
        };
        let partition = Partition::new(PartitionKind::Block, h.num_vertices, 1, w)
            .map_err(|e| err(e.to_string()))?;
        let mut entries = Vec::with_capacity(w as usize);
        let (mut at, mut total) = (hlen, 0u64);
        for t in 0..w {
            let o = FIXED + PER_TRUSTEE * t as usize;
            let (n, m) = (partition.local_count(t), u64_at(head, o + 8));
            total = total.saturating_add(m);
            let with_split = |x: u64| if split { x } else { 0 };
            let merged = u64_at(head, o + 16);
            let want = [
                4 * n,
                8 * (n + 1),
                if merged == 0 { 0 } else { 4 * n },
                4 * m,
                with_split(4 * m),
                with_split(4 * m),
                with_split(8 * n),
            ];
            let mut sections: [(Range<u64>, u64); PARTS] = Default::default();
            for (k, &l) in want.iter().enumerate() {
                let (s, sl, sum) = (
                    u64_at(head, o + 24 + 24 * k),
                    u64_at(head, o + 32 + 24 * k),
                    u64_at(head, o + 40 + 24 * k),
                );
                let place = if l == 0 {
                    at
                } else {
                    at.next_multiple_of(PAGE)
                };
                if s != place || sl != l {
                    return Err(err(format!(
                        "a bad header: trustee {t}'s {} are at {s} for {sl} bytes, not at {place} for {l}",
                        ALL[k].name()
                    )));
                }
                sections[k] = (s..s + l, sum);
                at = s + l;
            }
            entries.push(TrusteeEntry {
                base: u32_at(head, o),
                entries: m,
                merged,
                sections,
            });
        }
        if total != h.entries {
            return Err(err(format!(
                "a bad header: its trustees hold {total} entries, the graph {}",
                h.entries
            )));
        }
        if len < at {
            return Err(err(format!(
                "truncated: its header promises {at} bytes, it has {len}"
            )));
        }
        if len > at {
            return Err(err(format!(
                "{len} bytes, but its header accounts for {at}"
            )));
        }
        Ok(ReadyRows {
            path: path.to_path_buf(),
            map,
            trustees: w,
            split,
            shape,
            entries,
            names: OnceLock::new(),
        })
    }

    /// The trustee count it serves (block partition).
    pub fn trustees(&self) -> u32 {
        self.trustees
    }

    /// Whether it holds SSSP's split.
    pub fn has_split(&self) -> bool {
        self.split
    }

    /// The split's Δ, the weight range and the flat ids' count.
    pub fn shape(&self) -> ReadyShape {
        self.shape
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn err(&self, what: String) -> ReadyError {
        ReadyError {
            path: self.path.clone(),
            what,
        }
    }

    /// Trustee `t`'s section `p`, checked against its checksum, as values.
    fn part<T: Plain>(&self, t: u32, p: Part) -> Result<Array<T>, ReadyError> {
        let (r, sum) = &self.entries[t as usize].sections[p as usize];
        let bytes = r.start as usize..r.end as usize;
        if checksum64(&self.map[bytes.clone()]) != *sum {
            return Err(self.err(format!(
                "trustee {t}'s {} do not match their checksum (corrupt)",
                p.name()
            )));
        }
        Ok(match MappedSlice::new(&self.map, bytes.clone()) {
            Some(m) => Array::Mapped(m),
            None => Array::Owned(
                self.map[bytes]
                    .chunks_exact(std::mem::size_of::<T>())
                    .map(T::get_le)
                    .collect(),
            ),
        })
    }

    /// The global id of every flat id, checked: every trustee's flat ids
    /// are its own (from its base, within the flat ids), and none twice.
    /// Made once per process.
    fn names(&self, partition: &Partition) -> Result<Arc<[u32]>, ReadyError> {
        let made = self.names.get_or_init(|| {
            let nf = self.shape.num_flat as usize;
            let mut names = crate::alloc::vec_or_exit(nf, 0u32, "ready rows' flat-id map");
            let mut seen = vec![false; nf];
            for t in 0..self.trustees {
                let flat: Array<u32> = self.part(t, Part::Flat).map_err(|e| e.what)?;
                let base = self.entries[t as usize].base;
                let n = flat.len() as u32;
                for (l, &f) in flat.iter().enumerate() {
                    if f < base || f - base >= n || f as usize >= nf || seen[f as usize] {
                        return Err(format!("trustee {t}'s flat ids are not its own"));
                    }
                    seen[f as usize] = true;
                    names[f as usize] = partition.global(t, l as u64) as u32;
                }
                flat.release(0..flat.len());
            }
            Ok(names.into())
        });
        made.clone().map_err(|what| self.err(what))
    }

    /// Trustee `trustee`'s shard of `partition` (block, this file's trustee
    /// count), from its ready rows: BFS's unweighted rows (`weighted`
    /// false) or SSSP's split (true; the row offsets by local index from
    /// `built`). Its targets are flat ids, renamed by the file's table
    /// ([`Shard::renamed`]), read in place. Checks what it reads: each
    /// section's checksum, offsets rising within the entries, ids within
    /// the flat ids, spans within the rows.
    pub fn shard(
        &self,
        built: &BuiltGraph,
        partition: &Partition,
        trustee: u32,
        weighted: bool,
    ) -> Result<Shard, ReadyError> {
        if partition.num_trustees() != self.trustees
            || (partition.kind() != PartitionKind::Block && self.trustees > 1)
            || partition.num_vertices() != built.header().num_vertices
            || (weighted && !self.split)
        {
            return Err(self.err(format!(
                "it serves a block partition into {} trustees{}, not this run's",
                self.trustees,
                if self.split {
                    ""
                } else {
                    " without SSSP's split"
                }
            )));
        }
        let names = self.names(partition)?;
        let e = &self.entries[trustee as usize];
        let n = partition.local_count(trustee) as usize;
        let m = e.entries;
        let nf = self.shape.num_flat;
        let bad_ids = |ids: &[u32], what: &str| -> Result<(), ReadyError> {
            match ids.iter().copied().max() {
                Some(x) if x >= nf => Err(self.err(format!(
                    "trustee {trustee}'s {what} name {x}, not a flat id"
                ))),
                _ => Ok(()),
            }
        };
        if weighted {
            let (offsets, span) = built
                .block_offsets(partition, trustee)
                .map_err(|e| self.err(e.to_string()))?;
            if span.end - span.start != m {
                return Err(self.err(format!(
                    "trustee {trustee} holds {m} entries, the built file {}",
                    span.end - span.start
                )));
            }
            let targets: Array<u32> = self.part(trustee, Part::SplitTargets)?;
            bad_ids(&targets, "split rows")?;
            let weights: Array<f32> = self.part(trustee, Part::SplitWeights)?;
            let spans = owned(self.part::<u64>(trustee, Part::Spans)?);
            if spans
                .iter()
                .any(|&s| s & WIDE == WIDE || (s >> 24) + (s & WIDE) > m)
            {
                return Err(self.err(format!("trustee {trustee}'s spans leave its rows")));
            }
            let ready = Ready {
                distinct: Vec::new(),
                merged: 0,
                spans,
                delta: self.shape.delta,
                weights: self.shape.weights,
            };
            return Ok(
                Shard::from_arrays(*partition, trustee, offsets, targets, weights)
                    .with_ready(names, ready),
            );
        }
        let flat: Array<u32> = self.part(trustee, Part::Flat)?;
        let slots: Vec<u32> = flat.iter().map(|&f| f - e.base).collect();
        flat.release(0..flat.len());
        let start: Array<u64> = self.part(trustee, Part::Start)?;
        if start.len() != n + 1
            || start[0] != 0
            || start[n] != m
            || start.windows(2).any(|w| w[0] > w[1])
        {
            return Err(self.err(format!(
                "trustee {trustee}'s row offsets do not rise from 0 to {m}"
            )));
        }
        let distinct = owned(self.part::<u32>(trustee, Part::Distinct)?);
        if !distinct.is_empty()
            && distinct
                .iter()
                .zip(start.windows(2))
                .any(|(&d, w)| u64::from(d) > w[1] - w[0])
        {
            return Err(self.err(format!(
                "trustee {trustee}'s distinct counts exceed its rows"
            )));
        }
        let targets: Array<u32> = self.part(trustee, Part::Targets)?;
        bad_ids(&targets, "rows")?;
        let ready = Ready {
            distinct,
            merged: e.merged,
            spans: Vec::new(),
            delta: 0.0,
            weights: (0.0, 0.0),
        };
        Ok(
            Shard::unweighted_from_arrays(*partition, trustee, start, targets)
                .with_row_slots(slots)
                .with_ready(names, ready),
        )
    }
}
