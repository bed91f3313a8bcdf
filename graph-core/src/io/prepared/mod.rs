//! Prepared graphs: every trustee's [`Shard`] saved to a file of its own
//! and memory-mapped by later runs, so a large graph is built once.
//!
//! [`ShardedGraph::save_prepared`] has each trustee write
//! `DIR/shard-<t>-of-<W>.gshard` ([`file_name`]) in its own process (on a
//! shared filesystem `DIR` is shared by the ranks); [`ShardedGraph::open_prepared`]
//! has each trustee map its file instead of building. Files are written
//! like graph files: to a new unique temporary name beside the target,
//! synced, and renamed only once every trustee has written its file (a
//! failure anywhere leaves no new file). A file is refused, with what to
//! do, when it is missing, truncated, corrupt (checksums), of another
//! format version, or of another run: another trustee count, partition or
//! graph ([`GraphIdentity`]).
//!
//! All integers are little-endian; the arrays start at multiples of 64
//! bytes and are viewed in place (no copy) on little-endian hosts.
//!
//! | offset | size | field |
//! |---:|---:|---|
//! | 0 | 8 | magic `b"GOSSHARD"` |
//! | 8 | 4 | format version (`u32`, currently [`FORMAT_VERSION`]) |
//! | 12 | 4 | header length (`u32`, 512) |
//! | 16 | 4 | flags (`u32`): bit 0 = Graph500 parameters, bit 1 = source graph file checksum, bit 2 = unit weights, bit 3 = directed (the in-edge index follows) |
//! | 20 | 4 | partition kind (`u32`: 0 block, 1 cyclic) |
//! | 24 | 8 | vertex count |
//! | 32 | 4 | trustee count `W` |
//! | 36 | 4 | this shard's trustee `t` |
//! | 40 | 8 | input edge records of the graph |
//! | 48 | 4 | scale (with bit 0) |
//! | 52 | 4 | edgefactor (with bit 0) |
//! | 56 | 8 | seed1 (with bit 0) |
//! | 64 | 8 | seed2 (with bit 0) |
//! | 72 | 8 | data checksum of the source graph file (with bit 1) |
//! | 80 | 8 | rows (vertices this trustee owns) |
//! | 88 | 8 | entries (sum of degrees) |
//! | 96 | 24 | offsets, targets, weights: where each array starts (`u64` x 3) |
//! | 120 | 8 | file length |
//! | 128 | 24 | checksums ([`checksum64`]) of the offsets, targets and weights bytes |
//! | 152 | 8 | in-edge entries (with bit 3) |
//! | 160 | 16 | in-edge offsets, in-edge sources: where each starts (`u64` x 2, with bit 3) |
//! | 176 | 16 | their checksums (with bit 3) |
//! | 192 | 312 | reserved, 0 |
//! | 504 | 8 | header checksum (of bytes 0..504) |
//! | 512 | 8 x (rows + 1) | offsets (`u64`) |
//! | | 4 x entries | targets (`u32`, global vertex ids) |
//! | | 4 x entries | weights (`f32`) |
//! | | 8 x (rows + 1) | in-edge offsets (`u64`, with bit 3) |
//! | | 4 x in-edge entries | in-edge sources (`u32`, tails of the arcs into each row, with bit 3) |
//!
//! A directed graph's shard holds out-edge rows and the in-edge index
//! (bit 3); files written before bit 3 existed have the same layout
//! without it and still open.
//!
//! Rows are stored as the build left them (entries in arrival order); the
//! kernels and validators do not depend on the order within a row, so a
//! run on a prepared graph answers exactly as one that builds it.

use std::borrow::Cow;
use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::construct::{agree, first_failure, BuildTimes};
use crate::csr::{Array, Shard};
use crate::edge_list::Graph500Params;
use crate::io::file::{checksum64, kind_of, CommitError, Staged};
use crate::mapped::{self, MappedSlice, Plain};
use crate::partition::{Partition, PartitionKind};
use crate::sharded::{in_fiber, KernelError, ShardedGraph, TrusteeCtx};

/// Identifies a prepared-shard file.
pub const MAGIC: [u8; 8] = *b"GOSSHARD";
/// The format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;
/// Header length in bytes (the offsets array starts here).
pub const HEADER_LEN: usize = 512;
/// Alignment of every array in the file.
const ALIGN: u64 = 64;

const FLAG_GRAPH500: u32 = 1;
const FLAG_FILE_SUM: u32 = 2;
const FLAG_UNIT: u32 = 4;
const FLAG_DIRECTED: u32 = 8;
const OFF_VERSION: usize = 8;
const OFF_HEADER_LEN: usize = 12;
const OFF_FLAGS: usize = 16;
const OFF_KIND: usize = 20;
const OFF_VERTICES: usize = 24;
const OFF_TRUSTEES: usize = 32;
const OFF_TRUSTEE: usize = 36;
const OFF_EDGES: usize = 40;
const OFF_SCALE: usize = 48;
const OFF_EDGEFACTOR: usize = 52;
const OFF_SEED1: usize = 56;
const OFF_SEED2: usize = 64;
const OFF_FILE_SUM: usize = 72;
const OFF_ROWS: usize = 80;
const OFF_ENTRIES: usize = 88;
const OFF_SECTIONS: usize = 96;
const OFF_FILE_LEN: usize = 120;
const OFF_SUMS: usize = 128;
const OFF_IN_ENTRIES: usize = 152;
const OFF_IN_SECTIONS: usize = 160;
const OFF_IN_SUMS: usize = 176;
const OFF_HEADER_SUM: usize = HEADER_LEN - 8;

const ARRAYS: [&str; 5] = [
    "offsets",
    "targets",
    "weights",
    "in-edge offsets",
    "in-edge sources",
];
const RESAVE: &str = "re-save it with --save-prepared";

/// The file name of trustee `t`'s shard among `trustees`.
pub fn file_name(t: u32, trustees: u32) -> String {
    format!("shard-{t}-of-{trustees}.gshard")
}

/// Which graph a prepared shard belongs to: enough to refuse a file of
/// another graph, and (for a generated graph) to draw the same roots.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphIdentity {
    /// Vertex count.
    pub num_vertices: u64,
    /// Input edge records (self-loops and duplicates included).
    pub num_edges: u64,
    /// The generator's parameters, for a Graph500 graph.
    pub params: Option<Graph500Params>,
    /// The data checksum of the graph file it was read from, if any.
    pub file_checksum: Option<u64>,
    /// Every weight was replaced by 1.0 (`--unit-weights`).
    pub unit_weights: bool,
    /// The graph is directed (its shards hold out-edges and in-edges).
    pub directed: bool,
}

impl fmt::Display for GraphIdentity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.params, self.file_checksum) {
            (Some(p), None) => write!(
                f,
                "the generated Graph500 graph of SCALE {}, edgefactor {}, seeds {} and {}",
                p.scale, p.edgefactor, p.seed1, p.seed2
            )?,
            (_, Some(sum)) => write!(
                f,
                "the graph file with data checksum {sum:#018x} ({} vertices, {} edges)",
                self.num_vertices, self.num_edges
            )?,
            (None, None) => write!(
                f,
                "a graph of {} vertices and {} edges",
                self.num_vertices, self.num_edges
            )?,
        }
        if self.unit_weights {
            write!(f, ", with unit weights")?;
        }
        if self.directed {
            write!(f, ", directed")?;
        }
        Ok(())
    }
}

/// What a run expects of its trustee's file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expected {
    /// The partition kind.
    pub kind: PartitionKind,
    /// Trustees in the run (ranks x threads).
    pub trustees: u32,
    /// The trustee whose file this is.
    pub trustee: u32,
    /// The graph.
    pub graph: GraphIdentity,
}

/// The decoded header of a prepared-shard file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardHeader {
    /// Partition kind.
    pub kind: PartitionKind,
    /// Trustee count of the run that saved it.
    pub trustees: u32,
    /// This shard's trustee.
    pub trustee: u32,
    /// The graph.
    pub graph: GraphIdentity,
    /// Rows (owned vertices).
    pub rows: u64,
    /// Entries.
    pub entries: u64,
    /// In-edge entries (directed graphs only).
    pub in_entries: Option<u64>,
    /// Checksums of the offsets, targets and weights bytes, then of the
    /// in-edge offsets and sources (directed graphs only).
    pub sums: Vec<u64>,
}

/// Where each array starts and ends (three, or five with the in-edge
/// index of a directed graph), and the file length.
fn layout(
    rows: u64,
    entries: u64,
    in_entries: Option<u64>,
) -> Option<(Vec<std::ops::Range<u64>>, u64)> {
    let offsets = rows.checked_add(1)?.checked_mul(8)?;
    let mut sizes = vec![offsets, entries.checked_mul(4)?, entries.checked_mul(4)?];
    if let Some(m) = in_entries {
        sizes.extend([offsets, m.checked_mul(4)?]);
    }
    let mut sections = Vec::with_capacity(sizes.len());
    let mut end = HEADER_LEN as u64;
    for size in sizes {
        let start = end.checked_next_multiple_of(ALIGN)?;
        end = start.checked_add(size)?;
        sections.push(start..end);
    }
    Some((sections, end))
}

/// Where the header keeps section `i`'s start and checksum.
fn section_fields(i: usize) -> (usize, usize) {
    if i < 3 {
        (OFF_SECTIONS + 8 * i, OFF_SUMS + 8 * i)
    } else {
        (OFF_IN_SECTIONS + 8 * (i - 3), OFF_IN_SUMS + 8 * (i - 3))
    }
}

/// The in-edge entry count of a directed shard.
fn in_entries_of(shard: &Shard) -> Option<u64> {
    shard.is_directed().then(|| shard.in_index().1.len() as u64)
}

/// The arrays of `shard`'s file, in file encoding.
fn arrays_of(shard: &Shard) -> Vec<Cow<'_, [u8]>> {
    let mut arrays = vec![
        bytes_of(shard.offsets()),
        bytes_of(shard.targets()),
        bytes_of(shard.weights()),
    ];
    if shard.is_directed() {
        let (offsets, sources) = shard.in_index();
        arrays.extend([bytes_of(offsets), bytes_of(sources)]);
    }
    arrays
}

/// Why a prepared-shard file could not be written or used.
#[derive(Debug)]
pub struct PreparedError {
    /// The file (or directory) concerned.
    pub path: PathBuf,
    /// What is wrong, and what to do.
    pub problem: Problem,
}

/// What is wrong with a prepared-shard file.
#[derive(Debug)]
pub enum Problem {
    /// The file does not exist; the text says what to do.
    NotFound(String),
    /// Something other than a regular file.
    NotARegularFile(&'static str),
    /// An I/O failure while doing `action`.
    Io(&'static str, io::Error),
    /// The magic bytes are wrong.
    NotAShardFile,
    /// Another format version.
    WrongVersion(u32),
    /// Shorter than the header.
    TruncatedHeader(u64),
    /// The header checksum does not match.
    CorruptHeader,
    /// A header field is impossible.
    BadHeader(String),
    /// Shorter than the header's counts need.
    Truncated {
        /// Length the header implies.
        expected: u64,
        /// Actual length.
        actual: u64,
    },
    /// Longer than the header's counts account for.
    SizeMismatch {
        /// Length the header implies.
        expected: u64,
        /// Actual length.
        actual: u64,
    },
    /// An array's bytes do not match its checksum.
    CorruptArray(&'static str),
    /// An array's values are impossible (offsets not increasing, a target
    /// outside the graph).
    BadArray(String),
    /// The file belongs to another run; the text says which and what to do.
    Mismatch(String),
}

impl fmt::Display for PreparedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.path.display();
        match &self.problem {
            Problem::NotFound(hint) => write!(f, "prepared shard {p} does not exist: {hint}"),
            Problem::NotARegularFile(kind) => write!(
                f,
                "prepared shard {p} is a {kind}, not a regular file; {RESAVE}"
            ),
            Problem::Io(action, e) => write!(f, "could not {action} prepared shard {p}: {e}"),
            Problem::NotAShardFile => write!(
                f,
                "{p} is not a prepared shard (its first bytes are not the GOSSHARD magic); {RESAVE}"
            ),
            Problem::WrongVersion(v) => write!(
                f,
                "prepared shard {p} was written by format v{v}, this build reads v{FORMAT_VERSION}; {RESAVE}"
            ),
            Problem::TruncatedHeader(len) => write!(
                f,
                "prepared shard {p} is truncated: it has {len} bytes, fewer than the {HEADER_LEN}-byte header; {RESAVE}"
            ),
            Problem::CorruptHeader => write!(
                f,
                "prepared shard {p} has a corrupt header (checksum mismatch); {RESAVE}"
            ),
            Problem::BadHeader(what) => {
                write!(f, "prepared shard {p} has an invalid header: {what}; {RESAVE}")
            }
            Problem::Truncated { expected, actual } => write!(
                f,
                "prepared shard {p} is truncated: its header promises {expected} bytes but it has {actual}; {RESAVE}"
            ),
            Problem::SizeMismatch { expected, actual } => write!(
                f,
                "prepared shard {p} has {actual} bytes but its header implies {expected}; {RESAVE}"
            ),
            Problem::CorruptArray(a) => write!(
                f,
                "prepared shard {p} is corrupt: its {a} do not match their checksum; {RESAVE}"
            ),
            Problem::BadArray(what) => write!(f, "prepared shard {p} is invalid: {what}; {RESAVE}"),
            Problem::Mismatch(what) => write!(f, "prepared shard {p} {what}"),
        }
    }
}

impl std::error::Error for PreparedError {}

fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::get_le(&b[off..off + 4])
}

fn u64_at(b: &[u8], off: usize) -> u64 {
    u64::get_le(&b[off..off + 8])
}

fn kind_code(k: PartitionKind) -> u32 {
    match k {
        PartitionKind::Block => 0,
        PartitionKind::Cyclic => 1,
    }
}

fn kind_name(k: PartitionKind) -> &'static str {
    match k {
        PartitionKind::Block => "block",
        PartitionKind::Cyclic => "cyclic",
    }
}

/// An array's bytes in file encoding (borrowed on little-endian hosts).
fn bytes_of<T: Plain>(xs: &[T]) -> Cow<'_, [u8]> {
    match mapped::plain_as_bytes(xs) {
        Some(b) => b.into(),
        None => {
            let mut out = Vec::with_capacity(std::mem::size_of_val(xs));
            xs.iter().for_each(|x| x.put_le(&mut out));
            out.into()
        }
    }
}

/// The header of `shard`'s file, given its arrays' bytes.
fn encode_header(
    shard: &Shard,
    graph: &GraphIdentity,
    arrays: &[Cow<'_, [u8]>],
) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    let put32 = |h: &mut [u8; HEADER_LEN], off: usize, x: u32| {
        h[off..off + 4].copy_from_slice(&x.to_le_bytes())
    };
    let put64 = |h: &mut [u8; HEADER_LEN], off: usize, x: u64| {
        h[off..off + 8].copy_from_slice(&x.to_le_bytes())
    };
    let p = shard.partition();
    let (rows, entries) = (shard.num_local_vertices(), shard.num_entries());
    let in_entries = in_entries_of(shard);
    let (sections, len) =
        layout(rows, entries, in_entries).expect("an in-memory shard's layout fits in u64");
    h[..8].copy_from_slice(&MAGIC);
    put32(&mut h, OFF_VERSION, FORMAT_VERSION);
    put32(&mut h, OFF_HEADER_LEN, HEADER_LEN as u32);
    let mut flags = 0;
    if let Some(g) = graph.params {
        flags |= FLAG_GRAPH500;
        put32(&mut h, OFF_SCALE, g.scale);
        put32(&mut h, OFF_EDGEFACTOR, g.edgefactor);
        put64(&mut h, OFF_SEED1, g.seed1);
        put64(&mut h, OFF_SEED2, g.seed2);
    }
    if let Some(sum) = graph.file_checksum {
        flags |= FLAG_FILE_SUM;
        put64(&mut h, OFF_FILE_SUM, sum);
    }
    if graph.unit_weights {
        flags |= FLAG_UNIT;
    }
    if let Some(m) = in_entries {
        flags |= FLAG_DIRECTED;
        put64(&mut h, OFF_IN_ENTRIES, m);
    }
    put32(&mut h, OFF_FLAGS, flags);
    put32(&mut h, OFF_KIND, kind_code(p.kind()));
    put64(&mut h, OFF_VERTICES, p.num_vertices());
    put32(&mut h, OFF_TRUSTEES, p.num_trustees());
    put32(&mut h, OFF_TRUSTEE, shard.trustee());
    put64(&mut h, OFF_EDGES, graph.num_edges);
    put64(&mut h, OFF_ROWS, rows);
    put64(&mut h, OFF_ENTRIES, entries);
    for (i, s) in sections.iter().enumerate() {
        let (start, sum) = section_fields(i);
        put64(&mut h, start, s.start);
        put64(&mut h, sum, checksum64(&arrays[i]));
    }
    put64(&mut h, OFF_FILE_LEN, len);
    let sum = checksum64(&h[..OFF_HEADER_SUM]);
    put64(&mut h, OFF_HEADER_SUM, sum);
    h
}

/// Writes the whole file to `out`.
fn write_to(out: &mut dyn Write, shard: &Shard, graph: &GraphIdentity) -> io::Result<()> {
    let arrays = arrays_of(shard);
    let header = encode_header(shard, graph, &arrays);
    out.write_all(&header)?;
    let (sections, _) = layout(
        shard.num_local_vertices(),
        shard.num_entries(),
        in_entries_of(shard),
    )
    .expect("an in-memory shard's layout fits in u64");
    let mut at = HEADER_LEN as u64;
    for (s, bytes) in sections.iter().zip(&arrays) {
        let pad = (s.start - at) as usize;
        out.write_all(&[0u8; ALIGN as usize][..pad])?;
        out.write_all(bytes)?;
        at = s.end;
    }
    Ok(())
}

/// The whole file as bytes (for tests and small shards).
pub fn to_bytes(shard: &Shard, graph: &GraphIdentity) -> Vec<u8> {
    let mut out = Vec::new();
    write_to(&mut out, shard, graph).expect("writing to memory does not fail");
    out
}

/// Writes `shard` to a temporary file beside `path`, not yet in place.
fn stage(path: &Path, shard: &Shard, graph: &GraphIdentity) -> Result<Staged, PreparedError> {
    let err = |problem| PreparedError {
        path: path.to_path_buf(),
        problem,
    };
    match std::fs::symlink_metadata(path) {
        Ok(m) if !m.file_type().is_file() => {
            return Err(err(Problem::NotARegularFile(kind_of(m.file_type()))))
        }
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(err(Problem::Io("inspect", e))),
    }
    Staged::write(path, |out| write_to(out, shard, graph))
        .map_err(|(action, e)| err(Problem::Io(action, e)))
}

/// Writes `shard` to `path` atomically (temporary file, sync, rename).
pub fn write(path: &Path, shard: &Shard, graph: &GraphIdentity) -> Result<(), PreparedError> {
    commit(stage(path, shard, graph)?, path)
}

fn commit(staged: Staged, path: &Path) -> Result<(), PreparedError> {
    staged.commit().map_err(|e| PreparedError {
        path: path.to_path_buf(),
        problem: match e {
            CommitError::Target(_) => {
                Problem::NotARegularFile("path that stopped being a regular file")
            }
            CommitError::Rename(e) => Problem::Io("rename into place", e),
        },
    })
}

/// Decodes and checks the header at the start of `bytes`: magic, version,
/// length, header checksum, then the fields.
pub fn parse_header(bytes: &[u8]) -> Result<ShardHeader, Problem> {
    let n = bytes.len().min(MAGIC.len());
    if bytes[..n] != MAGIC[..n] {
        return Err(Problem::NotAShardFile);
    }
    if bytes.len() >= OFF_VERSION + 4 && u32_at(bytes, OFF_VERSION) != FORMAT_VERSION {
        return Err(Problem::WrongVersion(u32_at(bytes, OFF_VERSION)));
    }
    if bytes.len() < HEADER_LEN {
        return Err(Problem::TruncatedHeader(bytes.len() as u64));
    }
    let h = &bytes[..HEADER_LEN];
    if u64_at(h, OFF_HEADER_SUM) != checksum64(&h[..OFF_HEADER_SUM]) {
        return Err(Problem::CorruptHeader);
    }
    let bad = |what: String| Err(Problem::BadHeader(what));
    if u32_at(h, OFF_HEADER_LEN) as usize != HEADER_LEN {
        return bad(format!("header length {}", u32_at(h, OFF_HEADER_LEN)));
    }
    let flags = u32_at(h, OFF_FLAGS);
    if flags & !(FLAG_GRAPH500 | FLAG_FILE_SUM | FLAG_UNIT | FLAG_DIRECTED) != 0 {
        return bad(format!("unknown flags {flags:#x}"));
    }
    let kind = match u32_at(h, OFF_KIND) {
        0 => PartitionKind::Block,
        1 => PartitionKind::Cyclic,
        k => return bad(format!("partition kind {k}")),
    };
    let (trustees, trustee) = (u32_at(h, OFF_TRUSTEES), u32_at(h, OFF_TRUSTEE));
    if trustee >= trustees {
        return bad(format!("trustee {trustee} of {trustees}"));
    }
    let graph = GraphIdentity {
        num_vertices: u64_at(h, OFF_VERTICES),
        num_edges: u64_at(h, OFF_EDGES),
        params: (flags & FLAG_GRAPH500 != 0).then(|| Graph500Params {
            scale: u32_at(h, OFF_SCALE),
            edgefactor: u32_at(h, OFF_EDGEFACTOR),
            seed1: u64_at(h, OFF_SEED1),
            seed2: u64_at(h, OFF_SEED2),
        }),
        file_checksum: (flags & FLAG_FILE_SUM != 0).then(|| u64_at(h, OFF_FILE_SUM)),
        unit_weights: flags & FLAG_UNIT != 0,
        directed: flags & FLAG_DIRECTED != 0,
    };
    let (rows, entries) = (u64_at(h, OFF_ROWS), u64_at(h, OFF_ENTRIES));
    let in_entries = graph.directed.then(|| u64_at(h, OFF_IN_ENTRIES));
    let Some((sections, len)) = layout(rows, entries, in_entries) else {
        return bad(format!("{rows} rows and {entries} entries do not fit"));
    };
    for (i, s) in sections.iter().enumerate() {
        if u64_at(h, section_fields(i).0) != s.start {
            return bad(format!("the {} do not start at {}", ARRAYS[i], s.start));
        }
    }
    if u64_at(h, OFF_FILE_LEN) != len {
        return bad(format!(
            "file length {} (expected {len})",
            u64_at(h, OFF_FILE_LEN)
        ));
    }
    Ok(ShardHeader {
        kind,
        trustees,
        trustee,
        graph,
        rows,
        entries,
        in_entries,
        sums: (0..sections.len())
            .map(|i| u64_at(h, section_fields(i).1))
            .collect(),
    })
}

/// Why `header` does not fit the run `want`, in words, with what to do.
fn mismatch(header: &ShardHeader, want: &Expected, dir: &str) -> Option<String> {
    let resave = format!("or re-save with --save-prepared {dir}");
    if header.trustees != want.trustees {
        return Some(format!(
            "was saved by a run with {} trustees (ranks x threads), this run has {}: re-run with --ranks and --threads giving {} trustees, {resave}",
            header.trustees, want.trustees, header.trustees
        ));
    }
    if header.kind != want.kind {
        return Some(format!(
            "was saved with --partition {}, this run uses --partition {}: re-run with --partition {}, {resave}",
            kind_name(header.kind),
            kind_name(want.kind),
            kind_name(header.kind)
        ));
    }
    if header.graph != want.graph {
        return Some(format!(
            "holds {}, but this run's graph is {}: run on the graph it was saved from, {resave}",
            header.graph, want.graph
        ));
    }
    if header.trustee != want.trustee {
        return Some(format!(
            "holds the shard of trustee {}, not {} (was it renamed?); {resave}",
            header.trustee, want.trustee
        ));
    }
    None
}

/// The trustee counts of the shard files in `dir` (by their names).
fn counts_in(dir: &Path) -> Vec<u32> {
    let mut counts: Vec<u32> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            let rest = name.strip_prefix("shard-")?.strip_suffix(".gshard")?;
            rest.split_once("-of-")?.1.parse().ok()
        })
        .collect();
    counts.sort_unstable();
    counts.dedup();
    counts
}

/// Opens, maps and fully verifies trustee `want.trustee`'s file `path`
/// for the run `want`: the header, that it belongs to this run, the
/// length, every array's checksum, and that the offsets and targets make
/// a shard of `partition`.
pub fn open(path: &Path, want: &Expected, partition: &Partition) -> Result<Shard, PreparedError> {
    let err = |problem| PreparedError {
        path: path.to_path_buf(),
        problem,
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    let dir_s = dir.display().to_string();
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let others: Vec<String> = counts_in(dir)
                .into_iter()
                .filter(|&c| c != want.trustees)
                .map(|c| c.to_string())
                .collect();
            let hint = if others.is_empty() {
                format!(
                    "save the graph first with --save-prepared {dir_s} (with this run's --ranks, --threads and --partition)"
                )
            } else {
                format!(
                    "{dir_s} holds the shards of a run with {} trustees (ranks x threads), this run has {}: re-run with --ranks and --threads giving that many trustees, or re-save with --save-prepared {dir_s}",
                    others.join(" or "),
                    want.trustees
                )
            };
            return Err(err(Problem::NotFound(hint)));
        }
        Err(e) => return Err(err(Problem::Io("inspect", e))),
    };
    if !meta.is_file() {
        return Err(err(Problem::NotARegularFile(kind_of(meta.file_type()))));
    }
    let file = {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)
            .map_err(|e| err(Problem::Io("open", e)))?
    };
    let meta = file
        .metadata()
        .map_err(|e| err(Problem::Io("inspect", e)))?;
    if !meta.is_file() {
        return Err(err(Problem::NotARegularFile(kind_of(meta.file_type()))));
    }
    let actual = meta.len();
    if actual < HEADER_LEN as u64 {
        let mut bytes = Vec::new();
        io::Read::read_to_end(&mut io::Read::take(&file, HEADER_LEN as u64), &mut bytes)
            .map_err(|e| err(Problem::Io("read", e)))?;
        parse_header(&bytes).map_err(err)?;
        return Err(err(Problem::TruncatedHeader(actual)));
    }
    let map = Arc::new(mapped::map_file(&file, true).map_err(|e| err(Problem::Io("map", e)))?);
    let header = parse_header(&map).map_err(err)?;
    if let Some(what) = mismatch(&header, want, &dir_s) {
        return Err(err(Problem::Mismatch(what)));
    }
    let (sections, expected) =
        layout(header.rows, header.entries, header.in_entries).expect("checked by the parse");
    if actual < expected {
        return Err(err(Problem::Truncated { expected, actual }));
    }
    if actual > expected {
        return Err(err(Problem::SizeMismatch { expected, actual }));
    }
    if header.rows != partition.local_count(want.trustee) {
        return Err(err(Problem::BadHeader(format!(
            "{} rows, but trustee {} of this partition owns {} vertices",
            header.rows,
            want.trustee,
            partition.local_count(want.trustee)
        ))));
    }
    let ranges: Vec<_> = sections
        .iter()
        .map(|s| s.start as usize..s.end as usize)
        .collect();
    for (i, r) in ranges.iter().enumerate() {
        if checksum64(&map[r.clone()]) != header.sums[i] {
            return Err(err(Problem::CorruptArray(ARRAYS[i])));
        }
    }
    let offsets: Array<u64> = array(&map, ranges[0].clone());
    let targets: Array<u32> = array(&map, ranges[1].clone());
    let weights: Array<f32> = array(&map, ranges[2].clone());
    if offsets.first() != Some(&0)
        || offsets.last() != Some(&header.entries)
        || offsets.windows(2).any(|w| w[0] > w[1])
    {
        return Err(err(Problem::BadArray(
            "the offsets do not rise from 0 to the entry count".into(),
        )));
    }
    let n = partition.num_vertices();
    if let Some(t) = targets.iter().find(|&&t| u64::from(t) >= n) {
        return Err(err(Problem::BadArray(format!(
            "a target {t} is not a vertex (the graph has {n})"
        ))));
    }
    let shard = Shard::from_arrays(*partition, want.trustee, offsets, targets, weights);
    let Some(in_entries) = header.in_entries else {
        return Ok(shard);
    };
    let in_offsets: Array<u64> = array(&map, ranges[3].clone());
    let in_sources: Array<u32> = array(&map, ranges[4].clone());
    if in_offsets.first() != Some(&0)
        || in_offsets.last() != Some(&in_entries)
        || in_offsets.windows(2).any(|w| w[0] > w[1])
    {
        return Err(err(Problem::BadArray(
            "the in-edge offsets do not rise from 0 to the in-edge entry count".into(),
        )));
    }
    if let Some(t) = in_sources.iter().find(|&&t| u64::from(t) >= n) {
        return Err(err(Problem::BadArray(format!(
            "an in-edge source {t} is not a vertex (the graph has {n})"
        ))));
    }
    Ok(shard.with_in_edges(in_offsets, in_sources))
}

/// Bytes `r` of `map` as an array: viewed in place, or decoded where that
/// is impossible (big-endian hosts).
fn array<T: Plain>(map: &Arc<memmap2::Mmap>, r: std::ops::Range<usize>) -> Array<T> {
    match MappedSlice::new(map, r.clone()) {
        Some(m) => Array::Mapped(m),
        None => Array::Owned(
            map[r]
                .chunks_exact(std::mem::size_of::<T>())
                .map(T::get_le)
                .collect(),
        ),
    }
}

/// Per-trustee state of a save: the staged file, or why it failed.
#[derive(Default)]
struct Saving {
    staged: Option<Staged>,
    error: Option<String>,
}

impl ShardedGraph {
    /// Every trustee writes its shard to `dir/`[`file_name`]`(t, W)` in
    /// its own process, for `graph`. The files are renamed into place
    /// only once every trustee has written and synced its own; on any
    /// failure no new file is left behind. `dir` must exist (on every
    /// rank: shared, or the same path on each host). Call from a fiber.
    pub fn save_prepared(&self, dir: &Path, graph: &GraphIdentity) -> Result<(), KernelError> {
        in_fiber("ShardedGraph::save_prepared")?;
        // A file holds global ids, in input order.
        self.check_global_ids("saving prepared shards")?;
        if graph.directed != self.is_directed() {
            return Err(KernelError::Config(format!(
                "the graph identity says {}directed, but the shards were built {}directed",
                if graph.directed { "" } else { "un" },
                if self.is_directed() { "" } else { "un" },
            )));
        }
        let outcomes = self.on_trustees_with((dir.to_path_buf(), graph.clone()), save_on_trustee);
        first_failure(outcomes).map(|_| ())
    }

    /// The graph of the shards saved in `dir` by [`save_prepared`](Self::save_prepared):
    /// every trustee maps and verifies its own file (see [`open`]).
    /// Refused when a file is missing, damaged or belongs to another run
    /// (trustee count, `kind`, `graph`). Call from a fiber.
    pub fn open_prepared(
        dir: &Path,
        graph: &GraphIdentity,
        kind: PartitionKind,
    ) -> Result<(Self, BuildTimes), KernelError> {
        let start = Instant::now();
        let workers = in_fiber("ShardedGraph::open_prepared")?;
        let n = graph.num_vertices;
        if n > u64::from(u32::MAX) + 1 {
            return Err(KernelError::Config(format!(
                "the graph has {n} vertices; vertex ids are 32-bit, so at most 2^32"
            )));
        }
        let partition = Partition::new(kind, n, 1, workers as u32)?;
        let mut g = ShardedGraph::with_placeholders(partition, graph.num_edges);
        g.set_directed(graph.directed);
        let outcomes = g.on_trustees_with((dir.to_path_buf(), graph.clone()), open_on_trustee);
        first_failure(outcomes)?;
        let total_s = start.elapsed().as_secs_f64();
        Ok((
            g,
            BuildTimes {
                read_s: total_s,
                total_s,
            },
        ))
    }
}

fn save_on_trustee(
    mut ctx: TrusteeCtx,
    (dir, graph): (PathBuf, GraphIdentity),
) -> Result<(), String> {
    let path = dir.join(file_name(ctx.me, ctx.partition.num_trustees()));
    let written = ctx.local.apply_with(
        |s, (path, graph): (PathBuf, GraphIdentity)| {
            let staged = stage(&path, s.shard(), &graph);
            let st = s.kernel::<Saving>(|_| Saving::default()).1;
            match staged {
                Ok(x) => st.staged = Some(x),
                Err(e) => st.error = Some(e.to_string()),
            }
            st.error.is_none()
        },
        (path.clone(), graph),
    );
    let failed = (!written).then(|| {
        ctx.local
            .apply_returning(|s| s.kernel::<Saving>(|_| Saving::default()).1.error.take())
            .unwrap_or_default()
    });
    let all_written = agree(&mut ctx, failed, "write its prepared shard");
    let go = all_written.is_ok();
    // Commit, or drop the staged file (which removes it).
    let committed = ctx.local.apply_with(
        move |s, path: PathBuf| {
            let staged = std::mem::take(s.kernel::<Saving>(|_| Saving::default()).1).staged;
            s.drop_kernel::<Saving>();
            match staged {
                Some(x) if go => commit(x, &path).is_ok(),
                _ => true,
            }
        },
        path.clone(),
    );
    all_written?;
    if !committed {
        return Err(format!(
            "could not rename prepared shard {} into place",
            path.display()
        ));
    }
    Ok(())
}

fn open_on_trustee(
    mut ctx: TrusteeCtx,
    (dir, graph): (PathBuf, GraphIdentity),
) -> Result<(), String> {
    let w = ctx.partition.num_trustees();
    let path = dir.join(file_name(ctx.me, w));
    let want = Expected {
        kind: ctx.partition.kind(),
        trustees: w,
        trustee: ctx.me,
        graph,
    };
    let opened = open(&path, &want, &ctx.partition).map_err(|e| e.to_string());
    agree(
        &mut ctx,
        opened.as_ref().err().cloned(),
        "open its prepared shard",
    )?;
    let shard = opened.expect("checked by agree");
    ctx.local
        .apply_with(|s, shard: Shard| s.replace_shard(shard), shard);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::construct::LocalSource;
    use crate::edge_list::{EdgeList, PackedEdge};

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("gg-prepared-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn list() -> EdgeList<'static> {
        let edges = (0..500u32)
            .map(|i| PackedEdge::new(i % 37, (i * 7 + 3) % 41, (i % 10) as f32 / 10.0))
            .collect();
        EdgeList::from_edges(41, edges).unwrap()
    }

    fn identity() -> GraphIdentity {
        GraphIdentity {
            num_vertices: 41,
            num_edges: 500,
            params: None,
            file_checksum: Some(0x1234),
            unit_weights: false,
            directed: false,
        }
    }

    fn directed_identity() -> GraphIdentity {
        GraphIdentity {
            directed: true,
            ..identity()
        }
    }

    #[test]
    fn a_directed_shard_maps_back_with_its_in_edges() {
        let d = scratch("directed");
        let p = Partition::new(PartitionKind::Cyclic, 41, 1, 3).unwrap();
        let sh = crate::build_rank_with(&list(), &p, 0, true)
            .unwrap()
            .remove(1);
        assert!(sh.is_directed() && !sh.in_index().1.is_empty());
        let path = d.join(file_name(1, 3));
        write(&path, &sh, &directed_identity()).unwrap();
        let dwant = Expected {
            graph: directed_identity(),
            ..want()
        };
        let back = open(&path, &dwant, &p).unwrap();
        assert!(back.is_mapped() && back.is_directed());
        assert_eq!(back, sh);
        assert_eq!(back.heap_bytes(), 0);
        for l in 0..sh.num_local_vertices() {
            assert_eq!(back.in_neighbors(l), sh.in_neighbors(l));
        }
        let bytes = std::fs::read(&path).unwrap();
        let h = parse_header(&bytes).unwrap();
        assert_eq!(h.in_entries, Some(sh.in_index().1.len() as u64));
        assert_eq!(h.sums.len(), 5);
        // Damage in the in-edge index, and a run that expects the graph
        // undirected, are refused.
        let check = |b: &[u8], want_text: &str, w: &Expected| {
            std::fs::write(&path, b).unwrap();
            let e = open(&path, w, &p).unwrap_err().to_string();
            assert!(e.contains(want_text), "{e}");
        };
        let mut v = bytes.clone();
        let last = v.len() - 1;
        v[last] ^= 0x40;
        check(
            &v,
            "its in-edge sources do not match their checksum",
            &dwant,
        );
        check(&bytes, ", directed, but this run's graph is", &want());
        // An undirected shard's file is as before: three arrays, no flag.
        let (_, _, plain) = shard_and_bytes();
        let h = parse_header(&plain).unwrap();
        assert_eq!((h.in_entries, h.sums.len()), (None, 3));
        assert_eq!(u32_at(&plain, OFF_FLAGS) & FLAG_DIRECTED, 0);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn directed_shards_reopen_in_a_runtime() {
        let d = scratch("directed-runtime");
        let source = LocalSource::publish_list(list()).with_direction(true);
        let dir = d.clone();
        let (built, mapped, directed) = gossamer::main(2, move || {
            let (g, _) = ShardedGraph::build_from(source, PartitionKind::Block).unwrap();
            assert!(g.is_directed());
            // The identity must say what the shards are.
            assert!(g.save_prepared(&dir, &identity()).is_err());
            g.save_prepared(&dir, &directed_identity()).unwrap();
            let built = g.on_trustees(|ctx| ctx.local.apply_returning(|s| s.shard().clone()));
            let (m, _) =
                ShardedGraph::open_prepared(&dir, &directed_identity(), PartitionKind::Block)
                    .unwrap();
            let mapped = m.on_trustees(|ctx| ctx.local.apply_returning(|s| s.shard().clone()));
            (built, mapped, m.is_directed())
        });
        source.withdraw();
        assert!(directed);
        assert_eq!(built, mapped);
        assert!(mapped.iter().all(|s| s.is_mapped() && s.is_directed()));
        let _ = std::fs::remove_dir_all(&d);
    }

    fn shard_and_bytes() -> (Shard, Partition, Vec<u8>) {
        let p = Partition::new(PartitionKind::Cyclic, 41, 1, 3).unwrap();
        let sh = crate::build_rank(&list(), &p, 0).unwrap().remove(1);
        let bytes = to_bytes(&sh, &identity());
        (sh, p, bytes)
    }

    fn want() -> Expected {
        Expected {
            kind: PartitionKind::Cyclic,
            trustees: 3,
            trustee: 1,
            graph: identity(),
        }
    }

    #[test]
    fn a_written_shard_maps_back_equal() {
        let d = scratch("roundtrip");
        let (sh, p, bytes) = shard_and_bytes();
        let path = d.join(file_name(1, 3));
        write(&path, &sh, &identity()).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), bytes);
        let back = open(&path, &want(), &p).unwrap();
        assert!(back.is_mapped());
        assert_eq!(back, sh);
        assert_eq!(back.heap_bytes(), 0);
        // A clone shares the mapping; serialized it arrives owned.
        assert!(back.clone().is_mapped());
        let h = parse_header(&bytes).unwrap();
        assert_eq!(
            (h.rows, h.entries),
            (sh.num_local_vertices(), sh.num_entries())
        );
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn damaged_or_foreign_files_are_refused() {
        let d = scratch("refused");
        let (_, p, bytes) = shard_and_bytes();
        let path = d.join(file_name(1, 3));
        let check = |b: &[u8], want_text: &str, w: &Expected| {
            std::fs::write(&path, b).unwrap();
            let e = open(&path, w, &p).unwrap_err().to_string();
            assert!(e.contains(want_text), "{e}");
        };
        let mut v = bytes.clone();
        v[OFF_VERSION] = 2;
        check(&v, "format v2, this build reads v1", &want());
        let mut v = bytes.clone();
        v[OFF_VERTICES] ^= 1;
        check(&v, "corrupt header", &want());
        let mut v = bytes.clone();
        let last = v.len() - 1;
        v[last] ^= 0x40;
        check(&v, "its weights do not match their checksum", &want());
        check(&bytes[..bytes.len() - 5], "is truncated", &want());
        check(&bytes[..100], "fewer than the 512-byte header", &want());
        check(b"not a shard file at all", "not a prepared shard", &want());
        let w = Expected {
            kind: PartitionKind::Block,
            ..want()
        };
        check(
            &bytes,
            "--partition cyclic, this run uses --partition block",
            &w,
        );
        let w = Expected {
            graph: GraphIdentity {
                unit_weights: true,
                ..identity()
            },
            ..want()
        };
        check(&bytes, "with unit weights: run on the graph", &w);
        std::fs::remove_file(&path).unwrap();
        let e = open(&path, &want(), &p).unwrap_err().to_string();
        assert!(e.contains("save the graph first"), "{e}");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn saved_shards_reopen_in_a_runtime() {
        let d = scratch("runtime");
        for kind in [PartitionKind::Block, PartitionKind::Cyclic] {
            let source = LocalSource::publish_list(list());
            let dir = d.clone();
            let (built, mapped) = gossamer::main(2, move || {
                let (g, _) = ShardedGraph::build_from(source, kind).unwrap();
                g.save_prepared(&dir, &identity()).unwrap();
                let built = g.on_trustees(|ctx| ctx.local.apply_returning(|s| s.shard().clone()));
                let (m, _) = ShardedGraph::open_prepared(&dir, &identity(), kind).unwrap();
                assert_eq!(m.num_edges_input(), 500);
                let mapped = m.on_trustees(|ctx| {
                    ctx.local
                        .apply_returning(|s| (s.shard().is_mapped(), s.shard().clone()))
                });
                // Another trustee count finds no files of its own.
                (built, mapped)
            });
            source.withdraw();
            assert!(mapped.iter().all(|(m, _)| *m));
            let mapped: Vec<Shard> = mapped.into_iter().map(|(_, s)| s).collect();
            assert_eq!(built, mapped, "{kind:?}");
        }
        let dir = d.clone();
        let e = gossamer::main(3, move || {
            ShardedGraph::open_prepared(&dir, &identity(), PartitionKind::Block).unwrap_err()
        });
        assert!(
            e.to_string().contains(
                "holds the shards of a run with 2 trustees (ranks x threads), this run has 3"
            ),
            "{e}"
        );
        let names: Vec<_> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 2, "no temporary files left: {names:?}");
        let _ = std::fs::remove_dir_all(&d);
    }
}
