//! Graphs on disk: what graph-core reads and writes.
//!
//! | module | what |
//! |---|---|
//! | [`built`] | the graph as built (the whole CSR, weights apart), mapped by any run whatever its partition |
//! | [`file`](mod@file) | the versioned, checksummed binary graph file, memory-mapped whole or in slices |
//! | [`formats`] | other tools' formats read in: `.el`, `.wel`, `.mtx`, `.gr`, GAPBS `.sg`/`.wsg` |
//! | [`output`] | every other output (dumps, their sidecars): a file replaced whole, a FIFO or device streamed, a link refused |
//! | [`prepared`] | a built graph's shards, one file per trustee, memory-mapped by later runs |
//! | [`vectors`] | the official Graph500 reference's vectors (edges, weights, roots, oracle answers) |
//!
//! Every reader checks what it reads before anything is built from it, and
//! every writer replaces its target whole or not at all (a temporary file
//! beside it, synced, then renamed); none writes through a symbolic link.

pub mod built;
pub mod file;
pub mod formats;
mod le;
pub mod output;
pub mod prepared;
pub mod vectors;
