//! The `gossamer-graph` command.
use clap::Parser;

/// Graph analytics on the Gossamer delegation runtime.
#[derive(Parser)]
#[command(version, about)]
struct Cli {}

fn main() {
    let _ = Cli::parse();
}
