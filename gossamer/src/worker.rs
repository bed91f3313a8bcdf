//! A worker: one OS thread that is at once a fiber scheduler, a trustee (serving the
//! request slots of every client) and a client (batching requests to every trustee).
//!
//! The scheduling loop, each iteration:
//! 1. takes remote wake-ups and spawns from its inbox;
//! 2. runs every fiber that was ready at the start of the iteration (FIFO), each
//!    until it yields, parks or finishes;
//! 3. runs deferred local jobs (local-trustee requests issued in delegated context);
//! 4. serves each request slot with a new ready word (the trustee);
//! 5. polls the response slot of each pair with a batch in flight and runs the
//!    continuations in request order (the client);
//! 6. sends the next batch on every pair that has none in flight.
//!
//! Per (client, trustee) pair at most one batch is in flight, so a request slot is
//! free again once its response arrived, and requests keep accumulating in the
//! client's staging batch meanwhile (opportunistic batching).

use crate::fiber::{self, Suspend};
use crate::park::Parking;
use crate::scheduler::{Scheduler, Taken};
use crate::slot::{self, flags, large_record, AlignedBuf, BatchWriter, Header, Reader, Writer};
use crate::stats::StatsCell;
use crate::transport::{Body, Dir, InProcess, SlotView, Transport};
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, VecDeque};
use std::mem::MaybeUninit;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// A monomorphised request handler: reads its closure (and payload) from the record
/// and appends its return value to the response.
pub(crate) type Trampoline = unsafe fn(prop: u64, r: &mut Reader, out: &mut AlignedBuf);

/// The continuation of a launch, keyed by token on the launching worker.
pub(crate) type LaunchCont = Box<dyn FnOnce(&mut Reader)>;

/// What to do with one response value, in request order.
pub(crate) enum Cont {
    /// Nothing comes back (zero-sized answers of internal requests).
    Skip,
    /// Write the value through `out` and wake the blocked fiber `fid`.
    Wake {
        fid: usize,
        out: *mut u8,
        read: unsafe fn(&mut Reader, *mut u8),
    },
    /// Run a small continuation stored in place (in delegated context).
    Inline(InlineThen),
    /// Run a continuation (in delegated context).
    Then(Box<dyn FnOnce(&mut Reader)>),
}

impl Cont {
    /// A continuation, stored in place when small enough (no allocation).
    #[inline(always)]
    pub(crate) fn then<C: FnOnce(&mut Reader) + 'static>(c: C) -> Cont {
        match InlineThen::new(c) {
            Ok(i) => Cont::Inline(i),
            Err(c) => Cont::Then(Box::new(c)),
        }
    }
}

/// Words of in-place storage for a continuation's captures.
const INLINE_WORDS: usize = 3;

/// A type-erased `FnOnce(&mut Reader)` of at most `INLINE_WORDS` words and
/// alignment 8, stored without a heap allocation.
pub(crate) struct InlineThen {
    call: unsafe fn(*mut u8, &mut Reader),
    drop_fn: unsafe fn(*mut u8),
    data: [MaybeUninit<u64>; INLINE_WORDS],
}

unsafe fn inline_call<C: FnOnce(&mut Reader)>(p: *mut u8, r: &mut Reader) {
    // SAFETY: `p` holds a C written by `InlineThen::new`, read out exactly once
    // (`run` forgets the InlineThen so `drop_fn` does not run afterwards).
    let c = unsafe { std::ptr::read(p as *mut C) };
    c(r)
}

unsafe fn inline_drop<C>(p: *mut u8) {
    // SAFETY: `p` holds a C that was never called (otherwise `run` forgot us).
    unsafe { std::ptr::drop_in_place(p as *mut C) }
}

impl InlineThen {
    #[inline(always)]
    fn new<C: FnOnce(&mut Reader) + 'static>(c: C) -> Result<Self, C> {
        if size_of::<C>() > INLINE_WORDS * 8 || align_of::<C>() > 8 {
            return Err(c);
        }
        let mut data = [MaybeUninit::<u64>::uninit(); INLINE_WORDS];
        // SAFETY: checked above that C fits and needs no more than 8-byte alignment.
        unsafe { std::ptr::write(data.as_mut_ptr() as *mut C, c) };
        Ok(InlineThen {
            call: inline_call::<C>,
            drop_fn: inline_drop::<C>,
            data,
        })
    }

    #[inline(always)]
    fn run(self, r: &mut Reader) {
        let mut me = std::mem::ManuallyDrop::new(self);
        // SAFETY: the stored closure is consumed once; `me` is never dropped.
        unsafe { (me.call)(me.data.as_mut_ptr() as *mut u8, r) }
    }
}

impl Drop for InlineThen {
    fn drop(&mut self) {
        // SAFETY: the closure was not run (run() forgets self), so it is still live.
        unsafe { (self.drop_fn)(self.data.as_mut_ptr() as *mut u8) }
    }
}

enum Inflight {
    Batch(u32),
    Chunk { last: bool },
}

enum Out {
    Batch(BatchWriter),
    Large { buf: AlignedBuf, sent: usize },
}

/// The client side of one (this worker -> trustee) pair.
struct Channel {
    staging: BatchWriter,
    queue: VecDeque<Out>,
    inflight: Option<Inflight>,
    conts: VecDeque<Cont>,
    reasm: AlignedBuf,
    seq: u64,
    resp_seen: u64,
    issued: u64,
    completed: u64,
    pool: Vec<BatchWriter>,
}

/// The trustee side of one (client -> this worker) pair.
#[derive(Default)]
struct Serve {
    seen: u64,
    reasm: AlignedBuf,
    pending: Option<(AlignedBuf, usize)>,
}

/// Cross-thread mail for a worker: wake-ups of parked fibers and fiber spawns.
#[derive(Default)]
pub(crate) struct Inbox {
    pub wakes: Vec<usize>,
    pub spawns: Vec<Box<dyn FnOnce() + Send>>,
}

/// Why a run stops early: the first failure message wins.
#[derive(Default)]
pub(crate) struct Fate {
    poisoned: AtomicBool,
    msg: Mutex<Option<String>>,
}

impl Fate {
    /// Records a failure (the first one is kept). Returns true for the first.
    pub(crate) fn fail(&self, msg: String) -> bool {
        let mut m = self.msg.lock().unwrap_or_else(|p| p.into_inner());
        let first = m.is_none();
        if first {
            *m = Some(msg);
        }
        self.poisoned.store(true, Ordering::SeqCst);
        first
    }
    #[inline(always)]
    pub(crate) fn failed(&self) -> bool {
        self.poisoned.load(Ordering::Relaxed)
    }
    pub(crate) fn message(&self) -> Option<String> {
        self.msg.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// Where this process's workers sit among all workers of the run.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Placement {
    /// All workers of all ranks.
    pub n: usize,
    /// Global id of this process's first worker.
    pub base: usize,
    /// Workers in this process.
    pub local: usize,
    /// A rack run (several processes): the rack control thread decides termination,
    /// and code words are checked against `code_bounds`.
    pub rack: bool,
    /// Addresses a code word may take (this binary's executable segment).
    pub code_bounds: (u64, u64),
}

impl Placement {
    pub(crate) fn single(n: usize) -> Self {
        Placement {
            n,
            base: 0,
            local: n,
            rack: false,
            code_bounds: (0, u64::MAX),
        }
    }
}

/// State shared by all workers of one runtime (in this process).
pub(crate) struct Shared {
    pub rt: u64,
    pub n: usize,
    pub place: Placement,
    pub slot_size: usize,
    pub transport: Box<dyn Transport>,
    pub stats: Vec<StatsCell>,
    idle: Vec<AtomicBool>,
    activity: Vec<AtomicU64>,
    inbox: Vec<Mutex<Inbox>>,
    inbox_flag: Vec<AtomicBool>,
    pub parking: Arc<Parking>,
    pub main_done: AtomicBool,
    pub stop: AtomicBool,
    pub fate: Arc<Fate>,
}

impl Shared {
    pub(crate) fn new(rt: u64, n: usize, slot_size: usize) -> Self {
        Self::with(
            rt,
            Placement::single(n),
            slot_size,
            Box::new(InProcess::new(n, slot_size)),
            Arc::new(Parking::local(n)),
            Arc::new(Fate::default()),
        )
    }

    pub(crate) fn with(
        rt: u64,
        place: Placement,
        slot_size: usize,
        transport: Box<dyn Transport>,
        parking: Arc<Parking>,
        fate: Arc<Fate>,
    ) -> Self {
        let n = place.n;
        Shared {
            rt,
            n,
            place,
            slot_size,
            transport,
            stats: (0..n).map(|_| StatsCell::default()).collect(),
            idle: (0..n).map(|_| AtomicBool::new(false)).collect(),
            activity: (0..n).map(|_| AtomicU64::new(0)).collect(),
            inbox: (0..n).map(|_| Mutex::new(Inbox::default())).collect(),
            inbox_flag: (0..n).map(|_| AtomicBool::new(false)).collect(),
            parking,
            main_done: AtomicBool::new(false),
            stop: AtomicBool::new(false),
            fate,
        }
    }

    /// True when worker `w` runs in this process.
    #[inline(always)]
    pub(crate) fn is_local(&self, w: usize) -> bool {
        w.wrapping_sub(self.place.base) < self.place.local
    }

    /// Global ids of this process's workers.
    pub(crate) fn local_workers(&self) -> std::ops::Range<usize> {
        self.place.base..self.place.base + self.place.local
    }

    /// Posts mail to worker `w` (a worker of this process).
    pub(crate) fn post(&self, w: usize, f: impl FnOnce(&mut Inbox)) {
        assert!(
            self.is_local(w),
            "gossamer: worker {w} runs in another process (rank); only delegable closures and \
             serialized payloads can go there"
        );
        let mut ib = self.inbox[w].lock().unwrap_or_else(|p| p.into_inner());
        f(&mut ib);
        self.inbox_flag[w].store(true, Ordering::SeqCst);
        self.wake_worker(w);
    }

    /// Wakes worker `w` if it is (about to be) asleep. Call after publishing work
    /// for it (see [`Parking::wake`]).
    #[inline]
    pub(crate) fn wake_worker(&self, w: usize) {
        self.parking.wake(w);
    }

    /// Wakes every worker of this process (stop, poison).
    pub(crate) fn wake_all(&self) {
        for w in self.local_workers() {
            self.wake_worker(w);
        }
    }

    /// Stops the run because of a failure (a panic in delegated context, a lost rank).
    pub(crate) fn poison(&self, msg: String) {
        self.fate.fail(msg);
        self.wake_all();
    }

    /// The failure message, if the run failed.
    pub(crate) fn poison_message(&self) -> Option<String> {
        self.fate.message()
    }

    /// Sum of this process's activity counters when every local worker is idle (no
    /// ready fiber, nothing outstanding, no mail), else `None`.
    pub(crate) fn quiescent(&self) -> Option<u64> {
        let mut sum = 0u64;
        for w in self.local_workers() {
            if !self.idle[w].load(Ordering::SeqCst) || self.inbox_flag[w].load(Ordering::SeqCst) {
                return None;
            }
            sum = sum.wrapping_add(self.activity[w].load(Ordering::SeqCst));
        }
        Some(sum)
    }

    /// Every worker idle twice in a row with no activity in between: nothing can
    /// create work any more.
    fn terminated(&self) -> bool {
        let round = || -> Option<Vec<u64>> {
            let mut acts = Vec::with_capacity(self.n);
            for w in self.local_workers() {
                if !self.idle[w].load(Ordering::SeqCst) || self.inbox_flag[w].load(Ordering::SeqCst)
                {
                    return None;
                }
                acts.push(self.activity[w].load(Ordering::SeqCst));
            }
            Some(acts)
        };
        match (round(), round()) {
            (Some(a), Some(b)) => a == b,
            _ => false,
        }
    }
}

/// The per-property header in front of every entrusted value.
#[repr(C)]
pub(crate) struct PropHeader {
    /// Weight of all live trusts plus weight in flight back (see `trust.rs`).
    pub weight: Cell<u128>,
    /// Index in the trustee's registry.
    pub reg: Cell<usize>,
    /// Drops the whole `PropBox<T>`.
    pub drop_fn: unsafe fn(*mut PropHeader),
}

#[derive(Default)]
struct Registry {
    props: Vec<*mut PropHeader>,
    free: Vec<usize>,
}

thread_local! {
    static CURRENT: Cell<*const Worker> = const { Cell::new(std::ptr::null()) };
}

/// The worker running on this thread, if any.
pub(crate) fn try_worker() -> Option<&'static Worker> {
    let p = CURRENT.get();
    // SAFETY: CURRENT is set by `Worker::run` to a worker that outlives every use on
    // this thread (it is cleared before the worker is dropped).
    (!p.is_null()).then(|| unsafe { &*p })
}

/// The worker running on this thread; panics with guidance outside a runtime.
pub(crate) fn worker(what: &str) -> &'static Worker {
    try_worker().unwrap_or_else(|| {
        panic!("gossamer: `{what}` needs a running gossamer runtime; call it from inside `gossamer::main` (or `Runtime::builder().run`) or a fiber spawned there")
    })
}

/// Marks delegated context for its lifetime (also on unwind).
pub(crate) struct Delegated<'a>(&'a Worker);
impl<'a> Delegated<'a> {
    #[inline(always)]
    pub(crate) fn enter(w: &'a Worker) -> Self {
        w.delegated.set(w.delegated.get() + 1);
        Delegated(w)
    }
}
impl Drop for Delegated<'_> {
    #[inline(always)]
    fn drop(&mut self) {
        self.0.delegated.set(self.0.delegated.get() - 1);
    }
}

/// Extracts a panic message.
pub(crate) fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_string()
    }
}

/// One worker thread's state.
pub(crate) struct Worker {
    pub id: usize,
    pub shared: Arc<Shared>,
    sched: RefCell<Scheduler>,
    current: Cell<Option<usize>>,
    pub delegated: Cell<u32>,
    channels: Vec<RefCell<Channel>>,
    serve: RefCell<Vec<Serve>>,
    resp: RefCell<AlignedBuf>,
    registry: RefCell<Registry>,
    deferred: RefCell<VecDeque<Box<dyn FnOnce()>>>,
    deferred_issued: Cell<u64>,
    deferred_done: Cell<u64>,
    launches: RefCell<BTreeMap<u64, LaunchCont>>,
    next_token: Cell<u64>,
    /// Requests issued and not yet completed (conts, deferred jobs, launches).
    outstanding: Cell<usize>,
    pub stopping: Cell<bool>,
    pub scratch: RefCell<Vec<u8>>,
    cont_buf: RefCell<Vec<Cont>>,
    /// Fibers parked in `wait_outstanding`, woken whenever requests complete.
    waiters: RefCell<Vec<usize>>,
}

/// A batch waiting on more than this many sealed batches makes a fiber that keeps
/// issuing `apply_then` yield, so the worker loop can send and serve.
const BACKPRESSURE_BATCHES: usize = 8;
/// Top bit of the completion tokens of `spawn_on_with` fibers.
const SPAWN_TOKEN: u64 = 1 << 63;
/// Idle loop iterations spent spinning before the worker starts yielding its thread.
const SPIN_ITERS: u32 = 64;
/// Idle loop iterations after which the worker parks its thread until woken.
const YIELD_ITERS: u32 = 512;

impl Worker {
    pub(crate) fn new(id: usize, shared: Arc<Shared>, stack_size: usize) -> Self {
        let n = shared.n;
        let ss = shared.slot_size;
        Worker {
            id,
            sched: RefCell::new(Scheduler::new(stack_size)),
            current: Cell::new(None),
            delegated: Cell::new(0),
            channels: (0..n)
                .map(|_| {
                    RefCell::new(Channel {
                        staging: BatchWriter::new(ss),
                        queue: VecDeque::new(),
                        inflight: None,
                        conts: VecDeque::new(),
                        reasm: AlignedBuf::default(),
                        seq: 0,
                        resp_seen: 0,
                        issued: 0,
                        completed: 0,
                        pool: Vec::new(),
                    })
                })
                .collect(),
            serve: RefCell::new((0..n).map(|_| Serve::default()).collect()),
            resp: RefCell::new(AlignedBuf::with_capacity(ss)),
            registry: RefCell::new(Registry::default()),
            deferred: RefCell::new(VecDeque::new()),
            deferred_issued: Cell::new(0),
            deferred_done: Cell::new(0),
            launches: RefCell::new(BTreeMap::new()),
            next_token: Cell::new(1),
            outstanding: Cell::new(0),
            stopping: Cell::new(false),
            scratch: RefCell::new(Vec::new()),
            cont_buf: RefCell::new(Vec::new()),
            waiters: RefCell::new(Vec::new()),
            shared,
        }
    }

    pub(crate) fn n(&self) -> usize {
        self.shared.n
    }

    // ---------------------------------------------------------------- fibers

    /// Spawns a fiber on this worker.
    pub(crate) fn spawn_local(&self, body: Box<dyn FnOnce()>) {
        self.sched.borrow_mut().spawn(body);
    }

    /// The running fiber's id; panics outside a fiber.
    pub(crate) fn current_fiber(&self) -> usize {
        self.current
            .get()
            .expect("gossamer: not running in a fiber")
    }

    /// Parks the running fiber until [`Worker::wake`].
    pub(crate) fn park(&self) {
        fiber::suspend(Suspend::Park);
    }

    pub(crate) fn wake(&self, fid: usize) {
        self.sched.borrow_mut().wake(fid);
    }

    fn run_fibers(&self) -> bool {
        let n = self.sched.borrow().ready_len();
        for _ in 0..n {
            let Some(mut t): Option<Taken> = self.sched.borrow_mut().take_next() else {
                break;
            };
            self.current.set(Some(t.fid));
            let outcome = t.fiber.resume();
            self.current.set(None);
            self.sched.borrow_mut().put_back(t, outcome);
            if self.shared.fate.failed() {
                break;
            }
        }
        n > 0
    }

    fn drain_inbox(&self) -> bool {
        if !self.shared.inbox_flag[self.id].load(Ordering::Acquire) {
            return false;
        }
        let mail = {
            let mut ib = self.shared.inbox[self.id]
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            self.shared.inbox_flag[self.id].store(false, Ordering::SeqCst);
            std::mem::take(&mut *ib)
        };
        for fid in mail.wakes {
            self.wake(fid);
        }
        for s in mail.spawns {
            self.spawn_local(s);
        }
        true
    }

    // ---------------------------------------------------------- registry

    /// Registers a new property so shutdown can drop it.
    pub(crate) fn register(&self, p: *mut PropHeader) {
        let mut r = self.registry.borrow_mut();
        let idx = match r.free.pop() {
            Some(i) => {
                r.props[i] = p;
                i
            }
            None => {
                r.props.push(p);
                r.props.len() - 1
            }
        };
        // SAFETY: `p` is a freshly allocated, live property header.
        unsafe { (*p).reg.set(idx) };
    }

    /// Returns `w` weight to a property of this trustee; drops it when none is left.
    ///
    /// # Safety
    /// `p` must be a live property of this worker, and `w` weight its caller owned.
    pub(crate) unsafe fn release_local(&self, p: *mut PropHeader, w: u64) {
        // SAFETY: live property (caller contract); header fields are Cells.
        let h = unsafe { &*p };
        let cur = h.weight.get();
        let w = w as u128;
        assert!(
            w <= cur,
            "gossamer: trust reference count underflow (runtime bug)"
        );
        h.weight.set(cur - w);
        if cur == w {
            {
                let mut r = self.registry.borrow_mut();
                let i = h.reg.get();
                r.props[i] = std::ptr::null_mut();
                r.free.push(i);
            }
            let _d = Delegated::enter(self);
            // SAFETY: the last weight came back: no trust and no request refers to the
            // property any more; it was unregistered above, so it is dropped once.
            unsafe { (h.drop_fn)(p) };
        }
    }

    // ------------------------------------------------------ local deferral

    /// Queues a local-trustee job issued in delegated context; it runs from the
    /// worker loop (or before the next inline local request), in issue order.
    pub(crate) fn defer(&self, job: Box<dyn FnOnce()>) {
        self.deferred.borrow_mut().push_back(job);
        self.deferred_issued.set(self.deferred_issued.get() + 1);
        self.outstanding.set(self.outstanding.get() + 1);
    }

    /// Runs every deferred local job (also called before inline local requests, to
    /// keep per-pair order).
    pub(crate) fn run_deferred(&self) -> bool {
        let mut any = false;
        loop {
            let job = self.deferred.borrow_mut().pop_front();
            let Some(job) = job else { break };
            any = true;
            {
                let _d = Delegated::enter(self);
                self.guard("a local delegated closure", job);
            }
            self.deferred_done.set(self.deferred_done.get() + 1);
            self.outstanding.set(self.outstanding.get() - 1);
        }
        if any {
            self.notify_waiters();
        }
        any
    }

    /// Runs user code in delegated context; a panic stops the whole run.
    fn guard(&self, what: &str, f: impl FnOnce()) {
        if let Err(p) = catch_unwind(AssertUnwindSafe(f)) {
            let msg = panic_message(&*p);
            self.shared.poison(format!(
                "gossamer: {what} panicked on worker {}: {msg}",
                self.id
            ));
        }
    }

    // ------------------------------------------------------------ launches

    /// Stores a launch continuation; returns its token.
    pub(crate) fn add_launch(&self, cont: LaunchCont) -> u64 {
        let t = self.next_token.get();
        self.next_token.set(t + 1);
        self.launches.borrow_mut().insert(t, cont);
        self.outstanding.set(self.outstanding.get() + 1);
        t
    }

    /// Stores the completion of a fiber spawned with `spawn_on_with`; returns its
    /// token. Such tokens have the top bit set, so `wait_outstanding` (which waits for
    /// launches below a mark) does not wait for spawned fibers: a spawned fiber may
    /// call `wait_outstanding` on the worker that spawned it without waiting for
    /// itself.
    pub(crate) fn add_spawn(&self, cont: LaunchCont) -> u64 {
        let t = self.next_token.get();
        self.next_token.set(t + 1);
        let t = t | SPAWN_TOKEN;
        self.launches.borrow_mut().insert(t, cont);
        self.outstanding.set(self.outstanding.get() + 1);
        t
    }

    /// Runs the continuation of launch `token` with its result.
    pub(crate) fn finish_launch(&self, token: u64, r: &mut Reader) {
        let cont = self
            .launches
            .borrow_mut()
            .remove(&token)
            .expect("gossamer: unknown launch token (runtime bug)");
        self.outstanding.set(self.outstanding.get() - 1);
        {
            let _d = Delegated::enter(self);
            cont(r);
        }
        self.notify_waiters();
    }

    // -------------------------------------------------------------- client

    /// Appends a request of `len` bytes (record header included) for `trustee`.
    /// Returns how many sealed batches wait on that pair.
    pub(crate) fn enqueue(
        &self,
        trustee: usize,
        code: u64,
        prop: u64,
        len: usize,
        cont: Cont,
        write: impl FnOnce(&mut Writer),
    ) -> usize {
        let mut ch = self.channels[trustee].borrow_mut();
        let ch = &mut *ch;
        if len > ch.staging.capacity() {
            if !ch.staging.is_empty() {
                Self::seal(ch);
            }
            let mut buf = AlignedBuf::with_capacity(len);
            let mut w = large_record(&mut buf, code, prop, len);
            write(&mut w);
            ch.queue.push_back(Out::Large { buf, sent: 0 });
        } else {
            if ch.staging.remaining() < len {
                if ch.inflight.is_none() && ch.queue.is_empty() {
                    self.send_staging(trustee, ch);
                } else {
                    Self::seal(ch);
                }
            }
            let mut w = ch.staging.record(code, prop, len);
            write(&mut w);
        }
        ch.conts.push_back(cont);
        ch.issued += 1;
        self.outstanding.set(self.outstanding.get() + 1);
        ch.queue.len()
    }

    /// Free bytes in the batch being filled for `trustee`, and a slot's record capacity.
    pub(crate) fn room(&self, trustee: usize) -> (usize, usize) {
        let ch = self.channels[trustee].borrow();
        (ch.staging.remaining(), ch.staging.capacity())
    }

    /// Yields the running fiber when too many batches wait on a pair (only from
    /// plain fiber context; delegated context never suspends).
    pub(crate) fn backpressure(&self, queued: usize) {
        if queued > BACKPRESSURE_BATCHES && self.delegated.get() == 0 && fiber::in_fiber() {
            fiber::suspend(Suspend::Yield);
        }
    }

    /// Writes a batch into `to`'s slot and wakes `to` if it sleeps.
    #[inline]
    fn write(&self, dir: Dir, to: usize, body: Body, h: &Header, seq: u64) {
        self.shared.transport.write(dir, self.id, to, body, h, seq);
        self.shared.wake_worker(to);
    }

    /// True when a slot this worker polls holds a new batch, or mail is waiting.
    fn has_incoming(&self) -> bool {
        let sh = &self.shared;
        if sh.inbox_flag[self.id].load(Ordering::SeqCst) {
            return true;
        }
        (0..self.n()).any(|c| {
            let seen = self.serve.borrow()[c].seen;
            if sh.transport.poll(Dir::Request, self.id, c, seen).is_some() {
                return true;
            }
            let ch = self.channels[c].borrow();
            ch.inflight.is_some()
                && sh
                    .transport
                    .poll(Dir::Response, self.id, c, ch.resp_seen)
                    .is_some()
        })
    }

    /// Parks the thread until a peer publishes work for it (or 1 ms passes).
    fn sleep(&self) {
        let sh = &self.shared;
        sh.parking.sleep(self.id, || {
            self.has_incoming() || sh.stop.load(Ordering::SeqCst) || sh.fate.failed()
        });
    }

    fn seal(ch: &mut Channel) {
        let ss = ch.staging.capacity() + slot::HEADER_SIZE;
        let fresh = ch.pool.pop().unwrap_or_else(|| BatchWriter::new(ss));
        let full = std::mem::replace(&mut ch.staging, fresh);
        ch.queue.push_back(Out::Batch(full));
    }

    fn send_staging(&self, trustee: usize, ch: &mut Channel) {
        ch.seq += 1;
        let h = ch.staging.header(0);
        self.write(
            Dir::Request,
            trustee,
            Body {
                ptr: ch.staging.buf.as_ptr(),
                len: ch.staging.buf.len(),
            },
            &h,
            ch.seq,
        );
        ch.inflight = Some(Inflight::Batch(ch.staging.count));
        ch.staging.reset();
    }

    /// Sends the next batch on a pair with nothing in flight.
    fn try_send(&self, trustee: usize) -> bool {
        let mut chb = self.channels[trustee].borrow_mut();
        let ch = &mut *chb;
        if ch.inflight.is_some() {
            return false;
        }
        let cap = ch.staging.capacity();
        match ch.queue.front_mut() {
            Some(Out::Batch(b)) => {
                ch.seq += 1;
                let h = b.header(0);
                self.write(
                    Dir::Request,
                    trustee,
                    Body {
                        ptr: b.buf.as_ptr(),
                        len: b.buf.len(),
                    },
                    &h,
                    ch.seq,
                );
                ch.inflight = Some(Inflight::Batch(b.count));
                if let Some(Out::Batch(mut b)) = ch.queue.pop_front() {
                    b.reset();
                    ch.pool.push(b);
                }
                true
            }
            Some(Out::Large { buf, sent }) => {
                let chunk = (buf.len() - *sent).min(cap & !7);
                let last = *sent + chunk == buf.len();
                let h = Header {
                    data_len: chunk as u32,
                    count: 1,
                    flags: flags::CHUNK | if last { flags::LAST } else { 0 },
                    aux: buf.len() as u64,
                    ..Header::default()
                };
                ch.seq += 1;
                // SAFETY: `sent + chunk <= buf.len()`.
                let p = unsafe { buf.as_ptr().add(*sent) };
                self.write(
                    Dir::Request,
                    trustee,
                    Body { ptr: p, len: chunk },
                    &h,
                    ch.seq,
                );
                *sent += chunk;
                ch.inflight = Some(Inflight::Chunk { last });
                true
            }
            None if !ch.staging.is_empty() => {
                self.send_staging(trustee, ch);
                true
            }
            None => false,
        }
    }

    fn poll_responses(&self) -> bool {
        let mut any = false;
        for t in 0..self.n() {
            let seen = {
                let ch = self.channels[t].borrow();
                if ch.inflight.is_none() {
                    continue;
                }
                ch.resp_seen
            };
            if let Some((seq, view)) = self.shared.transport.poll(Dir::Response, self.id, t, seen) {
                any = true;
                self.on_response(t, seq, view);
            }
        }
        any
    }

    fn on_response(&self, t: usize, seq: u64, view: SlotView) {
        let (h, start) = match view.header() {
            Ok(x) => x,
            Err(e) => {
                return self.shared.poison(format!(
                    "gossamer: corrupt response slot from worker {t}: {}",
                    e.0
                ))
            }
        };
        // SAFETY: the header check bounded `start + data_len` by the slot size.
        let data = unsafe { view.base.add(start) };
        let len = h.data_len as usize;
        let mut chb = self.channels[t].borrow_mut();
        chb.resp_seen = seq;
        if h.flags & flags::MORE != 0 {
            chb.reasm.extend(data, len);
            chb.seq += 1;
            let ask = Header {
                flags: flags::CONTINUE,
                ..Header::default()
            };
            self.write(Dir::Request, t, Body { ptr: data, len: 0 }, &ask, chb.seq);
            return;
        }
        let owned = if chb.reasm.is_empty() {
            None
        } else {
            chb.reasm.extend(data, len);
            Some(std::mem::take(&mut chb.reasm))
        };
        let ncont = match chb.inflight {
            Some(Inflight::Batch(n)) => n as usize,
            Some(Inflight::Chunk { last }) => last as usize,
            None => 0,
        };
        drop(chb);
        // SAFETY: the bytes stay valid while we read them: the slot is not written
        // again before we send the next batch on this pair (below), and `owned` is ours.
        let mut r = unsafe {
            match &owned {
                Some(b) => Reader::new(b.as_ptr(), b.len()),
                None => Reader::new(data, len),
            }
        };
        // Take this batch's continuations in one go (continuations may append new
        // ones to the same pair, behind them), then run them in request order.
        let mut conts = std::mem::take(&mut *self.cont_buf.borrow_mut());
        {
            let mut ch = self.channels[t].borrow_mut();
            debug_assert!(ch.conts.len() >= ncont, "continuation for every request");
            conts.extend(ch.conts.drain(..ncont));
            ch.completed += ncont as u64;
        }
        self.outstanding.set(self.outstanding.get() - ncont);
        {
            let _d = Delegated::enter(self);
            self.guard("an `apply_then` continuation", || {
                for cont in conts.drain(..) {
                    match cont {
                        Cont::Skip => {}
                        Cont::Wake { fid, out, read } => {
                            // SAFETY: `out` points into the parked fiber's stack frame,
                            // alive until we wake it; `read` matches the return type.
                            unsafe { read(&mut r, out) };
                            self.wake(fid);
                        }
                        Cont::Inline(f) => f.run(&mut r),
                        Cont::Then(f) => f(&mut r),
                    }
                }
            });
        }
        conts.clear();
        *self.cont_buf.borrow_mut() = conts;
        if ncont > 0 {
            self.notify_waiters();
        }
        let mut chb = self.channels[t].borrow_mut();
        if let Some(Inflight::Chunk { last: true }) = chb.inflight {
            chb.queue.pop_front();
        }
        chb.inflight = None;
        if let Some(mut b) = owned {
            b.clear();
            chb.reasm = b;
        }
        drop(chb);
        self.try_send(t);
    }

    /// Parks the running fiber until some outstanding request of this worker
    /// completes (used by `wait_outstanding`, which then re-checks).
    pub(crate) fn wait_for_completion(&self) {
        self.waiters.borrow_mut().push(self.current_fiber());
        self.park();
    }

    /// Wakes the fibers waiting in `wait_outstanding`.
    #[inline]
    fn notify_waiters(&self) {
        if !self.waiters.borrow().is_empty() {
            let ws = std::mem::take(&mut *self.waiters.borrow_mut());
            for fid in ws {
                self.wake(fid);
            }
        }
    }

    /// Snapshot of everything issued so far, for `wait_outstanding`.
    pub(crate) fn issued_marks(&self) -> (Vec<u64>, u64, u64) {
        let ch: Vec<u64> = self.channels.iter().map(|c| c.borrow().issued).collect();
        (ch, self.deferred_issued.get(), self.next_token.get())
    }

    /// True when everything in `marks` has completed.
    pub(crate) fn marks_done(&self, marks: &(Vec<u64>, u64, u64)) -> bool {
        self.channels
            .iter()
            .zip(&marks.0)
            .all(|(c, &m)| c.borrow().completed >= m)
            && self.deferred_done.get() >= marks.1
            && self
                .launches
                .borrow()
                .keys()
                .next()
                .is_none_or(|&k| k >= marks.2)
    }

    // ------------------------------------------------------------- trustee

    fn serve_all(&self) -> bool {
        let mut any = false;
        for c in 0..self.n() {
            let seen = self.serve.borrow()[c].seen;
            if let Some((seq, view)) = self.shared.transport.poll(Dir::Request, self.id, c, seen) {
                self.serve.borrow_mut()[c].seen = seq;
                any = true;
                self.serve_batch(c, seq, view);
            }
        }
        any
    }

    fn serve_batch(&self, c: usize, seq: u64, view: SlotView) {
        let (h, start) = match view.header() {
            Ok(x) => x,
            Err(e) => {
                return self.shared.poison(format!(
                    "gossamer: corrupt request slot from worker {c}: {}",
                    e.0
                ))
            }
        };
        if h.flags & flags::CONTINUE != 0 {
            return self.send_response_chunk(c, seq);
        }
        // SAFETY: the header check bounded `start + data_len` by the slot size.
        let data = unsafe { view.base.add(start) };
        let len = h.data_len as usize;
        let mut out = std::mem::take(&mut *self.resp.borrow_mut());
        out.clear();
        let t0 = Instant::now();
        let count;
        if h.flags & flags::CHUNK != 0 {
            let mut sv = self.serve.borrow_mut();
            sv[c].reasm.extend(data, len);
            if h.flags & flags::LAST == 0 {
                drop(sv);
                *self.resp.borrow_mut() = out;
                let empty = Header::default();
                self.write(Dir::Response, c, Body { ptr: data, len: 0 }, &empty, seq);
                return;
            }
            let mut whole = std::mem::take(&mut sv[c].reasm);
            drop(sv);
            // A chunked batch holds one full-pointer record (no cache).
            self.run_records(&Header::default(), whole.as_ptr(), whole.len(), 1, &mut out);
            whole.clear();
            self.serve.borrow_mut()[c].reasm = whole;
            count = 1;
        } else {
            self.run_records(&h, data, len, h.count, &mut out);
            count = h.count;
        }
        let st = &self.shared.stats[self.id];
        StatsCell::add(&st.busy_ns, t0.elapsed().as_nanos() as u64);
        StatsCell::add(&st.requests, count as u64);
        StatsCell::add(&st.batches, 1);
        if self.shared.fate.failed() {
            return;
        }
        let cap = slot::data_capacity(self.shared.slot_size);
        if out.len() <= cap {
            let rh = Header {
                data_len: out.len() as u32,
                count,
                ..Header::default()
            };
            self.write(
                Dir::Response,
                c,
                Body {
                    ptr: out.as_ptr(),
                    len: out.len(),
                },
                &rh,
                seq,
            );
            *self.resp.borrow_mut() = out;
        } else {
            self.serve.borrow_mut()[c].pending = Some((out, 0));
            *self.resp.borrow_mut() = AlignedBuf::with_capacity(self.shared.slot_size);
            self.send_response_chunk(c, seq);
        }
    }

    fn send_response_chunk(&self, c: usize, seq: u64) {
        let cap = slot::data_capacity(self.shared.slot_size) & !7;
        let mut sv = self.serve.borrow_mut();
        let Some((buf, sent)) = sv[c].pending.as_mut() else {
            drop(sv);
            return self.shared.poison(format!(
                "gossamer: worker {c} asked for a response chunk that does not exist"
            ));
        };
        let chunk = (buf.len() - *sent).min(cap);
        let more = *sent + chunk < buf.len();
        let h = Header {
            data_len: chunk as u32,
            flags: if more { flags::MORE } else { 0 },
            aux: buf.len() as u64,
            ..Header::default()
        };
        // SAFETY: `sent + chunk <= buf.len()`.
        let p = unsafe { buf.as_ptr().add(*sent) };
        self.write(Dir::Response, c, Body { ptr: p, len: chunk }, &h, seq);
        *sent += chunk;
        if !more {
            sv[c].pending = None;
        }
    }

    fn run_records(
        &self,
        h: &Header,
        data: *const u8,
        len: usize,
        count: u32,
        out: &mut AlignedBuf,
    ) {
        let _d = Delegated::enter(self);
        let res = catch_unwind(AssertUnwindSafe(|| {
            // SAFETY: `data..data+len` is the batch in local slot memory (or our
            // reassembly buffer), 8-aligned, not written until we answer.
            let mut r = unsafe { Reader::new(data, len) };
            for _ in 0..count {
                let code = h.resolve(r.u64());
                let prop = r.u64();
                let (lo, hi) = self.shared.place.code_bounds;
                if code < lo || code >= hi {
                    panic!(
                        "rejected a request whose code pointer {code:#x} does not lie in this \
                         binary's text ({lo:#x}..{hi:#x}); was the peer built from the same binary?"
                    );
                }
                // SAFETY: code words are addresses of `Trampoline`s written by a
                // gossamer client of this same binary (see `trust.rs`); the trampoline
                // reads exactly the record its client wrote.
                unsafe {
                    let f: Trampoline = std::mem::transmute::<usize, Trampoline>(code as usize);
                    f(prop, &mut r, out);
                }
            }
        }));
        if let Err(p) = res {
            let msg = panic_message(&*p);
            self.shared.poison(format!(
                "gossamer: a delegated closure panicked on trustee {}: {msg}",
                self.id
            ));
        }
    }

    // ---------------------------------------------------------------- loop

    /// Runs the scheduling loop until the runtime stops, then drops what is left.
    pub(crate) fn run(&self) {
        CURRENT.set(self as *const Worker);
        self.shared.parking.register(self.id);
        let sh = &self.shared;
        let mut idle_iters: u32 = 0;
        // Start of the current run of idle iterations (the clock is read only when
        // the loop switches between idle and busy).
        let mut idle_since: Option<Instant> = None;
        loop {
            let mut progress = self.drain_inbox();
            progress |= self.run_fibers();
            progress |= self.run_deferred();
            progress |= self.serve_all();
            progress |= self.poll_responses();
            for t in 0..self.n() {
                progress |= self.try_send(t);
            }
            if sh.fate.failed() || sh.stop.load(Ordering::Relaxed) {
                break;
            }
            let idle = self.sched.borrow().ready_len() == 0 && self.outstanding.get() == 0;
            if progress {
                sh.activity[self.id].store(
                    sh.activity[self.id].load(Ordering::Relaxed) + 1,
                    Ordering::SeqCst,
                );
            }
            if sh.idle[self.id].load(Ordering::Relaxed) != idle {
                sh.idle[self.id].store(idle, Ordering::SeqCst);
            }
            if progress {
                idle_iters = 0;
            } else {
                idle_iters = idle_iters.saturating_add(1);
                if self.id == 0
                    && !sh.place.rack
                    && idle
                    && sh.main_done.load(Ordering::SeqCst)
                    && sh.terminated()
                {
                    sh.stop.store(true, Ordering::SeqCst);
                    sh.wake_all();
                    break;
                }
                // Spin briefly, then yield: when workers outnumber free cores, a
                // spinning worker would otherwise hold the core its peer needs for
                // a whole time slice (sched_yield is cheap when nobody waits).
                if idle_iters < SPIN_ITERS {
                    std::hint::spin_loop();
                } else if idle_iters < YIELD_ITERS {
                    std::thread::yield_now();
                } else {
                    self.sleep();
                }
            }
            match (progress, idle_since) {
                (false, None) => idle_since = Some(Instant::now()),
                (true, Some(t0)) => {
                    StatsCell::add(&sh.stats[self.id].idle_ns, t0.elapsed().as_nanos() as u64);
                    idle_since = None;
                }
                _ => {}
            }
        }
        self.teardown();
        CURRENT.set(std::ptr::null());
    }

    fn teardown(&self) {
        self.stopping.set(true);
        self.sched.borrow_mut().abandon();
        // Properties still entrusted are dropped here, on their trustee.
        loop {
            let p = {
                let mut r = self.registry.borrow_mut();
                let Some(i) = r.props.iter().position(|p| !p.is_null()) else {
                    break;
                };
                let p = r.props[i];
                r.props[i] = std::ptr::null_mut();
                p
            };
            let _d = Delegated::enter(self);
            // SAFETY: registered properties are live and unregistered just above, so
            // each is dropped exactly once; trusts dropped meanwhile do nothing
            // (`stopping`).
            let _ = catch_unwind(AssertUnwindSafe(|| unsafe { ((*p).drop_fn)(p) }));
        }
        self.deferred.borrow_mut().clear();
        self.launches.borrow_mut().clear();
        for c in &self.channels {
            c.borrow_mut().conts.clear();
        }
    }
}
