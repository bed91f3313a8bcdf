//! The header of a built graph file: where each field sits (the table in
//! the [module docs](super)), [`BuiltHeader`] decoded and checked by
//! [`parse_header`], and encoded by the writer.

use std::ops::Range;

use super::error::Problem;
use crate::edge_list::{Graph500Params, MAX_VERTICES};
use crate::io::file::checksum64;
use crate::io::le::{put_u32, put_u64, u32_at, u64_at};

/// Identifies a built graph file.
pub const MAGIC: [u8; 8] = *b"GOSBUILT";

/// The format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;

/// Header length in bytes.
pub const HEADER_LEN: usize = 1024;

/// Every section starts at a multiple of this (a page): a trustee's part
/// of a section is then a view in place, and pages of other sections are
/// never touched by reading one.
pub const ALIGN: u64 = 4096;

/// Bytes per checksum chunk: each section's bytes are hashed in chunks of
/// this size ([`checksum64`]'s), whose digests the digest section keeps,
/// so a reader can check just the chunks it reads.
pub const CHUNK: u64 = crate::io::file::CHECKSUM_CHUNK as u64;

/// Most search roots the header stores.
pub const MAX_ROOTS: usize = 64;

pub(super) const FLAG_GRAPH500: u32 = 1;
pub(super) const FLAG_DIRECTED: u32 = 2;
pub(super) const FLAG_WEIGHTED: u32 = 4;
pub(super) const FLAG_ID_TABLE: u32 = 8;
pub(super) const FLAG_SOURCE_SUM: u32 = 16;
const FLAGS: u32 = FLAG_GRAPH500 | FLAG_DIRECTED | FLAG_WEIGHTED | FLAG_ID_TABLE | FLAG_SOURCE_SUM;

pub(super) const OFF_VERSION: usize = 8;
const OFF_HEADER_LEN: usize = 12;
pub(super) const OFF_FLAGS: usize = 16;
const OFF_NROOTS: usize = 20;
const OFF_SCALE: usize = 24;
const OFF_EDGEFACTOR: usize = 28;
const OFF_SEED1: usize = 32;
const OFF_SEED2: usize = 40;
pub(super) const OFF_VERTICES: usize = 48;
const OFF_EDGES: usize = 56;
pub(super) const OFF_ENTRIES: usize = 64;
const OFF_IN_ENTRIES: usize = 72;
const OFF_ID_BASE: usize = 80;
const OFF_SOURCE_SUM: usize = 88;
const OFF_FILE_LEN: usize = 96;
/// Section table: `SECTIONS` x (start, length, checksum), `u64` each.
pub(super) const OFF_SECTIONS: usize = 128;
const OFF_ROOTS: usize = OFF_SECTIONS + 24 * SECTIONS;
pub(super) const OFF_HEADER_SUM: usize = HEADER_LEN - 8;

/// Number of sections.
pub const SECTIONS: usize = 7;
/// The sections, in file order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    /// `u64` x (vertices + 1): where each vertex's row starts in the targets.
    Offsets = 0,
    /// `u32` x entries: neighbour ids, rows in vertex order.
    Targets = 1,
    /// `f32` x entries, parallel to the targets (weighted graphs only).
    Weights = 2,
    /// `u64` x (vertices + 1): the in-edge index's offsets (directed only).
    InOffsets = 3,
    /// `u32` x in-edge entries: tails of each vertex's in-arcs (directed only).
    InSources = 4,
    /// `u64` x vertices: the input file's id of each vertex (renumbered ids only).
    Ids = 5,
    /// `u64` per checksum chunk of every section above, in order.
    Digests = 6,
}

impl Section {
    /// Every section, in file order.
    pub const ALL: [Section; SECTIONS] = [
        Section::Offsets,
        Section::Targets,
        Section::Weights,
        Section::InOffsets,
        Section::InSources,
        Section::Ids,
        Section::Digests,
    ];

    /// Its name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Section::Offsets => "row offsets",
            Section::Targets => "neighbour ids",
            Section::Weights => "weights",
            Section::InOffsets => "in-edge offsets",
            Section::InSources => "in-edge sources",
            Section::Ids => "id table",
            Section::Digests => "chunk digests",
        }
    }
}

/// The decoded header of a built graph file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuiltHeader {
    /// The generator's parameters, for a Graph500 graph.
    pub params: Option<Graph500Params>,
    /// The rows are out-arcs, and an in-edge index follows.
    pub directed: bool,
    /// A weight section is present (the input's weights); otherwise every
    /// weight is 1.0.
    pub weighted: bool,
    /// Vertex count.
    pub num_vertices: u64,
    /// Edge records of the input (self-loops and duplicates included).
    pub num_edges: u64,
    /// Row entries (sum of degrees: twice the non-loop edges when
    /// undirected, the non-loop arcs when directed).
    pub entries: u64,
    /// In-edge entries (directed; 0 otherwise).
    pub in_entries: u64,
    /// File id = dense id + this, without an id table.
    pub id_base: u64,
    /// The data checksum of the `.ggraph` file it was built from, if any.
    pub source_checksum: Option<u64>,
    /// Stored search roots (dense ids).
    pub roots: Vec<u64>,
    /// Every section's byte range in the file (empty when absent).
    pub sections: [Range<u64>; SECTIONS],
    /// Every section's [`checksum64`].
    pub sums: [u64; SECTIONS],
}

impl BuiltHeader {
    /// Whether the file keeps the input's id of every vertex.
    pub fn has_id_table(&self) -> bool {
        !self.sections[Section::Ids as usize].is_empty()
    }

    /// The file's whole length.
    pub fn file_len(&self) -> u64 {
        self.sections
            .iter()
            .map(|s| s.end)
            .max()
            .unwrap_or(0)
            .max(HEADER_LEN as u64)
    }

    /// Checksum chunks of section `s`.
    pub(super) fn chunks(&self, s: Section) -> u64 {
        let r = &self.sections[s as usize];
        (r.end - r.start).div_ceil(CHUNK)
    }

    /// Index of section `s`'s first chunk in the digest section.
    pub(super) fn first_digest(&self, s: Section) -> u64 {
        Section::ALL[..s as usize]
            .iter()
            .map(|&x| self.chunks(x))
            .sum()
    }
}

/// The section lengths in bytes, for these counts; `None` on overflow.
pub(super) fn section_lengths(
    n: u64,
    entries: u64,
    in_entries: u64,
    directed: bool,
    weighted: bool,
    ids: bool,
) -> Option<[u64; SECTIONS]> {
    let offsets = n.checked_add(1)?.checked_mul(8)?;
    let mut len = [
        offsets,
        entries.checked_mul(4)?,
        if weighted { entries.checked_mul(4)? } else { 0 },
        if directed { offsets } else { 0 },
        if directed {
            in_entries.checked_mul(4)?
        } else {
            0
        },
        if ids { n.checked_mul(8)? } else { 0 },
        0,
    ];
    let chunks: u64 = len[..SECTIONS - 1].iter().map(|l| l.div_ceil(CHUNK)).sum();
    len[Section::Digests as usize] = chunks.checked_mul(8)?;
    Some(len)
}

/// Where each section of these lengths goes: in order after the header,
/// each at a multiple of [`ALIGN`] (an empty section is an empty range).
pub(super) fn place(len: &[u64; SECTIONS]) -> Option<[Range<u64>; SECTIONS]> {
    let mut at = HEADER_LEN as u64;
    let mut out: [Range<u64>; SECTIONS] = Default::default();
    for (i, &l) in len.iter().enumerate() {
        if l == 0 {
            out[i] = at..at;
            continue;
        }
        let start = at.checked_next_multiple_of(ALIGN)?;
        at = start.checked_add(l)?;
        out[i] = start..at;
    }
    Some(out)
}

/// The header bytes of `h` (its sections and sums filled in by the caller).
pub(super) fn encode(h: &BuiltHeader) -> [u8; HEADER_LEN] {
    let mut b = [0u8; HEADER_LEN];
    b[..8].copy_from_slice(&MAGIC);
    put_u32(&mut b, OFF_VERSION, FORMAT_VERSION);
    put_u32(&mut b, OFF_HEADER_LEN, HEADER_LEN as u32);
    let mut flags = 0;
    if let Some(p) = h.params {
        flags |= FLAG_GRAPH500;
        put_u32(&mut b, OFF_SCALE, p.scale);
        put_u32(&mut b, OFF_EDGEFACTOR, p.edgefactor);
        put_u64(&mut b, OFF_SEED1, p.seed1);
        put_u64(&mut b, OFF_SEED2, p.seed2);
    }
    if h.directed {
        flags |= FLAG_DIRECTED;
    }
    if h.weighted {
        flags |= FLAG_WEIGHTED;
    }
    if h.has_id_table() {
        flags |= FLAG_ID_TABLE;
    }
    if let Some(sum) = h.source_checksum {
        flags |= FLAG_SOURCE_SUM;
        put_u64(&mut b, OFF_SOURCE_SUM, sum);
    }
    put_u32(&mut b, OFF_FLAGS, flags);
    put_u32(&mut b, OFF_NROOTS, h.roots.len() as u32);
    put_u64(&mut b, OFF_VERTICES, h.num_vertices);
    put_u64(&mut b, OFF_EDGES, h.num_edges);
    put_u64(&mut b, OFF_ENTRIES, h.entries);
    put_u64(&mut b, OFF_IN_ENTRIES, h.in_entries);
    put_u64(&mut b, OFF_ID_BASE, h.id_base);
    put_u64(&mut b, OFF_FILE_LEN, h.file_len());
    for (i, (s, sum)) in h.sections.iter().zip(h.sums).enumerate() {
        put_u64(&mut b, OFF_SECTIONS + 24 * i, s.start);
        put_u64(&mut b, OFF_SECTIONS + 24 * i + 8, s.end - s.start);
        put_u64(&mut b, OFF_SECTIONS + 24 * i + 16, sum);
    }
    for (i, &r) in h.roots.iter().enumerate() {
        put_u64(&mut b, OFF_ROOTS + 8 * i, r);
    }
    let sum = checksum64(&b[..OFF_HEADER_SUM]);
    put_u64(&mut b, OFF_HEADER_SUM, sum);
    b
}

/// Whether `bytes` start like a built graph file (its magic).
pub fn is_built(bytes: &[u8]) -> bool {
    bytes.len() >= MAGIC.len() && bytes[..MAGIC.len()] == MAGIC
}

/// Decodes and checks the header at the start of `bytes`: magic, version,
/// length, header checksum, then that the fields agree (the sections are
/// where the counts put them).
pub fn parse_header(bytes: &[u8]) -> Result<BuiltHeader, Problem> {
    let n = bytes.len().min(MAGIC.len());
    if bytes[..n] != MAGIC[..n] {
        return Err(Problem::NotABuiltFile);
    }
    if bytes.len() >= OFF_VERSION + 4 && u32_at(bytes, OFF_VERSION) != FORMAT_VERSION {
        return Err(Problem::WrongVersion(u32_at(bytes, OFF_VERSION)));
    }
    if bytes.len() < HEADER_LEN {
        return Err(Problem::TruncatedHeader(bytes.len() as u64));
    }
    let b = &bytes[..HEADER_LEN];
    if u64_at(b, OFF_HEADER_SUM) != checksum64(&b[..OFF_HEADER_SUM]) {
        return Err(Problem::CorruptHeader);
    }
    let bad = |what: String| Err(Problem::BadHeader(what));
    if u32_at(b, OFF_HEADER_LEN) as usize != HEADER_LEN {
        return bad(format!("header length {}", u32_at(b, OFF_HEADER_LEN)));
    }
    let flags = u32_at(b, OFF_FLAGS);
    if flags & !FLAGS != 0 {
        return bad(format!("unknown flags {flags:#x}"));
    }
    let num_vertices = u64_at(b, OFF_VERTICES);
    if num_vertices > MAX_VERTICES {
        return bad(format!("{num_vertices} vertices (at most 2^32)"));
    }
    let nroots = u32_at(b, OFF_NROOTS) as usize;
    if nroots > MAX_ROOTS {
        return bad(format!("{nroots} roots (at most {MAX_ROOTS})"));
    }
    let roots: Vec<u64> = (0..nroots).map(|i| u64_at(b, OFF_ROOTS + 8 * i)).collect();
    if let Some(r) = roots.iter().find(|&&r| r >= num_vertices) {
        return bad(format!("root {r} is not a vertex"));
    }
    let params = (flags & FLAG_GRAPH500 != 0).then(|| Graph500Params {
        scale: u32_at(b, OFF_SCALE),
        edgefactor: u32_at(b, OFF_EDGEFACTOR),
        seed1: u64_at(b, OFF_SEED1),
        seed2: u64_at(b, OFF_SEED2),
    });
    let num_edges = u64_at(b, OFF_EDGES);
    if let Some(p) = params {
        if p.num_vertices().ok() != Some(num_vertices) || p.num_edges().ok() != Some(num_edges) {
            return bad(format!(
                "SCALE {} edgefactor {} does not give {num_vertices} vertices and {num_edges} edges",
                p.scale, p.edgefactor
            ));
        }
    }
    let (directed, weighted, ids) = (
        flags & FLAG_DIRECTED != 0,
        flags & FLAG_WEIGHTED != 0,
        flags & FLAG_ID_TABLE != 0,
    );
    let id_base = u64_at(b, OFF_ID_BASE);
    if ids && id_base != 0 {
        return bad("both an id table and an id base".into());
    }
    let (entries, in_entries) = (u64_at(b, OFF_ENTRIES), u64_at(b, OFF_IN_ENTRIES));
    if !directed && in_entries != 0 {
        return bad("in-edge entries in an undirected graph".into());
    }
    let Some(sections) =
        section_lengths(num_vertices, entries, in_entries, directed, weighted, ids)
            .and_then(|l| place(&l))
    else {
        return bad(format!(
            "{num_vertices} vertices and {entries} entries do not fit"
        ));
    };
    let mut sums = [0u64; SECTIONS];
    for (i, s) in sections.iter().enumerate() {
        let (start, len) = (
            u64_at(b, OFF_SECTIONS + 24 * i),
            u64_at(b, OFF_SECTIONS + 24 * i + 8),
        );
        if start != s.start || len != s.end - s.start {
            return bad(format!(
                "the {} are at {start} for {len} bytes, not at {} for {}",
                Section::ALL[i].name(),
                s.start,
                s.end - s.start
            ));
        }
        sums[i] = u64_at(b, OFF_SECTIONS + 24 * i + 16);
    }
    let header = BuiltHeader {
        params,
        directed,
        weighted,
        num_vertices,
        num_edges,
        entries,
        in_entries,
        id_base,
        source_checksum: (flags & FLAG_SOURCE_SUM != 0).then(|| u64_at(b, OFF_SOURCE_SUM)),
        roots,
        sections,
        sums,
    };
    if u64_at(b, OFF_FILE_LEN) != header.file_len() {
        return bad(format!(
            "file length {} (the sections end at {})",
            u64_at(b, OFF_FILE_LEN),
            header.file_len()
        ));
    }
    Ok(header)
}
