//! Opening a graph file: [`open`] maps and verifies it whole; [`open_in_slices`]
//! maps it for a distributed build whose readers each check their own slice
//! ([`MappedGraph::check_slice`], [`MappedGraph::check_digests`]);
//! [`open_header`] reads only what the records mean, not the records.

use std::fmt;
use std::io;
use std::path::Path;

use super::checksum;
use super::error::GraphFileError;
use super::header::{parse_header, GraphHeader};
use super::layout::HEADER_LEN;
use super::parse::{meta_of, parse_layout, parse_with, ReadOptions};
use super::stage::{kind_of, open_regular, OpenRegular};
use crate::edge_list::{EdgeList, PackedEdge};
use crate::mapped;
use crate::meta::GraphMeta;

/// A graph file mapped into memory, validated; its edge list is a
/// zero-copy view of the mapping.
///
/// The file must not be modified while it is open (graph files are
/// write-once; [`write()`](fn@super::write) replaces files by rename, which is safe).
pub struct MappedGraph {
    header: GraphHeader,
    meta: GraphMeta,
    storage: Storage,
    /// Every record was checked on open ([`open`]); otherwise the records
    /// are checked slice by slice before a build reads them
    /// ([`open_in_slices`]).
    verified: bool,
}

enum Storage {
    Mapped(memmap2::Mmap),
    /// Decoded copy, used only where a zero-copy view is impossible
    /// (big-endian hosts).
    Owned(Vec<PackedEdge>),
}

impl fmt::Debug for MappedGraph {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MappedGraph")
            .field("header", &self.header)
            .field("verified", &self.verified)
            .finish_non_exhaustive()
    }
}

impl MappedGraph {
    /// The decoded header.
    pub fn header(&self) -> &GraphHeader {
        &self.header
    }

    /// Directed or not, weighted or not, and the input file's ids.
    pub fn meta(&self) -> &GraphMeta {
        &self.meta
    }

    /// Stored search roots (possibly empty).
    pub fn roots(&self) -> &[u64] {
        &self.header.roots
    }

    /// The edge records, borrowed from the mapping.
    pub fn edges(&self) -> &[PackedEdge] {
        match &self.storage {
            // Length, alignment and byte order were checked by `open`, so
            // the view exists; an empty slice is unreachable in practice.
            Storage::Mapped(m) => {
                let end = HEADER_LEN + self.header.num_edges as usize * PackedEdge::BYTES;
                mapped::records_from_bytes(&m[HEADER_LEN..end]).unwrap_or(&[])
            }
            Storage::Owned(v) => v,
        }
    }

    /// The graph as a borrowed [`EdgeList`] (zero-copy).
    ///
    /// # Panics
    ///
    /// On a graph opened with [`open_in_slices`], whose records were not
    /// all checked: an edge list promises valid records.
    pub fn edge_list(&self) -> EdgeList<'_> {
        assert!(
            self.verified,
            "a graph file opened in slices has no edge list: open it with file::open"
        );
        // `open` validated these parts together (counts, ids, weights).
        EdgeList::from_validated_parts(
            self.header.num_vertices,
            self.header.params,
            self.edges().into(),
        )
    }

    /// Whether every record was checked when the file was opened ([`open`]);
    /// `false` after [`open_in_slices`] until each slice is checked.
    pub fn is_verified(&self) -> bool {
        self.verified
    }

    /// The digests of the data checksum's chunks that *start* in the bytes
    /// of records `range` (a chunk may reach into the next range), in
    /// order, for [`check_digests`](Self::check_digests) to fold with every
    /// other range's: ranges that cover the records in order give every
    /// chunk's digest. A trustee of a build hashes its own slice this way,
    /// on the calling thread. On a verified graph there is nothing left to
    /// check: no digests. A range beyond the records is cut to them.
    pub fn slice_digests(&self, range: std::ops::Range<u64>) -> Vec<u64> {
        let (Storage::Mapped(map), false) = (&self.storage, self.verified) else {
            return Vec::new();
        };
        let m = self.header.num_edges as usize;
        let data = &map[HEADER_LEN..HEADER_LEN + m * PackedEdge::BYTES];
        let (start, end) = self.cut(range);
        let first = (start * PackedEdge::BYTES).div_ceil(checksum::CHUNK);
        let last = (end * PackedEdge::BYTES).div_ceil(checksum::CHUNK);
        (first..last)
            .map(|i| {
                let at = i * checksum::CHUNK;
                let chunk = &data[at..(at + checksum::CHUNK).min(data.len())];
                checksum::chunk_digest(chunk, i as u64)
            })
            .collect()
    }

    /// Checks the ids and weights of records `range` (cut to the records)
    /// of a graph opened with [`open_in_slices`], on the calling thread;
    /// the first bad record is named by its index in the whole file. `Ok`
    /// on a verified graph.
    pub fn check_slice(&self, range: std::ops::Range<u64>) -> Result<(), GraphFileError> {
        if self.verified {
            return Ok(());
        }
        let (start, end) = self.cut(range);
        let records = &self.edges()[start..end];
        crate::edge_list::check_records(records, self.header.num_vertices, start as u64, false)
            .map_err(GraphFileError::BadEdge)
    }

    /// Gives the pages of records `range` of a graph opened with
    /// [`open_in_slices`] back (`madvise(MADV_DONTNEED)`): a reader done
    /// with them keeps only what it is reading resident; touched again,
    /// they are read from the file. Nothing on a verified graph (kept
    /// whole for the commands that read it whole).
    pub fn release(&self, range: std::ops::Range<u64>) {
        if let (Storage::Mapped(map), false) = (&self.storage, self.verified) {
            let (start, end) = self.cut(range);
            let b = PackedEdge::BYTES;
            mapped::release(map, HEADER_LEN + start * b..HEADER_LEN + end * b);
        }
    }

    /// `range` cut to the records, as indices (start <= end).
    fn cut(&self, range: std::ops::Range<u64>) -> (usize, usize) {
        let m = self.header.num_edges;
        let end = range.end.min(m);
        (range.start.min(end) as usize, end as usize)
    }

    /// Folds the digests [`slice_digests`](Self::slice_digests) returned
    /// for ranges that cover the records in order, and compares the
    /// checksum with the header's: [`GraphFileError::CorruptData`] if they
    /// differ. `Ok` on a verified graph.
    pub fn check_digests(&self, digests: &[u64]) -> Result<(), GraphFileError> {
        if self.verified {
            return Ok(());
        }
        let len = self.header.num_edges as usize * PackedEdge::BYTES;
        // Empty data is one empty chunk, which no slice starts.
        let empty = [checksum::chunk_digest(&[], 0)];
        let digests = if len == 0 { &empty[..] } else { digests };
        let want = checksum::chunk_count(len);
        if digests.len() != want {
            return Err(GraphFileError::BadHeader {
                what: format!(
                    "the build's slices hashed {} of the data checksum's {want} chunks (the ranks disagree about the file)",
                    digests.len()
                ),
            });
        }
        let computed = checksum::fold(len, digests.iter().copied());
        if computed != self.header.data_checksum {
            return Err(GraphFileError::CorruptData {
                stored: self.header.data_checksum,
                computed,
            });
        }
        Ok(())
    }
}

/// Opens, maps and fully verifies a graph file.
pub fn open(path: impl AsRef<Path>) -> Result<MappedGraph, GraphFileError> {
    open_with(path, ReadOptions::default())
}

/// How a failed read of the graph file at `path`, while doing `action`, is
/// reported: a missing file as [`GraphFileError::NotFound`].
fn read_err(path: &Path, action: &'static str) -> impl FnOnce(io::Error) -> GraphFileError {
    let p = path.to_path_buf();
    move |source| {
        if source.kind() == io::ErrorKind::NotFound {
            GraphFileError::NotFound { path: p }
        } else {
            GraphFileError::Io {
                path: p,
                action,
                source,
            }
        }
    }
}

/// Reads only a graph file's header and id table (not its records): what
/// a run on a prepared graph ([`crate::io::prepared`]) needs to know of the
/// graph (its identity, roots and meta). Checks the header and id table
/// checksums and that the length matches the counts; the records are
/// neither read nor verified.
pub fn open_header(path: impl AsRef<Path>) -> Result<(GraphHeader, GraphMeta), GraphFileError> {
    use std::io::{Read, Seek};
    let path = path.as_ref();
    let io_err = |action: &'static str| read_err(path, action);
    let meta = std::fs::metadata(path).map_err(io_err("inspect"))?;
    if !meta.file_type().is_file() {
        return Err(GraphFileError::NotARegularFile {
            path: path.to_path_buf(),
            kind: kind_of(meta.file_type()),
        });
    }
    let mut file = {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)
            .map_err(io_err("open"))?
    };
    let actual = file.metadata().map_err(io_err("inspect"))?.len();
    let mut bytes = Vec::with_capacity(HEADER_LEN);
    (&mut file)
        .take(HEADER_LEN as u64)
        .read_to_end(&mut bytes)
        .map_err(io_err("read"))?;
    let header = parse_header(&bytes)?;
    let expected = header.file_len().ok_or(GraphFileError::SizeMismatch {
        expected: u64::MAX,
        actual,
    })?;
    if actual < expected {
        return Err(GraphFileError::TruncatedData { expected, actual });
    }
    if actual > expected {
        return Err(GraphFileError::SizeMismatch { expected, actual });
    }
    let ids = if header.has_id_table {
        let start = expected - header.num_vertices * 8;
        file.seek(io::SeekFrom::Start(start))
            .map_err(io_err("read"))?;
        let mut table = Vec::with_capacity((header.num_vertices * 8) as usize);
        file.read_to_end(&mut table).map_err(io_err("read"))?;
        Some(table)
    } else {
        None
    };
    let meta = meta_of(&header, ids.as_deref())?;
    Ok((header, meta))
}

/// [`open`] with options (e.g. skip the data checksum for huge files).
pub fn open_with(path: impl AsRef<Path>, opts: ReadOptions) -> Result<MappedGraph, GraphFileError> {
    open_mapping(path.as_ref(), Some(opts))
}

/// Opens and maps a graph file whose records a distributed build reads
/// slice by slice, without reading them here: the header, the length, the
/// Graph500 counts and the id table are checked now; the records' ids,
/// weights and data checksum are checked by each reader for its own
/// slice ([`MappedGraph::check_slice`], [`MappedGraph::check_digests`])
/// before anything is built from them. So a process touches only the
/// pages of the slices it reads, and a rack on a shared filesystem reads
/// the file once in all, not once per rank. The graph has no
/// [`edge_list`](MappedGraph::edge_list). Where the records cannot be
/// viewed in place (a big-endian host) this is [`open`].
pub fn open_in_slices(path: impl AsRef<Path>) -> Result<MappedGraph, GraphFileError> {
    open_mapping(path.as_ref(), None)
}

/// [`open_with`] (`full`), or [`open_in_slices`] (`None`).
fn open_mapping(path: &Path, full: Option<ReadOptions>) -> Result<MappedGraph, GraphFileError> {
    let io_err = |action: &'static str| read_err(path, action);
    let (file, len) = open_regular(path).map_err(|e| match e {
        OpenRegular::Io(action, e) => io_err(action)(e),
        OpenRegular::NotRegular(kind) => GraphFileError::NotARegularFile {
            path: path.to_path_buf(),
            kind,
        },
    })?;
    if len == 0 {
        // Empty, or a file that reports no length (/proc, /sys): nothing to read.
        return Err(GraphFileError::TruncatedHeader { len: 0 });
    }
    if len < HEADER_LEN as u64 {
        // Too short to map usefully: read those few bytes (never more than a
        // header's worth) for a precise error.
        let mut bytes = Vec::with_capacity(HEADER_LEN);
        io::Read::read_to_end(&mut io::Read::take(&file, HEADER_LEN as u64), &mut bytes)
            .map_err(io_err("read"))?;
        parse_header(&bytes)?;
        return Err(GraphFileError::TruncatedHeader { len });
    }
    let map = mapped::map_file(&file, full.is_some()).map_err(io_err("map"))?;
    if full.is_none() {
        let (header, meta, data) = parse_layout(&map)?;
        if let Some(records) = mapped::records_from_bytes(data) {
            // The record count against the Graph500 parameters; nothing
            // of the records is read.
            if let Some(p) = header.params {
                EdgeList::from_graph500(p, records).map_err(GraphFileError::BadEdge)?;
            }
            return Ok(MappedGraph {
                header,
                meta,
                storage: Storage::Mapped(map),
                verified: false,
            });
        }
    }
    let opts = full.unwrap_or_default();
    let (header, meta, decoded) = {
        let parsed = parse_with(&map, opts)?;
        let decoded = (!parsed.edges.is_borrowed()).then(|| parsed.edges.edges().to_vec());
        (parsed.header, parsed.meta, decoded)
    };
    let storage = match decoded {
        None => Storage::Mapped(map),
        Some(v) => Storage::Owned(v),
    };
    Ok(MappedGraph {
        header,
        meta,
        storage,
        verified: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edge_list::Graph500Params;
    use crate::io::file::checksum::checksum64;
    use crate::io::file::layout::*;
    use crate::io::file::testing::{reseal, sample, scratch};
    use crate::io::file::write::{to_bytes, write_graph, write_with_roots};
    use crate::meta::IdMap;

    #[test]
    fn the_header_alone_says_what_open_says() {
        let d = scratch("header-only");
        let g = d.join("g");
        write_with_roots(&g, &sample(), &[1, 2]).unwrap();
        let (h, m) = open_header(&g).unwrap();
        let full = open(&g).unwrap();
        assert_eq!((&h, &m), (full.header(), full.meta()));
        let list = EdgeList::from_edges(3, vec![PackedEdge::new(0, 2, 1.0)]).unwrap();
        let meta = GraphMeta {
            directed: true,
            weighted: false,
            ids: IdMap::Table(vec![5, 70, 900]),
        };
        let t = d.join("t");
        write_graph(&t, &list, &[], &meta).unwrap();
        let (h, m) = open_header(&t).unwrap();
        assert_eq!(m, meta);
        assert_eq!(h.num_edges, 1);
        let bytes = std::fs::read(&t).unwrap();
        std::fs::write(&t, &bytes[..bytes.len() - 1]).unwrap();
        assert!(matches!(
            open_header(&t),
            Err(GraphFileError::TruncatedData { .. })
        ));
        let mut bad = bytes.clone();
        let last = bad.len() - 1;
        bad[last] ^= 1;
        std::fs::write(&t, &bad).unwrap();
        assert!(matches!(
            open_header(&t),
            Err(GraphFileError::CorruptIds { .. })
        ));
        let _ = std::fs::remove_dir_all(&d);
    }

    /// `m` records over `n` vertices (ids and weights from `i`), as file bytes.
    fn many(n: u32, m: u32) -> Vec<u8> {
        let edges = (0..m)
            .map(|i| PackedEdge::new(i % n, (i * 7 + 3) % n, (i % 1000) as f32 / 1000.0))
            .collect();
        to_bytes(&EdgeList::from_edges(u64::from(n), edges).unwrap(), &[]).unwrap()
    }

    /// Even slices of `m` records over `parts` readers, as a build cuts them.
    fn slices(m: u64, parts: u64) -> Vec<std::ops::Range<u64>> {
        (0..parts)
            .map(|k| m * k / parts..m * (k + 1) / parts)
            .collect()
    }

    #[test]
    fn slices_hash_to_the_whole_checksum_however_the_file_is_cut() {
        let d = scratch("slices");
        // 4 chunks (the last one partial), a single partial chunk, and none.
        for m in [300_000u32, 1000, 0] {
            let path = d.join(format!("g{m}"));
            std::fs::write(&path, many(97, m)).unwrap();
            let g = open_in_slices(&path).unwrap();
            assert!(!g.is_verified());
            assert_eq!(open(&path).unwrap().header(), g.header());
            for parts in [1, 2, 3, 5, 7, 1000] {
                let mut digests = Vec::new();
                for s in slices(u64::from(m), parts) {
                    g.check_slice(s.clone()).unwrap();
                    digests.extend(g.slice_digests(s));
                }
                let chunks = (m as usize * 12).div_ceil(checksum::CHUNK);
                assert_eq!(digests.len(), chunks, "{m} records in {parts}");
                g.check_digests(&digests).unwrap();
                // A chunk left out, repeated or out of order is caught.
                if digests.len() > 1 {
                    let mut wrong = digests.clone();
                    wrong.swap(0, 1);
                    assert!(matches!(
                        g.check_digests(&wrong),
                        Err(GraphFileError::CorruptData { .. })
                    ));
                    assert!(g.check_digests(&digests[1..]).is_err());
                    let mut twice = digests.clone();
                    twice.push(digests[0]);
                    assert!(g.check_digests(&twice).is_err());
                }
            }
            // A verified graph has nothing left to check.
            let full = open(&path).unwrap();
            assert!(full.is_verified() && full.slice_digests(0..u64::from(m)).is_empty());
            full.check_digests(&[]).unwrap();
        }
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_slice_is_checked_from_its_own_bytes_and_corruption_is_found_by_the_fold() {
        let d = scratch("slice-corrupt");
        let good = many(97, 300_000);
        let m = 300_000u64;
        let path = d.join("good");
        std::fs::write(&path, &good).unwrap();
        let thirds = |g: &MappedGraph| -> Vec<Vec<u64>> {
            slices(m, 3)
                .into_iter()
                .map(|s| g.slice_digests(s))
                .collect()
        };
        let want = thirds(&open_in_slices(&path).unwrap());
        // A flipped bit in the last chunk (which starts at record 262 144,
        // in the last third): the file still opens (nothing of the records
        // is read), the first two thirds hash as before, the last differs,
        // and the fold says the data is corrupt.
        let mut bad = good.clone();
        let at = HEADER_LEN + 12 * 290_000 + 8; // a weight's low byte
        bad[at] ^= 1;
        let path = d.join("bad");
        std::fs::write(&path, &bad).unwrap();
        let g = open_in_slices(&path).unwrap();
        let got = thirds(&g);
        assert_eq!(got[..2], want[..2]);
        assert_ne!(got[2], want[2]);
        assert!(matches!(
            g.check_digests(&got.concat()),
            Err(GraphFileError::CorruptData { .. })
        ));
        assert!(matches!(
            open(&path),
            Err(GraphFileError::CorruptData { .. })
        ));
        let _ = std::fs::remove_dir_all(&d);
    }

    /// `bytes` with records `at` replaced and both checksums made right
    /// again: a file that is whole but holds a bad record.
    fn with_record(mut bytes: Vec<u8>, at: usize, e: PackedEdge) -> Vec<u8> {
        let off = HEADER_LEN + 12 * at;
        bytes[off..off + 12].copy_from_slice(&e.to_le_bytes());
        let sum = checksum64(&bytes[HEADER_LEN..]);
        bytes[OFF_DATA_SUM..OFF_DATA_SUM + 8].copy_from_slice(&sum.to_le_bytes());
        reseal(&mut bytes);
        bytes
    }

    #[test]
    fn a_slice_names_its_first_bad_record_by_its_index_in_the_file() {
        let d = scratch("slice-records");
        let m = 10_000u64;
        for (bad, what) in [
            (PackedEdge::new(5, 97, 0.5), "vertex"),
            (PackedEdge::new(5, 6, f32::NAN), "weight"),
            (PackedEdge::new(5, 6, -1.0), "weight"),
        ] {
            let bytes = with_record(many(97, m as u32), 7_000, bad);
            let path = d.join("bad");
            std::fs::write(&path, &bytes).unwrap();
            let whole = open(&path).unwrap_err();
            let g = open_in_slices(&path).unwrap();
            let mut digests = Vec::new();
            let mut errors = Vec::new();
            for s in slices(m, 4) {
                digests.extend(g.slice_digests(s.clone()));
                errors.extend(g.check_slice(s).err());
            }
            // The checksum is right; exactly the third slice has the record.
            g.check_digests(&digests).unwrap();
            assert_eq!(errors.len(), 1, "{errors:?}");
            let e = errors.pop().unwrap();
            assert_eq!(e.to_string(), whole.to_string());
            assert!(e.to_string().contains("7000"), "{e}");
            assert!(e.to_string().contains(what), "{e}");
        }
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    #[should_panic(expected = "opened in slices has no edge list")]
    fn a_graph_opened_in_slices_has_no_edge_list() {
        let d = scratch("slice-list");
        let path = d.join("g");
        std::fs::write(&path, many(10, 100)).unwrap();
        let g = open_in_slices(&path).unwrap();
        let _ = std::fs::remove_dir_all(&d);
        let _ = g.edge_list();
    }

    #[test]
    fn opening_in_slices_checks_everything_but_the_records() {
        let d = scratch("slice-open");
        let good = many(97, 1000);
        let path = d.join("g");
        let mut short = good.clone();
        short.pop();
        std::fs::write(&path, &short).unwrap();
        assert!(matches!(
            open_in_slices(&path),
            Err(GraphFileError::TruncatedData { .. })
        ));
        let mut header = good.clone();
        header[OFF_EDGES] ^= 1;
        std::fs::write(&path, &header).unwrap();
        assert!(matches!(
            open_in_slices(&path),
            Err(GraphFileError::CorruptHeader { .. })
        ));
        assert!(matches!(
            open_in_slices(d.join("missing")),
            Err(GraphFileError::NotFound { .. })
        ));
        assert!(matches!(
            open_in_slices(&d),
            Err(GraphFileError::NotARegularFile { .. })
        ));
        // Graph500 parameters whose edge count the records do not have.
        let p = Graph500Params::reference(2);
        let list = EdgeList::from_graph500(p, vec![PackedEdge::new(0, 1, 0.5); 64]).unwrap();
        let mut g500 = to_bytes(&list, &[]).unwrap();
        g500[OFF_EDGEFACTOR] = 8;
        reseal(&mut g500);
        std::fs::write(&path, &g500).unwrap();
        let e = open_in_slices(&path).unwrap_err();
        assert_eq!(e.to_string(), open(&path).unwrap_err().to_string());
        let _ = std::fs::remove_dir_all(&d);
    }
}
