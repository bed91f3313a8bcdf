fn main() {
    gossamer::main(1, || {
        let t = gossamer::entrust(0u64);
        let local = 5u64;
        let r = &local;
        t.apply(move |x| *x += *r);
    });
}
