//! [`Program`]: the per-trustee state of a kernel and how it takes updates.

use gossamer::Pod;

/// The per-trustee state of a kernel (one value per trustee, on that trustee)
/// and what happens when an update reaches one of its vertices.
///
/// [`Local::send`](crate::Local::send) delivers `msg` to the owner of a vertex:
/// at once through [`receive`](Self::receive) when the sender owns it, otherwise
/// appended to a batch for the owner that is sent as plain-old-data records and
/// applied there, in delegated context, by `receive`. So `receive` may run while
/// the owner's own sweep is in progress (between two vertices, never during one);
/// a kernel that needs superstep isolation (PageRank) writes into a separate
/// "next" array there.
///
/// With [`COMBINE`](Self::COMBINE) set, updates a trustee sends to the same
/// remote vertex before its batch leaves are merged with
/// [`combine`](Self::combine) (e.g. keep the minimum label, add rank shares),
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
    /// One update for one vertex: a plain-old-data value ([`Pod`]) whose size is
    /// a multiple of 4 bytes (`u32`, `f32`, `u64`, `f64`, arrays of them, or a
    /// [`gossamer::pod_struct!`]); other sizes are rejected at compile time:
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
    ///     run(&g, |_| Small, |k| k.for_each_vertex(|l, v| l.send(v, 1u16)));
    /// });
    /// ```
    type Msg: Pod;

    /// Whether [`combine`](Self::combine) merges updates to one vertex before
    /// they are sent (costs, on each trustee, one `Msg` and one bit per vertex
    /// of the other trustees, allocated when first sent to).
    const COMBINE: bool = false;

    /// Applies `msg` to local vertex `v` (index within this trustee's shard) on
    /// its owner. Return `true` to put `v` into the next frontier.
    fn receive(&mut self, v: u32, msg: Self::Msg) -> bool;

    /// Merges `msg` into `acc`, two updates for the same vertex (only called
    /// when [`COMBINE`](Self::COMBINE) is true). The default keeps `acc`.
    ///
    /// ```
    /// use graph_kernel::Program;
    /// struct Sum(Vec<f64>);
    /// impl Program for Sum {
    ///     type Msg = f64;
    ///     const COMBINE: bool = true;
    ///     fn receive(&mut self, v: u32, x: f64) -> bool { self.0[v as usize] += x; false }
    ///     fn combine(acc: &mut f64, x: f64) { *acc += x; }
    /// }
    /// let mut acc = 0.25; Sum::combine(&mut acc, 0.5); assert_eq!(acc, 0.75);
    /// ```
    #[inline]
    fn combine(acc: &mut Self::Msg, msg: Self::Msg) {
        let _ = (acc, msg);
    }
}
