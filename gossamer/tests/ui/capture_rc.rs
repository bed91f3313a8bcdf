use std::rc::Rc;
fn main() {
    gossamer::main(1, || {
        let t = gossamer::entrust(0u64);
        let r = Rc::new(5u64);
        t.apply(move |x| *x += *r);
    });
}
