//! The built-in launcher: N ranks of this same program on this host.
//!
//! It creates the job's secret token and coordinator port, starts the ranks with
//! `GOSSAMER_RANK`/`GOSSAMER_SIZE`/`GOSSAMER_TOKEN`/`GOSSAMER_COORDINATOR`/
//! `GOSSAMER_JOB` set, and watches them: when one fails, the others normally stop by
//! themselves within seconds (fate sharing through rank 0); any still running after
//! a grace period are killed. Ranks die with the launcher (`PR_SET_PDEATHSIG`), and
//! the launcher removes the job's shared-memory file whatever happened.
//!
//! Two descriptors are handed down (inheritable in the children only, numbers in
//! the environment): the coordinator's listening socket, bound here and passed to
//! rank 0 (`GOSSAMER_COORDINATOR_FD`), so no other process can take the port
//! between choosing it and listening on it; and an unnamed shared-memory file
//! (`memfd`, `GOSSAMER_SHM_FD`) for the shm transport, which disappears with the
//! last process that has it, so even a launcher killed with SIGKILL during the
//! bootstrap leaves nothing in `/dev/shm`.

use super::shm::remove_job_files;
use std::ffi::OsString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, ExitStatus};
use std::time::{Duration, Instant};

/// Time the other ranks get to stop by themselves after one failed.
const GRACE: Duration = Duration::from_secs(5);

/// Why the launcher could not run the job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchError(pub String);

impl std::fmt::Display for LaunchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "gossamer launcher: {}", self.0)
    }
}
impl std::error::Error for LaunchError {}

fn random_hex(bytes: usize) -> Result<String, LaunchError> {
    super::wire::random_hex(bytes)
        .map_err(|e| LaunchError(format!("could not get random bytes for the job token: {e}")))
}

/// An unnamed shared-memory file (close-on-exec here; the children get it).
fn memfd() -> Result<OwnedFd, LaunchError> {
    // SAFETY: the name is a NUL-terminated string literal; the call has no other
    // memory effects.
    let fd = unsafe { libc::memfd_create(c"gossamer-rack".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(LaunchError(format!(
            "could not create the shared memory (memfd_create): {}",
            std::io::Error::last_os_error()
        )));
    }
    // SAFETY: `fd` was just returned by memfd_create and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Writes `line` and a newline to stderr in one write: the ranks share the
/// launcher's stderr, and `eprintln!` writes a formatted line in pieces, so
/// a rank's own message (a panic note) could land in the middle of it.
fn say(line: &str) {
    use std::io::Write;
    let mut out = String::with_capacity(line.len() + 1);
    out.push_str(line);
    out.push('\n');
    let _ = std::io::stderr().write_all(out.as_bytes());
}

/// Describes how a rank ended. A SIGKILL nobody asked for is most often
/// the kernel's out-of-memory killer, so that case says so and where to
/// look; `oom_hint` (if any) is appended, e.g. the command that shows the
/// run's memory estimate.
pub fn describe_with_hint(status: ExitStatus, oom_hint: Option<&str>) -> String {
    if status.signal() == Some(libc::SIGKILL) {
        let hint = oom_hint.map_or(String::new(), |h| format!("; the estimate: {h}"));
        return format!(
            "was killed by SIGKILL (signal 9; likely the out-of-memory killer: see `dmesg`{hint})"
        );
    }
    describe(status)
}

/// Describes how a rank ended.
pub fn describe(status: ExitStatus) -> String {
    if let Some(sig) = status.signal() {
        let name = match sig {
            libc::SIGKILL => " (SIGKILL)",
            libc::SIGSEGV => " (SIGSEGV)",
            libc::SIGABRT => " (SIGABRT)",
            libc::SIGTERM => " (SIGTERM)",
            libc::SIGINT => " (SIGINT)",
            libc::SIGBUS => " (SIGBUS)",
            _ => "",
        };
        format!("was killed by signal {sig}{name}")
    } else {
        format!("exited with status {}", status.code().unwrap_or(-1))
    }
}

fn code_of(status: ExitStatus) -> i32 {
    status
        .code()
        .unwrap_or_else(|| 128 + status.signal().unwrap_or(0))
}

/// Runs `ranks` copies of the current executable with `args` as one rack job and
/// waits for them. Returns the job's exit code: 0 when every rank succeeded, else
/// the code of the first rank that failed (128 + signal for a signal). The failed
/// rank and its cause are printed to stderr.
pub fn launch_local(ranks: usize, args: &[OsString]) -> Result<i32, LaunchError> {
    launch_local_with_hint(ranks, args, None)
}

/// [`launch_local`], naming `oom_hint` (a command that shows the run's
/// memory estimate) when a rank is killed by SIGKILL.
pub fn launch_local_with_hint(
    ranks: usize,
    args: &[OsString],
    oom_hint: Option<&str>,
) -> Result<i32, LaunchError> {
    if ranks == 0 || ranks > 4096 {
        return Err(LaunchError(format!("--ranks {ranks}: expected 1..=4096")));
    }
    let exe = std::env::current_exe()
        .map_err(|e| LaunchError(format!("cannot find this executable: {e}")))?;
    let token = random_hex(32)?;
    let job = format!("{}-{}", std::process::id(), random_hex(4)?);
    let listener = std::net::TcpListener::bind("127.0.0.1:0")
        .map_err(|e| LaunchError(format!("no free local port for the coordinator: {e}")))?;
    let port = listener
        .local_addr()
        .map_err(|e| LaunchError(format!("no free local port for the coordinator: {e}")))?
        .port();
    let coordinator = format!("127.0.0.1:{port}");
    let mut listener = Some(listener);
    let shm = memfd()?;
    let shm_fd = shm.as_raw_fd();
    let mut children: Vec<Option<Child>> = Vec::with_capacity(ranks);
    for r in 0..ranks {
        let mut c = Command::new(&exe);
        c.args(args)
            .env("GOSSAMER_RANK", r.to_string())
            .env("GOSSAMER_SIZE", ranks.to_string())
            .env("GOSSAMER_TOKEN", &token)
            .env("GOSSAMER_COORDINATOR", &coordinator)
            .env("GOSSAMER_JOB", &job)
            .env("GOSSAMER_SHM_FD", shm_fd.to_string())
            .env_remove("GOSSAMER_COORDINATOR_FD")
            .env_remove("GOSSAMER_ASLR_OFF");
        // The listening socket goes to rank 0 only.
        let listen_fd = match (r, &listener) {
            (0, Some(l)) => {
                c.env("GOSSAMER_COORDINATOR_FD", l.as_raw_fd().to_string());
                l.as_raw_fd()
            }
            _ => -1,
        };
        // SAFETY: the closure runs in the child between fork and exec and only calls
        // prctl, personality and fcntl, which are async-signal-safe; it allocates
        // nothing. ASLR is turned off here already, so the rank does not need to
        // re-execute itself (it would if this failed). Clearing close-on-exec on the
        // two descriptors affects the child's copies only.
        unsafe {
            c.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                let cur = libc::personality(0xffff_ffff);
                if cur >= 0 {
                    libc::personality((cur | libc::ADDR_NO_RANDOMIZE) as libc::c_ulong);
                }
                for fd in [shm_fd, listen_fd] {
                    if fd >= 0 && libc::fcntl(fd, libc::F_SETFD, 0) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                Ok(())
            });
        }
        match c.spawn() {
            Ok(ch) => {
                children.push(Some(ch));
                // Rank 0 has the listening socket now; the launcher lets go of it.
                listener = None;
            }
            Err(e) => {
                for ch in children.iter_mut().flatten() {
                    let _ = ch.kill();
                    let _ = ch.wait();
                }
                remove_job_files(&job);
                return Err(LaunchError(format!("could not start rank {r}: {e}")));
            }
        }
    }
    let mut first_failure: Option<(usize, ExitStatus)> = None;
    let mut kill_at: Option<Instant> = None;
    let mut killed = false;
    let mut running = ranks;
    while running > 0 {
        for (r, slot) in children.iter_mut().enumerate() {
            let Some(ch) = slot else { continue };
            match ch.try_wait() {
                Ok(Some(st)) => {
                    running -= 1;
                    *slot = None;
                    // The cause of a failed job is the first rank that failed,
                    // except that a rank killed by a signal (before we killed
                    // anyone) wins over ranks that exited with an error: those
                    // are usually reacting to its death and may be seen first.
                    let cause = match &first_failure {
                        _ if st.success() => false,
                        None => true,
                        Some((_, f)) => !killed && st.signal().is_some() && f.signal().is_none(),
                    };
                    if cause {
                        say(&format!(
                            "gossamer: rank {r} {}",
                            describe_with_hint(st, oom_hint)
                        ));
                        first_failure = Some((r, st));
                        kill_at.get_or_insert(Instant::now() + GRACE);
                    }
                }
                Ok(None) => {}
                Err(e) => {
                    say(&format!("gossamer: cannot watch rank {r}: {e}"));
                }
            }
        }
        if let Some(t) = kill_at {
            if Instant::now() >= t {
                for (r, ch) in children.iter_mut().enumerate() {
                    if let Some(ch) = ch {
                        say(&format!(
                            "gossamer: rank {r} did not stop by itself; killing it"
                        ));
                        let _ = ch.kill();
                        killed = true;
                    }
                }
                kill_at = None;
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    remove_job_files(&job);
    Ok(first_failure.map_or(0, |(_, st)| code_of(st)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_are_described() {
        assert_eq!(
            describe(ExitStatus::from_raw(9)),
            "was killed by signal 9 (SIGKILL)"
        );
        assert_eq!(
            describe(ExitStatus::from_raw(3 << 8)),
            "exited with status 3"
        );
        assert_eq!(code_of(ExitStatus::from_raw(9)), 137);
        let killed = describe_with_hint(
            ExitStatus::from_raw(9),
            Some("gossamer-graph plan --scale 9"),
        );
        assert_eq!(
            killed,
            "was killed by SIGKILL (signal 9; likely the out-of-memory killer: see `dmesg`; the estimate: gossamer-graph plan --scale 9)"
        );
        assert!(describe_with_hint(ExitStatus::from_raw(9), None).ends_with("see `dmesg`)"));
        assert_eq!(
            describe_with_hint(ExitStatus::from_raw(3 << 8), Some("x")),
            "exited with status 3"
        );
        assert_eq!(code_of(ExitStatus::from_raw(3 << 8)), 3);
    }

    #[test]
    fn zero_ranks_is_refused() {
        assert!(launch_local(0, &[]).unwrap_err().0.contains("--ranks 0"));
    }
}
