//! The header of a prepared-shard file: which graph and which run the
//! shard belongs to ([`GraphIdentity`]), decoded and checked by
//! [`parse_header`], encoded for a shard by the writer.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::error::Problem;
use super::layout::*;
use crate::csr::Shard;
use crate::edge_list::Graph500Params;
use crate::io::file::checksum64;
use crate::io::le::{put_u32, put_u64, u32_at, u64_at};
use crate::partition::PartitionKind;

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

/// The in-edge entry count of a directed shard.
pub(super) fn in_entries_of(shard: &Shard) -> Option<u64> {
    shard.is_directed().then(|| shard.in_index().1.len() as u64)
}

fn kind_code(k: PartitionKind) -> u32 {
    match k {
        PartitionKind::Block => 0,
        PartitionKind::Cyclic => 1,
        PartitionKind::Striped => 2,
        PartitionKind::Blocks => 3,
    }
}

pub(super) fn kind_name(k: PartitionKind) -> &'static str {
    match k {
        PartitionKind::Block => "block",
        PartitionKind::Cyclic => "cyclic",
        PartitionKind::Striped => "striped",
        PartitionKind::Blocks => "blocks",
    }
}

/// The header of `shard`'s file, given its arrays' bytes.
pub(super) fn encode_header(
    shard: &Shard,
    graph: &GraphIdentity,
    arrays: &[Cow<'_, [u8]>],
) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    let p = shard.partition();
    let (rows, entries) = (shard.num_local_vertices(), shard.num_entries());
    let in_entries = in_entries_of(shard);
    let (sections, len) =
        layout(rows, entries, in_entries).expect("an in-memory shard's layout fits in u64");
    h[..8].copy_from_slice(&MAGIC);
    put_u32(&mut h, OFF_VERSION, FORMAT_VERSION);
    put_u32(&mut h, OFF_HEADER_LEN, HEADER_LEN as u32);
    let mut flags = 0;
    if let Some(g) = graph.params {
        flags |= FLAG_GRAPH500;
        put_u32(&mut h, OFF_SCALE, g.scale);
        put_u32(&mut h, OFF_EDGEFACTOR, g.edgefactor);
        put_u64(&mut h, OFF_SEED1, g.seed1);
        put_u64(&mut h, OFF_SEED2, g.seed2);
    }
    if let Some(sum) = graph.file_checksum {
        flags |= FLAG_FILE_SUM;
        put_u64(&mut h, OFF_FILE_SUM, sum);
    }
    if graph.unit_weights {
        flags |= FLAG_UNIT;
    }
    if let Some(m) = in_entries {
        flags |= FLAG_DIRECTED;
        put_u64(&mut h, OFF_IN_ENTRIES, m);
    }
    put_u32(&mut h, OFF_FLAGS, flags);
    put_u32(&mut h, OFF_KIND, kind_code(p.kind()));
    put_u64(&mut h, OFF_VERTICES, p.num_vertices());
    put_u32(&mut h, OFF_TRUSTEES, p.num_trustees());
    put_u32(&mut h, OFF_TRUSTEE, shard.trustee());
    put_u64(&mut h, OFF_EDGES, graph.num_edges);
    put_u64(&mut h, OFF_ROWS, rows);
    put_u64(&mut h, OFF_ENTRIES, entries);
    for (i, s) in sections.iter().enumerate() {
        let (start, sum) = section_fields(i);
        put_u64(&mut h, start, s.start);
        put_u64(&mut h, sum, checksum64(&arrays[i]));
    }
    put_u64(&mut h, OFF_FILE_LEN, len);
    let sum = checksum64(&h[..OFF_HEADER_SUM]);
    put_u64(&mut h, OFF_HEADER_SUM, sum);
    h
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
        2 => PartitionKind::Striped,
        3 => PartitionKind::Blocks,
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
