//! [`Delegable`]: what may cross the delegation channel as raw bytes.

/// A plain value that may cross the delegation channel as its raw bytes: delegated
/// closures, their return values, and `entrust_with` initialisers.
///
/// The bound is `Copy + Send + 'static`, which rules out `Box`, `Vec`, `String`, `Rc`,
/// raw pointers and non-`'static` references: none of those stay meaningful once
/// their bytes are copied into another worker's (or, later, another machine's) slot.
/// Heap values go through the serialized payload of
/// [`Trust::apply_with`](crate::Trust::apply_with) instead:
/// `trust.apply_with(|prop, v| prop.push(v), v)`, several values as a tuple
/// `trust.apply_with(|map, (k, v)| map.insert(k, v), (k, v))`.
///
/// Known gap (stable Rust has no auto traits): a `&'static T` with `T: Sync` is
/// `Copy + Send + 'static` and therefore passes. It is valid inside one process but
/// will not be across machines.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot cross the delegation channel: a delegated closure or its return value may hold only plain values",
    label = "this captures (or returns) a Box, Vec, String, Rc, reference or raw pointer, or is not `Copy + Send + 'static`",
    note = "the closure is copied byte for byte into the trustee's request slot, so it may capture only plain values (integers, floats, arrays, `Copy` structs); use `move` closures",
    note = "pass heap values as the payload of `apply_with` instead, which serializes them: `trust.apply_with(|prop, v| ..., v)`; several values as a tuple: `trust.apply_with(|prop, (a, b)| ..., (a, b))`; return heap values with `apply_returning`"
)]
pub trait Delegable: Copy + Send + 'static {}

// `do_not_recommend` makes rustc report the unmet `Delegable` bound itself (with the
// message above) instead of the inner `Copy`/`Send` obligation of this impl.
#[diagnostic::do_not_recommend]
impl<T: Copy + Send + 'static> Delegable for T {}
