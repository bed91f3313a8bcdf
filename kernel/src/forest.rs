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
//! [`Forest::flatten`] compresses a parent forest to stars on every
//! trustee once no link is in flight, in turns of compress and publish
//! until such a turn. A vertex whose walk ended at a vertex of this
//! process ended at a real root (this process's words are current); only
//! those whose walk ended in another process are walked again, and only
//! in a process that was sent words since.
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

use gossamer::{Delegable, Op};

use crate::adjacency::Adjacency;
use crate::replica::{Replica, Words};
use crate::run::Setup;
use crate::{Kernel, Program};

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
    /// This process's flat ids (its trustees' runs, when they are one
    /// range; else this trustee's own run).
    here: (u32, u32),
    /// This process's bit in [`flatten`](Self::flatten)'s all-reduce of
    /// who sent (0 past 64 processes: then every turn compresses).
    bit: u64,
    /// Own flat ids whose root was in another process at the last
    /// [`compress`](Self::compress), and the own roots counted by the last
    /// whole one.
    remote: Vec<u32>,
    roots: u64,
    /// Own vertices walked again by repeated turns since the last
    /// [`reset`](Self::reset) ([`rewalked`](Self::rewalked)).
    rewalked: u64,
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
        // Trustee t runs on worker t.
        let process = |t: usize| gossamer::process_of(gossamer::WorkerId(t));
        let ts = a.num_trustees();
        let mine: Vec<usize> = (0..ts)
            .filter(|&t| process(t) == process(a.me() as usize))
            .collect();
        let (first, last) = (mine[0], mine[mine.len() - 1]);
        let here = if last - first + 1 == mine.len() {
            (a.base(first), a.base(last + 1))
        } else {
            (own.start as u32, own.end as u32)
        };
        let processes = process(ts - 1) + 1;
        Forest {
            here,
            bit: if processes <= 64 {
                1 << process(a.me() as usize)
            } else {
                0
            },
            remote: Vec::new(),
            roots: 0,
            rewalked: 0,
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

    /// Sets the words of this trustee's share of the flat ids
    /// ([`Adjacency::fill_share`]: its own, and its share of the other
    /// processes', so that each is filled by one trustee of every process)
    /// to `word(flat id)`, then [`reset`](Self::reset)s: every process
    /// fills the same words alike, and nothing is sent. Call on every
    /// trustee, then a collective ([`Kernel::sync`](crate::Kernel::sync))
    /// before any trustee reads a word of another or exposes a vertex.
    pub fn fill(&mut self, a: &Adjacency, word: impl Fn(u32) -> u64) {
        for f in a.fill_share().into_iter().flatten() {
            self.words.set(f, word(f as u32));
        }
        self.reset();
    }

    /// Starts a run: every other process holds the words as they are now
    /// (filled in alike everywhere), and only the boundary is exposed. Call
    /// on every trustee before any of them exposes a vertex (in a
    /// [`run`](crate::run)'s `init`).
    pub fn reset(&mut self) {
        self.rewalked = 0;
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

    /// Points every own word at the root of its tree (a word that names
    /// its own vertex), walking up from it; returns the words changed and
    /// the own roots. In one process that leaves stars. Across processes a
    /// walk may end at a vertex of another process whose word here is
    /// older than its owner's: such own vertices are noted, and with
    /// `again` only they are walked (the others point at roots of this
    /// process, which no compress changes). See [`flatten`](Self::flatten).
    pub fn compress(&mut self, again: bool) -> [u64; 2] {
        let (w, (lo, hi)) = (&*self.words, self.here);
        let outside = |r: u64| (r as u32).wrapping_sub(lo) >= hi - lo;
        let root = |p: u64| {
            let mut r = p;
            while w.get(r as u32 as usize) != r {
                r = w.get(r as u32 as usize);
            }
            r
        };
        let mut changed = 0;
        if again {
            self.rewalked += self.remote.len() as u64;
            let mut kept = 0;
            for i in 0..self.remote.len() {
                let f = self.remote[i] as usize;
                let (p, r) = (w.get(f), root(w.get(f)));
                if r != p {
                    w.set(f, r);
                    changed += 1;
                }
                self.remote[kept] = f as u32;
                kept += usize::from(outside(r));
            }
            self.remote.truncate(kept);
            return [changed, self.roots];
        }
        let mut roots = 0;
        self.remote.clear();
        for f in self.lo..self.lo + self.n {
            let p = w.get(f);
            let r = root(p);
            if r != p {
                w.set(f, r);
                changed += 1;
            }
            roots += u64::from(r as u32 == f as u32);
            if !self.alone && outside(r) {
                self.remote.push(f as u32);
            }
        }
        self.roots = roots;
        [changed, roots]
    }

    /// Points the own exposed words (those other processes can read) at
    /// the roots of their trees, walking up from them; returns how many
    /// changed, or `None` when there is nothing to do so (one process, or
    /// whole runs published: every own word is exposed, and the whole
    /// compress comes next anyway). The same on every trustee of a run.
    fn compress_exposed(&mut self) -> Option<u64> {
        if self.alone || self.whole == Some(true) {
            return None;
        }
        while self.take_new() {}
        let w = &*self.words;
        let mut changed = 0;
        for &f in &self.list {
            let p = w.get(f as usize);
            let mut r = p;
            while w.get(r as u32 as usize) != r {
                r = w.get(r as u32 as usize);
            }
            if r != p {
                w.set(f as usize, r);
                changed += 1;
            }
        }
        Some(changed)
    }

    /// Flattens the forest `forest` finds in every trustee's state to stars
    /// on every trustee, once no link is in flight: [`compress`](Self::compress),
    /// then [`Kernel::publish_forest`], repeated until a turn in which no
    /// trustee sent anything (then every word a compress read was current).
    /// A repeated turn walks only from the own vertices whose root was in
    /// another process, and only in a process that was sent words in the
    /// turn before (else its walks would end where they did). In a rack
    /// job the exposed own words are walked up and sent first, behind a
    /// barrier, so that the first whole compress reads them current and a
    /// repeated turn rarely finds anything to walk. `linked`:
    /// whether any own word may have changed since the last publish.
    /// Returns the roots over all trustees. Collective.
    pub fn flatten<P: Program>(
        k: &mut Kernel<P>,
        forest: impl Fn(&mut P) -> &mut Forest + Delegable,
        linked: bool,
    ) -> u64 {
        let (mut again, mut changed) = (false, linked);
        let mut received = true;
        // In a rack job, the words other processes read first: walked up
        // and sent, then a barrier, so that the whole compress below reads
        // them current. On a grid cut into blocks the later process's
        // vertices mostly have their roots in the earlier one; without this
        // its whole compress ended at those vertices' old words, and a
        // second turn walked its vertices again while the other process
        // waited (results/kernels/road.md).
        let early = k.with(move |l| forest(l.state()).compress_exposed());
        if early.is_some() {
            k.publish_forest(forest, linked);
            k.sync();
        }
        loop {
            let [c, roots, bit] = k.with(move |l| {
                let f = forest(l.state());
                let c = if received { f.compress(again)[0] } else { 0 };
                [c, f.roots, f.bit]
            });
            let sent = k.publish_forest(forest, changed || c > 0);
            let from = if sent > 0 { bit } else { 0 };
            let [sent, roots, from] = k.reduce([sent, roots, from], [Op::Sum, Op::Sum, Op::Or]);
            if sent == 0 {
                return roots;
            }
            received = bit == 0 || from & !bit != 0;
            (again, changed) = (true, false);
        }
    }

    /// Own vertices that [`flatten`](Self::flatten)'s repeated turns
    /// walked again since the run started (the last [`reset`](Self::reset)):
    /// the price of reading another process's words before it sent them.
    pub fn rewalked(&self) -> u64 {
        self.rewalked
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

    /// Whether this forest publishes changed words one by one to other
    /// trustees (it shares its words, and whole runs were not chosen at
    /// the first publish): a forest cut into blocks with a thin boundary,
    /// such as a grid's, rather than one whose words are all exposed.
    pub fn publishes_pairs(&self) -> bool {
        !self.alone && self.whole == Some(false)
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
