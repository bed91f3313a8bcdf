//! GAPBS's serialized graphs (`.sg`, and `.wsg` with weights): its CSR as
//! written by its converter, in the host's byte order (little-endian on
//! every machine GAPBS targets):
//!
//! | size | field |
//! |---:|---|
//! | 1 | directed (`bool`) |
//! | 8 | entries `E` in the out-adjacency (`i64`; an undirected graph stores each edge twice) |
//! | 8 | vertices `N` (`i64`) |
//! | 8 x (N + 1) | out-offsets (`i64`) |
//! | 4 x E (`.sg`) or 8 x E (`.wsg`) | out-neighbours: `i32` id, or `i32` id then `i32` weight |
//! | the same two again | directed only: the in-adjacency (not needed here) |
//!
//! A directed file gives one record per out-entry; an undirected one gives
//! one record per pair of mirrored entries (entries `u -> v` with `u < v`,
//! and every second self-loop entry of a vertex).

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::error::{invalid, FormatError};
use super::format::ReadOptions;
use super::raw::{Edges, RawEdge, RawGraph};
use crate::io::le::{i32_at, i64_at};

/// Vertices per parallel piece.
const BLOCK: usize = 1 << 16;
const HEAD: usize = 17;

/// The file length a header implies, if representable.
fn implied_len(directed: bool, n: u64, e: u64, entry: u64) -> Option<u64> {
    let half = n
        .checked_add(1)?
        .checked_mul(8)?
        .checked_add(e.checked_mul(entry)?)?;
    (HEAD as u64).checked_add(half.checked_mul(if directed { 2 } else { 1 })?)
}

pub(crate) fn parse(
    bytes: &[u8],
    weighted: bool,
    opts: &ReadOptions,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<RawGraph, FormatError> {
    let (ext, other) = if weighted {
        (".wsg", ".sg")
    } else {
        (".sg", ".wsg")
    };
    if bytes.len() < HEAD {
        return Err(invalid(format!(
            "the GAPBS {ext} file has {} bytes, fewer than its 17-byte header: it is truncated or not a GAPBS serialized graph",
            bytes.len()
        )));
    }
    let directed = match bytes[0] {
        0 => false,
        1 => true,
        b => {
            return Err(invalid(format!(
                "not a GAPBS serialized graph: its first byte (directed flag) is {b}, not 0 or 1"
            )))
        }
    };
    let (e, n) = (i64_at(bytes, 1), i64_at(bytes, 9));
    if e < 0 || !(0..=i64::from(i32::MAX)).contains(&n) {
        return Err(invalid(format!(
            "not a GAPBS serialized graph: its header says {n} vertices and {e} edges"
        )));
    }
    let (e, n) = (e as u64, n as u64);
    let entry = if weighted { 8 } else { 4 };
    let actual = bytes.len() as u64;
    let expected = implied_len(directed, n, e, entry);
    if expected != Some(actual) {
        let hint = if implied_len(directed, n, e, 12 - entry) == Some(actual) {
            format!(" (it has the size of a {other} file: rename it)")
        } else {
            String::new()
        };
        return Err(invalid(format!(
            "the GAPBS {ext} file has {actual} bytes, but its header ({} graph, {n} vertices, {e} adjacency entries) implies {}: it is truncated or not a GAPBS serialized graph{hint}",
            if directed { "a directed" } else { "an undirected" },
            expected.map_or_else(|| "more than 2^64".to_string(), |x| x.to_string())
        )));
    }
    let n = n as usize;
    let offsets = &bytes[HEAD..HEAD + 8 * (n + 1)];
    let neigh = &bytes[HEAD + 8 * (n + 1)..HEAD + 8 * (n + 1) + e as usize * entry as usize];
    let off = |u: usize| i64_at(offsets, 8 * u);
    if off(0) != 0 || off(n) != e as i64 {
        return Err(invalid(format!(
            "the GAPBS {ext} file's offsets run from {} to {}, not from 0 to its {e} entries",
            off(0),
            off(n)
        )));
    }
    if let Some(u) = (0..n).into_par_iter().find_first(|&u| off(u) > off(u + 1)) {
        return Err(invalid(format!(
            "the GAPBS {ext} file's offsets decrease at vertex {u}: it is corrupt"
        )));
    }
    let keep_weights = weighted && !opts.ignore_weights;
    let done = AtomicU64::new(0);
    let pieces: Vec<Result<Edges, FormatError>> = (0..n.div_ceil(BLOCK))
        .into_par_iter()
        .map(|b| {
            let mut out = Edges::with_capacity(0);
            let (lo, hi) = (b * BLOCK, ((b + 1) * BLOCK).min(n));
            for u in lo..hi {
                let mut loops = 0u64;
                for i in off(u) as usize..off(u + 1) as usize {
                    let at = i * entry as usize;
                    let v = i32_at(neigh, at);
                    if v < 0 || v as usize >= n {
                        return Err(invalid(format!(
                            "the GAPBS {ext} file's adjacency entry {i} (of vertex {u}) is {v}, not a vertex of 0..{n}: it is corrupt"
                        )));
                    }
                    let w = if keep_weights {
                        let w = i32_at(neigh, at + 4);
                        if w < 0 {
                            return Err(invalid(format!(
                                "the GAPBS {ext} file's edge {u} -> {v} has weight {w}: weights must be >= 0 (convert with --ignore-weights to read the graph as unweighted)"
                            )));
                        }
                        w as f32
                    } else {
                        1.0
                    };
                    let v = v as usize;
                    let keep = directed
                        || u < v
                        || (u == v && {
                            loops += 1;
                            loops % 2 == 1
                        });
                    if keep {
                        out.push(RawEdge {
                            u: u as u64,
                            v: v as u64,
                            w,
                        });
                    }
                }
            }
            let piece = (off(hi) - off(lo)) as u64 * entry + 8 * (hi - lo) as u64;
            progress(HEAD as u64 + done.fetch_add(piece, Ordering::Relaxed) + piece);
            Ok(out)
        })
        .collect();
    let edges = pieces.into_iter().collect::<Result<Vec<_>, _>>()?;
    Ok(RawGraph {
        edges,
        num_vertices: Some(n as u64),
        weighted,
        file_undirected: !directed,
        why_undirected: "its header's directed flag is 0",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A serialized graph from out-adjacency lists.
    pub(crate) fn sg(directed: bool, adj: &[&[(i32, i32)]], weighted: bool) -> Vec<u8> {
        let n = adj.len();
        let e: usize = adj.iter().map(|a| a.len()).sum();
        let mut b = vec![u8::from(directed)];
        b.extend((e as i64).to_le_bytes());
        b.extend((n as i64).to_le_bytes());
        let half = |b: &mut Vec<u8>| {
            let mut o = 0i64;
            b.extend(o.to_le_bytes());
            for a in adj {
                o += a.len() as i64;
                b.extend(o.to_le_bytes());
            }
            for a in adj {
                for &(v, w) in a.iter() {
                    b.extend(v.to_le_bytes());
                    if weighted {
                        b.extend(w.to_le_bytes());
                    }
                }
            }
        };
        half(&mut b);
        if directed {
            half(&mut b); // content unchecked; the size matters
        }
        b
    }

    fn flat(g: &RawGraph) -> Vec<(u64, u64, f32)> {
        g.edges
            .iter()
            .flat_map(Edges::to_vec)
            .map(|e| (e.u, e.v, e.w))
            .collect()
    }

    #[test]
    fn undirected_keeps_one_record_per_edge() {
        // 0-1, 1-2, a self-loop at 2 (stored twice).
        let b = sg(
            false,
            &[&[(1, 0)], &[(0, 0), (2, 0)], &[(1, 0), (2, 0), (2, 0)]],
            false,
        );
        let g = parse(&b, false, &ReadOptions::default(), &|_| {}).unwrap();
        assert!(g.file_undirected);
        assert_eq!(flat(&g), [(0, 1, 1.0), (1, 2, 1.0), (2, 2, 1.0)]);
    }

    #[test]
    fn directed_weighted_keeps_every_arc() {
        let b = sg(true, &[&[(1, 5)], &[], &[(0, 7)]], true);
        let g = parse(&b, true, &ReadOptions::default(), &|_| {}).unwrap();
        assert!(!g.file_undirected);
        assert_eq!(flat(&g), [(0, 1, 5.0), (2, 0, 7.0)]);
    }

    #[test]
    fn bad_files_say_what_is_wrong() {
        let b = sg(true, &[&[(1, 5)], &[]], true);
        let e = parse(&b, false, &ReadOptions::default(), &|_| {})
            .unwrap_err()
            .to_string();
        assert!(e.contains("rename it"), "{e}");
        let e = parse(&b[..b.len() - 1], true, &ReadOptions::default(), &|_| {})
            .unwrap_err()
            .to_string();
        assert!(e.contains("it is truncated"), "{e}");
        let bad = sg(false, &[&[(3, 0)], &[]], false);
        let e = parse(&bad, false, &ReadOptions::default(), &|_| {})
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("entry 0 (of vertex 0) is 3, not a vertex of 0..2"),
            "{e}"
        );
        let neg = sg(true, &[&[(1, -4)], &[]], true);
        let e = parse(&neg, true, &ReadOptions::default(), &|_| {})
            .unwrap_err()
            .to_string();
        assert!(e.contains("weight -4"), "{e}");
        let e = parse(b"\x07", false, &ReadOptions::default(), &|_| {})
            .unwrap_err()
            .to_string();
        assert!(e.contains("fewer than its 17-byte header"), "{e}");
    }
}
