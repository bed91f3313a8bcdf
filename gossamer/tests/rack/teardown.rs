//! No rank and no shm file outlives its job: ranks die with a killed
//! launcher, and rank 0 sweeps regions a killed rank 0 left.

use crate::common::{
    builder, is_rank, job_name, launcher_of, shm_files_of, shm_files_of_job, sleep_until,
    two_ranks, GUARD, THREADS,
};
use gossamer::rack::TransportKind;
use gossamer::{entrust_with, Trust, WorkerId};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Runs until killed.
pub fn forever(t: TransportKind) {
    let _ = builder(t).run(|| {
        let c: Trust<u64> = entrust_with(WorkerId(THREADS), || 0u64);
        loop {
            c.apply(|x| *x += 1);
            std::thread::sleep(Duration::from_millis(1));
        }
    });
}

/// Rank 0 says it is joining; the last rank takes its time to start (so the
/// bootstrap is under way for a while).
pub fn slow_join(t: TransportKind) {
    let b = builder(t);
    if b.rank() == 0 {
        println!("rank 0 joining");
    }
    if b.rank() + 1 == b.ranks() {
        std::thread::sleep(Duration::from_secs(30));
    }
    let _ = b.run(|| 0u64);
}

/// Waits (at most `GUARD`) until none of `ranks` (pid, start time, as
/// [`children_of`] gives them) is alive (zombies count as gone): ranks must
/// die with their launcher. A pid that now names a process started at
/// another time is gone too: on a busy box the pid of a rank that died may
/// be handed to a new process within the wait.
fn wait_until_gone(ranks: &[(u32, u64)]) {
    let t0 = Instant::now();
    loop {
        let alive: Vec<u32> = ranks
            .iter()
            .filter(|&&(r, start)| {
                std::fs::read_to_string(format!("/proc/{r}/stat"))
                    .map(|st| !st.contains(") Z ") && start_time(&st) == Some(start))
                    .unwrap_or(false)
            })
            .map(|&(r, _)| r)
            .collect();
        if alive.is_empty() {
            return;
        }
        assert!(t0.elapsed() < GUARD, "orphaned ranks {alive:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The start time (field 22, clock ticks since boot) of a `/proc/PID/stat` line.
fn start_time(stat: &str) -> Option<u64> {
    stat.rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(19)?
        .parse()
        .ok()
}

#[test]
fn a_launcher_killed_during_bootstrap_leaves_no_shm_file() {
    use std::io::BufRead;
    if is_rank() {
        return;
    }
    let mut child = launcher_of(3, "rank_slow_join_shm")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let t0 = Instant::now();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    loop {
        let l = lines.next().expect("the job's output ended").unwrap();
        if l.contains("rank 0 joining") {
            break;
        }
        assert!(t0.elapsed() < GUARD, "rank 0 never started");
    }
    let ranks = children_of(pid);
    // The last rank joins only after 30 s: kill the launcher once rank 0 has
    // mapped the region (a /dev/shm file or the launcher's memfd) and waits.
    let mapped = || {
        ranks.iter().any(|(r, _)| {
            std::fs::read_to_string(format!("/proc/{r}/maps"))
                .map(|m| m.contains("gossamer-"))
                .unwrap_or(false)
        })
    };
    sleep_until("rank 0 never mapped the region", mapped);
    kill_launcher(child, &ranks);
}

#[test]
fn rank_0_removes_regions_left_by_a_killed_rank_0() {
    if is_rank() {
        return;
    }
    let job = job_name("stale");
    let mut dead = Command::new("true").spawn().unwrap();
    let dead_pid = dead.id();
    dead.wait().unwrap();
    let stale = format!("/dev/shm/gossamer-{job}-old.p{dead_pid}");
    std::fs::write(&stale, b"left by a rank 0 killed during bootstrap").unwrap();
    let [(c0, t0), (c1, t1)] = two_ranks("rank_counter_shm", &job, &[]);
    assert_eq!((c0, c1), (0, 0), "{t0}\n{t1}");
    assert!(
        !std::path::Path::new(&stale).exists(),
        "the stale region was swept"
    );
    assert!(shm_files_of_job(&job).is_empty());
}

/// Kills `launcher` with SIGKILL (it cannot clean up): its `ranks` must die
/// with it and its job leave no shm file.
fn kill_launcher(mut launcher: Child, ranks: &[(u32, u64)]) {
    let pid = launcher.id();
    launcher.kill().unwrap();
    launcher.wait().unwrap();
    wait_until_gone(ranks);
    assert!(shm_files_of(pid).is_empty(), "{:?}", shm_files_of(pid));
}

/// The live children of `pid`: (pid, start time) each.
fn children_of(pid: u32) -> Vec<(u32, u64)> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|p| {
            let st = std::fs::read_to_string(format!("/proc/{p}/stat")).ok()?;
            let ppid = st.rsplit_once(')')?.1.split_whitespace().nth(1)?;
            (ppid.parse::<u32>().ok()? == pid).then_some((p, start_time(&st)?))
        })
        .collect()
}

#[test]
fn ranks_die_with_their_launcher_and_leave_no_shm_file() {
    if is_rank() {
        return;
    }
    let child = launcher_of(3, "rank_forever_shm")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let t0 = Instant::now();
    let mut ranks = Vec::new();
    sleep_until("the launcher did not start 3 ranks", || {
        ranks = children_of(pid);
        ranks.len() >= 3
    });
    // Let them bootstrap (the shm file is unlinked once every rank mapped it).
    sleep_until("bootstrap never finished", || {
        shm_files_of(pid).is_empty() && t0.elapsed() >= Duration::from_millis(500)
    });
    kill_launcher(child, &ranks);
}
