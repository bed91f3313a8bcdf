//! The input graph: a flat list of weighted, undirected edges in a packed
//! 12-byte record.
//!
//! An [`EdgeList`] is either owned (a `Vec<PackedEdge>`, e.g. filled by the
//! generator) or a borrowed, zero-copy view (e.g. over the records of a
//! memory-mapped [graph file](crate::io::file)). Records keep generator order;
//! self-loops and duplicate edges are kept here and interpreted by consumers
//! (the [CSR](crate::csr) drops self-loops and keeps duplicates).
//!
//! Vertex ids are stored as `u32`, so an edge list can describe at most
//! 2^32 vertices (Graph500 SCALE <= 32). Larger graphs are refused with
//! [`EdgeListError::TooManyVertices`].

use std::borrow::Cow;
use std::fmt;

use rayon::prelude::*;

/// Largest vertex count a packed edge can address (ids are `u32`).
pub const MAX_VERTICES: u64 = 1 << 32;

/// Largest Graph500 SCALE whose vertex ids fit a [`PackedEdge`].
pub const MAX_SCALE: u32 = 32;

/// One undirected, weighted edge in 12 bytes: `u: u32, v: u32, w: f32`,
/// little-endian in files, no padding (`#[repr(C)]`, size 12, align 4).
///
/// ```
/// use graph_core::PackedEdge;
/// assert_eq!(std::mem::size_of::<PackedEdge>(), 12);
/// let e = PackedEdge::new(3, 7, 0.5);
/// assert!(!e.is_self_loop());
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PackedEdge {
    /// One endpoint (global vertex id).
    pub u: u32,
    /// The other endpoint (global vertex id).
    pub v: u32,
    /// Edge weight (Graph500: in [0, 1]).
    pub w: f32,
}

const _: () = assert!(std::mem::size_of::<PackedEdge>() == 12);
const _: () = assert!(std::mem::align_of::<PackedEdge>() == 4);

impl PackedEdge {
    /// Size of one record in bytes (in memory and in the graph file).
    pub const BYTES: usize = 12;

    /// An edge from `u32` ids.
    #[inline]
    pub const fn new(u: u32, v: u32, w: f32) -> Self {
        PackedEdge { u, v, w }
    }

    /// An edge from the generator's `u64` ids, for filling an edge list from
    /// `generators::Kronecker::par_map_into` in one line:
    ///
    /// ```ignore
    /// gen.par_map_into(0, list.edges_mut(), |e| PackedEdge::from_wide(e.u, e.v, e.w));
    /// ```
    ///
    /// Ids must be `< 2^32` (true for every SCALE <= 32 graph). A larger id is
    /// clamped to `u32::MAX`, which [`EdgeList::validate`] and the CSR build
    /// then report as out of range for any graph with fewer than 2^32 vertices.
    #[inline]
    pub fn from_wide(u: u64, v: u64, w: f32) -> Self {
        let narrow = |x: u64| u32::try_from(x).unwrap_or(u32::MAX);
        PackedEdge {
            u: narrow(u),
            v: narrow(v),
            w,
        }
    }

    /// True when both endpoints are the same vertex (ignored by the CSR).
    #[inline]
    pub const fn is_self_loop(&self) -> bool {
        self.u == self.v
    }

    /// The record as 12 little-endian bytes (graph-file encoding).
    #[inline]
    pub fn to_le_bytes(&self) -> [u8; 12] {
        let mut b = [0u8; 12];
        b[0..4].copy_from_slice(&self.u.to_le_bytes());
        b[4..8].copy_from_slice(&self.v.to_le_bytes());
        b[8..12].copy_from_slice(&self.w.to_le_bytes());
        b
    }

    /// Decodes one 12-byte little-endian record.
    #[inline]
    pub fn from_le_bytes(b: [u8; 12]) -> Self {
        let word = |i: usize| [b[i], b[i + 1], b[i + 2], b[i + 3]];
        PackedEdge {
            u: u32::from_le_bytes(word(0)),
            v: u32::from_le_bytes(word(4)),
            w: f32::from_le_bytes(word(8)),
        }
    }
}

/// Where a graph came from: the Graph500 parameters, kept with the edges so
/// that files, reports and root selection can be checked against them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Graph500Params {
    /// log2 of the vertex count.
    pub scale: u32,
    /// Edges per vertex (the edge count is `edgefactor << scale`).
    pub edgefactor: u32,
    /// First user seed of the generator (reference default: 2).
    pub seed1: u64,
    /// Second user seed of the generator (reference default: 3).
    pub seed2: u64,
}

impl Graph500Params {
    /// The reference implementation's parameters for `scale`:
    /// edgefactor 16, seeds (2, 3).
    pub const fn reference(scale: u32) -> Self {
        Graph500Params {
            scale,
            edgefactor: 16,
            seed1: 2,
            seed2: 3,
        }
    }

    /// `2^scale`, or an error when the ids would not fit a `u32`.
    pub fn num_vertices(&self) -> Result<u64, EdgeListError> {
        if self.scale > MAX_SCALE {
            return Err(EdgeListError::ScaleTooLarge { scale: self.scale });
        }
        Ok(1u64 << self.scale)
    }

    /// `edgefactor * 2^scale`, or an error when it overflows.
    pub fn num_edges(&self) -> Result<u64, EdgeListError> {
        let n = self.num_vertices()?;
        n.checked_mul(u64::from(self.edgefactor))
            .ok_or(EdgeListError::TooManyEdges {
                edges: u128::from(n) * u128::from(self.edgefactor),
            })
    }
}

/// Why an edge list could not be built or failed validation.
#[derive(Clone, Debug, PartialEq)]
pub enum EdgeListError {
    /// SCALE > 32: ids would not fit the 32-bit packed record.
    ScaleTooLarge {
        /// The requested scale.
        scale: u32,
    },
    /// More than 2^32 vertices requested.
    TooManyVertices {
        /// The requested vertex count.
        vertices: u64,
    },
    /// The edge count does not fit memory addressing.
    TooManyEdges {
        /// The requested edge count.
        edges: u128,
    },
    /// The record count differs from `edgefactor << scale`.
    WrongEdgeCount {
        /// What the Graph500 parameters imply.
        expected: u64,
        /// What was supplied.
        found: u64,
    },
    /// An endpoint is not a vertex of the graph.
    VertexOutOfRange {
        /// Index of the offending record.
        index: u64,
        /// Its endpoints.
        u: u32,
        /// Its endpoints.
        v: u32,
        /// The vertex count.
        num_vertices: u64,
    },
    /// A weight is NaN or negative.
    BadWeight {
        /// Index of the offending record.
        index: u64,
        /// The weight found.
        w: f32,
    },
    /// The list's memory could not be allocated.
    OutOfMemory(crate::alloc::OutOfMemory),
}

impl fmt::Display for EdgeListError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EdgeListError::ScaleTooLarge { scale } => write!(
                f,
                "SCALE {scale} is too large: graph-core stores vertex ids in 32 bits, so SCALE must be at most {MAX_SCALE}"
            ),
            EdgeListError::TooManyVertices { vertices } => write!(
                f,
                "{vertices} vertices is too many: graph-core stores vertex ids in 32 bits (at most 2^32 vertices)"
            ),
            EdgeListError::TooManyEdges { edges } => write!(
                f,
                "{edges} edges cannot be held in memory on this platform: choose a smaller SCALE or edgefactor"
            ),
            EdgeListError::WrongEdgeCount { expected, found } => write!(
                f,
                "the edge list has {found} records but edgefactor << scale = {expected}: the list is incomplete or its parameters are wrong"
            ),
            EdgeListError::VertexOutOfRange { index, u, v, num_vertices } => write!(
                f,
                "edge {index} ({u}, {v}) names a vertex outside 0..{num_vertices}: the edge data is corrupt or was generated for a larger SCALE"
            ),
            EdgeListError::BadWeight { index, w } => write!(
                f,
                "edge {index} has weight {w}, but weights must be non-negative numbers: the edge data is corrupt"
            ),
            EdgeListError::OutOfMemory(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for EdgeListError {}

/// The input graph: vertex count, optional Graph500 parameters and the
/// packed edge records, owned or borrowed (zero-copy).
///
/// Memory: 12 bytes per edge plus a constant.
///
/// ```
/// use graph_core::{EdgeList, PackedEdge};
/// let edges = vec![PackedEdge::new(0, 1, 0.5), PackedEdge::new(1, 2, 0.25)];
/// let list = EdgeList::from_edges(3, edges).unwrap();
/// assert_eq!(list.num_vertices(), 3);
/// assert_eq!(list.num_edges(), 2);
/// assert!(list.validate().is_ok());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct EdgeList<'a> {
    num_vertices: u64,
    params: Option<Graph500Params>,
    edges: Cow<'a, [PackedEdge]>,
}

fn check_vertices(n: u64) -> Result<(), EdgeListError> {
    if n > MAX_VERTICES {
        Err(EdgeListError::TooManyVertices { vertices: n })
    } else {
        Ok(())
    }
}

impl EdgeList<'static> {
    /// An owned Graph500 edge list of `edgefactor << scale` zeroed records,
    /// ready to be filled in place (in parallel) by the generator:
    ///
    /// ```
    /// use graph_core::{EdgeList, Graph500Params, PackedEdge};
    /// let mut list = EdgeList::zeroed(Graph500Params::reference(4)).unwrap();
    /// assert_eq!(list.num_edges(), 16 * 16);
    /// // with the generator: gen.par_map_into(0, list.edges_mut(), |e| PackedEdge::from_wide(e.u, e.v, e.w));
    /// for (i, e) in list.edges_mut().iter_mut().enumerate() {
    ///     *e = PackedEdge::new(i as u32 % 16, (i as u32 + 1) % 16, 1.0);
    /// }
    /// assert!(list.validate().is_ok());
    /// ```
    pub fn zeroed(params: Graph500Params) -> Result<Self, EdgeListError> {
        let n = params.num_vertices()?;
        let m = params.num_edges()?;
        let m = usize::try_from(m).map_err(|_| EdgeListError::TooManyEdges { edges: m.into() })?;
        let mut edges: Vec<PackedEdge> = Vec::new();
        crate::alloc::try_reserve(&mut edges, m, "the edge list")
            .map_err(EdgeListError::OutOfMemory)?;
        edges.par_extend(rayon::iter::repeat_n(PackedEdge::default(), m));
        Ok(EdgeList {
            num_vertices: n,
            params: Some(params),
            edges: Cow::Owned(edges),
        })
    }

    /// An owned edge list over `num_vertices` vertices without Graph500
    /// parameters (hand-made or converted graphs). Ids are not checked here;
    /// call [`EdgeList::validate`].
    pub fn from_edges(num_vertices: u64, edges: Vec<PackedEdge>) -> Result<Self, EdgeListError> {
        check_vertices(num_vertices)?;
        Ok(EdgeList {
            num_vertices,
            params: None,
            edges: Cow::Owned(edges),
        })
    }
}

impl<'a> EdgeList<'a> {
    /// A Graph500 edge list from records (owned `Vec` or borrowed slice);
    /// the record count must be `edgefactor << scale`.
    pub fn from_graph500(
        params: Graph500Params,
        edges: impl Into<Cow<'a, [PackedEdge]>>,
    ) -> Result<Self, EdgeListError> {
        let n = params.num_vertices()?;
        let m = params.num_edges()?;
        let edges = edges.into();
        if edges.len() as u64 != m {
            return Err(EdgeListError::WrongEdgeCount {
                expected: m,
                found: edges.len() as u64,
            });
        }
        Ok(EdgeList {
            num_vertices: n,
            params: Some(params),
            edges,
        })
    }

    /// A borrowed (zero-copy) view over records without Graph500 parameters.
    pub fn borrowed(num_vertices: u64, edges: &'a [PackedEdge]) -> Result<Self, EdgeListError> {
        check_vertices(num_vertices)?;
        Ok(EdgeList {
            num_vertices,
            params: None,
            edges: Cow::Borrowed(edges),
        })
    }

    /// Reassembles a list whose parts were validated together before
    /// (used by the mapped graph file).
    pub(crate) fn from_validated_parts(
        num_vertices: u64,
        params: Option<Graph500Params>,
        edges: Cow<'a, [PackedEdge]>,
    ) -> Self {
        EdgeList {
            num_vertices,
            params,
            edges,
        }
    }

    /// Number of vertices (ids are `0..num_vertices`).
    #[inline]
    pub fn num_vertices(&self) -> u64 {
        self.num_vertices
    }

    /// Number of records, self-loops and duplicates included.
    #[inline]
    pub fn num_edges(&self) -> u64 {
        self.edges.len() as u64
    }

    /// The Graph500 parameters, when the graph came from the generator.
    #[inline]
    pub fn params(&self) -> Option<Graph500Params> {
        self.params
    }

    /// The records, in generator order.
    #[inline]
    pub fn edges(&self) -> &[PackedEdge] {
        &self.edges
    }

    /// Mutable records (a borrowed view is copied first: copy-on-write).
    pub fn edges_mut(&mut self) -> &mut [PackedEdge] {
        self.edges.to_mut()
    }

    /// True when the records are borrowed (e.g. from a mapped file).
    pub fn is_borrowed(&self) -> bool {
        matches!(self.edges, Cow::Borrowed(_))
    }

    /// An owned copy that no longer borrows.
    pub fn into_owned(self) -> EdgeList<'static> {
        EdgeList {
            num_vertices: self.num_vertices,
            params: self.params,
            edges: Cow::Owned(self.edges.into_owned()),
        }
    }

    /// Number of non-self-loop records (each contributes two adjacency
    /// entries to the CSR). Parallel.
    pub fn count_non_loops(&self) -> u64 {
        self.edges.par_iter().filter(|e| !e.is_self_loop()).count() as u64
    }

    /// Checks every id is `< num_vertices` and every weight is a
    /// non-negative number (parallel). Reports the first bad record.
    pub fn validate(&self) -> Result<(), EdgeListError> {
        check_records(&self.edges, self.num_vertices, 0, true)
    }
}

/// Checks that every id of `records` is `< num_vertices` and every weight
/// a non-negative number; the first bad record is reported with its index
/// plus `first_index` (where `records` start in the whole list). In
/// parallel with rayon, or on the calling thread (`parallel: false`, for
/// a trustee checking its slice).
pub(crate) fn check_records(
    records: &[PackedEdge],
    num_vertices: u64,
    first_index: u64,
    parallel: bool,
) -> Result<(), EdgeListError> {
    let n = num_vertices;
    let is_bad =
        |e: &PackedEdge| u64::from(e.u) >= n || u64::from(e.v) >= n || e.w.is_nan() || e.w < 0.0;
    // Branch-free scan of 64 Ki-record chunks (vectorizes), then the
    // first bad record inside the first bad chunk.
    const CHUNK: usize = 1 << 16;
    let chunk_is_bad = |c: &[PackedEdge]| c.iter().fold(false, |acc, e| acc | is_bad(e));
    let bad_chunk = if parallel {
        records.par_chunks(CHUNK).position_first(chunk_is_bad)
    } else {
        records.chunks(CHUNK).position(chunk_is_bad)
    };
    let bad = bad_chunk.and_then(|ci| {
        let start = ci * CHUNK;
        records[start..].iter().position(is_bad).map(|i| start + i)
    });
    match bad {
        None => Ok(()),
        Some(i) => {
            let e = records[i];
            let index = first_index + i as u64;
            if u64::from(e.u) >= n || u64::from(e.v) >= n {
                Err(EdgeListError::VertexOutOfRange {
                    index,
                    u: e.u,
                    v: e.v,
                    num_vertices: n,
                })
            } else {
                Err(EdgeListError::BadWeight { index, w: e.w })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_round_trips_through_bytes() {
        let e = PackedEdge::new(0xDEAD_BEEF, 7, 0.125);
        assert_eq!(PackedEdge::from_le_bytes(e.to_le_bytes()), e);
    }

    #[test]
    fn from_wide_clamps_out_of_range_ids() {
        let e = PackedEdge::from_wide(1 << 40, 5, 1.0);
        assert_eq!(e.u, u32::MAX);
        let list = EdgeList::from_edges(16, vec![e]).unwrap();
        assert!(matches!(
            list.validate(),
            Err(EdgeListError::VertexOutOfRange { index: 0, .. })
        ));
    }

    #[test]
    fn scale_beyond_32_is_refused() {
        let err = EdgeList::zeroed(Graph500Params::reference(33)).unwrap_err();
        assert_eq!(err, EdgeListError::ScaleTooLarge { scale: 33 });
        assert!(err.to_string().contains("at most 32"));
        assert!(EdgeList::from_edges(MAX_VERTICES + 1, vec![]).is_err());
    }

    #[test]
    fn graph500_list_checks_record_count() {
        let p = Graph500Params::reference(2);
        let err = EdgeList::from_graph500(p, vec![PackedEdge::default(); 63]).unwrap_err();
        assert_eq!(
            err,
            EdgeListError::WrongEdgeCount {
                expected: 64,
                found: 63
            }
        );
        let ok = EdgeList::from_graph500(p, vec![PackedEdge::default(); 64]).unwrap();
        assert_eq!(ok.num_vertices(), 4);
    }

    #[test]
    fn validate_finds_first_bad_weight() {
        let list = EdgeList::from_edges(
            4,
            vec![
                PackedEdge::new(0, 1, 1.0),
                PackedEdge::new(1, 2, f32::NAN),
                PackedEdge::new(1, 2, -1.0),
            ],
        )
        .unwrap();
        assert!(matches!(
            list.validate(),
            Err(EdgeListError::BadWeight { index: 1, .. })
        ));
    }

    #[test]
    fn validate_reports_the_first_bad_record_across_chunks() {
        let mut edges = vec![PackedEdge::new(1, 2, 0.5); 300_000];
        edges[200_000].v = 99;
        edges[70_001].u = 8;
        edges[70_002].w = -0.5;
        let list = EdgeList::from_edges(8, edges).unwrap();
        assert_eq!(
            list.validate(),
            Err(EdgeListError::VertexOutOfRange {
                index: 70_001,
                u: 8,
                v: 2,
                num_vertices: 8
            })
        );
    }

    #[test]
    fn borrowed_view_copies_on_write() {
        let data = [PackedEdge::new(0, 1, 1.0)];
        let mut list = EdgeList::borrowed(2, &data).unwrap();
        assert!(list.is_borrowed());
        list.edges_mut()[0].w = 2.0;
        assert!(!list.is_borrowed());
        assert_eq!(data[0].w, 1.0);
        assert_eq!(list.count_non_loops(), 1);
    }
}
