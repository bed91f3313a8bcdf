//! Readers for the graph formats other tools write: text edge lists
//! (`.el`, `.wel`), Matrix Market (`.mtx`), DIMACS shortest-path (`.gr`)
//! and GAPBS's serialized CSR (`.sg`, `.wsg`). Each gives an
//! [`EdgeList`](crate::EdgeList) and its [`GraphMeta`](crate::GraphMeta),
//! ready for [`file::write_graph`](crate::io::file::write_graph).
//!
//! | format | ids | weights | directed |
//! |---|---|---|---|
//! | `.el`: `src dst` per line | as written (0-based, as GAPBS reads them; a 1-based file just has an isolated vertex 0) | none | the caller's choice, default directed |
//! | `.wel`: `src dst weight` | as `.el` | third column | as `.el` |
//! | `.mtx`: Matrix Market coordinate | 1-based | `real`/`integer`/`double` value; `pattern`: none | `symmetric`: undirected (the header wins); `general`, `skew-symmetric`: the caller's choice |
//! | `.gr`: DIMACS `p sp N M`, `a u v w` | 1-based | fourth column | the caller's choice |
//! | `.sg`/`.wsg`: GAPBS serialized | 0-based, dense | `.wsg`: `int32` | the file's flag (a directed file may be read as undirected: symmetrized) |
//!
//! In the text formats, lines starting with `#` or `%` (`c` in `.gr`) and
//! blank lines are skipped; fields are separated by spaces, tabs or commas.
//! Self-loops and repeated edges are kept as records (the CSR build drops
//! self-loops; duplicates count in TEPS as Graph500 counts them).
//!
//! Sparse or huge ids (an edge list without a declared vertex count whose
//! id range `0..=max id` is longer than 1024 and less than half used, or
//! any id >= 2^32) are renumbered densely in increasing order; the
//! [`IdMap`](crate::IdMap) keeps the file's ids. Files that declare their
//! vertex count (`.mtx`, `.gr`, `.sg`) keep their ids. Text is parsed in
//! parallel over byte ranges split at newlines, from a mapping of the file
//! (never copied into memory); only the edges are held. Malformed input
//! gives a [`FormatError`] with the line number and what was expected.
//!
//! ```
//! use graph_core::io::formats::{self, Format, ReadOptions};
//! let text = b"# a triangle\n0 1\n1 2\n2 0\n";
//! let g = formats::parse(text, Format::El, &ReadOptions::undirected(), &|_| {}).unwrap();
//! assert_eq!(g.edges.num_vertices(), 3);
//! assert!(!g.meta.directed && !g.meta.weighted);
//! let e = formats::parse(b"0 1\n1 x\n", Format::El, &ReadOptions::default(), &|_| {}).unwrap_err();
//! assert_eq!(e.to_string(), "line 2: expected 2 numbers (src dst), found '1 x'");
//! ```
//!
//! | file | what |
//! |---|---|
//! | `read.rs` | [`read`](fn@read) and [`parse`]: the reader for the format, directedness, ids |
//! | `text.rs` | the text formats, parsed in parallel |
//! | `gapbs.rs` | GAPBS's serialized CSR |
//! | `renumber.rs` | dense ids for sparse or huge ones |
//! | `raw.rs` | the edges as read, before the ids are settled |
//! | `format.rs`, `error.rs` | [`Format`], [`ReadOptions`]; [`FormatError`] |

mod error;
mod format;
mod gapbs;
mod raw;
mod read;
mod renumber;
mod text;

pub use error::FormatError;
pub use format::{Format, ReadOptions, ALL_FORMATS};
pub use read::{parse, read, Converted};
