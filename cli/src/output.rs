//! What the user reads: text on stdout, and the JSON and human-readable
//! reports of a single-kernel run.

use std::io::Write;

use serde::Serialize;

use crate::args::Input;
use crate::error::Result;
use crate::graph::LoadedGraph;
use crate::record::{KernelRun, RootResult};
use crate::stats::{Summary, TepsSummary};

/// Prints `text` on stdout; a closed pipe (`| head`) ends the output quietly.
pub fn print_stdout(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(crate::error::CliError::new(format!(
            "could not write to stdout: {e}"
        ))),
    }
}

/// Prints `report` as one line of JSON on stdout.
pub fn print_json(report: &impl Serialize) -> Result<()> {
    let text = serde_json::to_string(report).map_err(|e| {
        crate::error::CliError::new(format!("could not encode the JSON report: {e}"))
    })?;
    print_stdout(&format!("{text}\n"))
}

/// The input graph as the reports name it: generated, or the `--graph`
/// file it was read from, with its counts and the seconds it took to get.
#[derive(Serialize, Clone, Debug)]
pub struct GraphReport {
    /// The `--graph` file; `null` for a generated graph.
    pub graph: Option<String>,
    /// SCALE of a Graph500 graph (generated, or a file `generate` wrote);
    /// `null` for any other graph.
    pub scale: Option<u32>,
    /// Edgefactor of a Graph500 graph; `null` for any other graph.
    pub edgefactor: Option<u32>,
    /// Vertices.
    pub vertices: u64,
    /// Edge records of the input (arcs when directed), self-loops and
    /// repeats included.
    pub edges: u64,
    /// Whether the edges are arcs.
    pub directed: bool,
    /// Seconds generating a generated graph (absent for a file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generation_time_s: Option<f64>,
    /// Seconds loading a `--graph` file: mapping and checking what can be
    /// checked before the build, or parsing a text file (absent for a
    /// generated graph).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load_time_s: Option<f64>,
}

impl GraphReport {
    /// The graph of a run on `input`, held as `loaded`, which took
    /// `seconds` to generate or load.
    pub fn new(input: &Input, loaded: &LoadedGraph, seconds: f64) -> GraphReport {
        let params = loaded.params();
        let file = input.graph.as_ref().map(|p| p.display().to_string());
        GraphReport {
            scale: params.map(|p| p.scale),
            edgefactor: params.map(|p| p.edgefactor),
            vertices: loaded.num_vertices(),
            edges: loaded.num_edges(),
            directed: loaded.meta().directed,
            generation_time_s: file.is_none().then_some(seconds),
            load_time_s: file.is_some().then_some(seconds),
            graph: file,
        }
    }

    /// The graph in words, for a report's first line: `Graph500 SCALE 12,
    /// edgefactor 16 (4096 vertices, 65536 edges)` or `graph FILE (6
    /// vertices, 5 edges, directed)`.
    pub fn describe(&self) -> String {
        let graph500 = match (self.scale, self.edgefactor) {
            (Some(s), Some(e)) => Some(format!("Graph500 SCALE {s}, edgefactor {e}")),
            _ => None,
        };
        let counts = format!(
            "{} vertices, {} edges{}",
            self.vertices,
            self.edges,
            if self.directed { ", directed" } else { "" }
        );
        match (&self.graph, graph500) {
            (None, Some(g)) => format!("{g} ({counts})"),
            (Some(f), Some(g)) => format!("graph {f} ({counts}; {g})"),
            (Some(f), None) => format!("graph {f} ({counts})"),
            (None, None) => format!("graph ({counts})"),
        }
    }

    /// `generation X s` or `load X s`.
    pub fn time(&self) -> String {
        match (self.generation_time_s, self.load_time_s) {
            (Some(t), _) => format!("generation {t:.3} s"),
            (_, Some(t)) => format!("load {t:.3} s"),
            _ => String::new(),
        }
    }
}

/// One search in the JSON report.
#[derive(Serialize)]
pub struct JsonRoot {
    pub root: u64,
    pub time_s: f64,
    pub teps: f64,
    pub traversed_edges: u64,
    pub reached: u64,
    pub validated: bool,
}

/// The JSON report of a single-kernel run (one object on stdout).
#[derive(Serialize)]
pub struct JsonReport {
    pub kernel: &'static str,
    #[serde(flatten)]
    pub input: GraphReport,
    pub ranks: usize,
    pub threads: usize,
    pub partition: &'static str,
    /// SSSP's bucket width that ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delta: Option<f32>,
    /// SSSP: "given" (`--delta`) or "derived" (from the graph's weights and
    /// degree, see `delta_from`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delta_source: Option<&'static str>,
    /// SSSP with a derived delta: what it was derived from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delta_from: Option<DeltaFrom>,
    /// BFS's mode.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<&'static str>,
    pub construction_time_s: f64,
    pub roots: Vec<JsonRoot>,
    pub harmonic_mean_teps: f64,
    pub harmonic_stddev_teps: f64,
    pub median_time_s: f64,
    pub mean_time_s: f64,
    /// Every trustee of every rank: requests served, batches, busy and idle time.
    pub trustees: Vec<crate::runtime::TrusteeReport>,
    /// Each rank's peak resident set (KiB), by rank.
    pub peak_rss_kib_per_rank: Vec<u64>,
    /// What the trustees did during the searches: busy, idle, collective, imbalance.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<crate::runtime::KernelProfile>,
    /// Where this process's wall time went, by phase (set by the command
    /// just before it prints).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wall_time: Option<crate::phases::WallTime>,
    /// `--balance between-searches`: blocks and bytes moved, migration
    /// seconds, imbalance before and after.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub balance: Option<crate::record::BalanceReport>,
    /// BFS: how its rows were stored and their bytes over all trustees
    /// (`format`, `entries` after merging parallel edges, `target_bytes`,
    /// `bytes` with the per-vertex arrays).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows: Option<graph_kernel::RowsFootprint>,
}

/// What a derived delta was derived from: `max(w_min, w_max / d^2)`.
#[derive(Serialize)]
pub struct DeltaFrom {
    pub w_min: f32,
    pub w_max: f32,
    /// Adjacency entries per vertex (d).
    pub average_degree: f64,
}

/// Time and TEPS statistics over a kernel's searches.
pub fn summaries(results: &[RootResult]) -> (Summary, TepsSummary) {
    let times: Vec<f64> = results.iter().map(|r| r.time_s).collect();
    let edges: Vec<f64> = results.iter().map(|r| r.traversed_edges as f64).collect();
    (Summary::of(&times), TepsSummary::of(&times, &edges))
}

/// Describes a run for the reports.
pub struct RunInfo {
    /// The input graph.
    pub input: GraphReport,
    pub ranks: usize,
    pub threads: usize,
    pub partition: &'static str,
    pub construction_time: f64,
}

/// The JSON object for one kernel's run.
pub fn json_report(info: &RunInfo, run: &KernelRun, mode: Option<&'static str>) -> JsonReport {
    let delta = run.delta;
    let (time, teps) = summaries(&run.results);
    JsonReport {
        kernel: run.kernel.name(),
        input: info.input.clone(),
        ranks: info.ranks,
        threads: info.threads,
        partition: info.partition,
        delta: delta.map(|d| d.value),
        delta_source: delta.map(|d| {
            if d.derived_from.is_some() {
                "derived"
            } else {
                "given"
            }
        }),
        delta_from: delta.and_then(|d| d.derived_from).map(|p| DeltaFrom {
            w_min: p.min,
            w_max: p.max,
            average_degree: p.average_degree(),
        }),
        mode,
        construction_time_s: info.construction_time,
        roots: run
            .results
            .iter()
            .map(|r| JsonRoot {
                root: r.root,
                time_s: r.time_s,
                teps: r.teps(),
                traversed_edges: r.traversed_edges,
                reached: r.reached,
                validated: r.validated,
            })
            .collect(),
        harmonic_mean_teps: teps.harmonic_mean,
        harmonic_stddev_teps: teps.harmonic_stddev,
        median_time_s: time.median,
        mean_time_s: time.mean,
        trustees: crate::runtime::trustee_reports(),
        peak_rss_kib_per_rank: crate::runtime::peak_rss_kib_per_rank(),
        profile: crate::runtime::kernel_profile(run.kernel.name()),
        wall_time: None,
        balance: run.balance.clone(),
        rows: run.rows,
    }
}

/// The human-readable report of one kernel's run (`bfs --help` explains
/// each column).
pub fn human_report(info: &RunInfo, run: &KernelRun, setting: &str) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{}: {}; {} rank(s) x {} threads, {} partition{}",
        run.kernel.name(),
        info.input.describe(),
        info.ranks,
        info.threads,
        info.partition,
        setting
    );
    let _ = writeln!(
        s,
        "{}, construction {:.3} s",
        info.input.time(),
        info.construction_time
    );
    let _ = writeln!(
        s,
        "{:>10} {:>12} {:>10} {:>12} {:>10} {:>9}",
        "root", "time (s)", "MTEPS", "edges", "reached", "validated"
    );
    for r in &run.results {
        let _ = writeln!(
            s,
            "{:>10} {:>12.6} {:>10} {:>12} {:>10} {:>9}",
            r.root,
            r.time_s,
            mteps(r.teps()),
            r.traversed_edges,
            r.reached,
            if r.validated { "yes" } else { "skipped" }
        );
    }
    let (time, teps) = summaries(&run.results);
    let _ = writeln!(
        s,
        "{} searches: median time {:.6} s, harmonic mean {} (harmonic stddev {})",
        run.results.len(),
        time.median,
        rate(teps.harmonic_mean),
        rate(teps.harmonic_stddev),
    );
    let _ = writeln!(
        s,
        "(MTEPS: millions of input edges traversed per second; edges: the Graph500 count of input edges with both ends reached; validated: passed the Graph500 checks against the graph's edges. `{} --help` says more.)",
        run.kernel.name()
    );
    if let Some(r) = &run.rows {
        let _ = writeln!(
            s,
            "rows: {}, {} entries, {:.1} MB of targets ({:.2} B per entry), {:.1} MB with offsets and lengths",
            match r.format {
                graph_kernel::RowsFormat::Plain => "plain",
                graph_kernel::RowsFormat::Compressed => "compressed",
            },
            r.entries,
            r.target_bytes as f64 / 1e6,
            r.target_bytes as f64 / r.entries.max(1) as f64,
            r.bytes as f64 / 1e6,
        );
    }
    if let Some(p) = crate::runtime::kernel_profile(run.kernel.name()) {
        s += &p.summary_line();
    }
    if let Some(b) = &run.balance {
        let _ = writeln!(
            s,
            "balance between searches: {} move(s){}, {} blocks moved ({:.1} MiB of rows; {:.1} MiB copied in all{}), migration {:.3} s (outside the search times); imbalance {:.2} in the first search, {:.2} in the last (predicted {:.2})",
            b.rebuilds,
            if b.stopped {
                " (then stopped: a move gave less than half its predicted gain)"
            } else {
                ""
            },
            b.blocks_moved,
            b.bytes_moved as f64 / (1u64 << 20) as f64,
            b.bytes_copied as f64 / (1u64 << 20) as f64,
            if b.bytes_shipped > 0 {
                format!(
                    "; {:.1} MiB shipped to other ranks",
                    b.bytes_shipped as f64 / (1u64 << 20) as f64
                )
            } else {
                String::new()
            },
            b.migration_s,
            b.imbalance_before,
            b.imbalance_after,
            b.predicted_after
        );
    }
    s
}

/// TEPS in millions, with four significant digits (`1459`, `56.20`,
/// `0.2257`).
pub fn mteps(teps: f64) -> String {
    significant(teps / 1e6, 4)
}

/// A rate in the unit a person reads: `56.20 MTEPS`, `1.459 GTEPS`.
pub fn rate(teps: f64) -> String {
    if teps >= 1e9 {
        format!("{} GTEPS", significant(teps / 1e9, 4))
    } else {
        format!("{} MTEPS", significant(teps / 1e6, 4))
    }
}

/// Seconds in the unit a person reads: `2.50 s`, `15.5 ms`, `15.5 µs`.
pub fn seconds(s: f64) -> String {
    if s >= 1.0 || s <= 0.0 {
        format!("{} s", significant(s, 3))
    } else if s >= 1e-3 {
        format!("{} ms", significant(s * 1e3, 3))
    } else {
        format!("{} µs", significant(s * 1e6, 3))
    }
}

/// `x` with `digits` significant digits in plain notation (large numbers
/// keep all their integer digits; below 0.001, an exponent).
fn significant(x: f64, digits: i32) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let magnitude = x.abs().log10().floor() as i32;
    if magnitude < -3 {
        let decimals = (digits - 1).max(0) as usize;
        return format!("{x:.decimals$e}");
    }
    let decimals = (digits - 1 - magnitude).max(0) as usize;
    format!("{x:.decimals$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_come_in_units_a_person_reads() {
        assert_eq!(mteps(5.6197e7), "56.20");
        assert_eq!(mteps(1.4593e9), "1459");
        assert_eq!(mteps(2.2573e5), "0.2257");
        assert_eq!(rate(5.6197e7), "56.20 MTEPS");
        assert_eq!(rate(1.4593e9), "1.459 GTEPS");
        assert_eq!(rate(12.5e9), "12.50 GTEPS");
        assert_eq!(seconds(2.5), "2.50 s");
        assert_eq!(seconds(125.0), "125 s");
        assert_eq!(seconds(0.0155), "15.5 ms");
        assert_eq!(seconds(1.55e-5), "15.5 µs");
        assert_eq!(seconds(0.0), "0 s");
        assert_eq!(mteps(27.7), "2.770e-5");
    }
}
