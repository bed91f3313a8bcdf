//! A built file's rows read one vertex at a time ([`RowReader`]), for the
//! checks that follow edges from vertex to vertex (betweenness's search,
//! triangle counting's lookups) without a list or a CSR of their own.

use super::error::{BuiltError, Problem};
use super::header::Section;
use super::open::{BuiltGraph, RELEASE_PIECE};
use crate::csr::Array;

/// A built file's rows (a directed graph's out-arcs), mapped and read one
/// vertex at a time ([`BuiltGraph::row_reader`]).
///
/// Each row is checked as a trustee checks its rows before it is handed
/// out: the digests of the chunks that hold it (each chunk once per
/// process), its offsets rising within the entries, every id a vertex.
/// Pages read count in the process's resident set until they are given
/// back (they stay in the page cache): behind an ascending pass
/// ([`done_below`](Self::done_below)), after a pass
/// ([`pass_done`](Self::pass_done)), and when the reader is dropped. So a
/// check that reads rows in ascending order holds a piece of the file at
/// a time, and one that reads them at random at most the file's rows.
pub struct RowReader<'a> {
    g: &'a BuiltGraph,
    offsets: Array<u64>,
    targets: Array<u32>,
    entries: u64,
    /// The vertex and the entry below which this pass gave pages back.
    behind: (usize, u64),
}

impl BuiltGraph {
    /// A reader of this file's rows, one vertex at a time ([`RowReader`]);
    /// the row offsets are checked against their digests first (8 B per
    /// vertex read, their pages given back).
    pub fn row_reader(&self) -> Result<RowReader<'_>, BuiltError> {
        let n = self.header().num_vertices;
        let entries = self.header().entries;
        self.check_chunks(Section::Offsets, 0..(n + 1) * 8, (0, 1))?;
        let offsets: Array<u64> = self.view(Section::Offsets, 0..n + 1);
        let targets: Array<u32> = self.view(Section::Targets, 0..entries);
        if offsets[0] != 0 || offsets[n as usize] != entries {
            return Err(self.err(Problem::BadSection(format!(
                "its row offsets do not rise from 0 to {entries}"
            ))));
        }
        Ok(RowReader {
            g: self,
            offsets,
            targets,
            entries,
            behind: (0, 0),
        })
    }
}

impl RowReader<'_> {
    /// The graph's vertex count.
    pub fn num_vertices(&self) -> u64 {
        self.offsets.len() as u64 - 1
    }

    /// Vertex `v`'s row: its neighbour ids (a directed graph's out-arcs),
    /// in the file's order (duplicates kept, no self-loops), checked.
    pub fn row(&mut self, v: u32) -> Result<&[u32], BuiltError> {
        let n = self.num_vertices();
        if u64::from(v) >= n {
            return Err(self.g.err(Problem::BadSection(format!(
                "asked for the row of {v}, not a vertex (the graph has {n})"
            ))));
        }
        let v = v as usize;
        let (a, b) = (self.offsets[v], self.offsets[v + 1]);
        if a > b || b > self.entries {
            return Err(self.g.err(Problem::BadSection(format!(
                "its row offsets do not rise within the {} entries",
                self.entries
            ))));
        }
        self.g
            .check_chunks(Section::Targets, a * 4..b * 4, (0, 1))?;
        let row = &self.targets[a as usize..b as usize];
        self.g.check_ids(row, Section::Targets)?;
        Ok(row)
    }

    /// This pass reads no more rows of vertices below `v` (it reads them
    /// in ascending order): their pages go once they make a piece of about
    /// 2 MiB.
    pub fn done_below(&mut self, v: u32) {
        let v = (v as usize).min(self.offsets.len() - 1);
        let at = self.offsets[v].min(self.entries);
        if at >= self.behind.1 + (RELEASE_PIECE / 4) as u64 {
            self.targets.release(self.behind.1 as usize..at as usize);
            self.offsets.release(self.behind.0..v);
            self.behind = (v, at);
        }
    }

    /// The pass is over: every page read goes (the next pass may start
    /// anywhere).
    pub fn pass_done(&mut self) {
        self.targets.release(0..self.targets.len());
        self.offsets.release(0..self.offsets.len());
        self.behind = (0, 0);
    }
}

impl Drop for RowReader<'_> {
    fn drop(&mut self) {
        self.pass_done();
    }
}
