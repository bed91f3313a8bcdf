//! The header: [`GraphHeader`], decoded and checked by [`parse_header`],
//! encoded for a graph by the writers.

use super::checksum::checksum64;
use super::error::{bad, GraphFileError};
use super::layout::*;
use crate::edge_list::{EdgeList, Graph500Params, PackedEdge, MAX_VERTICES};
use crate::io::le::{put_u32, put_u64, u32_at, u64_at};
use crate::meta::{GraphMeta, IdMap};

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
pub(super) fn encode_header(
    list: &EdgeList<'_>,
    data_checksum: u64,
    roots: &[u64],
    meta: &GraphMeta,
) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[..8].copy_from_slice(&MAGIC);
    put_u32(&mut h, OFF_VERSION, version_for(meta));
    put_u32(&mut h, OFF_HEADER_LEN, HEADER_LEN as u32);
    put_u32(&mut h, OFF_RECORD_LEN, PackedEdge::BYTES as u32);
    let mut flags = 0;
    if meta.directed {
        flags |= FLAG_DIRECTED;
    }
    if !meta.weighted {
        flags |= FLAG_UNWEIGHTED;
    }
    match &meta.ids {
        IdMap::Offset(base) => put_u64(&mut h, OFF_ID_BASE, *base),
        IdMap::Table(t) => {
            flags |= FLAG_ID_TABLE;
            put_u64(&mut h, OFF_IDS_SUM, checksum64(&id_table_bytes(t)));
        }
    }
    if let Some(p) = list.params() {
        flags |= FLAG_GRAPH500;
        put_u32(&mut h, OFF_SCALE, p.scale);
        put_u32(&mut h, OFF_EDGEFACTOR, p.edgefactor);
        put_u64(&mut h, OFF_SEED1, p.seed1);
        put_u64(&mut h, OFF_SEED2, p.seed2);
    }
    put_u32(&mut h, OFF_FLAGS, flags);
    put_u64(&mut h, OFF_VERTICES, list.num_vertices());
    put_u64(&mut h, OFF_EDGES, list.num_edges());
    put_u64(&mut h, OFF_DATA, HEADER_LEN as u64);
    put_u64(&mut h, OFF_DATA_SUM, data_checksum);
    put_u32(&mut h, OFF_NROOTS, roots.len() as u32);
    for (i, &r) in roots.iter().enumerate() {
        put_u64(&mut h, OFF_ROOTS + 8 * i, r);
    }
    let sum = checksum64(&h[..OFF_HEADER_SUM]);
    put_u64(&mut h, OFF_HEADER_SUM, sum);
    h
}

pub(super) fn id_table_bytes(t: &[u64]) -> Vec<u8> {
    t.iter().flat_map(|x| x.to_le_bytes()).collect()
}
