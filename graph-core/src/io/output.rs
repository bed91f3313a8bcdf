//! Outputs other than graph files (a kernel's per-vertex dump, its ids
//! sidecar, the reference vectors' cross-check files), written safely
//! whatever the path names:
//!
//! - absent, or a regular file: replaced whole or not at all, by the writer
//!   of graph files and prepared shards (`io::file`'s staging: a new temporary file
//!   beside it, synced, renamed over it), so a full disk or a crash leaves
//!   the old file (or none), never a partial one;
//! - a FIFO or a character device (`/dev/null`, a terminal): streamed into
//!   in place, as the bytes are produced; likewise this process's own
//!   streams by their usual names (`/dev/stdout`, `/dev/stderr`,
//!   `/dev/fd/N`, `/proc/self/fd/N`), whatever they are connected to;
//! - anything else is refused and left untouched: above all a symbolic
//!   link (writing through it would overwrite whatever it points to), and
//!   directories, block devices and sockets.
//!
//! [`Output::write`] stages one output, so that several (a dump and its
//! sidecar) are written first and put in place together with
//! [`Output::commit`]; [`write`](fn@write) does both for one. [`check`]
//! refuses a bad target before long work.

use std::fmt;
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::file::{kind_of, CommitError, Staged};

/// How an output is written, from what its path names now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputKind {
    /// Absent or a regular file: replaced whole by a rename.
    File,
    /// A FIFO, a character device or one of this process's streams:
    /// written in place as the bytes come.
    Stream,
}

/// Why an output was not written.
#[derive(Debug)]
pub enum OutputError {
    /// The path names something an output must not be written to.
    Refused {
        /// The path asked for.
        path: PathBuf,
        /// What it is and what to do instead.
        why: String,
    },
    /// An I/O failure.
    Io {
        /// The path asked for.
        path: PathBuf,
        /// What was being done ("write", "open", ...).
        action: &'static str,
        /// Whether the path was to be replaced by a rename, so it is left
        /// as it was.
        unchanged: bool,
        /// The underlying error.
        source: io::Error,
    },
}

impl fmt::Display for OutputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OutputError::Refused { path, why } => {
                write!(f, "refusing to write {}: {why}", path.display())
            }
            OutputError::Io {
                path,
                action,
                unchanged,
                source,
            } => {
                write!(f, "could not {action} {}: {source}", path.display())?;
                if *unchanged {
                    // A new target is not left behind as a partial file.
                    let was = if std::fs::symlink_metadata(path).is_ok() {
                        "is as it was"
                    } else {
                        "was not created"
                    };
                    write!(f, " (nothing was written: {} {was})", path.display())?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for OutputError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            OutputError::Io { source, .. } => Some(source),
            OutputError::Refused { .. } => None,
        }
    }
}

/// Whether `path` is one of the names of this process's open descriptors
/// (`/dev/stdout`, `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N`): links
/// the system keeps, followed to whatever the descriptor is.
pub fn is_standard_stream(path: &Path) -> bool {
    let Some(s) = path.to_str() else {
        return false;
    };
    let fd = |rest: &str| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit());
    matches!(s, "/dev/stdout" | "/dev/stderr")
        || s.strip_prefix("/dev/fd/").is_some_and(fd)
        || s.strip_prefix("/proc/self/fd/").is_some_and(fd)
}

fn refused(path: &Path, why: String) -> OutputError {
    OutputError::Refused {
        path: path.to_path_buf(),
        why,
    }
}

/// What `path` is now, as an output: how it would be written, or why it
/// is refused. Nothing is opened or created.
pub fn check(path: impl AsRef<Path>) -> Result<OutputKind, OutputError> {
    use std::os::unix::fs::FileTypeExt;
    let path = path.as_ref();
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(OutputKind::File),
        Err(source) => {
            return Err(OutputError::Io {
                path: path.to_path_buf(),
                action: "inspect",
                unchanged: true,
                source,
            })
        }
    };
    let t = meta.file_type();
    if t.is_file() {
        Ok(OutputKind::File)
    } else if t.is_fifo() || t.is_char_device() || (t.is_symlink() && is_standard_stream(path)) {
        Ok(OutputKind::Stream)
    } else if t.is_symlink() {
        let to = std::fs::read_link(path)
            .map(|p| format!(" to {}", p.display()))
            .unwrap_or_default();
        Err(refused(
            path,
            format!(
                "it is a symbolic link{to}; outputs are never written through a link (its target would be overwritten): remove the link, or name the file itself"
            ),
        ))
    } else if t.is_dir() {
        Err(refused(
            path,
            "it is a directory; name a file (in it, or elsewhere)".into(),
        ))
    } else {
        Err(refused(
            path,
            format!(
                "it is a {}; an output is a regular file (replaced whole), a FIFO or a character device (written as a stream)",
                kind_of(t)
            ),
        ))
    }
}

/// Opens a stream output for writing, without creating or truncating it.
/// A path that is not a standard stream's name is opened without
/// following a link, and must still be a FIFO or a character device once
/// open (it may have been replaced since [`check`]).
fn open_stream(path: &Path) -> Result<File, OutputError> {
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let follow = is_standard_stream(path);
    let io_err = |action, source| OutputError::Io {
        path: path.to_path_buf(),
        action,
        unchanged: false,
        source,
    };
    let file = std::fs::OpenOptions::new()
        // A descriptor redirected to a file (`> out`, `>> out`) is written
        // after what is there, as the process's own writes are (append
        // implies write).
        .append(true)
        .custom_flags(if follow { 0 } else { libc::O_NOFOLLOW })
        .open(path)
        .map_err(|e| io_err("open", e))?;
    let t = file
        .metadata()
        .map_err(|e| io_err("inspect", e))?
        .file_type();
    let fits = if follow {
        !(t.is_dir() || t.is_block_device())
    } else {
        t.is_fifo() || t.is_char_device()
    };
    if fits {
        Ok(file)
    } else {
        Err(refused(
            path,
            format!(
                "it became a {} while it was opened; an output is a regular file, a FIFO or a character device",
                kind_of(t)
            ),
        ))
    }
}

/// An output written in full and not yet in place (a staged file), or
/// already streamed; [`commit`](Self::commit) puts a staged file in place.
/// Dropped uncommitted, a staged file is removed and its target is left
/// as it was.
pub struct Output {
    path: PathBuf,
    staged: Option<Staged>,
}

impl Output {
    /// Writes `fill`'s bytes (buffered) for `path`: to a new temporary
    /// file beside it (synced), or straight into a stream (see the
    /// [module docs](self)). A failure leaves a file target as it was.
    pub fn write(
        path: impl AsRef<Path>,
        fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<Output, OutputError> {
        let path = path.as_ref();
        match check(path)? {
            OutputKind::File => {
                let staged =
                    Staged::write(path, fill).map_err(|(action, source)| OutputError::Io {
                        path: path.to_path_buf(),
                        action,
                        unchanged: true,
                        source,
                    })?;
                Ok(Output {
                    path: path.to_path_buf(),
                    staged: Some(staged),
                })
            }
            OutputKind::Stream => {
                let file = open_stream(path)?;
                let mut w = io::BufWriter::with_capacity(1 << 20, file);
                fill(&mut w)
                    .and_then(|()| w.flush())
                    .map_err(|source| OutputError::Io {
                        path: path.to_path_buf(),
                        action: "write",
                        unchanged: false,
                        source,
                    })?;
                Ok(Output {
                    path: path.to_path_buf(),
                    staged: None,
                })
            }
        }
    }

    /// How this output is written.
    pub fn kind(&self) -> OutputKind {
        if self.staged.is_some() {
            OutputKind::File
        } else {
            OutputKind::Stream
        }
    }

    /// Puts a staged file in place (renamed over its target, after
    /// checking again that the target is absent or a regular file); a
    /// stream was written already.
    pub fn commit(self) -> Result<(), OutputError> {
        let Some(staged) = self.staged else {
            return Ok(());
        };
        staged.commit().map_err(|e| match e {
            CommitError::Target(_) => refused(
                &self.path,
                "it stopped being a regular file while the output was written; nothing was written to it".into(),
            ),
            CommitError::Rename(source) => OutputError::Io {
                path: self.path.clone(),
                action: "rename the finished output over",
                unchanged: true,
                source,
            },
        })
    }
}

/// [`Output::write`], then [`Output::commit`]: `path` gets `fill`'s bytes
/// whole, or (a file) is left as it was.
pub fn write(
    path: impl AsRef<Path>,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<OutputKind, OutputError> {
    let out = Output::write(path, fill)?;
    let kind = out.kind();
    out.commit()?;
    Ok(kind)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::prepared::testing::scratch;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn files_are_replaced_whole_and_links_refused() {
        let d = scratch("output-kinds");
        let out = d.join("out");
        assert_eq!(
            write(&out, |w| w.write_all(b"one")).unwrap(),
            OutputKind::File
        );
        assert_eq!(
            write(&out, |w| w.write_all(b"two")).unwrap(),
            OutputKind::File
        );
        assert_eq!(std::fs::read(&out).unwrap(), b"two");
        // A link to a private victim: refused, neither changes.
        let victim = d.join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        let link = d.join("link");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        let e = write(&link, |w| w.write_all(b"clobbered")).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("it is a symbolic link to "), "{msg}");
        assert!(msg.contains("remove the link"), "{msg}");
        assert!(matches!(check(&link), Err(OutputError::Refused { .. })));
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        // A dangling link is refused too (it would create its target).
        let dangling = d.join("dangling");
        std::os::unix::fs::symlink(d.join("nowhere"), &dangling).unwrap();
        assert!(write(&dangling, |w| w.write_all(b"x")).is_err());
        assert!(!d.join("nowhere").exists());
        // A directory.
        let e = write(&d, |w| w.write_all(b"x")).unwrap_err().to_string();
        assert!(e.contains("it is a directory"), "{e}");
        assert_eq!(names(&d), ["dangling", "link", "out", "victim"]);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_failed_fill_leaves_the_old_file_and_no_temporary() {
        let d = scratch("output-failed");
        let out = d.join("out");
        std::fs::write(&out, b"old").unwrap();
        let e = write(&out, |w| {
            w.write_all(b"partial")?;
            Err(io::Error::other("the disk is full"))
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("the disk is full"), "{e}");
        assert!(e.contains("is as it was"), "{e}");
        assert_eq!(std::fs::read(&out).unwrap(), b"old");
        assert_eq!(names(&d), ["out"]);
        // Staged, not committed: nothing changes either.
        let staged = Output::write(&out, |w| w.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"old");
        drop(staged);
        assert_eq!(names(&d), ["out"]);
        // A new target is not created at all, and the message says so.
        let new = d.join("new");
        let e = write(&new, |w| {
            w.write_all(b"partial")?;
            Err(io::Error::other("the disk is full"))
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("was not created"), "{e}");
        assert_eq!(names(&d), ["out"]);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn streams_are_written_in_place() {
        assert!(is_standard_stream(Path::new("/dev/stdout")));
        assert!(is_standard_stream(Path::new("/proc/self/fd/3")));
        assert!(is_standard_stream(Path::new("/dev/fd/12")));
        assert!(!is_standard_stream(Path::new("/dev/fd/")));
        assert!(!is_standard_stream(Path::new("/dev/shm/x")));
        assert!(!is_standard_stream(Path::new("/proc/self/fd/1/x")));
        assert_eq!(check("/dev/null").unwrap(), OutputKind::Stream);
        assert_eq!(
            write("/dev/null", |w| w.write_all(b"gone")).unwrap(),
            OutputKind::Stream
        );
        assert_eq!(check("/dev/stderr").unwrap(), OutputKind::Stream);
        // A block device, where this host has one.
        if let Ok(m) = std::fs::symlink_metadata("/dev/loop0") {
            use std::os::unix::fs::FileTypeExt;
            if m.file_type().is_block_device() {
                let e = check("/dev/loop0").unwrap_err().to_string();
                assert!(e.contains("it is a block device"), "{e}");
            }
        }
    }
}
