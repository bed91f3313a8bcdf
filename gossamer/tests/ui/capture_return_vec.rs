fn main() {
    gossamer::main(1, || {
        let t = gossamer::entrust(vec![1u8]);
        let _copy = t.apply(|v| v.clone());
    });
}
