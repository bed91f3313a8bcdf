//! [`Config`]: every tunable of the runtime in one place, with its unit and its
//! default (and where that default was measured). Set it through
//! [`Builder::config`](crate::Builder::config) or the builder's setters; the
//! workers read the values into their own fields when they start, so nothing on a
//! hot path goes through the config.
//!
//! Some fields shape what ranks of a rack run exchange (the slot size, the marks,
//! the collective tree, heartbeats): every rank must have the same, and bootstrap
//! refuses a job whose ranks differ, naming the field ([`Config::must_agree`]).
//!
//! Not here, because they are not tuning knobs: limits and formats
//! ([`MAX_THREADS`](crate::MAX_THREADS), the slot header, the bootstrap protocol's
//! frame limits and handshake timeout), the rack join timeout (the launcher's
//! `GOSSAMER_JOIN_TIMEOUT`, default 60 s) and the built-in launcher's grace period
//! after a failure (5 s, [`rack::launch_local`](crate::rack::launch_local) has no
//! builder).

use crate::slot::{MAX_SLOT_SIZE, MIN_SLOT_SIZE};
use std::time::Duration;

/// Every tunable of a gossamer runtime. Start from [`Config::default`] and change
/// fields:
///
/// ```
/// let mut cfg = gossamer::Config::default();
/// cfg.threads = 2;
/// cfg.spin_iters = 0;
/// let n = gossamer::Runtime::builder().config(cfg).run(gossamer::num_workers).unwrap();
/// assert_eq!(n, 2);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Config {
    // ------------------------------------------------------------ shape
    /// Worker threads (each both trustee and client), per rank in a rack run.
    /// Default 1.
    pub threads: usize,
    /// Pin worker `i` to the `i`-th allowed CPU (ranks on one host apart, see
    /// `runtime/affinity.rs`). Default true.
    pub pin_threads: bool,
    /// Bytes of stack per fiber, at least 16 KiB. Default 256 KiB (since the first
    /// runtime; the graph kernels' deepest fibers fit with room to spare).
    pub stack_size: usize,

    // ------------------------------------------------------------ slots
    /// Bytes per request/response slot: a multiple of 64 in 256..=16 MiB. `None`
    /// (the default) means [`Config::LOCAL_SLOT_BYTES`] (1 KiB) in one process and
    /// [`Config::rack_slot_size`] of the job's shape in a rack run. Must agree
    /// across ranks.
    pub slot_size: Option<usize>,
    /// The largest slot [`Config::rack_slot_size`] picks, bytes (and the one a
    /// host-sized job gets). Default 64 KiB: with 1 KiB slots a 4 KiB request took
    /// five round trips and never shared a batch; with 64 KiB it is one record
    /// among up to fifteen in one batch (commit 8fcde17), and graph kernels ran
    /// 1.4-1.5x faster at SCALE 18 (`results/kernels/delta.md`, run C).
    pub rack_max_slot_bytes: usize,
    /// The smallest slot [`Config::rack_slot_size`] picks, bytes. Default 1 KiB
    /// (the one-process default).
    pub rack_min_slot_bytes: usize,
    /// Slot memory [`Config::rack_slot_size`] allows per rank, bytes. Default
    /// 256 MiB (8 hosts x 32 threads then get 16 KiB slots).
    pub rack_slot_budget_bytes: usize,
    /// Jobs of more than this many workers keep *marks* (one bit per writer, so
    /// a worker visits only the slots written since it last looked) instead of
    /// polling every slot. Default 32: at 2 ranks x 1 worker the shared mark
    /// word made BFS at SCALE 19 18% slower (commit 199baad). Must agree across
    /// ranks.
    pub marks_min_workers: usize,

    // ------------------------------------------------------------ idle workers
    /// Idle loop iterations a worker spins before it starts yielding its thread.
    /// Default 64 (commit f29df92). On a crowded host (more workers than cores)
    /// a worker never spins.
    pub spin_iters: u32,
    /// Idle loop iterations after which a worker parks its thread until woken.
    /// Default 512 (commit 45f1d26: oversubscribed runs stopped burning time
    /// slices).
    pub yield_iters: u32,
    /// [`Config::yield_iters`] on a crowded host, where every yield passes
    /// through all runnable workers of the core. Default 8: 2 ranks x 64 workers
    /// on 2 cores took 17 s with 512 and 6.6 s with 8.
    pub crowded_yield_iters: u32,
    /// Longest sleep of a parked worker before it looks around by itself (writers
    /// wake it; this is a safety net). Default 1 ms.
    pub nap: Duration,
    /// [`Config::nap`] on a crowded host. Default 20 ms: with 256 workers on 2
    /// cores, 1 ms naps were 256 000 wake-ups a second (commit 518896d).
    pub crowded_nap: Duration,
    /// [`Config::nap`] with the rdma transport, whose remote writers cannot wake a
    /// sleeper (also on a crowded host). Default 50 us (not measured on hardware).
    pub rdma_nap: Duration,

    // ------------------------------------------------------------ clients
    /// A fiber that keeps issuing non-blocking requests yields once more than
    /// this many sealed batches wait on one pair, so the worker loop can send and
    /// serve. Default 8 batches (since the first runtime).
    pub backpressure_batches: usize,

    // ------------------------------------------------------------ collectives
    /// Parties beyond which a [`Collective`](crate::Collective) round goes up and
    /// down a tree instead of from every party to every mailbox. Default 64
    /// (commit 518896d: at 2 ranks x 128 workers on 2 cores the all-to-all round's
    /// n^2 messages were most of the run). Must agree across ranks.
    pub collective_all_to_all_max: usize,
    /// Children of a party in a tree round, at least 2. Default 16 (commit
    /// 518896d). Must agree across ranks.
    pub collective_fanout: usize,
    /// Polls of its mailbox after which a waiting party also yields its OS
    /// thread. Default 64 (commit 659c3ca: 3 workers on 2 cores, tests 128 s ->
    /// 0.4 s).
    pub collective_spin_polls: u32,

    // ------------------------------------------------------------ tcp transport
    /// How long an armed tcp receiver thread waits in `epoll_wait` before it looks
    /// whether a local worker still sleeps. Default 10 ms (commit f608b14).
    pub tcp_armed_wait: Duration,
    /// How long a tcp writer whose socket is full waits for it to drain (or for
    /// input) between attempts. Default 1 ms (commit f608b14).
    pub tcp_full_wait: Duration,

    // ------------------------------------------------------------ rdma transport
    /// One RDMA write in this many per queue pair is signaled (its completion is
    /// reaped, so the send queue never overflows), at least 1. Default 64 (not
    /// measured on hardware).
    pub rdma_signal_every: u64,

    // ------------------------------------------------------------ rack control
    /// How often ranks send each other heartbeats on the control connections.
    /// Default 500 ms. Must agree across ranks.
    pub heartbeat: Duration,
    /// Silence after which a rank's peer counts as gone, more than
    /// [`Config::heartbeat`]. Default 10 s. Must agree across ranks.
    pub silence: Duration,
    /// How often rank 0 looks for quiescence once the main function returned.
    /// Default 200 us.
    pub quiescence_poll: Duration,
    /// How long rank 0's termination loop sleeps at a time while the main
    /// function runs (it is woken when the function returns; failures are seen
    /// within this). Default 20 ms: polling every 200 us instead cost 2 ranks x 1
    /// thread 10-15% of their SSSP speed (commit 6a2f61b).
    pub main_wait: Duration,
    /// How long a failed rank waits for its workers to stop before it exits the
    /// process by itself. Default 5 s.
    pub watchdog: Duration,

    // ------------------------------------------------------------ profiling
    /// Record a timeline: every interval a worker spends running delegated
    /// work, running its own fibers, waiting in a collective or polling with
    /// nothing to do, for [`profile::timeline`](crate::profile::timeline).
    /// Default false. The per-trustee totals behind [`stats`](crate::stats)
    /// are kept either way; without the timeline a worker reads the clock only
    /// when it switches between busy, idle and collective (see
    /// [`profile`](crate::profile)). Ranks may differ (a rank without it has
    /// empty tracks).
    pub trace: bool,
    /// Intervals one worker's timeline holds when [`Config::trace`] is on, at 16
    /// bytes each (reserved when the worker starts; memory is used as it fills).
    /// When it is full, later intervals are dropped and counted, so a timeline
    /// is complete up to the moment its buffer filled. Default 1 Mi (16 MiB per
    /// worker): SSSP at SCALE 18 on 2 workers (64 KiB slots) recorded about
    /// 1 000 to 4 000 intervals per worker per second, so that lasts minutes.
    pub trace_events: usize,
}

impl Config {
    /// The slot size of a one-process run unless [`Config::slot_size`] sets one.
    pub const LOCAL_SLOT_BYTES: usize = 1024;

    /// The defaults, as a constant.
    pub const DEFAULT: Config = Config {
        threads: 1,
        pin_threads: true,
        stack_size: 256 * 1024,
        slot_size: None,
        rack_max_slot_bytes: 64 << 10,
        rack_min_slot_bytes: 1 << 10,
        rack_slot_budget_bytes: 256 << 20,
        marks_min_workers: 32,
        spin_iters: 64,
        yield_iters: 512,
        crowded_yield_iters: 8,
        nap: Duration::from_millis(1),
        crowded_nap: Duration::from_millis(20),
        rdma_nap: Duration::from_micros(50),
        backpressure_batches: 8,
        collective_all_to_all_max: 64,
        collective_fanout: 16,
        collective_spin_polls: 64,
        tcp_armed_wait: Duration::from_millis(10),
        tcp_full_wait: Duration::from_millis(1),
        rdma_signal_every: 64,
        heartbeat: Duration::from_millis(500),
        silence: Duration::from_secs(10),
        quiescence_poll: Duration::from_micros(200),
        main_wait: Duration::from_millis(20),
        watchdog: Duration::from_secs(5),
        trace: false,
        trace_events: 1 << 20,
    };

    /// The slot size a rack run gets unless [`Config::slot_size`] sets one, for
    /// `threads` workers per rank and `workers` in the whole job:
    /// [`Config::rack_max_slot_bytes`] unless that would take more than
    /// [`Config::rack_slot_budget_bytes`] per rank. Each rank holds `2 x threads
    /// x workers` slots (its rows of the request and response squares), so on
    /// large racks the size shrinks, in powers of two (rounded up, so up to twice
    /// the budget), never below [`Config::rack_min_slot_bytes`].
    ///
    /// Why large: a pair has one request slot and one batch in flight, and a
    /// request bigger than the slot travels in slot-sized pieces, each answered
    /// before the next is written (one round trip per piece). Only the used tail
    /// of a slot is copied, so small requests do not pay for the size.
    pub fn rack_slot_size(&self, threads: usize, workers: usize) -> usize {
        let per_rank_slots = 2 * threads.max(1) * workers.max(1);
        (self.rack_slot_budget_bytes / per_rank_slots)
            .clamp(self.rack_min_slot_bytes, self.rack_max_slot_bytes)
            .next_power_of_two()
            .min(self.rack_max_slot_bytes)
    }

    /// The slot size of a run of `ranks` ranks with this config.
    pub fn effective_slot_size(&self, ranks: usize) -> usize {
        match self.slot_size {
            Some(s) => s,
            None if ranks > 1 => {
                self.rack_slot_size(self.threads, self.threads.saturating_mul(ranks))
            }
            None => Self::LOCAL_SLOT_BYTES,
        }
    }

    /// Whether a job of `n` workers keeps marks (see [`Config::marks_min_workers`]).
    pub fn marks_wanted(&self, n: usize) -> bool {
        n > self.marks_min_workers
    }

    /// The fields every rank of a rack run must have the same (besides the
    /// thread count and the slot size, which bootstrap compares by themselves),
    /// by name, as integers (durations in nanoseconds).
    pub fn must_agree(&self) -> Vec<(String, u64)> {
        let ns = |d: Duration| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
        [
            ("marks_min_workers", self.marks_min_workers as u64),
            (
                "collective_all_to_all_max",
                self.collective_all_to_all_max as u64,
            ),
            ("collective_fanout", self.collective_fanout as u64),
            ("heartbeat", ns(self.heartbeat)),
            ("silence", ns(self.silence)),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }

    /// Checks every value's range; the message names the field.
    pub fn validate(&self) -> Result<(), String> {
        let slot_ok =
            |s: usize| (MIN_SLOT_SIZE..=MAX_SLOT_SIZE).contains(&s) && s.is_multiple_of(64);
        if let Some(s) = self.slot_size {
            if !slot_ok(s) {
                return Err(format!(
                    "slot_size = {s}, expected a multiple of 64 between {MIN_SLOT_SIZE} and \
                     {MAX_SLOT_SIZE}"
                ));
            }
        }
        for (name, s) in [
            ("rack_min_slot_bytes", self.rack_min_slot_bytes),
            ("rack_max_slot_bytes", self.rack_max_slot_bytes),
        ] {
            if !slot_ok(s) || !s.is_power_of_two() {
                return Err(format!(
                    "{name} = {s}, expected a power of two between {MIN_SLOT_SIZE} and \
                     {MAX_SLOT_SIZE}"
                ));
            }
        }
        if self.rack_min_slot_bytes > self.rack_max_slot_bytes {
            return Err(format!(
                "rack_min_slot_bytes = {} is above rack_max_slot_bytes = {}",
                self.rack_min_slot_bytes, self.rack_max_slot_bytes
            ));
        }
        if self.rack_slot_budget_bytes == 0 {
            return Err("rack_slot_budget_bytes = 0, expected at least 1".into());
        }
        if self.stack_size < 16 * 1024 {
            return Err(format!(
                "stack_size = {}, expected at least 16384 bytes",
                self.stack_size
            ));
        }
        if self.collective_fanout < 2 {
            return Err(format!(
                "collective_fanout = {}, expected at least 2",
                self.collective_fanout
            ));
        }
        if self.rdma_signal_every == 0 {
            return Err("rdma_signal_every = 0, expected at least 1".into());
        }
        if self.silence <= self.heartbeat {
            return Err(format!(
                "silence = {:?} is not longer than heartbeat = {:?}: peers would count each \
                 other as gone",
                self.silence, self.heartbeat
            ));
        }
        Ok(())
    }
}

impl Default for Config {
    fn default() -> Self {
        Self::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rack_slot_rule_follows_the_fields() {
        let d = Config::default();
        assert_eq!(d.rack_slot_size(1, 2), 64 << 10);
        assert_eq!(d.rack_slot_size(32, 256), 16 << 10);
        assert_eq!(d.rack_slot_size(1024, 1024), 1 << 10);
        let mut c = d.clone();
        c.rack_max_slot_bytes = 8 << 10;
        assert_eq!(c.rack_slot_size(1, 2), 8 << 10);
        c.rack_slot_budget_bytes = 1 << 30;
        c.rack_min_slot_bytes = 4 << 10;
        assert_eq!(c.rack_slot_size(1024, 1024), 4 << 10);
    }

    #[test]
    fn the_effective_slot_size_depends_on_the_ranks_unless_set() {
        let mut c = Config {
            threads: 2,
            ..Config::default()
        };
        assert_eq!(c.effective_slot_size(1), 1024);
        assert_eq!(c.effective_slot_size(2), 64 << 10);
        c.slot_size = Some(4096);
        assert_eq!(c.effective_slot_size(1), 4096);
        assert_eq!(c.effective_slot_size(2), 4096);
    }

    #[test]
    fn out_of_range_values_are_named() {
        let bad = |f: fn(&mut Config)| {
            let mut c = Config::default();
            f(&mut c);
            c.validate().unwrap_err()
        };
        assert!(bad(|c| c.collective_fanout = 1).starts_with("collective_fanout = 1"));
        assert!(bad(|c| c.rdma_signal_every = 0).starts_with("rdma_signal_every"));
        assert!(bad(|c| c.rack_max_slot_bytes = 3000).starts_with("rack_max_slot_bytes"));
        assert!(bad(|c| c.rack_min_slot_bytes = 128 << 10).contains("above"));
        assert!(bad(|c| c.silence = c.heartbeat).starts_with("silence"));
        assert!(bad(|c| c.stack_size = 1024).starts_with("stack_size"));
        assert!(bad(|c| c.slot_size = Some(100)).starts_with("slot_size = 100"));
        Config::default().validate().unwrap();
    }
}
