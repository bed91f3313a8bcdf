//! Measures peak memory (bytes per input edge) and time of building the CSR
//! shards of one rank, and the graph file's write/open throughput.
//!
//! ```text
//! cargo run --release -p graph-core --example build_memory -- [SCALE] [THREADS] [whole|rank] [file]
//! ```
//!
//! The graph is a synthetic R-MAT graph (A=0.57, B=C=0.19, a simple
//! xorshift PRNG; not the bit-exact Graph500 generator, but with the same
//! skewed degrees, ids scrambled by a bijection), edgefactor 16. Peak memory is the process's VmHWM
//! (peak resident set) from /proc/self/status, so it counts what was
//! really touched. The build is also reported as CPU time of all threads and
//! time spent runnable but waiting for a CPU (from
//! /proc/self/task/*/schedstat): when other jobs share the machine the wall
//! time mostly measures them, the CPU time much less. Run one measurement
//! per process.

use std::time::Instant;

use graph_core::io::file;
use graph_core::{
    build_rank, build_whole, EdgeList, Graph500Params, PackedEdge, Partition, PartitionKind,
};
use rayon::prelude::*;

fn status_kb(key: &str) -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|x| x.parse().ok())
        .unwrap_or(0)
}

/// (CPU time, time spent runnable but waiting for a CPU) of all this
/// process's threads so far, in seconds, from /proc/self/task/*/schedstat
/// (nanoseconds); zeros where unreadable. The CPU time is steadier than
/// wall time when other processes share the machine, and the wait shows
/// how much they delayed us.
fn cpu_and_wait() -> (f64, f64) {
    let mut sums = (0u64, 0u64);
    if let Ok(dir) = std::fs::read_dir("/proc/self/task") {
        for task in dir.flatten() {
            let s = std::fs::read_to_string(task.path().join("schedstat")).unwrap_or_default();
            let mut f = s.split_whitespace().map(|x| x.parse::<u64>().unwrap_or(0));
            sums.0 += f.next().unwrap_or(0);
            sums.1 += f.next().unwrap_or(0);
        }
    }
    (sums.0 as f64 / 1e9, sums.1 as f64 / 1e9)
}

fn rmat_edge(scale: u32, i: u64) -> PackedEdge {
    let mut x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let (mut u, mut v) = (0u32, 0u32);
    for _ in 0..scale {
        let r = next() % 100;
        let (bu, bv) = match r {
            0..=56 => (0, 0),
            57..=75 => (0, 1),
            76..=94 => (1, 0),
            _ => (1, 1),
        };
        u = (u << 1) | bu;
        v = (v << 1) | bv;
    }
    let w = (next() >> 40) as f32 / (1u64 << 24) as f32;
    PackedEdge::new(scramble(scale, u), scramble(scale, v), w)
}

/// A bijection on `scale`-bit ids (odd multiply, xorshift, odd multiply),
/// spreading R-MAT's low-id hubs over the id space like Graph500 does.
fn scramble(scale: u32, x: u32) -> u32 {
    let mask = if scale >= 32 {
        u64::MAX
    } else {
        (1u64 << scale) - 1
    };
    let mut y = (u64::from(x).wrapping_mul(0x2545_F491_4F6C_DD1D)) & mask;
    y ^= y >> (scale / 2).max(1);
    y = y.wrapping_mul(0x9E37_79B9_7F4A_7C15) & mask;
    y as u32
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let scale: u32 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(20);
    let threads: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(2);
    let mode = args.get(3).map(String::as_str).unwrap_or("rank");
    let with_file = args.get(4).map(String::as_str) == Some("file");

    let base_kb = status_kb("VmHWM:");
    let mut list = EdgeList::zeroed(Graph500Params::reference(scale)).expect("scale <= 32");
    let t = Instant::now();
    list.edges_mut()
        .par_iter_mut()
        .enumerate()
        .for_each(|(i, e)| *e = rmat_edge(scale, i as u64));
    let m = list.num_edges();
    println!("generated SCALE {scale}: {m} edges in {:.2?}", t.elapsed());
    let after_list_kb = status_kb("VmRSS:");

    let (cpu0, wait0) = cpu_and_wait();
    let t = Instant::now();
    let (entries, heap) = if mode == "whole" {
        let g = build_whole(&list).expect("valid");
        (g.num_entries(), g.heap_bytes())
    } else {
        let p =
            Partition::new(PartitionKind::Cyclic, list.num_vertices(), 1, threads).expect("shape");
        let shards = build_rank(&list, &p, 0).expect("valid");
        (
            shards.iter().map(|s| s.num_entries()).sum(),
            shards.iter().map(|s| s.heap_bytes()).sum(),
        )
    };
    let build = t.elapsed();
    let (cpu1, wait1) = cpu_and_wait();
    let (cpu, wait) = (cpu1 - cpu0, wait1 - wait0);
    let peak_kb = status_kb("VmHWM:");
    let per_edge = |kb: u64| (kb.saturating_sub(base_kb) * 1024) as f64 / m as f64;
    println!(
        "build ({mode}, {threads} trustees, {} rayon threads): {build:.2?} (cpu {cpu:.3} s, waited {wait:.3} s for a cpu), {entries} entries, shards hold {:.2} B/edge",
        rayon::current_num_threads(),
        heap as f64 / m as f64
    );
    println!(
        "edge list resident: {:.2} B/edge; peak during build (edge list + shards + scratch): {:.2} B/edge",
        per_edge(after_list_kb),
        per_edge(peak_kb)
    );

    if with_file {
        let path = std::env::temp_dir().join(format!("build-memory-{}.ggraph", std::process::id()));
        let t = Instant::now();
        file::write(&path, &list).expect("write");
        let w = t.elapsed();
        let bytes = (1024 + 12 * m) as f64;
        let t = Instant::now();
        let g = file::open(&path).expect("open");
        let o = t.elapsed();
        let bytes_read = std::fs::read(&path).expect("read");
        let t = Instant::now();
        let sum = file::checksum64(&bytes_read[1024..]);
        let c = t.elapsed();
        let t = Instant::now();
        let parsed_ok = file::parse(&bytes_read).is_ok();
        println!(
            "parse from memory (no mmap): {:.2?}, ok: {parsed_ok}",
            t.elapsed()
        );
        let t = Instant::now();
        let valid = list.validate().is_ok();
        println!("validate alone: {:.2?}, ok: {valid}", t.elapsed());
        println!(
            "file {:.0} MB: write {w:.2?}, open+verify {o:.2?} ({:.2} GB/s), equal: {}; checksum alone {c:.2?} ({:.2} GB/s, {sum:#x})",
            bytes / 1e6,
            bytes / o.as_secs_f64() / 1e9,
            g.edge_list() == list,
            bytes / c.as_secs_f64() / 1e9,
        );
        drop(g);
        let _ = std::fs::remove_file(&path);
    }
}
