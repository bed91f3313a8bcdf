//! Feeds arbitrary bytes to the graph-file parser: it must return a graph
//! or an error, never panic, hang or touch memory out of bounds.
//!
//! Run: `cd graph-core/fuzz && cargo +nightly fuzz run parse_header`.
#![no_main]

use graph_core::io::file::{self, checksum64, ReadOptions, HEADER_LEN};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    check(data);
    // Random bytes almost never carry a valid header checksum; also try a
    // copy whose checksums are fixed up, so the fuzzer reaches the field,
    // size and record checks behind them.
    if data.len() >= HEADER_LEN {
        let mut fixed = data.to_vec();
        let sum = checksum64(&fixed[HEADER_LEN..]);
        fixed[72..80].copy_from_slice(&sum.to_le_bytes());
        let sum = checksum64(&fixed[..HEADER_LEN - 8]);
        fixed[HEADER_LEN - 8..HEADER_LEN].copy_from_slice(&sum.to_le_bytes());
        check(&fixed);
    }
});

fn check(data: &[u8]) {
    // The header parser alone (accepts a prefix of a file).
    let _ = file::parse_header(data);
    // The whole file, with and without the data checksum: skipping it lets
    // the fuzzer reach the record checks (sizes, vertex ids, weights).
    for verify_data_checksum in [true, false] {
        if let Ok(g) = file::parse_with(
            data,
            ReadOptions {
                verify_data_checksum,
            },
        ) {
            // A parsed graph must be internally consistent.
            assert_eq!(g.edges.num_edges(), g.header.num_edges);
            assert!(g.edges.validate().is_ok());
        }
    }
}
