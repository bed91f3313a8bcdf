//! Built graph files: the graph as the kernels' shards hold it, written
//! once (`gossamer-graph convert --built`, `generate --built`) and mapped
//! by every later run instead of building, whatever its ranks, threads and
//! partition.
//!
//! # The choice
//!
//! One CSR of the whole graph, by global vertex id: `u64` row offsets, one
//! per vertex plus one, and the rows' `u32` neighbour ids, exactly the
//! rows [`build_whole`](crate::build_whole) makes (each vertex's entries
//! in input order, duplicates kept, self-loops dropped; a directed graph's
//! rows are its out-arcs and an in-edge index follows, as
//! [`build_trustees_with`](crate::csr::build_trustees_with) makes it).
//! Every partition's rows are these rows, in the same order, so a shard
//! taken from the file ([`BuiltGraph::shard`]) equals, field by field, the
//! shard [`build_rank`](crate::build_rank) makes for that trustee, and the
//! kernels answer bit for bit as on a built graph. The weights are a
//! section of their own, parallel to the neighbour ids: a run of the
//! unweighted kernels never maps a page of it ([`Weights::Skip`]).
//!
//! Opening ([`ShardedGraph::open_built`](crate::sharded::ShardedGraph::open_built)):
//! every process maps the file once (lazily: pages a rank never reads
//! cost it nothing) and each trustee takes its shard:
//! * **block** partition: a trustee owns consecutive vertices, whose rows
//!   are consecutive in the file: its offsets are copied and rebased (8
//!   bytes per vertex it owns), its neighbour ids, weights and in-edge
//!   sources are views of the mapping (`Array::Mapped`), not copies. No
//!   construction pass beyond O(its vertices).
//! * **cyclic** partition (and striped and blocks): a trustee's rows are
//!   spread over the whole file (over its stripes or blocks); they are
//!   copied into its shard row by row (O(its entries), a sequential read
//!   with no sort and no exchange), so it reads every page of the sections
//!   it takes (under stripes or blocks, the pages of its own).
//!
//! # Memory
//!
//! Pages of the mapping a process touched count in its resident set.
//! A trustee gives back the pages it read once it has checked (or copied)
//! them ([`BuiltGraph::shard`]); the kernels that take the rows into
//! memory of their own (graph-kernel's unweighted rows,
//! [`Shard::share_rows`](crate::Shard::share_rows), renamed and stored by
//! position; SSSP's split, [`Shard::rewrite_rows`](crate::Shard::rewrite_rows))
//! copy them in one sequential pass that gives each page back behind it
//! and then drop the view, so a run holds one copy of the rows at a time,
//! as a run that built them does. The pages stay in the page cache: the
//! next run maps them without reading the disk.
//!
//! # Checksums
//!
//! Every section is hashed in 1 MiB chunks ([`checksum64`](crate::io::file::checksum64)'s);
//! the digest section keeps every chunk's digest, and the header every
//! section's checksum and its own. Opening checks the header, the length,
//! the digest section and the id table (small: O(vertices) at most); the
//! rows are checked **lazily, by whoever reads them**: a trustee checks
//! the digests of the chunks that hold its rows (each chunk once per
//! process), that its offsets rise within the entries and that its
//! neighbour ids are vertices, before its shard exists. So a run reads no
//! byte it does not use (an unweighted run never reads the weights, a rank
//! of a block partition only its own rows), and a corrupt byte it does
//! use is refused with an error, never a panic. [`BuiltGraph::verify`]
//! (`gossamer-graph verify FILE`) checks the whole file.
//!
//! # Layout
//!
//! All integers little-endian; every section starts at a multiple of 4096
//! (an absent section is empty and takes no bytes).
//!
//! | offset | size | field |
//! |---:|---:|---|
//! | 0 | 8 | magic `b"GOSBUILT"` |
//! | 8 | 4 | format version (`u32`, [`FORMAT_VERSION`]) |
//! | 12 | 4 | header length (`u32`, 1024) |
//! | 16 | 4 | flags: bit 0 Graph500 parameters, bit 1 directed, bit 2 weighted (weight section present), bit 3 id table, bit 4 source file checksum |
//! | 20 | 4 | stored roots (`u32`, <= 64) |
//! | 24 | 24 | scale, edgefactor (`u32`), seed1, seed2 (`u64`) (bit 0) |
//! | 48 | 8 | vertices `n` |
//! | 56 | 8 | input edge records (self-loops and duplicates included) |
//! | 64 | 8 | row entries `m` |
//! | 72 | 8 | in-edge entries (directed; 0 otherwise) |
//! | 80 | 8 | id base: file id = dense id + base (without an id table) |
//! | 88 | 8 | data checksum of the `.ggraph` file it was built from (bit 4) |
//! | 96 | 8 | file length |
//! | 128 | 7 x 24 | sections: start, length, [`checksum64`](crate::io::file::checksum64) (`u64` x 3 each), in the order below |
//! | 296 | 8 x 64 | stored roots (dense ids) |
//! | 1016 | 8 | header checksum (of bytes 0..1016) |
//! | | 8 x (n + 1) | row offsets |
//! | | 4 x m | neighbour ids (`u32`, global) |
//! | | 4 x m | weights (`f32`, bit 2) |
//! | | 8 x (n + 1) | in-edge offsets (directed) |
//! | | 4 x in-edge entries | in-edge sources (directed) |
//! | | 8 x n | id table (`u64` input id of each vertex, strictly increasing; bit 3) |
//! | | 8 x chunks | the digest of every 1 MiB chunk of the sections above, in order |
//!
//! `--prepared` shard files ([`crate::io::prepared`]) still work for the
//! run that saved them; a built file serves any run.
//!
//! # Ready rows
//!
//! A sidecar, `FILE.w<T>.ready` ([`ReadyRows`], `ready.rs`, its own
//! version and checksums, tied to this file by its header checksum),
//! holds for one layout (a block partition into `T` trustees) every
//! trustee's rows as the kernels' preparation leaves them (BFS's by
//! position in flat ids, SSSP's split); runs of that layout that ask for
//! them ([`ShardedGraph::open_built_ready`](crate::sharded::ShardedGraph::open_built_ready))
//! take their shards from it in place, so that preparing is O(vertices).
//!
//! | file | what |
//! |---|---|
//! | `header.rs` | the fields' places, [`BuiltHeader`] ([`parse_header`]) and its encoding |
//! | `write.rs` | a graph written ([`write`](fn@write)) |
//! | `open.rs` | [`BuiltGraph`]: mapped ([`open`](fn@open)), a trustee's [`shard`](BuiltGraph::shard), [`verify`](BuiltGraph::verify) |
//! | `error.rs` | [`BuiltError`], [`Problem`] |
//! | `rows.rs` | [`RowReader`]: the rows one vertex at a time, for the checks that follow edges (bc's, tc's) |
//! | `ready.rs` | [`ReadyRows`]: the kernels' rows for one layout, a sidecar ([`write_ready`], [`ReadyRows::shard`]) |

mod error;
mod header;
mod open;
mod ready;
mod rows;
#[cfg(test)]
pub(crate) mod tests;
mod write;

pub use error::{BuiltError, Problem};
pub use header::{
    is_built, parse_header, BuiltHeader, Section, ALIGN, FORMAT_VERSION, HEADER_LEN, MAGIC,
    MAX_ROOTS,
};
pub use open::{open, BuiltGraph, Weights};
pub use ready::{
    ready_path, write_ready, Part, ReadyError, ReadyPart, ReadyRows, ReadyShape, READY_MAGIC,
    READY_VERSION,
};
pub use rows::RowReader;
pub use write::write;
