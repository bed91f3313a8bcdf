//! Capturing a non-plain value in a delegated closure is a compile error with our
//! message (see tests/ui/*.stderr).
#[test]
fn forbidden_captures_fail_with_the_delegation_message() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/capture_*.rs");
}
