//! Trusts that move: `Trust::migrate_to` while clients on every worker apply
//! closures, trusts made before a move, order, drops, affinity.
use gossamer::{
    entrust_near, entrust_on, on_every_worker, spawn, spawn_near, spawn_on, spawn_on_with,
    wait_outstanding, yield_now, Latch, Runtime, Trust, WorkerId,
};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

fn rt(threads: usize) -> gossamer::Builder {
    Runtime::builder().threads(threads).pin_threads(false)
}

/// A counter that counts its own drops.
struct Counted {
    n: u64,
    drops: Arc<AtomicUsize>,
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.drops.fetch_add(1, Ordering::SeqCst);
    }
}

/// Moves `t` round the `n` workers `count` times, yielding between moves. (A
/// value moved without pause for ever can keep requests that chase it waiting:
/// the moves are counted so that the clients always finish.)
fn mover<T: Send + 'static>(t: Trust<T>, n: usize, count: u64) -> u64 {
    let mut moves = 0u64;
    let mut k = 0;
    while moves < count {
        k = (k + 1) % n;
        if t.trustee() == WorkerId(k) {
            continue;
        }
        assert!(t.migrate_to(WorkerId(k)));
        assert_eq!(t.trustee(), WorkerId(k));
        moves += 1;
        for _ in 0..4 {
            yield_now();
        }
    }
    moves
}

#[test]
fn no_increment_lost_or_doubled_while_the_value_moves() {
    let drops = Arc::new(AtomicUsize::new(0));
    let d2 = drops.clone();
    let (count, expect, moves) = rt(4)
        .run(move || {
            let c = entrust_on(
                WorkerId(1),
                Counted {
                    n: 0,
                    drops: d2.clone(),
                },
            );
            let m = c.clone();
            let mv = spawn_on(WorkerId(0), move || mover(m, 4, 200));
            let c2 = c.clone();
            let per_worker = on_every_worker(move || {
                let fibers: Vec<_> = (0..6u64)
                    .map(|k| {
                        let c = c2.clone();
                        spawn(move || {
                            let mut sum = 0;
                            for i in 0..400u64 {
                                let add = k * 7 + i % 5 + 1;
                                sum += add;
                                match i % 5 {
                                    0 => c.apply(move |x| x.n += add),
                                    1 => c.apply_then(move |x| x.n += add, |()| {}),
                                    2 => {
                                        // Every 40th payload is bigger than a slot
                                        // (a chunked request, bounced whole).
                                        let mut v = vec![0u64; if i % 40 == 2 { 3000 } else { 0 }];
                                        v.push(add);
                                        let got = c.apply_with(
                                            |x, v: Vec<u64>| {
                                                x.n += v.iter().sum::<u64>();
                                                x.n
                                            },
                                            v,
                                        );
                                        assert!(got >= add);
                                        if i % 40 == 7 {
                                            // An answer bigger than a slot.
                                            let back = c.apply_returning(|x| vec![x.n; 1000]);
                                            assert_eq!(back.len(), 1000);
                                        }
                                    }
                                    3 => c.apply_slice_then(
                                        |x, a: &[u64]| x.n += a[0],
                                        &[add],
                                        |()| {},
                                    ),
                                    _ => {
                                        // From delegated context: the continuation
                                        // issues the increment.
                                        let again = c.clone();
                                        c.apply_then(
                                            |_| (),
                                            move |()| {
                                                again.apply_then(move |x| x.n += add, |()| {})
                                            },
                                        );
                                    }
                                }
                                if i % 64 == 0 {
                                    yield_now();
                                }
                            }
                            wait_outstanding();
                            sum
                        })
                    })
                    .collect();
                fibers.into_iter().map(|f| f.join()).sum::<u64>()
            });
            // Continuations issued increments from delegated context: let them land.
            wait_outstanding();
            let moves = mv.join();
            let count = c.apply(|x| x.n);
            assert_eq!(d2.load(Ordering::SeqCst), 0, "dropped while trusts live");
            drop(c);
            // The last release travels to wherever the value is now.
            let mut spins = 0u64;
            while d2.load(Ordering::SeqCst) == 0 && spins < 10_000_000 {
                yield_now();
                spins += 1;
            }
            assert_eq!(
                d2.load(Ordering::SeqCst),
                1,
                "not dropped when the last trust went"
            );
            (count, per_worker.iter().sum::<u64>(), moves)
        })
        .unwrap();
    assert_eq!(moves, 200);
    assert_eq!(count, expect);
    assert_eq!(drops.load(Ordering::SeqCst), 1, "dropped exactly once");
}

/// Checks that client `w`'s requests ran in issue order: `ran` holds their
/// sequence numbers and the trustee that ran each, in the order they ran, and
/// must be `0..n`. On failure names the first one out of place and what ran
/// around it (sequence number, trustee).
fn assert_in_order(w: usize, ran: &[(u32, usize)], n: u32) {
    if let Some(at) = (0..ran.len()).find(|&k| ran[k].0 != k as u32) {
        let from = at.saturating_sub(3);
        let late = ran.iter().position(|e| e.0 == at as u32);
        panic!(
            "client {w}: request {} ran at position {at}, where {at} was due (it ran at \
             position {late:?}); positions {from}.. ran {:?}",
            ran[at].0,
            &ran[from..(at + 16).min(ran.len())]
        );
    }
    assert_eq!(ran.len(), n as usize, "client {w}: requests run");
}

#[test]
fn each_clients_order_is_kept_across_moves() {
    let ok = rt(3)
        .run(|| {
            // (client, its sequence number, the trustee that ran it)
            let log: Trust<Vec<(usize, u32, usize)>> = entrust_on(WorkerId(1), Vec::new());
            let m = log.clone();
            let mv = spawn_on(WorkerId(2), move || mover(m, 3, 200));
            let l2 = log.clone();
            on_every_worker(move || {
                let me = gossamer::current_worker().0;
                for i in 0..2000u32 {
                    l2.apply_then(
                        move |v| v.push((me, i, gossamer::current_worker().0)),
                        |()| {},
                    );
                    if i % 100 == 0 {
                        yield_now();
                    }
                }
                wait_outstanding();
            });
            assert_eq!(mv.join(), 200);
            let v = log.apply_returning(|v| v.clone());
            assert_eq!(v.len(), 6000);
            for w in 0..3 {
                let mine: Vec<(u32, usize)> =
                    v.iter().filter(|e| e.0 == w).map(|e| (e.1, e.2)).collect();
                assert_in_order(w, &mine, 2000);
            }
            true
        })
        .unwrap();
    assert!(ok);
}

/// The count a `Tally` had when it was dropped.
static TALLY_AT_DROP: AtomicU64 = AtomicU64::new(u64::MAX);

/// A counter that reports its count when dropped.
struct Tally(u64);

impl Drop for Tally {
    fn drop(&mut self) {
        TALLY_AT_DROP.store(self.0, Ordering::SeqCst);
    }
}

#[test]
fn a_dropped_trust_returns_its_weight_behind_its_requests_while_the_value_moves() {
    // Each worker, again and again, clones the trust, sends it 50 non-blocking
    // increments and drops the clone at once: its weight goes back behind
    // them, also while the worker chases the moving value. Were a release to
    // overtake a waiting request, the value would be dropped before every
    // increment reached it.
    let want = rt(3)
        .run(|| {
            let c = entrust_on(WorkerId(1), Tally(0));
            let m = c.clone();
            let mv = spawn_on(WorkerId(2), move || mover(m, 3, 100));
            let c2 = c.clone();
            let per_worker = on_every_worker(move || {
                let mut sum = 0;
                for round in 0..40u64 {
                    let mine = c2.clone();
                    for i in 0..50u64 {
                        let add = round * 50 + i + 1;
                        sum += add;
                        mine.apply_then(move |t| t.0 += add, |()| {});
                    }
                    drop(mine);
                    yield_now();
                }
                sum
            });
            assert_eq!(mv.join(), 100);
            drop(c);
            per_worker.iter().sum::<u64>()
        })
        .unwrap();
    assert_eq!(TALLY_AT_DROP.load(Ordering::SeqCst), want);
}

#[test]
fn trusts_made_before_a_move_still_work_after_it() {
    let drops = Arc::new(AtomicUsize::new(0));
    let d2 = drops.clone();
    let v = rt(4)
        .run(move || {
            let c = entrust_on(WorkerId(1), Counted { n: 1, drops: d2 });
            let moved = Arc::new(AtomicBool::new(false));
            // A clone on another worker, waiting for the moves.
            let (c3, m3) = (c.clone(), moved.clone());
            let h = spawn_on(WorkerId(3), move || {
                while !m3.load(Ordering::SeqCst) {
                    yield_now();
                }
                c3.apply(|x| {
                    x.n += 10;
                    x.n
                })
            });
            // A serialized trust, carried as a payload to worker 2 before the moves.
            let done = Arc::new(AtomicU64::new(0));
            let late = spawn_on_with(
                WorkerId(2),
                |t: Trust<u64>| {
                    // Runs at once: just shows a deserialized trust is usable.
                    t.apply(|x| *x + 1)
                },
                entrust_on(WorkerId(1), 41u64),
            );
            assert!(c.migrate_to(WorkerId(2)));
            assert!(c.migrate_to(WorkerId(0)));
            assert!(c.is_local());
            assert!(c.migrate_to(WorkerId(3)));
            assert!(c.migrate_to(WorkerId(3)), "already there");
            moved.store(true, Ordering::SeqCst);
            let seen = h.join();
            done.store(seen, Ordering::SeqCst);
            assert_eq!(late.join(), 42);
            // The fiber on worker 3 had the trust from before the moves.
            assert_eq!(c.trustee(), WorkerId(3));
            (seen, c.apply(|x| x.n))
        })
        .unwrap();
    assert_eq!(v, (11, 11));
    assert_eq!(drops.load(Ordering::SeqCst), 1);
}

#[test]
fn a_serialized_trust_sent_before_the_move_works_after_it() {
    let v = rt(3)
        .run(|| {
            let c = entrust_on(WorkerId(1), 5u64);
            let go = entrust_on(WorkerId(0), false);
            let h = spawn_on_with(
                WorkerId(2),
                |(t, go): (Trust<u64>, Trust<bool>)| {
                    while !go.apply(|g| *g) {
                        yield_now();
                    }
                    t.apply(|x| {
                        *x *= 3;
                        *x
                    })
                },
                (c.clone(), go.clone()),
            );
            assert!(c.migrate_to(WorkerId(0)));
            assert!(c.migrate_to(WorkerId(2)));
            go.apply(|g| *g = true);
            (h.join(), c.apply(|x| *x))
        })
        .unwrap();
    assert_eq!(v, (15, 15));
}

#[test]
fn concurrent_movers_and_a_value_with_a_heap() {
    let v = rt(4)
        .run(|| {
            let c = entrust_on(WorkerId(1), vec![0u64; 3]);
            let stop = Arc::new(AtomicBool::new(false));
            let movers: Vec<_> = [0usize, 2]
                .into_iter()
                .map(|w| {
                    let (m, s) = (c.clone(), stop.clone());
                    spawn_on(WorkerId(w), move || {
                        let mut k = w;
                        for _ in 0..40 {
                            k = (k + 1) % 4;
                            assert!(m.migrate_to(WorkerId(k)));
                            yield_now();
                        }
                        s.load(Ordering::SeqCst)
                    })
                })
                .collect();
            let c2 = c.clone();
            on_every_worker(move || {
                for i in 0..500usize {
                    c2.apply_then(move |v| v[i % 3] += 1, |()| {});
                }
                wait_outstanding();
            });
            stop.store(true, Ordering::SeqCst);
            for m in movers {
                m.join();
            }
            c.apply_returning(|v| v.clone())
        })
        .unwrap();
    assert_eq!(v.iter().sum::<u64>(), 4 * 500);
    assert_eq!(v, vec![668, 668, 664]);
}

static LAUNCH_STARTED: AtomicBool = AtomicBool::new(false);
static LAUNCH_GATE: AtomicBool = AtomicBool::new(false);

#[test]
fn a_running_launch_keeps_the_value_in_place() {
    let v = rt(2)
        .run(|| {
            let l = entrust_on(WorkerId(1), Latch::new(0u64));
            let l2 = l.clone();
            let h = spawn(move || {
                l2.launch(|x| {
                    LAUNCH_STARTED.store(true, Ordering::SeqCst);
                    // Holds the latch (and the value) until the gate opens.
                    while !LAUNCH_GATE.load(Ordering::SeqCst) {
                        yield_now();
                    }
                    *x += 1;
                })
            });
            while !LAUNCH_STARTED.load(Ordering::SeqCst) {
                yield_now();
            }
            let moved_during = l.migrate_to(WorkerId(0));
            LAUNCH_GATE.store(true, Ordering::SeqCst);
            h.join();
            let moved_after = l.migrate_to(WorkerId(0));
            (moved_during, moved_after, l.launch(|x| *x), l.trustee())
        })
        .unwrap();
    assert_eq!(v, (false, true, 1, WorkerId(0)));
}

#[test]
fn work_placed_near_a_trust_follows_its_moves() {
    let v = rt(3)
        .run(|| {
            let a = entrust_on(WorkerId(1), 0u64);
            assert!(a.migrate_to(WorkerId(2)));
            let b = entrust_near(&a, 7u64);
            assert_eq!(b.trustee(), WorkerId(2));
            let a2 = a.clone();
            let where_ = spawn_near(&a, move || {
                // Worker 2 learns of the move from its first request (or the
                // adoption): then requests run inline there.
                a2.apply(|x| *x += 1);
                (gossamer::current_worker(), a2.is_local())
            })
            .join();
            (where_, b.apply(|x| *x))
        })
        .unwrap();
    assert_eq!(v, ((WorkerId(2), true), 7));
}

/// Times a [`Noted`] was serialized.
static NOTED_SERIALIZED: AtomicUsize = AtomicUsize::new(0);

/// A value that counts its serializations.
#[derive(serde::Deserialize)]
struct Noted(u64);

impl serde::Serialize for Noted {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        NOTED_SERIALIZED.fetch_add(1, Ordering::SeqCst);
        self.0.serialize(s)
    }
}

#[test]
fn migrate_with_moves_through_memory_within_a_process() {
    let v = rt(3)
        .run(|| {
            let c = entrust_on(WorkerId(1), Noted(1));
            let other = c.clone();
            for k in [2usize, 0, 0, 1, 2] {
                assert!(c.migrate_with(WorkerId(k)));
                assert_eq!(c.trustee(), WorkerId(k));
                other.apply(|x| x.0 += 1);
            }
            c.apply(|x| x.0)
        })
        .unwrap();
    assert_eq!(v, 6);
    assert_eq!(
        NOTED_SERIALIZED.load(Ordering::SeqCst),
        0,
        "within a process the value moves through memory"
    );
}

static SER_HELD: AtomicBool = AtomicBool::new(false);
static SER_GATE: AtomicBool = AtomicBool::new(false);

/// A latch serializes as its value (what `migrate_with` ships), decodes into an
/// unheld latch, and refuses while a launched closure holds it.
#[test]
fn a_latch_serializes_as_its_value_and_refuses_while_held() {
    let bytes = postcard::to_stdvec(&Latch::new(41u64)).unwrap();
    assert_eq!(bytes, postcard::to_stdvec(&41u64).unwrap());
    let back: Latch<u64> = postcard::from_bytes(&bytes).unwrap();
    assert!(!back.is_locked());
    let v = rt(2)
        .run(move || {
            let l = entrust_on(WorkerId(1), back);
            let l2 = l.clone();
            let h = spawn(move || {
                l2.launch(|x| {
                    SER_HELD.store(true, Ordering::SeqCst);
                    while !SER_GATE.load(Ordering::SeqCst) {
                        yield_now();
                    }
                    *x += 1;
                })
            });
            while !SER_HELD.load(Ordering::SeqCst) {
                yield_now();
            }
            let refused_while_held = l.apply(|x| postcard::to_stdvec(x).is_err());
            SER_GATE.store(true, Ordering::SeqCst);
            h.join();
            let after = l.apply(|x| postcard::to_stdvec(x).ok().map(|b| b.len()));
            let unlocked = l.apply(|x| !x.is_locked());
            (
                refused_while_held,
                after.is_some(),
                unlocked,
                l.launch(|x| *x),
            )
        })
        .unwrap();
    assert_eq!(v, (true, true, true, 42));
}
