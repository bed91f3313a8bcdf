//! Trusts that move within a rank and between ranks, requests in flight
//! across a move, and moves that must not happen.

use crate::common::{builder, is_rank, launch_ok, launch_to_a_result, yield_until, THREADS};
use gossamer::rack::TransportKind;
use gossamer::{entrust_with, num_workers, on_every_worker_with, Trust, WorkerId};
use std::cell::Cell;
use std::rc::Rc;
use std::time::{Duration, Instant};

/// Trusts that move, seen from every rank: a counter entrusted to rank 1 moves
/// back and forth between rank 1's two workers (moved by a fiber on rank 0)
/// while every worker of every rank increments it; no increment is lost or
/// doubled, and a move into another rank is refused without moving.
pub fn moving(t: TransportKind) {
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
pub fn inflight(t: TransportKind) {
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
            yield_until("the value was never dropped", || {
                ask.apply(|_| probe_dropped())
            });
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
pub fn moving_ranks(t: TransportKind) {
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
            yield_until("the value was never dropped", || counts().1 != made);
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
pub fn holding(t: TransportKind) {
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
            yield_until("the held value was never dropped", || {
                ask.apply(|_| KEPT_DROPS.load(SeqCst)) != 0
            });
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
pub fn refused(t: TransportKind) {
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
            yield_until("the launch never started", || HELD.load(SeqCst));
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

#[test]
fn a_value_moving_within_a_rank_is_reached_from_every_rank() {
    if is_rank() {
        return;
    }
    for (ranks, test) in [(2, "rank_moving_shm"), (2, "rank_moving_tcp")] {
        launch_to_a_result(ranks, test);
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
        launch_to_a_result(ranks, test);
    }
}

#[test]
fn a_held_or_unencodable_value_stays_in_place_when_asked_to_move_into_another_rank() {
    if is_rank() {
        return;
    }
    for test in ["rank_refused_shm", "rank_refused_tcp"] {
        let (text, _) = launch_ok(2, test);
        assert!(text.contains("rank 0 result 14"), "{text}");
    }
}

#[test]
fn requests_in_flight_outlive_their_trust_dropped_on_another_worker_across_ranks() {
    if is_rank() {
        return;
    }
    for (ranks, test) in [(2, "rank_inflight_shm"), (2, "rank_inflight_tcp")] {
        launch_to_a_result(ranks, test);
    }
}
