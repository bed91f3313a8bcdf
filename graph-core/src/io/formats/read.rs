//! Reading an input: [`read`] maps the file, [`parse`] picks the reader
//! for its format, settles directedness and renumbers the ids.

use std::path::Path;

use super::error::{invalid, FormatError};
use super::format::{Format, ReadOptions};
use super::{gapbs, renumber, text};
use crate::edge_list::EdgeList;
use crate::meta::{GraphMeta, IdMap};

/// An input read: its edges and what they mean.
#[derive(Debug)]
pub struct Converted {
    /// Dense ids `0..n`; unweighted graphs carry weight 1.0.
    pub edges: EdgeList<'static>,
    /// Directed, weighted, the file's ids.
    pub meta: GraphMeta,
    /// Remarks for the user (e.g. the header overrode `--directed`).
    pub notes: Vec<String>,
}

/// Reads the file at `path` in `format`. `progress` is called now and then
/// (from worker threads) with the number of input bytes parsed so far.
pub fn read(
    path: &Path,
    format: Format,
    opts: &ReadOptions,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Converted, FormatError> {
    use std::os::unix::fs::OpenOptionsExt;
    let io_err = |action: &'static str| {
        move |source| FormatError::Io {
            path: path.to_path_buf(),
            action,
            source,
        }
    };
    // As the graph-file reader: only a regular file (a FIFO would block, a
    // device might never end).
    let meta = std::fs::metadata(path).map_err(io_err("read"))?;
    if !meta.is_file() {
        return Err(FormatError::NotARegularFile {
            path: path.to_path_buf(),
        });
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(io_err("open"))?;
    let meta = file.metadata().map_err(io_err("inspect"))?;
    if !meta.is_file() {
        return Err(FormatError::NotARegularFile {
            path: path.to_path_buf(),
        });
    }
    if meta.len() == 0 {
        return parse(&[], format, opts, progress);
    }
    let map = crate::mapped::map_input(&file).map_err(io_err("map"))?;
    parse(&map, format, opts, progress)
}

/// Parses an input held in memory (or mapped); see [`read`].
pub fn parse(
    bytes: &[u8],
    format: Format,
    opts: &ReadOptions,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Converted, FormatError> {
    let mut notes = Vec::new();
    let read = match format {
        Format::Sg | Format::Wsg => gapbs::parse(bytes, format == Format::Wsg, opts, progress)?,
        _ => text::parse(bytes, format, opts, progress)?,
    };
    // Whose word decides directedness: the file's, then the caller's.
    let directed = match (read.file_undirected, opts.directed) {
        (true, Some(true)) => {
            notes.push(format!(
                "the {} file declares the graph undirected ({}): read as undirected although --directed was given",
                format.name(),
                read.why_undirected
            ));
            false
        }
        (true, _) => false,
        (false, d) => d.unwrap_or(true),
    };
    if read.num_vertices.is_none() && read.edges.iter().all(|c| c.len() == 0) {
        return Err(invalid(format!(
            "the input has no edges (only comments or blank lines, or nothing): nothing to convert; is it a .{} file?",
            format.name()
        )));
    }
    let weighted = read.weighted && !opts.ignore_weights;
    let (edges, ids) = renumber::finish(read.edges, read.num_vertices, format.base())?;
    if !read.weighted && opts.ignore_weights {
        notes.push(format!(
            "--ignore-weights: the {} input has no weights anyway",
            format.name()
        ));
    }
    if let IdMap::Table(t) = &ids {
        notes.push(format!(
            "vertex ids renumbered densely: {} distinct ids between {} and {} became 0..={} (the graph keeps the file's ids for --root and reports)",
            t.len(),
            t.first().copied().unwrap_or(0),
            t.last().copied().unwrap_or(0),
            t.len().saturating_sub(1)
        ));
    }
    Ok(Converted {
        edges,
        meta: GraphMeta {
            directed,
            weighted,
            ids,
        },
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_input_without_edges_is_refused_unless_its_header_declares_vertices() {
        let none = |text: &[u8], f| parse(text, f, &ReadOptions::default(), &|_| {});
        for text in [&b""[..], b"# only a comment\n\n"] {
            let e = none(text, Format::El).unwrap_err().to_string();
            assert!(e.starts_with("the input has no edges"), "{e}");
        }
        // A Matrix Market file declaring 3 vertices and no entries is a graph.
        let g = none(
            b"%%MatrixMarket matrix coordinate pattern general\n3 3 0\n",
            Format::Mtx,
        )
        .unwrap();
        assert_eq!(g.edges.num_vertices(), 3);
    }
}
