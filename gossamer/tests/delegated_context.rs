//! Blocking in delegated context is refused with advice; panics there stop the run.
use gossamer::{entrust_on, Error, Runtime, WorkerId};

fn rt(threads: usize) -> gossamer::Builder {
    Runtime::builder().threads(threads).pin_threads(false)
}

fn expect_advice(e: Error) {
    let m = e.to_string();
    assert!(matches!(e, Error::DelegatedPanic(_)), "{m}");
    assert!(
        m.contains("apply_then") && m.contains("launch"),
        "message lacks advice: {m}"
    );
}

#[test]
fn blocking_apply_inside_a_delegated_closure_panics_with_advice() {
    let e = rt(2)
        .run(|| {
            let inner = entrust_on(WorkerId(0), 1u32);
            let outer = entrust_on(WorkerId(1), Some(inner));
            outer.apply(|o| o.as_ref().map(|i| i.apply(|x| *x)))
        })
        .unwrap_err();
    expect_advice(e);
}

#[test]
fn blocking_apply_inside_a_then_continuation_panics_with_advice() {
    let e = rt(2)
        .run(|| {
            let t = entrust_on(WorkerId(1), 1u32);
            let t2 = t.clone();
            t.apply_then(
                |x| *x,
                move |_| {
                    t2.apply(|x| *x);
                },
            );
            gossamer::wait_outstanding();
        })
        .unwrap_err();
    expect_advice(e);
}

#[test]
fn blocking_in_a_local_inline_closure_panics_too() {
    let r = rt(1).run(|| {
        let t = gossamer::entrust(0u32);
        let t2 = gossamer::entrust(Some(t));
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            t2.apply(|o| o.as_ref().map(|i| i.apply(|x| *x)));
        }))
        .map_err(|p| p.downcast_ref::<String>().cloned().unwrap_or_default())
    });
    let msg = r.unwrap().unwrap_err();
    assert!(
        msg.contains("apply_then") && msg.contains("launch"),
        "{msg}"
    );
}

#[test]
fn a_panicking_closure_stops_the_run_instead_of_hanging() {
    let e = rt(2)
        .run(|| {
            let t = entrust_on(WorkerId(1), 0u32);
            t.apply(|_| -> u32 { panic!("boom in trustee") })
        })
        .unwrap_err();
    assert!(e.to_string().contains("boom in trustee"), "{e}");
}

#[test]
fn a_panic_in_a_fiber_ends_the_run_with_its_message() {
    // Other fibers may be waiting on the one that died (in a collective, or
    // on a trust it would have answered), so a fiber's panic ends the run
    // even when its join could catch it (tests/fiber_panic.rs has the case
    // that used to hang).
    let r = rt(2).run(|| {
        let h = gossamer::spawn_on(WorkerId(1), || -> u32 { panic!("fiber failed: 42") });
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| h.join())).is_err()
    });
    match r {
        Err(gossamer::Error::DelegatedPanic(m)) => assert!(m.contains("fiber failed: 42"), "{m}"),
        other => panic!("expected the run to end with the fiber's panic, got {other:?}"),
    }
}

#[test]
#[should_panic(expected = "gossamer::main")]
fn calls_outside_a_runtime_explain_themselves() {
    let _ = gossamer::entrust(1u8);
}
