//! [`Frontier`]: the active vertices of one trustee, as a queue while few and a
//! bitmap always.

/// How a trustee's frontier is stored and iterated; see [`Frontier`].
///
/// ```
/// use graph_kernel::FrontierMode;
/// assert_eq!(FrontierMode::default(), FrontierMode::Auto);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum FrontierMode {
    /// A queue while the frontier holds at most 1/16 of the trustee's vertices,
    /// then the bitmap only (iterated in vertex order).
    #[default]
    Auto,
    /// Always the queue (iterated in activation order).
    Sparse,
    /// Always the bitmap (iterated in vertex order).
    Dense,
}

/// The active vertices (local indices) of one trustee.
///
/// Membership is a bitmap over the trustee's vertices (one bit each). While the
/// frontier is small it is also kept as a queue (sparse: iteration and clearing
/// cost the frontier's size); once it grows past the [`FrontierMode`]'s limit
/// the queue is dropped and iteration scans the bitmap (dense: one word per 64
/// vertices, in vertex order, which suits large frontiers).
///
/// A kernel reads the current frontier with [`Local::is_active`](crate::Local::is_active)
/// and [`Local::frontier`](crate::Local::frontier), and fills the next one with
/// [`Local::activate`](crate::Local::activate) or by returning `true` from
/// [`Program::receive`](crate::Program::receive).
///
/// ```
/// use graph_kernel::{Frontier, FrontierMode};
/// let mut f = Frontier::new(1000, FrontierMode::Auto);
/// assert!(f.insert(7) && !f.insert(7)); // a second activation is a no-op
/// f.insert(3);
/// assert_eq!((f.len(), f.is_sparse()), (2, true));
/// assert_eq!(f.iter().collect::<Vec<_>>(), [7, 3]); // queue: activation order
/// for v in 0..100 { f.insert(v); }
/// assert!(!f.is_sparse()); // past 1000 / 16 vertices: bitmap only
/// assert_eq!(f.iter().take(3).collect::<Vec<_>>(), [0, 1, 2]); // vertex order
/// assert!(f.contains(99) && !f.contains(100));
/// ```
#[derive(Clone, Debug)]
pub struct Frontier {
    bits: Vec<u64>,
    queue: Vec<u32>,
    len: usize,
    n: u32,
    cap: usize,
    dense: bool,
}

impl Frontier {
    /// An empty frontier over `n` vertices.
    ///
    /// ```
    /// let f = graph_kernel::Frontier::new(10, graph_kernel::FrontierMode::Dense);
    /// assert!(f.is_empty() && !f.is_sparse());
    /// ```
    pub fn new(n: u32, mode: FrontierMode) -> Self {
        let cap = Self::cap_of(n, mode);
        Frontier {
            bits: vec![0; (n as usize).div_ceil(64)],
            queue: Vec::new(),
            len: 0,
            n,
            cap,
            dense: cap == 0,
        }
    }

    /// Adds `v`; true when it was not active yet. Panics if `v >= n`.
    ///
    /// ```
    /// let mut f = graph_kernel::Frontier::new(10, Default::default());
    /// assert!(f.insert(9));
    /// assert!(!f.insert(9));
    /// ```
    #[inline]
    pub fn insert(&mut self, v: u32) -> bool {
        let (w, b) = ((v >> 6) as usize, 1u64 << (v & 63));
        if self.bits[w] & b != 0 {
            return false;
        }
        self.bits[w] |= b;
        self.len += 1;
        if !self.dense {
            if self.queue.len() < self.cap {
                self.queue.push(v);
            } else {
                self.dense = true;
                self.queue = Vec::new();
            }
        }
        true
    }

    /// Activates every vertex.
    ///
    /// ```
    /// let mut f = graph_kernel::Frontier::new(70, Default::default());
    /// f.insert_all();
    /// assert_eq!((f.len(), f.iter().count()), (70, 70));
    /// ```
    pub fn insert_all(&mut self) {
        self.bits.fill(u64::MAX);
        if !self.n.is_multiple_of(64) {
            if let Some(last) = self.bits.last_mut() {
                *last = (1u64 << (self.n % 64)) - 1;
            }
        }
        self.len = self.n as usize;
        if !self.dense && self.len > self.cap {
            self.dense = true;
            self.queue = Vec::new();
        } else if !self.dense {
            self.queue = (0..self.n).collect();
        }
    }

    /// True when `v` is active. Panics if `v >= n`.
    ///
    /// ```
    /// let mut f = graph_kernel::Frontier::new(10, Default::default());
    /// f.insert(4);
    /// assert!(f.contains(4) && !f.contains(5));
    /// ```
    #[inline]
    pub fn contains(&self, v: u32) -> bool {
        self.bits[(v >> 6) as usize] & (1u64 << (v & 63)) != 0
    }

    /// Number of active vertices.
    ///
    /// ```
    /// let mut f = graph_kernel::Frontier::new(10, Default::default());
    /// f.insert(1); f.insert(2); f.insert(1);
    /// assert_eq!(f.len(), 2);
    /// ```
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when no vertex is active.
    ///
    /// ```
    /// assert!(graph_kernel::Frontier::new(10, Default::default()).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The membership bitmap: vertex `v` is bit `v % 64` of word `v / 64`
    /// (kept in both modes).
    pub fn words(&self) -> &[u64] {
        &self.bits
    }

    /// True while the frontier is kept as a queue (see [`FrontierMode`]).
    ///
    /// ```
    /// let f = graph_kernel::Frontier::new(10, graph_kernel::FrontierMode::Sparse);
    /// assert!(f.is_sparse());
    /// ```
    pub fn is_sparse(&self) -> bool {
        !self.dense
    }

    /// The active vertices: activation order while sparse, vertex order when dense.
    ///
    /// ```
    /// let mut f = graph_kernel::Frontier::new(10, graph_kernel::FrontierMode::Dense);
    /// f.insert(5); f.insert(2);
    /// assert_eq!(f.iter().collect::<Vec<_>>(), [2, 5]);
    /// ```
    pub fn iter(&self) -> Members<'_> {
        let (queue, words): (&[u32], &[u64]) = if self.dense {
            (&[], &self.bits)
        } else {
            (&self.queue, &[])
        };
        Members {
            queue: queue.iter(),
            words: words.iter(),
            word: 0,
            base: 0u32.wrapping_sub(64),
        }
    }

    /// The active vertex at or after position `*pos` of the iteration order,
    /// advancing `*pos` past it (positions are queue indices while sparse and
    /// vertex indices when dense).
    #[inline]
    pub(crate) fn at(&self, pos: &mut usize) -> Option<u32> {
        if !self.dense {
            let v = self.queue.get(*pos).copied();
            *pos += 1;
            return v;
        }
        while *pos < self.n as usize {
            let w = *pos >> 6;
            let word = self.bits[w] >> (*pos & 63);
            if word == 0 {
                *pos = (w + 1) << 6;
                continue;
            }
            let v = *pos + word.trailing_zeros() as usize;
            *pos = v + 1;
            return Some(v as u32);
        }
        None
    }

    /// The vertex at place `i` of the queue while the frontier is sparse
    /// (what [`at`](Self::at) gives `i` places on), `None` when dense.
    #[inline(always)]
    pub(crate) fn queued(&self, i: usize) -> Option<u32> {
        match self.dense {
            false => self.queue.get(i).copied(),
            true => None,
        }
    }

    /// Empties the frontier (cost: its size while sparse, `n / 64` words when dense).
    ///
    /// ```
    /// let mut f = graph_kernel::Frontier::new(10, Default::default());
    /// f.insert(3);
    /// f.clear();
    /// assert!(f.is_empty() && !f.contains(3));
    /// ```
    pub fn clear(&mut self) {
        if self.dense {
            self.bits.fill(0);
        } else {
            for &v in &self.queue {
                self.bits[(v >> 6) as usize] = 0;
            }
        }
        self.queue.clear();
        self.len = 0;
        self.dense = self.cap == 0;
    }

    /// Changes how the frontier is kept from its next [`clear`](Self::clear) on
    /// (forcing [`FrontierMode::Dense`] takes effect at once).
    ///
    /// ```
    /// use graph_kernel::{Frontier, FrontierMode};
    /// let mut f = Frontier::new(10, FrontierMode::Sparse);
    /// f.set_mode(FrontierMode::Dense);
    /// assert!(!f.is_sparse());
    /// ```
    pub fn set_mode(&mut self, mode: FrontierMode) {
        self.cap = Self::cap_of(self.n, mode);
        if self.cap == 0 || self.queue.len() > self.cap {
            self.dense = true;
            self.queue = Vec::new();
        }
    }

    fn cap_of(n: u32, mode: FrontierMode) -> usize {
        match mode {
            FrontierMode::Auto => (n as usize / 16).max(64),
            FrontierMode::Sparse => usize::MAX,
            FrontierMode::Dense => 0,
        }
    }
}

/// The members of a [`Frontier`] ([`Frontier::iter`]): a dense one is read
/// a word at a time, one step per member rather than per position.
pub struct Members<'a> {
    queue: std::slice::Iter<'a, u32>,
    words: std::slice::Iter<'a, u64>,
    /// The members of the current word not yet returned.
    word: u64,
    /// The position of the current word's bit 0.
    base: u32,
}

impl Iterator for Members<'_> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        if let Some(&v) = self.queue.next() {
            return Some(v);
        }
        while self.word == 0 {
            self.word = *self.words.next()?;
            self.base = self.base.wrapping_add(64);
        }
        let v = self.base + self.word.trailing_zeros();
        self.word &= self.word - 1;
        Some(v)
    }
}
