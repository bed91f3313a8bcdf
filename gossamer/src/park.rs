//! Putting an idle worker thread to sleep and waking it up again.
//!
//! Each worker has a *sleeping word*: 1 while it is (about to be) asleep. A peer that
//! publishes work for a worker checks the word after a fence and wakes the sleeper.
//! In one process the words are plain atomics and sleeping is `thread::park`; in a
//! shared-memory rack the words live in the mapped region and sleeping is a futex wait
//! on the word, so a worker in another process can wake it (a non-private futex on a
//! shared mapping is keyed by the file page, not the address).

use std::sync::atomic::{fence, AtomicU32, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread::Thread;
use std::time::Duration;

enum Words {
    Local(Vec<AtomicU32>),
    /// `n` words in a mapping kept alive by `_keep`.
    Shared {
        base: *const AtomicU32,
        _keep: Arc<dyn Send + Sync>,
    },
}

/// Sleeping words and thread handles of every worker (indexed by global worker id).
pub(crate) struct Parking {
    n: usize,
    /// Longest sleep before a worker looks around again by itself
    /// ([`Config::nap`](crate::Config::nap)).
    nap: Duration,
    /// The same on a crowded host ([`Config::crowded_nap`](crate::Config::crowded_nap)).
    crowded_nap: Duration,
    threads: Vec<OnceLock<Thread>>,
    words: Words,
}

// SAFETY: the shared words are atomics in a mapping that `_keep` keeps alive for the
// lifetime of `Parking`; every access goes through `&AtomicU32`.
unsafe impl Send for Parking {}
// SAFETY: as above.
unsafe impl Sync for Parking {}

impl Parking {
    /// Sleeping words in process memory; a sleeper naps at most `nap`, or
    /// `crowded_nap` on a crowded host (both short for transports whose writers
    /// cannot wake it, like RDMA).
    pub(crate) fn local(n: usize, nap: Duration, crowded_nap: Duration) -> Self {
        Parking {
            n,
            nap,
            crowded_nap,
            threads: (0..n).map(|_| OnceLock::new()).collect(),
            words: Words::Local((0..n).map(|_| AtomicU32::new(0)).collect()),
        }
    }

    /// Sleeping words at `base` (`n` 4-byte aligned words inside a shared mapping that
    /// `keep` owns).
    ///
    /// # Safety
    /// `base` must point at `n` zero-initialised, 4-aligned words that stay mapped as
    /// long as `keep` lives and are only accessed atomically.
    pub(crate) unsafe fn shared(
        n: usize,
        base: *const AtomicU32,
        keep: Arc<dyn Send + Sync>,
        nap: Duration,
        crowded_nap: Duration,
    ) -> Self {
        Parking {
            n,
            nap,
            crowded_nap,
            threads: (0..n).map(|_| OnceLock::new()).collect(),
            words: Words::Shared { base, _keep: keep },
        }
    }

    #[inline(always)]
    fn word(&self, w: usize) -> &AtomicU32 {
        match &self.words {
            Words::Local(v) => &v[w],
            Words::Shared { base, .. } => {
                assert!(w < self.n);
                // SAFETY: `w < n` words at `base`, alive while `self` (constructor contract).
                unsafe { &*base.add(w) }
            }
        }
    }

    /// Records the calling thread as worker `w`'s thread.
    pub(crate) fn register(&self, w: usize) {
        let _ = self.threads[w].set(std::thread::current());
    }

    /// Wakes worker `w` if it is (about to be) asleep. Call after publishing work for
    /// it: the fence pairs with the one in [`Parking::sleep`], so either the sleeper
    /// sees the work or we see its word.
    #[inline]
    pub(crate) fn wake(&self, w: usize) {
        fence(Ordering::SeqCst);
        let word = self.word(w);
        if word.load(Ordering::Relaxed) != 0 {
            match &self.words {
                Words::Local(_) => {
                    if let Some(t) = self.threads[w].get() {
                        t.unpark();
                    }
                }
                Words::Shared { .. } => futex_wake(word),
            }
        }
    }

    /// True while worker `w` is (about to be) asleep.
    pub(crate) fn is_asleep(&self, w: usize) -> bool {
        self.word(w).load(Ordering::SeqCst) != 0
    }

    /// Wakes every worker.
    pub(crate) fn wake_all(&self) {
        for w in 0..self.n {
            self.wake(w);
        }
    }

    /// Puts worker `w` (the calling thread) to sleep for at most the nap (the
    /// crowded nap on a `crowded` host) unless `has_work()` says there is
    /// something to do after the sleeping word is set.
    pub(crate) fn sleep(&self, w: usize, crowded: bool, has_work: impl FnOnce() -> bool) {
        let nap = if crowded { self.crowded_nap } else { self.nap };
        let word = self.word(w);
        word.store(1, Ordering::SeqCst);
        fence(Ordering::SeqCst);
        if !has_work() {
            match &self.words {
                Words::Local(_) => std::thread::park_timeout(nap),
                Words::Shared { .. } => futex_wait(word, 1, nap),
            }
        }
        word.store(0, Ordering::Relaxed);
    }
}

fn futex_wait(word: &AtomicU32, expected: u32, timeout: Duration) {
    let ts = libc::timespec {
        tv_sec: timeout.as_secs() as libc::time_t,
        tv_nsec: timeout.subsec_nanos() as libc::c_long,
    };
    // SAFETY: FUTEX_WAIT reads the 4-byte word at a valid, aligned address and sleeps
    // at most `ts`; it writes nothing. A spurious or early return is harmless (the
    // caller re-checks for work).
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAIT,
            expected,
            &ts as *const libc::timespec,
        );
    }
}

fn futex_wake(word: &AtomicU32) {
    // SAFETY: FUTEX_WAKE only uses the address as a key; it touches no memory.
    unsafe {
        libc::syscall(libc::SYS_futex, word.as_ptr(), libc::FUTEX_WAKE, i32::MAX);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    /// Far longer than any test waits: a sleeper that is not woken stays asleep.
    const LONG: Duration = Duration::from_secs(600);
    /// How long a woken sleeper may take to report back (a hang guard).
    const GUARD: Duration = Duration::from_secs(20);

    /// Waits (at most `GUARD`) until `ready()`.
    fn until(what: &str, ready: impl Fn() -> bool) {
        let t0 = std::time::Instant::now();
        while !ready() {
            assert!(t0.elapsed() < GUARD, "{what}");
            std::thread::yield_now();
        }
    }

    /// True when thread `tid` of this process is blocked in the kernel.
    fn blocked(tid: i32) -> bool {
        let stat = std::fs::read_to_string(format!("/proc/self/task/{tid}/stat"));
        // The state follows the command name, which ends with the last ')'.
        stat.ok()
            .and_then(|s| {
                s.rsplit_once(')')
                    .map(|(_, rest)| rest.trim_start().starts_with('S'))
            })
            .unwrap_or(false)
    }

    /// Puts worker `w` of `p` to sleep on another thread (with naps of `LONG`,
    /// nothing to do), waits until it sleeps in the kernel, wakes it once and
    /// fails unless it wakes up: a lost wake fails the test after `GUARD`
    /// instead of hanging it.
    fn one_wake_reaches_the_sleeper(p: Arc<Parking>, w: usize) {
        let (tx, rx) = mpsc::channel();
        let p2 = p.clone();
        std::thread::spawn(move || {
            p2.register(w);
            // SAFETY: gettid has no preconditions.
            tx.send(("asleep", unsafe { libc::gettid() })).unwrap();
            p2.sleep(w, false, || false);
            tx.send(("awake", 0)).unwrap();
        });
        let (_, tid) = rx.recv_timeout(GUARD).expect("the sleeper started");
        until("the worker's sleeping word is set", || p.is_asleep(w));
        until("the sleeper blocks", || blocked(tid));
        p.wake(w);
        let got = rx.recv_timeout(GUARD);
        assert_eq!(
            got.map(|(what, _)| what),
            Ok("awake"),
            "the wake was lost: the sleeper still sleeps"
        );
        assert!(!p.is_asleep(w));
    }

    #[test]
    fn a_wake_reaches_a_parked_thread() {
        one_wake_reaches_the_sleeper(Arc::new(Parking::local(2, LONG, LONG)), 1);
    }

    #[test]
    fn a_wake_reaches_a_futex_sleeper() {
        let words: Arc<Vec<AtomicU32>> = Arc::new((0..2).map(|_| AtomicU32::new(0)).collect());
        let base = words.as_ptr();
        // SAFETY: two zeroed atomics kept alive by `words`.
        let p = unsafe { Parking::shared(2, base, words.clone(), LONG, LONG) };
        one_wake_reaches_the_sleeper(Arc::new(p), 0);
        assert_eq!(words[0].load(Ordering::SeqCst), 0);
    }
}
