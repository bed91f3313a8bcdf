//! The profiler: activity counters that add up, timelines with every
//! activity on the right worker, regions, and a bounded buffer that drops
//! and counts instead of growing. (Rack timelines: `cli/tests/trace.rs`.)

use gossamer::profile::{self, Activity, Timeline};
use gossamer::{entrust_on, Collective, Config, Runtime, WorkerId};

fn config(threads: usize, trace: bool, events: usize) -> Config {
    let mut c = Config::default();
    c.threads = threads;
    c.pin_threads = false;
    c.trace = trace;
    c.trace_events = events;
    c
}

/// Worker 0 applies `n` closures to a counter on worker 1, then every worker
/// takes part in `rounds` collective rounds.
fn workload(n: u64, rounds: usize) {
    let c = entrust_on(WorkerId(1), 0u64);
    for _ in 0..n {
        c.apply_then(|x| *x += 1, |()| {});
    }
    gossamer::wait_outstanding();
    assert_eq!(c.apply(|x| *x), n);
    let coll = Collective::new();
    gossamer::on_every_worker(move || {
        let mut p = coll.party();
        for _ in 0..rounds {
            p.barrier();
        }
    });
}

fn check_track_order(tl: &Timeline) {
    for t in &tl.tracks {
        for w in t.intervals.windows(2) {
            assert!(w[0].start_ns < w[0].end_ns, "{:?}", w[0]);
            assert!(w[0].end_ns <= w[1].start_ns, "{:?} then {:?}", w[0], w[1]);
        }
    }
}

#[test]
fn the_timeline_shows_each_workers_activities() {
    let tl = Runtime::builder()
        .config(config(2, true, 1 << 20))
        .run(|| {
            profile::region(|| "work".into(), || workload(20_000, 50));
            profile::timeline()
        })
        .unwrap();
    assert_eq!((tl.ranks, tl.threads, tl.tracks.len()), (1, 2, 2));
    assert_eq!(tl.dropped(), 0);
    check_track_order(&tl);
    let has = |w: usize, a: Activity| tl.tracks[w].intervals.iter().any(|i| i.activity == a);
    // Worker 1 served worker 0's batches; worker 0 ran the main fiber;
    // both waited in the collective rounds and idled at some point.
    assert!(has(1, Activity::Delegated));
    assert!(has(0, Activity::Fiber));
    for w in 0..2 {
        assert!(tl.tracks[w].recorded);
        assert!(has(w, Activity::Collective), "worker {w}");
        assert!(has(w, Activity::Idle) || w == 0, "worker {w}");
    }
    assert_eq!(tl.regions.len(), 1);
    let r = &tl.regions[0];
    assert_eq!((r.label.as_str(), r.worker), ("work", WorkerId(0)));
    assert!(r.start_ns < r.end_ns);
    // One process: one clock, no offset.
    assert_eq!(tl.clocks.len(), 1);
    assert_eq!((tl.clocks[0].offset_ns, tl.clocks[0].error_ns), (0, 0));
}

#[test]
fn a_full_buffer_drops_and_counts_instead_of_growing() {
    let cap = 16;
    let tl = Runtime::builder()
        .config(config(2, true, cap))
        .run(|| {
            workload(20_000, 200);
            profile::timeline()
        })
        .unwrap();
    for t in &tl.tracks {
        assert_eq!(t.intervals.len(), cap, "worker {}", t.worker);
        assert!(t.dropped > 0, "worker {} dropped nothing", t.worker);
    }
    check_track_order(&tl);
    assert_eq!(tl.dropped(), tl.tracks.iter().map(|t| t.dropped).sum());
}

#[test]
fn without_trace_the_tracks_are_empty_and_counters_still_add_up() {
    let (tl, before, after) = Runtime::builder()
        .config(config(3, false, 1 << 20))
        .run(|| {
            let before = gossamer::stats();
            profile::region(
                || unreachable!("labels are built only when recording"),
                || workload(5_000, 100),
            );
            let after = gossamer::stats();
            (profile::timeline(), before, after)
        })
        .unwrap();
    assert!(tl
        .tracks
        .iter()
        .all(|t| !t.recorded && t.intervals.is_empty()));
    assert!(tl.regions.is_empty());
    for (b, a) in before.iter().zip(&after) {
        let d = a.since(b);
        // Without a timeline, busy is not split.
        assert_eq!((a.delegated_ns, a.fiber_ns), (0, 0));
        assert!(d.busy_ns > 0, "{d:?}");
        assert!(d.collective_ns > 0, "{d:?}");
        assert!(
            d.busy_ns + d.idle_ns + d.collective_ns <= d.wall_ns,
            "{d:?}"
        );
        assert!(
            a.busy_ns + a.idle_ns + a.collective_ns <= a.wall_ns,
            "{a:?}"
        );
    }
    assert!(profile::imbalance(&after) >= 1.0);
}

#[test]
fn with_trace_busy_is_delegated_plus_fibers_and_matches_the_timeline() {
    let (tl, st) = Runtime::builder()
        .config(config(2, true, 1 << 20))
        .run(|| {
            workload(20_000, 20);
            let st = gossamer::stats();
            (profile::timeline(), st)
        })
        .unwrap();
    for (t, s) in tl.tracks.iter().zip(&st) {
        assert_eq!(s.busy_ns, s.delegated_ns + s.fiber_ns);
        assert!(
            s.busy_ns + s.idle_ns + s.collective_ns <= s.wall_ns,
            "{s:?}"
        );
        // The counters at the snapshot are the timeline's sums up to it
        // (the timeline goes on a little longer: the snapshot itself).
        let sum = |a: Activity| -> u64 {
            t.intervals
                .iter()
                .filter(|i| i.activity == a)
                .map(|i| i.end_ns - i.start_ns)
                .sum()
        };
        assert!(sum(Activity::Delegated) >= s.delegated_ns, "{s:?}");
        assert!(sum(Activity::Idle) >= s.idle_ns, "{s:?}");
        assert!(sum(Activity::Collective) >= s.collective_ns, "{s:?}");
    }
}

#[test]
fn imbalance_is_max_over_mean_busy() {
    let s = |busy_ns| gossamer::TrusteeStats {
        busy_ns,
        ..Default::default()
    };
    assert_eq!(profile::imbalance(&[s(10), s(10)]), 1.0);
    assert_eq!(profile::imbalance(&[s(30), s(10)]), 1.5);
    assert_eq!(profile::imbalance(&[s(0), s(0), s(9)]), 3.0);
    assert_eq!(profile::imbalance(&[s(0), s(0)]), 1.0);
}
