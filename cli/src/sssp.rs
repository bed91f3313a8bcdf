//! `gossamer-graph sssp`: delta-stepping shortest paths from one or more roots.

use crate::args::SsspArgs;
use crate::error::{CliError, Result};
use crate::record::Kernel;
use crate::search::KernelSpec;
use crate::single::{self, Request};

/// Refuses a `--delta` the kernel cannot use, saying why (the kernel's
/// rule, whose hint quotes `sssp::DEFAULT_DELTA`).
pub fn check_delta_arg(delta: f32) -> Result<()> {
    ::sssp::check_delta(delta).map_err(|why| {
        // As typed for tiny or huge values (1e-40, not 0.0000...0001).
        let shown = if delta.is_finite() && delta != 0.0 && !(1e-4..1e9).contains(&delta.abs()) {
            format!("{delta:e}")
        } else {
            delta.to_string()
        };
        CliError::new(format!("--delta {shown}: {why}"))
    })
}

/// Runs the `sssp` command: with the `--delta` given, or one derived from
/// the graph ([`crate::engine::Engine::sssp_delta`]).
pub fn run(args: &SsspArgs) -> Result<()> {
    if let Some(d) = args.delta {
        check_delta_arg(d)?;
    }
    single::run(Request {
        args: &args.single,
        spec: KernelSpec {
            kernel: Kernel::Sssp {
                delta: args.delta,
                rows: args.rows,
            },
            dump: args.dump_dist.clone(),
        },
        mode: None,
        unit_weights: args.unit_weights,
    })
}
