//! Putting a file in place whole or not at all: it is written under a new,
//! unique temporary name beside its target, synced, and renamed over the
//! target only if that is absent or a regular file ([`Staged`]). The graph
//! file and the prepared shards are written so.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::error::GraphFileError;

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

/// Checks that `path` can be the target of [`write_with_roots`](super::write_with_roots): it does not
/// exist, or it is a regular file (not a symbolic link to one: the link
/// itself would be replaced). Callers may use it to refuse a bad target
/// before long work; the writer checks again before writing and before the
/// rename.
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
    use crate::io::file::open::open;
    use crate::io::file::testing::{listing, sample, scratch};
    use crate::io::file::write::{write, write_with_roots};

    fn refused(path: &Path, kind: &str) {
        let e = write(path, &sample()).unwrap_err();
        assert!(
            matches!(&e, GraphFileError::TargetNotARegularFile { kind: k, .. } if *k == kind),
            "{}: {e:?}",
            path.display()
        );
        let msg = e.to_string();
        assert!(
            msg.contains(&format!("it exists and is a {kind}, not a regular file")),
            "{msg}"
        );
        assert!(matches!(
            check_write_target(path),
            Err(GraphFileError::TargetNotARegularFile { .. })
        ));
    }

    #[test]
    fn writer_refuses_targets_that_are_not_regular_files() {
        use std::os::unix::fs::FileTypeExt;
        let d = scratch("targets");
        // A directory: untouched (still a directory, still holding its file).
        let dir = d.join("dir");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("inside"), b"keep").unwrap();
        refused(&dir, "directory");
        assert_eq!(std::fs::read(dir.join("inside")).unwrap(), b"keep");
        // A symbolic link to a regular file: neither the link nor its target changes.
        let victim = d.join("victim");
        std::fs::write(&victim, b"victim").unwrap();
        let link = d.join("link");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        refused(&link, "symbolic link");
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&victim).unwrap(), b"victim");
        // A FIFO (writing to it must not block either).
        let fifo = d.join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if matches!(made, Ok(s) if s.success()) {
            refused(&fifo, "FIFO (named pipe)");
            assert!(std::fs::symlink_metadata(&fifo)
                .unwrap()
                .file_type()
                .is_fifo());
        } else {
            eprintln!("note: mkfifo unavailable, FIFO target not tested");
        }
        // A character device: a private copy of /dev/null (c 1 3), so a
        // regression clobbers the copy and not the system's device.
        let dev = d.join("null");
        let made = std::process::Command::new("mknod")
            .arg(&dev)
            .args(["c", "1", "3"])
            .stderr(std::process::Stdio::null())
            .status();
        if matches!(made, Ok(s) if s.success()) {
            refused(&dev, "character device");
            assert!(std::fs::symlink_metadata(&dev)
                .unwrap()
                .file_type()
                .is_char_device());
        } else {
            eprintln!("note: not allowed to mknod (not root?), device target not tested");
        }
        // Nothing else appeared (no temporary files).
        let mut names = listing(&d);
        names.retain(|n| !["dir", "victim", "link", "fifo", "null"].contains(&n.as_str()));
        assert!(names.is_empty(), "left behind: {names:?}");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn writer_ignores_planted_tmp_names() {
        // The old writer wrote to `PATH.tmp`: a symbolic link planted there
        // redirected the write, and a file there was deleted.
        let d = scratch("planted");
        let victim = d.join("victim");
        std::fs::write(&victim, b"victim").unwrap();
        let target = d.join("g");
        let tmp_link = d.join("g.tmp");
        std::os::unix::fs::symlink(&victim, &tmp_link).unwrap();
        write(&target, &sample()).unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"victim");
        assert!(std::fs::symlink_metadata(&tmp_link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(open(&target).unwrap().edge_list(), sample());

        let target2 = d.join("h");
        let tmp_file = d.join("h.tmp");
        std::fs::write(&tmp_file, b"someone else's").unwrap();
        write(&target2, &sample()).unwrap();
        assert_eq!(std::fs::read(&tmp_file).unwrap(), b"someone else's");
        assert_eq!(listing(&d), ["g", "g.tmp", "h", "h.tmp", "victim"]);
        let _ = std::fs::remove_dir_all(&d);
    }

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

    #[test]
    fn writer_replaces_a_regular_file_by_rename() {
        use std::io::Read;
        let d = scratch("replace");
        let target = d.join("g");
        std::fs::write(&target, b"old contents").unwrap();
        // A reader that has the old file open keeps seeing it whole: the new
        // file is a different inode moved into place, not a rewrite.
        let mut old = File::open(&target).unwrap();
        write_with_roots(&target, &sample(), &[1]).unwrap();
        let mut seen = Vec::new();
        old.read_to_end(&mut seen).unwrap();
        assert_eq!(seen, b"old contents");
        let g = open(&target).unwrap();
        assert_eq!(g.edge_list(), sample());
        assert_eq!(g.roots(), [1]);
        assert_eq!(listing(&d), ["g"]);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn failed_write_leaves_nothing_behind() {
        let d = scratch("failed");
        // `g/` names a directory that does not exist: the data is written to
        // the temporary file, then the rename fails (ENOTDIR).
        let mut target = d.join("g").into_os_string();
        target.push("/");
        let e = write(PathBuf::from(&target), &sample()).unwrap_err();
        assert!(
            matches!(
                e,
                GraphFileError::Io {
                    action: "rename",
                    ..
                }
            ),
            "{e:?}"
        );
        assert!(listing(&d).is_empty(), "left behind: {:?}", listing(&d));
        // Invalid input fails before any file is made.
        assert!(write_with_roots(d.join("x"), &sample(), &[99]).is_err());
        assert!(listing(&d).is_empty());
        let _ = std::fs::remove_dir_all(&d);
    }
}
