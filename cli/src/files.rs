//! Files the command writes: the early check that an output's directory
//! exists, a buffered writer, and the binary arrays in the reference
//! vectors' formats.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

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

/// `xs` as little-endian `f32`s (the `.dist` and `.weights` formats).
pub fn write_f32s(path: &Path, xs: &[f32]) -> Result<()> {
    write_with(path, |w| {
        xs.iter().try_for_each(|x| w.write_all(&x.to_le_bytes()))
    })
}

/// `xs` as little-endian `i64`s (the `.level` format).
pub fn write_i64s(path: &Path, xs: &[i64]) -> Result<()> {
    write_with(path, |w| {
        xs.iter().try_for_each(|x| w.write_all(&x.to_le_bytes()))
    })
}
