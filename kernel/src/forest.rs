//! [`Forest`]: a per-vertex [`Replica`] whose words name vertices (the
//! low 32 bits of a word: the flat id of the vertex it names; a union-find
//! parent forest, a label that is a vertex), published to the
//! other processes only where they can read it
//! ([`Kernel::publish_forest`](crate::Kernel::publish_forest)).
//!
//! Another process reads the word of one of this trustee's vertices only
//! when it knows that vertex: the vertex is in one of its rows or in-rows
//! (the boundary both ways, [`Adjacency::boundary_both_ways`]), or it read
//! the vertex's name in a word or a message. So the *exposed* vertices are
//! the boundary, every vertex named by a word published and every vertex
//! named in a message ([`Forest::expose`]); a publish sends the exposed own
//! words that changed since they were last sent, as `(index, word)` pairs,
//! and exposes the vertices those words name (an own one at once, one of
//! another trustee of this process through a per-process bitmap, at that
//! trustee's next publish). A vertex of another process named in a word
//! was exposed by its owner already: that is how this process learnt it.
//!
//! What another process reads is then either the current word or one
//! published earlier, or the word it filled in before the run
//! ([`Adjacency::fill_share`]): a kernel that uses a `Forest` must accept
//! an older word in place of the current one (a union-find parent read
//! late is still an ancestor). A turn of publishes in which no trustee
//! sends anything leaves every process's copy of every word it can read
//! current.
//!
//! On a grid cut into blocks the boundary is a row of vertices; on a
//! scrambled Kronecker graph split over processes it is nearly every
//! vertex, and then (decided over all trustees at the first publish, so
//! that none relies on another's exposing) every trustee publishes its
//! whole run of words whenever any of them changed, as
//! [`Kernel::publish`](crate::Kernel::publish) does, and tracks nothing.
//! A kernel makes that first publish (which sends nothing) before its
//! clock starts, as it prepares its state.

use std::ops::Deref;
use std::sync::Arc;

use crate::adjacency::Adjacency;
use crate::replica::{Replica, Words};
use crate::run::Setup;

/// A per-vertex replica of vertex names that knows which own words other
/// processes can read; see the module docs. Dereferences to the
/// [`Replica`] of the words.
#[derive(Debug)]
pub struct Forest {
    words: Arc<Replica>,
    /// Exposed vertices, one bit per flat id, shared by this process's
    /// trustees (any of them sets any bit).
    exposed: Arc<Replica>,
    /// Own positions of the boundary (exposed at every [`reset`](Self::reset)).
    boundary: Vec<u32>,
    /// Own flat ids exposed, and the word each last had when sent (or
    /// when the run started).
    list: Vec<u32>,
    last: Vec<u64>,
    /// The own words of `exposed` as they were when last taken into `list`.
    seen: Vec<u64>,
    /// First own flat id and number of own vertices.
    lo: usize,
    n: usize,
    alone: bool,
    /// Publish whole runs (decided at the first publish, over all trustees).
    whole: Option<bool>,
}

impl Forest {
    /// This process's forest `name` (one word per flat id, as
    /// [`Replica::per_vertex`]) with its bitmap of exposed vertices
    /// `exposed_name`, for the trustee of `s`: finds the boundary (one pass
    /// over the rows and in-rows; none in one process). Call
    /// [`reset`](Self::reset) once the words are filled in.
    pub fn new(s: &Setup<'_>, name: &'static str, exposed_name: &'static str) -> Self {
        let a: &Adjacency = s.adjacency();
        let own = a.own_flat();
        Forest {
            words: Replica::per_vertex(a, name),
            exposed: Replica::bitmap(a, exposed_name),
            boundary: a.boundary_both_ways(s.shard()),
            list: Vec::new(),
            last: Vec::new(),
            seen: vec![0; own.len().div_ceil(64)],
            lo: own.start,
            n: own.len(),
            alone: a.is_alone(),
            whole: None,
        }
    }

    /// Starts a run: every other process holds the words as they are now
    /// (filled in alike everywhere), and only the boundary is exposed. Call
    /// on every trustee before any of them exposes a vertex (in a
    /// [`run`](crate::run)'s `init`).
    pub fn reset(&mut self) {
        if self.alone || self.whole == Some(true) {
            return; // nothing to track
        }
        self.seen.fill(0);
        self.list.clear();
        self.last.clear();
        for &v in &self.boundary {
            let f = self.lo + v as usize;
            self.seen[(f - self.lo) / 64] |= 1 << (f % 64);
            self.list.push(f as u32);
            self.last.push(self.words.get(f));
        }
        // No other trustee of the process sets bits before the run starts.
        self.exposed.store(self.lo / 64, &self.seen);
    }

    /// Marks flat id `f` as known to another process (named in a message
    /// to it): its owner publishes its word from then on.
    #[inline]
    pub fn expose(&self, f: u32) {
        if !self.alone && self.whole != Some(true) {
            self.exposed.set_bit_shared(f);
        }
    }

    /// True when the graph has no other process (nothing is published).
    pub fn is_alone(&self) -> bool {
        self.alone
    }

    /// More exposed vertices than a quarter of the own ones.
    pub(crate) fn is_wide(&self) -> bool {
        self.list.len() > self.n / 4
    }

    /// Whether whole runs are published (`None`: not decided yet).
    pub(crate) fn whole(&self) -> Option<bool> {
        self.whole
    }

    /// Settles whether whole runs are published, from then on; the lists
    /// are dropped if they are.
    pub(crate) fn set_whole(&mut self, whole: bool) {
        self.whole = Some(whole);
        if whole {
            (self.boundary, self.list, self.last) = Default::default();
        }
    }

    /// Takes the own vertices exposed since the last call into the list,
    /// each to be sent (its last word set to differ); false if none.
    fn take_new(&mut self) -> bool {
        let w = self.lo / 64;
        let mut any = false;
        for (i, seen) in self.seen.iter_mut().enumerate() {
            let bits = self.exposed.get(w + i);
            let mut new = bits & !*seen;
            *seen = bits;
            while new != 0 {
                let f = (w + i) * 64 + new.trailing_zeros() as usize;
                new &= new - 1;
                if f < self.lo + self.n {
                    self.list.push(f as u32);
                    self.last.push(!self.words.get(f));
                    any = true;
                }
            }
        }
        any
    }

    /// What to send: the whole run, or the exposed words that changed as
    /// pairs (exposing the vertices they name, own ones at once).
    pub(crate) fn changed(&mut self) -> Words {
        if self.whole == Some(true) {
            return Words::Run(self.lo, self.words.load(self.lo..self.lo + self.n));
        }
        let mut pairs = Vec::new();
        let mut i = 0;
        loop {
            while i < self.list.len() {
                let f = self.list[i] as usize;
                let x = self.words.get(f);
                if x != self.last[i] {
                    self.last[i] = x;
                    pairs.extend([f as u64, x]);
                    self.exposed.set_bit_shared(x as u32);
                }
                i += 1;
            }
            if !self.take_new() {
                return Words::Pairs(pairs);
            }
        }
    }
}

impl Deref for Forest {
    type Target = Replica;

    fn deref(&self) -> &Replica {
        &self.words
    }
}
