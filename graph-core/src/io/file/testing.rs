//! Helpers of the graph file's unit tests.

use std::path::{Path, PathBuf};

use super::checksum::checksum64;
use super::layout::{HEADER_LEN, OFF_HEADER_SUM};
use crate::edge_list::{EdgeList, Graph500Params, PackedEdge};

pub(super) fn sample() -> EdgeList<'static> {
    let p = Graph500Params::reference(2);
    let edges = (0..64u32)
        .map(|i| PackedEdge::new(i % 4, (i * 3 + 1) % 4, i as f32 / 64.0))
        .collect::<Vec<_>>();
    EdgeList::from_graph500(p, edges).unwrap()
}

/// Rewrites the header checksum after a deliberate header edit.
pub(super) fn reseal(b: &mut [u8]) {
    let s = checksum64(&b[..OFF_HEADER_SUM]);
    b[OFF_HEADER_SUM..HEADER_LEN].copy_from_slice(&s.to_le_bytes());
}

/// A fresh scratch directory for one writer test.
pub(super) fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gc-writer-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Names in `dir`, sorted.
pub(super) fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}
