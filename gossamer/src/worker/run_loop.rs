//! The scheduling loop (its steps are listed in `mod.rs`): run until the runtime
//! stops, spinning, then yielding the thread, then sleeping when idle; worker 0 of
//! a single process also decides termination here. Teardown drops the properties
//! still entrusted, each on its trustee.

use super::{Delegated, Worker, CURRENT};
use crate::transport::{any_mark, Dir};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;

impl Worker {
    /// Runs the scheduling loop until the runtime stops, then drops what is left.
    pub(crate) fn run(&self) {
        CURRENT.set(self as *const Worker);
        self.shared.parking.register(self.id);
        let sh = &self.shared;
        let mut idle_iters: u32 = 0;
        // How long to spin, then yield, before sleeping (`Config::spin_iters`
        // and friends). On a crowded host a spinning worker holds a core that a
        // peer with work (often the one it waits for) needs: give it away at
        // once, and sleep soon, leaving the cores to those with work (a peer's
        // write wakes it).
        let c = &sh.config;
        let spin_iters = if sh.crowded { 0 } else { c.spin_iters };
        let yield_iters = if sh.crowded {
            c.crowded_yield_iters
        } else {
            c.yield_iters
        };
        loop {
            let mut progress = self.shared.transport.pump();
            progress |= self.drain_inbox();
            progress |= self.run_fibers();
            progress |= self.run_deferred();
            progress |= self.serve_all();
            progress |= self.poll_responses();
            progress |= self.chase_step();
            progress |= self.send_queued();
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
                // Nothing to do: idle (or waiting in a collective) from here
                // until a step finds work (see `activity.rs`).
                self.enter_idle();
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
                if idle_iters < spin_iters {
                    std::hint::spin_loop();
                } else if idle_iters < yield_iters {
                    std::thread::yield_now();
                } else {
                    self.sleep();
                }
            }
        }
        self.flush_activity();
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
        self.free_tombs();
        self.deferred.borrow_mut().clear();
        self.launches.borrow_mut().clear();
        for c in &self.channels {
            c.borrow_mut().conts.clear();
        }
    }

    /// True when a slot this worker polls holds a new batch, or mail is waiting.
    fn has_incoming(&self) -> bool {
        let sh = &self.shared;
        if sh.inbox[self.id].is_waiting() {
            return true;
        }
        let t = &sh.transport;
        if let (Some(req), Some(resp)) = (
            t.marks(Dir::Request, self.id),
            t.marks(Dir::Response, self.id),
        ) {
            return any_mark(req) || any_mark(resp);
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
        sh.parking.sleep(self.id, sh.crowded, || {
            // Our sleeping word is set: a transport that needs our loop to read
            // its sockets hands that to its own thread now.
            sh.transport.arm();
            self.has_incoming() || sh.stop.load(Ordering::SeqCst) || sh.fate.failed()
        });
    }
}
