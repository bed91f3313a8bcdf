//! This host's memory, for refusing work that cannot fit before starting it:
//! [`available_bytes`] (`MemAvailable`) and [`show_bytes`] for messages. The slot
//! memory check ([`check_slot_memory`](crate::check_slot_memory)) uses both; they
//! are public so that other crates' checks read and print memory the same way.

/// Memory available on this host from `/proc/meminfo` (`MemAvailable`), in bytes;
/// `None` where that file does not exist or cannot be parsed.
pub fn available_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_meminfo(&text)
}

/// Extracts `MemAvailable` (kB) from `/proc/meminfo` text, in bytes.
///
/// ```
/// let text = "MemTotal:  16 kB\nMemAvailable:    2048 kB\n";
/// assert_eq!(gossamer::memory::parse_meminfo(text), Some(2 << 20));
/// ```
pub fn parse_meminfo(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let mut parts = line.split_whitespace().skip(1);
    let kb: u64 = parts.next()?.parse().ok()?;
    match parts.next() {
        Some("kB") | None => kb.checked_mul(1024),
        Some(_) => None,
    }
}

/// A byte count for people: GiB with one decimal from 1 GiB on, else MiB.
///
/// ```
/// use gossamer::memory::show_bytes;
/// assert_eq!(show_bytes(3u64 << 29), "1.5 GiB");
/// assert_eq!(show_bytes(512u64 << 10), "0.5 MiB");
/// ```
pub fn show_bytes(bytes: impl Into<u128>) -> String {
    const GIB: f64 = (1u64 << 30) as f64;
    const MIB: f64 = (1u64 << 20) as f64;
    let f = bytes.into() as f64;
    if f >= GIB {
        format!("{:.1} GiB", f / GIB)
    } else {
        format!("{:.1} MiB", f / MIB)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meminfo_is_read_in_kilobytes_and_other_units_are_refused() {
        assert_eq!(parse_meminfo("MemAvailable: 3 kB"), Some(3072));
        assert_eq!(parse_meminfo("MemAvailable: 3"), Some(3072));
        assert_eq!(parse_meminfo("MemAvailable: 3 MB"), None);
        assert_eq!(parse_meminfo("MemFree: 3 kB"), None);
        assert_eq!(parse_meminfo("MemAvailable: x kB"), None);
    }

    #[test]
    fn sizes_print_in_gib_or_mib() {
        assert_eq!(show_bytes(1u64 << 30), "1.0 GiB");
        assert_eq!(show_bytes(131_072_000_000u128), "122.1 GiB");
        assert_eq!(show_bytes(0u64), "0.0 MiB");
    }
}
