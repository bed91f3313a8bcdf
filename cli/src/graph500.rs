//! `gossamer-graph graph500`: the Graph500 benchmark — BFS and SSSP from the
//! 64 roots, every search validated — reported in the reference's
//! statistics block, line for line (`key: value`, C `%g` numbers), so tools
//! that read the reference's output read ours.

use std::fmt::Write as _;
use std::sync::Arc;

use crate::args::{BfsModeArg, Graph500Args, RootChoice};
use crate::cfmt::{g, g_prec};
use crate::error::{CliError, Result};
use crate::graph;
use crate::record::{Kernel, KernelRun};
use crate::runtime;
use crate::search::{self, KernelSpec, Plan};
use crate::stats::{Summary, TepsSummary};

/// The reference's line for an invalid run.
pub const INVALID_RUN: &str = "No results printed for invalid run.";

/// Runs the `graph500` command.
pub fn run(args: &Graph500Args) -> Result<()> {
    crate::sssp::check_delta_arg(args.delta)?;
    let threads = runtime::threads(args.run.threads)?;
    let mut loaded = if args.prepared.prepared.is_some() {
        graph::load_described(&args.input, &args.gen, threads, args.run.force)?
    } else {
        graph::load_streamed(&args.input, &args.gen, threads, args.run.force)?
    };
    loaded.check_kernel("graph500", true, args.unit_weights)?;
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
            },
            dump: None,
        },
        KernelSpec {
            kernel: Kernel::Sssp {
                delta: Some(args.delta),
            },
            dump: None,
        },
    ];
    let plan = Plan {
        threads,
        partition: args.run.partition.kind(),
        validate: true,
        warmup: true,
        prepared,
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
    let block = Block {
        scale: loaded.scale().unwrap_or(0),
        edgefactor: loaded.edgefactor().unwrap_or(0),
        generation_time: outcome.generation_time.unwrap_or(loaded.generation_time),
        ranks: outcome.ranks,
        construction_time: outcome.construction_time,
        bfs,
        sssp,
    };
    crate::output::print_stdout(&block.render())?;
    // Not in the block, whose lines are the reference's.
    for k in ["bfs", "sssp"] {
        if let Some(p) = runtime::kernel_profile(k) {
            eprint!("{k}: {}", p.summary_line());
        }
    }
    Ok(())
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
}
