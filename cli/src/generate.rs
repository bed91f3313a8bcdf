//! `gossamer-graph generate`: the Graph500 graph into a graph file and/or
//! the reference vectors' cross-check files; `--kind grid` goes to
//! [`crate::grid`].

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use graph_core::io::file;
use graph_core::EdgeList;

use crate::args::{GenerateArgs, GraphKind};
use crate::error::{CliError, Result};
use crate::files::{self, write_with};
use crate::graph::{self, GRAPH500_ROOTS};
use crate::progress::Progress;
use crate::runtime;

/// Runs the `generate` command.
pub fn run(args: &GenerateArgs) -> Result<()> {
    if args.kind == GraphKind::Grid {
        if args.built {
            return Err(CliError::new(
                "--built writes the Kronecker graph; write the grid with -o FILE.ggraph, then `gossamer-graph convert FILE.ggraph --built -o OUT`",
            ));
        }
        return crate::grid::run(args);
    }
    let only_grid = [
        (args.rows.is_some(), "--rows"),
        (args.cols.is_some(), "--cols"),
        (args.removed.is_some(), "--removed"),
        (args.weights.is_some(), "--weights"),
        (args.seed.is_some(), "--seed"),
        (args.directed, "--directed"),
        (args.dimacs_out.is_some(), "--dimacs-out"),
    ];
    if let Some((_, name)) = only_grid.iter().find(|(given, _)| *given) {
        return Err(CliError::new(format!(
            "{name} is for --kind grid; the Kronecker graph takes --scale, --edgefactor, --seed1 and --seed2"
        )));
    }
    let Some(scale) = args.scale else {
        return Err(CliError::new(
            "generate needs --scale S for the Graph500 graph (2^S vertices), or --kind grid --rows R --cols C",
        ));
    };
    let outputs = [
        &args.output,
        &args.edges_out,
        &args.weights_out,
        &args.roots_out,
    ];
    if outputs.iter().all(|o| o.is_none()) && !args.construct {
        return Err(CliError::new(
            "nothing to write: give at least one of -o FILE (graph file), --edges-out FILE, --weights-out FILE or --roots-out FILE",
        ));
    }
    // The graph file replaces only a regular file; the cross-check outputs
    // may also be FIFOs or /dev/stdout, never links: refuse before
    // generating, not after.
    if let Some(path) = &args.output {
        files::check_writable(path)?;
        file::check_write_target(path)?;
    }
    for path in outputs[1..].iter().copied().flatten() {
        files::check_output(path)?;
    }
    let threads = runtime::threads(args.threads)?;
    let (list, kron, gen_time) = graph::generate(
        scale,
        args.edgefactor,
        args.seed1,
        args.seed2,
        threads,
        args.force,
    )?;
    eprintln!(
        "generated SCALE {} edgefactor {}: {} vertices, {} edges in {:.3} s",
        scale,
        args.edgefactor,
        list.num_vertices(),
        list.num_edges(),
        gen_time
    );
    let start = Instant::now();
    let roots = graph::graph500_roots(&kron, &list, GRAPH500_ROOTS);
    let roots_time = start.elapsed().as_secs_f64();
    if let Some(path) = &args.output {
        let bar = Progress::spinner("writing");
        let written = if args.built {
            graph_core::io::built::write(
                path,
                &list,
                &graph_core::GraphMeta::default(),
                &roots,
                None,
            )
            .map(|_| ())
            .map_err(|e| CliError::new(e.to_string()))
        } else {
            file::write_with_roots(path, &list, &roots).map_err(CliError::from)
        };
        bar.finish();
        written?;
    }
    if let Some(path) = &args.edges_out {
        write_edges(path, &list)?;
    }
    if let Some(path) = &args.weights_out {
        write_with(path, |w| {
            list.edges()
                .iter()
                .try_for_each(|e| w.write_all(&e.w.to_le_bytes()))
        })?;
    }
    if let Some(path) = &args.roots_out {
        write_with(path, |w| roots.iter().try_for_each(|r| writeln!(w, "{r}")))?;
    }
    if args.construct {
        construct(list, threads, gen_time, roots_time)?;
    }
    Ok(())
}

/// Edges as the reference vectors store them: `u64 src, u64 dst` LE.
fn write_edges(path: &Path, list: &EdgeList<'_>) -> Result<()> {
    write_with(path, |w| {
        list.edges().iter().try_for_each(|e| {
            w.write_all(&u64::from(e.u).to_le_bytes())?;
            w.write_all(&u64::from(e.v).to_le_bytes())
        })
    })
}

/// The measurement hook: builds the kernels' graph like a search run does.
fn construct(
    list: EdgeList<'static>,
    threads: usize,
    gen_time: f64,
    roots_time: f64,
) -> Result<()> {
    let list = Arc::new(list);
    let construction_time = runtime::run_local(threads, move || {
        crate::engine::construct_only(&list, graph_core::PartitionKind::Block)
    })?;
    eprintln!(
        "graph_generation: {gen_time:.6} s, root selection: {roots_time:.6} s, construction_time: {construction_time:.6} s ({threads} threads)"
    );
    Ok(())
}
