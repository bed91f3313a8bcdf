//! Echo benchmark (dissertation §5.1-5.2): every worker is both a server (it owns a
//! counter) and a client that keeps `--window` requests in flight, each to a
//! random other worker, carrying `--size` bytes. Prints throughput and latency.
//!
//! ```text
//! cargo run --release -p gossamer --example echo -- [--ranks R] [--transport shm|tcp]
//!     [--threads T] [--size BYTES] [--window W] [--seconds S] [--slot-size BYTES]
//! ```
//! With `--ranks R` the built-in launcher starts R processes on this host.
//! `--slot-size` overrides the runtime's slot size (default: 1 KiB in one
//! process, `gossamer::rack_slot_size` across ranks).

use gossamer::rack::TransportKind;
use gossamer::{entrust_with, num_workers, on_every_worker_with, Builder, Trust, WorkerId};
use serde::{Deserialize, Serialize};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Instant;

#[derive(Clone, Serialize, Deserialize)]
struct Params {
    size: usize,
    window: usize,
    seconds: f64,
}

/// What one worker measured: requests done, seconds, and a latency sample (ns).
#[derive(Serialize, Deserialize)]
struct Report {
    ops: u64,
    secs: f64,
    lat_ns: Vec<u32>,
}

const SAMPLE_EVERY: u64 = 7;

fn client((servers, p): (Vec<Trust<u64>>, Params)) -> Report {
    let me = gossamer::current_worker().index();
    let n = servers.len();
    let words = (p.size / 8).max(1);
    let data = vec![me as u64; words];
    let outstanding = Rc::new(Cell::new(0usize));
    let lat = Rc::new(RefCell::new(Vec::<u32>::with_capacity(1 << 16)));
    let mut rng = 0x9e37_79b9_7f4a_7c15u64 ^ (me as u64 + 1);
    let mut ops = 0u64;
    let t0 = Instant::now();
    while t0.elapsed().as_secs_f64() < p.seconds {
        // At most `window` issues per round: local requests complete inline.
        for _ in 0..p.window {
            if outstanding.get() >= p.window {
                break;
            }
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let mut s = (rng % n as u64) as usize;
            if s == me && n > 1 {
                s = (s + 1) % n;
            }
            let sampled = ops.is_multiple_of(SAMPLE_EVERY);
            let issued = sampled.then(Instant::now);
            outstanding.set(outstanding.get() + 1);
            let (o, l) = (outstanding.clone(), lat.clone());
            servers[s].apply_slice_then(
                |c, d: &[u64]| {
                    *c += 1;
                    d.len() as u64
                },
                &data,
                move |_| {
                    o.set(o.get() - 1);
                    if let Some(t) = issued {
                        l.borrow_mut()
                            .push(t.elapsed().as_nanos().min(u32::MAX as u128) as u32);
                    }
                },
            );
            ops += 1;
        }
        gossamer::yield_now();
    }
    gossamer::wait_outstanding();
    let secs = t0.elapsed().as_secs_f64();
    let lat_ns = lat.borrow().clone();
    Report { ops, secs, lat_ns }
}

fn arg<T: std::str::FromStr>(args: &[String], name: &str, default: T) -> T {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(|v| v.parse().unwrap_or_else(|_| panic!("bad value for {name}")))
        .unwrap_or(default)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let ranks: usize = arg(&args, "--ranks", 0);
    if ranks > 0 {
        // Launcher: start `ranks` copies without `--ranks`.
        let mut rest = Vec::new();
        let mut skip = false;
        for a in &args[1..] {
            if skip {
                skip = false;
            } else if a == "--ranks" {
                skip = true;
            } else {
                rest.push(a.into());
            }
        }
        let code = gossamer::rack::launch_local(ranks, &rest).unwrap_or_else(|e| {
            eprintln!("{e}");
            2
        });
        std::process::exit(code);
    }
    let b = Builder::from_env().unwrap_or_else(|e| panic!("{e}"));
    let transport: TransportKind = arg(&args, "--transport", TransportKind::Shm);
    let threads: usize = arg(&args, "--threads", 1);
    let p = Params {
        size: arg(&args, "--size", 32),
        window: arg(&args, "--window", 16),
        seconds: arg(&args, "--seconds", 2.0),
    };
    let nranks = b.ranks();
    let tname = if nranks == 1 {
        "local"
    } else {
        transport.name()
    };
    let slot_size: usize = arg(&args, "--slot-size", 0);
    let b = if slot_size > 0 {
        b.slot_size(slot_size)
    } else {
        b
    };
    let b = b
        .threads(threads)
        .pin_threads(nranks == 1)
        .transport(transport);
    let r = b.run(move || {
        let n = num_workers();
        let servers: Vec<Trust<u64>> = (0..n).map(|w| entrust_with(WorkerId(w), || 0u64)).collect();
        let reports = on_every_worker_with(client, (servers, p.clone()));
        let ops: u64 = reports.iter().map(|r| r.ops).sum();
        let mops: f64 = reports.iter().map(|r| r.ops as f64 / r.secs).sum::<f64>() / 1e6;
        let mut lat: Vec<u32> = reports.into_iter().flat_map(|r| r.lat_ns).collect();
        lat.sort_unstable();
        let pct = |q: f64| lat.get(((lat.len() as f64 - 1.0) * q) as usize).copied().unwrap_or(0) as f64 / 1e3;
        println!(
            "echo ranks={nranks} threads={threads} transport={tname} size={} window={} ops={ops} mops={mops:.4} p50_us={:.2} p99_us={:.2} p999_us={:.2}",
            p.size,
            p.window,
            pct(0.5),
            pct(0.99),
            pct(0.999)
        );
    });
    if let Err(e) = r {
        eprintln!("{e}");
        std::process::exit(1);
    }
}
