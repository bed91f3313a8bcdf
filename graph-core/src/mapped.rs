//! The only `unsafe` in graph-core outside the CSR's three helpers
//! (`csr/atomic_view.rs`, `csr/huge_pages.rs`, `csr/prefetch.rs`):
//! mapping a file into memory, giving read pages back, viewing bytes as
//! packed edge records or plain numbers (and back) without copying, and a
//! slice of a shared mapping that keeps the mapping alive (the arrays of a
//! prepared shard).

use std::fs::File;
use std::io;
use std::sync::Arc;

use memmap2::{Mmap, MmapOptions};

use crate::edge_list::PackedEdge;

/// Maps `file` read-only; `populate` pre-faults every page (for a file
/// read whole right away), otherwise pages are read as they are touched
/// (a file each process reads only its slice of).
///
/// The caller must treat the file as immutable while mapped: graph files
/// are written once (to a temporary name, then renamed) and only read after
/// that. If another process truncated or rewrote the file while it is
/// mapped, reads could fault (SIGBUS) or see changed data; this is the
/// standard caveat of memory-mapped files and is documented on
/// [`crate::io::file::open`].
pub(crate) fn map_file(file: &File, populate: bool) -> io::Result<Mmap> {
    let mut options = MmapOptions::new();
    if populate {
        // Linux MAP_POPULATE: one bulk fault is cheaper than one per page
        // when every byte is read anyway (checksum, id check).
        options.populate();
    }
    // SAFETY: the mapping is read-only and private to this process; the
    // content is validated (length, magic, version, checksums, id ranges)
    // before any record is trusted: on open, or slice by slice before a
    // build reads them (`MappedGraph::check_slice`). Concurrent
    // modification by another process is excluded by the documented
    // write-once contract above.
    unsafe { options.map(file) }
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

/// Drops the pages of `bytes` (offsets into `map`) from this process's
/// resident set, for a reader done with that part of a graph file it reads
/// slice by slice: a rank then holds the part it is reading, not all it
/// has read. The pages go from the one holding `bytes.start` up to, not
/// including, the one holding `bytes.end` (the next range releases that
/// one). A page another reader still uses (at a slice's edge) is simply
/// read again from the file. Best effort: a failing `madvise` changes
/// nothing.
pub(crate) fn release(map: &Mmap, bytes: std::ops::Range<usize>) {
    // SAFETY: sysconf has no preconditions.
    let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096);
    let page = page.max(1);
    let start = bytes.start / page * page;
    let end = bytes.end.min(map.len()) / page * page;
    if end <= start {
        return;
    }
    // SAFETY: `map` is a read-only, private mapping of a file that is never
    // written while mapped (the write-once contract of `map_file`), so no
    // page of it was ever modified: MADV_DONTNEED only removes the page
    // table entries, and the next access reads the same bytes from the
    // file again. Every reference into the mapping (here or in another
    // thread) therefore keeps seeing unchanged bytes; the range is inside
    // the mapping (clamped above) and page-aligned.
    let _ = unsafe {
        map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, start, end - start)
    };
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

/// Numbers a prepared shard stores: every bit pattern is a valid value,
/// no padding, little-endian in the file.
pub trait Plain: Copy + Send + Sync + 'static + private::Sealed {
    /// Appends the little-endian bytes (the big-endian fallback).
    fn put_le(self, out: &mut Vec<u8>);
    /// Decodes little-endian bytes (exactly the type's size).
    fn get_le(b: &[u8]) -> Self;
}
macro_rules! plain {
    ($($t:ty),*) => {$(
        impl Plain for $t {
            fn put_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn get_le(b: &[u8]) -> Self {
                let mut w = [0u8; std::mem::size_of::<$t>()];
                w.copy_from_slice(b);
                <$t>::from_le_bytes(w)
            }
        }
    )*};
}
plain!(u64, u32, f32);
mod private {
    pub trait Sealed {}
    impl Sealed for u64 {}
    impl Sealed for u32 {}
    impl Sealed for f32 {}
}

/// Views `bytes` as `T`s when possible without copying: a little-endian
/// host, a length that is a multiple of `T`'s size, an aligned start.
pub(crate) fn plain_from_bytes<T: Plain>(bytes: &[u8]) -> Option<&[T]> {
    let size = std::mem::size_of::<T>();
    if cfg!(target_endian = "big")
        || !bytes.len().is_multiple_of(size)
        || !(bytes.as_ptr() as usize).is_multiple_of(std::mem::align_of::<T>())
    {
        return None;
    }
    // SAFETY: `T` is u64, u32 or f32 (sealed): no padding and every bit
    // pattern valid. The start is aligned and the length a whole number of
    // values (checked above); the host byte order is the file's. The slice
    // borrows `bytes` and is only read.
    Some(unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<T>(), bytes.len() / size) })
}

/// The bytes of `xs` in file (little-endian) encoding, when the host is
/// little-endian; `None` on big-endian hosts (the caller encodes).
pub(crate) fn plain_as_bytes<T: Plain>(xs: &[T]) -> Option<&[u8]> {
    if cfg!(target_endian = "big") {
        return None;
    }
    // SAFETY: `T` has no padding, so all `size_of_val(xs)` bytes are
    // initialized; `u8` has alignment 1; the view borrows `xs`, read only.
    Some(unsafe { std::slice::from_raw_parts(xs.as_ptr().cast::<u8>(), std::mem::size_of_val(xs)) })
}

/// `len` values of `T` inside a shared read-only mapping, which the slice
/// keeps alive: an array of a prepared shard, viewed in place.
pub(crate) struct MappedSlice<T: Plain> {
    map: Arc<Mmap>,
    ptr: *const T,
    len: usize,
}

// SAFETY: the slice only reads memory owned by the `Arc<Mmap>` it holds
// (a read-only mapping, `Send + Sync`), and `T` is a plain number type
// (`Send + Sync`); sharing or moving the pointer is as safe as sharing
// `&[T]` into the mapping.
unsafe impl<T: Plain> Send for MappedSlice<T> {}
// SAFETY: as for `Send`: only shared reads of immutable mapped memory.
unsafe impl<T: Plain> Sync for MappedSlice<T> {}

impl<T: Plain> MappedSlice<T> {
    /// Bytes `range` of `map` as `T`s, if they can be viewed in place (see
    /// [`plain_from_bytes`]); `None` otherwise (the caller decodes).
    pub(crate) fn new(map: &Arc<Mmap>, range: std::ops::Range<usize>) -> Option<Self> {
        let bytes = map.get(range)?;
        let view = plain_from_bytes::<T>(bytes)?;
        Some(MappedSlice {
            ptr: view.as_ptr(),
            len: view.len(),
            map: map.clone(),
        })
    }

    /// The values.
    #[inline(always)]
    pub(crate) fn as_slice(&self) -> &[T] {
        // SAFETY: `ptr` and `len` came from a checked view of `map`'s bytes
        // (aligned, in bounds, valid values; `new`), and `map` is held by
        // `self`, so the memory lives at least as long as the borrow. The
        // mapping is read-only and never written while mapped (the
        // write-once contract of `map_file`).
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl<T: Plain> MappedSlice<T> {
    /// Drops the pages of values `elems` (of this slice) from this
    /// process's resident set, as [`release`] does for bytes: for an owner
    /// that copied those values and reads them here no more. The values
    /// stay readable (a later read faults them back in from the file), so
    /// this is safe whoever else still views them; it only costs a reader
    /// that does a fault.
    pub(crate) fn release(&self, elems: std::ops::Range<usize>) {
        let size = std::mem::size_of::<T>();
        let at = self.ptr as usize - self.map.as_ptr() as usize;
        let (a, b) = (elems.start.min(self.len), elems.end.min(self.len));
        release(&self.map, at + a * size..at + b * size);
    }
}

impl<T: Plain> Clone for MappedSlice<T> {
    fn clone(&self) -> Self {
        MappedSlice {
            map: self.map.clone(),
            ptr: self.ptr,
            len: self.len,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_casts_check_length_and_alignment() {
        let xs = [1u64, 2, u64::MAX];
        let b = plain_as_bytes(&xs).unwrap();
        assert_eq!(&b[8..16], &2u64.to_le_bytes());
        assert_eq!(plain_from_bytes::<u64>(b).unwrap(), &xs);
        assert!(plain_from_bytes::<u64>(&b[..23]).is_none());
        assert!(plain_from_bytes::<u32>(&b[1..9]).is_none());
        assert_eq!(plain_from_bytes::<u32>(&b[..8]).unwrap(), &[1, 0]);
    }

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
