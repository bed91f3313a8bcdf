//! Two simulated hosts: network namespaces joined by a veth pair.

use std::process::Command;

/// Two network namespaces joined by a veth pair, removed on drop.
pub struct TwoHosts {
    pub names: [String; 2],
    pub addrs: [String; 2],
}

impl TwoHosts {
    /// Sets them up, or says why it cannot (not root, no iproute2, no
    /// permission to make namespaces).
    pub fn new() -> Result<TwoHosts, String> {
        let id = std::process::id();
        let names = [format!("gg{id}a"), format!("gg{id}b")];
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
        .env("GOSSAMER_COORDINATOR", format!("{}:{port}", self.addrs[0]))
        .env("GOSSAMER_JOIN_TIMEOUT", "30")
        .env("RUST_BACKTRACE", "0")
        .env_remove("GOSSAMER_COORDINATOR_FD")
        .env_remove("GOSSAMER_SHM_FD");
        c
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
