//! What a worker is doing, over time: its *activity* is one of
//!
//! - **delegated**: serving request batches from clients (and running local
//!   jobs deferred from delegated context);
//! - **fiber**: running its own fibers, and the continuations of its requests;
//! - **collective**: a fiber of this worker is in a [`Party`](crate::Party)
//!   round (arriving, polling its mailbox, or parked there) and the worker
//!   does nothing else;
//! - **idle**: loop iterations that found nothing to do (spinning, yielding
//!   the thread, sleeping), outside collectives.
//!
//! The loop calls `enter_*` where an activity starts: `run_loop.rs` after an
//! iteration without progress, `fibers.rs` before resuming a fiber,
//! `trustee.rs` before serving a batch, `deferred.rs` before a deferred job,
//! `client.rs` before continuations; the collective marks its rounds. Only a
//! *change* of activity reads the clock (one `Instant::now`, ~100 ns on the
//! measuring VM) and adds the interval that ended to this worker's counter of
//! that activity (`StatsCell::activity_ns`); staying in the same activity
//! costs one compare.
//!
//! Without a timeline ([`Config::trace`](crate::Config::trace) off) delegated
//! work and fibers count as one activity, *busy*, so that a loop that
//! alternates between serving and running its fibers (most iterations of a
//! busy kernel) reads the clock only when it goes idle or into a collective.
//! With the timeline on they are told apart and every interval is also
//! appended to a bounded buffer (`Trace`), which
//! [`profile::timeline`](crate::profile::timeline) collects.

use super::Worker;
use crate::stats::StatsCell;
use std::cell::{Cell, RefCell};
use std::time::Instant;

/// Activity codes: indexes of `StatsCell::activity_ns`; the first four are
/// also the codes of a timeline's intervals ([`crate::profile::Activity`]).
pub(crate) const IDLE: u8 = 0;
pub(crate) const COLLECTIVE: u8 = 1;
pub(crate) const DELEGATED: u8 = 2;
pub(crate) const FIBER: u8 = 3;
/// Delegated work or fibers, not told apart (no timeline recorded).
pub(crate) const BUSY: u8 = 4;
/// Number of activity codes.
pub(crate) const COUNT: usize = 5;

/// No fiber of this worker is in a collective round.
const NO_FIBER: usize = usize::MAX;

/// One worker's activity: the current one, since when, and its timeline.
pub(crate) struct Recorder {
    /// The current activity's code.
    state: Cell<u8>,
    /// Nanoseconds since `epoch` when the current activity started.
    since: Cell<u64>,
    /// This process's runtime start (`Shared::epoch`).
    epoch: Instant,
    /// The code delegated work is counted under: `DELEGATED`, or `BUSY`
    /// without a timeline.
    delegated: u8,
    /// The code fibers are counted under: `FIBER`, or `BUSY`.
    fiber: u8,
    /// The fiber of this worker that is in a collective round, or `NO_FIBER`.
    party: Cell<usize>,
    /// The timeline, when [`Config::trace`](crate::Config::trace) is on.
    trace: Option<RefCell<Trace>>,
}

/// One worker's timeline: a bounded buffer of intervals and of labelled regions.
pub(crate) struct Trace {
    /// Intervals as `[start << 2 | activity, end]`, nanoseconds since the epoch.
    intervals: Vec<[u64; 2]>,
    /// Regions ([`crate::profile::region`]): label, start, end.
    regions: Vec<(String, u64, u64)>,
    /// Most intervals (and most regions) kept.
    cap: usize,
    /// Intervals and regions not kept because the buffer was full.
    dropped: u64,
    /// Collected: nothing more is recorded (and nothing counted as dropped).
    frozen: bool,
}

/// What [`Worker::take_trace`] hands over.
pub(crate) struct TakenTrace {
    pub intervals: Vec<[u64; 2]>,
    pub regions: Vec<(String, u64, u64)>,
    pub dropped: u64,
}

impl Trace {
    fn new(cap: usize) -> Self {
        Trace {
            // Reserved once, so the buffer never reallocates (pages are only
            // touched, and so resident, as intervals are written).
            intervals: Vec::with_capacity(cap),
            regions: Vec::new(),
            cap,
            dropped: 0,
            frozen: false,
        }
    }

    #[inline]
    fn push(&mut self, code: u8, start: u64, end: u64) {
        if self.frozen {
            return;
        }
        if self.intervals.len() < self.cap {
            self.intervals.push([start << 2 | code as u64, end]);
        } else {
            self.dropped += 1;
        }
    }
}

impl Recorder {
    /// A worker's recorder, idle from now on; with a timeline of at most
    /// `trace` intervals when that is `Some`.
    pub(crate) fn new(epoch: Instant, trace: Option<usize>) -> Self {
        let split = trace.is_some();
        let r = Recorder {
            state: Cell::new(IDLE),
            since: Cell::new(0),
            epoch,
            delegated: if split { DELEGATED } else { BUSY },
            fiber: if split { FIBER } else { BUSY },
            party: Cell::new(NO_FIBER),
            trace: trace.map(|cap| RefCell::new(Trace::new(cap))),
        };
        r.since.set(r.now());
        r
    }

    /// Nanoseconds since the epoch.
    #[inline]
    pub(crate) fn now(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }

    /// Whether a timeline is being recorded.
    pub(crate) fn tracing(&self) -> bool {
        self.trace.as_ref().is_some_and(|t| !t.borrow().frozen)
    }
}

impl Worker {
    /// Switches to activity `code` (clock read only if it differs).
    #[inline(always)]
    fn enter(&self, code: u8) {
        if self.rec.state.get() != code {
            self.switch(code);
        }
    }

    #[inline(never)]
    fn switch(&self, code: u8) {
        self.close_interval(self.rec.now());
        self.rec.state.set(code);
    }

    /// Ends the current activity's interval at `now` (counted and, with a
    /// timeline, recorded); the same activity goes on from `now`.
    fn close_interval(&self, now: u64) {
        let r = &self.rec;
        let (code, since) = (r.state.get(), r.since.get());
        let d = now.saturating_sub(since);
        StatsCell::add(&self.shared.stats[self.id].activity_ns[code as usize], d);
        if let Some(t) = &r.trace {
            if d > 0 {
                t.borrow_mut().push(code, since, now);
            }
        }
        r.since.set(now);
    }

    /// Before serving a batch or running a deferred job.
    #[inline(always)]
    pub(super) fn enter_delegated(&self) {
        self.enter(self.rec.delegated);
    }

    /// Before resuming fiber `fid`.
    #[inline(always)]
    pub(super) fn enter_fiber(&self, fid: usize) {
        let code = if fid == self.rec.party.get() {
            COLLECTIVE
        } else {
            self.rec.fiber
        };
        self.enter(code);
    }

    /// Before running continuations: busy, unless already.
    #[inline(always)]
    pub(super) fn enter_busy(&self) {
        if self.rec.state.get() <= COLLECTIVE {
            self.enter(self.rec.fiber);
        }
    }

    /// After a loop iteration that found nothing to do.
    #[inline(always)]
    pub(super) fn enter_idle(&self) {
        let code = if self.rec.party.get() == NO_FIBER {
            IDLE
        } else {
            COLLECTIVE
        };
        self.enter(code);
    }

    /// The running fiber starts a collective round; returns what to pass to
    /// [`Worker::end_collective`]. One fiber per worker is tracked: a second
    /// fiber's round while one is under way counts as fiber time.
    /// Outside a fiber nothing is tracked (the round itself then refuses to
    /// wait, with its own message).
    pub(crate) fn begin_collective(&self) -> usize {
        let prev = self.rec.party.get();
        if let Some(fid) = self.current.get() {
            self.rec.party.set(fid);
            self.enter(COLLECTIVE);
        }
        prev
    }

    /// The running fiber's round is over.
    pub(crate) fn end_collective(&self, prev: usize) {
        self.rec.party.set(prev);
        if self.current.get().is_some() {
            self.enter(self.rec.fiber);
        }
    }

    /// Counts the current activity up to now, so that counters read next
    /// are exact (the activity goes on); returns now (nanoseconds since the
    /// epoch), the moment the counters describe.
    pub(crate) fn flush_activity(&self) -> u64 {
        let now = self.rec.now();
        self.close_interval(now);
        now
    }

    /// Nanoseconds since this process's runtime started.
    pub(crate) fn clock_ns(&self) -> u64 {
        self.rec.now()
    }

    /// Whether this worker records a timeline (and has not handed it over).
    pub(crate) fn tracing(&self) -> bool {
        self.rec.tracing()
    }

    /// Records a labelled region from `start` to now (timeline on).
    pub(crate) fn record_region(&self, label: String, start: u64) {
        let end = self.rec.now();
        if let Some(t) = &self.rec.trace {
            let mut t = t.borrow_mut();
            if t.frozen {
                return;
            }
            if t.regions.len() < t.cap {
                t.regions.push((label, start, end));
            } else {
                t.dropped += 1;
            }
        }
    }

    /// Hands this worker's timeline over (ending the current interval now)
    /// and stops recording; `None` without a timeline.
    pub(crate) fn take_trace(&self) -> Option<TakenTrace> {
        self.flush_activity();
        let t = self.rec.trace.as_ref()?;
        let mut t = t.borrow_mut();
        t.frozen = true;
        Some(TakenTrace {
            intervals: std::mem::take(&mut t.intervals),
            regions: std::mem::take(&mut t.regions),
            dropped: t.dropped,
        })
    }
}
