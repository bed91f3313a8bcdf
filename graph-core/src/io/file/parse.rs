//! Reading a graph file held in memory: [`parse`] checks the header, the
//! length, the id table, the data checksum and every record.

use super::checksum::checksum64;
use super::error::{bad, GraphFileError};
use super::header::{parse_header, GraphHeader};
use super::layout::HEADER_LEN;
use crate::edge_list::{EdgeList, PackedEdge};
use crate::io::le::u64_at;
use crate::mapped;
use crate::meta::{GraphMeta, IdMap};

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
pub(super) fn parse_layout(
    bytes: &[u8],
) -> Result<(GraphHeader, GraphMeta, &[u8]), GraphFileError> {
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

/// What the header and the id table (when the header says there is one)
/// say the records mean; the table is checked against its checksum and
/// the vertex count.
pub(super) fn meta_of(
    header: &GraphHeader,
    table: Option<&[u8]>,
) -> Result<GraphMeta, GraphFileError> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edge_list::{EdgeListError, Graph500Params};
    use crate::io::file::checksum::checksum64;
    use crate::io::file::layout::*;
    use crate::io::file::testing::{reseal, sample};
    use crate::io::file::write::to_bytes;

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
}
