//! A non-blocking request in flight keeps its property alive, even when the trust
//! it was issued through leaves the issuing worker and the last weight is returned
//! from somewhere else before the request has run.
//!
//! Each test stages the race deterministically: the issuing fiber keeps its
//! worker busy (so its request stays unsent in the staging batch) while the
//! trust travels to another worker and is dropped there, and only lets the
//! request go once the property was dropped, or after a grace period when the
//! runtime keeps it alive (which is what it must do). The closure on the trustee
//! reads a per-test flag set by the value's `Drop`: set means the closure ran on
//! a dropped property (a use after free). Time bounds only decide how long to
//! hold the request back; no assertion depends on timing.

use gossamer::{entrust_on, spawn_on, wait_outstanding, Latch, Runtime, Trust, WorkerId};
use std::cell::Cell;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const TESTS: usize = 16;
#[allow(clippy::declare_interior_mutable_const)]
const CLEAR: AtomicBool = AtomicBool::new(false);
/// `DROPPED[id]`: the probe of test `id` has been dropped.
static DROPPED: [AtomicBool; TESTS] = [CLEAR; TESTS];

/// A value that says when it is dropped.
struct Probe {
    id: usize,
    runs: u64,
}

impl Drop for Probe {
    fn drop(&mut self) {
        DROPPED[self.id].store(true, Ordering::SeqCst);
    }
}

fn dropped(id: usize) -> bool {
    DROPPED[id].load(Ordering::SeqCst)
}

fn rt(threads: usize) -> gossamer::Builder {
    Runtime::builder().threads(threads).pin_threads(false)
}

/// Keeps this worker busy (its staged requests unsent, its trustee side
/// unserved) until probe `id` is dropped or a grace period has passed.
fn hold_until_dropped(id: usize) {
    let until = Instant::now() + Duration::from_millis(300);
    while !dropped(id) && Instant::now() < until {
        std::hint::spin_loop();
    }
}

/// What a non-blocking request does: runs on the probe and reports whether it
/// was already dropped; `sent` issues it through `t` with that continuation.
type Issue = fn(&Trust<Probe>, Box<dyn FnOnce(bool)>);

/// The scenario: a probe on worker 1, a request to it from worker 0 through
/// the only trust, the trust moved to worker `dropper` and dropped there (on
/// the trustee itself when `dropper` is 1); the request must run on the live
/// probe, and the probe must be dropped afterwards.
fn scenario(id: usize, threads: usize, dropper: usize, send: Issue) {
    scenario_from(id, threads, 0, dropper, send);
}

/// [`scenario`], with the request sent from worker `issuer`.
fn scenario_from(id: usize, threads: usize, issuer: usize, dropper: usize, send: Issue) {
    rt(threads)
        .run(move || spawn_on(WorkerId(issuer), move || issue_and_drop(id, dropper, send)).join())
        .expect("run");
}

fn issue_and_drop(id: usize, dropper: usize, send: Issue) {
    let t = entrust_on(WorkerId(1), Probe { id, runs: 0 });
    let saw = Rc::new(Cell::new(None));
    let s = saw.clone();
    send(&t, Box::new(move |was_dropped| s.set(Some(was_dropped))));
    // The request is staged on this worker; the trust leaves.
    let h = spawn_on(WorkerId(dropper), move || drop(t));
    hold_until_dropped(id);
    h.join();
    ran_live_then_dropped(
        id,
        &saw,
        "the request ran on a dropped property (use after free)",
    );
}

/// After the drop: the request (or launch) has run, on the live probe
/// (`saw` is what it found, `what` the failure message), and nothing keeps
/// the probe alive any more.
fn ran_live_then_dropped(id: usize, saw: &Cell<Option<bool>>, what: &str) {
    wait_outstanding();
    assert_eq!(saw.get(), Some(false), "{what}");
    let until = Instant::now() + Duration::from_secs(20);
    while !dropped(id) && Instant::now() < until {
        gossamer::yield_now();
    }
    assert!(dropped(id), "the probe was never dropped");
}

fn by_apply_then(t: &Trust<Probe>, k: Box<dyn FnOnce(bool)>) {
    t.apply_then(
        |p| {
            p.runs += 1;
            dropped(p.id)
        },
        k,
    );
}

#[test]
fn apply_then_outlives_its_trust_dropped_on_the_trustee() {
    scenario(0, 2, 1, by_apply_then);
}

#[test]
fn apply_then_outlives_its_trust_dropped_on_a_third_worker() {
    scenario(1, 3, 2, by_apply_then);
}

/// With more than 32 workers a `users` bit stands for several workers: here
/// the issuer (33) shares its bit with the trustee (1), which drops the trust.
#[test]
fn apply_then_outlives_its_trust_dropped_elsewhere_with_34_workers() {
    scenario_from(10, 34, 33, 1, by_apply_then);
}

#[test]
fn apply_with_then_outlives_its_trust_dropped_elsewhere() {
    scenario(2, 3, 2, |t, k| {
        t.apply_with_then(
            |p, v: Vec<u64>| {
                p.runs += v.len() as u64;
                dropped(p.id)
            },
            vec![1, 2, 3],
            k,
        )
    });
}

#[test]
fn apply_slice_then_outlives_its_trust_dropped_elsewhere() {
    scenario(3, 3, 2, |t, k| {
        t.apply_slice_then(
            |p, xs: &[u32]| {
                p.runs += xs.len() as u64;
                dropped(p.id)
            },
            &[1u32, 2, 3],
            k,
        )
    });
}

#[test]
fn apply_returning_then_outlives_its_trust_dropped_on_the_trustee() {
    scenario(4, 2, 1, |t, k| {
        t.apply_returning_then(
            |p| {
                p.runs += 1;
                dropped(p.id)
            },
            k,
        )
    });
}

/// `launch_then`: the latched probe on worker 1, launched on from worker 0,
/// the trust dropped on worker `dropper`.
fn launch_scenario(id: usize, threads: usize, dropper: usize) {
    rt(threads)
        .run(move || {
            let t = entrust_on(WorkerId(1), Latch::new(Probe { id, runs: 0 }));
            let saw = Rc::new(Cell::new(None));
            let s = saw.clone();
            t.launch_then(
                |p| {
                    p.runs += 1;
                    dropped(p.id)
                },
                move |d| s.set(Some(d)),
            );
            let h = spawn_on(WorkerId(dropper), move || drop(t));
            hold_until_dropped(id);
            h.join();
            ran_live_then_dropped(id, &saw, "the launch ran on a dropped property");
        })
        .expect("run");
}

#[test]
fn launch_then_outlives_its_trust_dropped_on_the_trustee() {
    launch_scenario(5, 2, 1);
}

#[test]
fn launch_then_outlives_its_trust_dropped_on_a_third_worker() {
    launch_scenario(6, 3, 2);
}

/// A request issued from worker 0 through `trust(&t)` runs on the live probe
/// while worker 2 does `on_2` with `t` (drops it, or moves the property and
/// drops it), and the probe is dropped after.
fn request_outlives_what_worker_2_does<T: Send + 'static>(
    id: usize,
    make: fn(Trust<Probe>) -> T,
    trust: fn(&T) -> &Trust<Probe>,
    on_2: fn(T),
) {
    rt(3)
        .run(move || {
            let t = make(entrust_on(WorkerId(1), Probe { id, runs: 0 }));
            let saw = Rc::new(Cell::new(None));
            let s = saw.clone();
            by_apply_then(trust(&t), Box::new(move |d| s.set(Some(d))));
            let h = spawn_on(WorkerId(2), move || on_2(t));
            hold_until_dropped(id);
            h.join();
            wait_outstanding();
            assert_eq!(saw.get(), Some(false), "use after free");
        })
        .expect("run");
    assert!(dropped(id));
}

/// A trust shared by reference (`Arc<Trust>`): worker 0 issues through it,
/// worker 2 drops the last `Arc`.
#[test]
fn apply_then_through_a_shared_trust_outlives_the_last_arc_dropped_elsewhere() {
    request_outlives_what_worker_2_does(7, Arc::new, |t| t, drop);
}

/// The property moves after the request was issued (so the request meets the
/// tombstone and is sent on), and the trust is dropped by the worker that
/// moved it, which already knows the new address.
#[test]
fn apply_then_outlives_its_trust_dropped_after_the_property_moved() {
    request_outlives_what_worker_2_does(
        8,
        |t| t,
        |t| t,
        |t| {
            assert!(t.migrate_to(WorkerId(2)));
            drop(t);
        },
    );
}

/// Many requests in flight from several workers through clones and a shared
/// trust, while every trust is dropped on some other worker: every request
/// runs on the live value, and the value is dropped once, at the end.
#[test]
fn many_requests_in_flight_while_every_trust_is_dropped_elsewhere() {
    let id = 9;
    let ran = rt(4)
        .run(move || {
            let t = entrust_on(WorkerId(3), Probe { id, runs: 0 });
            let shared = Arc::new(t.clone());
            let bad = Rc::new(Cell::new(0u64));
            let mut hs = Vec::new();
            for round in 0..20 {
                for _ in 0..50 {
                    let b = bad.clone();
                    shared.apply_then(
                        |p| {
                            p.runs += 1;
                            dropped(p.id)
                        },
                        move |d| b.set(b.get() + d as u64),
                    );
                }
                let c = t.clone();
                hs.push(spawn_on(WorkerId(1 + round % 3), move || drop(c)));
            }
            drop(t);
            let last = shared.clone();
            hs.push(spawn_on(WorkerId(2), move || drop(shared)));
            for h in hs {
                h.join();
            }
            let n = last.apply(|p| p.runs);
            spawn_on(WorkerId(1), move || drop(last)).join();
            wait_outstanding();
            assert_eq!(bad.get(), 0, "requests ran on a dropped property");
            n
        })
        .expect("run");
    assert_eq!(ran, 1000);
    assert!(dropped(id));
}
