//! How far this process's trustees are in a build
//! ([`ShardedGraph::build_from`](crate::sharded::ShardedGraph::build_from)),
//! for a progress display: edges of this process's slices done in each
//! step, out of their total. The builder resets the counts when it starts
//! (on its own process; a rack job's other ranks count too, for nobody);
//! the trustees add to them chunk by chunk. A display polls
//! [`build_progress`] from a thread of its own.

use std::sync::atomic::{AtomicU64, Ordering};

/// A step of the build whose edges are counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuildStep {
    /// 0, check: each trustee checks its slice of a graph file.
    Checking,
    /// 1, count: each trustee reads (or generates) its slice and counts
    /// degrees.
    Counting,
    /// 2, fill: each trustee reads its slice again (or the part it did not
    /// keep) and places every entry.
    Placing,
}

/// A snapshot of the counts: edges of this process's slices done in each
/// step, out of `total` (each step goes over every edge once).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BuildProgress {
    /// Edges in this process's trustees' slices.
    pub total: u64,
    /// Edges checked (step 0; stays 0 for a source that needs no check).
    pub checked: u64,
    /// Edges counted (step 1).
    pub counted: u64,
    /// Edges placed (step 2).
    pub placed: u64,
}

impl BuildProgress {
    /// The step under way (the latest that has begun) and its edges done.
    pub fn current(&self) -> Option<(BuildStep, u64)> {
        if self.placed > 0 {
            Some((BuildStep::Placing, self.placed))
        } else if self.counted > 0 {
            Some((BuildStep::Counting, self.counted))
        } else if self.checked > 0 {
            Some((BuildStep::Checking, self.checked))
        } else {
            None
        }
    }
}

static TOTAL: AtomicU64 = AtomicU64::new(0);
static DONE: [AtomicU64; 3] = [AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0)];

/// The counts of the build under way in this process (or of the last one).
pub fn build_progress() -> BuildProgress {
    let done = |s: BuildStep| DONE[s as usize].load(Ordering::Relaxed);
    BuildProgress {
        total: TOTAL.load(Ordering::Relaxed),
        checked: done(BuildStep::Checking),
        counted: done(BuildStep::Counting),
        placed: done(BuildStep::Placing),
    }
}

/// A build of `total` edges in this process's slices begins.
pub(crate) fn begin(total: u64) {
    for d in &DONE {
        d.store(0, Ordering::Relaxed);
    }
    TOTAL.store(total, Ordering::Relaxed);
}

/// `edges` more edges went through `step`.
pub(crate) fn add(step: BuildStep, edges: u64) {
    DONE[step as usize].fetch_add(edges, Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_current_step_is_the_latest_begun() {
        let mut p = BuildProgress {
            total: 10,
            ..BuildProgress::default()
        };
        assert_eq!(p.current(), None);
        p.checked = 10;
        assert_eq!(p.current(), Some((BuildStep::Checking, 10)));
        p.counted = 4;
        assert_eq!(p.current(), Some((BuildStep::Counting, 4)));
        p.placed = 1;
        assert_eq!(p.current(), Some((BuildStep::Placing, 1)));
    }
}
