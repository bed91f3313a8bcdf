//! The versioned binary graph file.
//!
//! A graph file holds one [`EdgeList`](crate::EdgeList) (plus, optionally, up to 64 search
//! roots) and its [`GraphMeta`](crate::GraphMeta) (directed or not, weighted or not, the input
//! file's vertex ids) so that a generated or converted graph can be reused
//! and memory-mapped without copying. All integers are little-endian.
//!
//! | offset | size | field |
//! |---:|---:|---|
//! | 0 | 8 | magic `b"GOSGRAPH"` |
//! | 8 | 4 | format version (`u32`, currently [`FORMAT_VERSION`]) |
//! | 12 | 4 | header length in bytes (`u32`, 1024) |
//! | 16 | 4 | record length in bytes (`u32`, 12) |
//! | 20 | 4 | flags (`u32`): bit 0 = Graph500 parameters present; v2 only: bit 1 = directed, bit 2 = unweighted (all weights 1.0), bit 3 = id table present |
//! | 24 | 4 | scale (`u32`) |
//! | 28 | 4 | edgefactor (`u32`) |
//! | 32 | 8 | seed1 (`u64`) |
//! | 40 | 8 | seed2 (`u64`) |
//! | 48 | 8 | vertex count (`u64`, <= 2^32) |
//! | 56 | 8 | edge count (`u64`) |
//! | 64 | 8 | data offset (`u64`, 1024) |
//! | 72 | 8 | data checksum (`u64`, [`checksum64`] of the record bytes) |
//! | 80 | 4 | root count (`u32`, <= 64) |
//! | 84 | 4 | reserved, 0 |
//! | 88 | 512 | roots: 64 x `u64` (unused slots 0) |
//! | 600 | 8 | v2: id base (`u64`): without an id table, file id = dense id + base |
//! | 608 | 8 | v2: id table checksum (`u64`, [`checksum64`] of the table bytes; 0 without one) |
//! | 616 | 400 | reserved, 0 |
//! | 1016 | 8 | header checksum (`u64`, [`checksum64`] of bytes 0..1016) |
//! | 1024 | 12 x edges | records `u32 u, u32 v, f32 w` ([`PackedEdge`](crate::PackedEdge)) |
//! | 1024 + 12 x edges | 8 x vertices | v2, flag bit 3 only: id table, `u64` file id of each vertex, strictly increasing |
//!
//! Opened with [`open`](fn@open), a file is verified whole (the data
//! checksum and every record). A distributed build opens it with
//! [`open_in_slices`] instead: every reader checks only its own slice and
//! hashes the chunks of the data checksum that start there
//! ([`MappedGraph::slice_digests`]), and the builder folds the digests
//! ([`MappedGraph::check_digests`]).
//!
//! The file is exactly `1024 + 12 * edges` bytes, plus `8 * vertices` with
//! an id table. The data starts at a multiple of 4 (and the mapping at a
//! page), so the records are viewed in place as `&[PackedEdge]` after
//! validation; the id table is decoded into memory.
//!
//! Version 1 (before `convert`) has no meta: its flags hold only bit 0 and
//! bytes 600.. are zero. It still opens, as an undirected, weighted graph
//! with ids as they are ([`GraphMeta::default`](crate::GraphMeta::default)).
//! This build writes such graphs (every generated one) as v1, byte for byte
//! as before, so older readers (the C baselines' `ggfile.h`) still read
//! them; a directed, unweighted or renumbered graph is written as v2.
//!
//! ```
//! use graph_core::io::file;
//! use graph_core::{EdgeList, PackedEdge};
//! let list = EdgeList::from_edges(3, vec![PackedEdge::new(0, 2, 0.5)]).unwrap();
//! let path = std::env::temp_dir().join(format!("doc-example-{}.ggraph", std::process::id()));
//! file::write(&path, &list).unwrap();
//! let g = file::open(&path).unwrap();
//! assert_eq!(g.edge_list(), list);
//! # drop(g); std::fs::remove_file(&path).unwrap();
//! ```
//!
//! | file | what |
//! |---|---|
//! | `layout.rs` | the fields' offsets and flags of the table above |
//! | `header.rs` | [`GraphHeader`]: decoded and checked ([`parse_header`]), encoded |
//! | `parse.rs` | a whole file held in memory, checked ([`parse`](fn@parse)) |
//! | `open.rs` | [`MappedGraph`]: a file mapped whole ([`open`](fn@open)) or in slices ([`open_in_slices`]) |
//! | `write.rs` | a graph written ([`write_graph`] and its shorter forms) |
//! | `stage.rs` | a file put in place whole or not at all (also for prepared shards and [`output`](crate::io::output)s) |
//! | `checksum.rs` | [`checksum64`], chunked so slices can be hashed apart |
//! | `error.rs` | [`GraphFileError`] |

mod checksum;
mod error;
mod header;
mod layout;
mod open;
mod parse;
mod stage;
#[cfg(test)]
mod testing;
mod write;

pub use checksum::checksum64;
pub(crate) use checksum::{chunk_digest, fold as fold_digests, CHUNK as CHECKSUM_CHUNK};
pub use error::GraphFileError;
pub use header::{parse_header, GraphHeader};
pub use layout::{FORMAT_VERSION, HEADER_LEN, MAGIC, MAX_ROOTS, OLDEST_READABLE_VERSION};
pub use open::{open, open_header, open_in_slices, open_with, MappedGraph};
pub use parse::{parse, parse_with, ParsedGraph, ReadOptions};
pub use stage::check_write_target;
pub(crate) use stage::{kind_of, open_regular, CommitError, OpenRegular, Staged};
pub use write::{to_bytes, to_bytes_with_meta, write, write_graph, write_with_roots};
