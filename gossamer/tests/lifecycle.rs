//! Reference counting, shutdown drops, entrust_with, launch, stats.
use gossamer::{
    entrust, entrust_on, entrust_with, on_every_worker, spawn_on, wait_outstanding, Latch, Runtime,
    Trust, WorkerId,
};
use std::sync::atomic::{AtomicUsize, Ordering};

fn rt(threads: usize) -> gossamer::Builder {
    Runtime::builder().threads(threads).pin_threads(false)
}

static STORM_DROPS: AtomicUsize = AtomicUsize::new(0);
struct Counted(u64);
impl Drop for Counted {
    fn drop(&mut self) {
        STORM_DROPS.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn clone_drop_storm_drops_the_property_exactly_once() {
    rt(4)
        .run(|| {
            for round in 0..3u64 {
                let before = STORM_DROPS.load(Ordering::SeqCst);
                let t = entrust_on(WorkerId((round % 4) as usize), Counted(round));
                // Clones travel to every worker, are cloned again there (also inside
                // delegated continuations) and dropped in arbitrary interleavings.
                let t2 = t.clone();
                let hs: Vec<_> = (0..4)
                    .map(|w| {
                        let mine = t2.clone();
                        spawn_on(WorkerId(w), move || {
                            let mut v: Vec<Trust<Counted>> =
                                (0..50).map(|_| mine.clone()).collect();
                            for (i, c) in v.drain(..).enumerate() {
                                let cc = c.clone();
                                // clone and drop inside delegated context, too
                                c.apply_then(
                                    |x| x.0,
                                    move |_| {
                                        let again = cc.clone();
                                        drop(cc);
                                        drop(again);
                                    },
                                );
                                if i % 7 == 0 {
                                    gossamer::yield_now();
                                }
                            }
                            mine.apply(|x| x.0)
                        })
                    })
                    .collect();
                drop(t2);
                for h in hs {
                    assert_eq!(h.join(), round);
                }
                assert_eq!(
                    STORM_DROPS.load(Ordering::SeqCst),
                    before,
                    "dropped while a trust was alive"
                );
                drop(t);
                // The last release is asynchronous; wait until it has been applied.
                wait_outstanding();
                on_every_worker(wait_outstanding);
                for _ in 0..100_000 {
                    if STORM_DROPS.load(Ordering::SeqCst) != before {
                        break;
                    }
                    gossamer::yield_now();
                }
                assert_eq!(STORM_DROPS.load(Ordering::SeqCst), before + 1);
            }
        })
        .unwrap();
    assert_eq!(STORM_DROPS.load(Ordering::SeqCst), 3);
}

static SHUTDOWN_DROPS: AtomicUsize = AtomicUsize::new(0);
struct OnShutdown;
impl Drop for OnShutdown {
    fn drop(&mut self) {
        SHUTDOWN_DROPS.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn properties_still_entrusted_at_shutdown_are_dropped_once() {
    let leaked = rt(2)
        .run(|| {
            let a = entrust(OnShutdown);
            let b = entrust_on(WorkerId(1), OnShutdown);
            // Keep trusts alive past the end of main by leaking them into the result.
            std::mem::forget(a.clone());
            (a, b)
        })
        .unwrap();
    assert_eq!(SHUTDOWN_DROPS.load(Ordering::SeqCst), 2);
    drop(leaked); // outside the runtime: does nothing
    assert_eq!(SHUTDOWN_DROPS.load(Ordering::SeqCst), 2);
}

#[test]
fn entrust_with_builds_on_the_trustee() {
    let (w, v) = rt(3)
        .run(|| {
            let t = entrust_with(WorkerId(2), || (gossamer::current_worker().0, 7u32));
            assert_eq!(t.trustee(), WorkerId(2));
            let local = entrust_with(WorkerId(0), || 1u8);
            assert!(local.is_local());
            t.apply(|x| *x)
        })
        .unwrap();
    assert_eq!((w, v), (2, 7));
}

#[test]
fn launch_runs_a_blocking_closure_and_serialises_on_the_latch() {
    let r = rt(3)
        .run(|| {
            let other = entrust_on(WorkerId(2), 100u64);
            let o2 = other.clone();
            // The latched property holds another trust; launched closures do nested
            // blocking applies on it.
            let latched = entrust_on(WorkerId(1), Latch::new((0u64, o2)));
            let hs: Vec<_> = (0..3)
                .map(|w| {
                    let l = latched.clone();
                    spawn_on(WorkerId(w), move || {
                        for _ in 0..20 {
                            l.launch(|(n, o)| {
                                let before = *n;
                                let v = o.apply(|x| {
                                    *x += 1;
                                    *x
                                });
                                gossamer::yield_now();
                                // Nobody else ran on the latch while we were suspended.
                                assert_eq!(*n, before);
                                *n += 1;
                                v
                            });
                        }
                    })
                })
                .collect();
            for h in hs {
                h.join();
            }
            let mut got = 0;
            let seen = std::rc::Rc::new(std::cell::Cell::new(0u64));
            let s2 = seen.clone();
            latched.launch_then(|(n, _)| *n, move |n| s2.set(n));
            wait_outstanding();
            got += seen.get();
            (got, other.apply(|x| *x))
        })
        .unwrap();
    assert_eq!(r, (60, 160));
}

#[test]
fn stats_count_served_requests_and_batches() {
    rt(2)
        .run(|| {
            let before = gossamer::trustee_stats(WorkerId(1));
            let t = entrust_on(WorkerId(1), 0u32);
            for _ in 0..500 {
                t.apply_then(|x| *x += 1, |()| {});
            }
            wait_outstanding();
            let after = gossamer::trustee_stats(WorkerId(1));
            assert!(after.requests >= before.requests + 500, "{after:?}");
            assert!(after.batches > before.batches);
            assert!(after.batches <= after.requests);
            assert!(after.avg_batch() >= 1.0);
            assert!(after.busy_ns > 0);
            let all = gossamer::stats();
            assert_eq!(all.len(), 2);
            assert_eq!(all[1].worker, WorkerId(1));
            assert_eq!(t.apply(|x| *x), 500);
        })
        .unwrap();
}

#[test]
fn wait_outstanding_waits_for_every_then() {
    rt(2)
        .run(|| {
            let t = entrust_on(WorkerId(1), 0u64);
            let done = std::rc::Rc::new(std::cell::Cell::new(0u32));
            for i in 0..1000u64 {
                let d = done.clone();
                t.apply_then(move |x| *x += i, move |()| d.set(d.get() + 1));
            }
            // also a local one deferred from delegated context
            let local = entrust(0u32);
            let l2 = local.clone();
            let d = done.clone();
            t.apply_then(
                |_| (),
                move |()| {
                    let d = d.clone();
                    l2.apply_then(|x| *x += 1, move |()| d.set(d.get() + 1));
                },
            );
            wait_outstanding();
            // The local request was issued by a continuation after the first wait
            // began, so only a second wait covers it.
            assert!(done.get() >= 1000);
            wait_outstanding();
            assert_eq!(done.get(), 1001);
            assert_eq!(local.apply(|x| *x), 1);
            assert_eq!(t.apply(|x| *x), 499_500);
        })
        .unwrap();
}

static REFILL_DROPS: AtomicUsize = AtomicUsize::new(0);
struct RefillCounted;
impl Drop for RefillCounted {
    fn drop(&mut self) {
        REFILL_DROPS.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn many_clones_refill_weight_and_still_drop_once() {
    // Big slots: the 70,000 releases travel in ~100 batches.
    rt(2)
        .slot_size(16384)
        .run(|| {
            let t = entrust_on(WorkerId(1), RefillCounted);
            // Far more clones of one trust than its initial weight allows without
            // refills, some kept alive at once.
            let kept: Vec<Trust<RefillCounted>> = (0..70_000).map(|_| t.clone()).collect();
            // Clones inside delegated context (no refill possible there) still work
            // in moderate numbers.
            let holder = entrust(Some(t.clone()));
            let h2 = holder.clone();
            let other = entrust_on(WorkerId(1), 0u8);
            other.apply_then(
                |_| (),
                move |()| {
                    h2.apply_then(
                        |h| {
                            let inner = h.as_ref().expect("set");
                            for _ in 0..10_000 {
                                drop(inner.clone());
                            }
                        },
                        |()| {},
                    )
                },
            );
            wait_outstanding();
            wait_outstanding();
            drop(kept);
            drop(holder);
            drop(t);
            on_every_worker(wait_outstanding);
            assert_eq!(REFILL_DROPS.load(Ordering::SeqCst), 1);
        })
        .unwrap();
    assert_eq!(REFILL_DROPS.load(Ordering::SeqCst), 1);
}

#[test]
fn exhausting_a_remote_trust_in_delegated_context_panics_with_advice() {
    let e = rt(2)
        .run(|| {
            // The closure runs on trustee 1 and clones a trust whose trustee is 0.
            let remote = entrust(0u8);
            let holder = entrust_on(WorkerId(1), remote);
            holder.apply_then(
                |inner| {
                    for _ in 0..1_000_000 {
                        drop(inner.clone());
                    }
                },
                |()| {},
            );
            wait_outstanding();
        })
        .unwrap_err();
    let m = e.to_string();
    assert!(m.contains("weight") && m.contains("launch"), "{m}");
}
