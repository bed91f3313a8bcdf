//! Getting the input graph: generated in memory (after a memory check),
//! memory-mapped from a graph file, or parsed from another tool's format;
//! what it is (directed, weighted: what each kernel accepts); and its
//! search roots.
//!
//! | file | holds |
//! | --- | --- |
//! | `loaded.rs` | [`LoadedGraph`]: the graph as this process holds it, what it is; [`BuildSource`] |
//! | `load.rs` | [`load`](fn@load), [`load_streamed`], [`load_described`], [`generate`], [`read_foreign`]: getting it |
//! | `roots.rs` | [`RootPlan`], [`check_root`], [`graph500_roots`]: its search roots |

mod load;
mod loaded;
mod roots;

pub use load::{
    generate, graph500_file_params, is_built_file, load, load_described, load_streamed,
    read_foreign,
};
pub use loaded::{BuildSource, LoadedGraph};
pub use roots::{check_root, graph500_roots, RootPlan, GRAPH500_ROOTS};
