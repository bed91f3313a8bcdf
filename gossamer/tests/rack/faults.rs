//! A rank that dies or panics stops every rank, naming it.

use crate::common::{builder, is_rank, launch, shm_files_of, THREADS};
use gossamer::rack::TransportKind;
use gossamer::{entrust_with, Trust, WorkerId};

/// Rank 1 kills itself (SIGKILL) from inside a delegated closure, then rank 0 keeps
/// sending to it.
pub fn killed(t: TransportKind) {
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

/// A delegated closure panics on rank 1.
pub fn remote_panic(t: TransportKind) {
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
