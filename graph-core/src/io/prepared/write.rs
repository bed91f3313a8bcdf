//! Writing a shard's file: encoded, then put in place whole (written beside
//! it, synced, renamed; see [`Staged`]).

use std::borrow::Cow;
use std::io::{self, Write};
use std::path::Path;

use super::error::{PreparedError, Problem};
use super::header::{encode_header, in_entries_of, GraphIdentity};
use super::layout::{layout, ALIGN, HEADER_LEN};
use crate::csr::Shard;
use crate::io::file::{kind_of, CommitError, Staged};
use crate::mapped::{self, Plain};
use crate::GraphFileError;

/// The arrays of `shard`'s file, in file encoding.
fn arrays_of(shard: &Shard) -> Vec<Cow<'_, [u8]>> {
    let mut arrays = vec![
        bytes_of(shard.offsets()),
        bytes_of(shard.targets()),
        bytes_of(shard.weights()),
    ];
    if shard.is_directed() {
        let (offsets, sources) = shard.in_index();
        arrays.extend([bytes_of(offsets), bytes_of(sources)]);
    }
    arrays
}

/// An array's bytes in file encoding (borrowed on little-endian hosts).
fn bytes_of<T: Plain>(xs: &[T]) -> Cow<'_, [u8]> {
    match mapped::plain_as_bytes(xs) {
        Some(b) => b.into(),
        None => {
            let mut out = Vec::with_capacity(std::mem::size_of_val(xs));
            xs.iter().for_each(|x| x.put_le(&mut out));
            out.into()
        }
    }
}

/// Writes the whole file to `out`.
fn write_to(out: &mut dyn Write, shard: &Shard, graph: &GraphIdentity) -> io::Result<()> {
    let arrays = arrays_of(shard);
    let header = encode_header(shard, graph, &arrays);
    out.write_all(&header)?;
    let (sections, _) = layout(
        shard.num_local_vertices(),
        shard.num_entries(),
        in_entries_of(shard),
    )
    .expect("an in-memory shard's layout fits in u64");
    let mut at = HEADER_LEN as u64;
    for (s, bytes) in sections.iter().zip(&arrays) {
        let pad = (s.start - at) as usize;
        out.write_all(&[0u8; ALIGN as usize][..pad])?;
        out.write_all(bytes)?;
        at = s.end;
    }
    Ok(())
}

/// The whole file as bytes (for tests and small shards).
pub fn to_bytes(shard: &Shard, graph: &GraphIdentity) -> Vec<u8> {
    let mut out = Vec::new();
    write_to(&mut out, shard, graph).expect("writing to memory does not fail");
    out
}

/// Writes `shard` to a temporary file beside `path`, not yet in place.
pub(crate) fn stage(
    path: &Path,
    shard: &Shard,
    graph: &GraphIdentity,
) -> Result<Staged, PreparedError> {
    let err = |problem| PreparedError {
        path: path.to_path_buf(),
        problem,
    };
    match std::fs::symlink_metadata(path) {
        Ok(m) if !m.file_type().is_file() => {
            return Err(err(Problem::TargetNotARegularFile(kind_of(m.file_type()))))
        }
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(err(Problem::Io("inspect", e))),
    }
    Staged::write(path, |out| write_to(out, shard, graph))
        .map_err(|(action, e)| err(Problem::Io(action, e)))
}

/// Writes `shard` to `path` atomically (temporary file, sync, rename).
pub fn write(path: &Path, shard: &Shard, graph: &GraphIdentity) -> Result<(), PreparedError> {
    commit(stage(path, shard, graph)?, path)
}

pub(crate) fn commit(staged: Staged, path: &Path) -> Result<(), PreparedError> {
    staged.commit().map_err(|e| PreparedError {
        path: path.to_path_buf(),
        problem: match e {
            CommitError::Target(GraphFileError::TargetNotARegularFile { kind, .. }) => {
                Problem::TargetNotARegularFile(kind)
            }
            CommitError::Target(_) => Problem::TargetNotARegularFile("file of another kind"),
            CommitError::Rename(e) => Problem::Io("rename into place", e),
        },
    })
}
