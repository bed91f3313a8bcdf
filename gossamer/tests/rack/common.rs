//! What every driver test shares: the rank builder, launching this binary
//! as ranks (through the launcher or by hand), waiting for them and the
//! job's shm files.

use gossamer::rack::TransportKind;
use gossamer::Builder;
use std::process::{Command, Output, Stdio};
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

/// Runs `ranks` ranks of rank test `test` through the launcher; returns its exit
/// code, all output, and the launcher's pid (the job's shm files carry it).
pub fn launch(ranks: usize, test: &str) -> (i32, String, u32) {
    let child = Command::new(std::env::current_exe().unwrap())
        .args(["launcher", "--exact", "--nocapture", "--test-threads=1"])
        .env("GOSSAMER_TEST_LAUNCH", format!("{ranks}:{test}"))
        .env_remove("GOSSAMER_RANK")
        // The ranks' stderr is read line by line: no backtrace may interleave
        // with the launcher's messages (RUST_BACKTRACE may be set outside).
        .env("RUST_BACKTRACE", "0")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let t0 = Instant::now();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(child.wait_with_output()));
    let out: Output = rx
        .recv_timeout(GUARD)
        .unwrap_or_else(|_| panic!("hang: {test} with {ranks} ranks did not finish in {GUARD:?}"))
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!(
        "{test} x{ranks}: {:?} in {:?}",
        out.status.code(),
        t0.elapsed()
    );
    (out.status.code().unwrap_or(-1), text, pid)
}

pub fn shm_files_of(pid: u32) -> Vec<String> {
    std::fs::read_dir("/dev/shm")
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&format!("gossamer-{pid}-")))
        .collect()
}

/// Starts rank `rank` of a `size`-rank job of rank test `test` by hand (no launcher).
pub fn spawn_rank(
    test: &str,
    rank: usize,
    size: usize,
    coord: &str,
    job: &str,
    extra: &[(&str, &str)],
) -> std::process::Child {
    let args = [test, "--exact", "--nocapture", "--test-threads=1"];
    spawn_rank_of(
        &std::env::current_exe().unwrap(),
        &args,
        rank,
        size,
        coord,
        job,
        extra,
    )
}

/// [`spawn_rank`] of executable `exe` with arguments `args`.
pub fn spawn_rank_of(
    exe: &std::path::Path,
    args: &[&str],
    rank: usize,
    size: usize,
    coord: &str,
    job: &str,
    extra: &[(&str, &str)],
) -> std::process::Child {
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

pub fn free_port() -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().to_string()
}

pub fn finish(c: std::process::Child) -> (i32, String) {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(c.wait_with_output()));
    let out = rx.recv_timeout(GUARD).expect("hang guard").unwrap();
    (
        out.status.code().unwrap_or(-1),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
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

/// This job's region files in /dev/shm (`gossamer-<job>`, any suffix).
pub fn shm_files_of_job(job: &str) -> Vec<String> {
    std::fs::read_dir("/dev/shm")
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&format!("gossamer-{job}")))
        .collect()
}
