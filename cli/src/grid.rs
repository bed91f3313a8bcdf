//! `gossamer-graph generate --kind grid`: a road-like grid
//! ([`generators::Grid`]) into a graph file, a DIMACS `.gr` file and/or
//! its roots as text.

use std::path::Path;
use std::time::Instant;

use generators::{Grid, GridConfig};
use graph_core::alloc::try_vec;
use graph_core::io::file;
use graph_core::{EdgeList, GraphMeta, PackedEdge};

use crate::args::{GenerateArgs, GRID_REMOVED, GRID_SEED, GRID_WEIGHTS};
use crate::error::{CliError, Result};
use crate::files::{self, write_with};
use crate::graph::GRAPH500_ROOTS;
use crate::memcheck::check_graph_memory;
use crate::progress::Progress;
use crate::runtime;

/// The grid `args` ask for, checked; the Kronecker-only options refused.
fn config(args: &GenerateArgs) -> Result<Grid> {
    let only_kronecker = [
        (args.scale.is_some(), "--scale"),
        (args.edges_out.is_some(), "--edges-out"),
        (args.weights_out.is_some(), "--weights-out"),
        (args.construct, "--construct"),
    ];
    if let Some((_, name)) = only_kronecker.iter().find(|(given, _)| *given) {
        return Err(CliError::new(format!(
            "{name} is for --kind kronecker; a grid takes --rows, --cols, --removed, --weights, --seed and --directed"
        )));
    }
    let (Some(rows), Some(cols)) = (args.rows, args.cols) else {
        return Err(CliError::new(
            "--kind grid needs its size: --rows R --cols C (e.g. --rows 2048 --cols 2048)",
        ));
    };
    let cfg = GridConfig {
        rows,
        cols,
        removed: args.removed.unwrap_or(GRID_REMOVED),
        weights: args.weights.unwrap_or(GRID_WEIGHTS),
        seed: args.seed.unwrap_or(GRID_SEED),
        directed: args.directed,
    };
    Grid::new(cfg).map_err(|e| CliError::new(format!("--kind grid: {e}")))
}

/// Runs `generate --kind grid`.
pub fn run(args: &GenerateArgs) -> Result<()> {
    let grid = config(args)?;
    if args.output.is_none() && args.dimacs_out.is_none() && args.roots_out.is_none() {
        return Err(CliError::new(
            "nothing to write: give at least one of -o FILE (graph file), --dimacs-out FILE or --roots-out FILE",
        ));
    }
    if let Some(path) = &args.output {
        files::check_writable(path)?;
        file::check_write_target(path)?;
    }
    for path in [&args.dimacs_out, &args.roots_out].into_iter().flatten() {
        files::check_output(path)?;
    }
    let threads = runtime::threads(args.threads)?;
    let per_street = if args.directed { 2 } else { 1 };
    // Before the removals are drawn: the most records there can be.
    check_graph_memory(
        grid.num_vertices(),
        grid.num_streets() * per_street,
        threads,
        args.force,
    )?;
    let start = Instant::now();
    let layout = grid.layout(threads);
    let len = usize::try_from(layout.total())
        .map_err(|_| CliError::new("the grid's records do not fit this machine's memory"))?;
    let mut edges = try_vec(len, PackedEdge::new(0, 0, 0.0), "the grid's edge records")
        .map_err(|e| CliError::new(e.to_string()))?;
    grid.fill(&layout, &mut edges, |e| {
        PackedEdge::new(e.u, e.v, e.w as f32)
    });
    let list = EdgeList::from_edges(grid.num_vertices(), edges)?;
    let gen_time = start.elapsed().as_secs_f64();
    let cfg = grid.config();
    eprintln!(
        "generated grid {} x {} ({} of the streets removed at random, lengths {}..{}, seed {}, {}): {} vertices, {} {} in {gen_time:.3} s",
        cfg.rows,
        cfg.cols,
        cfg.removed,
        cfg.weights.0,
        cfg.weights.1,
        cfg.seed,
        if cfg.directed { "two arcs per street" } else { "undirected" },
        list.num_vertices(),
        list.num_edges(),
        if cfg.directed { "arcs" } else { "edges" },
    );
    let roots = if args.output.is_some() || args.roots_out.is_some() {
        grid.search_roots(GRAPH500_ROOTS)
    } else {
        Vec::new()
    };
    if let Some(path) = &args.output {
        let meta = GraphMeta {
            directed: cfg.directed,
            ..GraphMeta::default()
        };
        let bar = Progress::spinner("writing");
        let written = file::write_graph(path, &list, &roots, &meta);
        bar.finish();
        written?;
    }
    if let Some(path) = &args.dimacs_out {
        write_dimacs(path, &grid, &list)?;
    }
    if let Some(path) = &args.roots_out {
        write_with(path, |w| roots.iter().try_for_each(|r| writeln!(w, "{r}")))?;
    }
    Ok(())
}

/// Appends `x` in decimal.
fn push_decimal(buf: &mut Vec<u8>, mut x: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (x % 10) as u8;
        x /= 10;
        if x == 0 {
            break;
        }
    }
    buf.extend_from_slice(&digits[i..]);
}

/// The grid as a DIMACS shortest-path file: comments saying what it is,
/// `p sp N M`, then one `a u v w` line per record (1-based ids, integer
/// lengths).
fn write_dimacs(path: &Path, grid: &Grid, list: &EdgeList<'_>) -> Result<()> {
    let cfg = grid.config();
    let bar = Progress::spinner("writing DIMACS");
    let written = write_with(path, |w| {
        writeln!(
            w,
            "c gossamer-graph generate --kind grid --rows {} --cols {} --removed {} --weights {}..{} --seed {}{}",
            cfg.rows,
            cfg.cols,
            cfg.removed,
            cfg.weights.0,
            cfg.weights.1,
            cfg.seed,
            if cfg.directed { " --directed" } else { "" }
        )?;
        if cfg.directed {
            writeln!(w, "c each street as two arcs: a directed graph")?;
        } else {
            writeln!(
                w,
                "c each street once: read as undirected (--undirected; GAPBS converter -s)"
            )?;
        }
        writeln!(w, "p sp {} {}", list.num_vertices(), list.num_edges())?;
        let mut buf = Vec::with_capacity(1 << 20);
        for e in list.edges() {
            buf.extend_from_slice(b"a ");
            push_decimal(&mut buf, u64::from(e.u) + 1);
            buf.push(b' ');
            push_decimal(&mut buf, u64::from(e.v) + 1);
            buf.push(b' ');
            push_decimal(&mut buf, e.w as u64);
            buf.push(b'\n');
            if buf.len() > (1 << 20) - 64 {
                w.write_all(&buf)?;
                buf.clear();
            }
        }
        w.write_all(&buf)
    });
    bar.finish();
    written
}

#[cfg(test)]
mod tests {
    use super::push_decimal;

    #[test]
    fn decimals_are_written_as_text() {
        let mut buf = Vec::new();
        for x in [0, 7, 10, 1000, u64::from(u32::MAX) + 1, u64::MAX] {
            buf.clear();
            push_decimal(&mut buf, x);
            assert_eq!(String::from_utf8(buf.clone()).unwrap(), x.to_string());
        }
    }
}
