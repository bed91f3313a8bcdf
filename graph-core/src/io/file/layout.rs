//! Where each header field sits (the table in the [module docs](super)),
//! the flags, and the format's fixed sizes.

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

pub(super) const FLAG_GRAPH500: u32 = 1;
pub(super) const FLAG_DIRECTED: u32 = 2;
pub(super) const FLAG_UNWEIGHTED: u32 = 4;
pub(super) const FLAG_ID_TABLE: u32 = 8;
pub(super) const V2_FLAGS: u32 = FLAG_GRAPH500 | FLAG_DIRECTED | FLAG_UNWEIGHTED | FLAG_ID_TABLE;
pub(super) const OFF_VERSION: usize = 8;
pub(super) const OFF_HEADER_LEN: usize = 12;
pub(super) const OFF_RECORD_LEN: usize = 16;
pub(super) const OFF_FLAGS: usize = 20;
pub(super) const OFF_SCALE: usize = 24;
pub(super) const OFF_EDGEFACTOR: usize = 28;
pub(super) const OFF_SEED1: usize = 32;
pub(super) const OFF_SEED2: usize = 40;
pub(super) const OFF_VERTICES: usize = 48;
pub(super) const OFF_EDGES: usize = 56;
pub(super) const OFF_DATA: usize = 64;
pub(super) const OFF_DATA_SUM: usize = 72;
pub(super) const OFF_NROOTS: usize = 80;
pub(super) const OFF_ROOTS: usize = 88;
pub(super) const OFF_ID_BASE: usize = 600;
pub(super) const OFF_IDS_SUM: usize = 608;
pub(super) const OFF_HEADER_SUM: usize = HEADER_LEN - 8;
