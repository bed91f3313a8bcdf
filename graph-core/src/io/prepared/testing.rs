//! Helpers of the prepared shards' unit tests (here and in
//! `construct/prepared.rs`).

use std::path::PathBuf;

use super::header::GraphIdentity;
use crate::edge_list::{EdgeList, PackedEdge};

pub(crate) fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gg-prepared-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

pub(crate) fn list() -> EdgeList<'static> {
    let edges = (0..500u32)
        .map(|i| PackedEdge::new(i % 37, (i * 7 + 3) % 41, (i % 10) as f32 / 10.0))
        .collect();
    EdgeList::from_edges(41, edges).unwrap()
}

pub(crate) fn identity() -> GraphIdentity {
    GraphIdentity {
        num_vertices: 41,
        num_edges: 500,
        params: None,
        file_checksum: Some(0x1234),
        unit_weights: false,
        directed: false,
    }
}

pub(crate) fn directed_identity() -> GraphIdentity {
    GraphIdentity {
        directed: true,
        ..identity()
    }
}
