//! Benchmark of the two graph-kernel examples, connected components and
//! PageRank, on Graph500 Kronecker graphs.
//!
//! For each scale: generates the graph (generators crate, the reference's
//! seeds), builds the ShardedGraph over T threads, runs each kernel R times,
//! verifies every result (components::verify_cc, pagerank::verify_pagerank) and prints
//! one table row per scale and kernel: median kernel time, supersteps
//! (CC's linking passes / PageRank's iterations), CSR entries per second per
//! superstep (entries = 2 x non-self-loop input edges; a PageRank iteration
//! reads all of them once merged, a CC pass far fewer — Afforest skips the
//! largest component — so for CC this is only a normalisation), records sent
//! between trustees, and the sequential reference's time on one thread for
//! context.
//!
//! ```text
//! cargo run --release -p pagerank --example cc_pagerank -- --scale 16,18,20 --threads 2 --reps 5 \
//!     [--kind cyclic|block] [--slot 65536]
//! ```

use std::time::Instant;

use components::{cc, cc_sequential, verify_cc, CcConfig};
use generators::{Graph500Config, Kronecker};
use graph_core::sharded::ShardedGraph;
use graph_core::{EdgeList, Graph500Params, PackedEdge, PartitionKind};
use pagerank::{pagerank, pagerank_sequential, verify_pagerank, PageRankConfig};

struct Args {
    scales: Vec<u32>,
    threads: usize,
    reps: usize,
    kind: PartitionKind,
    slot: usize,
}

fn parse() -> Result<Args, String> {
    let mut a = Args {
        scales: vec![16],
        threads: 2,
        reps: 5,
        kind: PartitionKind::Cyclic,
        slot: 64 * 1024,
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

fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
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
        "| scale | kernel | threads | median time (s) | supersteps | M entries/s per superstep | records sent | sequential 1-thread (s) |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for &scale in &args.scales {
        let gen = Kronecker::new(Graph500Config::with_scale(scale)).expect("valid scale");
        let mut list = EdgeList::zeroed(Graph500Params::reference(scale)).expect("fits");
        gen.par_map_into(0, list.edges_mut(), |e| {
            PackedEdge::from_wide(e.u, e.v, e.w)
        });
        let entries = 2 * list.count_non_loops();
        let list = std::sync::Arc::new(list);
        let (l2, kind, reps) = (list.clone(), args.kind, args.reps);
        let outs = gossamer::Runtime::builder()
            .threads(args.threads)
            .slot_size(args.slot)
            .run(move || {
                let g = ShardedGraph::build(&l2, kind).expect("shardable");
                let ccs: Vec<_> = (0..reps)
                    .map(|_| cc(&g, &CcConfig::default()).expect("cc runs"))
                    .collect();
                let prs: Vec<_> = (0..reps)
                    .map(|_| pagerank(&g, &PageRankConfig::default()).expect("pagerank runs"))
                    .collect();
                (ccs, prs)
            })
            .expect("runtime");
        let (ccs, prs) = outs;
        let t = Instant::now();
        let want_cc = cc_sequential(&list);
        let seq_cc = t.elapsed().as_secs_f64();
        let c = PageRankConfig::default();
        let t = Instant::now();
        let seq_pr = pagerank_sequential(&list, false, c.damping, c.max_iterations, c.tolerance)
            .expect("valid");
        let seq_pr_time = t.elapsed().as_secs_f64();
        for o in &ccs {
            assert_eq!(
                o.labels, want_cc,
                "scale {scale}: cc differs from union-find"
            );
        }
        let comps = verify_cc(&list, &ccs[0].labels).unwrap_or_else(|e| {
            eprintln!("scale {scale} cc: VERIFICATION FAILED: {e}");
            std::process::exit(1)
        });
        for o in &prs {
            let r = verify_pagerank(&list, false, &o.scores, c.damping).unwrap_or_else(|e| {
                eprintln!("scale {scale} pagerank: VERIFICATION FAILED: {e}");
                std::process::exit(1)
            });
            assert!(
                o.residual < 1e-4 && r < 1e-4,
                "scale {scale}: pagerank not converged"
            );
            assert_eq!(o.iterations, seq_pr.iterations);
        }
        let mut t_cc: Vec<f64> = ccs.iter().map(|o| o.kernel_time.as_secs_f64()).collect();
        let mut t_pr: Vec<f64> = prs.iter().map(|o| o.kernel_time.as_secs_f64()).collect();
        let (m_cc, m_pr) = (median(&mut t_cc), median(&mut t_pr));
        let (s_cc, s_pr) = (ccs[0].sweeps, u64::from(prs[0].iterations));
        println!(
            "| {scale} | cc ({comps} components) | {} | {m_cc:.4} | {s_cc} passes | {:.1} | {} | {seq_cc:.4} (union-find) |",
            args.threads,
            entries as f64 * s_cc as f64 / m_cc / 1e6,
            ccs[0].records,
        );
        println!(
            "| {scale} | pagerank | {} | {m_pr:.4} | {s_pr} iterations | {:.1} | {} | {:.4} |",
            args.threads,
            entries as f64 * s_pr as f64 / m_pr / 1e6,
            prs[0].records,
            seq_pr_time,
        );
    }
}
