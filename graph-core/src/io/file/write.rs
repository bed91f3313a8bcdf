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
    use super::*;
    use crate::io::file::testing::sample;

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
}
