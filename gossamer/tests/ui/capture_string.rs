fn main() {
    gossamer::main(1, || {
        let t = gossamer::entrust(0usize);
        let s = String::from("key");
        t.apply(move |x| *x += s.len());
    });
}
