//! Benchmark of betweenness centrality and triangle counting on the
//! graph-kernel API, on Graph500 Kronecker graphs.
//!
//! For each scale: generates the graph (generators crate, the reference's
//! seeds), builds the ShardedGraph over T threads, prepares graph-kernel's
//! renumbered rows once (timed apart: the kernels' times exclude it, as
//! GAPBS times the kernel and not its graph's construction), runs each
//! kernel R times (bc from the first 4 Graph500 search roots, both with
//! their default configs), verifies every result (`bc::verify_bc`,
//! `tc::verify_tc`) and prints one table row per scale and kernel: median,
//! minimum and maximum kernel time, records sent between trustees, and the
//! sequential reference's time on one thread for context.
//!
//! ```text
//! cargo run --release -p tc --example bc_tc -- --scale 16,18,20 --threads 2 --reps 3 \
//!     [--kind cyclic|block] [--slot 65536] [--kernels bc,tc]
//! ```

use std::time::Instant;

use generators::{Graph500Config, Kronecker};
use graph_core::sharded::ShardedGraph;
use graph_core::{EdgeList, Graph500Params, PackedEdge, PartitionKind};

struct Args {
    scales: Vec<u32>,
    threads: usize,
    reps: usize,
    kind: PartitionKind,
    slot: usize,
    bc: bool,
    tc: bool,
}

fn parse() -> Result<Args, String> {
    let mut a = Args {
        scales: vec![16],
        threads: 2,
        reps: 3,
        kind: PartitionKind::Cyclic,
        slot: 64 * 1024,
        bc: true,
        tc: true,
    };
    let mut it = std::env::args().skip(1);
    while let Some(k) = it.next() {
        let v = it.next().ok_or(format!("{k} needs a value"))?;
        let bad = |e: &dyn std::fmt::Display| format!("{k} {v}: {e}");
        match k.as_str() {
            "--scale" => {
                a.scales = v
                    .split(',')
                    .map(|s| s.parse().map_err(|e| bad(&e)))
                    .collect::<Result<_, _>>()?
            }
            "--threads" => a.threads = v.parse().map_err(|e| bad(&e))?,
            "--reps" => a.reps = v.parse().map_err(|e| bad(&e))?,
            "--slot" => a.slot = v.parse().map_err(|e| bad(&e))?,
            "--kernels" => {
                a.bc = v.split(',').any(|x| x == "bc");
                a.tc = v.split(',').any(|x| x == "tc");
            }
            "--kind" => {
                a.kind = match v.as_str() {
                    "block" => PartitionKind::Block,
                    "cyclic" => PartitionKind::Cyclic,
                    _ => return Err(bad(&"expected block or cyclic")),
                }
            }
            _ => return Err(format!("unknown option {k} (see the example's docs)")),
        }
    }
    if a.reps == 0 || a.threads == 0 {
        return Err("--reps and --threads must be at least 1".into());
    }
    Ok(a)
}

/// (median, min, max) of the seconds.
fn spread(xs: &mut [f64]) -> (f64, f64, f64) {
    xs.sort_by(f64::total_cmp);
    (xs[xs.len() / 2], xs[0], xs[xs.len() - 1])
}

fn main() {
    let args = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    println!(
        "| scale | kernel | threads | median time (s) | min-max (s) | result | records sent | sequential 1-thread (s) |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for &scale in &args.scales {
        let gen = Kronecker::new(Graph500Config::with_scale(scale)).expect("valid scale");
        let mut list = EdgeList::zeroed(Graph500Params::reference(scale)).expect("fits");
        gen.par_map_into(0, list.edges_mut(), |e| {
            PackedEdge::from_wide(e.u, e.v, e.w)
        });
        // The reference's roots: vertices with an edge of the generator.
        let live = gen.non_isolated();
        let sources = gen.search_roots(4, |v| live.contains(v));
        let list = std::sync::Arc::new(list);
        let (l2, kind, reps, src) = (list.clone(), args.kind, args.reps, sources.clone());
        let (do_bc, do_tc) = (args.bc, args.tc);
        let (bcs, tcs, prepared) = gossamer::Runtime::builder()
            .threads(args.threads)
            .slot_size(args.slot)
            .run(move || {
                let g = ShardedGraph::build(&l2, kind).expect("shardable");
                let t = Instant::now();
                graph_kernel::prepare(&g, graph_kernel::Prepare::Rows);
                let prepared = t.elapsed().as_secs_f64();
                let mut bcs = vec![];
                let mut tcs = vec![];
                // Alternate the kernels, so that load changes hit both.
                for _ in 0..reps {
                    if do_bc {
                        bcs.push(bc::bc(&g, &src, &Default::default()).expect("bc runs"));
                    }
                    if do_tc {
                        tcs.push(tc::tc(&g, &Default::default()).expect("tc runs"));
                    }
                }
                (bcs, tcs, prepared)
            })
            .expect("runtime");
        println!(
            "| {scale} | rows prepared (once per graph) | {} | {prepared:.4} | | | | |",
            args.threads
        );
        if do_bc {
            let t = Instant::now();
            let _ = bc::bc_sequential(&list, &sources).expect("valid");
            let seq = t.elapsed().as_secs_f64();
            for o in &bcs {
                bc::verify_bc(&list, &sources, &o.scores).unwrap_or_else(|e| {
                    eprintln!("scale {scale} bc: VERIFICATION FAILED: {e}");
                    std::process::exit(1)
                });
            }
            let mut t: Vec<f64> = bcs.iter().map(|o| o.kernel_time.as_secs_f64()).collect();
            let (m, lo, hi) = spread(&mut t);
            println!(
                "| {scale} | bc (4 sources, levels {:?}) | {} | {m:.4} | {lo:.4}-{hi:.4} | verified | {} | {seq:.4} |",
                bcs[0].levels, args.threads, bcs[0].records,
            );
        }
        if do_tc {
            let t = Instant::now();
            let want = tc::tc_sequential(&list).expect("valid");
            let seq = t.elapsed().as_secs_f64();
            for o in &tcs {
                assert_eq!(o.triangles, want, "scale {scale}: tc differs");
            }
            tc::verify_tc(&list, want).unwrap_or_else(|e| {
                eprintln!("scale {scale} tc: VERIFICATION FAILED: {e}");
                std::process::exit(1)
            });
            let mut t: Vec<f64> = tcs.iter().map(|o| o.kernel_time.as_secs_f64()).collect();
            let (m, lo, hi) = spread(&mut t);
            let mut c: Vec<f64> = tcs.iter().map(|o| o.count_time.as_secs_f64()).collect();
            let (mc, _, _) = spread(&mut c);
            println!(
                "| {scale} | tc (count alone: {mc:.4} s) | {} | {m:.4} | {lo:.4}-{hi:.4} | {want} triangles | {} | {seq:.4} |",
                args.threads, tcs[0].records,
            );
        }
    }
}
