//! Making properties: [`entrust`] (on this worker), [`entrust_on`] (move a value
//! to a worker of this process) and [`entrust_with`] (build the value on any
//! worker, also in another rank). Each returns the first [`Trust`], holding the
//! property's whole initial weight.

use super::property::{new_prop, INITIAL_WEIGHT};
use super::trampolines::{tr_entrust_boxed, tr_entrust_with, tramp};
use super::values::read_into;
use super::Trust;
use crate::delegable::Delegable;
use crate::runtime::WorkerId;
use crate::slot::{pad8, RECORD_HEADER};
use crate::worker::{blocking_point, worker, Cont, Worker};
use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicU32, AtomicU64};

/// Entrusts `value` to the current worker's trustee.
pub fn entrust<T: 'static>(value: T) -> Trust<T> {
    let w = worker("entrust");
    let ptr = new_prop(w, value);
    fresh(ptr, w.id, w)
}

/// The first trust of the property at `ptr` on worker `trustee` of `w`'s run.
fn fresh<T>(ptr: u64, trustee: usize, w: &Worker) -> Trust<T> {
    Trust {
        ptr,
        trustee: u32::try_from(trustee).expect("worker ids fit u32"),
        rt: w.shared.rt,
        weight: AtomicU64::new(INITIAL_WEIGHT),
        users: AtomicU32::new(0),
        _p: PhantomData,
    }
}

/// Checks that worker `w` exists (for `what`).
fn check_target(me: &Worker, w: WorkerId, what: &str) {
    assert!(
        w.0 < me.n(),
        "gossamer: {what}({w}) but there are only {} workers",
        me.n()
    );
}

/// Moves `value` to worker `w`'s trustee (blocking when `w` is another worker).
///
/// The value moves through process memory, so this is for one machine only;
/// [`entrust_with`] builds the value on the trustee and works across machines.
pub fn entrust_on<T: Send + 'static>(w: WorkerId, value: T) -> Trust<T> {
    let me = worker("entrust_on");
    check_target(me, w, "entrust_on");
    if w.0 == me.id {
        return entrust(value);
    }
    assert!(
        me.shared.is_local(w.0),
        "gossamer: entrust_on({w}) targets another process (rank) of this rack run; a value \
         cannot move there through memory. Use `entrust_with` (the value is built on the \
         trustee by a Delegable closure) instead"
    );
    let me = blocking_point("entrust_on");
    let boxed = Box::into_raw(Box::new(value)) as u64;
    let ptr = remote_addr(
        me,
        w.0,
        tramp!(tr_entrust_boxed::<T>),
        boxed,
        RECORD_HEADER,
        |_| {},
    );
    fresh(ptr, w.0, me)
}

/// Builds a property on worker `w` by running `init` there (blocking when `w` is
/// another worker). `init` crosses the channel as bytes, like any delegated closure.
pub fn entrust_with<T: 'static, F>(w: WorkerId, init: F) -> Trust<T>
where
    F: FnOnce() -> T + Delegable,
{
    let me = worker("entrust_with");
    check_target(me, w, "entrust_with");
    if w.0 == me.id {
        return entrust(init());
    }
    let me = blocking_point("entrust_with");
    let len = RECORD_HEADER + pad8(size_of::<F>());
    let ptr = remote_addr(me, w.0, tramp!(tr_entrust_with::<T, F>), 0, len, |wr| {
        wr.put_value(init)
    });
    fresh(ptr, w.0, me)
}

fn remote_addr(
    me: &Worker,
    t: usize,
    code: u64,
    prop: u64,
    len: usize,
    write: impl FnOnce(&mut crate::slot::Writer),
) -> u64 {
    let mut out = MaybeUninit::<u64>::uninit();
    let cont = Cont::Wake {
        fid: me.current_fiber(),
        out: out.as_mut_ptr() as *mut u8,
        read: read_into::<u64>,
    };
    me.enqueue(t, code, prop, len, cont, write);
    me.park();
    // SAFETY: the continuation wrote the address before waking us.
    unsafe { out.assume_init() }
}
