//! Times Graph500 edge-list generation (edges + weights into memory).
//!
//! ```text
//! cargo run --release -p generators --example gen_bench -- --scales 16,18,20,22 --threads 2
//! ```
//!
//! For each scale it fills, with `Kronecker::par_map_into` on a rayon pool of
//! `--threads` threads, (a) 24 bytes per edge (`u`, `v`, weight bits as three
//! `u64`, the size of `Edge`) and (b) a 16-byte record per edge laid out like
//! the reference's in-memory data (12-byte packed endpoints + f32 weight). The time includes allocating and
//! touching the buffer, as the reference's `graph_generation` time does.
//! Median of `--reps` runs (default 3; scales >= 22 run once). Prints a
//! Markdown table.

use std::time::Instant;

use generators::{Edge, Graph500Config, Kronecker};

/// The reference's in-memory record: packed endpoints (low 32 bits of each
/// id, then a word holding both ids' upper 16 bits) and the weight's bits.
fn pack(e: Edge) -> [u32; 4] {
    [
        e.u as u32,
        e.v as u32,
        ((e.u >> 32) & 0xFFFF) as u32 | (((e.v >> 32) & 0xFFFF) as u32) << 16,
        e.w.to_bits(),
    ]
}

/// An [`Edge`] as three words (24 bytes, the size of `Edge`).
fn wide(e: Edge) -> [u64; 3] {
    [e.u, e.v, e.w.to_bits() as u64]
}

struct Args {
    scales: Vec<u32>,
    threads: usize,
    reps: usize,
}

fn usage(msg: &str) -> ! {
    eprintln!("error: {msg}");
    eprintln!("usage: gen_bench [--scales 16,18,20] [--threads 2] [--reps 3]");
    std::process::exit(2)
}

fn parse_args() -> Args {
    let mut args = Args {
        scales: vec![16, 18, 20],
        threads: 2,
        reps: 3,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it
            .next()
            .unwrap_or_else(|| usage(&format!("{flag} needs a value")));
        match flag.as_str() {
            "--scales" => {
                args.scales = value
                    .split(',')
                    .map(|s| {
                        s.trim()
                            .parse()
                            .unwrap_or_else(|_| usage(&format!("bad scale {s:?}")))
                    })
                    .collect()
            }
            "--threads" => {
                args.threads = value
                    .parse()
                    .ok()
                    .filter(|&t| t > 0)
                    .unwrap_or_else(|| usage("--threads needs a positive integer"))
            }
            "--reps" => {
                args.reps = value
                    .parse()
                    .ok()
                    .filter(|&r| r > 0)
                    .unwrap_or_else(|| usage("--reps needs a positive integer"))
            }
            other => usage(&format!("unknown flag {other}")),
        }
    }
    args
}

/// Seconds to allocate a buffer of `num_edges` records and fill it. The
/// buffer is all-zero integers, so `vec!` gets fresh zero pages from the OS
/// and the parallel fill is what touches them (as in the reference).
fn time<T: Send + Copy + Default>(g: &Kronecker, f: impl Fn(Edge) -> T + Sync + Send) -> f64
where
    Vec<T>: Clone,
{
    let start = Instant::now();
    let mut out: Vec<T> = vec![T::default(); g.num_edges() as usize];
    g.par_map_into(0, &mut out, f);
    let t = start.elapsed().as_secs_f64();
    std::hint::black_box(&out);
    t
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args = parse_args();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads)
        .build()
        .unwrap_or_else(|e| usage(&format!("cannot build a thread pool: {e}")));
    println!("| SCALE | edges | runs | 24 B/edge (s) | packed 16 B/edge (s) | Medges/s (packed) |");
    println!("|---:|---:|---:|---:|---:|---:|");
    for &scale in &args.scales {
        let g = Kronecker::new(Graph500Config::with_scale(scale))
            .unwrap_or_else(|e| usage(&e.to_string()));
        let reps = if scale >= 22 { 1 } else { args.reps };
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for _ in 0..reps {
            a.push(pool.install(|| time(&g, wide)));
            b.push(pool.install(|| time(&g, pack)));
        }
        let (ta, tb) = (median(a), median(b));
        println!(
            "| {scale} | {} | {reps} | {ta:.3} | {tb:.3} | {:.1} |",
            g.num_edges(),
            g.num_edges() as f64 / tb / 1e6
        );
    }
}
