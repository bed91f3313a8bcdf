//! [`RowReads`]: a whole graph's rows read one vertex at a time, for the
//! checks that follow edges from vertex to vertex ([`verify_bc_rows`],
//! [`verify_tc_rows`]).
//!
//! [`verify_bc_rows`]: super::verify_bc_rows
//! [`verify_tc_rows`]: super::verify_tc_rows

use crate::io::built::RowReader;

/// A whole graph's rows, one vertex at a time: a vertex's neighbour ids
/// (a directed graph's out-arcs), in any order, repeats allowed (the
/// checks read the simple graph: each neighbour once, self-loops
/// ignored). A built file's ([`RowReader`], checked as read, its pages
/// given back behind ascending passes), or rows in memory (`Vec<Vec<u32>>`,
/// for tests).
pub trait RowReads {
    /// The graph's vertex count.
    fn num_vertices(&self) -> u64;
    /// Vertex `v`'s row, or what is wrong with the rows.
    fn row(&mut self, v: u32) -> Result<&[u32], String>;
    /// The current pass reads rows in ascending order and no more rows
    /// below `v`: what holds them may go.
    fn done_below(&mut self, _v: u32) {}
    /// The current pass is over: what it read may go.
    fn pass_done(&mut self) {}
}

impl RowReads for RowReader<'_> {
    fn num_vertices(&self) -> u64 {
        RowReader::num_vertices(self)
    }

    fn row(&mut self, v: u32) -> Result<&[u32], String> {
        RowReader::row(self, v).map_err(|e| e.to_string())
    }

    fn done_below(&mut self, v: u32) {
        RowReader::done_below(self, v);
    }

    fn pass_done(&mut self) {
        RowReader::pass_done(self);
    }
}

impl RowReads for Vec<Vec<u32>> {
    fn num_vertices(&self) -> u64 {
        self.len() as u64
    }

    fn row(&mut self, v: u32) -> Result<&[u32], String> {
        let n = self.len();
        let row = self
            .get(v as usize)
            .ok_or_else(|| format!("no row {v}: the graph has {n} vertices"))?;
        match row.iter().find(|&&x| x as usize >= n) {
            Some(x) => Err(format!(
                "row {v} holds {x}, not a vertex (the graph has {n})"
            )),
            None => Ok(row),
        }
    }
}

/// Marks per vertex by a running tag: what the checks use to see each
/// neighbour of a row once (a row's repeats) and to test membership in a
/// set of vertices, without clearing between rows (4 B per vertex).
pub(super) struct Tags {
    tag: Vec<u32>,
    now: u32,
}

impl Tags {
    pub(super) fn new(n: usize) -> Tags {
        Tags {
            tag: crate::alloc::vec_or_exit(n, 0, "vertex tags"),
            now: 0,
        }
    }

    /// A tag no vertex holds yet; every vertex's tag stays below it.
    /// `room` more tags will be asked for before the marks taken with
    /// this one are read for the last time (cleared when they would wrap).
    pub(super) fn fresh(&mut self, room: u32) -> u32 {
        let room = room.min(u32::MAX - 2);
        if self.now > u32::MAX - room - 1 {
            self.tag.fill(0);
            self.now = 0;
        }
        self.now += 1;
        self.now
    }

    pub(super) fn get(&self, v: u32) -> u32 {
        self.tag[v as usize]
    }

    pub(super) fn set(&mut self, v: u32, t: u32) {
        self.tag[v as usize] = t;
    }
}
