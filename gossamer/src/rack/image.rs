//! The program image: every rank must run the same binary at the same addresses,
//! because request records carry code pointers (trampolines) and closures may
//! capture `&'static` data.
//!
//! - [`disable_aslr`] re-executes the process once with address-space randomisation
//!   off (`personality(ADDR_NO_RANDOMIZE)`, then exec of `/proc/self/exe` with the
//!   same arguments; the variable `GOSSAMER_ASLR_OFF` makes sure it happens once).
//! - [`Identity`] is what ranks compare at bootstrap: the GNU build id of the main
//!   program (or a hash of the executable when it has none) and the address of an
//!   anchor function.
//! - [`text_bounds`] is the main program's executable `PT_LOAD` segment: a code word
//!   outside it is rejected, never called.
//!
//! All the unsafe code of this module is FFI to `personality` and
//! `dl_iterate_phdr`, and reading the program headers that the latter hands out.

use std::io::Read;
use std::os::unix::process::CommandExt;

const GUARD: &str = "GOSSAMER_ASLR_OFF";
const PDEATH: &str = "GOSSAMER_PDEATHSIG";

/// Sets again the parent-death signal that `disable_aslr` passed through an exec,
/// and exits if that parent is already gone.
fn restore_parent_death_signal() {
    let Ok(v) = std::env::var(PDEATH) else { return };
    std::env::remove_var(PDEATH);
    // SIGNAL:PID, as `disable_aslr` sets it for the image it executes.
    let parsed = v.split_once(':').and_then(|(sig, ppid)| {
        let sig = sig
            .parse::<libc::c_int>()
            .ok()
            .filter(|s| (1..=64).contains(s))?;
        let ppid = ppid.parse::<libc::pid_t>().ok().filter(|&p| p >= 1)?;
        Some((sig, ppid))
    });
    let Some((sig, ppid)) = parsed else {
        eprintln!(
            "gossamer: warning: ignoring {PDEATH}={v:?}: gossamer sets it to SIGNAL:PID (a signal 1 to 64, the launcher's pid) when it re-executes a rank; unset it"
        );
        return;
    };
    // SAFETY: sets a signal number for this process; no memory involved.
    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, sig as libc::c_ulong) };
    // SAFETY: getppid has no preconditions.
    if unsafe { libc::getppid() } != ppid {
        eprintln!("gossamer: the launcher exited while this rank started; exiting");
        std::process::exit(1);
    }
}

/// Re-executes this process with ASLR disabled, unless that is already the case.
/// Returns only when no re-exec was needed (or possible: then the returned message
/// says why, and the bootstrap identity check will catch a layout mismatch).
pub(crate) fn disable_aslr() -> Result<(), String> {
    restore_parent_death_signal();
    // SAFETY: querying the personality (0xffffffff) changes nothing.
    let cur = unsafe { libc::personality(0xffff_ffff) };
    if cur >= 0 && cur & libc::ADDR_NO_RANDOMIZE != 0 {
        return Ok(());
    }
    if std::env::var_os(GUARD).is_some() {
        return Err(format!(
            "ASLR is still on although {GUARD} is set: gossamer sets it when it re-executes a rank with ASLR off, so either personality() is blocked here or {GUARD} was set by hand (unset it)"
        ));
    }
    // SAFETY: sets a flag for future execs of this process; no memory involved.
    let r = unsafe { libc::personality((cur.max(0) | libc::ADDR_NO_RANDOMIZE) as libc::c_ulong) };
    if r < 0 {
        return Err(format!(
            "personality(ADDR_NO_RANDOMIZE) failed: {}",
            std::io::Error::last_os_error()
        ));
    }
    let mut args = std::env::args_os();
    let argv0 = args.next().unwrap_or_default();
    let mut cmd = std::process::Command::new("/proc/self/exe");
    cmd.arg0(argv0).args(args).env(GUARD, "1");
    // The exec may clear a parent-death signal (the launcher's way to take its ranks
    // down with it); pass it on so the new image sets it again.
    let mut sig: libc::c_int = 0;
    // SAFETY: PR_GET_PDEATHSIG writes one int to the pointer we pass.
    if unsafe { libc::prctl(libc::PR_GET_PDEATHSIG, &mut sig as *mut libc::c_int) } == 0 && sig != 0
    {
        // SAFETY: getppid has no preconditions.
        let ppid = unsafe { libc::getppid() };
        cmd.env(PDEATH, format!("{sig}:{ppid}"));
    }
    let err = cmd.exec();
    Err(format!("could not re-execute /proc/self/exe: {err}"))
}

/// What must agree between ranks.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Identity {
    /// GNU build id, or `hash:` + a hash of the executable file.
    pub build_id: Vec<u8>,
    /// SHA-256 of the whole executable file (`/proc/self/exe`): a build id alone
    /// does not change when a binary is patched or rebuilt with other contents.
    pub exe_sha256: Vec<u8>,
    /// Address of [`anchor`] in this process.
    pub anchor: u64,
}

#[inline(never)]
fn anchor() -> u64 {
    anchor as fn() -> u64 as usize as u64
}

impl Identity {
    /// This process's identity. In test builds (feature `test-hooks`) the
    /// variable `GOSSAMER_TEST_IDENTITY_SALT` is appended to the build id; it can
    /// only make ranks disagree, never agree.
    pub(crate) fn current() -> Identity {
        let exe_sha256 = exe_sha256().to_vec();
        let build_id = main_program_build_id().unwrap_or_else(|| {
            let mut v = b"sha256:".to_vec();
            v.extend_from_slice(&exe_sha256);
            v
        });
        #[cfg(feature = "test-hooks")]
        let build_id = {
            let mut b = build_id;
            if let Ok(s) = std::env::var("GOSSAMER_TEST_IDENTITY_SALT") {
                b.extend_from_slice(s.as_bytes());
            }
            b
        };
        Identity {
            build_id,
            exe_sha256,
            anchor: anchor(),
        }
    }

    /// Checks a peer's identity against ours; the error says what differs and what
    /// to do.
    pub(crate) fn check_peer(&self, peer_rank: usize, peer: &Identity) -> Result<(), String> {
        if self.build_id != peer.build_id {
            return Err(format!(
                "rank {peer_rank} runs a different binary (build id {} here, {} there): every rank \
                 must run the same executable; copy the same build to every machine",
                hex(&self.build_id),
                hex(&peer.build_id)
            ));
        }
        if self.exe_sha256 != peer.exe_sha256 {
            return Err(format!(
                "rank {peer_rank} runs a different binary with the same build id (executable \
                 SHA-256 {} here, {} there; rebuilt or patched?): every rank must run the same \
                 executable file; copy the same build to every machine",
                hex(&self.exe_sha256),
                hex(&peer.exe_sha256)
            ));
        }
        if self.anchor != peer.anchor {
            return Err(format!(
                "rank {peer_rank} loaded the program at another address (anchor {:#x} here, {:#x} \
                 there): address-space randomisation could not be disabled on one of the ranks \
                 (is personality() blocked, e.g. by a seccomp profile?)",
                self.anchor, peer.anchor
            ));
        }
        Ok(())
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// SHA-256 of this process's executable file, computed once. A file that cannot
/// be read hashes as empty (then the build id and anchor checks still apply).
fn exe_sha256() -> [u8; 32] {
    use sha2::{Digest, Sha256};
    static DIGEST: std::sync::OnceLock<[u8; 32]> = std::sync::OnceLock::new();
    *DIGEST.get_or_init(|| {
        let mut h = Sha256::new();
        if let Ok(mut f) = std::fs::File::open("/proc/self/exe") {
            let mut buf = vec![0u8; 1 << 16];
            while let Ok(n) = f.read(&mut buf) {
                if n == 0 {
                    break;
                }
                h.update(&buf[..n]);
            }
        }
        h.finalize().into()
    })
}

/// Segments of the main program, as (kind, flags, start address, size in memory).
fn main_program_segments() -> Vec<(u32, u32, u64, u64)> {
    /// `dl_iterate_phdr`'s callback: records the first object's segments.
    ///
    /// # Safety
    /// Only for `dl_iterate_phdr`, called with `data` pointing to the
    /// `Vec<(u32, u32, u64, u64)>` passed below, and `info` to a valid
    /// `dl_phdr_info` whose `dlpi_phnum` program headers are readable during the call.
    unsafe extern "C" fn visit(
        info: *mut libc::dl_phdr_info,
        _size: libc::size_t,
        data: *mut libc::c_void,
    ) -> libc::c_int {
        // SAFETY: `data` is the Vec we passed below; `info` and its program headers
        // are valid for the duration of the callback (dl_iterate_phdr contract).
        unsafe {
            let out = &mut *(data as *mut Vec<(u32, u32, u64, u64)>);
            let info = &*info;
            for i in 0..info.dlpi_phnum as usize {
                let ph = &*info.dlpi_phdr.add(i);
                out.push((
                    ph.p_type,
                    ph.p_flags,
                    info.dlpi_addr + ph.p_vaddr,
                    ph.p_memsz,
                ));
            }
        }
        1 // the first object is the main program: stop after it
    }
    let mut segs: Vec<(u32, u32, u64, u64)> = Vec::new();
    // SAFETY: the callback only reads what dl_iterate_phdr hands it and writes to
    // `segs`, which outlives the call.
    unsafe {
        libc::dl_iterate_phdr(Some(visit), &mut segs as *mut _ as *mut libc::c_void);
    }
    segs
}

/// Start and end address of the main program's executable segment(s).
pub(crate) fn text_bounds() -> (u64, u64) {
    let mut lo = u64::MAX;
    let mut hi = 0;
    for (ty, flags, start, len) in main_program_segments() {
        if ty == libc::PT_LOAD && flags & libc::PF_X != 0 {
            lo = lo.min(start);
            hi = hi.max(start + len);
        }
    }
    if lo >= hi {
        (0, u64::MAX)
    } else {
        (lo, hi)
    }
}

/// The GNU build id note of the main program, if it has one.
fn main_program_build_id() -> Option<Vec<u8>> {
    for (ty, _, start, len) in main_program_segments() {
        if ty != libc::PT_NOTE {
            continue;
        }
        // SAFETY: a PT_NOTE segment of a loaded object is mapped and readable for
        // `p_memsz` bytes at its address.
        let notes = unsafe { std::slice::from_raw_parts(start as *const u8, len as usize) };
        if let Some(id) = find_build_id(notes) {
            return Some(id.to_vec());
        }
    }
    None
}

/// Finds the `NT_GNU_BUILD_ID` descriptor in a sequence of ELF notes.
fn find_build_id(mut notes: &[u8]) -> Option<&[u8]> {
    let u32_at = |b: &[u8], o: usize| u32::from_ne_bytes(b[o..o + 4].try_into().unwrap()) as usize;
    let pad4 = |n: usize| (n + 3) & !3;
    while notes.len() >= 12 {
        let (namesz, descsz, ty) = (u32_at(notes, 0), u32_at(notes, 4), u32_at(notes, 8));
        let name_end = 12 + pad4(namesz);
        let desc_end = name_end + pad4(descsz);
        if desc_end > notes.len() {
            return None;
        }
        if ty == 3 && namesz == 4 && &notes[12..16] == b"GNU\0" {
            return Some(&notes[name_end..name_end + descsz]);
        }
        notes = &notes[desc_end..];
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchor_and_trampolines_lie_in_text() {
        let (lo, hi) = text_bounds();
        let a = anchor();
        assert!(lo <= a && a < hi, "{lo:#x} {a:#x} {hi:#x}");
        let data = &GUARD as *const _ as u64;
        assert!(!(lo <= data && data < hi), "static data is not text");
    }

    #[test]
    fn identity_is_stable_and_comparison_explains_mismatches() {
        let me = Identity::current();
        assert_eq!(me, Identity::current());
        assert!(me.check_peer(1, &me.clone()).is_ok());
        let other_bin = Identity {
            build_id: b"other".to_vec(),
            ..me.clone()
        };
        let e = me.check_peer(3, &other_bin).unwrap_err();
        assert!(
            e.contains("rank 3") && e.contains("different binary"),
            "{e}"
        );
        let patched = Identity {
            exe_sha256: vec![0; 32],
            ..me.clone()
        };
        let e = me.check_peer(1, &patched).unwrap_err();
        assert!(e.contains("rank 1") && e.contains("same build id"), "{e}");
        let moved = Identity {
            anchor: me.anchor + 4096,
            ..me.clone()
        };
        let e = me.check_peer(2, &moved).unwrap_err();
        assert!(e.contains("rank 2") && e.contains("another address"), "{e}");
    }

    #[test]
    fn build_id_note_is_parsed() {
        let mut n = Vec::new();
        // an unrelated note first
        n.extend_from_slice(&4u32.to_ne_bytes());
        n.extend_from_slice(&4u32.to_ne_bytes());
        n.extend_from_slice(&1u32.to_ne_bytes());
        n.extend_from_slice(b"GNU\0");
        n.extend_from_slice(&[9, 9, 9, 9]);
        n.extend_from_slice(&4u32.to_ne_bytes());
        n.extend_from_slice(&5u32.to_ne_bytes());
        n.extend_from_slice(&3u32.to_ne_bytes());
        n.extend_from_slice(b"GNU\0");
        n.extend_from_slice(&[1, 2, 3, 4, 5, 0, 0, 0]);
        assert_eq!(find_build_id(&n), Some(&[1u8, 2, 3, 4, 5][..]));
        assert_eq!(find_build_id(&n[..20]), None);
    }
}
