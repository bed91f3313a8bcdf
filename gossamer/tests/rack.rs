//! Rack mode across real processes on loopback: this test binary is launched again
//! as the ranks. A `rank_*` test is a no-op unless `GOSSAMER_RANK` is set (then it
//! *is* a rank); a `launcher` test runs the built-in launcher when
//! `GOSSAMER_TEST_LAUNCH` is set. The driver tests spawn those with captured output
//! and assert on exit codes and messages. Time bounds are hang guards only.

use gossamer::rack::TransportKind;
use gossamer::{entrust_with, num_workers, on_every_worker_with, Builder, Trust, WorkerId};
use std::cell::Cell;
use std::process::{Command, Output, Stdio};
use std::rc::Rc;
use std::time::{Duration, Instant};

const THREADS: usize = 2;
/// Hang guard for a whole job (generous; not a performance bound).
const GUARD: Duration = Duration::from_secs(60);

fn is_rank() -> bool {
    std::env::var_os("GOSSAMER_RANK").is_some()
        || std::env::var_os("OMPI_COMM_WORLD_RANK").is_some()
}

fn builder(t: TransportKind) -> Builder {
    Builder::from_env()
        .expect("rank environment")
        .threads(THREADS)
        .pin_threads(false)
        .transport(t)
}

/// The counter scenario: a counter on the first worker of rank 1, incremented from
/// every worker of every rank; rank 0 checks the exact sum.
fn counter(t: TransportKind) {
    let b = builder(t);
    let ranks = b.ranks();
    let out = b
        .run(move || {
            let n = num_workers();
            assert_eq!(n, ranks * THREADS);
            let c: Trust<u64> = entrust_with(WorkerId(THREADS), || 0u64);
            assert_eq!(c.trustee(), WorkerId(THREADS));
            assert!(gossamer::is_local_worker(WorkerId(1)));
            assert!(!gossamer::is_local_worker(WorkerId(THREADS)));
            let per = 500u64;
            let got = on_every_worker_with(
                |(c, per): (Trust<u64>, u64)| {
                    let me = gossamer::current_worker().index() as u64;
                    for i in 0..per {
                        c.apply_then(move |x| *x += me + i, |()| {});
                    }
                    gossamer::wait_outstanding();
                    c.apply(|x| *x) > 0
                },
                (c.clone(), per),
            );
            assert!(got.iter().all(|&b| b));
            let want: u64 = (0..n as u64).map(|w| per * w + per * (per - 1) / 2).sum();
            assert_eq!(c.apply(|x| *x), want);
            // payloads larger than a slot, both ways
            let big: Vec<u64> = (0..5000).collect();
            let (len, sum) = c.apply_with(|_, v: Vec<u64>| (v.len(), v.iter().sum::<u64>()), big);
            assert_eq!((len, sum), (5000, 4999 * 5000 / 2));
            let back: Vec<u64> = c.apply_returning(|x| (0..3000).map(|i| i + *x).collect());
            assert_eq!(back.len(), 3000);
            assert_eq!(back[2999], 2999 + want);
            // Statistics cover every rank: the counter's trustee is on rank 1
            // and served requests from every worker of every rank.
            let st = gossamer::stats();
            assert_eq!(st.len(), n);
            assert_eq!(st[THREADS].worker, WorkerId(THREADS));
            assert!(
                st[THREADS].requests >= (n - 1) as u64 * per,
                "rank 1's trustee served {} requests",
                st[THREADS].requests
            );
            want
        })
        .expect("rack run");
    println!("rank 0 result {out}");
}

/// The record pattern of [`large_mixed`]: word `j` of request `tag`.
fn mix(tag: u64, j: u64) -> u64 {
    (tag ^ j.wrapping_mul(0x9e37_79b9_7f4a_7c15)).rotate_left(17)
}

/// Large requests (several slots' worth) mixed with small ones and with
/// answers bigger than a slot, from every worker of every rank to one trustee
/// on rank 1: every request arrives intact, the trustee sees each client's
/// requests in issue order, and each client's continuations run in issue
/// order. `slot`: an explicit slot size (1 KiB: everything above it travels
/// in pieces), or `None` for the rack default (`gossamer::rack_slot_size`).
fn large_mixed(t: TransportKind, slot: Option<usize>) {
    let b = builder(t);
    let b = match slot {
        Some(s) => b.slot_size(s),
        None => b,
    };
    let ss = b.effective_slot_size();
    assert_eq!(
        ss,
        slot.unwrap_or(gossamer::rack_slot_size(THREADS, THREADS * b.ranks()))
    );
    let out = b
        .run(move || {
            let n = num_workers();
            let log: Trust<Vec<u64>> = entrust_with(WorkerId(THREADS), move || vec![0u64; n]);
            // In words: one word, three slots and a bit, a few words, just
            // under a slot, two slots, 64 KiB and a bit, 1 KiB.
            let sizes = vec![1, 3 * ss / 8 + 5, 12, ss / 8 - 20, 2 * ss / 8, 2, 8193, 128];
            let big_answer = 2 * ss / 8 + 3;
            let rounds = 12u64;
            let issued = on_every_worker_with(
                move |(log, sizes): (Trust<Vec<u64>>, Vec<usize>)| {
                    let me = gossamer::current_worker().index() as u64;
                    let next = Rc::new(Cell::new(0u64));
                    let mut i = 0u64;
                    for _ in 0..rounds {
                        for &words in &sizes {
                            let tag = (me << 32) | i;
                            let data: Vec<u64> = std::iter::once(tag)
                                .chain((1..words as u64).map(|j| mix(tag, j)))
                                .collect();
                            let nx = next.clone();
                            log.apply_slice_then(
                                |seen, d: &[u64]| {
                                    let (who, i) = (d[0] >> 32, d[0] & 0xffff_ffff);
                                    for (j, &x) in d.iter().enumerate().skip(1) {
                                        assert_eq!(x, mix(d[0], j as u64), "word {j} of {who}:{i}");
                                    }
                                    let s = &mut seen[who as usize];
                                    assert_eq!(*s, i, "requests of worker {who} out of order");
                                    *s += 1;
                                    (i, d.len())
                                },
                                &data,
                                move |(got, len)| {
                                    assert_eq!((got, len), (nx.get(), words), "continuation order");
                                    nx.set(nx.get() + 1);
                                },
                            );
                            i += 1;
                            if i.is_multiple_of(5) {
                                // An answer bigger than a slot, in the same stream.
                                let nx = next.clone();
                                log.apply_returning_then(
                                    move |seen| {
                                        let s = &mut seen[me as usize];
                                        assert_eq!(*s, i, "requests of worker {me} out of order");
                                        *s += 1;
                                        (0..big_answer as u64)
                                            .map(|k| mix(i, k))
                                            .collect::<Vec<_>>()
                                    },
                                    move |v: Vec<u64>| {
                                        assert_eq!(nx.get(), i, "continuation order");
                                        assert_eq!(v.len(), big_answer);
                                        assert!(v
                                            .iter()
                                            .enumerate()
                                            .all(|(k, &x)| x == mix(i, k as u64)));
                                        nx.set(nx.get() + 1);
                                    },
                                );
                                i += 1;
                            }
                        }
                    }
                    gossamer::wait_outstanding();
                    assert_eq!(next.get(), i, "every continuation ran");
                    i
                },
                (log.clone(), sizes),
            );
            let seen = log.apply_returning(|s| s.clone());
            assert_eq!(seen, issued, "the trustee saw every request");
            issued.iter().sum::<u64>()
        })
        .expect("rack run");
    println!("rank 0 result {out} slot {ss}");
}

/// Rank 1 kills itself (SIGKILL) from inside a delegated closure, then rank 0 keeps
/// sending to it.
fn killed(t: TransportKind) {
    let r = builder(t).run(|| {
        let c: Trust<u64> = entrust_with(WorkerId(THREADS), || 0u64);
        c.apply(|x| *x += 1);
        c.apply_then(
            |_| {
                // SAFETY: sends a signal to this very process; no memory involved.
                unsafe { libc::kill(libc::getpid(), libc::SIGKILL) };
            },
            |()| {},
        );
        loop {
            c.apply(|x| *x += 1);
        }
    });
    let e = r.expect_err("rank 1 died, the run must fail");
    panic!("rank 0 stopped with: {e}");
}

/// The bulk-synchronous pattern of the kernels: a Collective created on rank 0,
/// all-reduce and barrier among one fiber per worker of every rank.
fn collective(t: TransportKind) {
    let out = builder(t)
        .run(|| {
            let c = gossamer::Collective::new();
            let n = num_workers() as u64;
            let res = on_every_worker_with(
                |c: gossamer::Collective| {
                    let mut p = c.party();
                    let me = gossamer::current_worker().index() as u64;
                    let mut last = [0; 2];
                    for round in 0..20u64 {
                        last = p.all_reduce(
                            [me + round, me + 10],
                            [gossamer::Op::Sum, gossamer::Op::Min],
                        );
                        p.barrier();
                    }
                    last
                },
                c,
            );
            assert_eq!(res, vec![[n * (n - 1) / 2 + 19 * n, 10]; n as usize]);
            n
        })
        .expect("rack run");
    println!("rank 0 result {out}");
}

/// A delegated closure panics on rank 1.
fn remote_panic(t: TransportKind) {
    let r = builder(t).run(|| {
        let c: Trust<u64> = entrust_with(WorkerId(THREADS), || 0u64);
        c.apply(|x| {
            if *x == 0 {
                panic!("boom on the trustee");
            }
        });
    });
    panic!("rank 0 stopped with: {}", r.expect_err("rank 1 panicked"));
}

/// Runs until killed.
fn forever(t: TransportKind) {
    let _ = builder(t).run(|| {
        let c: Trust<u64> = entrust_with(WorkerId(THREADS), || 0u64);
        loop {
            c.apply(|x| *x += 1);
            std::thread::sleep(Duration::from_millis(1));
        }
    });
}

/// Rank 0 says it is joining; the last rank takes its time to start (so the
/// bootstrap is under way for a while).
fn slow_join(t: TransportKind) {
    let b = builder(t);
    if b.rank() == 0 {
        println!("rank 0 joining");
    }
    if b.rank() + 1 == b.ranks() {
        std::thread::sleep(Duration::from_secs(30));
    }
    let _ = b.run(|| 0u64);
}

/// The counter scenario with the collective fanout from `TEST_FANOUT` (the
/// default without it): ranks that differ must be refused at bootstrap.
fn fanout(t: TransportKind) {
    let b = builder(t);
    let mut c = b.get_config().clone();
    if let Ok(f) = std::env::var("TEST_FANOUT") {
        c.collective_fanout = f.parse().unwrap();
    }
    let out = b.config(c).run(num_workers).unwrap();
    println!("rank 0 result {out}");
}

/// While the main function runs, rank 0's own thread (which detects
/// termination once it returns) stays asleep, waking at most once per
/// `Config::main_wait`: it woke every 200 us before, a context switch each on a
/// worker's core. Prints how often its loop woke (the runtime counts it) in
/// how many milliseconds of main-function work.
fn quiet(t: TransportKind) {
    let out = builder(t)
        .run(move || {
            let before = gossamer::rack::termination_loop_wakeups();
            let t0 = Instant::now();
            let c: Trust<u64> = entrust_with(WorkerId(THREADS), || 0u64);
            while t0.elapsed() < Duration::from_millis(400) {
                c.apply(|x| *x += 1);
            }
            let woke = gossamer::rack::termination_loop_wakeups() - before;
            (woke, t0.elapsed().as_millis())
        })
        .unwrap();
    println!("rank 0 result woke {} times in {} ms", out.0, out.1);
}

/// Trusts that move, seen from every rank: a counter entrusted to rank 1 moves
/// back and forth between rank 1's two workers (moved by a fiber on rank 0)
/// while every worker of every rank increments it; no increment is lost or
/// doubled, and a move into another rank is refused without moving.
fn moving(t: TransportKind) {
    let out = builder(t)
        .run(move || {
            let n = num_workers();
            let c: Trust<u64> = entrust_with(WorkerId(THREADS), || 0u64);
            let m = c.clone();
            let mover = gossamer::spawn(move || {
                for k in 0..100 {
                    assert!(m.migrate_to(WorkerId(THREADS + 1 - k % 2)));
                    gossamer::yield_now();
                }
                m.trustee()
            });
            let per = 400u64;
            on_every_worker_with(
                |(c, per): (Trust<u64>, u64)| {
                    let me = gossamer::current_worker().index() as u64;
                    for i in 0..per {
                        if i % 3 == 0 {
                            c.apply(move |x| *x += me + i);
                        } else {
                            c.apply_then(move |x| *x += me + i, |()| {});
                        }
                    }
                    gossamer::wait_outstanding();
                },
                (c.clone(), per),
            );
            let last = mover.join();
            assert_eq!(last, WorkerId(THREADS));
            let want: u64 = (0..n as u64).map(|w| per * w + per * (per - 1) / 2).sum();
            assert_eq!(c.apply(|x| *x), want);
            let refused = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                c.migrate_to(WorkerId(0))
            }));
            assert!(refused.is_err(), "a move into another rank panics");
            assert_eq!(c.trustee(), WorkerId(THREADS));
            assert_eq!(c.apply(|x| *x), want);
            want
        })
        .expect("rack run");
    println!("rank 0 result {out}");
}

/// Set (in the trustee's process) when its [`RackProbe`] is dropped.
static PROBE_DROPPED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// A value that says (in its own process) when it is dropped.
struct RackProbe;

impl Drop for RackProbe {
    fn drop(&mut self) {
        PROBE_DROPPED.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

fn probe_dropped() -> bool {
    PROBE_DROPPED.load(std::sync::atomic::Ordering::SeqCst)
}

/// Requests in flight outlive their trust across ranks: worker 0 (rank 0)
/// sends `apply_then`s to a value on rank 1 and keeps them unsent while the
/// trust moves to worker 1 (rank 0) and is dropped there, so that its release
/// could overtake them on its own way to rank 1. Every request must run on
/// the live value, and the value must be dropped afterwards.
fn inflight(t: TransportKind) {
    let out = builder(t)
        .run(move || {
            let p: Trust<RackProbe> = entrust_with(WorkerId(THREADS), || RackProbe);
            let bad = Rc::new(Cell::new(0u32));
            for _ in 0..10 {
                let b = bad.clone();
                p.apply_then(|_| probe_dropped(), move |d| b.set(b.get() + d as u32));
            }
            let h = gossamer::spawn_on(WorkerId(1), move || drop(p));
            let until = Instant::now() + Duration::from_millis(300);
            while Instant::now() < until {
                std::hint::spin_loop();
            }
            h.join();
            gossamer::wait_outstanding();
            assert_eq!(bad.get(), 0, "requests ran on a dropped value");
            // The value goes once the fences are back.
            let ask: Trust<u8> = entrust_with(WorkerId(THREADS), || 0u8);
            let t0 = Instant::now();
            while !ask.apply(|_| probe_dropped()) {
                assert!(t0.elapsed() < GUARD, "the value was never dropped");
                gossamer::yield_now();
            }
            10
        })
        .expect("rack run");
    println!("rank 0 result {out}");
}

/// Copies of a [`Hopper`] made in this process (by deserializing one that
/// moved here), copies dropped here, and the count the last dropped one had.
static HOPPERS_MADE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
static HOPPERS_DROPPED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
static HOPPER_LAST: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(u64::MAX);

/// A counter that moves between ranks (through bytes) and keeps, per client
/// worker, the sequence numbers of its requests in the order they ran.
#[derive(serde::Serialize)]
struct Hopper {
    n: u64,
    /// (client worker, its sequence number), in the order requests ran.
    log: Vec<(u32, u32)>,
}

impl<'de> serde::Deserialize<'de> for Hopper {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (n, log) = <(u64, Vec<(u32, u32)>)>::deserialize(d)?;
        HOPPERS_MADE.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Ok(Hopper { n, log })
    }
}

impl Drop for Hopper {
    fn drop(&mut self) {
        HOPPER_LAST.store(self.n, std::sync::atomic::Ordering::SeqCst);
        HOPPERS_DROPPED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}

impl Hopper {
    /// Runs client `me`'s request number `seq`, which adds `add`.
    fn add(&mut self, me: u32, seq: u32, add: u64) -> u64 {
        self.n += add;
        self.log.push((me, seq));
        self.n
    }

    /// The first client whose requests did not run in issue order (`0..`),
    /// with the position (in its own requests) where that shows.
    fn out_of_order(&self, clients: usize) -> Option<(u32, usize)> {
        let mut next = vec![0u32; clients];
        for (k, &(me, seq)) in self.log.iter().enumerate() {
            if next[me as usize] != seq {
                return Some((me, k));
            }
            next[me as usize] += 1;
        }
        None
    }
}

/// Moves each mover of [`moving_ranks`] makes.
const HOPPER_MOVES: u32 = 40;

/// Moves `m` round the ring of workers, up or down from the calling worker,
/// [`HOPPER_MOVES`] times, yielding between moves.
fn ring(m: Trust<Hopper>, up: bool) -> u32 {
    let n = num_workers();
    let mut k = gossamer::current_worker().index();
    for _ in 0..HOPPER_MOVES {
        k = if up { (k + 1) % n } else { (k + n - 1) % n };
        assert!(m.migrate_with(WorkerId(k)));
        for _ in 0..3 {
            gossamer::yield_now();
        }
    }
    HOPPER_MOVES
}

/// (made, dropped, last count at a drop) of this process's hoppers.
fn hopper_counts() -> (u64, u64, u64) {
    use std::sync::atomic::Ordering::SeqCst;
    (
        HOPPERS_MADE.load(SeqCst),
        HOPPERS_DROPPED.load(SeqCst),
        HOPPER_LAST.load(SeqCst),
    )
}

/// Trusts that move between ranks: a counter entrusted to rank 1 moves again
/// and again between the workers of both ranks (`migrate_with`; two movers,
/// one per rank, each round the ring of workers its own way) while every
/// worker of every rank sends it increments (`apply`, `apply_then`,
/// `apply_with`, from clones it drops now and then). No increment is lost or
/// doubled, each worker's requests run in issue order, and the value is
/// dropped exactly once after the last trust went: every copy a move left
/// behind is dropped when it is shipped (one drop per copy made by
/// deserializing, none of the live value before the end), and the value's
/// last drop sees every increment.
fn moving_ranks(t: TransportKind) {
    let out = builder(t)
        .run(move || {
            use std::sync::atomic::Ordering::SeqCst;
            let n = num_workers();
            assert_eq!(HOPPERS_DROPPED.load(SeqCst), 0);
            let c: Trust<Hopper> = entrust_with(WorkerId(THREADS), || Hopper {
                n: 0,
                log: Vec::new(),
            });
            // The movers: worker 0 walks the ring up, worker n - 1 down.
            let moves = HOPPER_MOVES;
            let m = c.clone();
            let up = gossamer::spawn(move || ring(m, true));
            let down = gossamer::spawn_on_with(
                WorkerId(n - 1),
                |m: Trust<Hopper>| ring(m, false),
                c.clone(),
            );
            let per = 300u32;
            let sums = on_every_worker_with(
                |(c, per): (Trust<Hopper>, u32)| {
                    let me = gossamer::current_worker().index() as u32;
                    let mut sum = 0u64;
                    let mut mine = c.clone();
                    for i in 0..per {
                        let add = (me as u64 + 1) * 1000 + i as u64;
                        sum += add;
                        match i % 6 {
                            0 => {
                                mine.apply(move |h| h.add(me, i, add));
                            }
                            1 => {
                                let got = mine.apply_with(
                                    move |h, v: Vec<u64>| h.add(me, i, v.iter().sum()),
                                    vec![add / 2, add - add / 2],
                                );
                                assert!(got >= add);
                            }
                            5 => {
                                // A fresh clone, dropped behind its requests.
                                mine.apply_then(move |h| h.add(me, i, add), |_| {});
                                mine = c.clone();
                            }
                            _ => mine.apply_then(move |h| h.add(me, i, add), |_| {}),
                        }
                        if i % 16 == 0 {
                            gossamer::yield_now();
                        }
                    }
                    gossamer::wait_outstanding();
                    sum
                },
                (c.clone(), per),
            );
            assert_eq!(up.join(), moves);
            assert_eq!(down.join(), moves);
            let want: u64 = sums.iter().sum();
            let (count, len, bad) = c.apply(move |h| (h.n, h.log.len(), h.out_of_order(n)));
            assert_eq!(bad, None, "a client's requests ran out of issue order");
            assert_eq!(len, n * per as usize);
            assert_eq!(count, want, "an increment was lost or doubled");
            // Counts of every rank: the others' through a value on each.
            let asks: Vec<Trust<u8>> = (1..n / THREADS)
                .map(|r| entrust_with(WorkerId(r * THREADS), || 0u8))
                .collect();
            let counts = || {
                let (mut made, mut dropped, _) = hopper_counts();
                for a in &asks {
                    let (m, d, _) = a.apply(|_| hopper_counts());
                    (made, dropped) = (made + m, dropped + d);
                }
                (made, dropped)
            };
            let (made, dropped) = counts();
            assert!(made > 0, "no move went through bytes");
            assert_eq!(
                dropped, made,
                "a copy left behind was not dropped, or the value was"
            );
            let home = gossamer::process_of(c.trustee());
            drop(c);
            let t0 = Instant::now();
            while counts().1 == made {
                assert!(t0.elapsed() < GUARD, "the value was never dropped");
                gossamer::yield_now();
            }
            // Let a second drop show, were there one.
            for _ in 0..1000 {
                gossamer::yield_now();
            }
            assert_eq!(counts(), (made, made + 1), "dropped exactly once");
            let last = match home {
                0 => hopper_counts().2,
                r => asks[r - 1].apply(|_| hopper_counts()).2,
            };
            assert_eq!(last, want, "the last drop saw every increment");
            (want, made)
        })
        .expect("rack run");
    println!("rank 0 result {} copies {}", out.0, out.1);
}

/// Drops of a [`Kept`] in this process.
static KEPT_DROPS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// A value that counts its drops (in its own process).
struct Kept;

impl Drop for Kept {
    fn drop(&mut self) {
        KEPT_DROPS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}

/// A value holding a trust of another property.
#[derive(serde::Serialize, serde::Deserialize)]
struct Holder {
    inner: Trust<Kept>,
    n: u64,
}

/// A value that holds a trust moves between ranks (`migrate_with`) and its
/// copies left behind are dropped: the trust in each copy returns its weight
/// and the bytes carry a clone, so the held property stays alive while the
/// value lives and is dropped exactly once after it went.
fn holding(t: TransportKind) {
    let out = builder(t)
        .run(move || {
            use std::sync::atomic::Ordering::SeqCst;
            let n = num_workers();
            let inner: Trust<Kept> = entrust_with(WorkerId(THREADS), || Kept);
            let outer = gossamer::entrust_on(
                WorkerId(0),
                Holder {
                    inner: inner.clone(),
                    n: 0,
                },
            );
            for k in 0..20 {
                // Every worker in turn, so across ranks and within them.
                assert!(outer.migrate_with(WorkerId((k * 3 + 1) % n)));
                outer.apply(|h| h.n += 1);
            }
            let again: Trust<Kept> = outer.apply_returning(|h| h.inner.clone());
            let drops = || again.apply(|_| KEPT_DROPS.load(SeqCst));
            assert_eq!(drops(), 0, "the held value was dropped while held");
            drop(inner);
            assert_eq!(outer.apply(|h| h.n), 20);
            drop(outer);
            assert_eq!(drops(), 0, "dropped while a trust of it lives");
            let ask: Trust<u8> = entrust_with(WorkerId(THREADS), || 0u8);
            drop(again);
            let t0 = Instant::now();
            while ask.apply(|_| KEPT_DROPS.load(SeqCst)) == 0 {
                assert!(t0.elapsed() < GUARD, "the held value was never dropped");
                gossamer::yield_now();
            }
            for _ in 0..1000 {
                gossamer::yield_now();
            }
            assert_eq!(ask.apply(|_| KEPT_DROPS.load(SeqCst)), 1, "dropped once");
            20
        })
        .expect("rack run");
    println!("rank 0 result {out}");
}

/// Set (in rank 0) while a launched closure holds [`refused`]'s latch.
static HELD: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
/// Opened (in rank 0) to let that closure return.
static GATE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// A value the codec may not encode: serializing fails while `refuse` is set.
#[derive(serde::Deserialize)]
#[serde(from = "(bool, u64)")]
struct Picky {
    refuse: bool,
    n: u64,
}

impl From<(bool, u64)> for Picky {
    fn from((refuse, n): (bool, u64)) -> Self {
        Picky { refuse, n }
    }
}

impl serde::Serialize for Picky {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.refuse {
            return Err(serde::ser::Error::custom("Picky refuses to be encoded"));
        }
        (self.refuse, self.n).serialize(s)
    }
}

/// The message of a caught panic.
fn panic_text(p: Box<dyn std::any::Any + Send>) -> String {
    match p.downcast::<String>() {
        Ok(s) => *s,
        Err(p) => p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .unwrap_or_default(),
    }
}

/// Moves into another rank that must not happen (`migrate_with`): a value a
/// launched closure holds stays where it is (false) and moves once released;
/// a value that cannot be serialized stays where it is, intact and usable,
/// with the codec's message in the panic, whether its trustee is the
/// caller's worker or one of another rank; once it can be encoded it moves.
fn refused(t: TransportKind) {
    let out = builder(t)
        .run(move || {
            use std::sync::atomic::Ordering::SeqCst;
            // A held latch on worker 0 (rank 0) does not move to rank 1.
            let l = gossamer::entrust_on(WorkerId(0), gossamer::Latch::new(0u64));
            let l2 = l.clone();
            let h = gossamer::spawn(move || {
                l2.launch(|x| {
                    HELD.store(true, SeqCst);
                    while !GATE.load(SeqCst) {
                        gossamer::yield_now();
                    }
                    *x += 1;
                })
            });
            let t0 = Instant::now();
            while !HELD.load(SeqCst) {
                assert!(t0.elapsed() < GUARD, "the launch never started");
                gossamer::yield_now();
            }
            assert!(!l.migrate_with(WorkerId(THREADS)), "a held latch moved");
            assert_eq!(l.trustee(), WorkerId(0));
            GATE.store(true, SeqCst);
            h.join();
            assert!(l.migrate_with(WorkerId(THREADS)), "a released latch stayed");
            assert_eq!(l.trustee(), WorkerId(THREADS));
            let ran_on = l.launch(|x| {
                *x += 1;
                (*x, gossamer::current_worker())
            });
            assert_eq!(ran_on, (2, WorkerId(THREADS)));

            // A value that cannot be encoded, on the caller's worker and on
            // a worker of rank 1.
            let mut stayed = 0;
            for (home, to) in [(0, THREADS), (THREADS + 1, 0)] {
                let p: Trust<Picky> = entrust_with(WorkerId(home), || Picky { refuse: true, n: 7 });
                let why = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    p.migrate_with(WorkerId(to))
                }))
                .map_err(panic_text)
                .expect_err("an unencodable value moved");
                assert!(
                    why.contains("could not be serialized") && why.contains("Picky"),
                    "{why}"
                );
                assert_eq!(p.trustee(), WorkerId(home));
                assert_eq!(p.apply(|x| x.n), 7, "the value left behind changed");
                p.apply(|x| x.refuse = false);
                assert!(p.migrate_with(WorkerId(to)));
                assert_eq!(p.trustee(), WorkerId(to));
                stayed += p.apply(|x| x.n);
            }
            stayed
        })
        .expect("rack run");
    println!("rank 0 result {out}");
}

macro_rules! rank_tests {
    ($($name:ident => $body:expr;)*) => {$(
        #[test]
        fn $name() {
            if is_rank() {
                $body
            }
        }
    )*};
}

rank_tests! {
    rank_counter_shm => counter(TransportKind::Shm);
    rank_counter_tcp => counter(TransportKind::Tcp);
    rank_large_shm => large_mixed(TransportKind::Shm, None);
    rank_large_tcp => large_mixed(TransportKind::Tcp, None);
    rank_large_small_slots_shm => large_mixed(TransportKind::Shm, Some(1024));
    rank_large_small_slots_tcp => large_mixed(TransportKind::Tcp, Some(1024));
    rank_killed_shm => killed(TransportKind::Shm);
    rank_killed_tcp => killed(TransportKind::Tcp);
    rank_collective_shm => collective(TransportKind::Shm);
    rank_collective_tcp => collective(TransportKind::Tcp);
    rank_panic_tcp => remote_panic(TransportKind::Tcp);
    rank_forever_shm => forever(TransportKind::Shm);
    rank_slow_join_shm => slow_join(TransportKind::Shm);
    rank_quiet_shm => quiet(TransportKind::Shm);
    rank_fanout_shm => fanout(TransportKind::Shm);
    rank_moving_shm => moving(TransportKind::Shm);
    rank_moving_tcp => moving(TransportKind::Tcp);
    rank_moving_ranks_shm => moving_ranks(TransportKind::Shm);
    rank_moving_ranks_tcp => moving_ranks(TransportKind::Tcp);
    rank_holding_shm => holding(TransportKind::Shm);
    rank_holding_tcp => holding(TransportKind::Tcp);
    rank_refused_shm => refused(TransportKind::Shm);
    rank_refused_tcp => refused(TransportKind::Tcp);
    rank_inflight_shm => inflight(TransportKind::Shm);
    rank_inflight_tcp => inflight(TransportKind::Tcp);
}

#[test]
fn launcher() {
    let Ok(spec) = std::env::var("GOSSAMER_TEST_LAUNCH") else {
        return;
    };
    let (n, test) = spec.split_once(':').unwrap();
    let args: Vec<std::ffi::OsString> = [test, "--exact", "--nocapture", "--test-threads=1"]
        .iter()
        .map(Into::into)
        .collect();
    let code = gossamer::rack::launch_local(n.parse().unwrap(), &args).unwrap();
    std::process::exit(code);
}

/// Waits (at most `GUARD`) until none of `ranks` (pid, start time, as
/// [`children_of`] gives them) is alive (zombies count as gone): ranks must
/// die with their launcher. A pid that now names a process started at
/// another time is gone too: on a busy box the pid of a rank that died may
/// be handed to a new process within the wait.
fn wait_until_gone(ranks: &[(u32, u64)]) {
    let t0 = Instant::now();
    loop {
        let alive: Vec<u32> = ranks
            .iter()
            .filter(|&&(r, start)| {
                std::fs::read_to_string(format!("/proc/{r}/stat"))
                    .map(|st| !st.contains(") Z ") && start_time(&st) == Some(start))
                    .unwrap_or(false)
            })
            .map(|&(r, _)| r)
            .collect();
        if alive.is_empty() {
            return;
        }
        assert!(t0.elapsed() < GUARD, "orphaned ranks {alive:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The start time (field 22, clock ticks since boot) of a `/proc/PID/stat` line.
fn start_time(stat: &str) -> Option<u64> {
    stat.rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(19)?
        .parse()
        .ok()
}

/// Runs `ranks` ranks of rank test `test` through the launcher; returns its exit
/// code, all output, and the launcher's pid (the job's shm files carry it).
fn launch(ranks: usize, test: &str) -> (i32, String, u32) {
    let child = Command::new(std::env::current_exe().unwrap())
        .args(["launcher", "--exact", "--nocapture", "--test-threads=1"])
        .env("GOSSAMER_TEST_LAUNCH", format!("{ranks}:{test}"))
        .env_remove("GOSSAMER_RANK")
        // The ranks' stderr is read line by line: no backtrace may interleave
        // with the launcher's messages (RUST_BACKTRACE may be set outside).
        .env("RUST_BACKTRACE", "0")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let t0 = Instant::now();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(child.wait_with_output()));
    let out: Output = rx
        .recv_timeout(GUARD)
        .unwrap_or_else(|_| panic!("hang: {test} with {ranks} ranks did not finish in {GUARD:?}"))
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!(
        "{test} x{ranks}: {:?} in {:?}",
        out.status.code(),
        t0.elapsed()
    );
    (out.status.code().unwrap_or(-1), text, pid)
}

fn shm_files_of(pid: u32) -> Vec<String> {
    std::fs::read_dir("/dev/shm")
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&format!("gossamer-{pid}-")))
        .collect()
}

#[test]
fn counter_and_collective_across_ranks_over_shm_and_tcp() {
    if is_rank() {
        return;
    }
    for (ranks, test) in [
        (2, "rank_counter_shm"),
        (4, "rank_counter_shm"),
        (2, "rank_counter_tcp"),
        (4, "rank_counter_tcp"),
        (4, "rank_collective_shm"),
        (3, "rank_collective_tcp"),
    ] {
        let (code, text, pid) = launch(ranks, test);
        assert_eq!(code, 0, "{test} x{ranks} failed:\n{text}");
        assert!(text.contains("rank 0 result"), "{text}");
        assert!(shm_files_of(pid).is_empty());
    }
}

#[test]
fn a_value_moving_within_a_rank_is_reached_from_every_rank() {
    if is_rank() {
        return;
    }
    for (ranks, test) in [(2, "rank_moving_shm"), (2, "rank_moving_tcp")] {
        let (code, text, _) = launch(ranks, test);
        assert_eq!(code, 0, "{test} x{ranks} failed:\n{text}");
        assert!(text.contains("rank 0 result"), "{text}");
    }
}

#[test]
fn a_value_moving_between_ranks_keeps_every_increment_and_each_clients_order() {
    if is_rank() {
        return;
    }
    for (ranks, test) in [
        (2, "rank_moving_ranks_shm"),
        (2, "rank_moving_ranks_tcp"),
        (3, "rank_moving_ranks_shm"),
        (2, "rank_holding_shm"),
        (2, "rank_holding_tcp"),
    ] {
        let (code, text, _) = launch(ranks, test);
        assert_eq!(code, 0, "{test} x{ranks} failed:\n{text}");
        assert!(text.contains("rank 0 result"), "{text}");
    }
}

#[test]
fn a_held_or_unencodable_value_stays_in_place_when_asked_to_move_into_another_rank() {
    if is_rank() {
        return;
    }
    for test in ["rank_refused_shm", "rank_refused_tcp"] {
        let (code, text, _) = launch(2, test);
        assert_eq!(code, 0, "{test} failed:\n{text}");
        assert!(text.contains("rank 0 result 14"), "{text}");
    }
}

#[test]
fn requests_in_flight_outlive_their_trust_dropped_on_another_worker_across_ranks() {
    if is_rank() {
        return;
    }
    for (ranks, test) in [(2, "rank_inflight_shm"), (2, "rank_inflight_tcp")] {
        let (code, text, _) = launch(ranks, test);
        assert_eq!(code, 0, "{test} x{ranks} failed:\n{text}");
        assert!(text.contains("rank 0 result"), "{text}");
    }
}

#[test]
fn rank_0_does_not_poll_while_the_main_function_runs() {
    if is_rank() {
        return;
    }
    let (code, text, _) = launch(2, "rank_quiet_shm");
    assert_eq!(code, 0, "{text}");
    let words: Vec<u64> = text
        .split("rank 0 result woke ")
        .nth(1)
        .map(|r| {
            r.split_whitespace()
                .filter_map(|w| w.parse().ok())
                .take(2)
                .collect()
        })
        .unwrap_or_default();
    let [woke, ms] = words[..] else {
        panic!("no result in:\n{text}")
    };
    // Sleeping until the main function returns, the loop wakes at most once per
    // main_wait (a busy host only makes it wake less often), plus the first
    // turn and a spurious wake-up or two; polling every 200 us woke it once
    // per 0.2 ms.
    let wait = gossamer::Config::default().main_wait.as_millis() as u64;
    eprintln!("rank 0's termination loop woke {woke} times in {ms} ms");
    assert!(
        woke <= ms / wait + 3,
        "rank 0's termination loop woke {woke} times in {ms} ms (main_wait {wait} ms)"
    );
}

#[test]
fn large_requests_mixed_with_small_ones_arrive_intact_and_in_order() {
    if is_rank() {
        return;
    }
    let rack_slot = gossamer::rack_slot_size(THREADS, 2 * THREADS);
    assert!(
        rack_slot >= 8 << 10,
        "a 4 KiB request fits a rack slot whole"
    );
    for (test, slot) in [
        ("rank_large_shm", rack_slot),
        ("rank_large_tcp", rack_slot),
        ("rank_large_small_slots_shm", 1024),
        ("rank_large_small_slots_tcp", 1024),
    ] {
        let (code, text, pid) = launch(2, test);
        assert_eq!(code, 0, "{test} failed:\n{text}");
        assert!(text.contains(&format!(" slot {slot}")), "{text}");
        assert!(shm_files_of(pid).is_empty());
    }
}

#[test]
fn a_killed_rank_stops_every_rank_with_its_name() {
    if is_rank() {
        return;
    }
    for test in ["rank_killed_shm", "rank_killed_tcp"] {
        let (code, text, pid) = launch(4, test);
        assert_eq!(code, 137, "the launcher reports rank 1's SIGKILL:\n{text}");
        assert!(
            text.contains("rank 1 was killed by SIGKILL (signal 9; likely the out-of-memory killer: see `dmesg`)"),
            "{text}"
        );
        assert!(
            text.contains("rank 0 stopped with: gossamer: rank 1 failed"),
            "rank 0's error names rank 1:\n{text}"
        );
        assert!(
            !text.contains("did not stop by itself"),
            "ranks stopped by themselves:\n{text}"
        );
        assert!(shm_files_of(pid).is_empty(), "no leftover shm file");
    }
}

/// Starts rank `rank` of a `size`-rank job of rank test `test` by hand (no launcher).
fn spawn_rank(
    test: &str,
    rank: usize,
    size: usize,
    coord: &str,
    job: &str,
    extra: &[(&str, &str)],
) -> std::process::Child {
    let args = [test, "--exact", "--nocapture", "--test-threads=1"];
    spawn_rank_of(
        &std::env::current_exe().unwrap(),
        &args,
        rank,
        size,
        coord,
        job,
        extra,
    )
}

/// [`spawn_rank`] of executable `exe` with arguments `args`.
fn spawn_rank_of(
    exe: &std::path::Path,
    args: &[&str],
    rank: usize,
    size: usize,
    coord: &str,
    job: &str,
    extra: &[(&str, &str)],
) -> std::process::Child {
    let mut c = Command::new(exe);
    c.args(args)
        .env("GOSSAMER_RANK", rank.to_string())
        .env("GOSSAMER_SIZE", size.to_string())
        .env("GOSSAMER_TOKEN", "the-right-token")
        .env("GOSSAMER_COORDINATOR", coord)
        .env("GOSSAMER_JOB", job)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in extra {
        c.env(k, v);
    }
    c.spawn().unwrap()
}

fn free_port() -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().to_string()
}

fn finish(c: std::process::Child) -> (i32, String) {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(c.wait_with_output()));
    let out = rx.recv_timeout(GUARD).expect("hang guard").unwrap();
    (
        out.status.code().unwrap_or(-1),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// Connects to `coord`, retrying until rank 0 listens.
fn connect_when_listening(coord: &str) -> std::net::TcpStream {
    let t0 = Instant::now();
    loop {
        match std::net::TcpStream::connect(coord) {
            Ok(s) => return s,
            Err(_) if t0.elapsed() < GUARD => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => panic!("rank 0 never listened: {e}"),
        }
    }
}

/// This job's region files in /dev/shm (`gossamer-<job>`, any suffix).
fn shm_files_of_job(job: &str) -> Vec<String> {
    std::fs::read_dir("/dev/shm")
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&format!("gossamer-{job}")))
        .collect()
}

#[test]
fn a_connection_with_a_wrong_token_is_refused_and_nothing_it_sends_runs() {
    use std::io::{Read, Write};
    if is_rank() {
        return;
    }
    let coord = free_port();
    let job = format!("badtoken-{}", std::process::id());
    let r0 = spawn_rank("rank_counter_shm", 0, 2, &coord, &job, &[]);
    let mut s = connect_when_listening(&coord);
    // The protocol's opening, then a tag made without the token, then bytes that
    // would be a message.
    let mut b = b"GSMRACK2".to_vec();
    b.extend_from_slice(&[7u8; 32]);
    s.write_all(&b).unwrap();
    s.set_read_timeout(Some(GUARD)).unwrap();
    let mut answer = [0u8; 72];
    s.read_exact(&mut answer).unwrap();
    assert_eq!(&answer[..8], b"GSMRACK2");
    let mut forged = vec![0u8; 32];
    forged.extend_from_slice(&[9u8; 64]);
    s.write_all(&forged).unwrap();
    let mut buf = [0u8; 16];
    match s.read(&mut buf) {
        Ok(0) | Err(_) => {} // closed
        Ok(n) => panic!("rank 0 answered {n} bytes to a peer with the wrong token"),
    }
    // The real rank 1 still joins: the impostor was not taken for rank 1.
    let r1 = spawn_rank("rank_counter_shm", 1, 2, &coord, &job, &[]);
    let (c0, t0) = finish(r0);
    let (c1, t1) = finish(r1);
    assert_eq!((c0, c1), (0, 0), "{t0}\n{t1}");
    assert!(
        t0.contains("refused a connection") && t0.contains("GOSSAMER_TOKEN differs"),
        "{t0}"
    );
    assert!(t0.contains("rank 0 result"), "{t0}");
}

/// A process listening on the coordinator address instead of rank 0 reads what a
/// rank sends: it must not contain the token. The rank says what went wrong.
#[test]
fn a_fake_coordinator_learns_no_token_and_the_rank_says_why_it_gave_up() {
    use std::io::{Read, Write};
    if is_rank() {
        return;
    }
    let token = "the-right-token";
    for (answer, says) in [
        (None, "timed out waiting for the coordinator at"),
        (
            Some(&b"HTTP/1.1 400 Bad Request\r\n\r\n"[..]),
            "is not a gossamer coordinator (bad protocol magic)",
        ),
    ] {
        let fake = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let coord = fake.local_addr().unwrap().to_string();
        let job = format!("fake-{}", std::process::id());
        let r1 = spawn_rank(
            "rank_counter_shm",
            1,
            2,
            &coord,
            &job,
            &[("GOSSAMER_JOIN_TIMEOUT", "3")],
        );
        let (mut s, _) = fake.accept().unwrap();
        s.set_read_timeout(Some(GUARD)).unwrap();
        let mut seen = Vec::new();
        if let Some(a) = answer {
            let mut first = [0u8; 40];
            s.read_exact(&mut first).unwrap();
            seen.extend_from_slice(&first);
            s.write_all(a).unwrap();
        }
        let _ = s.read_to_end(&mut seen); // until the rank gives up and closes
        let (c1, t1) = finish(r1);
        assert_ne!(c1, 0, "{t1}");
        assert!(
            !seen.windows(token.len()).any(|w| w == token.as_bytes()),
            "the fake coordinator received the token: {:?}",
            String::from_utf8_lossy(&seen)
        );
        assert!(seen.starts_with(b"GSMRACK2"), "{seen:?}");
        assert!(t1.contains(says) && t1.contains(&coord), "{t1}");
        assert!(!t1.contains("wrong GOSSAMER_TOKEN"), "{t1}");
    }
}

#[test]
fn a_rank_with_another_token_is_told_authentication_failed() {
    if is_rank() {
        return;
    }
    let coord = free_port();
    let job = format!("othertoken-{}", std::process::id());
    let quick = ("GOSSAMER_JOIN_TIMEOUT", "3");
    let r0 = spawn_rank("rank_counter_shm", 0, 2, &coord, &job, &[quick]);
    drop(connect_when_listening(&coord));
    let r1 = spawn_rank(
        "rank_counter_shm",
        1,
        2,
        &coord,
        &job,
        &[quick, ("GOSSAMER_TOKEN", "another-token")],
    );
    let (c1, t1) = finish(r1);
    let (c0, t0) = finish(r0);
    assert_ne!(c1, 0, "{t1}");
    assert_ne!(c0, 0, "{t0}");
    assert!(
        t1.contains("authentication failed: the GOSSAMER_TOKEN differs"),
        "{t1}"
    );
    assert!(t0.contains("did not join within 3 s"), "{t0}");
    assert!(shm_files_of_job(&job).is_empty());
}

#[test]
fn a_taken_coordinator_port_is_a_clear_error_at_once() {
    if is_rank() {
        return;
    }
    let squatter = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let coord = squatter.local_addr().unwrap().to_string();
    let job = format!("taken-{}", std::process::id());
    let (c0, t0) = finish(spawn_rank("rank_counter_shm", 0, 2, &coord, &job, &[]));
    assert_ne!(c0, 0, "{t0}");
    assert!(
        t0.contains(&format!(
            "rank 0 cannot listen on the coordinator address {coord}: the port is already in use"
        )),
        "{t0}"
    );
    assert!(shm_files_of_job(&job).is_empty());
    drop(squatter);
}

#[test]
fn idle_connections_to_the_coordinator_do_not_stop_the_job() {
    if is_rank() {
        return;
    }
    // 20 idle connections, then more than rank 0 keeps in the handshake at once.
    for flood in [20, 100] {
        let coord = free_port();
        let job = format!("flood{flood}-{}", std::process::id());
        let r0 = spawn_rank("rank_counter_tcp", 0, 3, &coord, &job, &[]);
        let mut idle = vec![connect_when_listening(&coord)];
        for _ in 1..flood {
            idle.push(std::net::TcpStream::connect(&coord).unwrap());
        }
        let r1 = spawn_rank("rank_counter_tcp", 1, 3, &coord, &job, &[]);
        let r2 = spawn_rank("rank_counter_tcp", 2, 3, &coord, &job, &[]);
        let (c1, t1) = finish(r1);
        let (c2, t2) = finish(r2);
        let (c0, t0) = finish(r0);
        assert_eq!((c0, c1, c2), (0, 0, 0), "{flood}: {t0}\n{t1}\n{t2}");
        assert!(t0.contains("rank 0 result"), "{t0}");
        if flood > 64 {
            assert!(
                t0.contains("dropped the oldest unauthenticated one"),
                "{t0}"
            );
        }
        drop(idle);
    }
}

#[test]
fn ranks_started_with_different_arguments_are_refused() {
    if is_rank() {
        return;
    }
    let coord = free_port();
    let job = format!("args-{}", std::process::id());
    let exe = std::env::current_exe().unwrap();
    let a0 = [
        "rank_counter_shm",
        "--exact",
        "--nocapture",
        "--test-threads=1",
    ];
    let a1 = [
        "rank_counter_shm",
        "--exact",
        "--nocapture",
        "--test-threads=2",
    ];
    let r0 = spawn_rank_of(&exe, &a0, 0, 2, &coord, &job, &[]);
    let r1 = spawn_rank_of(&exe, &a1, 1, 2, &coord, &job, &[]);
    let (c0, t0) = finish(r0);
    let (c1, t1) = finish(r1);
    assert_ne!(c0, 0, "{t0}");
    assert_ne!(c1, 0, "{t1}");
    let want = "rank 1 was started with different arguments than rank 0: rank 0: \
                [\"rank_counter_shm\", \"--exact\", \"--nocapture\", \"--test-threads=1\"], \
                rank 1: [\"rank_counter_shm\", \"--exact\", \"--nocapture\", \
                \"--test-threads=2\"] (they differ from argument 4 on)";
    // (the rank tests print the error with `{:?}`, which escapes the quotes)
    let want = want.replace('"', "\\\"");
    assert!(t0.contains(&want), "{t0}");
    assert!(
        t1.contains("rank 0 refused to start") && t1.contains(&want),
        "{t1}"
    );
    assert!(shm_files_of_job(&job).is_empty());
}

/// Flips a byte of the `.comment` section (not loaded, so the program runs the
/// same and keeps its build id) of an ELF64 little-endian file.
fn patch_comment(elf: &mut [u8]) {
    let u16_at = |b: &[u8], o: usize| u16::from_le_bytes(b[o..o + 2].try_into().unwrap()) as usize;
    let u32_at = |b: &[u8], o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap()) as usize;
    let u64_at = |b: &[u8], o: usize| u64::from_le_bytes(b[o..o + 8].try_into().unwrap()) as usize;
    assert_eq!(&elf[..6], b"\x7fELF\x02\x01", "an ELF64 little-endian file");
    let (shoff, shentsize, shnum, shstrndx) = (
        u64_at(elf, 0x28),
        u16_at(elf, 0x3a),
        u16_at(elf, 0x3c),
        u16_at(elf, 0x3e),
    );
    let sh = |i: usize| shoff + i * shentsize;
    let strtab = u64_at(elf, sh(shstrndx) + 24);
    for i in 0..shnum {
        let name_at = strtab + u32_at(elf, sh(i));
        if elf[name_at..].starts_with(b".comment\0") {
            let (off, size) = (u64_at(elf, sh(i) + 24), u64_at(elf, sh(i) + 32));
            assert!(size > 4);
            elf[off + 2] ^= 0x20;
            return;
        }
    }
    panic!("no .comment section");
}

#[test]
fn a_patched_binary_with_the_same_build_id_is_refused() {
    if is_rank() {
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let dir = std::env::temp_dir().join(format!("gsm-patched-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let copy = dir.join("rack-patched");
    let mut bytes = std::fs::read(&exe).unwrap();
    patch_comment(&mut bytes);
    std::fs::write(&copy, &bytes).unwrap();
    std::fs::set_permissions(&copy, std::fs::metadata(&exe).unwrap().permissions()).unwrap();
    let coord = free_port();
    let job = format!("patched-{}", std::process::id());
    let args = [
        "rank_counter_shm",
        "--exact",
        "--nocapture",
        "--test-threads=1",
    ];
    let r0 = spawn_rank_of(&exe, &args, 0, 2, &coord, &job, &[]);
    let r1 = spawn_rank_of(&copy, &args, 1, 2, &coord, &job, &[]);
    let (c0, t0) = finish(r0);
    let (c1, t1) = finish(r1);
    let _ = std::fs::remove_dir_all(&dir);
    assert_ne!(c0, 0, "{t0}");
    assert_ne!(c1, 0, "{t1}");
    assert!(
        t0.contains("rank 1 runs a different binary with the same build id"),
        "{t0}"
    );
    assert!(t1.contains("rank 0 refused to start"), "{t1}");
    assert!(shm_files_of_job(&job).is_empty());
}

#[test]
fn a_launcher_killed_during_bootstrap_leaves_no_shm_file() {
    use std::io::BufRead;
    if is_rank() {
        return;
    }
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["launcher", "--exact", "--nocapture", "--test-threads=1"])
        .env("GOSSAMER_TEST_LAUNCH", "3:rank_slow_join_shm")
        .env_remove("GOSSAMER_RANK")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let t0 = Instant::now();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    loop {
        let l = lines.next().expect("the job's output ended").unwrap();
        if l.contains("rank 0 joining") {
            break;
        }
        assert!(t0.elapsed() < GUARD, "rank 0 never started");
    }
    let ranks = children_of(pid);
    // The last rank joins only after 30 s: kill the launcher once rank 0 has
    // mapped the region (a /dev/shm file or the launcher's memfd) and waits.
    let mapped = || {
        ranks.iter().any(|(r, _)| {
            std::fs::read_to_string(format!("/proc/{r}/maps"))
                .map(|m| m.contains("gossamer-"))
                .unwrap_or(false)
        })
    };
    while !mapped() {
        assert!(t0.elapsed() < GUARD, "rank 0 never mapped the region");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL: the launcher cannot clean up
    child.wait().unwrap();
    wait_until_gone(&ranks);
    assert!(shm_files_of(pid).is_empty(), "{:?}", shm_files_of(pid));
}

#[test]
fn rank_0_removes_regions_left_by_a_killed_rank_0() {
    if is_rank() {
        return;
    }
    let job = format!("stale-{}", std::process::id());
    let mut dead = Command::new("true").spawn().unwrap();
    let dead_pid = dead.id();
    dead.wait().unwrap();
    let stale = format!("/dev/shm/gossamer-{job}-old.p{dead_pid}");
    std::fs::write(&stale, b"left by a rank 0 killed during bootstrap").unwrap();
    let coord = free_port();
    let r0 = spawn_rank("rank_counter_shm", 0, 2, &coord, &job, &[]);
    let r1 = spawn_rank("rank_counter_shm", 1, 2, &coord, &job, &[]);
    let (c0, t0) = finish(r0);
    let (c1, t1) = finish(r1);
    assert_eq!((c0, c1), (0, 0), "{t0}\n{t1}");
    assert!(
        !std::path::Path::new(&stale).exists(),
        "the stale region was swept"
    );
    assert!(shm_files_of_job(&job).is_empty());
}

#[test]
fn a_rank_running_a_different_binary_is_refused() {
    if is_rank() {
        return;
    }
    let coord = free_port();
    let job = format!("identity-{}", std::process::id());
    let r0 = spawn_rank("rank_counter_shm", 0, 2, &coord, &job, &[]);
    let r1 = spawn_rank(
        "rank_counter_shm",
        1,
        2,
        &coord,
        &job,
        &[("GOSSAMER_TEST_IDENTITY_SALT", "x")],
    );
    let (c0, t0) = finish(r0);
    let (c1, t1) = finish(r1);
    assert_ne!(c0, 0);
    assert_ne!(c1, 0);
    assert!(t0.contains("rank 1 runs a different binary"), "{t0}");
    assert!(
        t1.contains("rank 0 refused to start") && t1.contains("different binary"),
        "{t1}"
    );
    assert!(shm_files_of_job(&job).is_empty());
}

#[test]
fn ranks_with_different_collective_trees_are_refused_naming_the_field() {
    if is_rank() {
        return;
    }
    let coord = free_port();
    let job = format!("fanout-{}", std::process::id());
    let r0 = spawn_rank("rank_fanout_shm", 0, 2, &coord, &job, &[]);
    let r1 = spawn_rank(
        "rank_fanout_shm",
        1,
        2,
        &coord,
        &job,
        &[("TEST_FANOUT", "8")],
    );
    let (c0, t0) = finish(r0);
    let (c1, t1) = finish(r1);
    assert_ne!(c0, 0, "{t0}");
    assert_ne!(c1, 0, "{t1}");
    assert!(
        t0.contains(
            "rank 1 has gossamer::Config collective_fanout = 8, rank 0 has collective_fanout = 16"
        ),
        "{t0}"
    );
    assert!(t1.contains("rank 0 refused to start"), "{t1}");
    assert!(shm_files_of_job(&job).is_empty());
}

#[test]
fn a_delegated_panic_on_another_rank_stops_every_rank_naming_it() {
    if is_rank() {
        return;
    }
    let (code, text, _) = launch(3, "rank_panic_tcp");
    assert_ne!(code, 0, "{text}");
    assert!(text.contains("boom on the trustee"), "{text}");
    assert!(
        text.contains("rank 0 stopped with: gossamer: rank 1 failed"),
        "rank 0 names rank 1:\n{text}"
    );
    assert!(!text.contains("did not stop by itself"), "{text}");
}

/// The live children of `pid`: (pid, start time) each.
fn children_of(pid: u32) -> Vec<(u32, u64)> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|p| {
            let st = std::fs::read_to_string(format!("/proc/{p}/stat")).ok()?;
            let ppid = st.rsplit_once(')')?.1.split_whitespace().nth(1)?;
            (ppid.parse::<u32>().ok()? == pid).then_some((p, start_time(&st)?))
        })
        .collect()
}

#[test]
fn ranks_die_with_their_launcher_and_leave_no_shm_file() {
    if is_rank() {
        return;
    }
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["launcher", "--exact", "--nocapture", "--test-threads=1"])
        .env("GOSSAMER_TEST_LAUNCH", "3:rank_forever_shm")
        .env_remove("GOSSAMER_RANK")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let t0 = Instant::now();
    let mut ranks = Vec::new();
    while ranks.len() < 3 {
        assert!(t0.elapsed() < GUARD, "the launcher did not start 3 ranks");
        std::thread::sleep(Duration::from_millis(20));
        ranks = children_of(pid);
    }
    // Let them bootstrap (the shm file is unlinked once every rank mapped it).
    while !shm_files_of(pid).is_empty() || t0.elapsed() < Duration::from_millis(500) {
        assert!(t0.elapsed() < GUARD, "bootstrap never finished");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL: the launcher cannot clean up
    child.wait().unwrap();
    wait_until_gone(&ranks);
    assert!(shm_files_of(pid).is_empty());
}

/// Like `mpirun` without `GOSSAMER_TOKEN`: the ranks share a random secret through
/// a private file keyed by the job id, which rank 0 removes once everyone joined.
#[test]
fn without_a_token_ranks_share_a_private_secret_file_and_it_is_removed() {
    use std::os::unix::fs::PermissionsExt;
    if is_rank() {
        return;
    }
    let tmp = std::env::temp_dir().join(format!("gsm-mpirun-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let coord = free_port();
    let spawn = |rank: usize| {
        Command::new(std::env::current_exe().unwrap())
            .args([
                "rank_counter_shm",
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env_remove("GOSSAMER_RANK")
            .env_remove("GOSSAMER_TOKEN")
            .env_remove("XDG_RUNTIME_DIR")
            .env("OMPI_COMM_WORLD_RANK", rank.to_string())
            .env("OMPI_COMM_WORLD_SIZE", "2")
            .env("OMPI_MCA_ess_base_jobid", format!("{}", std::process::id()))
            .env("GOSSAMER_COORDINATOR", &coord)
            .env("TMPDIR", &tmp)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let r1 = spawn(1);
    let r0 = spawn(0);
    let (c0, t0) = finish(r0);
    let (c1, t1) = finish(r1);
    assert_eq!((c0, c1), (0, 0), "{t0}\n{t1}");
    assert!(t0.contains("rank 0 result"), "{t0}");
    let dirs: Vec<_> = std::fs::read_dir(&tmp).unwrap().flatten().collect();
    assert_eq!(dirs.len(), 1, "one private directory");
    let mode = dirs[0].metadata().unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700);
    let left: Vec<_> = std::fs::read_dir(dirs[0].path())
        .unwrap()
        .flatten()
        .collect();
    assert!(left.is_empty(), "the secret file is removed: {left:?}");
    std::fs::remove_dir_all(&tmp).unwrap();
}
