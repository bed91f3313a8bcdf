//! Opening a shard's file for a run: mapped, checked whole (header,
//! length, every array's checksum, the offsets and targets), and refused
//! with what to do when it belongs to another run ([`Expected`]).

use std::io;
use std::path::Path;
use std::sync::Arc;

use super::error::{PreparedError, Problem};
use super::header::{kind_name, parse_header, GraphIdentity, ShardHeader};
use super::layout::{layout, ARRAYS, HEADER_LEN};
use crate::csr::{Array, Shard};
use crate::io::file::{checksum64, kind_of};
use crate::mapped::{self, MappedSlice, Plain};
use crate::partition::{Partition, PartitionKind};

/// What a run expects of its trustee's file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expected {
    /// The partition kind.
    pub kind: PartitionKind,
    /// Trustees in the run (ranks x threads).
    pub trustees: u32,
    /// The trustee whose file this is.
    pub trustee: u32,
    /// The graph.
    pub graph: GraphIdentity,
}

/// Why `header` does not fit the run `want`, in words, with what to do.
fn mismatch(header: &ShardHeader, want: &Expected, dir: &str) -> Option<String> {
    let resave = format!("or re-save with --save-prepared {dir}");
    if header.trustees != want.trustees {
        return Some(format!(
            "was saved by a run with {} trustees (ranks x threads), this run has {}: re-run with --ranks and --threads giving {} trustees, {resave}",
            header.trustees, want.trustees, header.trustees
        ));
    }
    if header.kind != want.kind {
        return Some(format!(
            "was saved with --partition {}, this run uses --partition {}: re-run with --partition {}, {resave}",
            kind_name(header.kind),
            kind_name(want.kind),
            kind_name(header.kind)
        ));
    }
    if header.graph != want.graph {
        return Some(format!(
            "holds {}, but this run's graph is {}: run on the graph it was saved from, {resave}",
            header.graph, want.graph
        ));
    }
    if header.trustee != want.trustee {
        return Some(format!(
            "holds the shard of trustee {}, not {} (was it renamed?); {resave}",
            header.trustee, want.trustee
        ));
    }
    None
}

/// The trustee counts of the shard files in `dir` (by their names).
fn counts_in(dir: &Path) -> Vec<u32> {
    let mut counts: Vec<u32> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            let rest = name.strip_prefix("shard-")?.strip_suffix(".gshard")?;
            rest.split_once("-of-")?.1.parse().ok()
        })
        .collect();
    counts.sort_unstable();
    counts.dedup();
    counts
}

/// Opens, maps and fully verifies trustee `want.trustee`'s file `path`
/// for the run `want`: the header, that it belongs to this run, the
/// length, every array's checksum, and that the offsets and targets make
/// a shard of `partition`.
pub fn open(path: &Path, want: &Expected, partition: &Partition) -> Result<Shard, PreparedError> {
    let err = |problem| PreparedError {
        path: path.to_path_buf(),
        problem,
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    let dir_s = dir.display().to_string();
    // The name itself, not what a link there points to: shards are read
    // only from the files `--save-prepared` wrote.
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let others: Vec<String> = counts_in(dir)
                .into_iter()
                .filter(|&c| c != want.trustees)
                .map(|c| c.to_string())
                .collect();
            let hint = if others.is_empty() {
                format!(
                    "save the graph first with --save-prepared {dir_s} (with this run's --ranks, --threads and --partition)"
                )
            } else {
                format!(
                    "{dir_s} holds the shards of a run with {} trustees (ranks x threads), this run has {}: re-run with --ranks and --threads giving that many trustees, or re-save with --save-prepared {dir_s}",
                    others.join(" or "),
                    want.trustees
                )
            };
            return Err(err(Problem::NotFound(hint)));
        }
        Err(e) => return Err(err(Problem::Io("inspect", e))),
    };
    if !meta.is_file() {
        return Err(err(Problem::NotARegularFile(kind_of(meta.file_type()))));
    }
    let file = {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
            .open(path)
            .map_err(|e| err(Problem::Io("open", e)))?
    };
    let meta = file
        .metadata()
        .map_err(|e| err(Problem::Io("inspect", e)))?;
    if !meta.is_file() {
        return Err(err(Problem::NotARegularFile(kind_of(meta.file_type()))));
    }
    let actual = meta.len();
    if actual < HEADER_LEN as u64 {
        let mut bytes = Vec::new();
        io::Read::read_to_end(&mut io::Read::take(&file, HEADER_LEN as u64), &mut bytes)
            .map_err(|e| err(Problem::Io("read", e)))?;
        parse_header(&bytes).map_err(err)?;
        return Err(err(Problem::TruncatedHeader(actual)));
    }
    let map = Arc::new(mapped::map_file(&file, true).map_err(|e| err(Problem::Io("map", e)))?);
    let header = parse_header(&map).map_err(err)?;
    if let Some(what) = mismatch(&header, want, &dir_s) {
        return Err(err(Problem::Mismatch(what)));
    }
    let (sections, expected) =
        layout(header.rows, header.entries, header.in_entries).expect("checked by the parse");
    if actual < expected {
        return Err(err(Problem::Truncated { expected, actual }));
    }
    if actual > expected {
        return Err(err(Problem::SizeMismatch { expected, actual }));
    }
    if header.rows != partition.local_count(want.trustee) {
        return Err(err(Problem::BadHeader(format!(
            "{} rows, but trustee {} of this partition owns {} vertices",
            header.rows,
            want.trustee,
            partition.local_count(want.trustee)
        ))));
    }
    let ranges: Vec<_> = sections
        .iter()
        .map(|s| s.start as usize..s.end as usize)
        .collect();
    for (i, r) in ranges.iter().enumerate() {
        if checksum64(&map[r.clone()]) != header.sums[i] {
            return Err(err(Problem::CorruptArray(ARRAYS[i])));
        }
    }
    let offsets: Array<u64> = array(&map, ranges[0].clone());
    let targets: Array<u32> = array(&map, ranges[1].clone());
    let weights: Array<f32> = array(&map, ranges[2].clone());
    if offsets.first() != Some(&0)
        || offsets.last() != Some(&header.entries)
        || offsets.windows(2).any(|w| w[0] > w[1])
    {
        return Err(err(Problem::BadArray(
            "the offsets do not rise from 0 to the entry count".into(),
        )));
    }
    let n = partition.num_vertices();
    if let Some(t) = targets.iter().find(|&&t| u64::from(t) >= n) {
        return Err(err(Problem::BadArray(format!(
            "a target {t} is not a vertex (the graph has {n})"
        ))));
    }
    let shard = Shard::from_arrays(*partition, want.trustee, offsets, targets, weights);
    let Some(in_entries) = header.in_entries else {
        return Ok(shard);
    };
    let in_offsets: Array<u64> = array(&map, ranges[3].clone());
    let in_sources: Array<u32> = array(&map, ranges[4].clone());
    if in_offsets.first() != Some(&0)
        || in_offsets.last() != Some(&in_entries)
        || in_offsets.windows(2).any(|w| w[0] > w[1])
    {
        return Err(err(Problem::BadArray(
            "the in-edge offsets do not rise from 0 to the in-edge entry count".into(),
        )));
    }
    if let Some(t) = in_sources.iter().find(|&&t| u64::from(t) >= n) {
        return Err(err(Problem::BadArray(format!(
            "an in-edge source {t} is not a vertex (the graph has {n})"
        ))));
    }
    Ok(shard.with_in_edges(in_offsets, in_sources))
}

/// Bytes `r` of `map` as an array: viewed in place, or decoded where that
/// is impossible (big-endian hosts).
fn array<T: Plain>(map: &Arc<memmap2::Mmap>, r: std::ops::Range<usize>) -> Array<T> {
    match MappedSlice::new(map, r.clone()) {
        Some(m) => Array::Mapped(m),
        None => Array::Owned(
            map[r]
                .chunks_exact(std::mem::size_of::<T>())
                .map(T::get_le)
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::le::u32_at;
    use crate::io::prepared::layout::{
        file_name, FLAG_DIRECTED, OFF_FLAGS, OFF_VERSION, OFF_VERTICES,
    };
    use crate::io::prepared::testing::{directed_identity, identity, list, scratch};
    use crate::io::prepared::write::{to_bytes, write};

    #[test]
    fn a_directed_shard_maps_back_with_its_in_edges() {
        let d = scratch("directed");
        let p = Partition::new(PartitionKind::Cyclic, 41, 1, 3).unwrap();
        let sh = crate::build_rank_with(&list(), &p, 0, true)
            .unwrap()
            .remove(1);
        assert!(sh.is_directed() && !sh.in_index().1.is_empty());
        let path = d.join(file_name(1, 3));
        write(&path, &sh, &directed_identity()).unwrap();
        let dwant = Expected {
            graph: directed_identity(),
            ..want()
        };
        let back = open(&path, &dwant, &p).unwrap();
        assert!(back.is_mapped() && back.is_directed());
        assert_eq!(back, sh);
        assert_eq!(back.heap_bytes(), 0);
        for l in 0..sh.num_local_vertices() {
            assert_eq!(back.in_neighbors(l), sh.in_neighbors(l));
        }
        let bytes = std::fs::read(&path).unwrap();
        let h = parse_header(&bytes).unwrap();
        assert_eq!(h.in_entries, Some(sh.in_index().1.len() as u64));
        assert_eq!(h.sums.len(), 5);
        // Damage in the in-edge index, and a run that expects the graph
        // undirected, are refused.
        let check = |b: &[u8], want_text: &str, w: &Expected| {
            std::fs::write(&path, b).unwrap();
            let e = open(&path, w, &p).unwrap_err().to_string();
            assert!(e.contains(want_text), "{e}");
        };
        let mut v = bytes.clone();
        let last = v.len() - 1;
        v[last] ^= 0x40;
        check(
            &v,
            "its in-edge sources do not match their checksum",
            &dwant,
        );
        check(&bytes, ", directed, but this run's graph is", &want());
        // An undirected shard's file is as before: three arrays, no flag.
        let (_, _, plain) = shard_and_bytes();
        let h = parse_header(&plain).unwrap();
        assert_eq!((h.in_entries, h.sums.len()), (None, 3));
        assert_eq!(u32_at(&plain, OFF_FLAGS) & FLAG_DIRECTED, 0);
        let _ = std::fs::remove_dir_all(&d);
    }

    fn shard_and_bytes() -> (Shard, Partition, Vec<u8>) {
        let p = Partition::new(PartitionKind::Cyclic, 41, 1, 3).unwrap();
        let sh = crate::build_rank(&list(), &p, 0).unwrap().remove(1);
        let bytes = to_bytes(&sh, &identity());
        (sh, p, bytes)
    }

    fn want() -> Expected {
        Expected {
            kind: PartitionKind::Cyclic,
            trustees: 3,
            trustee: 1,
            graph: identity(),
        }
    }

    #[test]
    fn a_written_shard_maps_back_equal() {
        let d = scratch("roundtrip");
        let (sh, p, bytes) = shard_and_bytes();
        let path = d.join(file_name(1, 3));
        write(&path, &sh, &identity()).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), bytes);
        let back = open(&path, &want(), &p).unwrap();
        assert!(back.is_mapped());
        assert_eq!(back, sh);
        assert_eq!(back.heap_bytes(), 0);
        // A clone shares the mapping; serialized it arrives owned.
        assert!(back.clone().is_mapped());
        let h = parse_header(&bytes).unwrap();
        assert_eq!(
            (h.rows, h.entries),
            (sh.num_local_vertices(), sh.num_entries())
        );
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn links_are_neither_followed_nor_written_through() {
        let d = scratch("links");
        let (sh, p, bytes) = shard_and_bytes();
        let path = d.join(file_name(1, 3));
        // Reading: a link to a good shard is refused, not followed.
        let real = d.join("elsewhere.gshard");
        std::fs::write(&real, &bytes).unwrap();
        std::os::unix::fs::symlink(&real, &path).unwrap();
        let e = open(&path, &want(), &p).unwrap_err().to_string();
        assert!(
            e.contains("is a symbolic link, not a regular file (shards are read only from the files --save-prepared writes"),
            "{e}"
        );
        // Saving: the link (to a private victim) is refused and left, and
        // the message does not send the user back to the same command.
        let victim = d.join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(&victim, &path).unwrap();
        let e = write(&path, &sh, &identity()).unwrap_err().to_string();
        assert!(
            e.contains("refusing to save prepared shard")
                && e.contains("that name is taken by a symbolic link"),
            "{e}"
        );
        assert!(
            e.contains("remove it, or save into another directory"),
            "{e}"
        );
        assert!(!e.contains("re-save"), "{e}");
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        assert!(std::fs::symlink_metadata(&path)
            .unwrap()
            .file_type()
            .is_symlink());
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn damaged_or_foreign_files_are_refused() {
        let d = scratch("refused");
        let (_, p, bytes) = shard_and_bytes();
        let path = d.join(file_name(1, 3));
        let check = |b: &[u8], want_text: &str, w: &Expected| {
            std::fs::write(&path, b).unwrap();
            let e = open(&path, w, &p).unwrap_err().to_string();
            assert!(e.contains(want_text), "{e}");
        };
        let mut v = bytes.clone();
        v[OFF_VERSION] = 2;
        check(&v, "format v2, this build reads v1", &want());
        let mut v = bytes.clone();
        v[OFF_VERTICES] ^= 1;
        check(&v, "corrupt header", &want());
        let mut v = bytes.clone();
        let last = v.len() - 1;
        v[last] ^= 0x40;
        check(&v, "its weights do not match their checksum", &want());
        check(&bytes[..bytes.len() - 5], "is truncated", &want());
        check(&bytes[..100], "fewer than the 512-byte header", &want());
        check(b"not a shard file at all", "not a prepared shard", &want());
        let w = Expected {
            kind: PartitionKind::Block,
            ..want()
        };
        check(
            &bytes,
            "--partition cyclic, this run uses --partition block",
            &w,
        );
        let w = Expected {
            graph: GraphIdentity {
                unit_weights: true,
                ..identity()
            },
            ..want()
        };
        check(&bytes, "with unit weights: run on the graph", &w);
        std::fs::remove_file(&path).unwrap();
        let e = open(&path, &want(), &p).unwrap_err().to_string();
        assert!(e.contains("save the graph first"), "{e}");
        let _ = std::fs::remove_dir_all(&d);
    }
}
