//! Checks of the roots (sources) a kernel is asked to start from.

use graph_core::sharded::KernelError;

/// `Ok` when `roots` holds 1 to `max` vertices of a graph of `n`;
/// otherwise [`KernelError::Config`] (`"{count} sources: {rule}"`, `rule`
/// saying what the kernel takes) for a bad count, or
/// [`KernelError::RootOutOfRange`] for the first root outside the graph.
///
/// ```
/// use graph_core::sharded::KernelError;
/// use graph_kernel::roots::check_roots;
/// assert!(check_roots(&[0, 4], 5, 2, "two at most").is_ok());
/// let e = check_roots(&[0, 1, 2], 5, 2, "two at most").unwrap_err();
/// assert_eq!(e.to_string(), KernelError::Config("3 sources: two at most".into()).to_string());
/// assert!(matches!(check_roots(&[], 5, 2, ""), Err(KernelError::Config(_))));
/// let far = check_roots(&[1, 5], 5, 2, "");
/// assert!(matches!(far, Err(KernelError::RootOutOfRange { root: 5, vertices: 5 })));
/// ```
pub fn check_roots(roots: &[u64], n: u64, max: usize, rule: &str) -> Result<(), KernelError> {
    if roots.is_empty() || roots.len() > max {
        return Err(KernelError::Config(format!(
            "{} sources: {rule}",
            roots.len()
        )));
    }
    match roots.iter().find(|&&r| r >= n) {
        Some(&root) => Err(KernelError::RootOutOfRange { root, vertices: n }),
        None => Ok(()),
    }
}
