//! [`test_hook!`](crate::test_hook): an environment variable read only in
//! builds with the `test-hooks` feature. Without it the macro is `None` and
//! the variable's name is not compiled in, so a user who sets it by mistake
//! changes nothing. A program's integration tests turn the feature on
//! through a dev-dependency (`graph-kernel = { features = ["test-hooks"] }`),
//! which with resolver 2 applies only to builds of tests.

/// The value of environment variable `$name` (an `Option<OsString>`) in a
/// build with the `test-hooks` feature; always `None` without it, and then
/// `$name` is not in the program.
///
/// ```
/// let corrupt = graph_kernel::test_hook!("EXAMPLE_TEST_HOOK").is_some_and(|v| v == "1");
/// assert!(!corrupt);
/// ```
#[cfg(feature = "test-hooks")]
#[macro_export]
macro_rules! test_hook {
    ($name:literal) => {
        ::std::env::var_os($name)
    };
}

/// The value of environment variable `$name` (an `Option<OsString>`) in a
/// build with the `test-hooks` feature; always `None` without it, and then
/// `$name` is not in the program.
///
/// ```
/// let corrupt = graph_kernel::test_hook!("EXAMPLE_TEST_HOOK").is_some_and(|v| v == "1");
/// assert!(!corrupt);
/// ```
#[cfg(not(feature = "test-hooks"))]
#[macro_export]
macro_rules! test_hook {
    ($name:literal) => {
        ::core::option::Option::<::std::ffi::OsString>::None
    };
}
