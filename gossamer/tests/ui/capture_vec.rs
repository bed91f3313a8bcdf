fn main() {
    gossamer::main(1, || {
        let t = gossamer::entrust(0u64);
        let v = vec![1u64, 2, 3];
        t.apply_then(move |x| *x += v[0], |()| {});
    });
}
