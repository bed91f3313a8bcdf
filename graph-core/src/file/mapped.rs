//! The only `unsafe` in graph-core: mapping a file into memory and
//! viewing bytes as packed edge records (and back) without copying.

use std::fs::File;
use std::io;

use memmap2::{Mmap, MmapOptions};

use crate::edge_list::PackedEdge;

/// Maps `file` read-only.
///
/// The caller must treat the file as immutable while mapped: graph files
/// are written once (to a temporary name, then renamed) and only read after
/// that. If another process truncated or rewrote the file while it is
/// mapped, reads could fault (SIGBUS) or see changed data; this is the
/// standard caveat of memory-mapped files and is documented on
/// [`crate::file::open`].
pub(crate) fn map_file(file: &File) -> io::Result<Mmap> {
    // SAFETY: the mapping is read-only and private to this process; the
    // content is validated (length, magic, version, checksums, id ranges)
    // before any slice is handed out. Concurrent modification by another
    // process is excluded by the documented write-once contract above.
    // `populate` pre-faults the pages (Linux MAP_POPULATE): opening reads
    // every byte anyway (checksum, id check), and one bulk fault is cheaper
    // than one per page.
    unsafe { MmapOptions::new().populate().map(file) }
}

/// Maps `file` read-only without pre-faulting, for one sequential pass
/// over an input file of any size (the text and GAPBS readers of
/// `formats`): pages are read as the parser reaches them and the kernel may
/// drop them again, so the text is never held in memory as a whole.
///
/// The same write-once caveat as [`map_file`] applies: the input must not
/// be truncated while it is read.
pub(crate) fn map_input(file: &File) -> io::Result<Mmap> {
    // SAFETY: as in `map_file`: read-only, private, and every byte is only
    // read as `u8` (any value is valid) and parsed with bounds checks. A
    // concurrent truncation by another process could fault (SIGBUS); that
    // is the documented caveat of reading an input through a mapping.
    let map = unsafe { MmapOptions::new().map(file) }?;
    let _ = map.advise(memmap2::Advice::Sequential);
    Ok(map)
}

/// Views `bytes` as records when that is possible without copying: the
/// host is little-endian (the file's byte order), the length is a multiple
/// of 12 and the start is 4-byte aligned. Otherwise `None` (the caller
/// decodes into an owned vector instead).
pub(crate) fn records_from_bytes(bytes: &[u8]) -> Option<&[PackedEdge]> {
    if cfg!(target_endian = "big") {
        return None;
    }
    let ptr = bytes.as_ptr();
    if !bytes.len().is_multiple_of(PackedEdge::BYTES)
        || !(ptr as usize).is_multiple_of(std::mem::align_of::<PackedEdge>())
    {
        return None;
    }
    let len = bytes.len() / PackedEdge::BYTES;
    // SAFETY: `PackedEdge` is `#[repr(C)]` with fields u32, u32, f32: size 12,
    // align 4, no padding, and every bit pattern is a valid value. The start
    // is 4-aligned and the length covers exactly `len` records (both checked
    // above); the byte order matches the file's little-endian encoding
    // (checked above). The returned slice borrows `bytes`, so it cannot
    // outlive the memory, which is only read.
    Some(unsafe { std::slice::from_raw_parts(ptr.cast::<PackedEdge>(), len) })
}

/// The records' bytes in file encoding, when the host is little-endian;
/// `None` on big-endian hosts (the caller encodes record by record).
pub(crate) fn records_as_bytes(records: &[PackedEdge]) -> Option<&[u8]> {
    if cfg!(target_endian = "big") {
        return None;
    }
    // SAFETY: `PackedEdge` has no padding (12 bytes of three 4-byte fields),
    // so all `12 * len` bytes are initialized; `u8` has alignment 1; the
    // slice borrows `records` for its lifetime and is only read. On a
    // little-endian host the in-memory bytes equal the file encoding.
    Some(unsafe {
        std::slice::from_raw_parts(
            records.as_ptr().cast::<u8>(),
            std::mem::size_of_val(records),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cast_checks_length_and_alignment() {
        let recs = [PackedEdge::new(1, 2, 0.5), PackedEdge::new(3, 4, 0.25)];
        let bytes = records_as_bytes(&recs).unwrap();
        assert_eq!(bytes.len(), 24);
        assert_eq!(&bytes[0..4], &1u32.to_le_bytes());
        assert_eq!(records_from_bytes(bytes).unwrap(), &recs);
        assert!(records_from_bytes(&bytes[..23]).is_none());
        // The records start 4-aligned, so one byte in is misaligned.
        let aligned: &[u8] = records_as_bytes(&recs).unwrap();
        assert!(records_from_bytes(&aligned[1..13]).is_none());
    }
}
