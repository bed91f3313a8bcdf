//! Where a run's wall time went: every phase of this process from its
//! start (parsing, loading, the runtime's start, construction, each
//! kernel's untimed set-up, the searches, validation, dumps, the runtime's
//! teardown), so that a report accounts for every second, and the time
//! to the first answer (process start to the first search's answer).
//!
//! Phases are recorded by name as they end (a name recorded twice adds
//! up), from any thread: the searches run in a fiber of the runtime. The
//! report lists them in the order they first ended, then `other`: what no
//! phase covers (argument checks, choosing roots, writing the report).

use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use serde::Serialize;

static START: OnceLock<Instant> = OnceLock::new();
static LOG: Mutex<Vec<(&'static str, f64)>> = Mutex::new(Vec::new());
static FIRST_ANSWER: OnceLock<f64> = OnceLock::new();

/// Marks the process's start; call first thing in `main`.
pub fn start() {
    START.get_or_init(Instant::now);
}

/// Seconds since [`start`].
fn since_start() -> f64 {
    START.get_or_init(Instant::now).elapsed().as_secs_f64()
}

/// Adds `seconds` to the phase `name`.
pub fn add(name: &'static str, seconds: f64) {
    let mut log = LOG.lock().unwrap_or_else(|p| p.into_inner());
    match log.iter_mut().find(|(n, _)| *n == name) {
        Some((_, s)) => *s += seconds,
        None => log.push((name, seconds)),
    }
}

/// Runs `f` and adds its wall time to the phase `name`.
pub fn time<T>(name: &'static str, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let out = f();
    add(name, t.elapsed().as_secs_f64());
    out
}

/// Notes that the first answer is in (later calls change nothing).
pub fn first_answer() {
    FIRST_ANSWER.get_or_init(since_start);
}

/// One phase in a report.
#[derive(Clone, Debug, Serialize)]
pub struct Phase {
    pub name: &'static str,
    pub seconds: f64,
}

/// This process's wall time so far, by phase.
#[derive(Clone, Debug, Serialize)]
pub struct WallTime {
    /// Seconds since the process started.
    pub total_s: f64,
    /// Seconds from the process's start to the first search's answer
    /// (`None` before one).
    pub first_answer_s: Option<f64>,
    /// The phases in the order they first ended; the last, `other`, is
    /// the time no phase covers.
    pub phases: Vec<Phase>,
}

/// The wall time so far (see [`WallTime`]).
pub fn wall_time() -> WallTime {
    let total_s = since_start();
    let log = LOG.lock().unwrap_or_else(|p| p.into_inner());
    let mut phases: Vec<Phase> = log
        .iter()
        .map(|&(name, seconds)| Phase { name, seconds })
        .collect();
    let covered: f64 = phases.iter().map(|p| p.seconds).sum();
    phases.push(Phase {
        name: "other",
        seconds: (total_s - covered).max(0.0),
    });
    WallTime {
        total_s,
        first_answer_s: FIRST_ANSWER.get().copied(),
        phases,
    }
}

impl WallTime {
    /// One line for the human-readable reports: `wall 5.130 s so far:
    /// load 0.010, construction 1.570, ...; first answer after 2.100 s`
    /// (phases under half a millisecond left out; the JSON has them all).
    pub fn line(&self) -> String {
        let parts: Vec<String> = self
            .phases
            .iter()
            .filter(|p| p.seconds >= 0.0005)
            .map(|p| format!("{} {:.3}", p.name, p.seconds))
            .collect();
        let first = self
            .first_answer_s
            .map(|s| format!("; first answer after {s:.3} s"))
            .unwrap_or_default();
        format!(
            "wall {:.3} s so far: {}{first}\n",
            self.total_s,
            parts.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_add_up_and_other_takes_the_rest() {
        start();
        add("test load", 0.25);
        time("test build", || {
            std::thread::sleep(std::time::Duration::from_millis(5))
        });
        add("test load", 0.5);
        first_answer();
        let w = wall_time();
        let load = w.phases.iter().find(|p| p.name == "test load").unwrap();
        assert_eq!(load.seconds, 0.75);
        let build = w.phases.iter().find(|p| p.name == "test build").unwrap();
        assert!(build.seconds >= 0.005, "{build:?}");
        assert_eq!(w.phases.last().unwrap().name, "other");
        assert!(w.first_answer_s.unwrap() <= w.total_s);
        let line = w.line();
        assert!(line.contains("test load 0.750"), "{line}");
        assert!(line.contains("first answer after"), "{line}");
    }
}
