//! `gossamer-graph cc`, `pagerank`, `bc` and `tc`: the kernels written on the
//! graph-kernel API (whole-graph; bc from a few sources). Build the shards
//! (each trustee reads its slice of the graph, and no weights), run the
//! kernel once, verify the answer against the edge list (read again once the
//! shards are gone, unless bc chose its sources from it), report.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use graph_core::construct::{BuildTimes, ReadyUse};
use graph_core::io::built::BuiltGraph;
use graph_core::validate::{
    verify_bc_rows, verify_cc_rows, verify_pagerank_rows, verify_tc_rows, RowPass,
};

use graph_core::memory::Workload;
use graph_core::meta::IdMap;
use graph_core::sharded::ShardedGraph;
use serde::Serialize;

use crate::args::{BcArgs, CcArgs, KcoreArgs, PageRankArgs, TcArgs, WholeArgs};
use crate::engine::Engine;
use crate::error::{CliError, Result};
use crate::files;
use crate::graph::{self, BuildSource, LoadedGraph};
use crate::output;
use crate::progress::Progress;
use crate::runtime;
use crate::single::partition_name;

/// The JSON report of either command (`result` holds the kernel's fields).
#[derive(Serialize)]
struct Report<T: Serialize> {
    kernel: &'static str,
    #[serde(flatten)]
    input: output::GraphReport,
    ranks: usize,
    threads: usize,
    partition: &'static str,
    construction_time_s: f64,
    kernel_time_s: f64,
    validated: bool,
    #[serde(flatten)]
    result: T,
    /// Every trustee of every rank (see `runtime::TrusteeReport`).
    trustees: Vec<crate::runtime::TrusteeReport>,
    /// Each rank's peak resident set (KiB), by rank.
    peak_rss_kib_per_rank: Vec<u64>,
    /// What the trustees did during the kernel: busy, idle, collective, imbalance.
    #[serde(skip_serializing_if = "Option::is_none")]
    profile: Option<crate::runtime::KernelProfile>,
    /// Where this process's wall time went, by phase.
    #[serde(skip_serializing_if = "Option::is_none")]
    wall_time: Option<crate::phases::WallTime>,
}

#[derive(Serialize)]
struct CcResult {
    components: u64,
    largest_component: u64,
    /// Linking passes (`CcOutput::sweeps`).
    sweeps: u64,
    records: u64,
    /// Vertices walked again across processes (`CcOutput::rewalked`).
    rewalked: u64,
}

#[derive(Serialize)]
struct PageRankResult {
    damping: f64,
    max_iterations: u32,
    tolerance: f64,
    iterations: u32,
    /// Of the iterations, those run Gauss-Seidel (in place).
    gauss_seidel_iterations: u32,
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
struct KcoreResult {
    /// The largest coreness (the graph's degeneracy).
    max_core: u32,
    /// Vertices in the max-core.
    max_core_vertices: u64,
    /// Peeling levels that held vertices.
    levels: u32,
    /// Collective rounds of the run.
    rounds: u64,
}

#[derive(Serialize)]
struct TcResult {
    triangles: u64,
    /// Edges of the simple graph (self-loops and repeated edges dropped).
    simple_edges: u64,
    records: u64,
    count_time_s: f64,
}

/// A built file's rows (`in_rows`: the tails of each vertex's in-arcs on a
/// directed graph) for the checks that read rows, a piece at a time
/// ([`BuiltGraph::for_each_row`]: checked as a trustee checks them, pages
/// given back once read).
fn rows_of(b: &BuiltGraph, in_rows: bool) -> RowPass<'_> {
    Box::new(move |f| {
        b.for_each_row(in_rows, |v, row| f(v, row))
            .map_err(|e| e.to_string())
    })
}

/// A kernel as its whole-graph command runs it. The one path, [`run`],
/// loads the graph, runs the kernel, verifies the answer against the edge
/// list, dumps it and reports; each kernel says only what is its own.
trait WholeKernel: Clone + Send + 'static {
    /// The kernel's name in reports and messages.
    const NAME: &'static str;
    /// Its memory profile, which also picks its default partition
    /// ([`crate::args::default_partition`]).
    const WORKLOAD: Workload;
    /// Whether the kernel reads the rows graph-kernel prepares for BFS
    /// (plain or compressed, no weights, no rows of its own): then a built
    /// file's ready rows for the run's layout (`gossamer-graph ready`) serve
    /// it, mapped in place instead of prepared (time to first answer).
    const READY_ROWS: bool = false;
    /// The kernel's answer.
    type Answer: Send + 'static;
    /// What verification measured that the report shows (`()`: nothing).
    type Verified;
    /// The kernel's own fields of the report.
    type Fields: Serialize;

    /// Settles what depends on the loaded graph (bc's sources).
    fn prepare(&mut self, _graph: &LoadedGraph) -> Result<()> {
        Ok(())
    }

    /// Whether [`prepare`](Self::prepare) reads the edge list (bc choosing
    /// its sources among the vertices with edges, but not from a built
    /// file: its offsets say which have edges): the command then loads
    /// the list whole before the run; otherwise each trustee reads only
    /// its slice, and the list is read again for verification, after the
    /// shards are gone.
    fn prepares_from_the_list(&self) -> bool {
        false
    }

    /// Runs the kernel on the kernels' graph (inside the runtime).
    fn run(&self, g: &ShardedGraph) -> Result<Self::Answer>;

    /// Seconds in the kernel, as the kernel measured them.
    fn kernel_time(answer: &Self::Answer) -> Duration;

    /// Checks the answer against the edge list (or, where
    /// [`verifies_built_rows`](Self::verifies_built_rows), a built file's
    /// rows); the error says why not.
    fn verify(&self, graph: &LoadedGraph, answer: &Self::Answer) -> Result<Self::Verified>;

    /// Whether [`verify`](Self::verify) reads a built file's rows (mapped,
    /// a piece at a time: [`rows_of`]) instead of its edge list, which
    /// then is not read back.
    fn verifies_built_rows(&self) -> bool {
        false
    }

    /// Writes the per-vertex array of `--dump-*` to `path`, with the
    /// sidecar of `ids` ([`files::write_dump`]; kernels with such an
    /// option).
    fn dump(&self, _answer: &Self::Answer, _path: &Path, _ids: &IdMap) -> Result<()> {
        Ok(())
    }

    /// The kernel's fields of the report (`verified`: `None` when
    /// verification was skipped).
    fn fields(
        &self,
        graph: &LoadedGraph,
        answer: &Self::Answer,
        verified: Option<Self::Verified>,
    ) -> Self::Fields;

    /// The settings shown after the partition in the report's first line.
    fn setting(&self) -> String {
        String::new()
    }

    /// The human-readable lines after the report's header.
    fn summary(&self, answer: &Self::Answer, fields: &Self::Fields) -> String;
}

/// The one path of every whole-graph command: threads, the output's
/// directory and the input graph first, then the kernel in a runtime,
/// verification (unless skipped), the dump and the report.
fn run<K: WholeKernel>(mut kernel: K, args: &WholeArgs, dump: Option<&Path>) -> Result<()> {
    let threads = runtime::threads(args.run.threads)?;
    let partition = args.run.partition_for(K::WORKLOAD);
    if let Some(p) = dump {
        files::check_output(p)?;
    }
    // A built file says which vertices have edges by its offsets: bc picks
    // its sources there, and the list is read only for validation.
    let built = args
        .input
        .graph
        .as_deref()
        .is_some_and(graph::is_built_file);
    let whole = kernel.prepares_from_the_list() && !built;
    let graph = Arc::new(crate::phases::time("load", || {
        if whole {
            graph::load(&args.input, &args.gen, threads, args.run.force)
        } else {
            graph::load_streamed(&args.input, &args.gen, threads, args.run.force)
        }
    })?);
    graph.check_kernel(K::NAME, false, false)?;
    if let Some(p) = dump {
        files::check_sidecar(p, &graph.meta().ids)?;
    }
    crate::phases::time("kernel preparation", || kernel.prepare(&graph))?;
    let mut source = graph.build_source();
    if let BuildSource::Built { ready, .. } = &mut source {
        *ready = K::READY_ROWS;
    }
    let ran = {
        let (source, partition, kernel) = (source.clone(), partition.kind(), kernel.clone());
        runtime::run(threads, move || in_runtime(source, partition, &kernel))
    };
    source.withdraw();
    let (ranks, (times, answer)) = ran?;
    // A streamed graph was generated slice by slice during construction.
    let (generation_time, construction) = if graph.is_streamed() {
        (times.read_s, times.total_s - times.read_s)
    } else {
        (graph.generation_time, times.total_s)
    };
    let validated = !args.out.skip_validation;
    let verified = if validated {
        // The shards are gone: what the allocator keeps of them (rows
        // coded into its heaps, not unmapped when freed) is given back
        // before the list is read again.
        graph_core::alloc::give_back_freed();
        crate::memtrace::start();
        // The shards are gone; a list no process held is read again (a
        // graph file mapped whole and checked, a generated graph generated).
        let listed =
            if graph.holds_edge_list() || (graph.is_built() && kernel.verifies_built_rows()) {
                graph.clone()
            } else {
                Arc::new(crate::phases::time(
                    "reading the list for validation",
                    || graph::load(&args.input, &args.gen, threads, args.run.force),
                )?)
            };
        let verified = crate::phases::time("validation", || kernel.verify(&listed, &answer))?;
        crate::memtrace::end("validation");
        Some(verified)
    } else {
        None
    };
    if let Some(p) = dump {
        crate::phases::time("writing the dump", || {
            kernel.dump(&answer, p, &graph.meta().ids)
        })?;
    }
    let report = Report {
        kernel: K::NAME,
        input: output::GraphReport::new(&args.input, &graph, generation_time),
        ranks,
        threads,
        partition: partition_name(partition),
        construction_time_s: construction,
        kernel_time_s: K::kernel_time(&answer).as_secs_f64(),
        validated,
        trustees: crate::runtime::trustee_reports(),
        peak_rss_kib_per_rank: crate::runtime::peak_rss_kib_per_rank(),
        profile: crate::runtime::kernel_profile(K::NAME),
        result: kernel.fields(&graph, &answer, verified),
        wall_time: None,
    };
    let report = Report {
        wall_time: Some(crate::phases::wall_time()),
        ..report
    };
    if args.out.json {
        output::print_json(&report)
    } else {
        let profile = report.profile.as_ref().map(|p| p.summary_line());
        let human = header(&report, &kernel.setting())
            + &kernel.summary(&answer, &report.result)
            + profile.as_deref().unwrap_or("")
            + &report
                .wall_time
                .as_ref()
                .map(|w| w.line())
                .unwrap_or_default();
        output::print_stdout(&human)
    }
}

/// Inside a Gossamer runtime (all ranks of a rack job join): builds the
/// shards from `source` (each trustee reads its slice; no weights: these
/// kernels never read them) and runs the kernel on them; returns the
/// build's times and the answer.
fn in_runtime<K: WholeKernel>(
    source: BuildSource,
    partition: graph_core::PartitionKind,
    kernel: &K,
) -> Result<(BuildTimes, K::Answer)> {
    crate::memtrace::start();
    let bar = Progress::spinner("constructing");
    let started = Instant::now();
    let built = Engine::build_from(source, partition, false);
    bar.finish();
    let (engine, times) = built?;
    crate::phases::add(
        match engine.ready_use() {
            ReadyUse::Mapped(_) => "mapping the built graph's ready rows",
            _ => "construction",
        },
        started.elapsed().as_secs_f64(),
    );
    crate::search::ready_note(engine.ready_use());
    let sharded = engine.graph();
    crate::memtrace::end("construction");
    crate::memtrace::start();
    let bar = Progress::spinner(K::NAME);
    let called = Instant::now();
    let answer =
        crate::runtime::kernel_window(K::NAME, || K::NAME.to_string(), || kernel.run(sharded));
    bar.finish();
    let answer = answer?;
    // The kernel's clock, and the rest of the call: its set-up (the
    // adjacency and state, made before the clock) and gathering the answer.
    let kernel_s = K::kernel_time(&answer).as_secs_f64();
    crate::phases::add("kernel time", kernel_s);
    crate::phases::add(
        "kernel set-up and gathering",
        (called.elapsed().as_secs_f64() - kernel_s).max(0.0),
    );
    crate::phases::first_answer();
    crate::memtrace::end("kernel");
    Ok((times, answer))
}

fn header<T: Serialize>(r: &Report<T>, setting: &str) -> String {
    format!(
        "{}: {}; {} rank(s) x {} threads, {} partition{}\n\
         {}, construction {:.3} s, kernel {:.6} s, {}\n",
        r.kernel,
        r.input.describe(),
        r.ranks,
        r.threads,
        r.partition,
        setting,
        r.input.time(),
        r.construction_time_s,
        r.kernel_time_s,
        if r.validated {
            "verified"
        } else {
            "not verified (--skip-validation)"
        }
    )
}

/// Runs the `cc` command.
pub fn run_cc(args: &CcArgs) -> Result<()> {
    run(
        Cc(args.rows.format()),
        &args.whole,
        args.dump_labels.as_deref(),
    )
}

/// Connected components (Afforest), on rows in this format.
#[derive(Clone)]
struct Cc(graph_kernel::RowsFormat);

impl WholeKernel for Cc {
    const NAME: &'static str = "cc";
    const WORKLOAD: Workload = Workload::Cc;
    const READY_ROWS: bool = true;
    type Answer = ::components::CcOutput;
    type Verified = ();
    type Fields = CcResult;

    fn run(&self, g: &ShardedGraph) -> Result<Self::Answer> {
        let cfg = ::components::CcConfig {
            rows: self.0,
            ..Default::default()
        };
        Ok(::components::cc(g, &cfg)?)
    }

    fn kernel_time(answer: &Self::Answer) -> Duration {
        answer.kernel_time
    }

    fn verify(&self, graph: &LoadedGraph, answer: &Self::Answer) -> Result<()> {
        let labels = &answer.labels;
        match graph.built_file() {
            Some(b) => verify_cc_rows(b.header().num_vertices, labels, rows_of(b, false)),
            None => ::components::verify_cc(&graph.edge_list(), labels),
        }
        .map_err(|e| CliError::new(format!("cc: the component labels failed verification: {e}")))?;
        Ok(())
    }

    fn verifies_built_rows(&self) -> bool {
        true
    }

    fn dump(&self, answer: &Self::Answer, path: &Path, ids: &IdMap) -> Result<()> {
        files::write_dump(path, &answer.labels, ids)
    }

    fn fields(&self, _: &LoadedGraph, answer: &Self::Answer, _: Option<()>) -> CcResult {
        let mut sizes = vec![0u64; answer.labels.len()];
        for &l in &answer.labels {
            sizes[l as usize] += 1;
        }
        CcResult {
            components: answer.components,
            largest_component: sizes.iter().copied().max().unwrap_or(0),
            sweeps: answer.sweeps,
            records: answer.records,
            rewalked: answer.rewalked,
        }
    }

    fn summary(&self, _: &Self::Answer, r: &CcResult) -> String {
        format!(
            "{} components (largest: {} vertices) after {} linking passes\n",
            r.components, r.largest_component, r.sweeps
        )
    }
}

/// Runs the `pagerank` command.
pub fn run_pagerank(args: &PageRankArgs) -> Result<()> {
    let cfg = ::pagerank::PageRankConfig {
        damping: args.damping,
        max_iterations: args.max_iterations,
        tolerance: args.tolerance,
        sweep: if args.jacobi {
            ::pagerank::Sweep::Jacobi
        } else {
            ::pagerank::Sweep::Auto
        },
    };
    // Refuse bad settings before generating the graph.
    cfg.check()?;
    run(
        PageRank(cfg, args.rows.format()),
        &args.whole,
        args.dump_scores.as_deref(),
    )
}

/// PageRank with its settings, on rows in this format.
#[derive(Clone)]
struct PageRank(::pagerank::PageRankConfig, graph_kernel::RowsFormat);

impl WholeKernel for PageRank {
    const NAME: &'static str = "pagerank";
    const WORKLOAD: Workload = Workload::PageRank;
    const READY_ROWS: bool = true;
    type Answer = ::pagerank::PageRankOutput;
    type Verified = ();
    type Fields = PageRankResult;

    fn run(&self, g: &ShardedGraph) -> Result<Self::Answer> {
        // The first preparation of the graph decides its rows' format.
        graph_kernel::prepare_with(g, graph_kernel::Prepare::Boundary, self.1);
        Ok(::pagerank::pagerank(g, &self.0)?)
    }

    fn kernel_time(answer: &Self::Answer) -> Duration {
        answer.kernel_time
    }

    fn verify(&self, graph: &LoadedGraph, answer: &Self::Answer) -> Result<()> {
        let cfg = &self.0;
        let directed = graph.meta().directed;
        let scores = &answer.scores;
        let residual = match graph.built_file() {
            Some(b) => {
                let n = b.header().num_vertices;
                let (out, into) = (rows_of(b, false), rows_of(b, true));
                verify_pagerank_rows(n, scores, cfg.damping, out, into)
            }
            None => ::pagerank::verify_pagerank(&graph.edge_list(), directed, scores, cfg.damping),
        }
        .map_err(|e| CliError::new(format!("pagerank: the scores failed verification: {e}")))?;
        // One more iteration changes converged scores by at most d x the last
        // residual; more means the scores are not a PageRank iterate.
        if residual > cfg.damping * answer.residual * (1.0 + 1e-9) + 1e-12 {
            return Err(CliError::new(format!(
                "pagerank: the scores failed verification: one more iteration changes them by {residual:e}, more than {} x the last residual {:e}",
                cfg.damping, answer.residual
            )));
        }
        Ok(())
    }

    fn verifies_built_rows(&self) -> bool {
        true
    }

    fn dump(&self, answer: &Self::Answer, path: &Path, ids: &IdMap) -> Result<()> {
        files::write_dump(path, &answer.scores, ids)
    }

    fn fields(&self, graph: &LoadedGraph, answer: &Self::Answer, _: Option<()>) -> PageRankResult {
        PageRankResult {
            damping: self.0.damping,
            max_iterations: self.0.max_iterations,
            tolerance: self.0.tolerance,
            iterations: answer.iterations,
            gauss_seidel_iterations: answer.gauss_seidel_iterations,
            residual: answer.residual,
            records: answer.records,
            top: top_ten(&answer.scores, &graph.meta().ids),
        }
    }

    fn setting(&self) -> String {
        format!(
            ", damping {}, tolerance {:e}",
            self.0.damping, self.0.tolerance
        )
    }

    fn summary(&self, answer: &Self::Answer, r: &PageRankResult) -> String {
        let mut human = format!(
            "{} iterations ({} Gauss-Seidel), last residual {:.3e}{}\ntop vertices:",
            answer.iterations,
            answer.gauss_seidel_iterations,
            answer.residual,
            if answer.residual < self.0.tolerance {
                " (converged)"
            } else {
                " (iteration cap reached)"
            }
        );
        for (v, x) in &r.top {
            human.push_str(&format!(" {v} ({x:.4e})"));
        }
        human.push('\n');
        human
    }
}

/// The ten highest scores with their vertices (named by the input file's
/// ids, as every report does), best first (ties: lower id).
fn top_ten(scores: &[f64], ids: &IdMap) -> Vec<(u64, f64)> {
    // Score descending, then id ascending: a total order, so selecting the
    // first ten and sorting them gives what a stable sort of every vertex
    // gave, in O(vertices) (the full sort took 0.4 s at SCALE 22).
    let by = |a: &u64, b: &u64| {
        scores[*b as usize]
            .total_cmp(&scores[*a as usize])
            .then(a.cmp(b))
    };
    let mut order: Vec<u64> = (0..scores.len() as u64).collect();
    if order.len() > 10 {
        order.select_nth_unstable_by(9, by);
        order.truncate(10);
    }
    order.sort_by(by);
    order
        .iter()
        .map(|&v| (ids.file_id(v), scores[v as usize]))
        .collect()
}

/// Runs the `bc` command.
pub fn run_bc(args: &BcArgs) -> Result<()> {
    // Refuse a bad source count before generating the graph.
    let asked = if args.source.is_empty() {
        args.roots
    } else {
        args.source.len()
    };
    if asked == 0 || asked > ::bc::MAX_SOURCES {
        let flag = if args.source.is_empty() {
            format!("--roots {}", args.roots)
        } else {
            format!("{} --source values", args.source.len())
        };
        return Err(CliError::new(format!(
            "{flag}: betweenness runs from 1 to {} sources (GAPBS's bc uses 4)",
            ::bc::MAX_SOURCES
        )));
    }
    let bc = Bc {
        roots: args.roots,
        given: args.source.clone(),
        seed: args.seed,
        sources: Vec::new(),
        rows: args.rows.format(),
    };
    run(bc, &args.whole, args.dump_scores.as_deref())
}

/// Betweenness from the `given` sources, or `roots` distinct ones chosen
/// as the searches' roots are (`sources` once the graph is loaded), on
/// rows in this format.
#[derive(Clone)]
struct Bc {
    roots: usize,
    given: Vec<u64>,
    seed: u64,
    sources: Vec<u64>,
    rows: graph_kernel::RowsFormat,
}

impl WholeKernel for Bc {
    const NAME: &'static str = "bc";
    const WORKLOAD: Workload = Workload::Bc;
    type Answer = ::bc::BcOutput;
    /// The largest difference from the sequential reference.
    type Verified = f64;
    type Fields = BcResult;

    fn prepare(&mut self, graph: &LoadedGraph) -> Result<()> {
        let (sources, note) = graph.choose_sources(&self.given, self.roots, self.seed)?;
        if let Some(note) = note {
            eprintln!("note: {note}");
        }
        self.sources = sources;
        Ok(())
    }

    fn prepares_from_the_list(&self) -> bool {
        // Sources given by the user need no list; chosen ones are among
        // the vertices with edges.
        self.given.is_empty()
    }

    fn run(&self, g: &ShardedGraph) -> Result<Self::Answer> {
        let cfg = ::bc::BcConfig {
            rows: self.rows,
            ..Default::default()
        };
        Ok(::bc::bc(g, &self.sources, &cfg)?)
    }

    fn kernel_time(answer: &Self::Answer) -> Duration {
        answer.kernel_time
    }

    fn verify(&self, graph: &LoadedGraph, answer: &Self::Answer) -> Result<f64> {
        let (sources, scores) = (&self.sources, &answer.scores);
        match graph.built_file() {
            // A sequential Brandes over the mapped rows, level by level.
            Some(b) => b
                .row_reader()
                .map_err(|e| e.to_string())
                .and_then(|mut rows| verify_bc_rows(sources, scores, ::bc::TOLERANCE, &mut rows)),
            None => {
                let directed = graph.meta().directed;
                ::bc::verify_bc_as(&graph.edge_list(), directed, sources, scores)
            }
        }
        .map_err(|e| CliError::new(format!("bc: the scores failed verification: {e}")))
    }

    fn verifies_built_rows(&self) -> bool {
        true
    }

    fn dump(&self, answer: &Self::Answer, path: &Path, ids: &IdMap) -> Result<()> {
        files::write_dump(path, &answer.scores, ids)
    }

    fn fields(
        &self,
        graph: &LoadedGraph,
        answer: &Self::Answer,
        verified: Option<f64>,
    ) -> BcResult {
        let ids = &graph.meta().ids;
        BcResult {
            sources: answer.sources.iter().map(|&v| ids.file_id(v)).collect(),
            levels: answer.levels.clone(),
            records: answer.records,
            max_difference: verified,
            top: top_ten(&answer.scores, ids),
        }
    }

    fn setting(&self) -> String {
        format!(", {} sources", self.sources.len())
    }

    fn summary(&self, answer: &Self::Answer, r: &BcResult) -> String {
        let list = |xs: &[u64]| {
            xs.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut human = format!(
            "sources {} ({} BFS levels)\ntop vertices:",
            list(&r.sources),
            list(
                &answer
                    .levels
                    .iter()
                    .map(|&d| u64::from(d))
                    .collect::<Vec<_>>()
            ),
        );
        for (v, x) in &r.top {
            human.push_str(&format!(" {v} ({x:.4})"));
        }
        human.push('\n');
        human
    }
}

/// Runs the `tc` command.
pub fn run_tc(args: &TcArgs) -> Result<()> {
    run(Tc(args.rows.format()), &args.whole, None)
}

/// Triangle counting, on rows in this format.
#[derive(Clone)]
struct Tc(graph_kernel::RowsFormat);

impl WholeKernel for Tc {
    const NAME: &'static str = "tc";
    const WORKLOAD: Workload = Workload::Tc;
    type Answer = ::tc::TcOutput;
    type Verified = ();
    type Fields = TcResult;

    fn run(&self, g: &ShardedGraph) -> Result<Self::Answer> {
        let cfg = ::tc::TcConfig {
            rows: self.0,
            ..Default::default()
        };
        Ok(::tc::tc(g, &cfg)?)
    }

    fn kernel_time(answer: &Self::Answer) -> Duration {
        answer.kernel_time
    }

    fn verify(&self, graph: &LoadedGraph, answer: &Self::Answer) -> Result<()> {
        match graph.built_file() {
            // An ordered count over the mapped rows.
            Some(b) => b
                .row_reader()
                .map_err(|e| e.to_string())
                .and_then(|mut rows| verify_tc_rows(answer.triangles, &mut rows)),
            None => ::tc::verify_tc(&graph.edge_list(), answer.triangles),
        }
        .map_err(|e| CliError::new(format!("tc: the triangle count failed verification: {e}")))?;
        Ok(())
    }

    fn verifies_built_rows(&self) -> bool {
        true
    }

    fn fields(&self, _: &LoadedGraph, answer: &Self::Answer, _: Option<()>) -> TcResult {
        TcResult {
            triangles: answer.triangles,
            simple_edges: answer.oriented_edges,
            records: answer.records,
            count_time_s: answer.count_time.as_secs_f64(),
        }
    }

    fn summary(&self, answer: &Self::Answer, _: &TcResult) -> String {
        format!(
            "{} triangles ({} edges without self-loops and repeats; counting {:.6} s)\n",
            answer.triangles,
            answer.oriented_edges,
            answer.count_time.as_secs_f64()
        )
    }
}

/// Runs the `kcore` command.
pub fn run_kcore(args: &KcoreArgs) -> Result<()> {
    run(Kcore, &args.whole, args.dump_cores.as_deref())
}

/// k-core decomposition.
#[derive(Clone)]
struct Kcore;

impl WholeKernel for Kcore {
    const NAME: &'static str = "kcore";
    const WORKLOAD: Workload = Workload::Kcore;
    type Answer = ::kcore::KcoreOutput;
    type Verified = ();
    type Fields = KcoreResult;

    fn run(&self, g: &ShardedGraph) -> Result<Self::Answer> {
        Ok(::kcore::kcore(g, &::kcore::KcoreConfig::default())?)
    }

    fn kernel_time(answer: &Self::Answer) -> Duration {
        answer.kernel_time
    }

    fn verify(&self, graph: &LoadedGraph, answer: &Self::Answer) -> Result<()> {
        ::kcore::verify_kcore(&graph.edge_list(), &answer.core).map_err(|e| {
            CliError::new(format!("kcore: the corenesses failed verification: {e}"))
        })?;
        Ok(())
    }

    fn dump(&self, answer: &Self::Answer, path: &Path, ids: &IdMap) -> Result<()> {
        files::write_dump(path, &answer.core, ids)
    }

    fn fields(&self, _: &LoadedGraph, answer: &Self::Answer, _: Option<()>) -> KcoreResult {
        KcoreResult {
            max_core: answer.max_core,
            max_core_vertices: answer
                .core
                .iter()
                .filter(|&&c| c == answer.max_core)
                .count() as u64,
            levels: answer.levels,
            rounds: answer.rounds,
        }
    }

    fn summary(&self, _: &Self::Answer, r: &KcoreResult) -> String {
        format!(
            "max core {} ({} vertices); {} peeling levels, {} collective rounds\n",
            r.max_core, r.max_core_vertices, r.levels, r.rounds
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_ten_is_what_a_stable_sort_of_every_vertex_gives() {
        // Scores with many ties (and a NaN-free spread): a stable sort by
        // score descending keeps ties in ascending id.
        let mut x = 12345u64;
        let scores: Vec<f64> = (0..1000)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((x >> 33) % 17) as f64 / 7.0
            })
            .collect();
        let mut order: Vec<u64> = (0..scores.len() as u64).collect();
        order.sort_by(|&a, &b| scores[b as usize].total_cmp(&scores[a as usize]));
        let want: Vec<(u64, f64)> = order[..10]
            .iter()
            .map(|&v| (v, scores[v as usize]))
            .collect();
        assert_eq!(top_ten(&scores, &IdMap::default()), want);
        // Fewer than ten vertices: all of them.
        let few = [0.5, 2.0, 0.5];
        assert_eq!(
            top_ten(&few, &IdMap::default()),
            vec![(1, 2.0), (0, 0.5), (2, 0.5)]
        );
    }
}
