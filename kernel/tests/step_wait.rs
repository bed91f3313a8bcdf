//! `Kernel::set_step_wait`: a sweep that waits after each step finds every
//! record of its earlier steps applied at the receiver (what bounds the
//! records in flight: tc's out-lists), and sends the same records.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

use graph_core::sharded::ShardedGraph;
use graph_kernel::{run, Program};

/// Records applied on trustee 1 (one test runs the kernel at a time).
static APPLIED: AtomicU64 = AtomicU64::new(0);
/// What trustee 0 found applied at each of its vertices.
static SEEN: Mutex<Vec<u64>> = Mutex::new(Vec::new());

struct Count;

impl Program for Count {
    type Msg = u32;
    fn receive(&mut self, _: u32, _: u32) -> bool {
        unreachable!("sent to trustees only")
    }
    fn receive_here(&mut self, _: u32) {
        APPLIED.fetch_add(1, Relaxed);
    }
}

/// Trustee 0 sends 3 records to trustee 1 per own vertex, in steps of one
/// vertex; returns, per own vertex of trustee 0, the records applied on
/// trustee 1 when the vertex was visited, and the total applied.
fn sweep(wait: u64) -> (Vec<u64>, u64) {
    APPLIED.store(0, Relaxed);
    SEEN.lock().unwrap().clear();
    let list = graph_kernel::doc::path(4000);
    gossamer::main(2, move || {
        let g = ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
        run(
            &g,
            |_, _| Count,
            move |k| {
                k.set_step_work(1);
                k.set_step_wait(wait);
                let me = k.me();
                k.for_each_vertex(move |l, _| {
                    if me == 0 {
                        SEEN.lock().unwrap().push(APPLIED.load(Relaxed));
                        (0..3).for_each(|_| l.send_to_trustee(1, 7));
                    }
                });
                k.sync();
            },
        )
    });
    (SEEN.lock().unwrap().clone(), APPLIED.load(Relaxed))
}

#[test]
fn a_waiting_sweep_finds_its_earlier_records_applied() {
    let (seen, total) = sweep(1);
    assert!(seen.len() > 1000, "{}", seen.len());
    for (i, &n) in seen.iter().enumerate() {
        assert_eq!(
            n,
            3 * i as u64,
            "vertex {i}: records of earlier steps not all applied"
        );
    }
    assert_eq!(total, 3 * seen.len() as u64);
    // Without waiting the same records arrive, by the end.
    let (again, total) = sweep(0);
    assert_eq!((again.len(), total), (seen.len(), 3 * seen.len() as u64));
}
