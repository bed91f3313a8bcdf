//! The one error type of the command: a message for the user, printed
//! without a backtrace, and a non-zero exit status.

use std::fmt;

/// A failure reported to the user as `error: <message>`.
#[derive(Debug)]
pub struct CliError {
    message: String,
}

impl CliError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        CliError {
            message: message.into(),
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CliError {}

macro_rules! from_error {
    ($($t:ty),* $(,)?) => {$(
        impl From<$t> for CliError {
            fn from(e: $t) -> Self {
                CliError::new(e.to_string())
            }
        }
    )*};
}

from_error!(
    graph_core::GraphFileError,
    graph_core::EdgeListError,
    graph_core::memory::MemoryRefusal,
    graph_core::PartitionError,
    graph_core::CsrError,
    graph_core::sharded::KernelError,
    generators::ConfigError,
    gossamer::Error,
);

/// Shorthand for the command's results.
pub type Result<T, E = CliError> = std::result::Result<T, E>;
