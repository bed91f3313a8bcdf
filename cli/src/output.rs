//! What the user reads: text on stdout, and the JSON and human-readable
//! reports of a single-kernel run.

use std::io::Write;

use serde::Serialize;

use crate::error::Result;
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
    pub scale: Option<u32>,
    pub edgefactor: Option<u32>,
    pub vertices: u64,
    pub edges: u64,
    pub ranks: usize,
    pub threads: usize,
    pub partition: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delta: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<&'static str>,
    pub generation_time_s: f64,
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
}

/// Time and TEPS statistics over a kernel's searches.
pub fn summaries(results: &[RootResult]) -> (Summary, TepsSummary) {
    let times: Vec<f64> = results.iter().map(|r| r.time_s).collect();
    let edges: Vec<f64> = results.iter().map(|r| r.traversed_edges as f64).collect();
    (Summary::of(&times), TepsSummary::of(&times, &edges))
}

/// Describes a run for the human-readable header line.
pub struct RunInfo {
    pub ranks: usize,
    pub scale: Option<u32>,
    pub edgefactor: Option<u32>,
    pub vertices: u64,
    pub edges: u64,
    pub threads: usize,
    pub partition: &'static str,
    pub generation_time: f64,
    pub construction_time: f64,
}

/// The JSON object for one kernel's run.
pub fn json_report(
    info: &RunInfo,
    run: &KernelRun,
    delta: Option<f32>,
    mode: Option<&'static str>,
) -> JsonReport {
    let (time, teps) = summaries(&run.results);
    JsonReport {
        kernel: run.kernel.name(),
        scale: info.scale,
        edgefactor: info.edgefactor,
        vertices: info.vertices,
        edges: info.edges,
        ranks: info.ranks,
        threads: info.threads,
        partition: info.partition,
        delta,
        mode,
        generation_time_s: info.generation_time,
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
    }
}

/// The human-readable report of one kernel's run.
pub fn human_report(info: &RunInfo, run: &KernelRun, setting: &str) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let opt = |x: Option<u32>| x.map_or_else(|| "?".to_string(), |v| v.to_string());
    let _ = writeln!(
        s,
        "{}: SCALE {}, edgefactor {} ({} vertices, {} edges); {} rank(s) x {} threads, {} partition{}",
        run.kernel.name(),
        opt(info.scale),
        opt(info.edgefactor),
        info.vertices,
        info.edges,
        info.ranks,
        info.threads,
        info.partition,
        setting
    );
    let _ = writeln!(
        s,
        "generation {:.3} s, construction {:.3} s",
        info.generation_time, info.construction_time
    );
    let _ = writeln!(
        s,
        "{:>10} {:>12} {:>14} {:>12} {:>10} {:>9}",
        "root", "time (s)", "TEPS", "edges", "reached", "validated"
    );
    for r in &run.results {
        let _ = writeln!(
            s,
            "{:>10} {:>12.6} {:>14.4e} {:>12} {:>10} {:>9}",
            r.root,
            r.time_s,
            r.teps(),
            r.traversed_edges,
            r.reached,
            if r.validated { "yes" } else { "skipped" }
        );
    }
    let (time, teps) = summaries(&run.results);
    let _ = writeln!(
        s,
        "{} searches: median time {:.6} s, harmonic mean {:.4e} TEPS (harmonic stddev {:.4e})",
        run.results.len(),
        time.median,
        teps.harmonic_mean,
        teps.harmonic_stddev
    );
    if let Some(p) = crate::runtime::kernel_profile(run.kernel.name()) {
        s += &p.summary_line();
    }
    s
}
