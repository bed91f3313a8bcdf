//! [`Pod`]: plain-old-data records that travel through slots without encoding.

/// Plain old data: any bit pattern of `size_of::<Self>()` initialised bytes is a
/// valid value, and the type has no padding, pointers or references.
///
/// `apply_slice` copies `&[R]` into slot memory with one `memcpy` and hands the
/// trustee a `&[R]` pointing into the slot, so records need no encoding at all.
/// Alignment must be at most 8 (checked at compile time by `apply_slice`).
///
/// # Safety
/// Implement only for types that have no padding bytes, contain no pointers or
/// references, and for which every bit pattern is valid. Prefer the
/// [`pod_struct!`](crate::pod_struct) macro, which checks the no-padding rule at
/// compile time for `#[repr(C)]` structs of `Pod` fields.
pub unsafe trait Pod: Copy + Send + Sync + 'static {}

macro_rules! impl_pod {
    ($($t:ty),*) => { $(
        // SAFETY: primitive integers and floats have no padding and every bit
        // pattern is a valid value.
        unsafe impl Pod for $t {}
    )* };
}
impl_pod!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64);

// SAFETY: an array of Pod elements has no padding between elements (size is a
// multiple of alignment) and every bit pattern of each element is valid.
unsafe impl<T: Pod, const N: usize> Pod for [T; N] {}

/// Declares a `#[repr(C)]` struct of [`Pod`] fields and implements [`Pod`] for it,
/// with a compile-time check that the struct has no padding.
///
/// ```
/// gossamer::pod_struct! {
///     /// One relaxation request: target vertex, tentative distance, parent.
///     #[derive(Debug, PartialEq)]
///     pub struct Relax { pub v: u32, pub dist: f32, pub parent: u32 }
/// }
/// let r = Relax { v: 1, dist: 0.5, parent: 0 };
/// assert_eq!(std::mem::size_of::<Relax>(), 12);
/// # let _ = r;
/// ```
///
/// A struct with padding is rejected at compile time:
///
/// ```compile_fail
/// gossamer::pod_struct! { pub struct Bad { pub a: u8, pub b: u32 } }
/// ```
#[macro_export]
macro_rules! pod_struct {
    ($(#[$m:meta])* $vis:vis struct $name:ident { $($fvis:vis $f:ident : $t:ty),* $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy)]
        #[repr(C)]
        $vis struct $name { $($fvis $f: $t),* }
        const _: () = {
            const fn is_pod<T: $crate::Pod>() {}
            $( is_pod::<$t>(); )*
            assert!(
                ::core::mem::size_of::<$name>() == 0 $(+ ::core::mem::size_of::<$t>())*,
                "pod_struct!: this struct has padding; reorder fields or add explicit padding fields"
            );
        };
        // SAFETY: repr(C), every field is Pod, and the assertion above proves there is
        // no padding, so every bit pattern of the struct's bytes is a valid value.
        unsafe impl $crate::Pod for $name {}
    };
}
