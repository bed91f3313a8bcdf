//! Files the command writes: the early checks of an output (its directory
//! exists; the path is not a link or another thing an output must not
//! replace), the writer every output but the graph file goes through
//! ([`graph_core::io::output`]: a file replaced whole or not at all, a FIFO
//! or device streamed, a link refused), and the binary arrays in the
//! reference vectors' formats.

use std::io::Write;
use std::path::{Path, PathBuf};

use graph_core::io::output::{self, Output};
use graph_core::meta::IdMap;

use crate::error::{CliError, Result};

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
        Err(CliError::new(format!(
            "cannot write {}: the directory {} does not exist",
            path.display(),
            dir.display()
        )))
    }
}

/// [`check_writable`], and that `path` is something an output may be
/// written to (see [`graph_core::io::output::check`]): fails before the
/// work, not after it.
pub fn check_output(path: &Path) -> Result<()> {
    check_writable(path)?;
    output::check(path).map_err(|e| CliError::new(e.to_string()))?;
    Ok(())
}

fn output_error(e: output::OutputError) -> CliError {
    CliError::new(e.to_string())
}

/// Writes `path` through a buffered writer filled by `fill`: a file whole
/// or not at all, a stream in place, never through a link.
pub fn write_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    output::write(path, fill).map_err(output_error)?;
    Ok(())
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

/// The `DUMP.ids` sidecar of the dump `dump`.
pub fn sidecar_path(dump: &Path) -> PathBuf {
    let mut side = dump.as_os_str().to_owned();
    side.push(".ids");
    PathBuf::from(side)
}

/// Whether a dump to `dump` of a graph with these ids gets a sidecar: when
/// the graph's dense ids are not the input file's (a 1-based or renumbered
/// file), unless the dump goes to one of this process's streams
/// (`/dev/stdout`), beside which no file can be put.
fn wants_sidecar(dump: &Path, ids: &IdMap) -> bool {
    !ids.is_identity() && !output::is_standard_stream(dump)
}

/// Fails early when the dump `dump` of a graph with these ids would need a
/// sidecar that cannot be written (a link planted at `DUMP.ids`).
pub fn check_sidecar(dump: &Path, ids: &IdMap) -> Result<()> {
    if wants_sidecar(dump, ids) {
        output::check(sidecar_path(dump)).map_err(output_error)?;
    }
    Ok(())
}

/// Writes a dump indexed by dense vertex number, `xs` as consecutive
/// little-endian values, to `dump`; when the graph's dense ids are not the
/// input file's, also the `DUMP.ids` sidecar (the file id of each entry,
/// N x u64 little-endian), and says so on stderr. Both are written in full
/// before either is put in place, so a failure (a full disk, a link) leaves
/// the old files as they were. A dump to a stream is written as it goes.
pub fn write_dump<T: LittleEndian>(dump: &Path, xs: &[T], ids: &IdMap) -> Result<()> {
    let main =
        Output::write(dump, |w| xs.iter().try_for_each(|&x| x.put(w))).map_err(output_error)?;
    if ids.is_identity() {
        return main.commit().map_err(output_error);
    }
    if !wants_sidecar(dump, ids) {
        main.commit().map_err(output_error)?;
        eprintln!(
            "note: {} is indexed by dense vertex number, which differs from the input file's ids; no ids sidecar is written beside a stream: dump to a file to get DUMP.ids with each entry's file id",
            dump.display()
        );
        return Ok(());
    }
    let side = sidecar_path(dump);
    let n = xs.len() as u64;
    let sidecar = Output::write(&side, |w| {
        (0..n).try_for_each(|v| w.write_all(&ids.file_id(v).to_le_bytes()))
    })
    .map_err(output_error)?;
    main.commit().map_err(output_error)?;
    sidecar.commit().map_err(output_error)?;
    eprintln!(
        "note: {} is indexed by dense vertex number; {} holds each entry's id in the input file (N x u64)",
        dump.display(),
        side.display()
    );
    Ok(())
}
