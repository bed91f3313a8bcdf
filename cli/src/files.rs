//! Files the command writes: the early check that an output's directory
//! exists, a buffered writer, and the binary arrays in the reference
//! vectors' formats.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use graph_core::meta::IdMap;

use crate::error::{io_error, Result};

/// Fails early (before hours of generation or search) when `path` cannot
/// be created because its directory does not exist.
pub fn check_writable(path: &Path) -> Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => return Ok(()),
    };
    if dir.is_dir() {
        Ok(())
    } else {
        Err(crate::error::CliError::new(format!(
            "cannot write {}: the directory {} does not exist",
            path.display(),
            dir.display()
        )))
    }
}

/// Writes `path` through a buffered writer filled by `fill`.
pub fn write_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let file = File::create(path).map_err(|e| io_error("create", path, e))?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    fill(&mut w).map_err(|e| io_error("write", path, e))?;
    w.flush().map_err(|e| io_error("write", path, e))
}

/// A number the dump formats hold little-endian (`.dist` f32, `.level`
/// i64, component labels u32, PageRank and betweenness scores f64).
pub trait LittleEndian: Copy {
    /// Writes the value's little-endian bytes.
    fn put(self, w: &mut dyn Write) -> std::io::Result<()>;
}

macro_rules! little_endian {
    ($($t:ty),*) => {$(
        impl LittleEndian for $t {
            fn put(self, w: &mut dyn Write) -> std::io::Result<()> {
                w.write_all(&self.to_le_bytes())
            }
        }
    )*};
}
little_endian!(u32, u64, i64, f32, f64);

/// Writes `xs` to `path` as consecutive little-endian values, no header.
pub fn write_le<T: LittleEndian>(path: &Path, xs: &[T]) -> Result<()> {
    write_with(path, |w| xs.iter().try_for_each(|&x| x.put(w)))
}

/// After a dump indexed by dense vertex number was written to `dump`: when
/// the graph's dense ids are not the input file's (a 1-based or renumbered
/// file), writes the `DUMP.ids` sidecar (the file id of each entry, N x u64
/// little-endian) and says so on stderr; otherwise writes nothing.
pub fn write_ids_sidecar(dump: &Path, ids: &IdMap, num_vertices: u64) -> Result<()> {
    if ids.is_identity() {
        return Ok(());
    }
    let mut side = dump.as_os_str().to_owned();
    side.push(".ids");
    let side = std::path::PathBuf::from(side);
    write_with(&side, |w| {
        (0..num_vertices).try_for_each(|v| w.write_all(&ids.file_id(v).to_le_bytes()))
    })?;
    eprintln!(
        "note: {} is indexed by dense vertex number; {} holds each entry's id in the input file (N x u64)",
        dump.display(),
        side.display()
    );
    Ok(())
}
