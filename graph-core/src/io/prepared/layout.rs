//! Where things are in a prepared-shard file (the table in the
//! [module docs](super)): the header's fields, the arrays' places, and the
//! file's name.

/// Identifies a prepared-shard file.
pub const MAGIC: [u8; 8] = *b"GOSSHARD";

/// The format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;

/// Header length in bytes (the offsets array starts here).
pub const HEADER_LEN: usize = 512;
/// Alignment of every array in the file.
pub(super) const ALIGN: u64 = 64;

pub(super) const FLAG_GRAPH500: u32 = 1;
pub(super) const FLAG_FILE_SUM: u32 = 2;
pub(super) const FLAG_UNIT: u32 = 4;
pub(super) const FLAG_DIRECTED: u32 = 8;
pub(super) const OFF_VERSION: usize = 8;
pub(super) const OFF_HEADER_LEN: usize = 12;
pub(super) const OFF_FLAGS: usize = 16;
pub(super) const OFF_KIND: usize = 20;
pub(super) const OFF_VERTICES: usize = 24;
pub(super) const OFF_TRUSTEES: usize = 32;
pub(super) const OFF_TRUSTEE: usize = 36;
pub(super) const OFF_EDGES: usize = 40;
pub(super) const OFF_SCALE: usize = 48;
pub(super) const OFF_EDGEFACTOR: usize = 52;
pub(super) const OFF_SEED1: usize = 56;
pub(super) const OFF_SEED2: usize = 64;
pub(super) const OFF_FILE_SUM: usize = 72;
pub(super) const OFF_ROWS: usize = 80;
pub(super) const OFF_ENTRIES: usize = 88;
pub(super) const OFF_SECTIONS: usize = 96;
pub(super) const OFF_FILE_LEN: usize = 120;
pub(super) const OFF_SUMS: usize = 128;
pub(super) const OFF_IN_ENTRIES: usize = 152;
pub(super) const OFF_IN_SECTIONS: usize = 160;
pub(super) const OFF_IN_SUMS: usize = 176;
pub(super) const OFF_HEADER_SUM: usize = HEADER_LEN - 8;

pub(super) const ARRAYS: [&str; 5] = [
    "offsets",
    "targets",
    "weights",
    "in-edge offsets",
    "in-edge sources",
];

/// The file name of trustee `t`'s shard among `trustees`.
pub fn file_name(t: u32, trustees: u32) -> String {
    format!("shard-{t}-of-{trustees}.gshard")
}

/// Where each array starts and ends (three, or five with the in-edge
/// index of a directed graph), and the file length.
pub(super) fn layout(
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
pub(super) fn section_fields(i: usize) -> (usize, usize) {
    if i < 3 {
        (OFF_SECTIONS + 8 * i, OFF_SUMS + 8 * i)
    } else {
        (OFF_IN_SECTIONS + 8 * (i - 3), OFF_IN_SUMS + 8 * (i - 3))
    }
}
