//! `gossamer-graph graph500`: the Graph500 benchmark — BFS and SSSP from the
//! 64 roots, every search validated — reported in the reference's
//! statistics block, line for line (`key: value`, C `%g` numbers), so tools
//! that read the reference's output read ours; after it, the per-search
//! lines and the same statistics in units a person reads. `--json` prints
//! all of it as one object instead.

use std::fmt::Write as _;
use std::sync::Arc;

use serde::Serialize;

use crate::args::{BfsModeArg, Graph500Args, RootChoice, RowsArg};
use crate::cfmt::{g, g_prec};
use crate::error::{CliError, Result};
use crate::graph;
use crate::output::{self, GraphReport};
use crate::record::{Kernel, KernelRun};
use crate::runtime;
use crate::search::{self, KernelSpec, Plan};
use crate::stats::{Summary, TepsSummary};
use graph_core::memory::Workload;

/// The reference's line for an invalid run.
pub const INVALID_RUN: &str = "No results printed for invalid run.";

/// Runs the `graph500` command.
pub fn run(args: &Graph500Args) -> Result<()> {
    crate::sssp::check_delta_arg(args.delta)?;
    let threads = runtime::threads(args.run.threads)?;
    let mut loaded = crate::phases::time("load", || {
        if args.prepared.prepared.is_some() {
            graph::load_described(&args.input, &args.gen, threads, args.run.force)
        } else {
            graph::load_streamed(&args.input, &args.gen, threads, args.run.force)
        }
    })?;
    loaded.check_kernel("graph500", true, args.unit_weights)?;
    let partition = crate::args::settle_partition(
        args.run.partition_for(Workload::Graph500),
        args.run.partition.is_some(),
        &loaded,
        crate::memcheck::memory_context().ranks,
        threads,
    );
    let roots = loaded.root_plan(&RootChoice {
        root: None,
        roots: None,
        seed: args.seed,
    })?;
    let prepared = search::prepared_run(&args.prepared, || loaded.identity(args.unit_weights))?;
    if args.unit_weights {
        loaded = loaded.with_unit_weights();
    }
    let loaded = Arc::new(loaded);
    let specs = vec![
        KernelSpec {
            kernel: Kernel::Bfs {
                mode: BfsModeArg::Do,
                rows: RowsArg::Plain,
            },
            dump: None,
        },
        KernelSpec {
            kernel: Kernel::Sssp {
                delta: Some(args.delta),
                rows: RowsArg::Plain,
            },
            dump: None,
        },
    ];
    let plan = Plan {
        threads,
        partition: partition.kind(),
        validate: true,
        warmup: true,
        prepared,
        balance: false,
    };
    let outcome = search::run(loaded.clone(), roots, specs, plan)?;
    if let Some(run) = outcome.runs.iter().find(|r| r.failure.is_some()) {
        crate::output::print_stdout(&format!("{INVALID_RUN}\n"))?;
        let (root, e) = run.failure.as_ref().expect("found by failure.is_some()");
        return Err(search::validation_error(run.kernel, *root, e));
    }
    let [bfs, sssp] = &outcome.runs[..] else {
        return Err(CliError::new(
            "internal error: expected a BFS and an SSSP run",
        ));
    };
    let generation_time = outcome.generation_time.unwrap_or(loaded.generation_time);
    let input = GraphReport::new(&args.input, &loaded, generation_time);
    let block = Block {
        scale: loaded.scale().unwrap_or(0),
        edgefactor: loaded.edgefactor().unwrap_or(0),
        generation_time,
        ranks: outcome.ranks,
        construction_time: outcome.construction_time,
        bfs,
        sssp,
    };
    if args.json {
        let bfs_mode = crate::record::mode_name(BfsModeArg::Do);
        return output::print_json(&Json {
            kernel: "graph500",
            input,
            nbfs: bfs.results.len(),
            ranks: outcome.ranks,
            threads,
            partition: crate::single::partition_name(partition),
            delta: args.delta,
            bfs_mode,
            construction_time_s: outcome.construction_time,
            bfs: KernelJson::of(bfs),
            sssp: KernelJson::of(sssp),
            trustees: crate::runtime::trustee_reports(),
            peak_rss_kib_per_rank: crate::runtime::peak_rss_kib_per_rank(),
            wall_time: crate::phases::wall_time(),
        });
    }
    output::print_stdout(&(block.render() + &block.in_units(&input)))?;
    // On stderr: stdout's lines are the reference's block and its units.
    for k in [bfs, sssp] {
        if let Some(p) = runtime::kernel_profile(k.kernel.name()) {
            eprint!("{}: {}", k.kernel.name(), p.summary_line());
        }
    }
    eprint!("{}", crate::phases::wall_time().line());
    Ok(())
}

/// `graph500 --json`: the statistics block's numbers, per search and in
/// summary, with the run's shape (times in seconds, TEPS in edges per
/// second).
#[derive(Serialize)]
struct Json {
    kernel: &'static str,
    #[serde(flatten)]
    input: GraphReport,
    /// Searches per kernel (the reference's NBFS).
    nbfs: usize,
    ranks: usize,
    threads: usize,
    partition: &'static str,
    delta: f32,
    /// BFS's mode (direction-optimizing).
    bfs_mode: &'static str,
    construction_time_s: f64,
    bfs: KernelJson,
    sssp: KernelJson,
    /// Every trustee of every rank (see `runtime::TrusteeReport`).
    trustees: Vec<crate::runtime::TrusteeReport>,
    /// Each rank's peak resident set (KiB), by rank.
    peak_rss_kib_per_rank: Vec<u64>,
    /// Where this process's wall time went, by phase.
    wall_time: crate::phases::WallTime,
}

/// One kernel's searches and their statistics, as in the block.
#[derive(Serialize)]
struct KernelJson {
    /// Kernel seconds per search.
    time_s: Summary,
    /// Traversed edges per second.
    teps: TepsSummary,
    /// Traversed input edges per search (the Graph500 count).
    nedge: Summary,
    /// Validation seconds per search.
    validate_s: Summary,
    /// One entry per search, in root order.
    roots: Vec<JsonSearch>,
    /// What the trustees did during this kernel's searches: busy, idle,
    /// collective, imbalance.
    #[serde(skip_serializing_if = "Option::is_none")]
    profile: Option<runtime::KernelProfile>,
}

/// One search of `graph500 --json`.
#[derive(Serialize)]
struct JsonSearch {
    root: u64,
    time_s: f64,
    teps: f64,
    traversed_edges: u64,
    reached: u64,
    validate_time_s: f64,
}

impl KernelJson {
    fn of(run: &KernelRun) -> KernelJson {
        let (t, e) = (times(run), edges(run));
        KernelJson {
            time_s: Summary::of(&t),
            teps: TepsSummary::of(&t, &e),
            nedge: Summary::of(&e),
            validate_s: Summary::of(&validate_times(run)),
            roots: run
                .results
                .iter()
                .map(|r| JsonSearch {
                    root: r.root,
                    time_s: r.time_s,
                    teps: r.teps(),
                    traversed_edges: r.traversed_edges,
                    reached: r.reached,
                    validate_time_s: r.validate_time_s.unwrap_or(-1.0),
                })
                .collect(),
            profile: runtime::kernel_profile(run.kernel.name()),
        }
    }
}

/// Everything the statistics block shows.
pub struct Block<'a> {
    pub scale: u32,
    pub edgefactor: u32,
    pub generation_time: f64,
    pub ranks: usize,
    pub construction_time: f64,
    pub bfs: &'a KernelRun,
    pub sssp: &'a KernelRun,
}

/// Appends `key: value` lines with the key padded to the reference's 32 columns.
struct Lines(String);

impl Lines {
    fn kv(&mut self, key: &str, value: impl std::fmt::Display) {
        let _ = writeln!(self.0, "{:<32}{value}", format!("{key}:"));
    }

    /// The seven summary lines `{prefix}min_{what}` .. `{prefix}stddev_{what}`.
    fn summary(&mut self, prefix: &str, what: &str, x: &Summary, fmt: fn(f64) -> String) {
        for (name, v) in [
            ("min", x.min),
            ("firstquartile", x.first_quartile),
            ("median", x.median),
            ("thirdquartile", x.third_quartile),
            ("max", x.max),
            ("mean", x.mean),
            ("stddev", x.stddev),
        ] {
            self.kv(&format!("{prefix}{name}_{what}"), fmt(v));
        }
    }

    fn teps(&mut self, prefix: &str, t: &TepsSummary) {
        self.kv(&format!("{prefix}min_TEPS"), g(t.min));
        self.kv(&format!("{prefix}firstquartile_TEPS"), g(t.first_quartile));
        self.kv(&format!("{prefix}median_TEPS"), g(t.median));
        self.kv(&format!("{prefix}thirdquartile_TEPS"), g(t.third_quartile));
        self.kv(&format!("{prefix}max_TEPS"), g(t.max));
        // The reference marks this line with a "!" inside the padding.
        let _ = writeln!(
            self.0,
            "{prefix}harmonic_mean_TEPS:     !  {}",
            g(t.harmonic_mean)
        );
        self.kv(
            &format!("{prefix}harmonic_stddev_TEPS"),
            g(t.harmonic_stddev),
        );
    }
}

fn nedge_fmt(v: f64) -> String {
    g_prec(v, 11)
}

fn times(run: &KernelRun) -> Vec<f64> {
    run.results.iter().map(|r| r.time_s).collect()
}

fn edges(run: &KernelRun) -> Vec<f64> {
    run.results
        .iter()
        .map(|r| r.traversed_edges as f64)
        .collect()
}

fn validate_times(run: &KernelRun) -> Vec<f64> {
    // The reference records -1 for a skipped validation.
    run.results
        .iter()
        .map(|r| r.validate_time_s.unwrap_or(-1.0))
        .collect()
}

impl Block<'_> {
    /// The block, in the reference's order and layout (its `main.c` report),
    /// followed by per-run lines like the ones the reference has compiled
    /// out (`Run   i: <time> s, validation <time> s`), prefixed with the
    /// kernel so that every key is unique.
    pub fn render(&self) -> String {
        let mut out = Lines(String::new());
        let n = self.bfs.results.len();
        out.kv("SCALE", self.scale);
        out.kv("edgefactor", self.edgefactor);
        out.kv("NBFS", n);
        out.kv("graph_generation", g(self.generation_time));
        out.kv("num_mpi_processes", self.ranks);
        out.kv("construction_time", g(self.construction_time));
        let (bfs_t, sssp_t) = (times(self.bfs), times(self.sssp));
        out.summary("bfs  ", "time", &Summary::of(&bfs_t), g);
        out.summary("sssp ", "time", &Summary::of(&sssp_t), g);
        // The reference's nedge lines show the counts of the last kernel
        // it ran (SSSP); both kernels traverse the same component.
        let nedge = edges(self.sssp);
        out.summary("", "nedge", &Summary::of(&nedge), nedge_fmt);
        out.teps("bfs  ", &TepsSummary::of(&bfs_t, &edges(self.bfs)));
        out.teps("sssp ", &TepsSummary::of(&sssp_t, &nedge));
        let (bfs_v, sssp_v) = (validate_times(self.bfs), validate_times(self.sssp));
        out.summary("bfs  ", "validate", &Summary::of(&bfs_v), g);
        out.summary("sssp ", "validate", &Summary::of(&sssp_v), g);
        for i in 0..n.min(self.sssp.results.len()) {
            for (prefix, t, v) in [("bfs  ", &bfs_t, &bfs_v), ("sssp ", &sssp_t, &sssp_v)] {
                out.kv(
                    &format!("{prefix}Run {:>3}", i + 1),
                    format!("{} s, validation {} s", g(t[i]), g(v[i])),
                );
            }
        }
        out.0
    }

    /// The block's main numbers in units a person reads, after it (the
    /// block's own lines stay the reference's, byte for byte).
    pub fn in_units(&self, input: &GraphReport) -> String {
        let mut out = Lines(String::new());
        for (prefix, run) in [("bfs  ", self.bfs), ("sssp ", self.sssp)] {
            let t = times(run);
            let teps = TepsSummary::of(&t, &edges(run));
            out.kv(
                &format!("{prefix}in units"),
                format!(
                    "harmonic mean {} (min {}, max {}), median time {} per search",
                    output::rate(teps.harmonic_mean),
                    output::rate(teps.min),
                    output::rate(teps.max),
                    output::seconds(Summary::of(&t).median),
                ),
            );
        }
        let what = if input.graph.is_some() {
            "load"
        } else {
            "generation"
        };
        let nedge = Summary::of(&edges(self.sssp)).median;
        out.kv(
            "graph in units",
            format!(
                "{what} {}, construction {}; {nedge} of its {} edge records traversed per search (median; self-loops and unreached edges are not counted)",
                output::seconds(self.generation_time),
                output::seconds(self.construction_time),
                input.edges,
            ),
        );
        out.0
    }
}
