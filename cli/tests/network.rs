//! Rack mode over a bad network (issue 27, "Network conditions"): two ranks
//! on two simulated hosts (network namespaces joined by a veth pair), `--transport
//! tcp`, SSSP and BFS answer exactly as one process does under packet loss
//! (1% and 5% each way, nftables), a 100 Mbit/s rate limit (tc tbf) and 20 ms
//! of added latency with jitter (Toxiproxy, which also checks that a rank can
//! advertise another address than it binds). A link down for 2 s is survived
//! (TCP repairs it); a connection reset mid-run (Toxiproxy `reset_peer`) or a
//! link down for longer than the heartbeat timeout fails every rank with a
//! message naming the lost peer: no hang, no answer, no leftover process or
//! shared-memory file.
//!
//! Needs root, iproute2 and nftables; the latency and reset cases also
//! Toxiproxy's server (`TOXIPROXY_SERVER`, or `toxiproxy-server` on the PATH)
//! and curl. Without them each test says why it skips; under `CI=true` it
//! fails instead (.ci/run installs them). The searches here are small (SCALE
//! 12 and 14) to keep the tests short; results/rack/network.md has SCALE 16
//! under each condition, answers compared the same way.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Output};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use common::netns::{cannot, Toxiproxy, TwoHosts};
use common::*;

/// One test at a time: each starts two ranks that want both cores.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// The two hosts, or `None` after saying why not (failing under CI).
fn hosts(test: &str, tag: &str) -> Option<TwoHosts> {
    match TwoHosts::tagged(tag) {
        Ok(h) => Some(h),
        Err(why) => {
            cannot(test, &format!("{why} (needs root and iproute2)"));
            None
        }
    }
}

const COORD_PORT: u16 = 47000;
const DATA_PORT: u16 = 47001;
/// Where Toxiproxy listens for each, on host 0's link address.
const COORD_PROXY: u16 = 47100;
const DATA_PROXY: u16 = 47101;

/// How the ranks reach each other.
enum Route {
    /// Straight over the veth link.
    Direct,
    /// Through Toxiproxy in host 0: rank 0 listens on host 0's loopback
    /// only (coordinator and data link), so rank 1 can reach it only through
    /// the proxies on host 0's link address, which rank 0 advertises
    /// (`GOSSAMER_DATA_ADVERTISE`) as a rank behind NAT would.
    Proxied,
}

/// A job of two ranks, their output in files.
struct Job {
    ranks: Vec<Child>,
    dir: PathBuf,
}

fn token() -> String {
    format!(
        "{:032x}",
        std::process::id() as u128 * 0x9e37_79b9_7f4a_7c15
    )
}

/// Starts `args` (after `--transport tcp`) as ranks 0 and 1, routed `route`.
fn start(h: &TwoHosts, route: &Route, args: &[&str], dir: &Path) -> Job {
    let a0 = &h.addrs[0];
    let (coord0, coord1, env0) = match route {
        Route::Direct => {
            let c = format!("{a0}:{COORD_PORT}");
            (c.clone(), c, vec![])
        }
        Route::Proxied => (
            format!("127.0.0.1:{COORD_PORT}"),
            format!("{a0}:{COORD_PROXY}"),
            vec![
                ("GOSSAMER_DATA_LISTEN", format!("127.0.0.1:{DATA_PORT}")),
                ("GOSSAMER_DATA_ADVERTISE", format!("{a0}:{DATA_PROXY}")),
            ],
        ),
    };
    let env0: Vec<(&str, &str)> = env0.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let mut full = vec!["--transport", "tcp"];
    full.extend(args);
    let tok = token();
    let ranks = [(coord0, env0), (coord1, vec![])]
        .iter()
        .enumerate()
        .map(|(r, (coord, env))| {
            let file = |what: &str| std::fs::File::create(dir.join(format!("{what}{r}"))).unwrap();
            h.rank_with(r, coord, &tok, env, &full)
                .stdout(file("out"))
                .stderr(file("err"))
                .spawn()
                .expect("start a rank")
        })
        .collect();
    Job {
        ranks,
        dir: dir.to_path_buf(),
    }
}

impl Job {
    /// True while some rank still runs.
    fn running(&mut self) -> bool {
        self.ranks
            .iter_mut()
            .any(|c| c.try_wait().unwrap().is_none())
    }

    /// Waits for both ranks; a job still running after `limit` hangs: it is
    /// killed and the test fails.
    fn wait(mut self, limit: Duration) -> [Output; 2] {
        let t0 = Instant::now();
        while self.running() {
            if t0.elapsed() > limit {
                for c in &mut self.ranks {
                    let _ = c.kill();
                    let _ = c.wait();
                }
                panic!(
                    "the ranks still ran after {} s (a hang):\nrank 0: {}\nrank 1: {}",
                    limit.as_secs(),
                    std::fs::read_to_string(self.dir.join("err0")).unwrap_or_default(),
                    std::fs::read_to_string(self.dir.join("err1")).unwrap_or_default()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let mut out = |r: usize| Output {
            status: self.ranks[r].wait().unwrap(),
            stdout: std::fs::read(self.dir.join(format!("out{r}"))).unwrap(),
            stderr: std::fs::read(self.dir.join(format!("err{r}"))).unwrap(),
        };
        [out(0), out(1)]
    }
}

/// The search arguments: `kernel` at `scale` from `roots` roots, 1 thread
/// per rank, validated, the first answer dumped to `dump`.
fn search_args(kernel: &str, scale: &str, roots: &str, dump: &Path) -> Vec<String> {
    let flag = if kernel == "sssp" {
        "--dump-dist"
    } else {
        "--dump-levels"
    };
    [
        kernel,
        "--scale",
        scale,
        "--roots",
        roots,
        "--threads",
        "1",
        "--json",
        flag,
        arg(dump),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// One process's answers for the same search (2 threads).
fn one_process(kernel: &str, scale: &str, roots: &str, dir: &Path) -> Answers {
    let d = dir.join(format!("one.{kernel}.{scale}.{roots}"));
    let mut args = search_args(kernel, scale, roots, &d);
    args[6] = "2".into();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    answers(&run(&args), &d)
}

/// Runs `kernel` on the two hosts and checks the answers equal one
/// process's; `what` names the condition in a failure.
fn same_as_one_process(h: &TwoHosts, route: &Route, kernel: &str, scale: &str, what: &str) {
    let dir = scratch(&format!("network-{}-{kernel}", h.names[0]));
    let want = one_process(kernel, scale, "2", &dir);
    let dump = dir.join("two");
    let args = search_args(kernel, scale, "2", &dump);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let [o0, o1] = start(h, route, &args, &dir).wait(Duration::from_secs(120));
    assert!(
        o1.status.success(),
        "{what}, {kernel}: rank 1 {:?}\n{}",
        o1.status,
        stderr(&o1)
    );
    let got = answers(&o0, &dump);
    assert_eq!(got.ranks, 2);
    assert_eq!(got, want, "{what}, {kernel}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn lossy_and_rate_limited_links_answer_as_one_process() {
    let test = "lossy_and_rate_limited_links_answer_as_one_process";
    let _one = serial();
    for (tag, what) in [
        ("l1", "1% loss each way"),
        ("l5", "5% loss each way"),
        ("r", "100 Mbit/s"),
    ] {
        let Some(h) = hosts(test, tag) else { return };
        let set = match tag {
            "l1" => h.drop_share(1),
            "l5" => h.drop_share(5),
            _ => h.limit_rate("100mbit"),
        };
        if let Err(why) = set {
            let needs = if tag == "r" { "tc" } else { "nftables" };
            return cannot(test, &format!("{why} (needs {needs})"));
        }
        for kernel in ["sssp", "bfs"] {
            same_as_one_process(&h, &Route::Direct, kernel, "12", what);
        }
    }
}

#[test]
fn added_latency_and_jitter_answer_as_one_process() {
    let test = "added_latency_and_jitter_answer_as_one_process";
    let _one = serial();
    let Some(h) = hosts(test, "lat") else { return };
    let proxy = match Toxiproxy::start(&h, 0) {
        Ok(p) => p,
        Err(why) => return cannot(test, &why),
    };
    proxies(&h, &proxy);
    for name in ["control", "data"] {
        for stream in ["upstream", "downstream"] {
            let toxic = format!(
                r#"{{"name":"lat_{stream}","type":"latency","stream":"{stream}","attributes":{{"latency":20,"jitter":5}}}}"#
            );
            proxy.toxic(name, &toxic).expect("a latency toxic");
        }
    }
    for kernel in ["sssp", "bfs"] {
        same_as_one_process(&h, &Route::Proxied, kernel, "12", "20 +- 5 ms each way");
    }
}

/// Toxiproxy's proxies for `Route::Proxied`: `control` and `data`.
fn proxies(h: &TwoHosts, proxy: &Toxiproxy) {
    let a0 = &h.addrs[0];
    for (name, listen, upstream) in [
        ("control", COORD_PROXY, COORD_PORT),
        ("data", DATA_PROXY, DATA_PORT),
    ] {
        proxy
            .proxy(
                name,
                &format!("{a0}:{listen}"),
                &format!("127.0.0.1:{upstream}"),
            )
            .expect("a proxy");
    }
}

/// This user's gossamer files in /dev/shm.
fn shm_files() -> Vec<String> {
    std::fs::read_dir("/dev/shm")
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("gossamer"))
                .collect()
        })
        .unwrap_or_default()
}

/// A long search (SCALE 14 SSSP from 64 roots) started on the two hosts,
/// under way once host 0 received 1 MiB (the construction runs).
fn long_job(h: &TwoHosts, route: &Route, dir: &Path) -> Job {
    let args = search_args("sssp", "14", "64", &dir.join("dist"));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut job = start(h, route, &args, dir);
    let under_way = h.wait_for_traffic(1 << 20, Duration::from_secs(60));
    assert!(under_way && job.running(), "the job did not get under way");
    job
}

/// Both ranks failed cleanly (status 1), each naming the other, with no
/// report and no wrong dump (`want`: one process's answers); nothing of
/// theirs is left in either namespace or in /dev/shm. Returns their
/// messages.
fn failed_cleanly(
    h: &TwoHosts,
    outs: &[Output; 2],
    dir: &Path,
    want: &Answers,
    shm_before: &[String],
    keep: &[u32],
) -> [String; 2] {
    let errs = [stderr(&outs[0]), stderr(&outs[1])];
    for (r, o) in outs.iter().enumerate() {
        assert_eq!(
            o.status.code(),
            Some(1),
            "rank {r}: {:?}\n{}",
            o.status,
            errs[r]
        );
        assert!(!errs[r].contains("panicked"), "rank {r}: {}", errs[r]);
        let peer = format!("rank {}", 1 - r);
        assert!(
            errs[r].contains(&peer) && errs[r].contains("lost it"),
            "rank {r} does not say it lost {peer}:\n{}",
            errs[r]
        );
    }
    assert!(
        stdout(&outs[0]).is_empty(),
        "a failed run reported: {}",
        stdout(&outs[0])
    );
    // The first root's answer is dumped once that search is done, before
    // the other roots run: a failure after it leaves that dump, which must
    // then be right.
    if let Ok(dump) = std::fs::read(dir.join("dist")) {
        assert!(dump == want.dump, "a failed run left a wrong dump");
    }
    for n in 0..2 {
        let left: Vec<u32> = h
            .pids(n)
            .into_iter()
            .filter(|p| !keep.contains(p))
            .collect();
        assert!(left.is_empty(), "processes left in host {n}: {left:?}");
    }
    let shm: Vec<String> = shm_files()
        .into_iter()
        .filter(|f| !shm_before.contains(f))
        .collect();
    assert!(shm.is_empty(), "left in /dev/shm: {shm:?}");
    errs
}

#[test]
fn a_connection_reset_mid_run_fails_every_rank_naming_the_peer() {
    // A connection reset is not repaired (docs/rack.md, "Network
    // conditions"): the run must end on both ranks, each naming the other.
    let test = "a_connection_reset_mid_run_fails_every_rank_naming_the_peer";
    let _one = serial();
    let dir = scratch("network-reset");
    let want = one_process("sssp", "14", "64", &dir);
    for link in ["data", "control"] {
        let Some(h) = hosts(test, &link[..1]) else {
            return;
        };
        let proxy = match Toxiproxy::start(&h, 0) {
            Ok(p) => p,
            Err(why) => return cannot(test, &why),
        };
        proxies(&h, &proxy);
        let dir = dir.join(link);
        std::fs::create_dir(&dir).unwrap();
        let shm_before = shm_files();
        let job = long_job(&h, &Route::Proxied, &dir);
        proxy
            .toxic(
                link,
                r#"{"name":"reset","type":"reset_peer","stream":"downstream","attributes":{"timeout":0}}"#,
            )
            .expect("a reset_peer toxic");
        // Heartbeat timeout (10 s) + watchdog (5 s), with room to spare.
        let outs = job.wait(Duration::from_secs(60));
        let errs = failed_cleanly(&h, &outs, &dir, &want, &shm_before, &[proxy.pid()]);
        eprintln!(
            "{link} link reset:\n  rank 0: {}  rank 1: {}",
            errs[0], errs[1]
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_link_down_for_two_seconds_is_survived() {
    // No connection breaks: TCP retransmits once the link is back, within
    // the heartbeat timeout.
    let test = "a_link_down_for_two_seconds_is_survived";
    let _one = serial();
    let Some(h) = hosts(test, "d2") else { return };
    let dir = scratch("network-down2");
    let want = one_process("sssp", "14", "64", &dir);
    let mut job = long_job(&h, &Route::Direct, &dir);
    h.link(false);
    std::thread::sleep(Duration::from_secs(2));
    let mid_run = job.running();
    h.link(true);
    assert!(mid_run, "the job ended before the link came back up");
    let [o0, o1] = job.wait(Duration::from_secs(120));
    assert!(
        o1.status.success(),
        "rank 1: {:?}\n{}",
        o1.status,
        stderr(&o1)
    );
    assert_eq!(answers(&o0, &dir.join("dist")), want);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_link_down_for_longer_than_the_heartbeat_timeout_fails_every_rank() {
    let test = "a_link_down_for_longer_than_the_heartbeat_timeout_fails_every_rank";
    let _one = serial();
    let Some(h) = hosts(test, "d60") else { return };
    let dir = scratch("network-down60");
    let want = one_process("sssp", "14", "64", &dir);
    let shm_before = shm_files();
    let job = long_job(&h, &Route::Direct, &dir);
    h.link(false);
    // The link stays down until both ranks gave up (up to 60 s: then they
    // hang, and `wait` says so).
    let outs = job.wait(Duration::from_secs(60));
    h.link(true);
    let errs = failed_cleanly(&h, &outs, &dir, &want, &shm_before, &[]);
    for (r, e) in errs.iter().enumerate() {
        assert!(e.contains("no heartbeat"), "rank {r}: {e}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_advertised_address_is_refused_naming_the_variable() {
    // No namespaces needed: the variables are read before anything starts.
    for (var, value, says) in [
        ("GOSSAMER_DATA_ADVERTISE", "node7", "no port"),
        ("GOSSAMER_DATA_LISTEN", "node7:47001", "expected IP:PORT"),
    ] {
        let err = fails(&run_env(
            &["--transport", "tcp", "sssp", "--scale", "8"],
            &[
                ("GOSSAMER_RANK", "1"),
                ("GOSSAMER_SIZE", "2"),
                ("GOSSAMER_TOKEN", "t"),
                ("GOSSAMER_DATA_LISTEN", "127.0.0.1:47001"),
                (var, value),
            ],
        ));
        assert!(
            err.contains(&format!("{var}=\"{value}\"")) && err.contains(says),
            "{err}"
        );
    }
}
