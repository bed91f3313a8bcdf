//! Why an input could not be read: [`FormatError`], with the line and
//! what was expected.

use std::fmt;
use std::io;
use std::path::PathBuf;

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
