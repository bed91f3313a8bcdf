//! The edges as the readers find them, before the ids are settled
//! ([`RawGraph`]): packed while every id fits 32 bits, wide otherwise.

/// One edge as read, before renumbering: ids minus the format's base.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct RawEdge {
    pub u: u64,
    pub v: u64,
    pub w: f32,
}

/// A piece's edges: packed (12 bytes each) while every id fits 32 bits,
/// which is the common case, else wide.
#[derive(Debug)]
pub(crate) enum Edges {
    Narrow(Vec<crate::edge_list::PackedEdge>),
    Wide(Vec<RawEdge>),
}

impl Edges {
    pub fn with_capacity(n: usize) -> Edges {
        Edges::Narrow(Vec::with_capacity(n))
    }

    #[inline]
    pub fn push(&mut self, e: RawEdge) {
        match self {
            Edges::Narrow(v) => match (u32::try_from(e.u), u32::try_from(e.v)) {
                (Ok(u), Ok(w)) => v.push(crate::edge_list::PackedEdge::new(u, w, e.w)),
                _ => {
                    let mut wide: Vec<RawEdge> = Vec::with_capacity(v.capacity());
                    v.iter().for_each(|p| wide.push(RawEdge::from(*p)));
                    wide.push(e);
                    *self = Edges::Wide(wide);
                }
            },
            Edges::Wide(v) => v.push(e),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Edges::Narrow(v) => v.len(),
            Edges::Wide(v) => v.len(),
        }
    }

    /// Calls `f` on every edge, in order.
    #[inline]
    pub fn for_each(&self, mut f: impl FnMut(RawEdge)) {
        match self {
            Edges::Narrow(v) => v.iter().for_each(|p| f(RawEdge::from(*p))),
            Edges::Wide(v) => v.iter().for_each(|e| f(*e)),
        }
    }

    #[cfg(test)]
    pub fn to_vec(&self) -> Vec<RawEdge> {
        let mut out = Vec::new();
        self.for_each(|e| out.push(e));
        out
    }
}

impl From<crate::edge_list::PackedEdge> for RawEdge {
    #[inline]
    fn from(p: crate::edge_list::PackedEdge) -> RawEdge {
        RawEdge {
            u: u64::from(p.u),
            v: u64::from(p.v),
            w: p.w,
        }
    }
}

/// What a reader found, before ids are settled.
#[derive(Debug)]
pub(crate) struct RawGraph {
    /// Edges in file order, in chunks (one per parallel piece).
    pub edges: Vec<Edges>,
    /// The vertex count the file declares (header), or none (max id + 1).
    pub num_vertices: Option<u64>,
    /// The file has real weights.
    pub weighted: bool,
    /// The file declares the graph undirected.
    pub file_undirected: bool,
    /// Why, in words ("symmetric").
    pub why_undirected: &'static str,
}
