//! The delegation variants of the fetch-and-add workload: `Trust::apply` from several
//! fibers per worker, and `Trust::apply_then` with a bounded window of outstanding
//! requests per worker. Shared by `examples/fetch_add` and `benches/fetch_add.rs`.

#![allow(dead_code)] // each includer uses a different subset

use std::cell::Cell;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use gossamer::{Trust, TrusteeStats, WorkerId};

use super::workload::Budget;

/// How the delegation clients are organised on each worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tuning {
    /// Fibers per worker issuing blocking `apply` (several, to hide the round trip).
    pub fibers: usize,
    /// `apply_then` requests allowed in flight per worker.
    pub window: u64,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            fibers: 8,
            window: 256,
        }
    }
}

/// The delegated critical section: one `pause`, then increment; returns the old value.
fn fetch_add(c: &mut u64) -> u64 {
    let old = *c;
    std::hint::spin_loop();
    *c = old + 1;
    old
}

/// Result of one delegation run.
pub struct Outcome {
    pub ops: u64,
    pub elapsed: Duration,
    /// Per-trustee statistics accumulated during the timed part only.
    pub stats: Vec<TrusteeStats>,
}

/// Runs the `trust` (blocking `apply`) or `async` (`apply_then`) variant on a fresh
/// runtime with `streams.len()` workers; object `i` lives on worker `i % workers`.
pub fn run(
    asynchronous: bool,
    objects: usize,
    streams: &[Vec<u32>],
    budget: Budget,
    tuning: Tuning,
) -> Result<Outcome, String> {
    let threads = streams.len();
    let streams: Arc<Vec<Vec<u32>>> = Arc::new(streams.to_vec());
    gossamer::Runtime::builder()
        .threads(threads)
        .run(move || timed_run(asynchronous, objects, streams, budget, tuning))
        .map_err(|e| format!("gossamer runtime failed: {e}"))?
}

fn timed_run(
    asynchronous: bool,
    objects: usize,
    streams: Arc<Vec<Vec<u32>>>,
    budget: Budget,
    tuning: Tuning,
) -> Result<Outcome, String> {
    let workers = gossamer::num_workers();
    // Every worker entrusts its own share of counters to itself (no round trips).
    let shares = gossamer::on_every_worker(move || {
        let me = gossamer::current_worker().0;
        (me..objects)
            .step_by(workers)
            .map(|_| gossamer::entrust(0u64))
            .collect::<Vec<_>>()
    });
    let mut shares: Vec<std::vec::IntoIter<Trust<u64>>> =
        shares.into_iter().map(Vec::into_iter).collect();
    let trusts: Arc<Vec<Trust<u64>>> = Arc::new(
        (0..objects)
            .map(|i| {
                shares[i % workers]
                    .next()
                    .expect("each worker made its share")
            })
            .collect(),
    );

    let before = gossamer::stats();
    let start = Instant::now();
    let deadline = match budget {
        Budget::Time(d) => Some(start + d),
        Budget::Ops(_) => None,
    };
    let mut handles = Vec::new();
    for w in 0..workers {
        let fibers = if asynchronous { 1 } else { tuning.fibers };
        for k in 0..fibers {
            let (trusts, streams) = (trusts.clone(), streams.clone());
            let ops = match budget {
                Budget::Ops(n) => n / fibers as u64 + u64::from((k as u64) < n % fibers as u64),
                Budget::Time(_) => u64::MAX,
            };
            handles.push(gossamer::spawn_on(WorkerId(w), move || {
                let stream = &streams[w];
                let offset = k * stream.len() / fibers;
                if asynchronous {
                    async_client(&trusts, stream, offset, ops, deadline, tuning.window)
                } else {
                    blocking_client(&trusts, stream, offset, ops, deadline)
                }
            }));
        }
    }
    let ops: u64 = handles.into_iter().map(|h| h.join()).sum();
    let elapsed = start.elapsed();
    let after = gossamer::stats();

    // Every increment must have landed exactly once.
    let total = Rc::new(Cell::new(0u64));
    for t in trusts.iter() {
        let total = total.clone();
        t.apply_then(|c| *c, move |v| total.set(total.get() + v));
    }
    gossamer::wait_outstanding();
    if total.get() != ops {
        return Err(format!(
            "counters sum to {} but {ops} increments were made",
            total.get()
        ));
    }
    drop(trusts);

    let stats = before.iter().zip(&after).map(|(b, a)| a.since(b)).collect();
    Ok(Outcome {
        ops,
        elapsed,
        stats,
    })
}

/// Object indices for one client: `stream` from `offset`, cyclically.
fn objects_from(stream: &[u32], offset: usize) -> impl Iterator<Item = usize> + '_ {
    stream[offset..]
        .iter()
        .chain(&stream[..offset])
        .cycle()
        .map(|&o| o as usize)
}

/// Operations between two `yield_now` calls of a client fiber.
///
/// A fiber whose applies hit the local trustee runs them inline and never suspends, so
/// without a yield its worker would never get back to serving other workers' requests
/// (with 1 object and 2 workers, worker 1 was starved to ~500 requests per second).
pub const YIELD_EVERY: usize = 64;

/// Blocking client: one `apply` at a time; the fiber parks while it is in flight.
fn blocking_client(
    trusts: &[Trust<u64>],
    stream: &[u32],
    offset: usize,
    ops: u64,
    deadline: Option<Instant>,
) -> u64 {
    let mut done = 0u64;
    let mut objs = objects_from(stream, offset);
    while done < ops {
        if let Some(d) = deadline {
            if Instant::now() >= d {
                break;
            }
        }
        for _ in 0..(YIELD_EVERY as u64).min(ops - done) {
            let o = objs.next().expect("cycle never ends");
            std::hint::black_box(trusts[o].apply(fetch_add));
            done += 1;
        }
        gossamer::yield_now();
    }
    done
}

/// Non-blocking client: `apply_then`, with at most `window` requests in flight.
fn async_client(
    trusts: &[Trust<u64>],
    stream: &[u32],
    offset: usize,
    ops: u64,
    deadline: Option<Instant>,
    window: u64,
) -> u64 {
    let answered = Rc::new(Cell::new(0u64));
    let mut issued = 0u64;
    let mut objs = objects_from(stream, offset);
    while issued < ops {
        if let Some(d) = deadline {
            if Instant::now() >= d {
                break;
            }
        }
        for _ in 0..(YIELD_EVERY as u64).min(ops - issued) {
            while issued - answered.get() >= window {
                gossamer::yield_now();
            }
            let o = objs.next().expect("cycle never ends");
            let answered = answered.clone();
            trusts[o].apply_then(fetch_add, move |old| {
                std::hint::black_box(old);
                answered.set(answered.get() + 1);
            });
            issued += 1;
        }
        gossamer::yield_now();
    }
    gossamer::wait_outstanding();
    issued
}
