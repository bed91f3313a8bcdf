//! Why a prepared-shard file could not be written or used: [`PreparedError`],
//! whose message says what to do.

use std::fmt;
use std::io;
use std::path::PathBuf;

use super::layout::{FORMAT_VERSION, HEADER_LEN};

const RESAVE: &str = "re-save it with --save-prepared";

/// Why a prepared-shard file could not be written or used.
#[derive(Debug)]
pub struct PreparedError {
    /// The file (or directory) concerned.
    pub path: PathBuf,
    /// What is wrong, and what to do.
    pub problem: Problem,
}

/// What is wrong with a prepared-shard file.
#[derive(Debug)]
pub enum Problem {
    /// The file does not exist; the text says what to do.
    NotFound(String),
    /// Something other than a regular file (reading).
    NotARegularFile(&'static str),
    /// Saving: the file's name is taken by something other than a regular
    /// file (a link, a directory, ...), which is left alone.
    TargetNotARegularFile(&'static str),
    /// An I/O failure while doing `action`.
    Io(&'static str, io::Error),
    /// The magic bytes are wrong.
    NotAShardFile,
    /// Another format version.
    WrongVersion(u32),
    /// Shorter than the header.
    TruncatedHeader(u64),
    /// The header checksum does not match.
    CorruptHeader,
    /// A header field is impossible.
    BadHeader(String),
    /// Shorter than the header's counts need.
    Truncated {
        /// Length the header implies.
        expected: u64,
        /// Actual length.
        actual: u64,
    },
    /// Longer than the header's counts account for.
    SizeMismatch {
        /// Length the header implies.
        expected: u64,
        /// Actual length.
        actual: u64,
    },
    /// An array's bytes do not match its checksum.
    CorruptArray(&'static str),
    /// An array's values are impossible (offsets not increasing, a target
    /// outside the graph).
    BadArray(String),
    /// The file belongs to another run; the text says which and what to do.
    Mismatch(String),
}

impl fmt::Display for PreparedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.path.display();
        match &self.problem {
            Problem::NotFound(hint) => write!(f, "prepared shard {p} does not exist: {hint}"),
            Problem::NotARegularFile(kind) => write!(
                f,
                "prepared shard {p} is a {kind}, not a regular file (shards are read only from the files --save-prepared writes, never through a link); remove it and {RESAVE}"
            ),
            Problem::TargetNotARegularFile(kind) => write!(
                f,
                "refusing to save prepared shard {p}: that name is taken by a {kind}, not a regular file (a shard replaces only a regular file and never writes through a link); remove it, or save into another directory"
            ),
            Problem::Io(action, e) => write!(f, "could not {action} prepared shard {p}: {e}"),
            Problem::NotAShardFile => write!(
                f,
                "{p} is not a prepared shard (its first bytes are not the GOSSHARD magic); {RESAVE}"
            ),
            Problem::WrongVersion(v) => write!(
                f,
                "prepared shard {p} was written by format v{v}, this build reads v{FORMAT_VERSION}; {RESAVE}"
            ),
            Problem::TruncatedHeader(len) => write!(
                f,
                "prepared shard {p} is truncated: it has {len} bytes, fewer than the {HEADER_LEN}-byte header; {RESAVE}"
            ),
            Problem::CorruptHeader => write!(
                f,
                "prepared shard {p} has a corrupt header (checksum mismatch); {RESAVE}"
            ),
            Problem::BadHeader(what) => {
                write!(f, "prepared shard {p} has an invalid header: {what}; {RESAVE}")
            }
            Problem::Truncated { expected, actual } => write!(
                f,
                "prepared shard {p} is truncated: its header promises {expected} bytes but it has {actual}; {RESAVE}"
            ),
            Problem::SizeMismatch { expected, actual } => write!(
                f,
                "prepared shard {p} has {actual} bytes but its header implies {expected}; {RESAVE}"
            ),
            Problem::CorruptArray(a) => write!(
                f,
                "prepared shard {p} is corrupt: its {a} do not match their checksum; {RESAVE}"
            ),
            Problem::BadArray(what) => write!(f, "prepared shard {p} is invalid: {what}; {RESAVE}"),
            Problem::Mismatch(what) => write!(f, "prepared shard {p} {what}"),
        }
    }
}

impl std::error::Error for PreparedError {}
