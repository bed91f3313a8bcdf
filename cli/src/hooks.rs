//! Test hooks: environment variables the integration tests set to reach
//! paths a real run cannot (a failed validation, a machine too small).
//! They are read only in test builds: `graph-kernel`'s `test-hooks`
//! feature, which this package's dev-dependency turns on, so
//! `cargo test` runs the binary with them and the binary of
//! `cargo build` / `cargo install` has none (not even their names). To
//! measure with them (results/memory), build with
//! `--features graph-kernel/test-hooks`.

// The one place that says where hooks come from.
use graph_kernel::test_hook as hook;

/// `GOSSAMER_GRAPH_TEST_CORRUPT_ANSWERS=1`: every search's answer is
/// spoiled before validation, so the tests see how a failed validation is
/// reported.
pub fn corrupt_answers() -> bool {
    hook!("GOSSAMER_GRAPH_TEST_CORRUPT_ANSWERS").is_some_and(|v| v == "1")
}

/// `GOSSAMER_GRAPH_AVAILABLE_BYTES=N`: the memory check and `plan` see `N`
/// bytes available instead of this machine's `MemAvailable`.
pub fn available_bytes() -> Option<u64> {
    hook!("GOSSAMER_GRAPH_AVAILABLE_BYTES").and_then(|v| v.to_str()?.parse().ok())
}

/// `GOSSAMER_GRAPH_TEST_BUSY=S,S,...`: the between-searches balancer reads
/// these busy seconds (one per trustee) instead of the last search's, so
/// the tests see an imbalance whatever the machine measures.
pub fn pretend_busy() -> Option<Vec<f64>> {
    let v = hook!("GOSSAMER_GRAPH_TEST_BUSY")?;
    v.to_str()?.split(',').map(|x| x.parse().ok()).collect()
}

/// `GOSSAMER_GRAPH_TEST_SEARCH_S=S`: the between-searches balancer counts
/// each search as taking `S` seconds, so the tests' tiny searches can
/// repay a move.
pub fn pretend_search_s() -> Option<f64> {
    hook!("GOSSAMER_GRAPH_TEST_SEARCH_S").and_then(|v| v.to_str()?.parse().ok())
}

/// `GOSSAMER_GRAPH_TEST_KILL_RANK_BEFORE_MOVE=R`: just before the
/// between-searches balancer moves blocks, rank `R`'s process aborts, so
/// the tests see a move to a rank that died fail (not hang).
pub fn kill_rank_before_move() -> Option<usize> {
    hook!("GOSSAMER_GRAPH_TEST_KILL_RANK_BEFORE_MOVE").and_then(|v| v.to_str()?.parse().ok())
}

/// `GOSSAMER_GRAPH_TEST_DUMP_SEARCH=N`: `--dump-dist` / `--dump-levels`
/// write the answer of search `N` (from 0) instead of the first, so the
/// tests compare an answer given after blocks moved.
pub fn dump_search() -> Option<usize> {
    hook!("GOSSAMER_GRAPH_TEST_DUMP_SEARCH").and_then(|v| v.to_str()?.parse().ok())
}

/// Refuses a hook's value it could not use (only in test builds, where the
/// hooks exist), so a test that sets one wrongly fails instead of silently
/// running without it.
pub fn check_env() -> Result<(), String> {
    if let Some(v) = hook!("GOSSAMER_GRAPH_TEST_CORRUPT_ANSWERS") {
        if v != "1" && v != "0" {
            return Err(format!(
                "GOSSAMER_GRAPH_TEST_CORRUPT_ANSWERS={v:?}: expected 1 or 0"
            ));
        }
    }
    if hook!("GOSSAMER_GRAPH_TEST_BUSY").is_some() && pretend_busy().is_none() {
        return Err("GOSSAMER_GRAPH_TEST_BUSY: expected seconds separated by commas".into());
    }
    if hook!("GOSSAMER_GRAPH_TEST_SEARCH_S").is_some() && pretend_search_s().is_none() {
        return Err("GOSSAMER_GRAPH_TEST_SEARCH_S: expected seconds".into());
    }
    let numbers = [
        (
            "GOSSAMER_GRAPH_TEST_DUMP_SEARCH",
            hook!("GOSSAMER_GRAPH_TEST_DUMP_SEARCH"),
        ),
        (
            "GOSSAMER_GRAPH_TEST_KILL_RANK_BEFORE_MOVE",
            hook!("GOSSAMER_GRAPH_TEST_KILL_RANK_BEFORE_MOVE"),
        ),
        (
            "GOSSAMER_GRAPH_AVAILABLE_BYTES",
            hook!("GOSSAMER_GRAPH_AVAILABLE_BYTES"),
        ),
        (
            "GOSSAMER_GRAPH_TRACE_EVENTS",
            hook!("GOSSAMER_GRAPH_TRACE_EVENTS"),
        ),
    ];
    for (name, value) in numbers {
        if let Some(v) = value {
            if v.to_str().and_then(|s| s.parse::<u64>().ok()).is_none() {
                return Err(format!("{name}={v:?}: expected a whole number"));
            }
        }
    }
    Ok(())
}

/// `GOSSAMER_GRAPH_TRACE_EVENTS=N`: with `--trace`, each trustee keeps `N`
/// intervals instead of `gossamer::Config::trace_events`' default, so the
/// tests see a full buffer drop and count.
pub fn trace_events() -> Option<usize> {
    hook!("GOSSAMER_GRAPH_TRACE_EVENTS").and_then(|v| v.to_str()?.parse().ok())
}
