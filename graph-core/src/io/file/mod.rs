//! The versioned binary graph file.
//!
//! A graph file holds one [`EdgeList`] (plus, optionally, up to 64 search
//! roots) and its [`GraphMeta`] (directed or not, weighted or not, the input
//! file's vertex ids) so that a generated or converted graph can be reused
//! and memory-mapped without copying. All integers are little-endian.
//!
//! | offset | size | field |
//! |---:|---:|---|
//! | 0 | 8 | magic `b"GOSGRAPH"` |
//! | 8 | 4 | format version (`u32`, currently [`FORMAT_VERSION`]) |
//! | 12 | 4 | header length in bytes (`u32`, 1024) |
//! | 16 | 4 | record length in bytes (`u32`, 12) |
//! | 20 | 4 | flags (`u32`): bit 0 = Graph500 parameters present; v2 only: bit 1 = directed, bit 2 = unweighted (all weights 1.0), bit 3 = id table present |
//! | 24 | 4 | scale (`u32`) |
//! | 28 | 4 | edgefactor (`u32`) |
//! | 32 | 8 | seed1 (`u64`) |
//! | 40 | 8 | seed2 (`u64`) |
//! | 48 | 8 | vertex count (`u64`, <= 2^32) |
//! | 56 | 8 | edge count (`u64`) |
//! | 64 | 8 | data offset (`u64`, 1024) |
//! | 72 | 8 | data checksum (`u64`, [`checksum64`] of the record bytes) |
//! | 80 | 4 | root count (`u32`, <= 64) |
//! | 84 | 4 | reserved, 0 |
//! | 88 | 512 | roots: 64 x `u64` (unused slots 0) |
//! | 600 | 8 | v2: id base (`u64`): without an id table, file id = dense id + base |
//! | 608 | 8 | v2: id table checksum (`u64`, [`checksum64`] of the table bytes; 0 without one) |
//! | 616 | 400 | reserved, 0 |
//! | 1016 | 8 | header checksum (`u64`, [`checksum64`] of bytes 0..1016) |
//! | 1024 | 12 x edges | records `u32 u, u32 v, f32 w` ([`PackedEdge`]) |
//! | 1024 + 12 x edges | 8 x vertices | v2, flag bit 3 only: id table, `u64` file id of each vertex, strictly increasing |
//!
//! Opened with [`open`], a file is verified whole (the data checksum and
//! every record). A distributed build opens it with [`open_in_slices`]
//! instead: every reader checks only its own slice and hashes the chunks of
//! the data checksum that start there ([`MappedGraph::slice_digests`]), and
//! the builder folds the digests ([`MappedGraph::check_digests`]).
//!
//! The file is exactly `1024 + 12 * edges` bytes, plus `8 * vertices` with
//! an id table. The data starts at a multiple of 4 (and the mapping at a
//! page), so the records are viewed in place as `&[PackedEdge]` after
//! validation; the id table is decoded into memory.
//!
//! Version 1 (before `convert`) has no meta: its flags hold only bit 0 and
//! bytes 600.. are zero. It still opens, as an undirected, weighted graph
//! with ids as they are ([`GraphMeta::default`]). This build writes such
//! graphs (every generated one) as v1, byte for byte as before, so older
//! readers (the C baselines' `ggfile.h`) still read them; a directed,
//! unweighted or renumbered graph is written as v2.
//!
//! ```
//! use graph_core::io::file;
//! use graph_core::{EdgeList, PackedEdge};
//! let list = EdgeList::from_edges(3, vec![PackedEdge::new(0, 2, 0.5)]).unwrap();
//! let path = std::env::temp_dir().join(format!("doc-example-{}.ggraph", std::process::id()));
//! file::write(&path, &list).unwrap();
//! let g = file::open(&path).unwrap();
//! assert_eq!(g.edge_list(), list);
//! # drop(g); std::fs::remove_file(&path).unwrap();
//! ```

mod checksum;

use std::fmt;
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::edge_list::{EdgeList, EdgeListError, Graph500Params, PackedEdge, MAX_VERTICES};
use crate::mapped;
use crate::meta::{GraphMeta, IdMap};
pub use checksum::checksum64;

/// Identifies a gossamer-graph file.
pub const MAGIC: [u8; 8] = *b"GOSGRAPH";
/// Format version this build writes (it reads this one and
/// [`OLDEST_READABLE_VERSION`]..).
pub const FORMAT_VERSION: u32 = 2;
/// The oldest format version this build still opens.
pub const OLDEST_READABLE_VERSION: u32 = 1;
/// Header length in bytes (records start here).
pub const HEADER_LEN: usize = 1024;
/// Maximum number of search roots stored in the header.
pub const MAX_ROOTS: usize = 64;

const FLAG_GRAPH500: u32 = 1;
const FLAG_DIRECTED: u32 = 2;
const FLAG_UNWEIGHTED: u32 = 4;
const FLAG_ID_TABLE: u32 = 8;
const V2_FLAGS: u32 = FLAG_GRAPH500 | FLAG_DIRECTED | FLAG_UNWEIGHTED | FLAG_ID_TABLE;
const OFF_VERSION: usize = 8;
const OFF_HEADER_LEN: usize = 12;
const OFF_RECORD_LEN: usize = 16;
const OFF_FLAGS: usize = 20;
const OFF_SCALE: usize = 24;
const OFF_EDGEFACTOR: usize = 28;
const OFF_SEED1: usize = 32;
const OFF_SEED2: usize = 40;
const OFF_VERTICES: usize = 48;
const OFF_EDGES: usize = 56;
const OFF_DATA: usize = 64;
const OFF_DATA_SUM: usize = 72;
const OFF_NROOTS: usize = 80;
const OFF_ROOTS: usize = 88;
const OFF_ID_BASE: usize = 600;
const OFF_IDS_SUM: usize = 608;
const OFF_HEADER_SUM: usize = HEADER_LEN - 8;

const REGENERATE: &str = "regenerate it with `gossamer-graph generate`";

/// Why a graph file could not be read or written.
#[derive(Debug)]
pub enum GraphFileError {
    /// The file does not exist.
    NotFound {
        /// The path asked for.
        path: PathBuf,
    },
    /// The path to read names something other than a regular file (a
    /// directory, FIFO, device, socket): refused before anything is read.
    NotARegularFile {
        /// The path asked for.
        path: PathBuf,
        /// What it is instead ("directory", "FIFO (named pipe)", ...).
        kind: &'static str,
    },
    /// The path to write already exists and is not a regular file (a
    /// device, directory, symbolic link, FIFO, socket): it is left alone.
    TargetNotARegularFile {
        /// The path asked for.
        path: PathBuf,
        /// What it is ("character device", "symbolic link", ...).
        kind: &'static str,
    },
    /// Another I/O failure.
    Io {
        /// The path involved.
        path: PathBuf,
        /// What was being done.
        action: &'static str,
        /// The underlying error.
        source: io::Error,
    },
    /// Shorter than the 1024-byte header.
    TruncatedHeader {
        /// Bytes present.
        len: u64,
    },
    /// The magic bytes are wrong.
    NotAGraphFile,
    /// Written by another format version.
    WrongVersion {
        /// Version in the file.
        found: u32,
    },
    /// The header checksum does not match.
    CorruptHeader {
        /// Stored checksum.
        stored: u64,
        /// Checksum of the bytes read.
        computed: u64,
    },
    /// A header field is impossible.
    BadHeader {
        /// Which field and why.
        what: String,
    },
    /// Fewer record bytes than the header's edge count needs.
    TruncatedData {
        /// Expected file length.
        expected: u64,
        /// Actual file length.
        actual: u64,
    },
    /// More bytes than the header's counts account for.
    SizeMismatch {
        /// Expected file length.
        expected: u64,
        /// Actual file length.
        actual: u64,
    },
    /// The id table bytes do not match their checksum.
    CorruptIds {
        /// Stored checksum.
        stored: u64,
        /// Checksum of the bytes read.
        computed: u64,
    },
    /// The record bytes do not match the data checksum.
    CorruptData {
        /// Stored checksum.
        stored: u64,
        /// Checksum of the bytes read.
        computed: u64,
    },
    /// A record is invalid (vertex id out of range, bad weight).
    BadEdge(EdgeListError),
}

impl fmt::Display for GraphFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use GraphFileError::*;
        match self {
            NotFound { path } => write!(
                f,
                "graph file {} does not exist: check the path, or create it with `gossamer-graph generate`",
                path.display()
            ),
            NotARegularFile { path, kind } => write!(
                f,
                "cannot read graph file {}: it is a {kind}, not a regular file; pass a file written by `gossamer-graph generate`",
                path.display()
            ),
            TargetNotARegularFile { path, kind } => write!(
                f,
                "refusing to write graph file {}: it exists and is a {kind}, not a regular file (a graph file only replaces a regular file); choose another path",
                path.display()
            ),
            Io { path, action, source } => {
                write!(f, "could not {action} graph file {}: {source}", path.display())
            }
            TruncatedHeader { len: 0 } => write!(
                f,
                "the graph file is empty: it reports 0 bytes (an empty file, or a special file such as those under /proc or /sys); pass a file written by `gossamer-graph generate`"
            ),
            TruncatedHeader { len } => write!(
                f,
                "the graph file is truncated: it has {len} bytes, fewer than the {HEADER_LEN}-byte header; {REGENERATE}"
            ),
            NotAGraphFile => write!(
                f,
                "not a gossamer-graph file (its first bytes are not the GOSGRAPH magic): pass a file written by `gossamer-graph generate`"
            ),
            WrongVersion { found } => write!(
                f,
                "the graph file was written by format v{found}, this build reads v{OLDEST_READABLE_VERSION} to v{FORMAT_VERSION}: {REGENERATE}"
            ),
            CorruptIds { stored, computed } => write!(
                f,
                "the graph file's vertex id table is corrupt (checksum {computed:#018x}, stored {stored:#018x}); {REGENERATE}"
            ),
            CorruptHeader { stored, computed } => write!(
                f,
                "the graph file's header is corrupt (checksum {computed:#018x}, stored {stored:#018x}); {REGENERATE}"
            ),
            BadHeader { what } => write!(f, "the graph file's header is invalid: {what}; {REGENERATE}"),
            TruncatedData { expected, actual } => write!(
                f,
                "the graph file is truncated: its header promises {expected} bytes but it has {actual} (an interrupted write or copy?); {REGENERATE}"
            ),
            SizeMismatch { expected, actual } => write!(
                f,
                "the graph file has {actual} bytes but its header's counts imply {expected}: the counts are inconsistent with the size; {REGENERATE}"
            ),
            CorruptData { stored, computed } => write!(
                f,
                "the graph file's edge data is corrupt (checksum {computed:#018x}, stored {stored:#018x}); {REGENERATE}"
            ),
            BadEdge(e) => write!(f, "the graph file holds an invalid edge: {e}; {REGENERATE}"),
        }
    }
}

impl std::error::Error for GraphFileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            GraphFileError::Io { source, .. } => Some(source),
            GraphFileError::BadEdge(e) => Some(e),
            _ => None,
        }
    }
}

/// How much to verify when reading.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadOptions {
    /// Recompute the data checksum (one parallel pass over the records).
    /// Turn off for huge files you trust; the header checksum, sizes and
    /// vertex-id ranges are always checked.
    pub verify_data_checksum: bool,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            verify_data_checksum: true,
        }
    }
}

/// The decoded header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GraphHeader {
    /// Format version ([`OLDEST_READABLE_VERSION`]..=[`FORMAT_VERSION`]).
    pub version: u32,
    /// Graph500 parameters, if the graph came from the generator.
    pub params: Option<Graph500Params>,
    /// Vertex count.
    pub num_vertices: u64,
    /// Edge (record) count.
    pub num_edges: u64,
    /// Stored checksum of the record bytes.
    pub data_checksum: u64,
    /// Stored search roots (at most 64; may be empty).
    pub roots: Vec<u64>,
    /// The records are arcs (v2 flag; v1: false).
    pub directed: bool,
    /// The records carry real weights (v2 flag; v1: true).
    pub weighted: bool,
    /// File id = dense id + this, when there is no id table (v1: 0).
    pub id_base: u64,
    /// An id table of `num_vertices` entries follows the records.
    pub has_id_table: bool,
    /// Stored checksum of the id table bytes (0 without one).
    pub ids_checksum: u64,
}

impl GraphHeader {
    /// Length of the whole file these counts imply, if representable.
    pub fn file_len(&self) -> Option<u64> {
        let ids = if self.has_id_table {
            self.num_vertices.checked_mul(8)?
        } else {
            0
        };
        expected_len(self.num_edges)?.checked_add(ids)
    }
}

fn u32_at(b: &[u8], off: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[off..off + 4]);
    u32::from_le_bytes(w)
}

fn u64_at(b: &[u8], off: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[off..off + 8]);
    u64::from_le_bytes(w)
}

fn bad(what: impl Into<String>) -> GraphFileError {
    GraphFileError::BadHeader { what: what.into() }
}

/// Decodes and checks the header at the start of `bytes` (which may be the
/// whole file or only its first 1024 bytes). Checks, in order: length,
/// magic, version, header checksum, fields.
pub fn parse_header(bytes: &[u8]) -> Result<GraphHeader, GraphFileError> {
    let n = bytes.len().min(MAGIC.len());
    if bytes[..n] != MAGIC[..n] {
        return Err(GraphFileError::NotAGraphFile);
    }
    if bytes.len() >= OFF_VERSION + 4 {
        let found = u32_at(bytes, OFF_VERSION);
        if !(OLDEST_READABLE_VERSION..=FORMAT_VERSION).contains(&found) {
            return Err(GraphFileError::WrongVersion { found });
        }
    }
    if bytes.len() < HEADER_LEN {
        return Err(GraphFileError::TruncatedHeader {
            len: bytes.len() as u64,
        });
    }
    let h = &bytes[..HEADER_LEN];
    let stored = u64_at(h, OFF_HEADER_SUM);
    let computed = checksum64(&h[..OFF_HEADER_SUM]);
    if stored != computed {
        return Err(GraphFileError::CorruptHeader { stored, computed });
    }
    if u32_at(h, OFF_HEADER_LEN) as usize != HEADER_LEN {
        return Err(bad(format!(
            "header length {} (expected {HEADER_LEN})",
            u32_at(h, OFF_HEADER_LEN)
        )));
    }
    if u32_at(h, OFF_RECORD_LEN) as usize != PackedEdge::BYTES {
        return Err(bad(format!(
            "record length {} (expected 12)",
            u32_at(h, OFF_RECORD_LEN)
        )));
    }
    if u64_at(h, OFF_DATA) != HEADER_LEN as u64 {
        return Err(bad(format!(
            "data offset {} (expected {HEADER_LEN})",
            u64_at(h, OFF_DATA)
        )));
    }
    let version = u32_at(h, OFF_VERSION);
    let flags = u32_at(h, OFF_FLAGS);
    let known = if version == 1 {
        FLAG_GRAPH500
    } else {
        V2_FLAGS
    };
    if flags & !known != 0 {
        return Err(bad(format!(
            "unknown flags {flags:#x} for format v{version}"
        )));
    }
    let (id_base, ids_checksum) = if version == 1 {
        (0, 0)
    } else {
        (u64_at(h, OFF_ID_BASE), u64_at(h, OFF_IDS_SUM))
    };
    let has_id_table = flags & FLAG_ID_TABLE != 0;
    if has_id_table && id_base != 0 {
        return Err(bad("both an id table and an id base"));
    }
    if flags & FLAG_GRAPH500 != 0 && flags & (FLAG_DIRECTED | FLAG_UNWEIGHTED | FLAG_ID_TABLE) != 0
    {
        return Err(bad(
            "a Graph500 graph marked directed, unweighted or renumbered",
        ));
    }
    let num_vertices = u64_at(h, OFF_VERTICES);
    let num_edges = u64_at(h, OFF_EDGES);
    if num_vertices > MAX_VERTICES {
        return Err(bad(format!(
            "{num_vertices} vertices (at most 2^32 supported)"
        )));
    }
    let params = if flags & FLAG_GRAPH500 != 0 {
        let p = Graph500Params {
            scale: u32_at(h, OFF_SCALE),
            edgefactor: u32_at(h, OFF_EDGEFACTOR),
            seed1: u64_at(h, OFF_SEED1),
            seed2: u64_at(h, OFF_SEED2),
        };
        let (pn, pm) = match (p.num_vertices(), p.num_edges()) {
            (Ok(pn), Ok(pm)) => (pn, pm),
            (Err(e), _) | (_, Err(e)) => return Err(bad(e.to_string())),
        };
        if pn != num_vertices || pm != num_edges {
            return Err(bad(format!(
                "SCALE {} edgefactor {} implies {pn} vertices and {pm} edges, but the counts say {num_vertices} and {num_edges}",
                p.scale, p.edgefactor
            )));
        }
        Some(p)
    } else {
        None
    };
    let nroots = u32_at(h, OFF_NROOTS) as usize;
    if nroots > MAX_ROOTS {
        return Err(bad(format!("{nroots} roots (at most {MAX_ROOTS})")));
    }
    let roots: Vec<u64> = (0..nroots).map(|i| u64_at(h, OFF_ROOTS + 8 * i)).collect();
    if let Some(r) = roots.iter().find(|&&r| r >= num_vertices) {
        return Err(bad(format!(
            "root {r} is not a vertex (graph has {num_vertices})"
        )));
    }
    Ok(GraphHeader {
        version,
        params,
        num_vertices,
        num_edges,
        data_checksum: u64_at(h, OFF_DATA_SUM),
        roots,
        directed: flags & FLAG_DIRECTED != 0,
        weighted: flags & FLAG_UNWEIGHTED == 0,
        id_base,
        has_id_table,
        ids_checksum,
    })
}

/// Expected file length for `num_edges` records, if representable.
fn expected_len(num_edges: u64) -> Option<u64> {
    num_edges
        .checked_mul(PackedEdge::BYTES as u64)?
        .checked_add(HEADER_LEN as u64)
}

/// A graph parsed from bytes: header plus edge list (borrowed from the
/// bytes when aligned on a little-endian host, otherwise decoded).
#[derive(Clone, Debug, PartialEq)]
pub struct ParsedGraph<'a> {
    /// The header.
    pub header: GraphHeader,
    /// The edges.
    pub edges: EdgeList<'a>,
    /// Directed, weighted, the file's ids.
    pub meta: GraphMeta,
}

/// Parses a whole graph file held in memory, with full verification.
/// Never panics; any byte string gives either a graph or an error.
///
/// ```
/// use graph_core::io::file::{self, GraphFileError};
/// assert!(matches!(file::parse(b"hello"), Err(GraphFileError::NotAGraphFile)));
/// ```
pub fn parse(bytes: &[u8]) -> Result<ParsedGraph<'_>, GraphFileError> {
    parse_with(bytes, ReadOptions::default())
}

/// What can be checked of a graph file without reading its records: the
/// header, the length against the counts, the id table. Returns the
/// header, the meta and the record bytes (unread).
fn parse_layout(bytes: &[u8]) -> Result<(GraphHeader, GraphMeta, &[u8]), GraphFileError> {
    let header = parse_header(bytes)?;
    let actual = bytes.len() as u64;
    let expected = match header.file_len() {
        Some(e) => e,
        None => {
            return Err(GraphFileError::SizeMismatch {
                expected: u64::MAX,
                actual,
            })
        }
    };
    if actual < expected {
        return Err(GraphFileError::TruncatedData { expected, actual });
    }
    if actual > expected {
        return Err(GraphFileError::SizeMismatch { expected, actual });
    }
    // Both fit: the length was checked against their sum.
    let data_end = HEADER_LEN + header.num_edges as usize * PackedEdge::BYTES;
    let data = &bytes[HEADER_LEN..data_end];
    let meta = meta_of(&header, header.has_id_table.then(|| &bytes[data_end..]))?;
    Ok((header, meta, data))
}

/// [`parse`] with options (e.g. skipping the data checksum).
pub fn parse_with(bytes: &[u8], opts: ReadOptions) -> Result<ParsedGraph<'_>, GraphFileError> {
    let (header, meta, data) = parse_layout(bytes)?;
    if opts.verify_data_checksum {
        let computed = checksum64(data);
        if computed != header.data_checksum {
            return Err(GraphFileError::CorruptData {
                stored: header.data_checksum,
                computed,
            });
        }
    }
    let records: std::borrow::Cow<'_, [PackedEdge]> = match mapped::records_from_bytes(data) {
        Some(r) => r.into(),
        None => data
            .chunks_exact(PackedEdge::BYTES)
            .map(|c| {
                let mut b = [0u8; 12];
                b.copy_from_slice(c);
                PackedEdge::from_le_bytes(b)
            })
            .collect::<Vec<_>>()
            .into(),
    };
    let edges = match header.params {
        Some(p) => EdgeList::from_graph500(p, records),
        None => match records {
            std::borrow::Cow::Borrowed(r) => EdgeList::borrowed(header.num_vertices, r),
            std::borrow::Cow::Owned(r) => EdgeList::from_edges(header.num_vertices, r),
        },
    }
    .map_err(GraphFileError::BadEdge)?;
    edges.validate().map_err(GraphFileError::BadEdge)?;
    Ok(ParsedGraph {
        header,
        edges,
        meta,
    })
}

/// The oldest version that can say `meta`: 1 for an undirected, weighted
/// graph with its own ids (every generated graph, byte-identical to what
/// earlier builds and the C converter of `mpi-baselines/` write, so their
/// readers keep working), [`FORMAT_VERSION`] otherwise.
fn version_for(meta: &GraphMeta) -> u32 {
    if *meta == GraphMeta::default() {
        OLDEST_READABLE_VERSION
    } else {
        FORMAT_VERSION
    }
}

/// Encodes the header for `list` with the given data checksum, roots and meta.
fn encode_header(
    list: &EdgeList<'_>,
    data_checksum: u64,
    roots: &[u64],
    meta: &GraphMeta,
) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    let put32 = |h: &mut [u8; HEADER_LEN], off: usize, x: u32| {
        h[off..off + 4].copy_from_slice(&x.to_le_bytes())
    };
    let put64 = |h: &mut [u8; HEADER_LEN], off: usize, x: u64| {
        h[off..off + 8].copy_from_slice(&x.to_le_bytes())
    };
    h[..8].copy_from_slice(&MAGIC);
    put32(&mut h, OFF_VERSION, version_for(meta));
    put32(&mut h, OFF_HEADER_LEN, HEADER_LEN as u32);
    put32(&mut h, OFF_RECORD_LEN, PackedEdge::BYTES as u32);
    let mut flags = 0;
    if meta.directed {
        flags |= FLAG_DIRECTED;
    }
    if !meta.weighted {
        flags |= FLAG_UNWEIGHTED;
    }
    match &meta.ids {
        IdMap::Offset(base) => put64(&mut h, OFF_ID_BASE, *base),
        IdMap::Table(t) => {
            flags |= FLAG_ID_TABLE;
            put64(&mut h, OFF_IDS_SUM, checksum64(&id_table_bytes(t)));
        }
    }
    if let Some(p) = list.params() {
        flags |= FLAG_GRAPH500;
        put32(&mut h, OFF_SCALE, p.scale);
        put32(&mut h, OFF_EDGEFACTOR, p.edgefactor);
        put64(&mut h, OFF_SEED1, p.seed1);
        put64(&mut h, OFF_SEED2, p.seed2);
    }
    put32(&mut h, OFF_FLAGS, flags);
    put64(&mut h, OFF_VERTICES, list.num_vertices());
    put64(&mut h, OFF_EDGES, list.num_edges());
    put64(&mut h, OFF_DATA, HEADER_LEN as u64);
    put64(&mut h, OFF_DATA_SUM, data_checksum);
    put32(&mut h, OFF_NROOTS, roots.len() as u32);
    for (i, &r) in roots.iter().enumerate() {
        put64(&mut h, OFF_ROOTS + 8 * i, r);
    }
    let sum = checksum64(&h[..OFF_HEADER_SUM]);
    put64(&mut h, OFF_HEADER_SUM, sum);
    h
}

/// The whole file as bytes (header + records), for tests, fuzz seeds and
/// small graphs. Fails like [`write_with_roots`] on invalid input.
pub fn to_bytes(list: &EdgeList<'_>, roots: &[u64]) -> Result<Vec<u8>, GraphFileError> {
    to_bytes_with_meta(list, roots, &GraphMeta::default())
}

/// [`to_bytes`] with a [`GraphMeta`] (see [`write_graph`]).
pub fn to_bytes_with_meta(
    list: &EdgeList<'_>,
    roots: &[u64],
    meta: &GraphMeta,
) -> Result<Vec<u8>, GraphFileError> {
    check_writable(list, roots, meta)?;
    let data = record_bytes(list);
    let ids = id_section(meta);
    let mut out = Vec::with_capacity(HEADER_LEN + data.len() + ids.len());
    out.extend_from_slice(&encode_header(list, checksum64(&data), roots, meta));
    out.extend_from_slice(&data);
    out.extend_from_slice(&ids);
    Ok(out)
}

fn id_table_bytes(t: &[u64]) -> Vec<u8> {
    t.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The bytes after the records: the id table, if any.
fn id_section(meta: &GraphMeta) -> Vec<u8> {
    match &meta.ids {
        IdMap::Table(t) => id_table_bytes(t),
        IdMap::Offset(_) => Vec::new(),
    }
}

fn check_writable(
    list: &EdgeList<'_>,
    roots: &[u64],
    meta: &GraphMeta,
) -> Result<(), GraphFileError> {
    list.validate().map_err(GraphFileError::BadEdge)?;
    meta.ids.check(list.num_vertices()).map_err(bad)?;
    if list.params().is_some() && *meta != GraphMeta::default() {
        return Err(bad(
            "a Graph500 graph is undirected, weighted and keeps its ids",
        ));
    }
    if roots.len() > MAX_ROOTS {
        return Err(bad(format!(
            "{} roots given, at most {MAX_ROOTS} fit",
            roots.len()
        )));
    }
    if let Some(r) = roots.iter().find(|&&r| r >= list.num_vertices()) {
        return Err(bad(format!("root {r} is not a vertex of the graph")));
    }
    Ok(())
}

fn record_bytes<'a>(list: &'a EdgeList<'_>) -> std::borrow::Cow<'a, [u8]> {
    match mapped::records_as_bytes(list.edges()) {
        Some(b) => b.into(),
        None => list
            .edges()
            .iter()
            .flat_map(|e| e.to_le_bytes())
            .collect::<Vec<u8>>()
            .into(),
    }
}

/// Writes `list` to `path` (no roots). See [`write_with_roots`].
pub fn write(path: impl AsRef<Path>, list: &EdgeList<'_>) -> Result<(), GraphFileError> {
    write_with_roots(path, list, &[])
}

/// What a file type is, in words, for messages.
pub(crate) fn kind_of(t: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_dir() {
        "directory"
    } else if t.is_symlink() {
        "symbolic link"
    } else if t.is_fifo() {
        "FIFO (named pipe)"
    } else if t.is_char_device() {
        "character device"
    } else if t.is_block_device() {
        "block device"
    } else if t.is_socket() {
        "socket"
    } else if t.is_file() {
        "regular file"
    } else {
        "special file"
    }
}

/// Checks that `path` can be the target of [`write_with_roots`]: it does not
/// exist, or it is a regular file (not a symbolic link to one: the link
/// itself would be replaced). Callers may use it to refuse a bad target
/// before long work; the writer checks again before writing and before the
/// rename.
pub fn check_write_target(path: impl AsRef<Path>) -> Result<(), GraphFileError> {
    let path = path.as_ref();
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_file() => Ok(()),
        Ok(m) => Err(GraphFileError::TargetNotARegularFile {
            path: path.to_path_buf(),
            kind: kind_of(m.file_type()),
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(GraphFileError::Io {
            path: path.to_path_buf(),
            action: "inspect",
            source,
        }),
    }
}

/// Creates a new, uniquely named temporary file next to `path`, exclusively
/// (`O_CREAT|O_EXCL`, and `O_NOFOLLOW`): an existing file or symbolic link
/// of that name is never opened, followed or removed; another name is tried.
pub(crate) fn create_temp_beside(path: &Path) -> io::Result<(File, PathBuf)> {
    use std::os::unix::fs::OpenOptionsExt;
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut last = None;
    for _ in 0..64 {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let tmp = dir.join(format!(
            ".{name}.{}-{}-{nanos:08x}.tmp",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&tmp)
        {
            Ok(f) => return Ok((f, tmp)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no free temporary name")))
}

/// Writes `list` and up to 64 search roots to `path`, atomically: the bytes
/// go to a new temporary file created exclusively in the same directory,
/// which is synced and then renamed over `path`, so a crash never leaves a
/// half-written file under the final name and readers see the old or the
/// new file. A `path` that exists and is not a regular file (a device such
/// as `/dev/null`, a directory, a symbolic link, a FIFO) is refused and left
/// untouched ([`GraphFileError::TargetNotARegularFile`]). On any failure the
/// temporary file is removed and `path` is unchanged.
pub fn write_with_roots(
    path: impl AsRef<Path>,
    list: &EdgeList<'_>,
    roots: &[u64],
) -> Result<(), GraphFileError> {
    write_graph(path, list, roots, &GraphMeta::default())
}

/// [`write_with_roots`] for any graph: `meta` says whether it is directed
/// and weighted and which ids its input file used (stored in the header
/// and, for an id table, after the records). An unweighted graph's records
/// should carry weight 1.0 (the readers of the `convert` formats do so).
pub fn write_graph(
    path: impl AsRef<Path>,
    list: &EdgeList<'_>,
    roots: &[u64],
    meta: &GraphMeta,
) -> Result<(), GraphFileError> {
    let path = path.as_ref();
    check_writable(list, roots, meta)?;
    check_write_target(path)?;
    let data = record_bytes(list);
    let ids = id_section(meta);
    let header = encode_header(list, checksum64(&data), roots, meta);
    let io_err = |action: &'static str| {
        let p = path.to_path_buf();
        move |source| GraphFileError::Io {
            path: p,
            action,
            source,
        }
    };
    let staged = Staged::write(path, |f| {
        f.write_all(&header)?;
        f.write_all(&data)?;
        f.write_all(&ids)
    })
    .map_err(|(action, source)| io_err(action)(source))?;
    staged.commit().map_err(|e| match e {
        CommitError::Target(e) => e,
        CommitError::Rename(source) => io_err("rename")(source),
    })
}

/// A file written in full under a new, unique temporary name beside its
/// target and synced, not yet in place: [`Staged::commit`] renames it
/// over the target; dropping it uncommitted removes it. So a target is
/// replaced whole or not at all, and several files can be written first
/// and committed together (a prepared graph's shards).
pub(crate) struct Staged {
    tmp: PathBuf,
    path: PathBuf,
    committed: bool,
}

/// Why [`Staged::commit`] failed.
pub(crate) enum CommitError {
    /// The target became something other than a regular file.
    Target(GraphFileError),
    /// The rename failed.
    Rename(io::Error),
}

impl Staged {
    /// Writes `fill`'s bytes (buffered) to a new temporary file beside
    /// `path` and syncs it. On failure nothing is left behind and the
    /// error says which step failed.
    pub(crate) fn write(
        path: &Path,
        fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<Staged, (&'static str, io::Error)> {
        let (file, tmp) =
            create_temp_beside(path).map_err(|e| ("create a temporary file for", e))?;
        let staged = Staged {
            tmp,
            path: path.to_path_buf(),
            committed: false,
        };
        let mut f = io::BufWriter::with_capacity(1 << 20, file);
        fill(&mut f).map_err(|e| ("write", e))?;
        let f = f.into_inner().map_err(|e| ("write", e.into_error()))?;
        f.sync_all().map_err(|e| ("sync", e))?;
        Ok(staged)
    }

    /// Renames the file over its target, after checking again that the
    /// target is absent or a regular file (it may have changed while the
    /// data was written).
    pub(crate) fn commit(mut self) -> Result<(), CommitError> {
        check_write_target(&self.path).map_err(CommitError::Target)?;
        std::fs::rename(&self.tmp, &self.path).map_err(CommitError::Rename)?;
        self.committed = true;
        Ok(())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// A graph file mapped into memory, validated; its edge list is a
/// zero-copy view of the mapping.
///
/// The file must not be modified while it is open (graph files are
/// write-once; [`write()`] replaces files by rename, which is safe).
pub struct MappedGraph {
    header: GraphHeader,
    meta: GraphMeta,
    storage: Storage,
    /// Every record was checked on open ([`open`]); otherwise the records
    /// are checked slice by slice before a build reads them
    /// ([`open_in_slices`]).
    verified: bool,
}

enum Storage {
    Mapped(memmap2::Mmap),
    /// Decoded copy, used only where a zero-copy view is impossible
    /// (big-endian hosts).
    Owned(Vec<PackedEdge>),
}

impl fmt::Debug for MappedGraph {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MappedGraph")
            .field("header", &self.header)
            .field("verified", &self.verified)
            .finish_non_exhaustive()
    }
}

impl MappedGraph {
    /// The decoded header.
    pub fn header(&self) -> &GraphHeader {
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

    /// The edge records, borrowed from the mapping.
    pub fn edges(&self) -> &[PackedEdge] {
        match &self.storage {
            // Length, alignment and byte order were checked by `open`, so
            // the view exists; an empty slice is unreachable in practice.
            Storage::Mapped(m) => {
                let end = HEADER_LEN + self.header.num_edges as usize * PackedEdge::BYTES;
                mapped::records_from_bytes(&m[HEADER_LEN..end]).unwrap_or(&[])
            }
            Storage::Owned(v) => v,
        }
    }

    /// The graph as a borrowed [`EdgeList`] (zero-copy).
    ///
    /// # Panics
    ///
    /// On a graph opened with [`open_in_slices`], whose records were not
    /// all checked: an edge list promises valid records.
    pub fn edge_list(&self) -> EdgeList<'_> {
        assert!(
            self.verified,
            "a graph file opened in slices has no edge list: open it with file::open"
        );
        // `open` validated these parts together (counts, ids, weights).
        EdgeList::from_validated_parts(
            self.header.num_vertices,
            self.header.params,
            self.edges().into(),
        )
    }

    /// Whether every record was checked when the file was opened ([`open`]);
    /// `false` after [`open_in_slices`] until each slice is checked.
    pub fn is_verified(&self) -> bool {
        self.verified
    }

    /// The digests of the data checksum's chunks that *start* in the bytes
    /// of records `range` (a chunk may reach into the next range), in
    /// order, for [`check_digests`](Self::check_digests) to fold with every
    /// other range's: ranges that cover the records in order give every
    /// chunk's digest. A trustee of a build hashes its own slice this way,
    /// on the calling thread. On a verified graph there is nothing left to
    /// check: no digests. A range beyond the records is cut to them.
    pub fn slice_digests(&self, range: std::ops::Range<u64>) -> Vec<u64> {
        let (Storage::Mapped(map), false) = (&self.storage, self.verified) else {
            return Vec::new();
        };
        let m = self.header.num_edges as usize;
        let data = &map[HEADER_LEN..HEADER_LEN + m * PackedEdge::BYTES];
        let (start, end) = self.cut(range);
        let first = (start * PackedEdge::BYTES).div_ceil(checksum::CHUNK);
        let last = (end * PackedEdge::BYTES).div_ceil(checksum::CHUNK);
        (first..last)
            .map(|i| {
                let at = i * checksum::CHUNK;
                let chunk = &data[at..(at + checksum::CHUNK).min(data.len())];
                checksum::chunk_digest(chunk, i as u64)
            })
            .collect()
    }

    /// Checks the ids and weights of records `range` (cut to the records)
    /// of a graph opened with [`open_in_slices`], on the calling thread;
    /// the first bad record is named by its index in the whole file. `Ok`
    /// on a verified graph.
    pub fn check_slice(&self, range: std::ops::Range<u64>) -> Result<(), GraphFileError> {
        if self.verified {
            return Ok(());
        }
        let (start, end) = self.cut(range);
        let records = &self.edges()[start..end];
        crate::edge_list::check_records(records, self.header.num_vertices, start as u64, false)
            .map_err(GraphFileError::BadEdge)
    }

    /// Gives the pages of records `range` of a graph opened with
    /// [`open_in_slices`] back (`madvise(MADV_DONTNEED)`): a reader done
    /// with them keeps only what it is reading resident; touched again,
    /// they are read from the file. Nothing on a verified graph (kept
    /// whole for the commands that read it whole).
    pub fn release(&self, range: std::ops::Range<u64>) {
        if let (Storage::Mapped(map), false) = (&self.storage, self.verified) {
            let (start, end) = self.cut(range);
            let b = PackedEdge::BYTES;
            mapped::release(map, HEADER_LEN + start * b..HEADER_LEN + end * b);
        }
    }

    /// `range` cut to the records, as indices (start <= end).
    fn cut(&self, range: std::ops::Range<u64>) -> (usize, usize) {
        let m = self.header.num_edges;
        let end = range.end.min(m);
        (range.start.min(end) as usize, end as usize)
    }

    /// Folds the digests [`slice_digests`](Self::slice_digests) returned
    /// for ranges that cover the records in order, and compares the
    /// checksum with the header's: [`GraphFileError::CorruptData`] if they
    /// differ. `Ok` on a verified graph.
    pub fn check_digests(&self, digests: &[u64]) -> Result<(), GraphFileError> {
        if self.verified {
            return Ok(());
        }
        let len = self.header.num_edges as usize * PackedEdge::BYTES;
        // Empty data is one empty chunk, which no slice starts.
        let empty = [checksum::chunk_digest(&[], 0)];
        let digests = if len == 0 { &empty[..] } else { digests };
        let want = checksum::chunk_count(len);
        if digests.len() != want {
            return Err(GraphFileError::BadHeader {
                what: format!(
                    "the build's slices hashed {} of the data checksum's {want} chunks (the ranks disagree about the file)",
                    digests.len()
                ),
            });
        }
        let computed = checksum::fold(len, digests.iter().copied());
        if computed != self.header.data_checksum {
            return Err(GraphFileError::CorruptData {
                stored: self.header.data_checksum,
                computed,
            });
        }
        Ok(())
    }
}

/// Opens, maps and fully verifies a graph file.
pub fn open(path: impl AsRef<Path>) -> Result<MappedGraph, GraphFileError> {
    open_with(path, ReadOptions::default())
}

/// How a failed read of the graph file at `path`, while doing `action`, is
/// reported: a missing file as [`GraphFileError::NotFound`].
fn read_err(path: &Path, action: &'static str) -> impl FnOnce(io::Error) -> GraphFileError {
    let p = path.to_path_buf();
    move |source| {
        if source.kind() == io::ErrorKind::NotFound {
            GraphFileError::NotFound { path: p }
        } else {
            GraphFileError::Io {
                path: p,
                action,
                source,
            }
        }
    }
}

/// Reads only a graph file's header and id table (not its records): what
/// a run on a prepared graph ([`crate::io::prepared`]) needs to know of the
/// graph (its identity, roots and meta). Checks the header and id table
/// checksums and that the length matches the counts; the records are
/// neither read nor verified.
pub fn open_header(path: impl AsRef<Path>) -> Result<(GraphHeader, GraphMeta), GraphFileError> {
    use std::io::{Read, Seek};
    let path = path.as_ref();
    let io_err = |action: &'static str| read_err(path, action);
    let meta = std::fs::metadata(path).map_err(io_err("inspect"))?;
    if !meta.file_type().is_file() {
        return Err(GraphFileError::NotARegularFile {
            path: path.to_path_buf(),
            kind: kind_of(meta.file_type()),
        });
    }
    let mut file = {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)
            .map_err(io_err("open"))?
    };
    let actual = file.metadata().map_err(io_err("inspect"))?.len();
    let mut bytes = Vec::with_capacity(HEADER_LEN);
    (&mut file)
        .take(HEADER_LEN as u64)
        .read_to_end(&mut bytes)
        .map_err(io_err("read"))?;
    let header = parse_header(&bytes)?;
    let expected = header.file_len().ok_or(GraphFileError::SizeMismatch {
        expected: u64::MAX,
        actual,
    })?;
    if actual < expected {
        return Err(GraphFileError::TruncatedData { expected, actual });
    }
    if actual > expected {
        return Err(GraphFileError::SizeMismatch { expected, actual });
    }
    let ids = if header.has_id_table {
        let start = expected - header.num_vertices * 8;
        file.seek(io::SeekFrom::Start(start))
            .map_err(io_err("read"))?;
        let mut table = Vec::with_capacity((header.num_vertices * 8) as usize);
        file.read_to_end(&mut table).map_err(io_err("read"))?;
        Some(table)
    } else {
        None
    };
    let meta = meta_of(&header, ids.as_deref())?;
    Ok((header, meta))
}

/// What the header and the id table (when the header says there is one)
/// say the records mean; the table is checked against its checksum and
/// the vertex count.
fn meta_of(header: &GraphHeader, table: Option<&[u8]>) -> Result<GraphMeta, GraphFileError> {
    let ids = match table {
        Some(table) => {
            let computed = checksum64(table);
            if computed != header.ids_checksum {
                return Err(GraphFileError::CorruptIds {
                    stored: header.ids_checksum,
                    computed,
                });
            }
            let t = IdMap::Table(table.chunks_exact(8).map(|c| u64_at(c, 0)).collect());
            t.check(header.num_vertices).map_err(bad)?;
            t
        }
        None => IdMap::Offset(header.id_base),
    };
    Ok(GraphMeta {
        directed: header.directed,
        weighted: header.weighted,
        ids,
    })
}

/// [`open`] with options (e.g. skip the data checksum for huge files).
pub fn open_with(path: impl AsRef<Path>, opts: ReadOptions) -> Result<MappedGraph, GraphFileError> {
    open_mapping(path.as_ref(), Some(opts))
}

/// Opens and maps a graph file whose records a distributed build reads
/// slice by slice, without reading them here: the header, the length, the
/// Graph500 counts and the id table are checked now; the records' ids,
/// weights and data checksum are checked by each reader for its own
/// slice ([`MappedGraph::check_slice`], [`MappedGraph::check_digests`])
/// before anything is built from them. So a process touches only the
/// pages of the slices it reads, and a rack on a shared filesystem reads
/// the file once in all, not once per rank. The graph has no
/// [`edge_list`](MappedGraph::edge_list). Where the records cannot be
/// viewed in place (a big-endian host) this is [`open`].
pub fn open_in_slices(path: impl AsRef<Path>) -> Result<MappedGraph, GraphFileError> {
    open_mapping(path.as_ref(), None)
}

/// [`open_with`] (`full`), or [`open_in_slices`] (`None`).
fn open_mapping(path: &Path, full: Option<ReadOptions>) -> Result<MappedGraph, GraphFileError> {
    let io_err = |action: &'static str| read_err(path, action);
    // Only a regular file can be a graph file. Look before opening (a FIFO
    // would block `open` until a writer comes, a device or /proc file may
    // never end), and again on the opened file (the path may have changed
    // in between; O_NONBLOCK keeps even that `open` from blocking).
    let not_regular = |t: std::fs::FileType| GraphFileError::NotARegularFile {
        path: path.to_path_buf(),
        kind: kind_of(t),
    };
    let meta = std::fs::metadata(path).map_err(io_err("inspect"))?;
    if !meta.file_type().is_file() {
        return Err(not_regular(meta.file_type()));
    }
    let file = {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)
            .map_err(io_err("open"))?
    };
    let meta = file.metadata().map_err(io_err("inspect"))?;
    if !meta.file_type().is_file() {
        return Err(not_regular(meta.file_type()));
    }
    let len = meta.len();
    if len == 0 {
        // Empty, or a file that reports no length (/proc, /sys): nothing to read.
        return Err(GraphFileError::TruncatedHeader { len: 0 });
    }
    if len < HEADER_LEN as u64 {
        // Too short to map usefully: read those few bytes (never more than a
        // header's worth) for a precise error.
        let mut bytes = Vec::with_capacity(HEADER_LEN);
        io::Read::read_to_end(&mut io::Read::take(&file, HEADER_LEN as u64), &mut bytes)
            .map_err(io_err("read"))?;
        parse_header(&bytes)?;
        return Err(GraphFileError::TruncatedHeader { len });
    }
    let map = mapped::map_file(&file, full.is_some()).map_err(io_err("map"))?;
    if full.is_none() {
        let (header, meta, data) = parse_layout(&map)?;
        if let Some(records) = mapped::records_from_bytes(data) {
            // The record count against the Graph500 parameters; nothing
            // of the records is read.
            if let Some(p) = header.params {
                EdgeList::from_graph500(p, records).map_err(GraphFileError::BadEdge)?;
            }
            return Ok(MappedGraph {
                header,
                meta,
                storage: Storage::Mapped(map),
                verified: false,
            });
        }
    }
    let opts = full.unwrap_or_default();
    let (header, meta, decoded) = {
        let parsed = parse_with(&map, opts)?;
        let decoded = (!parsed.edges.is_borrowed()).then(|| parsed.edges.edges().to_vec());
        (parsed.header, parsed.meta, decoded)
    };
    let storage = match decoded {
        None => Storage::Mapped(map),
        Some(v) => Storage::Owned(v),
    };
    Ok(MappedGraph {
        header,
        meta,
        storage,
        verified: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> EdgeList<'static> {
        let p = Graph500Params::reference(2);
        let edges = (0..64u32)
            .map(|i| PackedEdge::new(i % 4, (i * 3 + 1) % 4, i as f32 / 64.0))
            .collect::<Vec<_>>();
        EdgeList::from_graph500(p, edges).unwrap()
    }

    /// Rewrites the header checksum after a deliberate header edit.
    fn reseal(b: &mut [u8]) {
        let s = checksum64(&b[..OFF_HEADER_SUM]);
        b[OFF_HEADER_SUM..HEADER_LEN].copy_from_slice(&s.to_le_bytes());
    }

    #[test]
    fn bytes_round_trip_with_roots() {
        let list = sample();
        let bytes = to_bytes(&list, &[3, 1]).unwrap();
        assert_eq!(bytes.len(), HEADER_LEN + 64 * 12);
        let g = parse(&bytes).unwrap();
        assert_eq!(g.edges, list);
        assert_eq!(g.header.roots, [3, 1]);
        assert_eq!(g.header.params, Some(Graph500Params::reference(2)));
    }

    #[test]
    fn every_error_kind_from_bytes() {
        let good = to_bytes(&sample(), &[]).unwrap();
        assert!(matches!(
            parse(&[]),
            Err(GraphFileError::TruncatedHeader { len: 0 })
        ));
        assert!(matches!(
            parse(&good[..100]),
            Err(GraphFileError::TruncatedHeader { len: 100 })
        ));
        assert!(matches!(
            parse(b"PK\x03\x04zipfile"),
            Err(GraphFileError::NotAGraphFile)
        ));

        let mut v = good.clone();
        v[OFF_VERSION] = 7;
        let e = parse(&v).unwrap_err();
        assert!(matches!(e, GraphFileError::WrongVersion { found: 7 }));
        assert!(e.to_string().contains("written by format v7, this build reads v1 to v2: regenerate it with `gossamer-graph generate`"));

        let mut v = good.clone();
        v[OFF_EDGES] ^= 1;
        assert!(matches!(
            parse(&v),
            Err(GraphFileError::CorruptHeader { .. })
        ));

        let mut v = good.clone();
        v[HEADER_LEN + 5] ^= 0x40;
        assert!(matches!(parse(&v), Err(GraphFileError::CorruptData { .. })));
        let skip = ReadOptions {
            verify_data_checksum: false,
        };
        assert!(
            parse_with(&v, skip).is_ok()
                || matches!(parse_with(&v, skip), Err(GraphFileError::BadEdge(_)))
        );

        assert!(matches!(
            parse(&good[..good.len() - 1]),
            Err(GraphFileError::TruncatedData { .. })
        ));
        let mut v = good.clone();
        v.extend_from_slice(&[0; 12]);
        assert!(matches!(
            parse(&v),
            Err(GraphFileError::SizeMismatch { .. })
        ));

        // Counts inconsistent with the Graph500 parameters.
        let mut v = good.clone();
        v[OFF_VERTICES..OFF_VERTICES + 8].copy_from_slice(&5u64.to_le_bytes());
        reseal(&mut v);
        assert!(matches!(parse(&v), Err(GraphFileError::BadHeader { .. })));

        // Edge count implying an absurd size.
        let mut v = good.clone();
        v[OFF_FLAGS] = 0;
        v[OFF_EDGES..OFF_EDGES + 8].copy_from_slice(&u64::MAX.to_le_bytes());
        reseal(&mut v);
        assert!(matches!(
            parse(&v),
            Err(GraphFileError::SizeMismatch { .. })
        ));
    }

    #[test]
    fn out_of_range_vertex_is_reported() {
        let list = sample();
        let mut bytes = to_bytes(&list, &[]).unwrap();
        // Edge 2's v := 9 (graph has 4 vertices); fix the data checksum.
        bytes[HEADER_LEN + 2 * 12 + 4..HEADER_LEN + 2 * 12 + 8]
            .copy_from_slice(&9u32.to_le_bytes());
        let s = checksum64(&bytes[HEADER_LEN..]);
        bytes[OFF_DATA_SUM..OFF_DATA_SUM + 8].copy_from_slice(&s.to_le_bytes());
        reseal(&mut bytes);
        let e = parse(&bytes).unwrap_err();
        assert!(
            matches!(
                e,
                GraphFileError::BadEdge(EdgeListError::VertexOutOfRange { index: 2, v: 9, .. })
            ),
            "{e}"
        );
        assert!(e.to_string().contains("outside 0..4"));
    }

    #[test]
    fn writer_refuses_bad_roots() {
        assert!(matches!(
            to_bytes(&sample(), &[4]),
            Err(GraphFileError::BadHeader { .. })
        ));
        assert!(matches!(
            to_bytes(&sample(), &[0; 65]),
            Err(GraphFileError::BadHeader { .. })
        ));
    }

    /// A fresh scratch directory for one writer test.
    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("gc-writer-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// Names in `dir`, sorted.
    fn listing(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    fn refused(path: &Path, kind: &str) {
        let e = write(path, &sample()).unwrap_err();
        assert!(
            matches!(&e, GraphFileError::TargetNotARegularFile { kind: k, .. } if *k == kind),
            "{}: {e:?}",
            path.display()
        );
        let msg = e.to_string();
        assert!(
            msg.contains(&format!("it exists and is a {kind}, not a regular file")),
            "{msg}"
        );
        assert!(matches!(
            check_write_target(path),
            Err(GraphFileError::TargetNotARegularFile { .. })
        ));
    }

    #[test]
    fn writer_refuses_targets_that_are_not_regular_files() {
        use std::os::unix::fs::FileTypeExt;
        let d = scratch("targets");
        // A directory: untouched (still a directory, still holding its file).
        let dir = d.join("dir");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("inside"), b"keep").unwrap();
        refused(&dir, "directory");
        assert_eq!(std::fs::read(dir.join("inside")).unwrap(), b"keep");
        // A symbolic link to a regular file: neither the link nor its target changes.
        let victim = d.join("victim");
        std::fs::write(&victim, b"victim").unwrap();
        let link = d.join("link");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        refused(&link, "symbolic link");
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&victim).unwrap(), b"victim");
        // A FIFO (writing to it must not block either).
        let fifo = d.join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if matches!(made, Ok(s) if s.success()) {
            refused(&fifo, "FIFO (named pipe)");
            assert!(std::fs::symlink_metadata(&fifo)
                .unwrap()
                .file_type()
                .is_fifo());
        } else {
            eprintln!("note: mkfifo unavailable, FIFO target not tested");
        }
        // A character device: a private copy of /dev/null (c 1 3), so a
        // regression clobbers the copy and not the system's device.
        let dev = d.join("null");
        let made = std::process::Command::new("mknod")
            .arg(&dev)
            .args(["c", "1", "3"])
            .stderr(std::process::Stdio::null())
            .status();
        if matches!(made, Ok(s) if s.success()) {
            refused(&dev, "character device");
            assert!(std::fs::symlink_metadata(&dev)
                .unwrap()
                .file_type()
                .is_char_device());
        } else {
            eprintln!("note: not allowed to mknod (not root?), device target not tested");
        }
        // Nothing else appeared (no temporary files).
        let mut names = listing(&d);
        names.retain(|n| !["dir", "victim", "link", "fifo", "null"].contains(&n.as_str()));
        assert!(names.is_empty(), "left behind: {names:?}");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn writer_ignores_planted_tmp_names() {
        // The old writer wrote to `PATH.tmp`: a symbolic link planted there
        // redirected the write, and a file there was deleted.
        let d = scratch("planted");
        let victim = d.join("victim");
        std::fs::write(&victim, b"victim").unwrap();
        let target = d.join("g");
        let tmp_link = d.join("g.tmp");
        std::os::unix::fs::symlink(&victim, &tmp_link).unwrap();
        write(&target, &sample()).unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"victim");
        assert!(std::fs::symlink_metadata(&tmp_link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(open(&target).unwrap().edge_list(), sample());

        let target2 = d.join("h");
        let tmp_file = d.join("h.tmp");
        std::fs::write(&tmp_file, b"someone else's").unwrap();
        write(&target2, &sample()).unwrap();
        assert_eq!(std::fs::read(&tmp_file).unwrap(), b"someone else's");
        assert_eq!(listing(&d), ["g", "g.tmp", "h", "h.tmp", "victim"]);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn temp_names_are_created_exclusively() {
        let d = scratch("exclusive");
        let target = d.join("g");
        let (f1, t1) = create_temp_beside(&target).unwrap();
        let (f2, t2) = create_temp_beside(&target).unwrap();
        assert_ne!(t1, t2);
        assert_eq!(t1.parent(), Some(d.as_path()));
        drop((f1, f2));
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn writer_replaces_a_regular_file_by_rename() {
        use std::io::Read;
        let d = scratch("replace");
        let target = d.join("g");
        std::fs::write(&target, b"old contents").unwrap();
        // A reader that has the old file open keeps seeing it whole: the new
        // file is a different inode moved into place, not a rewrite.
        let mut old = File::open(&target).unwrap();
        write_with_roots(&target, &sample(), &[1]).unwrap();
        let mut seen = Vec::new();
        old.read_to_end(&mut seen).unwrap();
        assert_eq!(seen, b"old contents");
        let g = open(&target).unwrap();
        assert_eq!(g.edge_list(), sample());
        assert_eq!(g.roots(), [1]);
        assert_eq!(listing(&d), ["g"]);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn the_header_alone_says_what_open_says() {
        let d = scratch("header-only");
        let g = d.join("g");
        write_with_roots(&g, &sample(), &[1, 2]).unwrap();
        let (h, m) = open_header(&g).unwrap();
        let full = open(&g).unwrap();
        assert_eq!((&h, &m), (full.header(), full.meta()));
        let list = EdgeList::from_edges(3, vec![PackedEdge::new(0, 2, 1.0)]).unwrap();
        let meta = GraphMeta {
            directed: true,
            weighted: false,
            ids: IdMap::Table(vec![5, 70, 900]),
        };
        let t = d.join("t");
        write_graph(&t, &list, &[], &meta).unwrap();
        let (h, m) = open_header(&t).unwrap();
        assert_eq!(m, meta);
        assert_eq!(h.num_edges, 1);
        let bytes = std::fs::read(&t).unwrap();
        std::fs::write(&t, &bytes[..bytes.len() - 1]).unwrap();
        assert!(matches!(
            open_header(&t),
            Err(GraphFileError::TruncatedData { .. })
        ));
        let mut bad = bytes.clone();
        let last = bad.len() - 1;
        bad[last] ^= 1;
        std::fs::write(&t, &bad).unwrap();
        assert!(matches!(
            open_header(&t),
            Err(GraphFileError::CorruptIds { .. })
        ));
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn failed_write_leaves_nothing_behind() {
        let d = scratch("failed");
        // `g/` names a directory that does not exist: the data is written to
        // the temporary file, then the rename fails (ENOTDIR).
        let mut target = d.join("g").into_os_string();
        target.push("/");
        let e = write(PathBuf::from(&target), &sample()).unwrap_err();
        assert!(
            matches!(
                e,
                GraphFileError::Io {
                    action: "rename",
                    ..
                }
            ),
            "{e:?}"
        );
        assert!(listing(&d).is_empty(), "left behind: {:?}", listing(&d));
        // Invalid input fails before any file is made.
        assert!(write_with_roots(d.join("x"), &sample(), &[99]).is_err());
        assert!(listing(&d).is_empty());
        let _ = std::fs::remove_dir_all(&d);
    }

    /// `m` records over `n` vertices (ids and weights from `i`), as file bytes.
    fn many(n: u32, m: u32) -> Vec<u8> {
        let edges = (0..m)
            .map(|i| PackedEdge::new(i % n, (i * 7 + 3) % n, (i % 1000) as f32 / 1000.0))
            .collect();
        to_bytes(&EdgeList::from_edges(u64::from(n), edges).unwrap(), &[]).unwrap()
    }

    /// Even slices of `m` records over `parts` readers, as a build cuts them.
    fn slices(m: u64, parts: u64) -> Vec<std::ops::Range<u64>> {
        (0..parts)
            .map(|k| m * k / parts..m * (k + 1) / parts)
            .collect()
    }

    #[test]
    fn slices_hash_to_the_whole_checksum_however_the_file_is_cut() {
        let d = scratch("slices");
        // 4 chunks (the last one partial), a single partial chunk, and none.
        for m in [300_000u32, 1000, 0] {
            let path = d.join(format!("g{m}"));
            std::fs::write(&path, many(97, m)).unwrap();
            let g = open_in_slices(&path).unwrap();
            assert!(!g.is_verified());
            assert_eq!(open(&path).unwrap().header(), g.header());
            for parts in [1, 2, 3, 5, 7, 1000] {
                let mut digests = Vec::new();
                for s in slices(u64::from(m), parts) {
                    g.check_slice(s.clone()).unwrap();
                    digests.extend(g.slice_digests(s));
                }
                let chunks = (m as usize * 12).div_ceil(checksum::CHUNK);
                assert_eq!(digests.len(), chunks, "{m} records in {parts}");
                g.check_digests(&digests).unwrap();
                // A chunk left out, repeated or out of order is caught.
                if digests.len() > 1 {
                    let mut wrong = digests.clone();
                    wrong.swap(0, 1);
                    assert!(matches!(
                        g.check_digests(&wrong),
                        Err(GraphFileError::CorruptData { .. })
                    ));
                    assert!(g.check_digests(&digests[1..]).is_err());
                    let mut twice = digests.clone();
                    twice.push(digests[0]);
                    assert!(g.check_digests(&twice).is_err());
                }
            }
            // A verified graph has nothing left to check.
            let full = open(&path).unwrap();
            assert!(full.is_verified() && full.slice_digests(0..u64::from(m)).is_empty());
            full.check_digests(&[]).unwrap();
        }
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_slice_is_checked_from_its_own_bytes_and_corruption_is_found_by_the_fold() {
        let d = scratch("slice-corrupt");
        let good = many(97, 300_000);
        let m = 300_000u64;
        let path = d.join("good");
        std::fs::write(&path, &good).unwrap();
        let thirds = |g: &MappedGraph| -> Vec<Vec<u64>> {
            slices(m, 3)
                .into_iter()
                .map(|s| g.slice_digests(s))
                .collect()
        };
        let want = thirds(&open_in_slices(&path).unwrap());
        // A flipped bit in the last chunk (which starts at record 262 144,
        // in the last third): the file still opens (nothing of the records
        // is read), the first two thirds hash as before, the last differs,
        // and the fold says the data is corrupt.
        let mut bad = good.clone();
        let at = HEADER_LEN + 12 * 290_000 + 8; // a weight's low byte
        bad[at] ^= 1;
        let path = d.join("bad");
        std::fs::write(&path, &bad).unwrap();
        let g = open_in_slices(&path).unwrap();
        let got = thirds(&g);
        assert_eq!(got[..2], want[..2]);
        assert_ne!(got[2], want[2]);
        assert!(matches!(
            g.check_digests(&got.concat()),
            Err(GraphFileError::CorruptData { .. })
        ));
        assert!(matches!(
            open(&path),
            Err(GraphFileError::CorruptData { .. })
        ));
        let _ = std::fs::remove_dir_all(&d);
    }

    /// `bytes` with records `at` replaced and both checksums made right
    /// again: a file that is whole but holds a bad record.
    fn with_record(mut bytes: Vec<u8>, at: usize, e: PackedEdge) -> Vec<u8> {
        let off = HEADER_LEN + 12 * at;
        bytes[off..off + 12].copy_from_slice(&e.to_le_bytes());
        let sum = checksum64(&bytes[HEADER_LEN..]);
        bytes[OFF_DATA_SUM..OFF_DATA_SUM + 8].copy_from_slice(&sum.to_le_bytes());
        reseal(&mut bytes);
        bytes
    }

    #[test]
    fn a_slice_names_its_first_bad_record_by_its_index_in_the_file() {
        let d = scratch("slice-records");
        let m = 10_000u64;
        for (bad, what) in [
            (PackedEdge::new(5, 97, 0.5), "vertex"),
            (PackedEdge::new(5, 6, f32::NAN), "weight"),
            (PackedEdge::new(5, 6, -1.0), "weight"),
        ] {
            let bytes = with_record(many(97, m as u32), 7_000, bad);
            let path = d.join("bad");
            std::fs::write(&path, &bytes).unwrap();
            let whole = open(&path).unwrap_err();
            let g = open_in_slices(&path).unwrap();
            let mut digests = Vec::new();
            let mut errors = Vec::new();
            for s in slices(m, 4) {
                digests.extend(g.slice_digests(s.clone()));
                errors.extend(g.check_slice(s).err());
            }
            // The checksum is right; exactly the third slice has the record.
            g.check_digests(&digests).unwrap();
            assert_eq!(errors.len(), 1, "{errors:?}");
            let e = errors.pop().unwrap();
            assert_eq!(e.to_string(), whole.to_string());
            assert!(e.to_string().contains("7000"), "{e}");
            assert!(e.to_string().contains(what), "{e}");
        }
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    #[should_panic(expected = "opened in slices has no edge list")]
    fn a_graph_opened_in_slices_has_no_edge_list() {
        let d = scratch("slice-list");
        let path = d.join("g");
        std::fs::write(&path, many(10, 100)).unwrap();
        let g = open_in_slices(&path).unwrap();
        let _ = std::fs::remove_dir_all(&d);
        let _ = g.edge_list();
    }

    #[test]
    fn opening_in_slices_checks_everything_but_the_records() {
        let d = scratch("slice-open");
        let good = many(97, 1000);
        let path = d.join("g");
        let mut short = good.clone();
        short.pop();
        std::fs::write(&path, &short).unwrap();
        assert!(matches!(
            open_in_slices(&path),
            Err(GraphFileError::TruncatedData { .. })
        ));
        let mut header = good.clone();
        header[OFF_EDGES] ^= 1;
        std::fs::write(&path, &header).unwrap();
        assert!(matches!(
            open_in_slices(&path),
            Err(GraphFileError::CorruptHeader { .. })
        ));
        assert!(matches!(
            open_in_slices(d.join("missing")),
            Err(GraphFileError::NotFound { .. })
        ));
        assert!(matches!(
            open_in_slices(&d),
            Err(GraphFileError::NotARegularFile { .. })
        ));
        // Graph500 parameters whose edge count the records do not have.
        let p = Graph500Params::reference(2);
        let list = EdgeList::from_graph500(p, vec![PackedEdge::new(0, 1, 0.5); 64]).unwrap();
        let mut g500 = to_bytes(&list, &[]).unwrap();
        g500[OFF_EDGEFACTOR] = 8;
        reseal(&mut g500);
        std::fs::write(&path, &g500).unwrap();
        let e = open_in_slices(&path).unwrap_err();
        assert_eq!(e.to_string(), open(&path).unwrap_err().to_string());
        let _ = std::fs::remove_dir_all(&d);
    }
}
