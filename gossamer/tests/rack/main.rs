//! Rack mode across real processes on loopback: this test binary is launched again
//! as the ranks. A `rank_*` test is a no-op unless `GOSSAMER_RANK` is set (then it
//! *is* a rank); a `launcher` test runs the built-in launcher when
//! `GOSSAMER_TEST_LAUNCH` is set. The driver tests spawn those with captured output
//! and assert on exit codes and messages. Time bounds are hang guards only.
//!
//! One test binary (the ranks are this binary again), in modules by concept:
//! `common` (the launch and set-up helpers every driver test uses),
//! `requests` (traffic among ranks: counters, large requests, collectives, an
//! idle termination loop), `moving` (trusts that move within and between
//! ranks), `faults` (a rank killed or panicking), `teardown` (no rank or shm
//! file outlives its job), `auth` (tokens and the shared secret) and
//! `bootstrap` (what rank 0 refuses at joining). The rank tests stay here, at
//! the crate's root, so that their names (which the drivers pass to
//! `--exact`) carry no module path.

mod auth;
mod bootstrap;
mod common;
mod faults;
mod moving;
mod requests;
mod teardown;

use common::{exact, is_rank};
use gossamer::rack::TransportKind;

macro_rules! rank_tests {
    ($($name:ident => $body:expr;)*) => {$(
        #[test]
        fn $name() {
            if is_rank() {
                $body
            }
        }
    )*};
}

rank_tests! {
    rank_counter_shm => requests::counter(TransportKind::Shm);
    rank_counter_tcp => requests::counter(TransportKind::Tcp);
    rank_large_shm => requests::large_mixed(TransportKind::Shm, None);
    rank_large_tcp => requests::large_mixed(TransportKind::Tcp, None);
    rank_large_small_slots_shm => requests::large_mixed(TransportKind::Shm, Some(1024));
    rank_large_small_slots_tcp => requests::large_mixed(TransportKind::Tcp, Some(1024));
    rank_killed_shm => faults::killed(TransportKind::Shm);
    rank_killed_tcp => faults::killed(TransportKind::Tcp);
    rank_collective_shm => requests::collective(TransportKind::Shm);
    rank_collective_tcp => requests::collective(TransportKind::Tcp);
    rank_panic_tcp => faults::remote_panic(TransportKind::Tcp);
    rank_forever_shm => teardown::forever(TransportKind::Shm);
    rank_slow_join_shm => teardown::slow_join(TransportKind::Shm);
    rank_quiet_shm => requests::quiet(TransportKind::Shm);
    rank_fanout_shm => bootstrap::fanout(TransportKind::Shm);
    rank_moving_shm => moving::moving(TransportKind::Shm);
    rank_moving_tcp => moving::moving(TransportKind::Tcp);
    rank_moving_ranks_shm => moving::moving_ranks(TransportKind::Shm);
    rank_moving_ranks_tcp => moving::moving_ranks(TransportKind::Tcp);
    rank_holding_shm => moving::holding(TransportKind::Shm);
    rank_holding_tcp => moving::holding(TransportKind::Tcp);
    rank_refused_shm => moving::refused(TransportKind::Shm);
    rank_refused_tcp => moving::refused(TransportKind::Tcp);
    rank_inflight_shm => moving::inflight(TransportKind::Shm);
    rank_inflight_tcp => moving::inflight(TransportKind::Tcp);
}

#[test]
fn launcher() {
    let Ok(spec) = std::env::var("GOSSAMER_TEST_LAUNCH") else {
        return;
    };
    let (n, test) = spec.split_once(':').unwrap();
    let args: Vec<std::ffi::OsString> = exact(test).iter().map(Into::into).collect();
    let code = gossamer::rack::launch_local(n.parse().unwrap(), &args).unwrap();
    std::process::exit(code);
}
