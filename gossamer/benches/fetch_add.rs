//! Fetch-and-add throughput, delegation vs. locking, as a criterion bench (issue 2 item 4).
//!
//! Two threads (workers), objects = 1, 16, 1024 and 1M, uniform and Zipf(1) access.
//! Variants: `trust` (blocking `Trust::apply` from several fibers per worker), `async`
//! (`apply_then` with a bounded window), `mutex` (`std::sync::Mutex` per object) and
//! `spin` (test-and-test-and-set spin lock per object). The workload code is shared with
//! `examples/fetch_add` (one increment = one element; criterion reports elements/s).
//!
//! Run: `cargo bench -p gossamer --bench fetch_add` (about a minute and a half).
//! For longer, steadier runs use the example.

#[path = "../examples/fetch_add/delegation.rs"]
mod delegation;
#[path = "../examples/fetch_add/workload.rs"]
mod workload;

use std::time::Duration;

use criterion::{
    criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput,
};
use workload::{Budget, Dist};

const THREADS: usize = 2;
const OBJECTS: [usize; 4] = [1, 16, 1024, 1_000_000];

fn bench(c: &mut Criterion) {
    for dist in [Dist::Uniform, Dist::Zipf] {
        let mut group = c.benchmark_group(format!("fetch_add_{}", dist.name()));
        group.sampling_mode(SamplingMode::Flat);
        group.throughput(Throughput::Elements(1));
        for objects in OBJECTS {
            let streams = workload::streams(objects, dist, THREADS, 0x5EED);
            // Each sample runs `iters` increments in total, split over the threads.
            let per_thread = |iters: u64| Budget::Ops(iters.div_ceil(THREADS as u64));
            group.bench_function(BenchmarkId::new("mutex", objects), |b| {
                b.iter_custom(|iters| workload::run_mutex(objects, &streams, per_thread(iters)).1)
            });
            group.bench_function(BenchmarkId::new("spin", objects), |b| {
                b.iter_custom(|iters| workload::run_spin(objects, &streams, per_thread(iters)).1)
            });
            for (name, asynchronous) in [("trust", false), ("async", true)] {
                group.bench_function(BenchmarkId::new(name, objects), |b| {
                    b.iter_custom(|iters| {
                        delegation::run(
                            asynchronous,
                            objects,
                            &streams,
                            per_thread(iters),
                            Default::default(),
                        )
                        .unwrap_or_else(|e| panic!("{name} run failed: {e}"))
                        .elapsed
                    })
                });
            }
        }
        group.finish();
    }
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(1))
        .without_plots()
}

criterion_group! {
    name = benches;
    config = config();
    targets = bench
}
criterion_main!(benches);
