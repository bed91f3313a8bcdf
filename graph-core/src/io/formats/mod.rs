//! Readers for the graph formats other tools write: text edge lists
//! (`.el`, `.wel`), Matrix Market (`.mtx`), DIMACS shortest-path (`.gr`)
//! and GAPBS's serialized CSR (`.sg`, `.wsg`). Each gives an [`EdgeList`]
//! and its [`GraphMeta`], ready for [`file::write_graph`](crate::io::file::write_graph).
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
//! [`IdMap`] keeps the file's ids. Files that declare their vertex count
//! (`.mtx`, `.gr`, `.sg`) keep their ids. Text is parsed in parallel over byte ranges split at newlines,
//! from a mapping of the file (never copied into memory); only the edges
//! are held. Malformed input gives a [`FormatError`] with the line number
//! and what was expected.
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

mod gapbs;
mod renumber;
mod text;

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::edge_list::EdgeList;
use crate::meta::{GraphMeta, IdMap};

/// An input format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Text edge list, `src dst` per line.
    El,
    /// Weighted text edge list, `src dst weight` per line.
    Wel,
    /// Matrix Market coordinate format.
    Mtx,
    /// DIMACS shortest-path challenge format.
    Gr,
    /// GAPBS serialized graph.
    Sg,
    /// GAPBS serialized weighted graph.
    Wsg,
}

/// Every format, in the order the help lists them.
pub const ALL_FORMATS: [Format; 6] = [
    Format::El,
    Format::Wel,
    Format::Mtx,
    Format::Gr,
    Format::Sg,
    Format::Wsg,
];

impl Format {
    /// The format's name, which is also its file extension.
    pub fn name(self) -> &'static str {
        match self {
            Format::El => "el",
            Format::Wel => "wel",
            Format::Mtx => "mtx",
            Format::Gr => "gr",
            Format::Sg => "sg",
            Format::Wsg => "wsg",
        }
    }

    /// The format a path's extension names, if any.
    pub fn from_path(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        ext.parse().ok()
    }

    /// True for the 1-based text formats.
    fn base(self) -> u64 {
        match self {
            Format::Mtx | Format::Gr => 1,
            _ => 0,
        }
    }
}

impl FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        ALL_FORMATS
            .iter()
            .copied()
            .find(|f| f.name() == s)
            .ok_or_else(|| {
                format!("unknown graph format '{s}': use one of el, wel, mtx, gr, sg, wsg")
            })
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How to read an input.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// `Some(true)`: directed; `Some(false)`: undirected (a directed input
    /// is symmetrized); `None`: the format's default (directed, unless the
    /// file says undirected). A file that declares itself undirected (a
    /// symmetric Matrix Market file, an undirected `.sg`) stays undirected.
    pub directed: Option<bool>,
    /// Read the weights' column as absent: the graph is unweighted (for
    /// inputs with negative or meaningless values).
    pub ignore_weights: bool,
}

impl ReadOptions {
    /// Undirected, weights as in the file.
    pub fn undirected() -> Self {
        ReadOptions {
            directed: Some(false),
            ignore_weights: false,
        }
    }
}

/// An input read: its edges and what they mean.
#[derive(Debug)]
pub struct Converted {
    /// Dense ids `0..n`; unweighted graphs carry weight 1.0.
    pub edges: EdgeList<'static>,
    /// Directed, weighted, the file's ids.
    pub meta: GraphMeta,
    /// Remarks for the user (e.g. the header overrode `--directed`).
    pub notes: Vec<String>,
}

/// Why an input could not be read.
#[derive(Debug)]
pub enum FormatError {
    /// Opening or mapping the file failed.
    Io {
        /// The file.
        path: PathBuf,
        /// What was being done.
        action: &'static str,
        /// The cause.
        source: io::Error,
    },
    /// The path is not a regular file.
    NotARegularFile {
        /// The file.
        path: PathBuf,
    },
    /// A malformed line of a text file (1-based line number).
    Line {
        /// Line number, from 1.
        line: u64,
        /// What was expected and what was found.
        message: String,
    },
    /// The input as a whole is wrong (sizes, counts, a binary file's layout).
    Invalid {
        /// What is wrong and what to do.
        message: String,
    },
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FormatError::Io {
                path,
                action,
                source,
            } => write!(f, "could not {action} {}: {source}", path.display()),
            FormatError::NotARegularFile { path } => write!(
                f,
                "cannot read {}: it is not a regular file",
                path.display()
            ),
            FormatError::Line { line, message } => write!(f, "line {line}: {message}"),
            FormatError::Invalid { message } => f.write_str(message),
        }
    }
}

impl std::error::Error for FormatError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FormatError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

pub(crate) fn invalid(message: impl Into<String>) -> FormatError {
    FormatError::Invalid {
        message: message.into(),
    }
}

/// Reads the file at `path` in `format`. `progress` is called now and then
/// (from worker threads) with the number of input bytes parsed so far.
pub fn read(
    path: &Path,
    format: Format,
    opts: &ReadOptions,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Converted, FormatError> {
    use std::os::unix::fs::OpenOptionsExt;
    let io_err = |action: &'static str| {
        move |source| FormatError::Io {
            path: path.to_path_buf(),
            action,
            source,
        }
    };
    // As the graph-file reader: only a regular file (a FIFO would block, a
    // device might never end).
    let meta = std::fs::metadata(path).map_err(io_err("read"))?;
    if !meta.is_file() {
        return Err(FormatError::NotARegularFile {
            path: path.to_path_buf(),
        });
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(io_err("open"))?;
    let meta = file.metadata().map_err(io_err("inspect"))?;
    if !meta.is_file() {
        return Err(FormatError::NotARegularFile {
            path: path.to_path_buf(),
        });
    }
    if meta.len() == 0 {
        return parse(&[], format, opts, progress);
    }
    let map = crate::mapped::map_input(&file).map_err(io_err("map"))?;
    parse(&map, format, opts, progress)
}

/// Parses an input held in memory (or mapped); see [`read`].
pub fn parse(
    bytes: &[u8],
    format: Format,
    opts: &ReadOptions,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Converted, FormatError> {
    let mut notes = Vec::new();
    let read = match format {
        Format::Sg | Format::Wsg => gapbs::parse(bytes, format == Format::Wsg, opts, progress)?,
        _ => text::parse(bytes, format, opts, progress)?,
    };
    // Whose word decides directedness: the file's, then the caller's.
    let directed = match (read.file_undirected, opts.directed) {
        (true, Some(true)) => {
            notes.push(format!(
                "the {} file declares the graph undirected ({}): read as undirected although --directed was given",
                format.name(),
                read.why_undirected
            ));
            false
        }
        (true, _) => false,
        (false, d) => d.unwrap_or(true),
    };
    if read.num_vertices.is_none() && read.edges.iter().all(|c| c.len() == 0) {
        return Err(invalid(format!(
            "the input has no edges (only comments or blank lines, or nothing): nothing to convert; is it a .{} file?",
            format.name()
        )));
    }
    let weighted = read.weighted && !opts.ignore_weights;
    let (edges, ids) = renumber::finish(read.edges, read.num_vertices, format.base())?;
    if !read.weighted && opts.ignore_weights {
        notes.push(format!(
            "--ignore-weights: the {} input has no weights anyway",
            format.name()
        ));
    }
    if let IdMap::Table(t) = &ids {
        notes.push(format!(
            "vertex ids renumbered densely: {} distinct ids between {} and {} became 0..{} (the graph keeps the file's ids for --root and reports)",
            t.len(),
            t.first().copied().unwrap_or(0),
            t.last().copied().unwrap_or(0),
            t.len()
        ));
    }
    Ok(Converted {
        edges,
        meta: GraphMeta {
            directed,
            weighted,
            ids,
        },
        notes,
    })
}

/// One edge as read, before renumbering: ids minus the format's base.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct RawEdge {
    pub u: u64,
    pub v: u64,
    pub w: f32,
}

/// A piece's edges: packed (12 bytes each) while every id fits 32 bits,
/// which is the common case, else wide.
#[derive(Debug)]
pub(crate) enum Edges {
    Narrow(Vec<crate::edge_list::PackedEdge>),
    Wide(Vec<RawEdge>),
}

impl Edges {
    pub fn with_capacity(n: usize) -> Edges {
        Edges::Narrow(Vec::with_capacity(n))
    }

    #[inline]
    pub fn push(&mut self, e: RawEdge) {
        match self {
            Edges::Narrow(v) => match (u32::try_from(e.u), u32::try_from(e.v)) {
                (Ok(u), Ok(w)) => v.push(crate::edge_list::PackedEdge::new(u, w, e.w)),
                _ => {
                    let mut wide: Vec<RawEdge> = Vec::with_capacity(v.capacity());
                    v.iter().for_each(|p| wide.push(RawEdge::from(*p)));
                    wide.push(e);
                    *self = Edges::Wide(wide);
                }
            },
            Edges::Wide(v) => v.push(e),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Edges::Narrow(v) => v.len(),
            Edges::Wide(v) => v.len(),
        }
    }

    /// Calls `f` on every edge, in order.
    #[inline]
    pub fn for_each(&self, mut f: impl FnMut(RawEdge)) {
        match self {
            Edges::Narrow(v) => v.iter().for_each(|p| f(RawEdge::from(*p))),
            Edges::Wide(v) => v.iter().for_each(|e| f(*e)),
        }
    }

    #[cfg(test)]
    pub fn to_vec(&self) -> Vec<RawEdge> {
        let mut out = Vec::new();
        self.for_each(|e| out.push(e));
        out
    }
}

impl From<crate::edge_list::PackedEdge> for RawEdge {
    #[inline]
    fn from(p: crate::edge_list::PackedEdge) -> RawEdge {
        RawEdge {
            u: u64::from(p.u),
            v: u64::from(p.v),
            w: p.w,
        }
    }
}

/// What a reader found, before ids are settled.
#[derive(Debug)]
pub(crate) struct RawGraph {
    /// Edges in file order, in chunks (one per parallel piece).
    pub edges: Vec<Edges>,
    /// The vertex count the file declares (header), or none (max id + 1).
    pub num_vertices: Option<u64>,
    /// The file has real weights.
    pub weighted: bool,
    /// The file declares the graph undirected.
    pub file_undirected: bool,
    /// Why, in words ("symmetric").
    pub why_undirected: &'static str,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_input_without_edges_is_refused_unless_its_header_declares_vertices() {
        let none = |text: &[u8], f| parse(text, f, &ReadOptions::default(), &|_| {});
        for text in [&b""[..], b"# only a comment\n\n"] {
            let e = none(text, Format::El).unwrap_err().to_string();
            assert!(e.starts_with("the input has no edges"), "{e}");
        }
        // A Matrix Market file declaring 3 vertices and no entries is a graph.
        let g = none(
            b"%%MatrixMarket matrix coordinate pattern general\n3 3 0\n",
            Format::Mtx,
        )
        .unwrap();
        assert_eq!(g.edges.num_vertices(), 3);
    }

    #[test]
    fn formats_come_from_extensions_and_names() {
        assert_eq!(Format::from_path(Path::new("a/b.WEL")), Some(Format::Wel));
        assert_eq!(Format::from_path(Path::new("roadNet-CA.txt")), None);
        assert_eq!("wsg".parse::<Format>(), Ok(Format::Wsg));
        assert!("csv"
            .parse::<Format>()
            .unwrap_err()
            .contains("el, wel, mtx, gr, sg, wsg"));
    }
}
