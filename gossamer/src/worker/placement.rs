//! `Placement`: where this process's workers sit among all workers of the run (one
//! process, or one rank of a rack run).

/// Where this process's workers sit among all workers of the run.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Placement {
    /// All workers of all ranks.
    pub n: usize,
    /// Global id of this process's first worker.
    pub base: usize,
    /// Workers in this process.
    pub local: usize,
    /// A rack run (several processes): the rack control thread decides termination,
    /// and code words are checked against `code_bounds`.
    pub rack: bool,
    /// Addresses a code word may take (this binary's executable segment).
    pub code_bounds: (u64, u64),
}

impl Placement {
    pub(crate) fn single(n: usize) -> Self {
        Placement {
            n,
            base: 0,
            local: n,
            rack: false,
            code_bounds: (0, u64::MAX),
        }
    }
}
