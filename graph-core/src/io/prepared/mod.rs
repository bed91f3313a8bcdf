//! Prepared graphs: every trustee's [`Shard`](crate::Shard) saved to a
//! file of its own and memory-mapped by later runs, so a large graph is
//! built once.
//!
//! [`ShardedGraph::save_prepared`](crate::sharded::ShardedGraph::save_prepared)
//! has each trustee write `DIR/shard-<t>-of-<W>.gshard` ([`file_name`]) in
//! its own process (on a shared filesystem `DIR` is shared by the ranks);
//! [`ShardedGraph::open_prepared`](crate::sharded::ShardedGraph::open_prepared)
//! has each trustee map its file instead of building (the trustees' part
//! is in `construct/prepared.rs`, this module is the file). Files are
//! written like graph files: to a new unique temporary name beside the
//! target, synced, and renamed only once every trustee has written its file
//! (a failure anywhere leaves no new file). A file is refused, with what to
//! do, when it is missing, truncated, corrupt (checksums), of another
//! format version, or of another run: another trustee count, partition or
//! graph ([`GraphIdentity`]).
//!
//! All integers are little-endian; the arrays start at multiples of 64
//! bytes and are viewed in place (no copy) on little-endian hosts.
//!
//! | offset | size | field |
//! |---:|---:|---|
//! | 0 | 8 | magic `b"GOSSHARD"` |
//! | 8 | 4 | format version (`u32`, currently [`FORMAT_VERSION`]) |
//! | 12 | 4 | header length (`u32`, 512) |
//! | 16 | 4 | flags (`u32`): bit 0 = Graph500 parameters, bit 1 = source graph file checksum, bit 2 = unit weights, bit 3 = directed (the in-edge index follows) |
//! | 20 | 4 | partition kind (`u32`: 0 block, 1 cyclic) |
//! | 24 | 8 | vertex count |
//! | 32 | 4 | trustee count `W` |
//! | 36 | 4 | this shard's trustee `t` |
//! | 40 | 8 | input edge records of the graph |
//! | 48 | 4 | scale (with bit 0) |
//! | 52 | 4 | edgefactor (with bit 0) |
//! | 56 | 8 | seed1 (with bit 0) |
//! | 64 | 8 | seed2 (with bit 0) |
//! | 72 | 8 | data checksum of the source graph file (with bit 1) |
//! | 80 | 8 | rows (vertices this trustee owns) |
//! | 88 | 8 | entries (sum of degrees) |
//! | 96 | 24 | offsets, targets, weights: where each array starts (`u64` x 3) |
//! | 120 | 8 | file length |
//! | 128 | 24 | checksums ([`checksum64`](crate::io::file::checksum64)) of the offsets, targets and weights bytes |
//! | 152 | 8 | in-edge entries (with bit 3) |
//! | 160 | 16 | in-edge offsets, in-edge sources: where each starts (`u64` x 2, with bit 3) |
//! | 176 | 16 | their checksums (with bit 3) |
//! | 192 | 312 | reserved, 0 |
//! | 504 | 8 | header checksum (of bytes 0..504) |
//! | 512 | 8 x (rows + 1) | offsets (`u64`) |
//! | | 4 x entries | targets (`u32`, global vertex ids) |
//! | | 4 x entries | weights (`f32`) |
//! | | 8 x (rows + 1) | in-edge offsets (`u64`, with bit 3) |
//! | | 4 x in-edge entries | in-edge sources (`u32`, tails of the arcs into each row, with bit 3) |
//!
//! A directed graph's shard holds out-edge rows and the in-edge index
//! (bit 3); files written before bit 3 existed have the same layout
//! without it and still open.
//!
//! Rows are stored as the build left them (entries in arrival order); the
//! kernels and validators do not depend on the order within a row, so a
//! run on a prepared graph answers exactly as one that builds it.
//!
//! | file | what |
//! |---|---|
//! | `layout.rs` | the fields' offsets, the arrays' places, the file's name |
//! | `header.rs` | [`GraphIdentity`] and [`ShardHeader`]: decoded and checked ([`parse_header`]), encoded |
//! | `write.rs` | a shard's file written ([`write`](fn@write)) |
//! | `open.rs` | a shard's file mapped and checked for a run ([`open`](fn@open), [`Expected`]) |
//! | `error.rs` | [`PreparedError`], [`Problem`] |

mod error;
mod header;
mod layout;
mod open;
#[cfg(test)]
pub(crate) mod testing;
mod write;

pub use error::{PreparedError, Problem};
pub use header::{parse_header, GraphIdentity, ShardHeader};
pub use layout::{file_name, FORMAT_VERSION, HEADER_LEN, MAGIC};
pub use open::{open, Expected};
pub(crate) use write::{commit, stage};
pub use write::{to_bytes, write};
