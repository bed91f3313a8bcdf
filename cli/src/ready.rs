//! `gossamer-graph ready BUILT --threads W`: writes the built file's ready
//! rows for runs of `W` trustees (block partition), `BUILT.w<W>.ready`
//! ([`graph_core::io::built::ReadyRows`]): every trustee's rows as the
//! kernels' own preparation leaves them (BFS's unweighted rows, SSSP's
//! split at the graph's default Δ), made by that preparation, so a later
//! run of that layout maps them instead of preparing.

use std::time::Instant;

use graph_core::io::built::{self, ready_path, write_ready, ReadyPart, ReadyShape, Weights};
use graph_core::sharded::ShardedGraph;
use graph_core::PartitionKind;
use graph_kernel::{run, Prepare, Program};

use crate::args::ReadyArgs;
use crate::error::{CliError, Result};
use crate::progress::Progress;

/// One trustee's part as the kernels left it, and the flat ids' count.
struct Part(ReadyPart, u32);

impl Program for Part {
    type Msg = u32;
    fn receive(&mut self, _: u32, _: u32) -> bool {
        false
    }
}

/// Runs the `ready` command.
pub fn run_ready(args: &ReadyArgs) -> Result<()> {
    let start = Instant::now();
    let g = built::open(&args.file).map_err(|e| CliError::new(e.to_string()))?;
    if g.header().directed {
        return Err(CliError::new(
            "ready rows are for undirected graphs in this version (a directed graph's runs prepare their rows from the built file)",
        ));
    }
    let threads = args.threads.unwrap_or_else(crate::runtime::default_threads);
    let weighted = g.header().weighted;
    let out = ready_path(&args.file, threads as u32);
    let path = std::path::absolute(&args.file).unwrap_or_else(|_| args.file.clone());
    let bar = Progress::spinner("preparing the rows");
    let made = gossamer::main(threads, move || -> std::result::Result<_, String> {
        let (graph, _) = ShardedGraph::open_built(&path, PartitionKind::Block, Weights::Skip)
            .map_err(|e| e.to_string())?;
        graph_kernel::prepare(&graph, Prepare::Rows);
        let parts: Vec<(ReadyPart, u32)> = run(
            &graph,
            |s, _: Option<Part>| {
                let a = s.adjacency().clone();
                let (start, distinct, targets, merged) = s
                    .rows()
                    .stored_parts()
                    .expect("plain rows in an unweighted shard are its own");
                let p = ReadyPart {
                    base: a.base(a.me() as usize),
                    flat: (0..a.num_own()).map(|l| a.flat(a.position(l))).collect(),
                    start: start.to_vec(),
                    distinct: distinct.to_vec(),
                    targets: targets.to_vec(),
                    merged,
                    split: None,
                };
                Part(p, a.num_flat())
            },
            |k| k.with_returning(|l| (std::mem::take(&mut l.state().0), l.state().1)),
        );
        let num_flat = parts.first().map_or(0, |p| p.1);
        let mut parts: Vec<ReadyPart> = parts.into_iter().map(|p| p.0).collect();
        drop(graph);
        if !weighted {
            return Ok((parts, num_flat, 0.0, (1.0, 1.0)));
        }
        // SSSP's split, in place, at the Δ a run derives by default.
        let (graph, _) = ShardedGraph::open_built(&path, PartitionKind::Block, Weights::Stored)
            .map_err(|e| e.to_string())?;
        let profile = graph.weight_profile();
        let delta = sssp::derived_delta(&profile);
        graph.mark_rows_rewritten("ready rows");
        graph_kernel::prepare(&graph, Prepare::Renumbering);
        let splits = run(
            &graph,
            move |s, _: Option<Part>| {
                let a = s.adjacency().clone();
                let lh = a.light_heavy(s.shard_mut(), delta, true);
                let spans = lh.stored_spans().map(<[u64]>::to_vec);
                let sh = s.shard();
                let split = spans.map(|sp| (sh.targets().to_vec(), sh.weights().to_vec(), sp));
                Part(
                    ReadyPart {
                        split,
                        ..ReadyPart::default()
                    },
                    0,
                )
            },
            |k| k.with_returning(|l| std::mem::take(&mut l.state().0).split),
        );
        for (p, s) in parts.iter_mut().zip(splits) {
            p.split = Some(s.ok_or("a row too long for the ready format")?);
        }
        Ok((parts, num_flat, delta, (profile.min, profile.max)))
    });
    bar.finish();
    let (parts, num_flat, delta, weights) = made.map_err(CliError::new)?;
    let shape = ReadyShape {
        num_flat,
        delta,
        weights,
    };
    write_ready(&out, &g, &parts, shape).map_err(|e| CliError::new(e.to_string()))?;
    println!(
        "wrote {}: the rows of {} for {threads} trustees (block partition){}, in {:.3} s; runs of that layout map them instead of preparing",
        out.display(),
        args.file.display(),
        if weighted {
            format!(", SSSP's split at delta {delta}")
        } else {
            String::new()
        },
        start.elapsed().as_secs_f64()
    );
    Ok(())
}
