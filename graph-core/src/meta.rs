//! What the edge records mean: whether the graph is directed, whether its
//! weights are real, and which ids the vertices had in the file they came
//! from.
//!
//! An [`EdgeList`](crate::EdgeList) is a bag of `(u, v, w)` records with
//! dense ids `0..n`. A [`GraphMeta`] travels beside it (in the graph file's
//! header and id-map section) and says how to read them:
//!
//! - **directed**: each record is an arc `u -> v`; otherwise it is the
//!   undirected edge `{u, v}` (both directions), which is how the Graph500
//!   generator's records are read. Symmetrizing a directed graph is just
//!   reading its records as undirected.
//! - **weighted**: the weights are the input's. An unweighted graph's
//!   records all carry weight 1.0 (so `--unit-weights` needs no copy).
//! - **ids**: the vertex ids the input file used. Dense id `v` was
//!   `v + base` ([`IdMap::Offset`]: 0 for edge lists, 1 for 1-based formats
//!   such as Matrix Market and DIMACS), or the `v`-th smallest id that
//!   occurs in the file ([`IdMap::Table`], for sparse or huge ids; the
//!   table is strictly increasing, so the way back is a binary search).
//!
//! ```
//! use graph_core::meta::IdMap;
//! let ids = IdMap::Table(vec![7, 1 << 40, 1 << 41]);
//! assert_eq!(ids.file_id(1), 1 << 40);
//! assert_eq!(ids.dense_id(1 << 41), Some(2));
//! assert_eq!(ids.dense_id(8), None);
//! assert_eq!(IdMap::Offset(1).dense_id(1), Some(0));
//! ```

/// How a vertex's dense id relates to its id in the input file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IdMap {
    /// File id = dense id + base.
    Offset(u64),
    /// File id = `table[dense id]`; strictly increasing.
    Table(Vec<u64>),
}

impl Default for IdMap {
    fn default() -> Self {
        IdMap::Offset(0)
    }
}

impl IdMap {
    /// The file's id of dense vertex `v` (`v` must be a vertex).
    pub fn file_id(&self, v: u64) -> u64 {
        match self {
            IdMap::Offset(base) => v.saturating_add(*base),
            IdMap::Table(t) => usize::try_from(v)
                .ok()
                .and_then(|i| t.get(i).copied())
                .unwrap_or(u64::MAX),
        }
    }

    /// The dense id of the file's vertex `id`, if it is one of the first
    /// `num_vertices` (for a table: if it occurs in the table).
    pub fn dense_id_in(&self, id: u64, num_vertices: u64) -> Option<u64> {
        match self {
            IdMap::Offset(base) => id.checked_sub(*base).filter(|&v| v < num_vertices),
            IdMap::Table(t) => t.binary_search(&id).ok().map(|i| i as u64),
        }
    }

    /// The dense id of the file's vertex `id`, without a vertex-count bound
    /// for offsets (see [`IdMap::dense_id_in`]).
    pub fn dense_id(&self, id: u64) -> Option<u64> {
        self.dense_id_in(id, u64::MAX)
    }

    /// The table, if ids were renumbered.
    pub fn table(&self) -> Option<&[u64]> {
        match self {
            IdMap::Offset(_) => None,
            IdMap::Table(t) => Some(t),
        }
    }

    /// True when dense ids are the file's ids (offset 0).
    pub fn is_identity(&self) -> bool {
        matches!(self, IdMap::Offset(0))
    }

    /// Checks a table against the vertex count: one entry per vertex,
    /// strictly increasing. Offsets always pass.
    pub fn check(&self, num_vertices: u64) -> Result<(), String> {
        let IdMap::Table(t) = self else {
            return Ok(());
        };
        if t.len() as u64 != num_vertices {
            return Err(format!(
                "the id map has {} entries for {num_vertices} vertices",
                t.len()
            ));
        }
        if let Some(i) = t.windows(2).position(|w| w[0] >= w[1]) {
            return Err(format!(
                "the id map is not strictly increasing at entry {} ({} then {})",
                i + 1,
                t[i],
                t[i + 1]
            ));
        }
        Ok(())
    }
}

/// How to read a graph's edge records (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GraphMeta {
    /// Records are arcs `u -> v` (otherwise undirected edges).
    pub directed: bool,
    /// Records carry the input's weights (otherwise all 1.0).
    pub weighted: bool,
    /// The input file's vertex ids.
    pub ids: IdMap,
}

impl Default for GraphMeta {
    /// An undirected, weighted graph with ids as they are: what the Graph500
    /// generator makes and what every version-1 graph file holds.
    fn default() -> Self {
        GraphMeta {
            directed: false,
            weighted: true,
            ids: IdMap::Offset(0),
        }
    }
}

impl GraphMeta {
    /// "directed"/"undirected" and "weighted"/"unweighted", for messages.
    pub fn describe(&self) -> String {
        format!(
            "{}, {}",
            if self.directed {
                "directed"
            } else {
                "undirected"
            },
            if self.weighted {
                "weighted"
            } else {
                "unweighted"
            }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_and_tables_map_both_ways() {
        let o = IdMap::Offset(1);
        assert_eq!(o.file_id(0), 1);
        assert_eq!(o.dense_id_in(0, 5), None);
        assert_eq!(o.dense_id_in(5, 5), Some(4));
        assert_eq!(o.dense_id_in(6, 5), None);
        let t = IdMap::Table(vec![3, 10, 1 << 40]);
        assert_eq!(t.check(3), Ok(()));
        assert!(t.check(4).is_err());
        assert_eq!(t.dense_id(10), Some(1));
        assert_eq!(t.dense_id(11), None);
        assert!(IdMap::Table(vec![1, 1])
            .check(2)
            .unwrap_err()
            .contains("strictly"));
    }
}
