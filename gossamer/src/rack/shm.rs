//! The shared-memory region of a one-host rack, mapped by every rank.
//!
//! Under the built-in launcher it is unnamed: the launcher creates a `memfd` that
//! every rank inherits (`GOSSAMER_SHM_FD`), so there is no file at all and nothing
//! can be left behind, whoever is killed when. Under another launcher (no common
//! parent) rank 0 creates a file in `/dev/shm` whose name ends in its pid; it is
//! unlinked as soon as every rank mapped it, or when the bootstrap fails, and a
//! rank 0 starting up removes this user's regions whose creator is gone (rank 0
//! killed during bootstrap).

use memmap2::MmapMut;
use std::fs::OpenOptions;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// Directory of shared-memory files.
pub const SHM_DIR: &str = "/dev/shm";

/// The file name prefix of a job's region (the launcher removes `prefix*`).
pub fn file_prefix(job: &str) -> String {
    format!("gossamer-{job}")
}

/// A mapped region.
pub(crate) struct ShmRegion {
    /// Keeps the mapping alive (unmapped on drop).
    _map: MmapMut,
    base: *mut u8,
}

// SAFETY: the mapping is plain shared memory, accessed through raw pointers under the
// slot protocol (and atomics for ready and sleeping words).
unsafe impl Send for ShmRegion {}
// SAFETY: as above.
unsafe impl Sync for ShmRegion {}

impl ShmRegion {
    /// Creates (exclusively) and maps a zeroed file of `len` bytes.
    pub(crate) fn create(path: &Path, len: usize) -> Result<Self, String> {
        let f = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)
            .map_err(|e| format!("could not create {}: {e}", path.display()))?;
        let r = f
            .set_len(len as u64)
            .map_err(|e| format!("could not size {} to {len} bytes: {e}", path.display()))
            .and_then(|()| Self::map(&f, path));
        if r.is_err() {
            let _ = std::fs::remove_file(path);
        }
        r
    }

    /// Maps the inherited unnamed region `fd` (see the module docs): rank 0 sizes
    /// it (`create`), the others check its size.
    pub(crate) fn from_fd(fd: i32, len: usize, create: bool) -> Result<Self, String> {
        use std::os::fd::FromRawFd;
        let what = format!("the shared region GOSSAMER_SHM_FD={fd}");
        // SAFETY: dup has no memory preconditions; a bad fd fails with EBADF.
        let own = unsafe { libc::dup(fd) };
        if own < 0 {
            return Err(format!(
                "could not use {what}: {}",
                std::io::Error::last_os_error()
            ));
        }
        // SAFETY: `own` is a descriptor dup just returned, owned by nobody else.
        let f = unsafe { std::fs::File::from_raw_fd(own) };
        let got = f.metadata().map_err(|e| format!("{what}: {e}"))?.len();
        if create {
            if got != 0 {
                return Err(format!("{what} is already in use ({got} bytes)"));
            }
            f.set_len(len as u64)
                .map_err(|e| format!("could not size {what} to {len} bytes: {e}"))?;
        } else if got != len as u64 {
            return Err(format!("{what} has {got} bytes, expected {len}"));
        }
        Self::map(&f, Path::new(&what))
    }

    /// Opens and maps an existing region of `len` bytes.
    pub(crate) fn open(path: &Path, len: usize) -> Result<Self, String> {
        let f = OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| format!("could not open the shared region {}: {e}", path.display()))?;
        let got = f.metadata().map_err(|e| e.to_string())?.len();
        if got != len as u64 {
            return Err(format!(
                "shared region {} has {got} bytes, expected {len}",
                path.display()
            ));
        }
        Self::map(&f, path)
    }

    fn map(f: &std::fs::File, path: &Path) -> Result<Self, String> {
        // SAFETY: the file is this job's private region (mode 0600, exclusive name).
        // Other ranks modify it concurrently by design; we never form Rust references
        // to its bytes, only raw pointers and atomics (see slots.rs and park.rs).
        let mut map = unsafe { MmapMut::map_mut(f) }
            .map_err(|e| format!("could not map {}: {e}", path.display()))?;
        let base = map.as_mut_ptr();
        Ok(ShmRegion { _map: map, base })
    }

    pub(crate) fn base(&self) -> *mut u8 {
        self.base
    }
}

/// The path of job `job`'s region created by process `pid` (rank 0).
pub(crate) fn path_for(job: &str, pid: u32) -> PathBuf {
    Path::new(SHM_DIR).join(format!("{}.p{pid}", file_prefix(job)))
}

/// Removes this user's regions in `/dev/shm` whose creator (the pid at the end of
/// the name) no longer exists: a rank 0 killed during bootstrap. Returns how many.
pub(crate) fn sweep_stale() -> usize {
    use std::os::unix::fs::MetadataExt;
    let Ok(dir) = std::fs::read_dir(SHM_DIR) else {
        return 0;
    };
    // SAFETY: getuid has no preconditions.
    let uid = unsafe { libc::getuid() };
    dir.flatten()
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            let Some(pid) = name
                .strip_prefix("gossamer-")
                .and_then(|n| n.rsplit_once(".p"))
                .and_then(|(_, p)| p.parse::<libc::pid_t>().ok())
                .filter(|&p| p > 0)
            else {
                return false;
            };
            let mine = e.metadata().map(|m| m.uid() == uid).unwrap_or(false);
            // SAFETY: signal 0 only checks that the process exists.
            let gone = unsafe { libc::kill(pid, 0) } != 0
                && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
            mine && gone
        })
        .filter(|e| std::fs::remove_file(e.path()).is_ok())
        .count()
}

/// Removes a region file when dropped, unless disarmed: no early return of the
/// bootstrap leaves the file behind.
pub(crate) struct Unlink(pub Option<PathBuf>);

impl Unlink {
    /// Removes the file now.
    pub(crate) fn now(&mut self) {
        if let Some(p) = self.0.take() {
            let _ = std::fs::remove_file(p);
        }
    }
}

impl Drop for Unlink {
    fn drop(&mut self) {
        self.now();
    }
}

/// Removes every region file of job `job` (best effort). Returns how many.
pub fn remove_job_files(job: &str) -> usize {
    let prefix = file_prefix(job);
    let Ok(dir) = std::fs::read_dir(SHM_DIR) else {
        return 0;
    };
    dir.flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .filter(|e| std::fs::remove_file(e.path()).is_ok())
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_open_share_and_remove() {
        let job = format!("unit-{}", std::process::id());
        let p = path_for(&job, std::process::id());
        let a = ShmRegion::create(&p, 8192).unwrap();
        assert!(ShmRegion::create(&p, 8192).is_err(), "exclusive");
        let b = ShmRegion::open(&p, 8192).unwrap();
        assert!(ShmRegion::open(&p, 4096)
            .err()
            .unwrap()
            .contains("expected 4096"));
        // SAFETY: both map the same 8192-byte file; offset 100 is inside.
        unsafe {
            *a.base().add(100) = 42;
            assert_eq!(*b.base().add(100), 42);
        }
        assert_eq!(remove_job_files(&job), 1);
        assert!(!p.exists());
        // the mappings stay valid after unlink
        // SAFETY: as above.
        unsafe { assert_eq!(*b.base().add(100), 42) };
    }

    #[test]
    fn stale_regions_of_dead_creators_are_swept_live_ones_kept() {
        let job = format!("sweep-{}", std::process::id());
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let stale = path_for(&job, dead);
        let live = path_for(&job, std::process::id());
        std::fs::write(&stale, b"x").unwrap();
        std::fs::write(&live, b"x").unwrap();
        assert!(sweep_stale() >= 1);
        assert!(!stale.exists(), "the dead creator's region is removed");
        assert!(live.exists(), "a live creator's region is kept");
        {
            let _g = Unlink(Some(live.clone()));
        }
        assert!(!live.exists(), "the guard removes it");
    }
}
