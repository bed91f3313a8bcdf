//! The wire record of an update: the target's local index at its owner and the
//! user's message, as one plain-old-data record (the only `unsafe` of this crate).

use gossamer::Pod;

/// The `v` of a record addressed to the receiving trustee rather than to
/// one of its vertices (no position reaches it: flat ids stop below
/// [`NO_FLAT`](crate::adjacency::NO_FLAT) `= u32::MAX`).
pub(crate) const TRUSTEE: u32 = u32::MAX;

/// One update on the wire: "local vertex `v` of the receiving trustee gets `m`".
///
/// `packed(4)` caps the alignment at 4 so that an 8-byte message (`f64`, `u64`)
/// follows `v` without padding: the record is `4 + size_of::<M>()` bytes.
#[derive(Clone, Copy)]
#[repr(C, packed(4))]
pub(crate) struct Addressed<M> {
    pub(crate) v: u32,
    pub(crate) m: M,
}

impl<M: Pod> Addressed<M> {
    /// Fails to compile for a message type whose record would have padding
    /// (a size that is not a multiple of 4 bytes). Every path that creates or
    /// sends an `Addressed<M>` goes through [`Addressed::new`], so the check runs
    /// for every message type actually used.
    pub(crate) const CHECK: () = assert!(
        std::mem::size_of::<Addressed<M>>() == 4 + std::mem::size_of::<M>(),
        "graph-kernel: a Program::Msg must be a multiple of 4 bytes (use u32/f32/u64/f64 fields, \
         or pad a pod_struct! with an explicit field)"
    );

    #[inline(always)]
    pub(crate) fn new(v: u32, m: M) -> Self {
        #[allow(clippy::let_unit_value)]
        let () = Self::CHECK;
        Addressed { v, m }
    }
}

// SAFETY: `Addressed<M>` is `repr(C, packed(4))` with fields `u32` and `M: Pod`.
// `M` is Pod: no padding, no pointers, every bit pattern valid; so is `u32`.
// The only possible padding would be between or after the fields; `CHECK`
// (evaluated at compile time in `new`, the only constructor, which every send
// path uses) proves the size is exactly `4 + size_of::<M>()`, so there is none.
// Alignment is at most 4 (<= 8, as `apply_slice` requires). The type is
// private to this crate, so no instance can exist without passing `new`.
unsafe impl<M: Pod> Pod for Addressed<M> {}
