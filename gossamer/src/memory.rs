//! The memory this process may still use, for refusing work that cannot fit
//! before starting it: [`available`] (the tightest of the host's
//! `MemAvailable`, the process's `RLIMIT_AS` and `RLIMIT_DATA`, and its
//! cgroup's memory limit, v2 `memory.max` or v1 `memory.limit_in_bytes`, with
//! what is in use already subtracted), and [`show_bytes`] for messages. The
//! slot memory check ([`check_slot_memory`](crate::check_slot_memory)) uses
//! both; they are public so that other crates' checks read and print memory
//! the same way.

use std::path::{Path, PathBuf};

/// Memory this process may still use, and which limit says so.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Available {
    /// Bytes.
    pub bytes: u64,
    /// Where the figure comes from, in words for messages: `MemAvailable`,
    /// or the limit (its value and what is in use) that is tighter.
    pub source: String,
}

/// Memory this process may still use: the smallest of the host's
/// `MemAvailable`, the headroom under its `RLIMIT_AS` (`ulimit -v`, against
/// `VmSize`) and `RLIMIT_DATA` (`ulimit -d`, against `VmData`), and the
/// headroom of its cgroup and every cgroup above it (v2 `memory.max`
/// against `memory.current`; v1 `memory.limit_in_bytes` against
/// `memory.usage_in_bytes`; the reclaimable `inactive_file` of
/// `memory.stat` counted as free, as `MemAvailable` counts page cache).
/// `None` when none of them can be read.
pub fn available() -> Option<Available> {
    let mut best: Option<Available> = available_bytes_host().map(|bytes| Available {
        bytes,
        source: "MemAvailable".into(),
    });
    let mut take = |a: Option<Available>| {
        if let Some(a) = a {
            if best.as_ref().is_none_or(|b| a.bytes < b.bytes) {
                best = Some(a);
            }
        }
    };
    let limits = std::fs::read_to_string("/proc/self/limits").unwrap_or_default();
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    take(rlimit_headroom(&limits, &status, RLIMIT_AS));
    take(rlimit_headroom(&limits, &status, RLIMIT_DATA));
    let cgroup = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    take(cgroup_headroom(&cgroup, Path::new(CGROUP_ROOT)));
    best
}

/// [`available`] in bytes.
pub fn available_bytes() -> Option<u64> {
    available().map(|a| a.bytes)
}

/// Memory available on this host from `/proc/meminfo` (`MemAvailable`), in bytes;
/// `None` where that file does not exist or cannot be parsed.
fn available_bytes_host() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_meminfo(&text)
}

/// Where cgroup file systems are mounted.
const CGROUP_ROOT: &str = "/sys/fs/cgroup";

/// A resource limit as `/proc/self/limits` names it, with the
/// `/proc/self/status` field it limits and its names for messages.
struct Rlimit {
    row: &'static str,
    usage: &'static str,
    name: &'static str,
    shell: &'static str,
}

const RLIMIT_AS: Rlimit = Rlimit {
    row: "Max address space",
    usage: "VmSize:",
    name: "address-space limit (RLIMIT_AS",
    shell: "ulimit -v",
};

const RLIMIT_DATA: Rlimit = Rlimit {
    row: "Max data size",
    usage: "VmData:",
    name: "data-segment limit (RLIMIT_DATA",
    shell: "ulimit -d",
};

/// The soft limit of `row` in `/proc/self/limits` text, in bytes; `None`
/// when unlimited or absent.
///
/// ```
/// let text = "Limit  Soft Limit  Hard Limit  Units\n\
///             Max data size             unlimited            unlimited            bytes\n\
///             Max address space         38000000             unlimited            bytes\n";
/// assert_eq!(gossamer::memory::parse_limit(text, "Max address space"), Some(38_000_000));
/// assert_eq!(gossamer::memory::parse_limit(text, "Max data size"), None);
/// ```
pub fn parse_limit(limits: &str, row: &str) -> Option<u64> {
    let line = limits.lines().find(|l| l.starts_with(row))?;
    line[row.len()..].split_whitespace().next()?.parse().ok()
}

/// A `kB` field of `/proc/self/status` text (`VmSize:`, `VmData:`), in bytes.
///
/// ```
/// assert_eq!(gossamer::memory::parse_status_kb("VmSize:\t  3896 kB\n", "VmSize:"), Some(3896 * 1024));
/// ```
pub fn parse_status_kb(status: &str, field: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kb: u64 = line[field.len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    kb.checked_mul(1024)
}

fn rlimit_headroom(limits: &str, status: &str, r: Rlimit) -> Option<Available> {
    let limit = parse_limit(limits, r.row)?;
    let used = parse_status_kb(status, r.usage).unwrap_or(0);
    Some(Available {
        bytes: limit.saturating_sub(used),
        source: format!(
            "the process's {}, {}) of {}, {} of it in use",
            r.name,
            r.shell,
            show_bytes(limit),
            show_bytes(used)
        ),
    })
}

/// The cgroup directories of this process from `/proc/self/cgroup` text,
/// under `root`: the v2 one (`0::/path`, under `root` or `root/unified`) and
/// the v1 memory controller's (`N:...memory...:/path`, under
/// `root/memory`), each with the names of its limit and usage files.
fn cgroup_dirs(cgroup: &str, root: &Path) -> Vec<(PathBuf, PathBuf, [&'static str; 3])> {
    let mut dirs = Vec::new();
    for line in cgroup.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(id), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let rel = path.trim_start_matches('/');
        if id == "0" && controllers.is_empty() {
            for base in [root.to_path_buf(), root.join("unified")] {
                dirs.push((
                    base.join(rel),
                    base,
                    ["memory.max", "memory.current", "inactive_file"],
                ));
            }
        } else if controllers.split(',').any(|c| c == "memory") {
            let base = root.join("memory");
            dirs.push((
                base.join(rel),
                base,
                [
                    "memory.limit_in_bytes",
                    "memory.usage_in_bytes",
                    "total_inactive_file",
                ],
            ));
        }
    }
    dirs
}

/// The headroom of this process's cgroups (see [`available`]) read from
/// `/proc/self/cgroup` text and the cgroup files under `root` (normally
/// `/sys/fs/cgroup`): the smallest over the process's cgroup and each one
/// above it that sets a limit. Limits of 2^62 bytes and more, and `max`,
/// mean none.
pub fn cgroup_headroom(cgroup: &str, root: &Path) -> Option<Available> {
    let mut best: Option<Available> = None;
    for (leaf, base, [max_file, current_file, inactive_key]) in cgroup_dirs(cgroup, root) {
        let mut dir = leaf.as_path();
        loop {
            let read = |f: &str| std::fs::read_to_string(dir.join(f)).ok();
            let limit = read(max_file).and_then(|t| t.trim().parse::<u64>().ok());
            if let Some(limit) = limit.filter(|&l| l < 1 << 62) {
                let current = read(current_file)
                    .and_then(|t| t.trim().parse::<u64>().ok())
                    .unwrap_or(0);
                let inactive = read("memory.stat")
                    .and_then(|t| {
                        t.lines()
                            .find_map(|l| l.strip_prefix(inactive_key)?.strip_prefix(' '))
                            .and_then(|v| v.trim().parse::<u64>().ok())
                    })
                    .unwrap_or(0);
                let used = current.saturating_sub(inactive);
                let bytes = limit.saturating_sub(used);
                if best.as_ref().is_none_or(|b| bytes < b.bytes) {
                    best = Some(Available {
                        bytes,
                        source: format!(
                            "the memory limit of cgroup {} ({max_file}) of {}, {} of it in use",
                            dir.display(),
                            show_bytes(limit),
                            show_bytes(used)
                        ),
                    });
                }
            }
            if dir == base {
                break;
            }
            match dir.parent() {
                Some(p) if p.starts_with(&base) => dir = p,
                _ => break,
            }
        }
    }
    best
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
    fn cgroup_limits_of_v1_and_v2_and_their_parents_are_read() {
        let root = std::env::temp_dir().join(format!("gossamer-cgroup-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let put = |rel: &str, file: &str, text: &str| {
            let d = root.join(rel);
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join(file), text).unwrap();
        };
        // v2: the job's own cgroup has no limit, its parent 512 MiB with
        // 200 MiB in use of which 50 MiB is reclaimable page cache.
        put("job.slice/step", "memory.max", "max\n");
        put("job.slice/step", "memory.current", "1000\n");
        put("job.slice", "memory.max", &format!("{}\n", 512u64 << 20));
        put(
            "job.slice",
            "memory.current",
            &format!("{}\n", 200u64 << 20),
        );
        put(
            "job.slice",
            "memory.stat",
            &format!("anon 1\ninactive_file {}\n", 50u64 << 20),
        );
        let a = cgroup_headroom("0::/job.slice/step\n", &root).unwrap();
        assert_eq!(a.bytes, (512 - 150) << 20);
        assert!(
            a.source
                .contains("job.slice (memory.max) of 512.0 MiB, 150.0 MiB of it in use"),
            "{}",
            a.source
        );
        // v1: the memory controller's tree, an unlimited value ignored.
        put(
            "memory/grp",
            "memory.limit_in_bytes",
            &format!("{}\n", 64u64 << 20),
        );
        put(
            "memory/grp",
            "memory.usage_in_bytes",
            &format!("{}\n", 16u64 << 20),
        );
        put("memory", "memory.limit_in_bytes", "9223372036854771712\n");
        let a = cgroup_headroom("5:memory:/grp\n4:pids:/grp\n", &root).unwrap();
        assert_eq!(a.bytes, 48 << 20);
        assert!(a.source.contains("memory.limit_in_bytes"), "{}", a.source);
        // The tighter of both; no cgroup file at all: no limit.
        let both = cgroup_headroom("0::/job.slice/step\n5:memory:/grp\n", &root).unwrap();
        assert_eq!(both.bytes, 48 << 20);
        assert_eq!(cgroup_headroom("0::/elsewhere\n", &root), None);
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn rlimits_count_what_is_in_use() {
        let limits = "Max data size             unlimited            unlimited            bytes\n\
                      Max address space         41943040             unlimited            bytes\n";
        let status = "VmSize:\t   10240 kB\nVmData:\t    2048 kB\n";
        let a = rlimit_headroom(limits, status, RLIMIT_AS).unwrap();
        assert_eq!(a.bytes, 30 << 20);
        assert!(
            a.source
                .contains("RLIMIT_AS, ulimit -v) of 40.0 MiB, 10.0 MiB of it in use"),
            "{}",
            a.source
        );
        assert_eq!(rlimit_headroom(limits, status, RLIMIT_DATA), None);
        // This process's own figure is never above the host's.
        if let (Some(host), Some(here)) = (available_bytes_host(), available_bytes()) {
            assert!(here <= host);
        }
    }

    #[test]
    fn sizes_print_in_gib_or_mib() {
        assert_eq!(show_bytes(1u64 << 30), "1.0 GiB");
        assert_eq!(show_bytes(131_072_000_000u128), "122.1 GiB");
        assert_eq!(show_bytes(0u64), "0.0 MiB");
    }
}
