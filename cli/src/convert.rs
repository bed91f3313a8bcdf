//! `gossamer-graph convert IN -o OUT`: another tool's graph file (text
//! edge list, Matrix Market, DIMACS, GAPBS serialized) into a
//! gossamer-graph file that later runs memory-map.
//!
//! The reading is `graph_core::io::formats`; this module picks the format,
//! checks the output path first, and writes through the graph-file writer
//! (a temporary file renamed into place), so nothing is written unless the
//! whole input was read.

use std::time::Instant;

use graph_core::io::file;
use graph_core::io::formats::{self, Format};

use crate::args::ConvertArgs;
use crate::error::{CliError, Result};
use crate::graph;
use crate::progress::Progress;
use crate::runtime;

/// Runs the `convert` command.
pub fn run(args: &ConvertArgs) -> Result<()> {
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

/// True when both paths name the same existing file.
fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}
