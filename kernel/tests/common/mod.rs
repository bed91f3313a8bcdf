//! What the row tests share: where a run takes its graph from, a built
//! graph file in a temporary directory, a program that only looks, and
//! the generator of the test graphs' random ids.
//!
//! Each test file includes this with `mod common;` and uses what it
//! needs, so not every item is used by every file.
#![allow(dead_code)]

use graph_core::construct::{LocalSource, Unweighted};
use graph_core::io::built::Weights;
use graph_core::sharded::ShardedGraph;
use graph_core::{EdgeList, GraphMeta, IdMap, PartitionKind};
use graph_kernel::Program;
use std::path::{Path, PathBuf};

/// Where a run takes its graph from.
#[derive(Clone)]
pub enum From {
    /// Built in memory from the published list, with its weights.
    Built(LocalSource),
    /// Built in memory without weights (its rows stored by degree).
    BuiltUnweighted(LocalSource),
    /// Mapped from a built graph file.
    File(PathBuf, Weights),
}

impl From {
    /// The sharded graph, on the trustees of the calling `gossamer::main`.
    pub fn open(self, kind: PartitionKind) -> ShardedGraph {
        match self {
            From::Built(source) => ShardedGraph::build_from(source, kind).unwrap().0,
            From::BuiltUnweighted(source) => {
                ShardedGraph::build_from(Unweighted(source), kind)
                    .unwrap()
                    .0
            }
            From::File(path, weights) => ShardedGraph::open_built(&path, kind, weights).unwrap().0,
        }
    }

    pub fn is_file(&self) -> bool {
        matches!(self, From::File(..))
    }
}

/// An undirected, weighted graph written as a built graph file in a
/// directory of its own, removed when this is dropped.
pub struct BuiltFile {
    dir: PathBuf,
    file: PathBuf,
}

impl BuiltFile {
    pub fn write(tag: &str, list: &EdgeList<'_>) -> BuiltFile {
        let dir = std::env::temp_dir().join(format!("gg-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("g.gbuilt");
        let meta = GraphMeta {
            directed: false,
            weighted: true,
            ids: IdMap::Offset(0),
        };
        graph_core::io::built::write(&file, list, &meta, &[], None).unwrap();
        BuiltFile { dir, file }
    }

    pub fn path(&self) -> &Path {
        &self.file
    }
}

impl Drop for BuiltFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A program that sends nothing: its state is what `init` looked at.
pub struct Looked<T>(pub Option<T>);

impl<T: Send + 'static> Program for Looked<T> {
    type Msg = u32;
    fn receive(&mut self, _: u32, _: u32) -> bool {
        false
    }
}

/// The test graphs' pseudo-random stream (a 64-bit linear congruential
/// generator); each call gives the next state.
pub fn lcg(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed;
    move || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        x
    }
}

/// Every vertex's entries by global id, sorted, parallel ones included and
/// self-loops left out, as an undirected shard holds them.
pub fn entries_by_vertex(list: &EdgeList<'_>, n: usize) -> Vec<Vec<u32>> {
    let mut all = vec![Vec::new(); n];
    for e in list.edges().iter().filter(|e| e.u != e.v) {
        all[e.u as usize].push(e.v);
        all[e.v as usize].push(e.u);
    }
    all.iter_mut().for_each(|r| r.sort_unstable());
    all
}
