//! Core behaviour: apply, apply_then ordering, counters from many fibers.
use gossamer::{
    entrust, entrust_on, on_every_worker, spawn_spread, wait_outstanding, Runtime, Trust, WorkerId,
};
use std::cell::RefCell;
use std::rc::Rc;

fn rt(threads: usize) -> gossamer::Builder {
    Runtime::builder().threads(threads).pin_threads(false)
}

#[test]
fn doc_example_local_and_remote_apply() {
    let v = rt(2)
        .run(|| {
            let local = entrust(17u32);
            local.apply(|c| *c += 1);
            assert!(local.is_local());
            let remote = entrust_on(WorkerId(1), 5u64);
            assert!(!remote.is_local());
            assert_eq!(remote.trustee(), WorkerId(1));
            remote.apply(|c| *c *= 3);
            (local.apply(|c| *c), remote.apply(|c| *c))
        })
        .unwrap();
    assert_eq!(v, (18, 15));
}

#[test]
fn counter_from_many_fibers_on_every_worker_is_exact() {
    let total = rt(4)
        .run(|| {
            let counter = entrust_on(WorkerId(2), 0u64);
            let c2 = counter.clone();
            let per_worker = on_every_worker(move || {
                let hs = spawn_spread(0, |_| ()); // no-op, exercises the API
                drop(hs);
                let c = c2.clone();
                let me = gossamer::current_worker().0 as u64;
                let fibers: Vec<_> = (0..8)
                    .map(|k| {
                        let c = c.clone();
                        gossamer::spawn(move || {
                            for i in 0..200u64 {
                                let add = me * 1000 + k * 10 + i % 3;
                                if i % 2 == 0 {
                                    c.apply(move |x| *x += add);
                                } else {
                                    c.apply_then(move |x| *x += add, |()| {});
                                }
                            }
                            wait_outstanding();
                        })
                    })
                    .collect();
                for f in fibers {
                    f.join();
                }
                let mut s = 0;
                for k in 0..8u64 {
                    for i in 0..200u64 {
                        s += me * 1000 + k * 10 + i % 3;
                    }
                }
                s
            });
            let expect: u64 = per_worker.iter().sum();
            (counter.apply(|x| *x), expect)
        })
        .unwrap();
    assert_eq!(total.0, total.1);
}

#[test]
fn apply_then_order_is_preserved_per_client_and_trustee() {
    let ok = rt(3)
        .run(|| {
            let log: Trust<Vec<(usize, u32)>> = entrust_on(WorkerId(1), Vec::new());
            let l2 = log.clone();
            on_every_worker(move || {
                let me = gossamer::current_worker().0;
                let seen = Rc::new(RefCell::new(Vec::new()));
                for i in 0..3000u32 {
                    let s = seen.clone();
                    l2.apply_with_then(
                        move |v, ()| {
                            v.push((me, i));
                            i
                        },
                        (),
                        move |r| s.borrow_mut().push(r),
                    );
                }
                wait_outstanding();
                let s = seen.borrow();
                assert_eq!(
                    *s,
                    (0..3000).collect::<Vec<_>>(),
                    "then order on worker {me}"
                );
            });
            let v = log.apply_returning(|v| v.clone());
            assert_eq!(v.len(), 9000);
            for w in 0..3 {
                let mine: Vec<u32> = v.iter().filter(|e| e.0 == w).map(|e| e.1).collect();
                assert_eq!(
                    mine,
                    (0..3000).collect::<Vec<_>>(),
                    "trustee order for client {w}"
                );
            }
            true
        })
        .unwrap();
    assert!(ok);
}

#[test]
fn invalid_config_is_an_error_not_a_panic() {
    assert!(matches!(
        Runtime::builder().threads(0).run(|| ()),
        Err(gossamer::Error::Config(_))
    ));
    let e = Runtime::builder().slot_size(100).run(|| ()).unwrap_err();
    assert!(e.to_string().contains("slot_size"), "{e}");
    assert!(Runtime::builder().stack_size(10).run(|| ()).is_err());
}

#[test]
fn handles_are_send_and_trusts_sync_whatever_the_property() {
    fn send_sync<X: Send + Sync>() {}
    fn send<X: Send>() {}
    send_sync::<Trust<Rc<u8>>>();
    send_sync::<Trust<Vec<String>>>();
    send::<gossamer::JoinHandle<u64>>();
    send::<gossamer::Latch<Vec<u8>>>();
}

#[test]
fn spawn_spread_round_robins_and_joins() {
    let ws = rt(3)
        .run(|| {
            let hs = spawn_spread(7, |i| (i, gossamer::current_worker().0));
            hs.into_iter().map(|h| h.join()).collect::<Vec<_>>()
        })
        .unwrap();
    assert_eq!(ws, (0..7).map(|i| (i, i % 3)).collect::<Vec<_>>());
}
