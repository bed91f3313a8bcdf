//! `gossamer-graph convert IN -o OUT`: another tool's graph file (text
//! edge list, Matrix Market, DIMACS, GAPBS serialized) into a
//! gossamer-graph file that later runs memory-map; with `--built`, any of
//! those or a gossamer-graph file into a built graph file
//! ([`graph_core::io::built`]) that later runs map instead of building.
//! `gossamer-graph verify FILE` checks a built file whole.
//!
//! The reading is `graph_core::io::formats`; this module picks the format,
//! checks the output path first, and writes through the graph-file writer
//! (a temporary file renamed into place), so nothing is written unless the
//! whole input was read.

use std::time::Instant;

use graph_core::io::formats::{self, Format};
use graph_core::io::{built, file};
use graph_core::{EdgeList, GraphMeta};

use crate::args::{ConvertArgs, VerifyArgs};
use crate::error::{CliError, Result};
use crate::graph;
use crate::progress::Progress;
use crate::runtime;

/// Runs the `convert` command.
pub fn run(args: &ConvertArgs) -> Result<()> {
    if args.built && args.format.is_none() && is_graph_file(&args.input) {
        return from_graph_file(args);
    }
    let format = match args.format {
        Some(f) => f.format(),
        None => Format::from_path(&args.input).ok_or_else(|| {
            CliError::new(format!(
                "cannot tell the format of {} from its extension: name it .el, .wel, .mtx, .gr, .sg or .wsg, or pass --format el|wel|mtx|gr|sg|wsg",
                args.input.display()
            ))
        })?,
    };
    if same_file(&args.input, &args.output) {
        return Err(CliError::new(format!(
            "the output {} is the input: choose another -o path",
            args.output.display()
        )));
    }
    // Refuse a bad target before reading a possibly large input.
    crate::files::check_writable(&args.output)?;
    file::check_write_target(&args.output)?;
    runtime::threads(args.threads)?;
    let opts = formats::ReadOptions {
        directed: if args.directed {
            Some(true)
        } else if args.undirected {
            Some(false)
        } else {
            None
        },
        ignore_weights: args.ignore_weights,
    };
    let start = Instant::now();
    let read = graph::read_foreign(&args.input, format, &opts)?;
    let read_time = start.elapsed().as_secs_f64();
    let start = Instant::now();
    if args.built {
        return write_built(args, &read.edges, &read.meta, &[], None, read_time);
    }
    let bar = Progress::spinner("writing");
    let written = file::write_graph(&args.output, &read.edges, &[], &read.meta);
    bar.finish();
    written?;
    let ids = match read.meta.ids.table() {
        Some(_) => ", ids renumbered (the file keeps the input's ids)",
        None => "",
    };
    eprintln!(
        "converted {} (.{format}): {} vertices, {} edges, {}{ids}; read in {read_time:.3} s, written to {} in {:.3} s",
        args.input.display(),
        read.edges.num_vertices(),
        read.edges.num_edges(),
        read.meta.describe(),
        args.output.display(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Whether `path` is a gossamer-graph file (by its magic).
fn is_graph_file(path: &std::path::Path) -> bool {
    let mut magic = [0u8; 8];
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
        && std::fs::File::open(path)
            .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic))
            .is_ok()
        && magic == file::MAGIC
}

/// `convert GRAPH.ggraph --built -o OUT`: the graph file (verified whole),
/// its roots and its checksum kept.
fn from_graph_file(args: &ConvertArgs) -> Result<()> {
    if args.directed || args.undirected || args.ignore_weights {
        return Err(CliError::new(
            "--directed, --undirected and --ignore-weights are for another tool's format; a gossamer-graph file says what it is",
        ));
    }
    if same_file(&args.input, &args.output) {
        return Err(CliError::new(format!(
            "the output {} is the input: choose another -o path",
            args.output.display()
        )));
    }
    crate::files::check_writable(&args.output)?;
    file::check_write_target(&args.output)?;
    runtime::threads(args.threads)?;
    let start = Instant::now();
    let bar = Progress::spinner("reading");
    let g = file::open(&args.input);
    bar.finish();
    let g = g?;
    let read_time = start.elapsed().as_secs_f64();
    let sum = g.header().data_checksum;
    write_built(
        args,
        &g.edge_list(),
        g.meta(),
        g.roots(),
        Some(sum),
        read_time,
    )
}

/// Writes the built file of `list` and says what was written.
fn write_built(
    args: &ConvertArgs,
    list: &EdgeList<'_>,
    meta: &GraphMeta,
    roots: &[u64],
    source: Option<u64>,
    read_time: f64,
) -> Result<()> {
    let start = Instant::now();
    let bar = Progress::spinner("building and writing");
    let written = built::write(&args.output, list, meta, roots, source);
    bar.finish();
    let h = written.map_err(|e| CliError::new(e.to_string()))?;
    eprintln!(
        "built {}: {} vertices, {} edges ({} row entries), {}; read in {read_time:.3} s, built and written to {} in {:.3} s",
        args.input.display(),
        h.num_vertices,
        h.num_edges,
        h.entries,
        meta.describe(),
        args.output.display(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Runs the `verify` command: the built file checked whole.
pub fn verify(args: &VerifyArgs) -> Result<()> {
    let start = Instant::now();
    let g = built::open(&args.file).map_err(|e| CliError::new(e.to_string()))?;
    let bar = Progress::spinner("verifying");
    let checked = g.verify();
    bar.finish();
    checked.map_err(|e| CliError::new(e.to_string()))?;
    let h = g.header();
    println!(
        "{}: a sound built graph file: {} vertices, {} edges ({} row entries), {}; checked in {:.3} s",
        args.file.display(),
        h.num_vertices,
        h.num_edges,
        h.entries,
        g.meta().describe(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// True when both paths name the same existing file.
fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}
