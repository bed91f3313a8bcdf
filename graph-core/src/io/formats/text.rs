//! The text formats: `.el`, `.wel`, Matrix Market and DIMACS `.gr`.
//!
//! A header (Matrix Market's banner and size line, DIMACS's problem line)
//! is read first, line by line; the body is then cut into byte ranges that
//! end at newlines and parsed in parallel. Each range counts its lines, so
//! an error's line number is the lines of the ranges before it plus its
//! place in its own range; the first error in file order is reported.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::error::{invalid, FormatError};
use super::format::{Format, ReadOptions};
use super::raw::{Edges, RawEdge, RawGraph};

/// Bytes per parallel piece of the body.
const CHUNK: usize = 4 << 20;

/// What the header said, and where the body starts.
struct Prelude {
    /// Byte offset of the body.
    start: usize,
    /// Lines before the body.
    lines: u64,
    /// Declared vertex count.
    num_vertices: Option<u64>,
    /// Declared edge count, and the line that declared it.
    num_edges: Option<(u64, u64)>,
    /// The file has a weight column.
    weighted: bool,
    /// The file declares the graph undirected.
    undirected: bool,
}

/// How to read one body line.
struct LineSpec {
    format: Format,
    /// Fields per edge line (after the `a` of DIMACS).
    fields: usize,
    /// Parse the last field as a weight.
    weights: bool,
    base: u64,
    /// Ids must be `< bound` (after subtracting the base).
    bound: Option<u64>,
}

impl LineSpec {
    fn expected(&self) -> &'static str {
        match (self.format, self.fields) {
            (Format::El, _) => "2 numbers (src dst)",
            (Format::Wel, _) => "3 numbers (src dst weight)",
            (Format::Mtx, 2) => "2 numbers (row col)",
            (Format::Mtx, _) => "3 numbers (row col value)",
            _ => "an arc 'a SRC DST WEIGHT' or a comment 'c ...'",
        }
    }
}

pub(crate) fn parse(
    bytes: &[u8],
    format: Format,
    opts: &ReadOptions,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<RawGraph, FormatError> {
    let pre = match format {
        Format::Mtx => mtx_prelude(bytes)?,
        Format::Gr => gr_prelude(bytes)?,
        _ => Prelude {
            start: 0,
            lines: 0,
            num_vertices: None,
            num_edges: None,
            weighted: format == Format::Wel,
            undirected: false,
        },
    };
    let fields = match format {
        Format::El => 2,
        Format::Wel | Format::Gr => 3,
        _ => 2 + usize::from(pre.weighted),
    };
    let spec = LineSpec {
        format,
        fields,
        weights: pre.weighted && !opts.ignore_weights,
        base: format.base(),
        bound: pre.num_vertices,
    };
    let body = &bytes[pre.start..];
    let done = AtomicU64::new(pre.start as u64);
    progress(pre.start as u64);
    let pieces: Vec<Piece> = split_at_newlines(body, CHUNK)
        .into_par_iter()
        .map(|range| {
            let piece = parse_piece(range, &spec);
            progress(done.fetch_add(range.len() as u64, Ordering::Relaxed) + range.len() as u64);
            piece
        })
        .collect();
    let mut lines = pre.lines;
    let mut edges = Vec::with_capacity(pieces.len());
    for p in pieces {
        if let Some((local, message)) = p.error {
            return Err(FormatError::Line {
                line: lines + local,
                message,
            });
        }
        lines += p.lines;
        edges.push(p.edges);
    }
    if let Some((declared, line)) = pre.num_edges {
        let found: u64 = edges.iter().map(|c| c.len() as u64).sum();
        if found != declared {
            return Err(invalid(format!(
                "the header (line {line}) declares {declared} edges but the file has {found}: it is truncated or its header is wrong"
            )));
        }
    }
    Ok(RawGraph {
        edges,
        num_vertices: pre.num_vertices,
        weighted: pre.weighted,
        file_undirected: pre.undirected,
        why_undirected: "its header says symmetric",
    })
}

/// Byte ranges of about `target` bytes, each ending just after a newline
/// (the last at the end of `body`).
fn split_at_newlines(body: &[u8], target: usize) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut rest = body;
    while rest.len() > target {
        match rest[target..].iter().position(|&b| b == b'\n') {
            Some(i) => {
                let (head, tail) = rest.split_at(target + i + 1);
                out.push(head);
                rest = tail;
            }
            None => break,
        }
    }
    out.push(rest);
    out
}

struct Piece {
    edges: Edges,
    /// Newlines in the piece.
    lines: u64,
    /// First error: line within the piece (from 1) and message.
    error: Option<(u64, String)>,
}

fn parse_piece(range: &[u8], spec: &LineSpec) -> Piece {
    let mut edges = Edges::with_capacity(range.len() / 12);
    let mut lines = 0;
    for (i, line) in range.split(|&b| b == b'\n').enumerate() {
        if let Err(message) = parse_line(line, spec, &mut edges) {
            return Piece {
                edges,
                lines,
                error: Some((i as u64 + 1, message)),
            };
        }
        lines = i as u64;
    }
    // `split` yields one more piece than there are newlines.
    Piece {
        edges,
        lines,
        error: None,
    }
}

/// Fields of a line: separated by spaces, tabs or commas.
fn fields(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    line.split(|&b| b == b' ' || b == b'\t' || b == b',')
        .filter(|f| !f.is_empty())
}

fn trim(line: &[u8]) -> &[u8] {
    line.trim_ascii()
}

/// The line as text for a message (shortened).
fn shown(line: &[u8]) -> String {
    let s = String::from_utf8_lossy(trim(line));
    if s.chars().count() > 60 {
        format!("{}...", s.chars().take(60).collect::<String>())
    } else {
        s.into_owned()
    }
}

fn is_comment(line: &[u8], format: Format) -> bool {
    match line.first() {
        None => true,
        Some(b'#' | b'%') => true,
        Some(b'c') => format == Format::Gr && line.get(1).is_none_or(|b| b.is_ascii_whitespace()),
        _ => false,
    }
}

fn parse_line(line: &[u8], spec: &LineSpec, out: &mut Edges) -> Result<(), String> {
    let line = trim(line);
    if is_comment(line, spec.format) {
        return Ok(());
    }
    let mut it = fields(line);
    if spec.format == Format::Gr {
        match it.next() {
            Some(b"a") => {}
            Some(b"p") => {
                return Err(format!(
                    "a second problem line ('p ...'): a DIMACS file has one, before the arcs; found '{}'",
                    shown(line)
                ))
            }
            _ => {
                return Err(format!(
                    "expected {}, found '{}'",
                    spec.expected(),
                    shown(line)
                ))
            }
        }
    }
    let mut f: [&[u8]; 3] = [&[]; 3];
    let mut n = 0;
    for x in it {
        if n == spec.fields {
            n += 1;
            break;
        }
        f[n] = x;
        n += 1;
    }
    let wrong = || format!("expected {}, found '{}'", spec.expected(), shown(line));
    if n != spec.fields {
        return Err(wrong());
    }
    let id = |x: &[u8]| -> Result<u64, String> {
        let v = parse_u64(x).ok_or_else(|| {
            if !x.is_empty() && x.iter().all(u8::is_ascii_digit) {
                format!(
                    "vertex id {} is too large (ids must be below 2^64)",
                    String::from_utf8_lossy(x)
                )
            } else {
                wrong()
            }
        })?;
        let dense = v.checked_sub(spec.base).ok_or_else(|| {
            format!(
                "vertex id 0, but ids in a {} file start at 1",
                if spec.format == Format::Mtx {
                    "Matrix Market"
                } else {
                    "DIMACS"
                }
            )
        })?;
        if let Some(b) = spec.bound.filter(|&b| dense >= b) {
            return Err(format!(
                "vertex id {v} is outside 1..={b}, the vertices the header declares"
            ));
        }
        Ok(dense)
    };
    let u = id(f[0])?;
    let v = id(f[1])?;
    let w = if spec.weights {
        let s = std::str::from_utf8(f[2]).map_err(|_| wrong())?;
        let w: f32 = s.parse().map_err(|_| wrong())?;
        if w.is_nan() || w.is_infinite() {
            return Err(format!("weight {s} is not a finite number"));
        }
        if w < 0.0 {
            return Err(format!(
                "weight {s} is negative: weights must be >= 0 (convert with --ignore-weights to read the graph as unweighted)"
            ));
        }
        w
    } else {
        1.0
    };
    out.push(RawEdge { u, v, w });
    Ok(())
}

fn parse_u64(x: &[u8]) -> Option<u64> {
    if x.is_empty() || x.len() > 20 {
        return None;
    }
    let mut v: u64 = 0;
    for &b in x {
        if !b.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
    }
    Some(v)
}

/// Lines of the header part, with their numbers (from 1) and the offset
/// after each.
fn header_lines(bytes: &[u8]) -> impl Iterator<Item = (u64, &[u8], usize)> {
    let mut pos = 0;
    let mut no = 0;
    std::iter::from_fn(move || {
        if pos >= bytes.len() {
            return None;
        }
        let end = bytes[pos..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |i| pos + i + 1);
        let line = &bytes[pos..end];
        pos = end;
        no += 1;
        Some((no, line, end))
    })
}

fn line_err(line: u64, message: String) -> FormatError {
    FormatError::Line { line, message }
}

fn mtx_prelude(bytes: &[u8]) -> Result<Prelude, FormatError> {
    let mut lines = header_lines(bytes);
    let banner = "the Matrix Market banner '%%MatrixMarket matrix coordinate FIELD SYMMETRY'";
    let Some((_, first, _)) = lines.next() else {
        return Err(line_err(
            1,
            format!("expected {banner}, found an empty file"),
        ));
    };
    let words: Vec<String> = fields(trim(first))
        .map(|w| String::from_utf8_lossy(w).to_ascii_lowercase())
        .collect();
    if words.first().map(String::as_str) != Some("%%matrixmarket") || words.len() != 5 {
        return Err(line_err(
            1,
            format!("expected {banner}, found '{}'", shown(first)),
        ));
    }
    if words[1] != "matrix" || words[2] != "coordinate" {
        return Err(line_err(
            1,
            format!(
                "only 'matrix coordinate' Matrix Market files are graphs (a dense 'array' is not), found '{}'",
                shown(first)
            ),
        ));
    }
    let weighted = match words[3].as_str() {
        "pattern" => false,
        "real" | "double" | "integer" => true,
        other => {
            return Err(line_err(
                1,
                format!("field '{other}' is not supported: use pattern, real, double or integer"),
            ))
        }
    };
    let undirected = match words[4].as_str() {
        "symmetric" => true,
        "general" | "skew-symmetric" => false,
        other => {
            return Err(line_err(
                1,
                format!(
                    "symmetry '{other}' is not supported: use general, symmetric or skew-symmetric"
                ),
            ))
        }
    };
    for (no, line, end) in lines {
        let t = trim(line);
        if t.is_empty() || t[0] == b'%' {
            continue;
        }
        let nums: Vec<Option<u64>> = fields(t).map(parse_u64).collect();
        let [Some(rows), Some(cols), Some(nnz)] = nums[..] else {
            return Err(line_err(
                no,
                format!(
                    "expected the size line 'ROWS COLUMNS ENTRIES', found '{}'",
                    shown(line)
                ),
            ));
        };
        if rows != cols {
            return Err(line_err(
                no,
                format!("the matrix is {rows} x {cols}: a graph's adjacency matrix is square"),
            ));
        }
        return Ok(Prelude {
            start: end,
            lines: no,
            num_vertices: Some(rows),
            num_edges: Some((nnz, no)),
            weighted,
            undirected,
        });
    }
    Err(invalid(
        "the Matrix Market file ends before its size line 'ROWS COLUMNS ENTRIES'",
    ))
}

fn gr_prelude(bytes: &[u8]) -> Result<Prelude, FormatError> {
    let want = "the problem line 'p sp NODES ARCS'";
    for (no, line, end) in header_lines(bytes) {
        let t = trim(line);
        if is_comment(t, Format::Gr) {
            continue;
        }
        let words: Vec<&[u8]> = fields(t).collect();
        if words.first() == Some(&&b"a"[..]) {
            return Err(line_err(
                no,
                format!("an arc before {want}: the problem line comes first"),
            ));
        }
        let (Some(b"p"), Some(n), Some(m), 4) = (
            words.first().map(|w| &**w),
            words.get(2).and_then(|w| parse_u64(w)),
            words.get(3).and_then(|w| parse_u64(w)),
            words.len(),
        ) else {
            return Err(line_err(
                no,
                format!(
                    "expected {want} or a comment 'c ...', found '{}'",
                    shown(line)
                ),
            ));
        };
        return Ok(Prelude {
            start: end,
            lines: no,
            num_vertices: Some(n),
            num_edges: Some((m, no)),
            weighted: true,
            undirected: false,
        });
    }
    Err(invalid(format!("the DIMACS file has no {want}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str, format: Format) -> String {
        match parse(text.as_bytes(), format, &ReadOptions::default(), &|_| {}) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("{text:?} parsed"),
        }
    }

    fn edges(text: &str, format: Format) -> Vec<(u64, u64, f32)> {
        let g = parse(text.as_bytes(), format, &ReadOptions::default(), &|_| {}).unwrap();
        g.edges
            .iter()
            .flat_map(Edges::to_vec)
            .map(|e| (e.u, e.v, e.w))
            .collect()
    }

    #[test]
    fn pieces_end_at_newlines_and_cover_everything() {
        let text = b"0 1\n22 33\n4 5\n666 7";
        for target in 1..text.len() + 2 {
            let parts = split_at_newlines(text, target);
            assert_eq!(parts.concat(), text);
            for p in &parts[..parts.len() - 1] {
                assert_eq!(p.last(), Some(&b'\n'));
            }
        }
    }

    #[test]
    fn line_numbers_count_across_pieces() {
        // Many lines, so the body splits into several pieces.
        let mut text = String::new();
        for i in 0..1_000_000 {
            text.push_str(&format!("{i} {}\n", i + 1));
        }
        text.push_str("5 oops\n");
        assert!(text.len() > 2 * CHUNK);
        assert_eq!(
            err(&text, Format::El),
            "line 1000001: expected 2 numbers (src dst), found '5 oops'"
        );
    }

    #[test]
    fn el_skips_comments_blanks_and_carriage_returns() {
        let e = edges("# c\n% c\n\n0 1\r\n 2\t3 \n4,5\n", Format::El);
        assert_eq!(e, [(0, 1, 1.0), (2, 3, 1.0), (4, 5, 1.0)]);
    }

    #[test]
    fn malformed_lines_name_line_and_expectation() {
        assert_eq!(
            err("0 1\n1 2 3\n", Format::El),
            "line 2: expected 2 numbers (src dst), found '1 2 3'"
        );
        assert_eq!(
            err("0 1 0.5\n\n1 2\n", Format::Wel),
            "line 3: expected 3 numbers (src dst weight), found '1 2'"
        );
        assert_eq!(
            err("0 1 -2\n", Format::Wel),
            "line 1: weight -2 is negative: weights must be >= 0 (convert with --ignore-weights to read the graph as unweighted)"
        );
        assert_eq!(
            err("-1 2\n", Format::El),
            "line 1: expected 2 numbers (src dst), found '-1 2'"
        );
        assert_eq!(
            err("99999999999999999999999 2\n", Format::El),
            "line 1: vertex id 99999999999999999999999 is too large (ids must be below 2^64)"
        );
        assert_eq!(
            err("18446744073709551616 2\n", Format::El),
            "line 1: vertex id 18446744073709551616 is too large (ids must be below 2^64)"
        );
    }

    #[test]
    fn matrix_market_header_and_entries() {
        let ok = "%%MatrixMarket matrix coordinate real symmetric\n% c\n3 3 2\n1 2 0.5\n3 3 1\n";
        let g = parse(ok.as_bytes(), Format::Mtx, &ReadOptions::default(), &|_| {}).unwrap();
        assert!(g.file_undirected && g.weighted);
        assert_eq!(g.num_vertices, Some(3));
        assert_eq!(edges(ok, Format::Mtx), [(0, 1, 0.5), (2, 2, 1.0)]);
        assert_eq!(
            err("%%MatrixMarket matrix array real general\n", Format::Mtx),
            "line 1: only 'matrix coordinate' Matrix Market files are graphs (a dense 'array' is not), found '%%MatrixMarket matrix array real general'"
        );
        assert_eq!(
            err(
                "%%MatrixMarket matrix coordinate complex general\n",
                Format::Mtx
            ),
            "line 1: field 'complex' is not supported: use pattern, real, double or integer"
        );
        assert_eq!(
            err(
                "%%MatrixMarket matrix coordinate pattern general\n%\n3 4 1\n",
                Format::Mtx
            ),
            "line 3: the matrix is 3 x 4: a graph's adjacency matrix is square"
        );
        assert_eq!(
            err(
                "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n0 1\n",
                Format::Mtx
            ),
            "line 4: vertex id 0, but ids in a Matrix Market file start at 1"
        );
        assert_eq!(
            err(
                "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n1 4\n",
                Format::Mtx
            ),
            "line 4: vertex id 4 is outside 1..=3, the vertices the header declares"
        );
        assert_eq!(
            err("%%MatrixMarket matrix coordinate pattern general\n3 3 3\n1 2\n", Format::Mtx),
            "the header (line 2) declares 3 edges but the file has 1: it is truncated or its header is wrong"
        );
        assert_eq!(
            err("1 2\n", Format::Mtx),
            "line 1: expected the Matrix Market banner '%%MatrixMarket matrix coordinate FIELD SYMMETRY', found '1 2'"
        );
    }

    #[test]
    fn dimacs_problem_line_and_arcs() {
        let ok = "c road\np sp 3 2\nc arcs\na 1 2 7\na 3 1 2\n";
        assert_eq!(edges(ok, Format::Gr), [(0, 1, 7.0), (2, 0, 2.0)]);
        assert_eq!(
            err("c x\na 1 2 3\n", Format::Gr),
            "line 2: an arc before the problem line 'p sp NODES ARCS': the problem line comes first"
        );
        assert_eq!(
            err("p sp 3 2\na 1 2 7\ne 1 2\n", Format::Gr),
            "line 3: expected an arc 'a SRC DST WEIGHT' or a comment 'c ...', found 'e 1 2'"
        );
        assert_eq!(
            err("p sp 3 1\na 1 2\n", Format::Gr),
            "line 2: expected an arc 'a SRC DST WEIGHT' or a comment 'c ...', found 'a 1 2'"
        );
    }
}
