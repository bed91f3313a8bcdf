//! The graph file on disk: every failure gives its own clear error.

use std::path::PathBuf;

use graph_core::io::file::{self, GraphFileError, ReadOptions};
use graph_core::{EdgeList, Graph500Params, GraphMeta, IdMap, PackedEdge};

struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str) -> Self {
        TempFile(std::env::temp_dir().join(format!("gc-{}-{name}.ggraph", std::process::id())))
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn sample() -> EdgeList<'static> {
    let edges = (0..16 * 8u32)
        .map(|i| PackedEdge::new(i % 8, (i * 5 + 3) % 8, (i as f32 + 1.0) / 128.0))
        .collect::<Vec<_>>();
    EdgeList::from_graph500(Graph500Params::reference(3), edges).unwrap()
}

fn written(name: &str) -> (TempFile, Vec<u8>) {
    let t = TempFile::new(name);
    file::write(&t.0, &sample()).unwrap();
    let bytes = std::fs::read(&t.0).unwrap();
    (t, bytes)
}

#[test]
fn round_trip_without_roots() {
    let (t, _) = written("ok");
    let g = file::open(&t.0).unwrap();
    assert_eq!(g.edge_list(), sample());
    assert!(g.roots().is_empty());
}

#[test]
fn missing_file() {
    let e = file::open("/nonexistent/dir/graph.ggraph").unwrap_err();
    assert!(matches!(e, GraphFileError::NotFound { .. }), "{e:?}");
    assert!(e.to_string().contains("does not exist"), "{e}");
}

#[test]
fn truncated_header_and_data() {
    let (t, bytes) = written("trunc");
    std::fs::write(&t.0, &bytes[..500]).unwrap();
    let e = file::open(&t.0).unwrap_err();
    assert!(
        matches!(e, GraphFileError::TruncatedHeader { len: 500 }),
        "{e:?}"
    );
    std::fs::write(&t.0, &bytes[..bytes.len() - 7]).unwrap();
    let e = file::open(&t.0).unwrap_err();
    assert!(matches!(e, GraphFileError::TruncatedData { .. }), "{e:?}");
    assert!(e.to_string().contains("truncated"), "{e}");
    std::fs::write(&t.0, []).unwrap();
    assert!(matches!(
        file::open(&t.0),
        Err(GraphFileError::TruncatedHeader { len: 0 })
    ));
}

#[test]
fn wrong_magic() {
    let (t, mut bytes) = written("magic");
    bytes[0] = b'X';
    std::fs::write(&t.0, &bytes).unwrap();
    let e = file::open(&t.0).unwrap_err();
    assert!(matches!(e, GraphFileError::NotAGraphFile));
    assert!(
        e.to_string().starts_with("not a gossamer-graph file"),
        "{e}"
    );
}

#[test]
fn wrong_version() {
    let (t, mut bytes) = written("version");
    bytes[8..12].copy_from_slice(&3u32.to_le_bytes());
    std::fs::write(&t.0, &bytes).unwrap();
    let e = file::open(&t.0).unwrap_err();
    assert!(
        e.to_string()
            .contains("written by format v3, this build reads v1 to v2: regenerate it with `gossamer-graph generate`"),
        "{e}"
    );
}

#[test]
fn corrupt_checksums() {
    let (t, mut bytes) = written("sum");
    bytes[60] ^= 0x10; // inside the edge count: header checksum fails
    std::fs::write(&t.0, &bytes).unwrap();
    assert!(matches!(
        file::open(&t.0),
        Err(GraphFileError::CorruptHeader { .. })
    ));
    bytes[60] ^= 0x10;
    let last = bytes.len() - 1;
    bytes[last] ^= 0x01; // a weight's low bit: data checksum fails
    std::fs::write(&t.0, &bytes).unwrap();
    let e = file::open(&t.0).unwrap_err();
    assert!(matches!(e, GraphFileError::CorruptData { .. }), "{e:?}");
    assert!(e.to_string().contains("corrupt"));
    // Skipping the data checksum accepts the (still valid-looking) records.
    let opts = ReadOptions {
        verify_data_checksum: false,
    };
    assert!(file::open_with(&t.0, opts).is_ok());
}

#[test]
fn counts_inconsistent_with_size() {
    let (t, mut bytes) = written("size");
    bytes.extend_from_slice(&[0u8; 24]);
    std::fs::write(&t.0, &bytes).unwrap();
    let e = file::open(&t.0).unwrap_err();
    assert!(matches!(e, GraphFileError::SizeMismatch { .. }), "{e:?}");
    assert!(e.to_string().contains("inconsistent with the size"), "{e}");
}

#[test]
fn vertex_out_of_range_even_without_data_checksum() {
    let (t, mut bytes) = written("range");
    // Record 3's u := 8 in a graph of 8 vertices.
    bytes[1024 + 36..1024 + 40].copy_from_slice(&8u32.to_le_bytes());
    std::fs::write(&t.0, &bytes).unwrap();
    let opts = ReadOptions {
        verify_data_checksum: false,
    };
    let e = file::open_with(&t.0, opts).unwrap_err();
    assert!(e.to_string().contains("edge 3 (8, "), "{e}");
    assert!(e.to_string().contains("outside 0..8"), "{e}");
}

#[test]
fn a_directory_is_named_as_such() {
    let e = file::open(std::env::temp_dir()).unwrap_err();
    assert!(
        matches!(
            e,
            GraphFileError::NotARegularFile {
                kind: "directory",
                ..
            }
        ),
        "{e:?}"
    );
    assert!(
        e.to_string()
            .contains("it is a directory, not a regular file"),
        "{e}"
    );
}

#[test]
fn special_files_are_refused_before_reading() {
    // Devices that never end or report no length.
    for (dev, kind) in [
        ("/dev/zero", "character device"),
        ("/dev/urandom", "character device"),
    ] {
        let e = file::open(dev).unwrap_err();
        assert!(
            matches!(e, GraphFileError::NotARegularFile { kind: k, .. } if k == kind),
            "{dev}: {e:?}"
        );
    }
    // A /proc file reports 0 bytes: refused as empty without reading it.
    let e = file::open("/proc/self/status").unwrap_err();
    assert!(
        matches!(e, GraphFileError::TruncatedHeader { len: 0 }),
        "{e:?}"
    );
    assert!(e.to_string().contains("reports 0 bytes"), "{e}");
    // A FIFO with no writer: opening it must not block.
    let fifo = TempFile::new("fifo");
    let _ = std::fs::remove_file(&fifo.0);
    let made = std::process::Command::new("mkfifo").arg(&fifo.0).status();
    if matches!(made, Ok(s) if s.success()) {
        let e = file::open(&fifo.0).unwrap_err();
        assert!(
            matches!(
                e,
                GraphFileError::NotARegularFile {
                    kind: "FIFO (named pipe)",
                    ..
                }
            ),
            "{e:?}"
        );
    } else {
        eprintln!("note: mkfifo unavailable, FIFO input not tested");
    }
}

/// The fuzz seeds were written by a separate script from the layout table
/// in `src/io/file/mod.rs` (with zero checksums): after sealing, they must
/// parse. This cross-checks the documented byte offsets against the reader.
#[test]
fn layout_table_matches_independently_written_files() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds");
    let seal = |mut b: Vec<u8>| {
        let sum = file::checksum64(&b[1024..]);
        b[72..80].copy_from_slice(&sum.to_le_bytes());
        let sum = file::checksum64(&b[..1016]);
        b[1016..1024].copy_from_slice(&sum.to_le_bytes());
        b
    };
    let b = seal(std::fs::read(dir.join("graph500_scale2.ggraph")).unwrap());
    let g = file::parse(&b).unwrap();
    assert_eq!(g.header.params, Some(Graph500Params::reference(2)));
    assert_eq!(g.header.roots, [0, 3]);
    assert_eq!(g.edges.edges()[5], PackedEdge::new(1, 0, 5.0 / 64.0));
    let b = seal(std::fs::read(dir.join("custom_5v_3e.ggraph")).unwrap());
    let g = file::parse(&b).unwrap();
    assert_eq!(g.header.params, None);
    assert_eq!(g.edges.num_vertices(), 5);
    assert_eq!(g.edges.edges()[1], PackedEdge::new(1, 2, 0.25));
}

/// A version-1 file written by the `gossamer-graph generate --scale 3
/// --edgefactor 2 -o` of the commit before format v2 (kept as it was
/// written): it still opens, as an undirected, weighted Graph500 graph.
#[test]
fn version_1_files_still_open() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/v1-scale3.ggraph");
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(
        &bytes[8..12],
        &1u32.to_le_bytes(),
        "the fixture is a v1 file"
    );
    let g = file::open(&path).unwrap();
    assert_eq!(g.header().version, 1);
    let p = Graph500Params {
        scale: 3,
        edgefactor: 2,
        seed1: 2,
        seed2: 3,
    };
    assert_eq!(g.header().params, Some(p));
    assert_eq!(g.edge_list().num_edges(), 16);
    assert_eq!(g.roots().len(), 64);
    assert_eq!(*g.meta(), GraphMeta::default());
    assert!(!g.meta().directed && g.meta().weighted);
    // Rewritten by this build: still v1, byte for byte (older readers such
    // as the C baselines keep reading generated graphs).
    let t = TempFile::new("v1-rewritten");
    file::write_with_roots(&t.0, &g.edge_list(), g.roots()).unwrap();
    assert_eq!(std::fs::read(&t.0).unwrap(), bytes);
    // A v1 file may not carry the v2 flags.
    let mut v1 = bytes.clone();
    v1[20] |= 2;
    let sum = file::checksum64(&v1[..1016]);
    v1[1016..1024].copy_from_slice(&sum.to_le_bytes());
    let e = file::parse(&v1).unwrap_err();
    assert!(
        e.to_string().contains("unknown flags 0x3 for format v1"),
        "{e}"
    );
}

fn converted() -> (EdgeList<'static>, GraphMeta) {
    let edges = vec![
        PackedEdge::new(0, 1, 1.0),
        PackedEdge::new(2, 1, 1.0),
        PackedEdge::new(2, 2, 1.0),
    ];
    let meta = GraphMeta {
        directed: true,
        weighted: false,
        ids: IdMap::Table(vec![5, 1 << 33, 1 << 40]),
    };
    (EdgeList::from_edges(3, edges).unwrap(), meta)
}

#[test]
fn version_2_keeps_directed_weighted_and_ids() {
    let (list, meta) = converted();
    let t = TempFile::new("v2-meta");
    file::write_graph(&t.0, &list, &[2], &meta).unwrap();
    let bytes = std::fs::read(&t.0).unwrap();
    assert_eq!(bytes.len(), 1024 + 3 * 12 + 3 * 8);
    assert_eq!(&bytes[8..12], &2u32.to_le_bytes());
    let g = file::open(&t.0).unwrap();
    assert_eq!(*g.meta(), meta);
    assert_eq!(g.edge_list(), list);
    assert_eq!(g.roots(), [2]);
    assert_eq!(g.meta().ids.dense_id(1 << 40), Some(2));
    // An offset map is stored in the header alone.
    let base = GraphMeta {
        directed: false,
        weighted: true,
        ids: IdMap::Offset(1),
    };
    file::write_graph(&t.0, &list, &[], &base).unwrap();
    assert_eq!(std::fs::metadata(&t.0).unwrap().len(), 1024 + 3 * 12);
    assert_eq!(*file::open(&t.0).unwrap().meta(), base);
}

#[test]
fn version_2_id_table_damage_is_caught() {
    let (list, meta) = converted();
    let good = file::to_bytes_with_meta(&list, &[], &meta).unwrap();
    // A flipped bit in the table.
    let mut b = good.clone();
    let last = b.len() - 3;
    b[last] ^= 1;
    let e = file::parse(&b).unwrap_err();
    assert!(matches!(e, GraphFileError::CorruptIds { .. }), "{e:?}");
    assert!(e.to_string().contains("vertex id table is corrupt"), "{e}");
    // The table cut off.
    let e = file::parse(&good[..good.len() - 8]).unwrap_err();
    assert!(matches!(e, GraphFileError::TruncatedData { .. }), "{e:?}");
    // A table that is not increasing is refused by the writer.
    let bad = GraphMeta {
        ids: IdMap::Table(vec![5, 5, 6]),
        ..meta
    };
    let e = file::to_bytes_with_meta(&list, &[], &bad).unwrap_err();
    assert!(e.to_string().contains("not strictly increasing"), "{e}");
    // A Graph500 graph cannot be marked directed.
    let directed = GraphMeta {
        directed: true,
        ..GraphMeta::default()
    };
    assert!(file::to_bytes_with_meta(&sample(), &[], &directed).is_err());
}
