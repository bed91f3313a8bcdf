//! What every driver test shares: the rank builder, launching this binary
//! as ranks (through the launcher or by hand), waiting for them, a job that
//! rank 0 must refuse, and the job's shm files.

use gossamer::rack::TransportKind;
use gossamer::Builder;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const THREADS: usize = 2;
/// Hang guard for a whole job (generous; not a performance bound).
pub const GUARD: Duration = Duration::from_secs(60);

pub fn is_rank() -> bool {
    std::env::var_os("GOSSAMER_RANK").is_some()
        || std::env::var_os("OMPI_COMM_WORLD_RANK").is_some()
}

pub fn builder(t: TransportKind) -> Builder {
    Builder::from_env()
        .expect("rank environment")
        .threads(THREADS)
        .pin_threads(false)
        .transport(t)
}

/// The arguments that run test `test` of this binary alone, its output shown.
pub fn exact(test: &str) -> [&str; 4] {
    [test, "--exact", "--nocapture", "--test-threads=1"]
}

/// This binary as the launcher of `ranks` ranks of rank test `test` (its
/// output not yet directed).
pub fn launcher_of(ranks: usize, test: &str) -> Command {
    let mut c = Command::new(std::env::current_exe().unwrap());
    c.args(exact("launcher"))
        .env("GOSSAMER_TEST_LAUNCH", format!("{ranks}:{test}"))
        .env_remove("GOSSAMER_RANK");
    c
}

/// A job's name for this test process: `what` and our pid.
pub fn job_name(what: &str) -> String {
    format!("{what}-{}", std::process::id())
}

/// Waits at most [`GUARD`] for `c` to exit: its exit code (-1 for a signal)
/// and all its output (stdout, then stderr), or `None` if it did not exit.
fn wait_within_guard(c: Child) -> Option<(i32, String)> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(c.wait_with_output()));
    let out = rx.recv_timeout(GUARD).ok()?.unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Some((out.status.code().unwrap_or(-1), text))
}

/// Runs `ranks` ranks of rank test `test` through the launcher; returns its exit
/// code, all output, and the launcher's pid (the job's shm files carry it).
pub fn launch(ranks: usize, test: &str) -> (i32, String, u32) {
    let child = launcher_of(ranks, test)
        // The ranks' stderr is read line by line: no backtrace may interleave
        // with the launcher's messages (RUST_BACKTRACE may be set outside).
        .env("RUST_BACKTRACE", "0")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let t0 = Instant::now();
    let (code, text) = wait_within_guard(child)
        .unwrap_or_else(|| panic!("hang: {test} with {ranks} ranks did not finish in {GUARD:?}"));
    eprintln!("{test} x{ranks}: {code} in {:?}", t0.elapsed());
    (code, text, pid)
}

/// [`launch`] of a job that must succeed: its output and the launcher's pid.
pub fn launch_ok(ranks: usize, test: &str) -> (String, u32) {
    let (code, text, pid) = launch(ranks, test);
    assert_eq!(code, 0, "{test} x{ranks} failed:\n{text}");
    (text, pid)
}

/// [`launch_ok`] of a job whose rank 0 prints its result; the launcher's pid.
pub fn launch_to_a_result(ranks: usize, test: &str) -> u32 {
    let (text, pid) = launch_ok(ranks, test);
    assert!(text.contains("rank 0 result"), "{text}");
    pid
}

/// The region files in /dev/shm whose names start with `gossamer-{prefix}`.
fn shm_files_starting(prefix: &str) -> Vec<String> {
    let prefix = format!("gossamer-{prefix}");
    std::fs::read_dir("/dev/shm")
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&prefix))
        .collect()
}

/// The region files of the job of launcher `pid` (`gossamer-<pid>-...`).
pub fn shm_files_of(pid: u32) -> Vec<String> {
    shm_files_starting(&format!("{pid}-"))
}

/// This job's region files in /dev/shm (`gossamer-<job>`, any suffix).
pub fn shm_files_of_job(job: &str) -> Vec<String> {
    shm_files_starting(job)
}

/// Starts rank `rank` of a `size`-rank job of rank test `test` by hand (no launcher).
pub fn spawn_rank(
    test: &str,
    rank: usize,
    size: usize,
    coord: &str,
    job: &str,
    extra: &[(&str, &str)],
) -> Child {
    let exe = std::env::current_exe().unwrap();
    spawn_rank_as((&exe, &exact(test), extra), rank, size, coord, job)
}

/// How one rank of a job started by hand runs: the executable, its
/// arguments, and environment beyond the job's.
pub type HowToRun<'a> = (&'a Path, &'a [&'a str], &'a [(&'a str, &'a str)]);

/// [`spawn_rank`] run as `how` says.
fn spawn_rank_as(how: HowToRun, rank: usize, size: usize, coord: &str, job: &str) -> Child {
    let (exe, args, extra) = how;
    let mut c = Command::new(exe);
    c.args(args)
        .env("GOSSAMER_RANK", rank.to_string())
        .env("GOSSAMER_SIZE", size.to_string())
        .env("GOSSAMER_TOKEN", "the-right-token")
        .env("GOSSAMER_COORDINATOR", coord)
        .env("GOSSAMER_JOB", job)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in extra {
        c.env(k, v);
    }
    c.spawn().unwrap()
}

/// Starts both ranks of 2-rank job `job` by hand, on a free coordinator
/// port, and waits for them: (exit code, output) of rank 0 and of rank 1.
pub fn two_ranks_of(job: &str, r0: HowToRun, r1: HowToRun) -> [(i32, String); 2] {
    let coord = free_port();
    let (s0, s1) = (
        spawn_rank_as(r0, 0, 2, &coord, job),
        spawn_rank_as(r1, 1, 2, &coord, job),
    );
    [finish(s0), finish(s1)]
}

/// [`two_ranks_of`] this binary running rank test `test`, rank 1 with the
/// extra environment `extra1`.
pub fn two_ranks(test: &str, job: &str, extra1: &[(&str, &str)]) -> [(i32, String); 2] {
    let exe = std::env::current_exe().unwrap();
    let args = exact(test);
    two_ranks_of(job, (&exe, &args, &[]), (&exe, &args, extra1))
}

/// Rank 0 refused rank 1 of job `job` at bootstrap: both failed, rank 0
/// says `why`, rank 1 says that rank 0 refused to start and `why1` (may be
/// empty), and the job left no region file.
pub fn assert_refused(job: &str, ranks: [(i32, String); 2], why: &str, why1: &str) {
    let [(c0, t0), (c1, t1)] = ranks;
    assert_ne!(c0, 0, "{t0}");
    assert_ne!(c1, 0, "{t1}");
    assert!(t0.contains(why), "{t0}");
    assert!(
        t1.contains("rank 0 refused to start") && t1.contains(why1),
        "{t1}"
    );
    assert!(shm_files_of_job(job).is_empty());
}

pub fn free_port() -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().to_string()
}

/// Waits (at most [`GUARD`]) for a rank started by hand: its exit code and output.
pub fn finish(c: Child) -> (i32, String) {
    wait_within_guard(c).expect("hang guard")
}

/// Connects to `coord`, retrying until rank 0 listens.
pub fn connect_when_listening(coord: &str) -> std::net::TcpStream {
    let t0 = Instant::now();
    loop {
        match std::net::TcpStream::connect(coord) {
            Ok(s) => return s,
            Err(_) if t0.elapsed() < GUARD => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => panic!("rank 0 never listened: {e}"),
        }
    }
}

/// Yields (in a run, between fibers) until `done`; fails with `what` after [`GUARD`].
pub fn yield_until(what: &str, mut done: impl FnMut() -> bool) {
    let t0 = Instant::now();
    while !done() {
        assert!(t0.elapsed() < GUARD, "{what}");
        gossamer::yield_now();
    }
}

/// Sleeps (20 ms at a time, in a driver) until `done`; fails with `what` after [`GUARD`].
pub fn sleep_until(what: &str, mut done: impl FnMut() -> bool) {
    let t0 = Instant::now();
    while !done() {
        assert!(t0.elapsed() < GUARD, "{what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}
