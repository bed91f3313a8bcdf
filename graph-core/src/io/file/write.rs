//! Writing a graph file: [`write_graph`] (and its shorter forms) checks the
//! graph, encodes it and puts it in place whole ([`super::stage`]).

use std::path::Path;

use super::checksum::checksum64;
use super::error::{bad, GraphFileError};
use super::header::{encode_header, id_table_bytes};
use super::layout::{HEADER_LEN, MAX_ROOTS};
use super::stage::{check_write_target, CommitError, Staged};
use crate::edge_list::EdgeList;
use crate::mapped;
use crate::meta::{GraphMeta, IdMap};

/// The whole file as bytes (header + records), for tests, fuzz seeds and
/// small graphs. Fails like [`write_with_roots`] on invalid input.
pub fn to_bytes(list: &EdgeList<'_>, roots: &[u64]) -> Result<Vec<u8>, GraphFileError> {
    to_bytes_with_meta(list, roots, &GraphMeta::default())
}

/// [`to_bytes`] with a [`GraphMeta`] (see [`write_graph`]).
pub fn to_bytes_with_meta(
    list: &EdgeList<'_>,
    roots: &[u64],
    meta: &GraphMeta,
) -> Result<Vec<u8>, GraphFileError> {
    check_writable(list, roots, meta)?;
    let data = record_bytes(list);
    let ids = id_section(meta);
    let mut out = Vec::with_capacity(HEADER_LEN + data.len() + ids.len());
    out.extend_from_slice(&encode_header(list, checksum64(&data), roots, meta));
    out.extend_from_slice(&data);
    out.extend_from_slice(&ids);
    Ok(out)
}

/// The bytes after the records: the id table, if any.
fn id_section(meta: &GraphMeta) -> Vec<u8> {
    match &meta.ids {
        IdMap::Table(t) => id_table_bytes(t),
        IdMap::Offset(_) => Vec::new(),
    }
}

fn check_writable(
    list: &EdgeList<'_>,
    roots: &[u64],
    meta: &GraphMeta,
) -> Result<(), GraphFileError> {
    list.validate().map_err(GraphFileError::BadEdge)?;
    meta.ids.check(list.num_vertices()).map_err(bad)?;
    if list.params().is_some() && *meta != GraphMeta::default() {
        return Err(bad(
            "a Graph500 graph is undirected, weighted and keeps its ids",
        ));
    }
    if roots.len() > MAX_ROOTS {
        return Err(bad(format!(
            "{} roots given, at most {MAX_ROOTS} fit",
            roots.len()
        )));
    }
    if let Some(r) = roots.iter().find(|&&r| r >= list.num_vertices()) {
        return Err(bad(format!("root {r} is not a vertex of the graph")));
    }
    Ok(())
}

fn record_bytes<'a>(list: &'a EdgeList<'_>) -> std::borrow::Cow<'a, [u8]> {
    match mapped::records_as_bytes(list.edges()) {
        Some(b) => b.into(),
        None => list
            .edges()
            .iter()
            .flat_map(|e| e.to_le_bytes())
            .collect::<Vec<u8>>()
            .into(),
    }
}

/// Writes `list` to `path` (no roots). See [`write_with_roots`].
pub fn write(path: impl AsRef<Path>, list: &EdgeList<'_>) -> Result<(), GraphFileError> {
    write_with_roots(path, list, &[])
}

/// Writes `list` and up to 64 search roots to `path`, atomically: the bytes
/// go to a new temporary file created exclusively in the same directory,
/// which is synced and then renamed over `path`, so a crash never leaves a
/// half-written file under the final name and readers see the old or the
/// new file. A `path` that exists and is not a regular file (a device such
/// as `/dev/null`, a directory, a symbolic link, a FIFO) is refused and left
/// untouched ([`GraphFileError::TargetNotARegularFile`]). On any failure the
/// temporary file is removed and `path` is unchanged.
pub fn write_with_roots(
    path: impl AsRef<Path>,
    list: &EdgeList<'_>,
    roots: &[u64],
) -> Result<(), GraphFileError> {
    write_graph(path, list, roots, &GraphMeta::default())
}

/// [`write_with_roots`] for any graph: `meta` says whether it is directed
/// and weighted and which ids its input file used (stored in the header
/// and, for an id table, after the records). An unweighted graph's records
/// should carry weight 1.0 (the readers of the `convert` formats do so).
pub fn write_graph(
    path: impl AsRef<Path>,
    list: &EdgeList<'_>,
    roots: &[u64],
    meta: &GraphMeta,
) -> Result<(), GraphFileError> {
    let path = path.as_ref();
    check_writable(list, roots, meta)?;
    check_write_target(path)?;
    let data = record_bytes(list);
    let ids = id_section(meta);
    let header = encode_header(list, checksum64(&data), roots, meta);
    let io_err = |action: &'static str| {
        let p = path.to_path_buf();
        move |source| GraphFileError::Io {
            path: p,
            action,
            source,
        }
    };
    let staged = Staged::write(path, |f| {
        f.write_all(&header)?;
        f.write_all(&data)?;
        f.write_all(&ids)
    })
    .map_err(|(action, source)| io_err(action)(source))?;
    staged.commit().map_err(|e| match e {
        CommitError::Target(e) => e,
        CommitError::Rename(source) => io_err("rename")(source),
    })
}

#[cfg(test)]
mod tests {
    use std::fs::File;
    use std::path::PathBuf;

    use super::*;
    use crate::io::file::open::open;
    use crate::io::file::testing::{listing, sample, scratch};

    #[test]
    fn writer_refuses_bad_roots() {
        assert!(matches!(
            to_bytes(&sample(), &[4]),
            Err(GraphFileError::BadHeader { .. })
        ));
        assert!(matches!(
            to_bytes(&sample(), &[0; 65]),
            Err(GraphFileError::BadHeader { .. })
        ));
    }

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
