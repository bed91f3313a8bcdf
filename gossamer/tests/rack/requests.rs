//! Traffic among ranks: a counter every worker increments, large requests
//! mixed with small ones, collectives, and rank 0's termination loop staying
//! asleep meanwhile.

use crate::common::{builder, is_rank, launch_ok, launch_to_a_result, shm_files_of, THREADS};
use gossamer::rack::TransportKind;
use gossamer::{entrust_with, num_workers, on_every_worker_with, Trust, WorkerId};
use std::cell::Cell;
use std::rc::Rc;
use std::time::{Duration, Instant};

/// The counter scenario: a counter on the first worker of rank 1, incremented from
/// every worker of every rank; rank 0 checks the exact sum.
pub fn counter(t: TransportKind) {
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
pub fn large_mixed(t: TransportKind, slot: Option<usize>) {
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

/// The bulk-synchronous pattern of the kernels: a Collective created on rank 0,
/// all-reduce and barrier among one fiber per worker of every rank.
pub fn collective(t: TransportKind) {
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

/// While the main function runs, rank 0's own thread (which detects
/// termination once it returns) stays asleep, waking at most once per
/// `Config::main_wait`: it woke every 200 us before, a context switch each on a
/// worker's core. Prints how often its loop woke (the runtime counts it) in
/// how many milliseconds of main-function work.
pub fn quiet(t: TransportKind) {
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
        let pid = launch_to_a_result(ranks, test);
        assert!(shm_files_of(pid).is_empty());
    }
}

#[test]
fn rank_0_does_not_poll_while_the_main_function_runs() {
    if is_rank() {
        return;
    }
    let (text, _) = launch_ok(2, "rank_quiet_shm");
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
        let (text, pid) = launch_ok(2, test);
        assert!(text.contains(&format!(" slot {slot}")), "{text}");
        assert!(shm_files_of(pid).is_empty());
    }
}
