//! [`Program`]: the per-trustee state of a kernel and what a message does
//! when it arrives.

use gossamer::Pod;

/// The per-trustee state of a kernel (one value per trustee, on that
/// trustee, with one entry per own vertex *by position*: see
/// [`Adjacency`](crate::Adjacency)) and what happens when a message reaches
/// one of its vertices.
///
/// [`Local::send`](crate::Local::send) delivers `msg` to the owner of a
/// vertex (named by its flat id): at once through
/// [`receive`](Self::receive) when the sender owns it, otherwise appended
/// to a batch for the owner that travels as plain-old-data records and is
/// applied there, in delegated context, by `receive`. So `receive` may run
/// while the owner's own sweep is in progress (between two vertices, never
/// during one); a kernel that needs superstep isolation (PageRank) writes
/// into a separate "next" array there.
///
/// With [`COMBINE`](Self::COMBINE) set, messages a trustee sends to the
/// same remote vertex before its batch leaves are merged with
/// [`combine`](Self::combine) (keep the minimum label, add path counts),
/// so at most one record per remote vertex travels per batch.
///
/// ```
/// use graph_kernel::Program;
/// /// Minimum label per vertex.
/// struct Labels(Vec<u32>);
/// impl Program for Labels {
///     type Msg = u32;
///     const COMBINE: bool = true;
///     fn receive(&mut self, v: u32, label: u32) -> bool {
///         let old = &mut self.0[v as usize];
///         let lower = label < *old;
///         if lower { *old = label; }
///         lower // the vertex joins the next frontier when its label dropped
///     }
///     fn combine(acc: &mut u32, label: u32) { *acc = (*acc).min(label); }
/// }
/// let mut l = Labels(vec![5, 5]);
/// assert!(l.receive(1, 3) && !l.receive(1, 4));
/// let mut a = 9; Labels::combine(&mut a, 4); assert_eq!(a, 4);
/// ```
pub trait Program: Send + 'static {
    /// One message: a plain-old-data value ([`Pod`]) whose size is a
    /// multiple of 4 bytes (`u32`, `f32`, `u64`, `f64`, `[u32; 2]`, or a
    /// [`gossamer::pod_struct!`] without padding; a tuple is not `Pod`).
    /// Other sizes are rejected at compile time:
    ///
    /// ```compile_fail
    /// use graph_kernel::{run, Program};
    /// struct Small;
    /// impl Program for Small {
    ///     type Msg = u16; // 2 bytes: the wire record would have padding
    ///     fn receive(&mut self, _: u32, _: u16) -> bool { false }
    /// }
    /// let list = graph_kernel::doc::path(4);
    /// gossamer::main(2, move || {
    ///     let g = graph_core::sharded::ShardedGraph::build(&list, graph_core::PartitionKind::Block).unwrap();
    ///     run(&g, |_, _| Small, |k| k.for_each_vertex(|l, v| l.send(l.flat(v), 1u16)));
    /// });
    /// ```
    type Msg: Pod;

    /// Whether [`combine`](Self::combine) merges messages to one vertex
    /// before they are sent (costs, on each trustee, one `Msg` and one bit
    /// per vertex of the other trustees, allocated when first sent to).
    const COMBINE: bool = false;

    /// Applies `msg` to own vertex `v` (its position) on its owner. Return
    /// `true` to put `v` into the next frontier.
    fn receive(&mut self, v: u32, msg: Self::Msg) -> bool;

    /// Merges `msg` into `acc`, two messages for the same vertex (only
    /// called when [`COMBINE`](Self::COMBINE) is true). The default keeps
    /// `acc`.
    #[inline]
    fn combine(acc: &mut Self::Msg, msg: Self::Msg) {
        let _ = (acc, msg);
    }

    /// Applies a message sent to this trustee rather than to one of its
    /// vertices ([`Local::send_to_trustee`](crate::Local::send_to_trustee)):
    /// a kernel that replicates data (triangle counting's out-lists) or
    /// gathers per-trustee results. The default panics: a program that
    /// never sends such messages need not write it.
    fn receive_here(&mut self, msg: Self::Msg) {
        let _ = msg;
        panic!(
            "graph-kernel: `{}` got a message for the trustee but does not implement Program::receive_here",
            std::any::type_name::<Self>()
        );
    }

    /// Asks the cache for own vertex `v`'s state (a hint, no effect on
    /// results): a push sweep over a small frontier calls it for the first
    /// targets of the row it will read a few vertices from now, so that
    /// [`receive`](Self::receive) finds them loaded. The default does
    /// nothing; BFS asks for its parent and depth (on a road grid a
    /// frontier's rows are scattered, and one thread otherwise waits on
    /// each of these loads in turn).
    #[inline(always)]
    fn prefetch(&self, v: u32) {
        let _ = v;
    }

    /// Called on every trustee when a superstep ends and the next one
    /// begins (after every message of the ended one was applied, before
    /// any of the next can arrive), with the number of supersteps ended so
    /// far: where a level-synchronous kernel advances its level.
    #[inline]
    fn next_superstep(&mut self, supersteps: u32) {
        let _ = supersteps;
    }
}
