//! Who is who, and what can go wrong: [`WorkerId`] and [`Error`].

/// A worker's global index (one worker = one OS thread = one trustee + one client).
/// In a rack run, worker `rank * threads + t` is thread `t` of rank `rank`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WorkerId(pub usize);

impl WorkerId {
    /// The index as a `usize`.
    pub fn index(self) -> usize {
        self.0
    }
}

impl std::fmt::Display for WorkerId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "worker {}", self.0)
    }
}

/// Why a runtime could not start or finish.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// A configuration value is out of range; the message says which and why.
    Config(String),
    /// The operating system refused to start a worker thread.
    Spawn(String),
    /// A closure running in delegated context panicked; the run was stopped.
    DelegatedPanic(String),
    /// A rack run could not start (bootstrap, identity check, transport setup).
    Rack(String),
    /// A rank of a rack run failed (exited, crashed, lost its connection, or a
    /// delegated closure panicked there); every rank stops with this error. The
    /// message names the rank and the cause.
    RankFailed(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Config(m) => write!(f, "invalid gossamer configuration: {m}"),
            Error::Spawn(m) => write!(f, "could not start a gossamer worker thread: {m}"),
            Error::DelegatedPanic(m) => write!(f, "{m}"),
            Error::Rack(m) => write!(f, "gossamer rack: {m}"),
            Error::RankFailed(m) => write!(f, "{m}"),
        }
    }
}
impl std::error::Error for Error {}
