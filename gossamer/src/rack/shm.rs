//! The shared-memory region of a one-host rack: a file in `/dev/shm` that every rank
//! maps. Rank 0 creates it; it is unlinked as soon as every rank has mapped it, so
//! a crash afterwards cannot leave it behind (the launcher also removes it, for a
//! crash before that point).

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
        f.set_len(len as u64)
            .map_err(|e| format!("could not size {} to {len} bytes: {e}", path.display()))?;
        Self::map(&f, path)
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

/// The path of job `job`'s region.
pub(crate) fn path_for(job: &str) -> PathBuf {
    Path::new(SHM_DIR).join(file_prefix(job))
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
        let p = path_for(&job);
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
}
