//! Writing a built graph file: the whole graph's rows built once (the
//! same counting sort as every build, [`crate::csr`]), then the header and
//! the sections put in place whole ([`Staged`]).

use std::borrow::Cow;
use std::io::{self, Write};
use std::path::Path;

use rayon::prelude::*;

use super::error::{BuiltError, Problem};
use super::header::{encode, place, section_lengths, BuiltHeader, Section, CHUNK, SECTIONS};
use crate::csr::build_trustees_with;
use crate::edge_list::EdgeList;
use crate::io::file::{checksum64, chunk_digest, fold_digests, CommitError, Staged};
use crate::mapped::{self, Plain};
use crate::meta::{GraphMeta, IdMap};
use crate::partition::Partition;
use crate::GraphFileError;

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

/// The digests of `bytes`' checksum chunks, in order (none when empty).
fn digests_of(bytes: &[u8]) -> Vec<u64> {
    bytes
        .par_chunks(CHUNK as usize)
        .enumerate()
        .map(|(i, c)| chunk_digest(c, i as u64))
        .collect()
}

/// Writes `list` (read as `meta` says) as a built graph file at `path`,
/// with up to 64 search `roots` (dense ids) and the data checksum of the
/// graph file it came from (`source_checksum`, if any). The rows are the
/// whole graph's, as [`build_whole`](crate::build_whole) (or, directed,
/// [`build_trustees_with`]) makes them: each vertex's entries in input
/// order, duplicates kept, self-loops dropped. The file replaces `path`
/// whole or not at all.
pub fn write(
    path: &Path,
    list: &EdgeList<'_>,
    meta: &GraphMeta,
    roots: &[u64],
    source_checksum: Option<u64>,
) -> Result<BuiltHeader, BuiltError> {
    let err = |problem| BuiltError {
        path: path.to_path_buf(),
        problem,
    };
    crate::io::file::check_write_target(path).map_err(|e| match e {
        GraphFileError::TargetNotARegularFile { kind, .. } => err(Problem::Unwritable(format!(
            "that name is taken by a {kind}, not a regular file"
        ))),
        e => err(Problem::Unwritable(e.to_string())),
    })?;
    if roots.len() > super::header::MAX_ROOTS {
        return Err(err(Problem::Unwritable(format!(
            "{} roots (at most {})",
            roots.len(),
            super::header::MAX_ROOTS
        ))));
    }
    let n = list.num_vertices();
    meta.ids.check(n).map_err(|e| err(Problem::Unwritable(e)))?;
    let whole = build_trustees_with(list, &Partition::single(n), 0..1, meta.directed)
        .map_err(|e| err(Problem::Unwritable(e.to_string())))?
        .remove(0);
    let (in_offsets, in_sources) = whole.in_index();
    let ids = match &meta.ids {
        IdMap::Table(t) => t.as_slice(),
        IdMap::Offset(_) => &[],
    };
    let mut arrays: Vec<Cow<'_, [u8]>> = vec![
        bytes_of(whole.offsets()),
        bytes_of(whole.targets()),
        bytes_of(if meta.weighted { whole.weights() } else { &[] }),
        bytes_of(in_offsets),
        bytes_of(in_sources),
        bytes_of(ids),
    ];
    let digests: Vec<Vec<u64>> = arrays.iter().map(|a| digests_of(a)).collect();
    let mut sums = [0u64; SECTIONS];
    for (i, (a, d)) in arrays.iter().zip(&digests).enumerate() {
        sums[i] = if a.is_empty() {
            checksum64(&[])
        } else {
            fold_digests(a.len(), d.iter().copied())
        };
    }
    let all: Vec<u64> = digests.into_iter().flatten().collect();
    arrays.push(bytes_of(&all).into_owned().into());
    let digest_bytes = &arrays[Section::Digests as usize];
    sums[Section::Digests as usize] = checksum64(digest_bytes);
    let lengths = section_lengths(
        n,
        whole.num_entries(),
        in_sources.len() as u64,
        meta.directed,
        meta.weighted,
        !ids.is_empty(),
    )
    .ok_or_else(|| {
        err(Problem::Unwritable(
            "the sections do not fit in 64 bits".into(),
        ))
    })?;
    let sections =
        place(&lengths).ok_or_else(|| err(Problem::Unwritable("the file is too long".into())))?;
    for (s, a) in sections.iter().zip(&arrays) {
        debug_assert_eq!(s.end - s.start, a.len() as u64);
    }
    let header = BuiltHeader {
        params: list.params(),
        directed: meta.directed,
        weighted: meta.weighted,
        num_vertices: n,
        num_edges: list.num_edges(),
        entries: whole.num_entries(),
        in_entries: in_sources.len() as u64,
        id_base: match meta.ids {
            IdMap::Offset(b) => b,
            IdMap::Table(_) => 0,
        },
        source_checksum,
        roots: roots.to_vec(),
        sections,
        sums,
    };
    let bytes = encode(&header);
    let staged = Staged::write(path, |out: &mut dyn Write| {
        out.write_all(&bytes)?;
        let mut at = bytes.len() as u64;
        let zeros = [0u8; super::header::ALIGN as usize];
        for (s, a) in header.sections.iter().zip(&arrays) {
            if a.is_empty() {
                continue;
            }
            out.write_all(&zeros[..(s.start - at) as usize])?;
            out.write_all(a)?;
            at = s.end;
        }
        io::Result::Ok(())
    })
    .map_err(|(action, e)| err(Problem::Io(action, e)))?;
    staged.commit().map_err(|e| {
        err(match e {
            CommitError::Target(GraphFileError::TargetNotARegularFile { kind, .. }) => {
                Problem::NotARegularFile(kind)
            }
            CommitError::Target(e) => Problem::Unwritable(e.to_string()),
            CommitError::Rename(e) => Problem::Io("rename into place", e),
        })
    })?;
    Ok(header)
}
