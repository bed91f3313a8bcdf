//! The fetch-and-add workload shared by `examples/fetch_add` and `benches/fetch_add.rs`.
//!
//! Each operation picks an object (uniformly or by Zipf(1) rank), increments its counter
//! with one `std::hint::spin_loop()` inside the critical section, and returns the old value
//! (as in the Trust<T> evaluation, which puts one `pause` in every critical section).
//!
//! Object choices come from per-thread streams sampled before timing starts, so the cost
//! of sampling is the same (one sequential load) for every variant and is not measured.

#![allow(dead_code)] // each includer uses a different subset

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Length of each thread's pre-sampled stream of object indices (it is cycled).
pub const STREAM_LEN: usize = 1 << 16;

/// How objects are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dist {
    /// Every object equally likely.
    Uniform,
    /// Object of rank `r` (0-based) chosen with probability proportional to `1 / (r + 1)`.
    Zipf,
}

impl Dist {
    pub fn name(self) -> &'static str {
        match self {
            Dist::Uniform => "uniform",
            Dist::Zipf => "zipf",
        }
    }
}

/// xorshift64* pseudo-random generator: tiny, fast and good enough to pick objects.
#[derive(Clone, Debug)]
pub struct XorShift(u64);

impl XorShift {
    pub fn new(seed: u64) -> Self {
        // Spread the seed (splitmix64 step) so that small seeds give unrelated streams;
        // the state must never be zero.
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        XorShift((z ^ (z >> 31)) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `[0, 1)` with 53 random bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `[0, n)` (multiply-shift; bias is below 2^-32 for our `n`).
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }
}

/// Zipf(1) over `n` ranks by inversion of the cumulative distribution (binary search).
pub struct Zipf {
    cdf: Vec<f64>,
}

impl Zipf {
    pub fn new(n: usize) -> Self {
        let mut cdf = Vec::with_capacity(n);
        let mut sum = 0.0;
        for r in 1..=n {
            sum += 1.0 / r as f64;
            cdf.push(sum);
        }
        for c in &mut cdf {
            *c /= sum;
        }
        Zipf { cdf }
    }

    pub fn sample(&self, rng: &mut XorShift) -> usize {
        let u = rng.next_f64();
        self.cdf
            .partition_point(|&c| c <= u)
            .min(self.cdf.len() - 1)
    }
}

/// One pre-sampled stream of object indices per thread.
pub fn streams(objects: usize, dist: Dist, threads: usize, seed: u64) -> Vec<Vec<u32>> {
    let zipf = (dist == Dist::Zipf).then(|| Zipf::new(objects));
    (0..threads)
        .map(|t| {
            let mut rng = XorShift::new(seed ^ ((t as u64 + 1) << 32));
            (0..STREAM_LEN)
                .map(|_| match &zipf {
                    Some(z) => z.sample(&mut rng) as u32,
                    None => rng.below(objects) as u32,
                })
                .collect()
        })
        .collect()
}

/// A `Mutex<u64>` alone on its cache line (no false sharing between objects).
#[repr(align(64))]
#[derive(Default)]
pub struct PaddedMutex(pub Mutex<u64>);

impl PaddedMutex {
    pub fn fetch_add(&self) -> u64 {
        // A poisoned lock only means another thread panicked mid-increment; the counter
        // is still a valid integer, so keep counting.
        let mut guard = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let old = *guard;
        std::hint::spin_loop();
        *guard = old + 1;
        old
    }
}

/// A test-and-test-and-set spin lock guarding one counter, alone on its cache line.
///
/// The counter is an `AtomicU64` accessed with relaxed loads and stores *inside* the lock
/// (plain moves on x86), so the lock needs no `unsafe`: acquire/release on `locked` orders
/// them.
#[repr(align(64))]
#[derive(Default)]
pub struct SpinCounter {
    locked: AtomicBool,
    value: AtomicU64,
}

impl SpinCounter {
    pub fn fetch_add(&self) -> u64 {
        while self
            .locked
            .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            // Test before test-and-set: spin on a shared (read-only) copy of the line.
            while self.locked.load(Ordering::Relaxed) {
                std::hint::spin_loop();
            }
        }
        let old = self.value.load(Ordering::Relaxed);
        std::hint::spin_loop();
        self.value.store(old + 1, Ordering::Relaxed);
        self.locked.store(false, Ordering::Release);
        old
    }

    pub fn get(&self) -> u64 {
        self.value.load(Ordering::Acquire)
    }
}

/// How long each thread runs.
#[derive(Clone, Copy, Debug)]
pub enum Budget {
    /// Until this much wall-clock time has passed.
    Time(Duration),
    /// Exactly this many operations per thread.
    Ops(u64),
}

/// Runs `op(object)` on `streams.len()` OS threads within `budget`.
/// Returns total operations and the elapsed wall-clock time.
pub fn drive_threads<F>(streams: &[Vec<u32>], budget: Budget, op: F) -> (u64, Duration)
where
    F: Fn(usize) + Sync,
{
    let stop = AtomicBool::new(false);
    let start = Instant::now();
    let total = std::thread::scope(|s| {
        let handles: Vec<_> = streams
            .iter()
            .map(|stream| {
                let (stop, op) = (&stop, &op);
                s.spawn(move || run_stream(stream, budget, stop, op))
            })
            .collect();
        if let Budget::Time(d) = budget {
            std::thread::sleep(d);
            stop.store(true, Ordering::Relaxed);
        }
        handles
            .into_iter()
            .map(|h| h.join().expect("benchmark thread panicked"))
            .sum()
    });
    (total, start.elapsed())
}

/// One thread's loop: follows `stream` cyclically until the budget is spent.
pub fn run_stream(stream: &[u32], budget: Budget, stop: &AtomicBool, op: impl Fn(usize)) -> u64 {
    let mut done = 0u64;
    match budget {
        Budget::Ops(n) => {
            for &o in stream.iter().cycle().take(n as usize) {
                op(o as usize);
            }
            done = n;
        }
        Budget::Time(_) => {
            // Check the stop flag once per 64 operations.
            'outer: loop {
                for chunk in stream.chunks(64) {
                    if stop.load(Ordering::Relaxed) {
                        break 'outer;
                    }
                    for &o in chunk {
                        op(o as usize);
                    }
                    done += chunk.len() as u64;
                }
            }
        }
    }
    done
}

/// Fetch-and-add on one `Mutex` per object.
pub fn run_mutex(objects: usize, streams: &[Vec<u32>], budget: Budget) -> (u64, Duration) {
    let locks: Vec<PaddedMutex> = (0..objects).map(|_| PaddedMutex::default()).collect();
    let (ops, elapsed) = drive_threads(streams, budget, |o| {
        std::hint::black_box(locks[o].fetch_add());
    });
    let counted: u64 = locks
        .iter()
        .map(|m| *m.0.lock().unwrap_or_else(|e| e.into_inner()))
        .sum();
    assert_eq!(counted, ops, "mutex counters lost increments");
    (ops, elapsed)
}

/// Fetch-and-add on one test-and-test-and-set spin lock per object.
pub fn run_spin(objects: usize, streams: &[Vec<u32>], budget: Budget) -> (u64, Duration) {
    let locks: Vec<SpinCounter> = (0..objects).map(|_| SpinCounter::default()).collect();
    let (ops, elapsed) = drive_threads(streams, budget, |o| {
        std::hint::black_box(locks[o].fetch_add());
    });
    let counted: u64 = locks.iter().map(SpinCounter::get).sum();
    assert_eq!(counted, ops, "spin-lock counters lost increments");
    (ops, elapsed)
}
