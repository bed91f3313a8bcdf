//! Profiling: what each trustee does over time, told apart as the
//! dissertation's future work asks (productive work from idle polling).
//!
//! Every worker is, at each moment, in one [`Activity`]: running delegated
//! work for clients, running its own fibers, waiting in a collective round,
//! or idle (polling with nothing to do). The worker counts the nanoseconds
//! of each in its [`TrusteeStats`](crate::TrusteeStats) (read with [`stats`](crate::stats): `busy_ns`,
//! `idle_ns`, `collective_ns`), always; [`imbalance`] turns a snapshot (or
//! the difference of two, [`TrusteeStats::since`](crate::TrusteeStats::since)) into one number.
//!
//! # Cost
//!
//! The worker loop reads the clock only when the activity changes, never per
//! request or per batch (before this module, it read it twice per batch
//! served). Without a timeline, delegated work and fibers are one activity
//! (busy), so a busy kernel, whose loop alternates between serving and its
//! fibers, reads the clock only when a worker runs out of work or enters a
//! collective round.
//!
//! # Timeline
//!
//! With [`Config::trace`](crate::Config::trace) on, every interval (activity,
//! start, end) also goes to a buffer per worker of
//! [`Config::trace_events`](crate::Config::trace_events) intervals, reserved
//! when the worker starts. When the buffer is full, later intervals are
//! dropped and counted ([`Track::dropped`]): a track is complete up to the
//! moment its buffer filled, and says so. [`region`] adds labelled spans
//! (e.g. one search) to the timeline. [`timeline`] collects every worker's
//! buffer on every rank and stops recording.
//!
//! # Clocks of a rack run
//!
//! Each process measures from its own start (a monotonic clock). The ranks'
//! buffers travel to the collecting worker by delegation (each worker hands
//! its own over in a fiber, as [`on_every_worker_with`]
//! results), so one process holds the whole timeline. To put every rank on the
//! collecting rank's clock, [`timeline`] asks one trustee of each other rank for
//! its clock several times (a delegated closure reading it) and takes the
//! exchange with the shortest round trip: that rank's clock read `theirs`
//! somewhere between the collector's readings `t0` and `t1`, so its offset is
//! `(t0 + t1) / 2 - theirs`, off by at most `(t1 - t0) / 2`
//! ([`RankClock::error_ns`], a few to some tens of microseconds on one host).
//!
//! ```
//! let mut cfg = gossamer::Config::default();
//! cfg.threads = 2;
//! cfg.trace = true;
//! let tl = gossamer::Runtime::builder()
//!     .config(cfg)
//!     .run(|| {
//!         let c = gossamer::entrust_on(gossamer::WorkerId(1), 0u64);
//!         gossamer::profile::region(
//!             || "increments".to_string(),
//!             || (0..1000).for_each(|_| c.apply(|x| *x += 1)),
//!         );
//!         gossamer::profile::timeline()
//!     })
//!     .unwrap();
//! assert_eq!(tl.tracks.len(), 2);
//! assert!(tl.tracks[1]
//!     .intervals
//!     .iter()
//!     .any(|i| i.activity == gossamer::profile::Activity::Delegated));
//! assert_eq!(tl.regions[0].label, "increments");
//! ```

use crate::runtime::{on_every_worker, on_every_worker_with, WorkerId};
use crate::trust::entrust_with;
use crate::worker::{activity as act, try_worker, worker};

pub use crate::stats::imbalance;

/// What a worker is doing at one moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Activity {
    /// Polling with nothing to do: no fiber to run, no request batch to
    /// serve, no response to take (spinning, yielding its thread, sleeping),
    /// and no fiber in a collective round.
    Idle,
    /// A fiber of this worker is in a [`Party`](crate::Party) round (arriving,
    /// polling its mailbox, parked there) and the worker does nothing else.
    Collective,
    /// Serving request batches of clients (applied closures), and local
    /// jobs deferred from delegated context.
    Delegated,
    /// Running this worker's own fibers and its requests' continuations.
    Fiber,
}

impl Activity {
    /// All activities, in the order of their codes.
    pub const ALL: [Activity; 4] = [
        Activity::Idle,
        Activity::Collective,
        Activity::Delegated,
        Activity::Fiber,
    ];

    /// A short lower-case name: `idle`, `collective`, `delegated`, `fiber`.
    pub fn name(self) -> &'static str {
        match self {
            Activity::Idle => "idle",
            Activity::Collective => "collective",
            Activity::Delegated => "delegated",
            Activity::Fiber => "fiber",
        }
    }

    /// Busy: delegated work or fibers.
    pub fn is_busy(self) -> bool {
        matches!(self, Activity::Delegated | Activity::Fiber)
    }

    fn from_code(code: u8) -> Activity {
        match code {
            act::IDLE => Activity::Idle,
            act::COLLECTIVE => Activity::Collective,
            act::DELEGATED => Activity::Delegated,
            _ => Activity::Fiber,
        }
    }
}

/// One interval of one worker's activity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interval {
    /// What the worker did.
    pub activity: Activity,
    /// Start, nanoseconds since the timeline's origin ([`Timeline`]).
    pub start_ns: u64,
    /// End (exclusive), nanoseconds since the timeline's origin.
    pub end_ns: u64,
}

/// One worker's timeline.
#[derive(Clone, Debug, Default)]
pub struct Track {
    /// The worker.
    pub worker: WorkerId,
    /// Its rank (0 outside a rack run).
    pub rank: usize,
    /// Whether it recorded at all ([`Config::trace`](crate::Config::trace) on in its process).
    pub recorded: bool,
    /// Its intervals, in time order; consecutive ones touch (the next starts
    /// where the last ended) except where an interval shorter than a
    /// nanosecond was skipped.
    pub intervals: Vec<Interval>,
    /// Intervals (and regions) not kept because its buffer was full: all of
    /// them came after the last kept interval.
    pub dropped: u64,
}

/// A labelled span of time on one worker ([`region`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// The worker whose fiber ran it.
    pub worker: WorkerId,
    /// Its rank.
    pub rank: usize,
    /// The label.
    pub label: String,
    /// Start, nanoseconds since the timeline's origin.
    pub start_ns: u64,
    /// End, nanoseconds since the timeline's origin.
    pub end_ns: u64,
}

/// How one rank's clock was put on the collecting rank's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RankClock {
    /// The rank.
    pub rank: usize,
    /// Added to the rank's own times to get the collector's (nanoseconds).
    pub offset_ns: i64,
    /// The offset is within this many nanoseconds of the truth (half the
    /// shortest round trip; 0 for the collecting rank).
    pub error_ns: u64,
}

/// Every worker's timeline on every rank, on one clock. Times are
/// nanoseconds since the *origin*: the earliest recorded moment of any
/// worker (about when the earliest process's runtime started).
#[derive(Clone, Debug, Default)]
pub struct Timeline {
    /// Workers per rank.
    pub threads: usize,
    /// Ranks (1 outside a rack run).
    pub ranks: usize,
    /// One track per worker, by worker index.
    pub tracks: Vec<Track>,
    /// Every region of every worker, by start.
    pub regions: Vec<Region>,
    /// Each rank's clock offset, by rank.
    pub clocks: Vec<RankClock>,
    /// The collecting rank's clock (nanoseconds since its runtime started)
    /// at the origin.
    pub origin_ns: i64,
}

impl Timeline {
    /// Intervals and regions dropped because a buffer was full, over all workers.
    pub fn dropped(&self) -> u64 {
        self.tracks.iter().map(|t| t.dropped).sum()
    }

    /// Intervals kept, over all workers.
    pub fn intervals(&self) -> usize {
        self.tracks.iter().map(|t| t.intervals.len()).sum()
    }
}

/// Round trips per rank for the clock offsets.
const CLOCK_PINGS: usize = 16;

/// Runs `body` and, when this worker records a timeline, adds the span it
/// took as a [`Region`] labelled `label()` (called only then). Call it from
/// a fiber (or anywhere: outside a recording worker it just runs `body`).
pub fn region<R>(label: impl FnOnce() -> String, body: impl FnOnce() -> R) -> R {
    let Some(w) = try_worker().filter(|w| w.tracing()) else {
        return body();
    };
    let start = w.clock_ns();
    let r = body();
    // Fibers never migrate: `w` is still this thread's worker.
    w.record_region(label(), start);
    r
}

/// One worker's buffer as it travels: recorded, intervals, regions, dropped.
type RawTrack = (bool, Vec<[u64; 2]>, Vec<(String, u64, u64)>, u64);

/// Collects every worker's timeline on every rank (each hands its buffer
/// over in a fiber, and stops recording), and puts every rank on this
/// rank's clock (see the module docs). Call it from a fiber, once, at the
/// end of what you want to see; a worker that records nothing
/// ([`Config::trace`](crate::Config::trace) off) gives an empty track.
pub fn timeline() -> Timeline {
    let me = worker("profile::timeline");
    let threads = me.shared.place.local;
    let n = me.n();
    let ranks = n / threads.max(1);
    let my_rank = me.shared.place.base / threads.max(1);
    fn take(_: ()) -> RawTrack {
        match worker("profile::timeline").take_trace() {
            Some(t) => (true, t.intervals, t.regions, t.dropped),
            None => (false, Vec::new(), Vec::new(), 0),
        }
    }
    // In one process the buffers move through memory (no serializing).
    let raw: Vec<RawTrack> = if me.shared.place.rack {
        on_every_worker_with(take, ())
    } else {
        on_every_worker(|| take(()))
    };
    let clocks: Vec<RankClock> = (0..ranks)
        .map(|r| {
            if r == my_rank {
                RankClock {
                    rank: r,
                    ..RankClock::default()
                }
            } else {
                clock_of(r, r * threads)
            }
        })
        .collect();
    // Aligned times, then shifted so that the earliest is 0.
    let aligned = |rank: usize, t: u64| t as i64 + clocks[rank].offset_ns;
    let origin = raw
        .iter()
        .enumerate()
        .flat_map(|(w, (_, iv, rg, _))| {
            let rank = w / threads.max(1);
            let first = iv.first().map(|x| aligned(rank, x[0] >> 2));
            let region = rg.iter().map(move |x| aligned(rank, x.1)).min();
            first.into_iter().chain(region)
        })
        .min()
        .unwrap_or(0);
    let at = |rank: usize, t: u64| (aligned(rank, t) - origin).max(0) as u64;
    let mut regions = Vec::new();
    let tracks = raw
        .into_iter()
        .enumerate()
        .map(|(w, (recorded, iv, rg, dropped))| {
            let rank = w / threads.max(1);
            regions.extend(rg.into_iter().map(|(label, s, e)| Region {
                worker: WorkerId(w),
                rank,
                label,
                start_ns: at(rank, s),
                end_ns: at(rank, e),
            }));
            Track {
                worker: WorkerId(w),
                rank,
                recorded,
                intervals: iv
                    .into_iter()
                    .map(|[s, e]| Interval {
                        activity: Activity::from_code((s & 3) as u8),
                        start_ns: at(rank, s >> 2),
                        end_ns: at(rank, e),
                    })
                    .collect(),
                dropped,
            }
        })
        .collect();
    regions.sort_by_key(|r| (r.start_ns, r.worker));
    Timeline {
        threads,
        ranks,
        tracks,
        regions,
        clocks,
        origin_ns: origin,
    }
}

/// The offset of `rank`'s clock from this worker's, by asking its worker
/// `w` for the time [`CLOCK_PINGS`] times (see the module docs).
fn clock_of(rank: usize, w: usize) -> RankClock {
    let me = worker("profile::timeline");
    let probe = entrust_with(WorkerId(w), || ());
    let mut best = (u64::MAX, 0i64);
    for _ in 0..CLOCK_PINGS {
        let t0 = me.clock_ns();
        let theirs = probe.apply(|_: &mut ()| worker("profile::timeline").clock_ns());
        let t1 = me.clock_ns();
        let rtt = t1 - t0;
        if rtt < best.0 {
            best = (rtt, (t0 + rtt / 2) as i64 - theirs as i64);
        }
    }
    RankClock {
        rank,
        offset_ns: best.1,
        error_ns: best.0.div_ceil(2),
    }
}
