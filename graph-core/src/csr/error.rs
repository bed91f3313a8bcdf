//! Why shards could not be built: [`CsrError`].

use std::fmt;
use std::ops::Range;

use crate::alloc::OutOfMemory;
use crate::edge_list::EdgeListError;

/// Why shards could not be built.
#[derive(Clone, Debug, PartialEq)]
pub enum CsrError {
    /// The partition was made for a different vertex count.
    PartitionMismatch {
        /// Vertices of the edge list.
        graph: u64,
        /// Vertices of the partition.
        partition: u64,
    },
    /// The trustee range names trustees the partition does not have.
    NoSuchTrustees {
        /// Requested range.
        requested: Range<u32>,
        /// Trustees in the partition.
        trustees: u32,
    },
    /// An edge names a vertex outside the graph.
    Edge(EdgeListError),
    /// A shard would have more entries than this platform can address.
    TooLarge {
        /// The entry count.
        entries: u64,
    },
    /// An array of the shards could not be allocated.
    OutOfMemory(OutOfMemory),
}

impl fmt::Display for CsrError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CsrError::PartitionMismatch { graph, partition } => write!(
                f,
                "the partition covers {partition} vertices but the graph has {graph}: make the partition from the graph's vertex count"
            ),
            CsrError::NoSuchTrustees { requested, trustees } => write!(
                f,
                "trustees {}..{} requested but the partition has only {trustees}",
                requested.start, requested.end
            ),
            CsrError::Edge(e) => write!(f, "cannot build the CSR: {e}"),
            CsrError::TooLarge { entries } => write!(
                f,
                "a shard would hold {entries} adjacency entries, more than this platform can address: use more trustees"
            ),
            CsrError::OutOfMemory(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for CsrError {}

impl From<EdgeListError> for CsrError {
    fn from(e: EdgeListError) -> Self {
        CsrError::Edge(e)
    }
}
