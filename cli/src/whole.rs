//! `gossamer-graph cc`, `pagerank`, `bc` and `tc`: the kernels written on the
//! graph-kernel API (whole-graph; bc from a few sources). Load the graph, shard it, run
//! the kernel once, verify the answer against the edge list, report.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use graph_core::meta::IdMap;
use graph_core::sharded::ShardedGraph;
use graph_core::PartitionKind;
use serde::Serialize;

use crate::args::{
    BcArgs, CcArgs, GenParams, Input, PageRankArgs, RootChoice, RunOptions, SearchOptions, TcArgs,
};
use crate::error::{CliError, Result};
use crate::files;
use crate::graph::{self, LoadedGraph};
use crate::output;
use crate::runtime;
use crate::single::partition_name;

/// The JSON report of either command (`result` holds the kernel's fields).
#[derive(Serialize)]
struct Report<T: Serialize> {
    kernel: &'static str,
    scale: Option<u32>,
    edgefactor: Option<u32>,
    vertices: u64,
    edges: u64,
    ranks: usize,
    threads: usize,
    partition: &'static str,
    generation_time_s: f64,
    construction_time_s: f64,
    kernel_time_s: f64,
    validated: bool,
    #[serde(flatten)]
    result: T,
    /// Every trustee of every rank (see `runtime::TrusteeReport`).
    trustees: Vec<crate::runtime::TrusteeReport>,
    /// Each rank's peak resident set (KiB), by rank.
    peak_rss_kib_per_rank: Vec<u64>,
}

#[derive(Serialize)]
struct CcResult {
    components: u64,
    largest_component: u64,
    /// Linking passes (`CcOutput::sweeps`).
    sweeps: u64,
    records: u64,
}

#[derive(Serialize)]
struct PageRankResult {
    damping: f64,
    max_iterations: u32,
    tolerance: f64,
    iterations: u32,
    residual: f64,
    records: u64,
    /// The ten highest-scoring vertices, best first.
    top: Vec<(u64, f64)>,
}

#[derive(Serialize)]
struct BcResult {
    sources: Vec<u64>,
    /// BFS levels reached from each source.
    levels: Vec<u32>,
    records: u64,
    /// Largest difference from the sequential reference (when verified).
    max_difference: Option<f64>,
    /// The ten highest-scoring vertices, best first.
    top: Vec<(u64, f64)>,
}

#[derive(Serialize)]
struct TcResult {
    triangles: u64,
    /// Edges of the simple graph (self-loops and repeated edges dropped).
    simple_edges: u64,
    records: u64,
    count_time_s: f64,
}

/// The common steps: threads, input graph, output checks.
struct Setup {
    threads: usize,
    graph: Arc<LoadedGraph>,
    partition: PartitionKind,
    partition_name: &'static str,
}

impl Setup {
    /// The report of one run on this set-up: the fields every whole-graph
    /// command shares, and the kernel's own `result`.
    fn report<T: Serialize>(
        &self,
        kernel: &'static str,
        ranks: usize,
        construction: f64,
        kernel_time: std::time::Duration,
        validated: bool,
        result: T,
    ) -> Report<T> {
        Report {
            kernel,
            scale: self.graph.scale(),
            edgefactor: self.graph.edgefactor(),
            vertices: self.graph.num_vertices(),
            edges: self.graph.num_edges(),
            ranks,
            threads: self.threads,
            partition: self.partition_name,
            generation_time_s: self.graph.generation_time,
            construction_time_s: construction,
            kernel_time_s: kernel_time.as_secs_f64(),
            validated,
            trustees: crate::runtime::trustee_reports(),
            peak_rss_kib_per_rank: crate::runtime::peak_rss_kib_per_rank(),
            result,
        }
    }
}

fn setup(input: &Input, gen: &GenParams, run: &RunOptions, dump: Option<&Path>) -> Result<Setup> {
    let threads = runtime::threads(run.threads)?;
    if let Some(p) = dump {
        files::check_writable(p)?;
    }
    let graph = Arc::new(graph::load(input, gen, threads, run.force)?);
    Ok(Setup {
        threads,
        graph,
        partition: run.partition.kind(),
        partition_name: partition_name(run.partition),
    })
}

/// Shards the graph inside a Gossamer runtime (all ranks of a rack job join)
/// and runs `kernel` on it; returns (ranks, construction seconds, answer).
fn in_runtime<T: Send + 'static>(
    s: &Setup,
    kernel: impl FnOnce(&ShardedGraph) -> Result<T> + Send + 'static,
) -> Result<(usize, f64, T)> {
    let (graph, partition) = (s.graph.clone(), s.partition);
    let (ranks, (construction, answer)) = runtime::run(s.threads, move || {
        let list = graph.edge_list();
        let start = Instant::now();
        crate::memtrace::start();
        let sharded = ShardedGraph::build_with(&list, partition, graph.meta().directed)?;
        let construction = start.elapsed().as_secs_f64();
        crate::memtrace::end("construction");
        crate::memtrace::start();
        let answer = kernel(&sharded)?;
        crate::memtrace::end("kernel");
        Ok((construction, answer))
    })?;
    Ok((ranks, construction, answer))
}

fn print<T: Serialize>(out: &SearchOptions, report: &Report<T>, human: String) -> Result<()> {
    if out.json {
        let text = serde_json::to_string(report)
            .map_err(|e| CliError::new(format!("could not encode the JSON report: {e}")))?;
        output::print_stdout(&format!("{text}\n"))
    } else {
        output::print_stdout(&human)
    }
}

fn header<T: Serialize>(r: &Report<T>, setting: &str) -> String {
    let opt = |x: Option<u32>| x.map_or_else(|| "?".to_string(), |v| v.to_string());
    format!(
        "{}: SCALE {}, edgefactor {} ({} vertices, {} edges); {} rank(s) x {} threads, {} partition{}\n\
         generation {:.3} s, construction {:.3} s, kernel {:.6} s, {}\n",
        r.kernel,
        opt(r.scale),
        opt(r.edgefactor),
        r.vertices,
        r.edges,
        r.ranks,
        r.threads,
        r.partition,
        setting,
        r.generation_time_s,
        r.construction_time_s,
        r.kernel_time_s,
        if r.validated { "verified" } else { "not verified (--skip-validation)" }
    )
}

/// Runs the `cc` command.
pub fn run_cc(args: &CcArgs) -> Result<()> {
    let s = setup(
        &args.input,
        &args.gen,
        &args.run,
        args.dump_labels.as_deref(),
    )?;
    s.graph.check_kernel("cc", false, false)?;
    let (ranks, construction, out) = in_runtime(&s, |g| {
        Ok(::components::cc(g, &::components::CcConfig::default())?)
    })?;
    let validated = !args.out.skip_validation;
    if validated {
        crate::memtrace::start();
        ::components::verify_cc(&s.graph.edge_list(), &out.labels).map_err(|e| {
            CliError::new(format!("cc: the component labels failed verification: {e}"))
        })?;
        crate::memtrace::end("validation");
    }
    if let Some(p) = &args.dump_labels {
        files::write_le(p, &out.labels)?;
        files::write_ids_sidecar(p, &s.graph.meta().ids, s.graph.num_vertices())?;
    }
    let mut sizes = vec![0u64; out.labels.len()];
    for &l in &out.labels {
        sizes[l as usize] += 1;
    }
    let report = s.report(
        "cc",
        ranks,
        construction,
        out.kernel_time,
        validated,
        CcResult {
            components: out.components,
            largest_component: sizes.iter().copied().max().unwrap_or(0),
            sweeps: out.sweeps,
            records: out.records,
        },
    );
    let human = format!(
        "{}{} components (largest: {} vertices) after {} linking passes\n",
        header(&report, ""),
        report.result.components,
        report.result.largest_component,
        report.result.sweeps
    );
    print(&args.out, &report, human)
}

/// Runs the `pagerank` command.
pub fn run_pagerank(args: &PageRankArgs) -> Result<()> {
    let cfg = ::pagerank::PageRankConfig {
        damping: args.damping,
        max_iterations: args.max_iterations,
        tolerance: args.tolerance,
    };
    // Refuse bad settings before generating the graph.
    cfg.check()?;
    let s = setup(
        &args.input,
        &args.gen,
        &args.run,
        args.dump_scores.as_deref(),
    )?;
    s.graph.check_kernel("pagerank", false, false)?;
    let (ranks, construction, out) = in_runtime(&s, move |g| Ok(::pagerank::pagerank(g, &cfg)?))?;
    let validated = !args.out.skip_validation;
    if validated {
        crate::memtrace::start();
        let directed = s.graph.meta().directed;
        let residual =
            ::pagerank::verify_pagerank_as(&s.graph.edge_list(), directed, &out.scores, &cfg)
                .map_err(|e| {
                    CliError::new(format!("pagerank: the scores failed verification: {e}"))
                })?;
        // One more iteration changes converged scores by at most d x the last
        // residual; more means the scores are not a PageRank iterate.
        if residual > cfg.damping * out.residual * (1.0 + 1e-9) + 1e-12 {
            return Err(CliError::new(format!(
                "pagerank: the scores failed verification: one more iteration changes them by {residual:e}, more than {} x the last residual {:e}",
                cfg.damping, out.residual
            )));
        }
        crate::memtrace::end("validation");
    }
    if let Some(p) = &args.dump_scores {
        files::write_le(p, &out.scores)?;
        files::write_ids_sidecar(p, &s.graph.meta().ids, s.graph.num_vertices())?;
    }
    let top = top_ten(&out.scores, &s.graph.meta().ids);
    let report = s.report(
        "pagerank",
        ranks,
        construction,
        out.kernel_time,
        validated,
        PageRankResult {
            damping: cfg.damping,
            max_iterations: cfg.max_iterations,
            tolerance: cfg.tolerance,
            iterations: out.iterations,
            residual: out.residual,
            records: out.records,
            top,
        },
    );
    let mut human = format!(
        "{}{} iterations, last residual {:.3e}{}\ntop vertices:",
        header(
            &report,
            &format!(", damping {}, tolerance {:e}", cfg.damping, cfg.tolerance)
        ),
        out.iterations,
        out.residual,
        if out.residual < cfg.tolerance {
            " (converged)"
        } else {
            " (iteration cap reached)"
        }
    );
    for (v, x) in &report.result.top {
        human.push_str(&format!(" {v} ({x:.4e})"));
    }
    human.push('\n');
    print(&args.out, &report, human)
}

/// The ten highest scores with their vertices (named by the input file's
/// ids, as every report does), best first (ties: lower id).
fn top_ten(scores: &[f64], ids: &IdMap) -> Vec<(u64, f64)> {
    let mut order: Vec<u64> = (0..scores.len() as u64).collect();
    order.sort_by(|&a, &b| scores[b as usize].total_cmp(&scores[a as usize]));
    order
        .iter()
        .take(10)
        .map(|&v| (ids.file_id(v), scores[v as usize]))
        .collect()
}

/// Runs the `bc` command.
pub fn run_bc(args: &BcArgs) -> Result<()> {
    // Refuse a bad source count before generating the graph.
    if args.roots == 0 || args.roots > ::bc::MAX_SOURCES {
        return Err(CliError::new(format!(
            "--roots {}: betweenness runs from 1 to {} sources (GAPBS's bc uses 4)",
            args.roots,
            ::bc::MAX_SOURCES
        )));
    }
    let s = setup(
        &args.input,
        &args.gen,
        &args.run,
        args.dump_scores.as_deref(),
    )?;
    s.graph.check_kernel("bc", false, false)?;
    let sources = s.graph.choose_roots(&RootChoice {
        root: None,
        roots: Some(args.roots),
        seed: crate::args::DEFAULT_ROOT_SEED,
    })?;
    let src = sources.clone();
    let (ranks, construction, out) = in_runtime(&s, move |g| Ok(::bc::bc(g, &src)?))?;
    let validated = !args.out.skip_validation;
    let directed = s.graph.meta().directed;
    let max_difference = if validated {
        Some(
            ::bc::verify_bc_as(&s.graph.edge_list(), directed, &sources, &out.scores)
                .map_err(|e| CliError::new(format!("bc: the scores failed verification: {e}")))?,
        )
    } else {
        None
    };
    if let Some(p) = &args.dump_scores {
        files::write_le(p, &out.scores)?;
        files::write_ids_sidecar(p, &s.graph.meta().ids, s.graph.num_vertices())?;
    }
    let ids = &s.graph.meta().ids;
    let file_ids = |vs: &[u64]| vs.iter().map(|&v| ids.file_id(v)).collect::<Vec<u64>>();
    let report = s.report(
        "bc",
        ranks,
        construction,
        out.kernel_time,
        validated,
        BcResult {
            sources: file_ids(&out.sources),
            levels: out.levels.clone(),
            records: out.records,
            max_difference,
            top: top_ten(&out.scores, ids),
        },
    );
    let list = |xs: &[u64]| {
        xs.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut human = format!(
        "{}sources {} ({} BFS levels)\ntop vertices:",
        header(&report, &format!(", {} sources", sources.len())),
        list(&report.result.sources),
        list(&out.levels.iter().map(|&d| u64::from(d)).collect::<Vec<_>>()),
    );
    for (v, x) in &report.result.top {
        human.push_str(&format!(" {v} ({x:.4})"));
    }
    human.push('\n');
    print(&args.out, &report, human)
}

/// Runs the `tc` command.
pub fn run_tc(args: &TcArgs) -> Result<()> {
    let s = setup(&args.input, &args.gen, &args.run, None)?;
    s.graph.check_kernel("tc", false, false)?;
    let (ranks, construction, out) = in_runtime(&s, |g| Ok(::tc::tc(g)?))?;
    let validated = !args.out.skip_validation;
    if validated {
        ::tc::verify_tc(&s.graph.edge_list(), out.triangles).map_err(|e| {
            CliError::new(format!("tc: the triangle count failed verification: {e}"))
        })?;
    }
    let report = s.report(
        "tc",
        ranks,
        construction,
        out.kernel_time,
        validated,
        TcResult {
            triangles: out.triangles,
            simple_edges: out.oriented_edges,
            records: out.records,
            count_time_s: out.count_time.as_secs_f64(),
        },
    );
    let human = format!(
        "{}{} triangles ({} edges without self-loops and repeats; counting {:.6} s)\n",
        header(&report, ""),
        out.triangles,
        out.oriented_edges,
        out.count_time.as_secs_f64()
    );
    print(&args.out, &report, human)
}
