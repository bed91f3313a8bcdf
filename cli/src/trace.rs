//! `--trace FILE`: every trustee's timeline (gossamer's profiler) written in
//! the Chrome trace-event JSON format, which Perfetto (<https://ui.perfetto.dev>)
//! and chrome://tracing open.
//!
//! Every rank records (the flag is on every rank's command line); at the end
//! of the run rank 0 collects all ranks' timelines by delegation, on its own
//! clock ([`gossamer::profile::timeline`] says how the clocks are aligned),
//! and writes the one file. The format:
//!
//! - one *process* per rank (`pid` = rank, named `rank R`), one *thread*
//!   (track) per trustee (`tid` = global worker index, named `trustee W`);
//! - one complete event (`"ph": "X"`) per interval of a trustee's activity,
//!   named `delegated`, `fiber`, `collective` or `idle` (category `activity`),
//!   times in microseconds (`ts`, `dur`) since the earliest recorded moment;
//! - labelled regions (one per search, or the whole-graph kernel) on a track
//!   of their own after the trustees' (`tid` = workers + worker index, named
//!   `regions of trustee W`), category `region`;
//! - a trustee whose buffer filled gets an instant event (`"ph": "i"`)
//!   `buffer full` at its last kept interval, with the number of intervals
//!   dropped after it (`args.dropped`);
//! - `otherData` holds the command, the date, ranks and threads, the total
//!   kept and dropped, the buffer size, and each rank's clock offset and its
//!   error bound.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use gossamer::profile::Timeline;
use serde::Serialize;

use crate::error::Result;

/// The file of `--trace`, set once by `main` (`None`: no trace).
static FILE: OnceLock<Option<PathBuf>> = OnceLock::new();

/// The timeline collected at the end of the last run (rank 0).
static COLLECTED: Mutex<Option<Timeline>> = Mutex::new(None);

/// Each trustee's buffer of the last run, in intervals (set by [`configure`]).
static BUFFER: OnceLock<usize> = OnceLock::new();

/// What the last trace written holds, for the reports.
static WRITTEN: Mutex<Option<TraceSummary>> = Mutex::new(None);

/// Sets the `--trace` file of this command (first call wins).
pub fn set(file: Option<PathBuf>) {
    let _ = FILE.set(file);
}

/// The `--trace` file, if any.
pub fn file() -> Option<&'static Path> {
    FILE.get().and_then(|f| f.as_deref())
}

/// Turns the runtime's timeline on when a trace was asked for.
pub fn configure(builder: gossamer::Builder) -> gossamer::Builder {
    if file().is_none() {
        return builder;
    }
    let mut cfg = builder.get_config().clone();
    cfg.trace = true;
    if let Some(n) = crate::hooks::trace_events() {
        cfg.trace_events = n;
    }
    let _ = BUFFER.set(cfg.trace_events);
    builder.config(cfg)
}

/// Collects every rank's timeline (inside the runtime, on rank 0, after the
/// work), when a trace was asked for.
pub fn collect() {
    if file().is_some() {
        let tl = gossamer::profile::timeline();
        *COLLECTED.lock().unwrap_or_else(|p| p.into_inner()) = Some(tl);
    }
}

/// What a written trace holds (in the JSON reports, `profile.trace`).
#[derive(Clone, Debug, Serialize)]
pub struct TraceSummary {
    /// The file written.
    pub file: String,
    /// Activity intervals written, over all trustees.
    pub intervals: usize,
    /// Intervals dropped because a trustee's buffer was full.
    pub dropped: u64,
    /// Each trustee's buffer, in intervals (`gossamer::Config::trace_events`).
    pub buffer_intervals: usize,
    /// The largest error bound of a rank's clock offset, microseconds.
    pub clock_error_us: f64,
}

/// The summary of the trace written by the last run, if any.
pub fn written() -> Option<TraceSummary> {
    WRITTEN.lock().unwrap_or_else(|p| p.into_inner()).clone()
}

/// Writes the collected timeline to the `--trace` file (rank 0, after the
/// run) and says so on stderr.
pub fn write_collected() -> Result<()> {
    let Some(path) = file() else { return Ok(()) };
    let Some(tl) = COLLECTED.lock().unwrap_or_else(|p| p.into_inner()).take() else {
        return Ok(());
    };
    let buffer = BUFFER
        .get()
        .copied()
        .unwrap_or(gossamer::Config::default().trace_events);
    let command: Vec<String> = std::env::args().collect();
    crate::files::write_with(path, |w| write_chrome(w, &tl, &command.join(" "), buffer))?;
    let summary = TraceSummary {
        file: path.display().to_string(),
        intervals: tl.intervals(),
        dropped: tl.dropped(),
        buffer_intervals: buffer,
        clock_error_us: tl.clocks.iter().map(|c| c.error_ns).max().unwrap_or(0) as f64 * 1e-3,
    };
    let clocks = if tl.ranks > 1 {
        format!(
            "; ranks' clocks aligned to rank 0's within {:.1} us",
            summary.clock_error_us
        )
    } else {
        String::new()
    };
    let dropped = if summary.dropped > 0 {
        format!(
            "; {} dropped: a trustee's buffer of {} intervals filled, its track ends there",
            summary.dropped, buffer
        )
    } else {
        String::new()
    };
    eprintln!(
        "trace: wrote {} ({} intervals of {} trustees{dropped}{clocks})",
        summary.file,
        summary.intervals,
        tl.tracks.len()
    );
    *WRITTEN.lock().unwrap_or_else(|p| p.into_inner()) = Some(summary);
    Ok(())
}

/// Microseconds with nanosecond digits, as the format's `ts` and `dur` take them.
fn us(ns: u64) -> String {
    format!("{}.{:03}", ns / 1000, ns % 1000)
}

/// A JSON string (quoted, escaped).
fn js(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

/// Writes `tl` as a Chrome trace-event JSON object (see the module docs).
pub fn write_chrome(
    w: &mut dyn Write,
    tl: &Timeline,
    command: &str,
    buffer: usize,
) -> std::io::Result<()> {
    let n = tl.tracks.len();
    writeln!(w, "{{\"traceEvents\":[")?;
    let mut first = true;
    let mut event = |w: &mut dyn Write, text: String| -> std::io::Result<()> {
        if !first {
            w.write_all(b",\n")?;
        }
        first = false;
        w.write_all(text.as_bytes())
    };
    for r in 0..tl.ranks {
        event(
            w,
            format!(r#"{{"name":"process_name","ph":"M","pid":{r},"args":{{"name":"rank {r}"}}}}"#),
        )?;
        event(
            w,
            format!(
                r#"{{"name":"process_sort_index","ph":"M","pid":{r},"args":{{"sort_index":{r}}}}}"#
            ),
        )?;
    }
    for t in &tl.tracks {
        let (pid, tid) = (t.rank, t.worker.index());
        event(
            w,
            format!(
                r#"{{"name":"thread_name","ph":"M","pid":{pid},"tid":{tid},"args":{{"name":"trustee {tid}"}}}}"#
            ),
        )?;
        event(
            w,
            format!(
                r#"{{"name":"thread_sort_index","ph":"M","pid":{pid},"tid":{tid},"args":{{"sort_index":{tid}}}}}"#
            ),
        )?;
    }
    let mut region_tracks: Vec<usize> = tl.regions.iter().map(|r| r.worker.index()).collect();
    region_tracks.sort_unstable();
    region_tracks.dedup();
    for &wk in &region_tracks {
        let (pid, tid) = (tl.tracks[wk].rank, n + wk);
        event(
            w,
            format!(
                r#"{{"name":"thread_name","ph":"M","pid":{pid},"tid":{tid},"args":{{"name":"regions of trustee {wk}"}}}}"#
            ),
        )?;
        event(
            w,
            format!(
                r#"{{"name":"thread_sort_index","ph":"M","pid":{pid},"tid":{tid},"args":{{"sort_index":{tid}}}}}"#
            ),
        )?;
    }
    for t in &tl.tracks {
        let (pid, tid) = (t.rank, t.worker.index());
        for i in &t.intervals {
            event(
                w,
                format!(
                    r#"{{"name":"{}","cat":"activity","ph":"X","pid":{pid},"tid":{tid},"ts":{},"dur":{}}}"#,
                    i.activity.name(),
                    us(i.start_ns),
                    us(i.end_ns - i.start_ns)
                ),
            )?;
        }
        if t.dropped > 0 {
            let at = t.intervals.last().map_or(0, |i| i.end_ns);
            event(
                w,
                format!(
                    r#"{{"name":"buffer full","cat":"dropped","ph":"i","s":"t","pid":{pid},"tid":{tid},"ts":{},"args":{{"dropped":{}}}}}"#,
                    us(at),
                    t.dropped
                ),
            )?;
        }
    }
    for r in &tl.regions {
        let wk = r.worker.index();
        event(
            w,
            format!(
                r#"{{"name":{},"cat":"region","ph":"X","pid":{},"tid":{},"ts":{},"dur":{},"args":{{"worker":{wk}}}}}"#,
                js(&r.label),
                r.rank,
                n + wk,
                us(r.start_ns),
                us(r.end_ns.saturating_sub(r.start_ns))
            ),
        )?;
    }
    let clocks: Vec<String> = tl
        .clocks
        .iter()
        .map(|c| {
            format!(
                r#"{{"rank":{},"offset_ns":{},"error_ns":{}}}"#,
                c.rank, c.offset_ns, c.error_ns
            )
        })
        .collect();
    writeln!(w, "\n],")?;
    writeln!(w, "\"displayTimeUnit\":\"ns\",")?;
    writeln!(
        w,
        "\"otherData\":{{\"tool\":\"gossamer-graph {}\",\"command\":{},\"date\":{},\"ranks\":{},\"threads\":{},\"intervals\":{},\"dropped\":{},\"buffer_intervals_per_trustee\":{},\"clock\":{},\"clocks\":[{}]}}",
        env!("CARGO_PKG_VERSION"),
        js(command),
        js(&utc_now()),
        tl.ranks,
        tl.threads,
        tl.intervals(),
        tl.dropped(),
        buffer,
        js("each rank's monotonic clock, shifted by its offset to rank 0's (measured by the shortest of 16 delegated round trips; error_ns bounds the error); ts = microseconds since the earliest recorded moment"),
        clocks.join(",")
    )?;
    writeln!(w, "}}")
}

/// Now in UTC, as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn microseconds_keep_nanosecond_digits() {
        assert_eq!(us(0), "0.000");
        assert_eq!(us(1_234_567), "1234.567");
        assert_eq!(us(5), "0.005");
    }

    #[test]
    fn the_date_is_an_iso_utc_timestamp() {
        let d = utc_now();
        assert_eq!(d.len(), 20, "{d}");
        assert!(d.starts_with("20") && d.ends_with('Z'), "{d}");
        assert_eq!(&d[4..5], "-");
        assert_eq!(&d[10..11], "T");
    }

    #[test]
    fn an_empty_timeline_is_valid_json() {
        let tl = Timeline {
            ranks: 1,
            threads: 1,
            ..Timeline::default()
        };
        let mut out = Vec::new();
        write_chrome(&mut out, &tl, "gossamer-graph \"x\"", 8).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["otherData"]["command"], "gossamer-graph \"x\"");
        assert_eq!(v["traceEvents"].as_array().unwrap().len(), 2);
    }
}
