//! Why a built graph file could not be written or used: [`BuiltError`],
//! whose message says what to do.

use std::fmt;
use std::io;
use std::path::PathBuf;

use super::header::{FORMAT_VERSION, HEADER_LEN};

const REBUILD: &str =
    "write it again with `gossamer-graph convert GRAPH --built -o FILE` (or `generate --built`)";

/// Why a built graph file could not be written or used.
#[derive(Debug)]
pub struct BuiltError {
    /// The file concerned.
    pub path: PathBuf,
    /// What is wrong.
    pub problem: Problem,
}

/// What is wrong with a built graph file.
#[derive(Debug)]
pub enum Problem {
    /// The file does not exist.
    NotFound,
    /// Something other than a regular file.
    NotARegularFile(&'static str),
    /// An I/O failure while doing `action`.
    Io(&'static str, io::Error),
    /// The magic bytes are wrong.
    NotABuiltFile,
    /// Another format version.
    WrongVersion(u32),
    /// Shorter than the header.
    TruncatedHeader(u64),
    /// The header checksum does not match.
    CorruptHeader,
    /// A header field is impossible.
    BadHeader(String),
    /// Shorter than the header's sections need.
    Truncated {
        /// Length the header implies.
        expected: u64,
        /// Actual length.
        actual: u64,
    },
    /// Longer than the header's sections account for.
    SizeMismatch {
        /// Length the header implies.
        expected: u64,
        /// Actual length.
        actual: u64,
    },
    /// A section's bytes (or one chunk of them) do not match their checksum.
    CorruptSection(&'static str),
    /// A section's values are impossible (offsets not rising, a neighbour
    /// outside the graph, ids not increasing).
    BadSection(String),
    /// The graph cannot be written as a built file (too many entries for
    /// this machine's memory, ...).
    Unwritable(String),
}

impl fmt::Display for BuiltError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.path.display();
        match &self.problem {
            Problem::NotFound => write!(f, "built graph file {p} does not exist"),
            Problem::NotARegularFile(kind) => {
                write!(f, "{p} is a {kind}, not a regular file: give a built graph file")
            }
            Problem::Io(action, e) => write!(f, "could not {action} built graph file {p}: {e}"),
            Problem::NotABuiltFile => write!(
                f,
                "{p} is not a built graph file (its first bytes are not the GOSBUILT magic)"
            ),
            Problem::WrongVersion(v) => write!(
                f,
                "built graph file {p} was written by format v{v}, this build reads v{FORMAT_VERSION}; {REBUILD}"
            ),
            Problem::TruncatedHeader(len) => write!(
                f,
                "built graph file {p} is truncated: it has {len} bytes, fewer than the {HEADER_LEN}-byte header; {REBUILD}"
            ),
            Problem::CorruptHeader => write!(
                f,
                "built graph file {p} has a corrupt header (checksum mismatch); {REBUILD}"
            ),
            Problem::BadHeader(what) => {
                write!(f, "built graph file {p} has an invalid header: {what}; {REBUILD}")
            }
            Problem::Truncated { expected, actual } => write!(
                f,
                "built graph file {p} is truncated: its header promises {expected} bytes but it has {actual}; {REBUILD}"
            ),
            Problem::SizeMismatch { expected, actual } => write!(
                f,
                "built graph file {p} has {actual} bytes but its header implies {expected}; {REBUILD}"
            ),
            Problem::CorruptSection(s) => write!(
                f,
                "built graph file {p} is corrupt: its {s} do not match their checksum; {REBUILD}"
            ),
            Problem::BadSection(what) => {
                write!(f, "built graph file {p} is invalid: {what}; {REBUILD}")
            }
            Problem::Unwritable(why) => write!(f, "cannot write built graph file {p}: {why}"),
        }
    }
}

impl std::error::Error for BuiltError {}
