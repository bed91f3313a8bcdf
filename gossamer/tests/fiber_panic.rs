//! A panic in any fiber ends the run instead of leaving the fibers that wait
//! on it parked forever (issue: `sssp --delta 1e-30` panicked in one trustee's
//! fiber and the process spun for ever while the others waited in an
//! all-reduce). The time bound is a hang guard only.

use gossamer::{spawn_on, Collective, Error, Runtime, WorkerId};
use std::sync::mpsc;
use std::time::Duration;

/// Runs `f` on a thread and waits at most a minute for it.
fn guarded<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(60))
        .expect("hang: the run did not stop after a fiber panicked")
}

#[test]
fn a_fiber_that_panics_before_a_collective_stops_the_run() {
    let r = guarded(|| {
        Runtime::builder().threads(2).pin_threads(false).run(|| {
            let c = Collective::new();
            let c1 = c.clone();
            // Worker 1's fiber dies before it takes part; worker 0's waits
            // for it in the all-reduce.
            let dead = spawn_on(WorkerId(1), move || {
                let _p = c1.party();
                panic!("boom before the all-reduce");
            });
            let live = spawn_on(WorkerId(0), move || {
                let mut p = c.party();
                p.all_reduce([1], [gossamer::Op::Sum])
            });
            let v = live.join();
            dead.join();
            v
        })
    });
    match r {
        Err(Error::DelegatedPanic(m)) => {
            assert!(m.contains("boom before the all-reduce"), "{m}");
            assert!(m.contains("worker 1"), "{m}");
        }
        other => panic!("expected the run to fail with the panic, got {other:?}"),
    }
}

#[test]
fn a_panic_in_the_main_fiber_still_reaches_the_caller() {
    let r = guarded(|| {
        std::panic::catch_unwind(|| {
            Runtime::builder()
                .threads(2)
                .pin_threads(false)
                .run(|| -> u32 { panic!("main says no") })
        })
    });
    let p = r.expect_err("the main fiber's panic is resumed on the caller");
    let msg = p
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    assert!(msg.contains("main says no"), "{msg}");
}
