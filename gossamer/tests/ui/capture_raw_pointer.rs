fn main() {
    gossamer::main(1, || {
        let t = gossamer::entrust(0u64);
        let local = 5u64;
        let p = &local as *const u64;
        t.apply(move |x| *x += unsafe { *p });
    });
}
