//! [`Lists`]: lists of `u32` by index, their lengths known before their
//! items, which then arrive in any order (records from other trustees):
//! filed in place, as a counting sort's second pass files them; [`Marks`],
//! a trustee's own bitmap over flat ids for testing lists against one.
//!
//! Collecting `(index, item)` records first and filing them once all have
//! arrived holds 8 B per item in the records and 4 B in the lists at once;
//! [`Lists`] holds the 4 B only (and 8 B per index for the offsets). A
//! kernel that receives other vertices' rows (tc's out-lists) learns their
//! lengths first (one word per vertex, e.g. in a [`Replica`](crate::Replica)),
//! sizes the lists, then files each record as it arrives.
//!
//! ```
//! use graph_kernel::lists::Lists;
//! let lens = [2, 0, 3];
//! let mut l = Lists::with_lengths(3, |i| lens[i], "doc lists");
//! for (i, x) in [(2, 7), (0, 1), (2, 8), (0, 2), (2, 9)] {
//!     l.place(i, x);
//! }
//! // Each list holds its items in the reverse of their arrival.
//! assert_eq!((l.list(0), l.list(1), l.list(2)), (&[2, 1][..], &[][..], &[9, 8, 7][..]));
//! assert_eq!(l.len(), 5);
//! ```

use graph_core::alloc::vec_or_exit;

/// Lists of `u32` by index `0..n`; see the module docs.
#[derive(Clone, Debug, Default)]
pub struct Lists {
    /// While filling, the end of list `i`'s unfilled part; once every list
    /// is full, where list `i` starts (`off[n]` is the number of items).
    off: Vec<usize>,
    items: Vec<u32>,
}

impl Lists {
    /// `n` empty lists, list `i` to hold `len(i)` items (8 B per index and
    /// 4 B per item, allocated at once; `what` names them if that fails,
    /// which ends the process as [`vec_or_exit`] does).
    pub fn with_lengths(n: usize, len: impl Fn(usize) -> usize, what: &'static str) -> Lists {
        let mut off = vec_or_exit(n + 1, 0usize, what);
        let mut end = 0;
        for (i, o) in off[..n].iter_mut().enumerate() {
            end += len(i);
            *o = end;
        }
        off[n] = end;
        Lists {
            off,
            items: vec_or_exit(end, 0u32, what),
        }
    }

    /// Files `x` in list `i`, before the items filed there so far.
    ///
    /// Placing more items in a list than its length is a bug of the
    /// caller: it panics when it runs past the first list, and otherwise
    /// spills into the list before (which [`list`](Self::list) then shows).
    #[inline(always)]
    pub fn place(&mut self, i: u32, x: u32) {
        let o = &mut self.off[i as usize];
        *o -= 1;
        self.items[*o] = x;
    }

    /// List `i`, once every list holds as many items as its length.
    #[inline(always)]
    pub fn list(&self, i: u32) -> &[u32] {
        &self.items[self.off[i as usize]..self.off[i as usize + 1]]
    }

    /// Items of all lists.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether the lists hold no item.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

/// A trustee's own bitmap over ids `0..n` (not shared: a
/// [`Replica`](crate::Replica) is the per-process one), for marking one
/// list and looking others up in it, e.g. counting common neighbours.
///
/// ```
/// use graph_kernel::lists::Marks;
/// let mut m = Marks::new(200, "doc marks");
/// m.set_all(&[3, 64, 130]);
/// assert!(m.get(64) && !m.get(65));
/// assert_eq!(m.count(&[1, 3, 130, 131, 3]), 3);
/// m.clear(&[3, 64, 130]);
/// assert_eq!(m.count(&[3, 64, 130]), 0);
/// ```
#[derive(Clone, Debug, Default)]
pub struct Marks(Vec<u64>);

impl Marks {
    /// No id marked, room for ids `0..n` (`what` names the array if the
    /// allocation fails, as for [`Lists::with_lengths`]).
    pub fn new(n: usize, what: &'static str) -> Marks {
        Marks(vec_or_exit(n.div_ceil(64), 0, what))
    }

    /// Marks `i`.
    #[inline(always)]
    pub fn set(&mut self, i: u32) {
        self.0[(i >> 6) as usize] |= 1 << (i & 63);
    }

    /// Marks every id of `list`.
    #[inline(always)]
    pub fn set_all(&mut self, list: &[u32]) {
        list.iter().for_each(|&i| self.set(i));
    }

    /// Whether `i` is marked.
    #[inline(always)]
    pub fn get(&self, i: u32) -> bool {
        (self.0[(i >> 6) as usize] >> (i & 63)) & 1 == 1
    }

    /// How many entries of `list` are marked (one probe each, no branch).
    #[inline(always)]
    pub fn count(&self, list: &[u32]) -> u64 {
        let mut n = 0;
        for &i in list {
            n += (self.0[(i >> 6) as usize] >> (i & 63)) & 1;
        }
        n
    }

    /// Unmarks the words that hold `list`'s ids: every id when the marks
    /// were set from `list` alone (a cost per entry, not per id).
    #[inline(always)]
    pub fn clear(&mut self, list: &[u32]) {
        list.iter().for_each(|&i| self.0[(i >> 6) as usize] = 0);
    }

    /// Unmarks every id.
    pub fn clear_every(&mut self) {
        self.0.fill(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_hold_what_was_placed_in_any_order() {
        let lens = [3usize, 0, 1, 0, 4];
        let mut want: Vec<Vec<u32>> = vec![vec![]; 5];
        let mut l = Lists::with_lengths(5, |i| lens[i], "test lists");
        // Interleaved arrivals, as records from several senders.
        let arrivals = [
            (4, 40),
            (0, 1),
            (4, 41),
            (2, 20),
            (0, 2),
            (4, 42),
            (0, 3),
            (4, 43),
        ];
        for (i, x) in arrivals {
            l.place(i, x);
            want[i as usize].insert(0, x);
        }
        assert_eq!(l.len(), 8);
        for i in 0..5 {
            assert_eq!(l.list(i), &want[i as usize][..], "list {i}");
        }
    }

    #[test]
    #[should_panic]
    fn more_items_than_the_lengths_panic() {
        let mut l = Lists::with_lengths(2, |i| [1, 1][i], "test lists");
        for (i, x) in [(1, 1), (1, 2), (1, 3)] {
            l.place(i, x);
        }
    }

    #[test]
    fn marks_count_what_was_marked() {
        let mut m = Marks::new(1000, "test marks");
        let marked = [0, 63, 64, 500, 999];
        m.set_all(&marked);
        for i in 0..1000 {
            assert_eq!(m.get(i), marked.contains(&i), "id {i}");
        }
        let probe: Vec<u32> = (0..1000).step_by(7).chain(marked).collect();
        let want = probe.iter().filter(|i| marked.contains(i)).count() as u64;
        assert_eq!(m.count(&probe), want);
        m.clear(&marked);
        assert_eq!(m.count(&marked), 0);
        m.set(5);
        m.clear_every();
        assert!(!m.get(5));
    }

    #[test]
    fn no_lists() {
        let l = Lists::with_lengths(0, |_| 1, "test lists");
        assert!(l.is_empty() && Lists::default().is_empty());
    }
}
