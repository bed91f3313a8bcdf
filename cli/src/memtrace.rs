//! Measurement hook: with `GOSSAMER_GRAPH_MEMTRACE=1`, each phase of a run
//! reports its own peak resident set on stderr (`memtrace <phase> peak
//! <KiB> KiB, now <KiB> KiB`), so the memory model (`plan`) can be checked
//! phase by phase (results/memory/). The peak is reset at the start of each
//! phase through `/proc/self/clear_refs`. Not for users (no flag, no help).

/// Whether the hook is on.
fn enabled() -> bool {
    std::env::var_os("GOSSAMER_GRAPH_MEMTRACE").is_some_and(|v| v == "1")
}

/// Refuses a value of `GOSSAMER_GRAPH_MEMTRACE` other than `1` or `0`
/// (checked once in `main`, before anything runs).
pub fn check_env() -> Result<(), String> {
    match std::env::var_os("GOSSAMER_GRAPH_MEMTRACE") {
        Some(v) if v != "1" && v != "0" => Err(format!(
            "GOSSAMER_GRAPH_MEMTRACE={v:?}: expected 1 (report each phase's peak memory on stderr) or 0"
        )),
        _ => Ok(()),
    }
}

/// `VmHWM` and `VmRSS` of this process in KiB.
pub fn peaks() -> Option<(u64, u64)> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| -> Option<u64> {
        let line = text.lines().find(|l| l.starts_with(name))?;
        line.split_whitespace().nth(1)?.parse().ok()
    };
    Some((field("VmHWM:")?, field("VmRSS:")?))
}

/// Starts a phase: resets the peak resident set to the current one.
pub fn start() {
    if enabled() {
        // Best effort: without it the peaks are cumulative.
        let _ = std::fs::write("/proc/self/clear_refs", "5");
    }
}

/// Ends a phase: reports its peak and the resident set now.
pub fn end(phase: &str) {
    if enabled() {
        if let Some((hwm, rss)) = peaks() {
            eprintln!("memtrace {phase} peak {hwm} KiB, now {rss} KiB");
        }
    }
}
