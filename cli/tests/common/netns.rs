//! Two simulated hosts: network namespaces joined by a veth pair, and what
//! the network-condition tests do to the link between them: drop a share of
//! the packets (nftables), limit the rate (tc tbf), take the link down, or
//! run the ranks' connections through Toxiproxy (latency, resets). Traffic
//! stays on the namespaces' own addresses.

use std::io::Write;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Two network namespaces joined by a veth pair, removed on drop.
pub struct TwoHosts {
    pub names: [String; 2],
    pub addrs: [String; 2],
}

/// The veth end in each namespace.
pub const DEVS: [&str; 2] = ["gga", "ggb"];

impl TwoHosts {
    /// Sets them up, or says why it cannot (not root, no iproute2, no
    /// permission to make namespaces).
    pub fn new() -> Result<TwoHosts, String> {
        Self::tagged("")
    }

    /// [`TwoHosts::new`] with `tag` in the namespace names, so that tests
    /// of one process can each have their own.
    pub fn tagged(tag: &str) -> Result<TwoHosts, String> {
        let id = std::process::id();
        let names = [format!("gg{id}{tag}a"), format!("gg{id}{tag}b")];
        // Addresses in 10.0.0.0/8 from the pid, so concurrent runs differ.
        let net = format!("10.{}.{}", 100 + (id >> 8) % 100, id % 256);
        let addrs = [format!("{net}.1"), format!("{net}.2")];
        let hosts = TwoHosts { names, addrs };
        let (a, b) = (&hosts.names[0], &hosts.names[1]);
        let steps: Vec<Vec<&str>> = vec![
            vec!["netns", "add", a],
            vec!["netns", "add", b],
            vec![
                "link", "add", "gga", "netns", a, "type", "veth", "peer", "name", "ggb", "netns", b,
            ],
            vec!["-n", a, "link", "set", "lo", "up"],
            vec!["-n", b, "link", "set", "lo", "up"],
        ];
        for s in steps {
            ip(&s)?;
        }
        let (ca, cb) = (
            format!("{}/24", hosts.addrs[0]),
            format!("{}/24", hosts.addrs[1]),
        );
        ip(&["-n", a, "addr", "add", &ca, "dev", "gga"])?;
        ip(&["-n", b, "addr", "add", &cb, "dev", "ggb"])?;
        ip(&["-n", a, "link", "set", "gga", "up"])?;
        ip(&["-n", b, "link", "set", "ggb", "up"])?;
        Ok(hosts)
    }

    /// `gossamer-graph ARGS` as rank `rank` of 2 in its namespace.
    pub fn rank(&self, rank: usize, port: u16, token: &str, args: &[&str]) -> Command {
        let coordinator = format!("{}:{port}", self.addrs[0]);
        self.rank_with(rank, &coordinator, token, &[], args)
    }

    /// `gossamer-graph ARGS` as rank `rank` of 2 in its namespace, dialing
    /// (rank 0: listening on) `coordinator`, with `env` set too.
    pub fn rank_with(
        &self,
        rank: usize,
        coordinator: &str,
        token: &str,
        env: &[(&str, &str)],
        args: &[&str],
    ) -> Command {
        let mut c = Command::new("ip");
        c.args([
            "netns",
            "exec",
            &self.names[rank],
            env!("CARGO_BIN_EXE_gossamer-graph"),
        ])
        .args(args)
        .env("GOSSAMER_RANK", rank.to_string())
        .env("GOSSAMER_SIZE", "2")
        .env("GOSSAMER_TOKEN", token)
        .env("GOSSAMER_COORDINATOR", coordinator)
        .env("GOSSAMER_JOIN_TIMEOUT", "30")
        .env("RUST_BACKTRACE", "0")
        .env_remove("GOSSAMER_COORDINATOR_FD")
        .env_remove("GOSSAMER_SHM_FD")
        .env_remove("GOSSAMER_DATA_LISTEN")
        .env_remove("GOSSAMER_DATA_ADVERTISE");
        for (k, v) in env {
            c.env(k, v);
        }
        c
    }

    /// Runs `prog ARGS` in host `h`'s namespace (`input` on its stdin) and
    /// returns its stdout, or says why it failed.
    pub fn exec(&self, h: usize, prog: &str, args: &[&str], input: &str) -> Result<String, String> {
        let mut c = Command::new("ip")
            .args(["netns", "exec", &self.names[h], prog])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot run `ip netns exec` (iproute2): {e}"))?;
        let _ = c.stdin.take().unwrap().write_all(input.as_bytes());
        let out = c.wait_with_output().map_err(|e| e.to_string())?;
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        } else {
            Err(format!(
                "`{prog} {}` in {} failed: {}",
                args.join(" "),
                self.names[h],
                String::from_utf8_lossy(&out.stderr).trim()
            ))
        }
    }

    /// Drops `percent` % of the packets arriving at each host (so each way),
    /// at random: an nftables input chain in each namespace.
    pub fn drop_share(&self, percent: u32) -> Result<(), String> {
        for (h, dev) in DEVS.iter().enumerate() {
            let rules = format!(
                "table inet gglossy {{\n  chain input {{\n    type filter hook input priority 0;\n    \
                 iifname \"{dev}\" numgen random mod 100 < {percent} drop\n  }}\n}}\n"
            );
            self.exec(h, "nft", &["-f", "-"], &rules)?;
        }
        Ok(())
    }

    /// Limits each host's sending rate to `rate` (tc's notation, e.g.
    /// `100mbit`), with a token bucket filter.
    pub fn limit_rate(&self, rate: &str) -> Result<(), String> {
        for (h, dev) in DEVS.iter().enumerate() {
            let out = Command::new("tc")
                .args([
                    "-n",
                    &self.names[h],
                    "qdisc",
                    "add",
                    "dev",
                    dev,
                    "root",
                    "tbf",
                ])
                .args(["rate", rate, "burst", "128kb", "latency", "50ms"])
                .output()
                .map_err(|e| format!("cannot run `tc` (iproute2): {e}"))?;
            if !out.status.success() {
                return Err(format!(
                    "`tc qdisc add ... tbf` failed: {}",
                    String::from_utf8_lossy(&out.stderr).trim()
                ));
            }
        }
        Ok(())
    }

    /// Takes host 0's end of the link down (`up` false) or up again; the
    /// veth peer loses its carrier with it.
    pub fn link(&self, up: bool) {
        let state = if up { "up" } else { "down" };
        ip(&["-n", &self.names[0], "link", "set", DEVS[0], state]).expect("ip link set");
    }

    /// Bytes host 0 received on the link so far.
    pub fn received(&self) -> u64 {
        let path = format!("/sys/class/net/{}/statistics/rx_bytes", DEVS[0]);
        self.exec(0, "cat", &[&path], "")
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0)
    }

    /// Waits until host 0 received more than `bytes` on the link (the job
    /// is under way), for up to `limit`; false if it never did.
    pub fn wait_for_traffic(&self, bytes: u64, limit: Duration) -> bool {
        let t0 = Instant::now();
        while t0.elapsed() < limit {
            if self.received() > bytes {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    /// Process ids in host `h`'s namespace.
    pub fn pids(&self, h: usize) -> Vec<u32> {
        let out = Command::new("ip")
            .args(["netns", "pids", &self.names[h]])
            .output()
            .expect("ip netns pids");
        String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .filter_map(|p| p.parse().ok())
            .collect()
    }
}

impl Drop for TwoHosts {
    fn drop(&mut self) {
        for n in &self.names {
            let _ = ip(&["netns", "del", n]);
        }
    }
}

pub fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| format!("cannot run `ip` (iproute2): {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "`ip {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// A Toxiproxy server in one host's namespace, its API on that namespace's
/// loopback (port 8474), stopped on drop.
pub struct Toxiproxy<'a> {
    hosts: &'a TwoHosts,
    host: usize,
    server: Child,
}

impl<'a> Toxiproxy<'a> {
    /// Starts the server (`TOXIPROXY_SERVER`, else `toxiproxy-server` on the
    /// PATH) in host `host`'s namespace, or says why it cannot.
    pub fn start(hosts: &'a TwoHosts, host: usize) -> Result<Self, String> {
        let bin = match std::env::var_os("TOXIPROXY_SERVER") {
            Some(b) => std::path::PathBuf::from(b),
            None => std::env::var_os("PATH")
                .iter()
                .flat_map(std::env::split_paths)
                .map(|d| d.join("toxiproxy-server"))
                .find(|p| p.is_file())
                .ok_or(
                    "no Toxiproxy server: set TOXIPROXY_SERVER or put toxiproxy-server on \
                        the PATH (`go install github.com/Shopify/toxiproxy/v2/cmd/server@v2.5.0` \
                        builds it as `server`)",
                )?,
        };
        Command::new("curl")
            .arg("--version")
            .output()
            .map_err(|e| format!("cannot run curl (for Toxiproxy's API): {e}"))?;
        let server = Command::new("ip")
            .args(["netns", "exec", &hosts.names[host]])
            .arg(&bin)
            .args(["-host", "127.0.0.1", "-port", "8474"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", bin.display()))?;
        let mut t = Toxiproxy {
            hosts,
            host,
            server,
        };
        let t0 = Instant::now();
        while t.api("GET", "/version", None).is_err() {
            if let Ok(Some(s)) = t.server.try_wait() {
                return Err(format!("{} exited at once ({s})", bin.display()));
            }
            if t0.elapsed() > Duration::from_secs(10) {
                return Err(format!("{} did not answer on its API", bin.display()));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(t)
    }

    /// One API call (`curl` in the server's namespace).
    pub fn api(&self, method: &str, path: &str, body: Option<&str>) -> Result<String, String> {
        let url = format!("http://127.0.0.1:8474{path}");
        let mut args = vec!["-sS", "-f", "-X", method, &url];
        if let Some(b) = body {
            args.extend(["-d", b]);
        }
        self.hosts.exec(self.host, "curl", &args, "")
    }

    /// A proxy `name` listening on `listen`, forwarding to `upstream`.
    pub fn proxy(&self, name: &str, listen: &str, upstream: &str) -> Result<(), String> {
        let body = format!(r#"{{"name":"{name}","listen":"{listen}","upstream":"{upstream}"}}"#);
        self.api("POST", "/proxies", Some(&body)).map(drop)
    }

    /// Adds a toxic (its JSON) to proxy `name`.
    pub fn toxic(&self, name: &str, toxic: &str) -> Result<(), String> {
        self.api("POST", &format!("/proxies/{name}/toxics"), Some(toxic))
            .map(drop)
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.server.id()
    }
}

impl Drop for Toxiproxy<'_> {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}

/// A condition a test needs could not be set up: under `CI=true` that fails
/// the test (.ci/run installs what these tests need), elsewhere the test says
/// why it skips. Returns (when it does) so the caller can return.
pub fn cannot(test: &str, why: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "{test}: {why} (CI=true: .ci/run must provide root, iproute2, nftables, curl and \
         Toxiproxy)"
    );
    // Straight to the process's stderr: `eprintln!` in a passing test is
    // captured by the test harness, and the skip would go unseen.
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {why}");
}
