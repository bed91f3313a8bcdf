//! Putting a file in place whole or not at all: it is written under a new,
//! unique temporary name beside its target, synced, and renamed over the
//! target only if that is absent or a regular file ([`Staged`]). The graph
//! file and the prepared shards are written so.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::error::GraphFileError;

/// Why [`open_regular`] did not open a file.
pub(crate) enum OpenRegular {
    /// An I/O failure while doing `action` (`"inspect"`, `"open"`).
    Io(&'static str, io::Error),
    /// Not a regular file: what it is, in words ([`kind_of`]).
    NotRegular(&'static str),
}

/// Opens `path` for reading if it is a regular file, and returns it with
/// its length. Only a regular file can be a graph file: it looks before
/// opening (a FIFO would block `open` until a writer comes, a device or
/// /proc file may never end) and again on the opened file (the path may
/// have changed in between; `O_NONBLOCK` keeps even that `open` from
/// blocking).
pub(crate) fn open_regular(path: &Path) -> Result<(File, u64), OpenRegular> {
    use std::os::unix::fs::OpenOptionsExt;
    let meta = std::fs::metadata(path).map_err(|e| OpenRegular::Io("inspect", e))?;
    if !meta.file_type().is_file() {
        return Err(OpenRegular::NotRegular(kind_of(meta.file_type())));
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| OpenRegular::Io("open", e))?;
    let meta = file.metadata().map_err(|e| OpenRegular::Io("inspect", e))?;
    if !meta.file_type().is_file() {
        return Err(OpenRegular::NotRegular(kind_of(meta.file_type())));
    }
    Ok((file, meta.len()))
}

/// What a file type is, in words, for messages.
pub(crate) fn kind_of(t: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_dir() {
        "directory"
    } else if t.is_symlink() {
        "symbolic link"
    } else if t.is_fifo() {
        "FIFO (named pipe)"
    } else if t.is_char_device() {
        "character device"
    } else if t.is_block_device() {
        "block device"
    } else if t.is_socket() {
        "socket"
    } else if t.is_file() {
        "regular file"
    } else {
        "special file"
    }
}

/// Checks that `path` can be the target of
/// [`write_with_roots`](super::write_with_roots): it does not exist, or it
/// is a regular file (not a symbolic link to one: the link itself would be
/// replaced). Callers may use it to refuse a bad target before long work;
/// the writer checks again before writing and before the rename.
pub fn check_write_target(path: impl AsRef<Path>) -> Result<(), GraphFileError> {
    let path = path.as_ref();
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_file() => Ok(()),
        Ok(m) => Err(GraphFileError::TargetNotARegularFile {
            path: path.to_path_buf(),
            kind: kind_of(m.file_type()),
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(GraphFileError::Io {
            path: path.to_path_buf(),
            action: "inspect",
            source,
        }),
    }
}

/// Creates a new, uniquely named temporary file next to `path`, exclusively
/// (`O_CREAT|O_EXCL`, and `O_NOFOLLOW`): an existing file or symbolic link
/// of that name is never opened, followed or removed; another name is tried.
pub(crate) fn create_temp_beside(path: &Path) -> io::Result<(File, PathBuf)> {
    use std::os::unix::fs::OpenOptionsExt;
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut last = None;
    for _ in 0..64 {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let tmp = dir.join(format!(
            ".{name}.{}-{}-{nanos:08x}.tmp",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&tmp)
        {
            Ok(f) => return Ok((f, tmp)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no free temporary name")))
}

/// A file written in full under a new, unique temporary name beside its
/// target and synced, not yet in place: [`Staged::commit`] renames it
/// over the target; dropping it uncommitted removes it. So a target is
/// replaced whole or not at all, and several files can be written first
/// and committed together (a prepared graph's shards).
pub(crate) struct Staged {
    tmp: PathBuf,
    path: PathBuf,
    committed: bool,
}

/// Why [`Staged::commit`] failed.
pub(crate) enum CommitError {
    /// The target became something other than a regular file.
    Target(GraphFileError),
    /// The rename failed.
    Rename(io::Error),
}

impl Staged {
    /// Writes `fill`'s bytes (buffered) to a new temporary file beside
    /// `path` and syncs it. On failure nothing is left behind and the
    /// error says which step failed.
    pub(crate) fn write(
        path: &Path,
        fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<Staged, (&'static str, io::Error)> {
        let (file, tmp) =
            create_temp_beside(path).map_err(|e| ("create a temporary file for", e))?;
        let staged = Staged {
            tmp,
            path: path.to_path_buf(),
            committed: false,
        };
        let mut f = io::BufWriter::with_capacity(1 << 20, file);
        fill(&mut f).map_err(|e| ("write", e))?;
        let f = f.into_inner().map_err(|e| ("write", e.into_error()))?;
        f.sync_all().map_err(|e| ("sync", e))?;
        Ok(staged)
    }

    /// Renames the file over its target, after checking again that the
    /// target is absent or a regular file (it may have changed while the
    /// data was written).
    pub(crate) fn commit(mut self) -> Result<(), CommitError> {
        check_write_target(&self.path).map_err(CommitError::Target)?;
        std::fs::rename(&self.tmp, &self.path).map_err(CommitError::Rename)?;
        self.committed = true;
        Ok(())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::file::testing::scratch;

    #[test]
    fn temp_names_are_created_exclusively() {
        let d = scratch("exclusive");
        let target = d.join("g");
        let (f1, t1) = create_temp_beside(&target).unwrap();
        let (f2, t2) = create_temp_beside(&target).unwrap();
        assert_ne!(t1, t2);
        assert_eq!(t1.parent(), Some(d.as_path()));
        drop((f1, f2));
        let _ = std::fs::remove_dir_all(&d);
    }
}
