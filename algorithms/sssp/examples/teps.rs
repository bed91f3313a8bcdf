//! Graph500-style TEPS benchmark of the SSSP and BFS kernels.
//!
//! Generates a Kronecker graph (generators + graph-core), builds the
//! ShardedGraph with T threads, runs N of the reference's search roots with each
//! kernel, validates every result, and prints one line per scale and kernel:
//! harmonic-mean TEPS (numerator: the validator's traversed-edge count, as the
//! Graph500 reference counts it) and the median kernel time.
//!
//! ```text
//! cargo run --release -p sssp --example teps -- --scale 16,18 --threads 2 --roots 16 \
//!     [--delta 0.05] [--kind cyclic|block|striped] [--slot BYTES] [--kernels sssp,bfs] [--mode do|td] [--csv out.csv]
//!     [--digest]
//! cargo run --release -p sssp --example teps -- --graph FILE --threads 2 --roots 8 --kernels sssp \
//!     --delta 77 --kind block --no-validate
//! ```
//!
//! `--graph FILE` runs on a gossamer-graph file (`generate -o`, `convert`)
//! instead of generating: its first N stored roots, directed if the file
//! says so, not validated (printed as scale 0).
//!
//! `--digest` also prints, per scale and kernel, a hash of every output
//! (distances' bits, parents, levels) over all roots: two builds that print
//! the same digest gave bit-identical answers.

use std::time::Instant;

use bfs::{bfs, BfsConfig, BfsMode};
use generators::{Graph500Config, Kronecker};
use graph_core::sharded::ShardedGraph;
use graph_core::validate::{validate_bfs_list, validate_sssp_list};
use graph_core::{EdgeList, Graph500Params, PackedEdge, PartitionKind};
use sssp::{sssp, SsspConfig};

struct Args {
    scales: Vec<u32>,
    threads: usize,
    roots: usize,
    delta: f32,
    kind: PartitionKind,
    /// Request slot size; by default graph_kernel::runtime's choice.
    slot: Option<usize>,
    kernels: Vec<String>,
    mode: BfsMode,
    csv: Option<String>,
    no_validate: bool,
    digest: bool,
    graph: Option<String>,
}

fn parse() -> Result<Args, String> {
    let mut a = Args {
        scales: vec![16],
        threads: 2,
        roots: 16,
        delta: SsspConfig::default().delta,
        kind: PartitionKind::Cyclic,
        slot: None,
        kernels: vec!["sssp".into(), "bfs".into()],
        mode: BfsMode::DirectionOptimizing,
        csv: None,
        no_validate: false,
        digest: false,
        graph: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(k) = it.next() {
        if k == "--no-validate" {
            a.no_validate = true;
            continue;
        }
        if k == "--digest" {
            a.digest = true;
            continue;
        }
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
            "--roots" => a.roots = v.parse().map_err(|e| bad(&e))?,
            "--delta" => a.delta = v.parse().map_err(|e| bad(&e))?,
            "--slot" => a.slot = Some(v.parse().map_err(|e| bad(&e))?),
            "--kind" => {
                a.kind = match v.as_str() {
                    "block" => PartitionKind::Block,
                    "cyclic" => PartitionKind::Cyclic,
                    "striped" => PartitionKind::Striped,
                    _ => return Err(bad(&"expected block, cyclic or striped")),
                }
            }
            "--mode" => {
                a.mode = match v.as_str() {
                    "do" => BfsMode::DirectionOptimizing,
                    "td" => BfsMode::TopDown,
                    _ => return Err(bad(&"expected do or td")),
                }
            }
            "--kernels" => a.kernels = v.split(',').map(String::from).collect(),
            "--csv" => a.csv = Some(v),
            "--graph" => {
                (a.graph, a.scales, a.no_validate) = (Some(v), vec![0], true);
            }
            _ => return Err(format!("unknown option {k}")),
        }
    }
    Ok(a)
}

/// FNV-1a over a stream of 64-bit words.
struct Digest(u64);

impl Digest {
    fn new() -> Self {
        Digest(0xcbf2_9ce4_8422_2325)
    }
    fn add(&mut self, x: u64) {
        for b in x.to_le_bytes() {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

fn harmonic_mean(xs: &[f64]) -> f64 {
    xs.len() as f64 / xs.iter().map(|x| 1.0 / x).sum::<f64>()
}

fn median(xs: &[f64]) -> f64 {
    let mut s = xs.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

fn main() {
    let args = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("teps: {e}");
            std::process::exit(2);
        }
    };
    let mut csv = String::from("scale,kernel,threads,roots,harmonic_mean_teps,median_time_s\n");
    for &scale in &args.scales {
        let t0 = Instant::now();
        let (list, roots, directed) = match &args.graph {
            Some(path) => {
                let g = graph_core::io::file::open(path).expect("a readable graph file");
                let roots: Vec<u64> = g.roots().iter().copied().take(args.roots).collect();
                (g.edge_list().into_owned(), roots, g.meta().directed)
            }
            None => {
                let gen = Kronecker::new(Graph500Config::with_scale(scale)).expect("valid scale");
                let mut list = EdgeList::zeroed(Graph500Params::reference(scale)).expect("fits");
                gen.par_map_into(0, list.edges_mut(), |e| {
                    PackedEdge::from_wide(e.u, e.v, e.w)
                });
                let live = generators::non_isolated(
                    list.num_vertices(),
                    list.edges()
                        .iter()
                        .map(|e| (u64::from(e.u), u64::from(e.v))),
                )
                .expect("ids in range");
                let roots = gen.search_roots(args.roots, |v| live.contains(v));
                (list, roots, false)
            }
        };
        eprintln!("scale {scale}: generated in {:.2?}", t0.elapsed());
        let list = std::sync::Arc::new(list);
        let (l2, kinds, kind, delta, mode) = (
            list.clone(),
            args.kernels.clone(),
            args.kind,
            args.delta,
            args.mode,
        );
        let r2 = roots.clone();
        let mut builder =
            graph_kernel::runtime::for_graphs(gossamer::Runtime::builder(), args.threads);
        if let Some(bytes) = args.slot {
            builder = builder.slot_size(bytes);
        }
        let outs = builder
            .run(move || {
                let t1 = Instant::now();
                let g = ShardedGraph::build_with(&l2, kind, directed).expect("shardable");
                eprintln!("scale {scale}: sharded in {:.2?}", t1.elapsed());
                let mut res = Vec::new();
                for k in &kinds {
                    let mut per = Vec::new();
                    let (mut rounds, mut scanned) = (Vec::new(), Vec::new());
                    for &root in &r2 {
                        match k.as_str() {
                            "sssp" => {
                                // In place, as gossamer-graph runs it.
                                let cfg = SsspConfig {
                                    in_place: true,
                                    delta,
                                    ..SsspConfig::default()
                                };
                                let o = sssp(&g, root, &cfg).expect("root ok");
                                rounds.push(o.rounds as f64);
                                scanned.push(o.scanned as f64);
                                per.push((
                                    o.kernel_time.as_secs_f64(),
                                    Some(o.dist),
                                    o.parent,
                                    None,
                                ));
                            }
                            "bfs" => {
                                let o = bfs(
                                    &g,
                                    root,
                                    &BfsConfig {
                                        mode,
                                        ..Default::default()
                                    },
                                )
                                .expect("root ok");
                                let depth = o.level.iter().max().copied().unwrap_or(0);
                                eprintln!(
                                    "bfs root {root}: {:.4}s, {} levels, {} bottom-up",
                                    o.kernel_time.as_secs_f64(),
                                    depth + 1,
                                    o.bottom_up_levels
                                );
                                per.push((
                                    o.kernel_time.as_secs_f64(),
                                    None,
                                    o.parent,
                                    Some(o.level),
                                ));
                            }
                            other => panic!("unknown kernel {other}"),
                        }
                        if per.len() == 1 {
                            // One line per kernel early, so a long run shows progress.
                            eprintln!("scale {scale} {k}: first root {:.4}s", per[0].0);
                        }
                        // Keep memory flat: validate below from the kept outputs.
                    }
                    if !rounds.is_empty() {
                        eprintln!(
                            "scale {scale} sssp: median {} all-reduce rounds, {:.2}M entries scanned per search",
                            median(&rounds),
                            median(&scanned) / 1e6
                        );
                    }
                    res.push((k.clone(), per));
                }
                res
            })
            .expect("runtime");
        for (k, per) in outs {
            let mut teps = Vec::new();
            let mut times = Vec::new();
            let mut digest = Digest::new();
            for ((t, dist, parent, level), &root) in per.into_iter().zip(&roots) {
                if args.digest {
                    dist.iter()
                        .flatten()
                        .for_each(|d| digest.add(u64::from(d.to_bits())));
                    parent.iter().for_each(|&p| digest.add(p));
                    level.iter().flatten().for_each(|&l| digest.add(l as u64));
                }
                let v = if args.no_validate {
                    None
                } else if let Some(d) = dist {
                    Some(validate_sssp_list(&list, root, &parent, &d))
                } else {
                    Some(validate_bfs_list(&list, root, &parent, level.as_deref()))
                };
                let m = match v {
                    Some(Ok(v)) => v.traversed_edges,
                    Some(Err(e)) => {
                        eprintln!("scale {scale} {k} root {root}: VALIDATION FAILED: {e}");
                        std::process::exit(1);
                    }
                    None => list.count_non_loops(),
                };
                teps.push(m as f64 / t);
                times.push(t);
            }
            if args.digest {
                println!("scale {scale} {k:>4} digest {:016x}", digest.0);
            }
            let hm = harmonic_mean(&teps);
            let med = median(&times);
            println!(
                "scale {scale} {k:>4} threads {} roots {}: harmonic mean {:8.2} MTEPS, median time {:.4} s{}",
                args.threads,
                times.len(),
                hm / 1e6,
                med,
                if args.no_validate { " (not validated)" } else { " (all validated)" }
            );
            csv.push_str(&format!(
                "{scale},{k},{},{},{hm:.0},{med:.6}\n",
                args.threads,
                times.len()
            ));
        }
    }
    if let Some(p) = args.csv {
        std::fs::write(&p, csv).unwrap_or_else(|e| panic!("cannot write {p}: {e}"));
    }
}
