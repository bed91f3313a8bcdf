//! Why a graph file could not be read or written: [`GraphFileError`],
//! whose message says what to do.

use std::fmt;
use std::io;
use std::path::PathBuf;

use super::layout::{FORMAT_VERSION, HEADER_LEN, OLDEST_READABLE_VERSION};
use crate::edge_list::EdgeListError;

pub(super) const REGENERATE: &str = "regenerate it with `gossamer-graph generate`";

/// Why a graph file could not be read or written.
#[derive(Debug)]
pub enum GraphFileError {
    /// The file does not exist.
    NotFound {
        /// The path asked for.
        path: PathBuf,
    },
    /// The path to read names something other than a regular file (a
    /// directory, FIFO, device, socket): refused before anything is read.
    NotARegularFile {
        /// The path asked for.
        path: PathBuf,
        /// What it is instead ("directory", "FIFO (named pipe)", ...).
        kind: &'static str,
    },
    /// The path to write already exists and is not a regular file (a
    /// device, directory, symbolic link, FIFO, socket): it is left alone.
    TargetNotARegularFile {
        /// The path asked for.
        path: PathBuf,
        /// What it is ("character device", "symbolic link", ...).
        kind: &'static str,
    },
    /// Another I/O failure.
    Io {
        /// The path involved.
        path: PathBuf,
        /// What was being done.
        action: &'static str,
        /// The underlying error.
        source: io::Error,
    },
    /// Shorter than the 1024-byte header.
    TruncatedHeader {
        /// Bytes present.
        len: u64,
    },
    /// The magic bytes are wrong.
    NotAGraphFile,
    /// Written by another format version.
    WrongVersion {
        /// Version in the file.
        found: u32,
    },
    /// The header checksum does not match.
    CorruptHeader {
        /// Stored checksum.
        stored: u64,
        /// Checksum of the bytes read.
        computed: u64,
    },
    /// A header field is impossible.
    BadHeader {
        /// Which field and why.
        what: String,
    },
    /// Fewer record bytes than the header's edge count needs.
    TruncatedData {
        /// Expected file length.
        expected: u64,
        /// Actual file length.
        actual: u64,
    },
    /// More bytes than the header's counts account for.
    SizeMismatch {
        /// Expected file length.
        expected: u64,
        /// Actual file length.
        actual: u64,
    },
    /// The id table bytes do not match their checksum.
    CorruptIds {
        /// Stored checksum.
        stored: u64,
        /// Checksum of the bytes read.
        computed: u64,
    },
    /// The record bytes do not match the data checksum.
    CorruptData {
        /// Stored checksum.
        stored: u64,
        /// Checksum of the bytes read.
        computed: u64,
    },
    /// A record is invalid (vertex id out of range, bad weight).
    BadEdge(EdgeListError),
}

impl fmt::Display for GraphFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use GraphFileError::*;
        match self {
            NotFound { path } => write!(
                f,
                "graph file {} does not exist: check the path, or create it with `gossamer-graph generate`",
                path.display()
            ),
            NotARegularFile { path, kind } => write!(
                f,
                "cannot read graph file {}: it is a {kind}, not a regular file; pass a file written by `gossamer-graph generate`",
                path.display()
            ),
            TargetNotARegularFile { path, kind } => write!(
                f,
                "refusing to write graph file {}: it exists and is a {kind}, not a regular file (a graph file only replaces a regular file); choose another path",
                path.display()
            ),
            Io { path, action, source } => {
                write!(f, "could not {action} graph file {}: {source}", path.display())
            }
            TruncatedHeader { len: 0 } => write!(
                f,
                "the graph file is empty: it reports 0 bytes (an empty file, or a special file such as those under /proc or /sys); pass a file written by `gossamer-graph generate`"
            ),
            TruncatedHeader { len } => write!(
                f,
                "the graph file is truncated: it has {len} bytes, fewer than the {HEADER_LEN}-byte header; {REGENERATE}"
            ),
            NotAGraphFile => write!(
                f,
                "not a gossamer-graph file (its first bytes are not the GOSGRAPH magic): pass a file written by `gossamer-graph generate`"
            ),
            WrongVersion { found } => write!(
                f,
                "the graph file was written by format v{found}, this build reads v{OLDEST_READABLE_VERSION} to v{FORMAT_VERSION}: {REGENERATE}"
            ),
            CorruptIds { stored, computed } => write!(
                f,
                "the graph file's vertex id table is corrupt (checksum {computed:#018x}, stored {stored:#018x}); {REGENERATE}"
            ),
            CorruptHeader { stored, computed } => write!(
                f,
                "the graph file's header is corrupt (checksum {computed:#018x}, stored {stored:#018x}); {REGENERATE}"
            ),
            BadHeader { what } => write!(f, "the graph file's header is invalid: {what}; {REGENERATE}"),
            TruncatedData { expected, actual } => write!(
                f,
                "the graph file is truncated: its header promises {expected} bytes but it has {actual} (an interrupted write or copy?); {REGENERATE}"
            ),
            SizeMismatch { expected, actual } => write!(
                f,
                "the graph file has {actual} bytes but its header's counts imply {expected}: the counts are inconsistent with the size; {REGENERATE}"
            ),
            CorruptData { stored, computed } => write!(
                f,
                "the graph file's edge data is corrupt (checksum {computed:#018x}, stored {stored:#018x}); {REGENERATE}"
            ),
            BadEdge(e) => write!(f, "the graph file holds an invalid edge: {e}; {REGENERATE}"),
        }
    }
}

impl std::error::Error for GraphFileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            GraphFileError::Io { source, .. } => Some(source),
            GraphFileError::BadEdge(e) => Some(e),
            _ => None,
        }
    }
}

pub(super) fn bad(what: impl Into<String>) -> GraphFileError {
    GraphFileError::BadHeader { what: what.into() }
}
