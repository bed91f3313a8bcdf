//! Trampolines: the monomorphised trustee-side handlers a record's code word names
//! (`crate::worker::Trampoline`). Each reads exactly what the matching client
//! method wrote after the record header, runs the closure on the property, and
//! appends the return value to the response. [`tramp!`] turns one into a code word.

use super::launch::start_launch;
use super::property::{new_prop, value_mut};
use super::values::{put_serde, put_value, read_serde};
use crate::pod::Pod;
use crate::slot::{AlignedBuf, Reader};
use crate::worker::{worker, PropHeader};
use serde::{de::DeserializeOwned, Serialize};

#[inline(always)]
pub(crate) fn code<X>(f: X) -> u64
where
    X: Copy,
{
    debug_assert_eq!(size_of::<X>(), size_of::<usize>());
    // SAFETY: X is always a `Trampoline` fn pointer at call sites (see below).
    unsafe { std::mem::transmute_copy::<X, usize>(&f) as u64 }
}

macro_rules! tramp {
    ($e:expr) => {
        $crate::trust::trampolines::code::<$crate::worker::Trampoline>($e)
    };
}

pub(crate) use tramp;

pub(super) unsafe fn tr_apply<T, F: FnOnce(&mut T) -> U + Copy, U: Copy>(
    p: u64,
    r: &mut Reader,
    out: &mut AlignedBuf,
) {
    // SAFETY: the client wrote an F here with `put_value`; `p` is a live PropBox<T>.
    let f: F = unsafe { r.value() };
    let u = f(unsafe { value_mut::<T>(p) });
    put_value(out, u);
}

pub(super) unsafe fn tr_returning<T, F: FnOnce(&mut T) -> U + Copy, U: Serialize>(
    p: u64,
    r: &mut Reader,
    out: &mut AlignedBuf,
) {
    // SAFETY: as in `tr_apply`.
    let f: F = unsafe { r.value() };
    let u = f(unsafe { value_mut::<T>(p) });
    put_serde(out, &u);
}

pub(super) unsafe fn tr_with<T, F: FnOnce(&mut T, V) -> U + Copy, V: DeserializeOwned, U: Copy>(
    p: u64,
    r: &mut Reader,
    out: &mut AlignedBuf,
) {
    // SAFETY: as in `tr_apply`; the payload follows the closure.
    let f: F = unsafe { r.value() };
    let v: V = read_serde(r);
    let u = f(unsafe { value_mut::<T>(p) }, v);
    put_value(out, u);
}

pub(super) unsafe fn tr_slice<T, F: FnOnce(&mut T, &[R]) -> U + Copy, R: Pod, U: Copy>(
    p: u64,
    r: &mut Reader,
    out: &mut AlignedBuf,
) {
    // SAFETY: as in `tr_apply`.
    let f: F = unsafe { r.value() };
    let (d, n) = r.bytes();
    // SAFETY: the client copied `n / size_of R` Pod records here; slot and
    // reassembly memory are 8-aligned and records start at 8-aligned offsets, and
    // `align_of::<R>() <= 8` is checked at compile time by the client method.
    let data = unsafe { std::slice::from_raw_parts(d as *const R, n / size_of::<R>()) };
    let u = f(unsafe { value_mut::<T>(p) }, data);
    put_value(out, u);
}

pub(super) unsafe fn tr_entrust_with<T: 'static, F: FnOnce() -> T + Copy>(
    _: u64,
    r: &mut Reader,
    out: &mut AlignedBuf,
) {
    // SAFETY: the client wrote an F here.
    let f: F = unsafe { r.value() };
    let addr = new_prop(worker("entrust_with"), f());
    put_value(out, addr);
}

pub(super) unsafe fn tr_entrust_boxed<T: 'static>(p: u64, _: &mut Reader, out: &mut AlignedBuf) {
    // SAFETY: `p` is a `Box<T>` leaked by `entrust_on` in this process, sent once.
    let b = unsafe { Box::from_raw(p as *mut T) };
    let addr = new_prop(worker("entrust_on"), *b);
    put_value(out, addr);
}

pub(super) unsafe fn tr_top_up(p: u64, r: &mut Reader, _: &mut AlignedBuf) {
    let add = r.u64();
    // SAFETY: `p` is a live property of this trustee (the requesting trust holds weight).
    let h = unsafe { &*(p as *const PropHeader) };
    h.weight.set(h.weight.get() + add as u128);
}

pub(super) unsafe fn tr_release(p: u64, r: &mut Reader, _: &mut AlignedBuf) {
    let w = r.u64();
    // SAFETY: the weight was owned by a trust of this live property.
    unsafe { worker("release").release_local(p as *mut PropHeader, w) };
}

pub(super) unsafe fn tr_launch<
    T: 'static,
    F: FnOnce(&mut T) -> U + Copy + 'static,
    U: Copy + 'static,
>(
    p: u64,
    r: &mut Reader,
    _: &mut AlignedBuf,
) {
    // SAFETY: the client wrote F, its worker id and the launch token.
    let f: F = unsafe { r.value() };
    let client = r.u64() as usize;
    let token = r.u64();
    start_launch::<T, F, U>(worker("launch"), p, f, client, token);
}

pub(crate) unsafe fn tr_launch_done(token: u64, r: &mut Reader, _: &mut AlignedBuf) {
    worker("launch").finish_launch(token, r);
}
