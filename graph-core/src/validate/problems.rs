//! What a validation says: [`Validated`] on success, otherwise a
//! [`ValidationError`] counting every broken rule and spelling out the
//! first few; and the words for each rule's problem.

use std::fmt;

/// How many individual problems a failed validation lists before it stops
/// collecting (the count of all problems is still exact).
pub(super) const MAX_LISTED: usize = 20;

/// What a successful validation measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Validated {
    /// Vertices reached from the root, the root included.
    pub reached: u64,
    /// Input edges (self-loops excluded, duplicates included) with both ends
    /// reached: the Graph500 TEPS numerator.
    pub traversed_edges: u64,
}

/// A failed validation: every rule broken, the first few spelled out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidationError {
    /// Total number of violations found.
    pub count: u64,
    /// Human-readable descriptions of the first violations.
    pub problems: Vec<String>,
    /// Whether some reached vertex's distance plus an edge's weight
    /// overflows `f32` (beyond [`f32::MAX`]), leaving the edge's other end
    /// unreached: the weights are too large for `f32` distances, which is
    /// not a fault of the search.
    pub overflow: bool,
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "validation failed with {} problem(s)", self.count)?;
        if self.overflow {
            write!(
                f,
                "; distances overflow f32 (at most {:e}): the weights are too large for 32-bit distances, scale them down",
                f32::MAX
            )?;
        }
        for p in &self.problems {
            write!(f, "\n  - {p}")?;
        }
        if self.count > self.problems.len() as u64 {
            write!(
                f,
                "\n  - ... and {} more",
                self.count - self.problems.len() as u64
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for ValidationError {}

#[derive(Default)]
pub(super) struct Problems {
    pub(super) count: u64,
    listed: Vec<String>,
    /// See [`ValidationError::overflow`].
    pub(super) overflow: bool,
}

impl Problems {
    pub(super) fn push(&mut self, describe: impl FnOnce() -> String) {
        self.count += 1;
        if self.listed.len() < MAX_LISTED {
            self.listed.push(describe());
        }
    }

    /// Adds `count` problems, of which `listed` describes the first ones in
    /// order (at most `count` of them are taken).
    pub(super) fn add_many(&mut self, count: u64, listed: impl IntoIterator<Item = String>) {
        self.count += count;
        let room = MAX_LISTED.saturating_sub(self.listed.len());
        let take = room.min(usize::try_from(count).unwrap_or(usize::MAX));
        self.listed.extend(listed.into_iter().take(take));
    }

    pub(super) fn into_result(self, ok: Validated) -> Result<Validated, ValidationError> {
        if self.count == 0 {
            Ok(ok)
        } else {
            Err(ValidationError {
                count: self.count,
                problems: self.listed,
                overflow: self.overflow,
            })
        }
    }
}

pub(super) fn length_mismatch(what: &str, len: usize, n: u64) -> ValidationError {
    ValidationError {
        count: 1,
        problems: vec![format!(
            "{what} array has {len} entries but the graph has {n} vertices"
        )],
        overflow: false,
    }
}

/// Rule 4's problem text.
pub(super) fn split_message(u: u64, v: u64, reached: u64, unreached: u64) -> String {
    format!("edge ({u}, {v}) joins reached vertex {reached} and unreached vertex {unreached}")
}

/// Whether `d + w` overflows `f32` (both finite, the sum not): the far
/// end of an edge from a vertex at distance `d` cannot get a distance.
pub(super) fn overflows(d: f32, w: f32) -> bool {
    d.is_finite() && w.is_finite() && (d + w).is_infinite()
}

/// Rule 4's problem text when the reason is an [`overflows`]: `kind` is
/// "edge" or "arc".
pub(super) fn overflow_message(
    kind: &str,
    u: u64,
    v: u64,
    r: u64,
    x: u64,
    d: f32,
    w: f32,
) -> String {
    format!(
        "{kind} ({u}, {v}): d({r}) = {d:e} plus its weight {w:e} overflows f32, so vertex {x} has no distance"
    )
}

/// Rule 5's problem text.
pub(super) fn triangle_message(u: u64, v: u64, w: f32, du: f32, dv: f32) -> String {
    format!(
        "edge ({u}, {v}) with weight {w} breaks the triangle rule: d({u}) = {du}, d({v}) = {dv}"
    )
}

/// Rule 6's problem text.
pub(super) fn unconfirmed_message(v: u64, p: u64, d: f32) -> String {
    format!(
        "vertex {v}: no input edge from its parent {p} gives its distance {d} (parent not a neighbour, or wrong distance)"
    )
}

/// Directed rule 4's problem text.
pub(super) fn arc_split_message(u: u64, v: u64) -> String {
    format!("arc ({u}, {v}) leads from reached vertex {u} to unreached vertex {v}")
}

/// Directed rule 5's problem text.
pub(super) fn arc_triangle_message(u: u64, v: u64, w: f32, du: f32, dv: f32) -> String {
    format!("arc ({u}, {v}) with weight {w} breaks the triangle rule: d({u}) = {du}, d({v}) = {dv}")
}

/// Directed rule 6's problem text.
pub(super) fn arc_unconfirmed_message(v: u64, p: u64, d: f32) -> String {
    format!(
        "vertex {v}: no input arc from its parent {p} gives its distance {d} (no arc {p} -> {v}, or wrong distance)"
    )
}
