//! Who am I in the job: rank, size, token and coordinator from the launcher's
//! environment (the built-in launcher, Open MPI, MPICH/Hydra, Slurm).

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

/// This process's place in a rack job, as read from the environment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankEnv {
    /// This process's rank, `0..size`.
    pub rank: usize,
    /// Number of processes (ranks) in the job.
    pub size: usize,
    /// Which launcher's variables were found (for messages).
    pub launcher: &'static str,
    /// The per-job secret every connection must present.
    pub(crate) token: String,
    /// True when the token was not given in `GOSSAMER_TOKEN` but is a random secret
    /// shared through a private file on this host (see `secret_file`).
    pub token_derived: bool,
    /// The private file the secret came from (removed by rank 0 once every rank
    /// joined); with `token_derived`, before `from_process` reads it, the key
    /// that names it.
    pub(crate) token_file: Option<std::path::PathBuf>,
    /// `host:port` where rank 0 listens for the other ranks.
    pub coordinator: String,
    /// A short name for this job (shared-memory file names).
    pub job: String,
    /// How long ranks wait for each other at bootstrap (`GOSSAMER_JOIN_TIMEOUT`,
    /// seconds; default 60).
    pub join_timeout: std::time::Duration,
    /// Rank 0 of the built-in launcher: an inherited, already listening socket on
    /// the coordinator address (`GOSSAMER_COORDINATOR_FD`).
    pub(crate) listen_fd: Option<i32>,
    /// The built-in launcher's unnamed shared memory (`GOSSAMER_SHM_FD`), inherited
    /// by every rank: nothing in `/dev/shm` to leave behind.
    pub(crate) shm_fd: Option<i32>,
    /// Where this rank's tcp data listener binds, and the address other ranks
    /// dial for it (`GOSSAMER_DATA_LISTEN`, `GOSSAMER_DATA_ADVERTISE`).
    pub data_link: DataLink,
}

/// Where a rank's tcp data listener binds and what address the other ranks are
/// told to dial; they differ behind NAT, in a container with a published port,
/// or when the links run through a proxy.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DataLink {
    /// `GOSSAMER_DATA_LISTEN=IP:PORT` (default: the address this rank reaches
    /// rank 0 from, rank 0's the coordinator's, on a free port).
    pub listen: Option<std::net::SocketAddr>,
    /// `GOSSAMER_DATA_ADVERTISE=HOST:PORT` (default: the bound address).
    pub advertise: Option<String>,
}

/// Reads `GOSSAMER_DATA_LISTEN` and `GOSSAMER_DATA_ADVERTISE` through `var`.
pub(crate) fn data_link(var: &dyn Fn(&str) -> Option<String>) -> Result<DataLink, String> {
    let listen = match var("GOSSAMER_DATA_LISTEN") {
        None => None,
        Some(v) => Some(v.trim().parse::<std::net::SocketAddr>().map_err(|_| {
            format!(
                "GOSSAMER_DATA_LISTEN={v:?}: expected IP:PORT, where this rank's tcp data \
                 listener binds (e.g. 10.0.0.5:47001, [fd00::5]:47001, or 0.0.0.0:47001 for \
                 every interface together with GOSSAMER_DATA_ADVERTISE)"
            )
        })?),
    };
    let advertise = match var("GOSSAMER_DATA_ADVERTISE") {
        None => None,
        Some(v) => {
            let bad = |why: &str| {
                format!(
                    "GOSSAMER_DATA_ADVERTISE={v:?}: {why}; expected HOST:PORT, the address \
                     other ranks dial to reach this rank's tcp data listener (e.g. \
                     node7.example:47001 or 192.0.2.7:47001, [2001:db8::7]:47001)"
                )
            };
            let t = v.trim();
            let (host, port) = t.rsplit_once(':').ok_or_else(|| bad("no port"))?;
            let port_ok = matches!(port.parse::<u16>(), Ok(p) if p > 0);
            if !port_ok {
                return Err(bad("the port is not a number in 1..=65535"));
            }
            let host_ok = match host.strip_prefix('[') {
                Some(h) => h
                    .strip_suffix(']')
                    .is_some_and(|h| h.parse::<std::net::Ipv6Addr>().is_ok()),
                None => {
                    !host.is_empty()
                        && host.len() <= 253
                        && host
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-' || c == '_')
                }
            };
            if !host_ok {
                return Err(bad("the host is not a name or an IP address"));
            }
            Some(t.to_string())
        }
    };
    if advertise.is_some() && listen.is_none_or(|l| l.port() == 0) {
        return Err(
            "GOSSAMER_DATA_ADVERTISE is set, but GOSSAMER_DATA_LISTEN does not give a fixed \
             port: the advertised address must lead to the port this rank listens on, so \
             bind it with GOSSAMER_DATA_LISTEN=IP:PORT"
                .into(),
        );
    }
    Ok(DataLink { listen, advertise })
}

/// Rank and size variables of the launchers we know, in the order they are tried.
const LAUNCHERS: [(&str, &str, &str); 4] = [
    ("gossamer", "GOSSAMER_RANK", "GOSSAMER_SIZE"),
    ("Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"),
    ("MPICH/Hydra (PMI)", "PMI_RANK", "PMI_SIZE"),
    ("Slurm", "SLURM_PROCID", "SLURM_NTASKS"),
];

/// Variables that name the job, used to derive a token and a coordinator port when
/// `GOSSAMER_TOKEN` / `GOSSAMER_COORDINATOR` are not set.
const JOB_IDS: [&str; 6] = [
    "GOSSAMER_JOB",
    "PMIX_NAMESPACE",
    "OMPI_MCA_ess_base_jobid",
    "SLURM_JOB_ID",
    "PMI_KVSNAME",
    "MPIEXEC_HOSTNAME",
];

/// Most ranks a job may have (a launcher's size variable beyond it is
/// refused): slot memory grows with the square of the worker count, so far
/// fewer fit any host (the slot memory check says how many).
pub const MAX_RANKS: usize = 1 << 16;

/// Longest `GOSSAMER_JOIN_TIMEOUT`, in seconds (a day).
pub const MAX_JOIN_TIMEOUT_S: u64 = 86_400;

/// The value `v` of variable `name` as a whole number in `range`; the error
/// names the variable and its value, says `what` it is and the range.
fn parse_in(
    name: &str,
    v: &str,
    range: std::ops::RangeInclusive<u64>,
    what: &str,
) -> Result<u64, String> {
    match v.trim().parse::<u64>() {
        Ok(x) if range.contains(&x) => Ok(x),
        _ => Err(format!(
            "{name}={v:?}: expected {what}, a whole number from {} to {}",
            range.start(),
            range.end()
        )),
    }
}

/// Checks `GOSSAMER_JOB`: it becomes part of file names (the shared region
/// in `/dev/shm`), so only a plain name is taken, never a path: no `/`, no
/// `..`, no leading `.`.
fn job_name(v: &str) -> Result<String, String> {
    let plain = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-');
    if (1..=64).contains(&v.len())
        && v.bytes().all(plain)
        && !v.starts_with('.')
        && !v.contains("..")
    {
        Ok(v.to_string())
    } else {
        Err(format!(
            "GOSSAMER_JOB={v:?}: expected a job name of 1 to 64 letters, digits, '.', '_' or '-', not starting with '.' and without '..' (it becomes part of file names in /dev/shm, so it may not be a path)"
        ))
    }
}

/// Checks the form of `GOSSAMER_COORDINATOR` (`HOST:PORT`, the port 1 to
/// 65535); the host is resolved at bootstrap.
fn coordinator_address(v: &str) -> Result<String, String> {
    let bad = || {
        format!(
            "GOSSAMER_COORDINATOR={v:?}: expected HOST:PORT where rank 0 listens (e.g. node1:29500 or [fe80::1]:29500), the port from 1 to 65535"
        )
    };
    let (host, port) = v.trim().rsplit_once(':').ok_or_else(bad)?;
    match port.parse::<u16>() {
        Ok(p) if p > 0 && !host.is_empty() => Ok(v.trim().to_string()),
        _ => Err(bad()),
    }
}

fn digest(parts: &[&str]) -> u64 {
    let mut h = DefaultHasher::new();
    for p in parts {
        p.hash(&mut h);
    }
    h.finish()
}

/// Reads the rank environment through `var`. `Ok(None)` when no launcher variables
/// are set (a single-process run).
pub(crate) fn detect(var: &dyn Fn(&str) -> Option<String>) -> Result<Option<RankEnv>, String> {
    let Some((launcher, rank_v, size_v)) = LAUNCHERS
        .iter()
        .find(|(_, r, s)| var(r).is_some() && var(s).is_some())
    else {
        return Ok(None);
    };
    let max = MAX_RANKS as u64;
    let size = parse_in(
        size_v,
        &var(size_v).unwrap_or_default(),
        1..=max,
        "the number of ranks in the job",
    )? as usize;
    let rank = parse_in(
        rank_v,
        &var(rank_v).unwrap_or_default(),
        0..=max - 1,
        "this process's rank",
    )? as usize;
    if size == 0 || rank >= size {
        return Err(format!(
            "{rank_v}={rank} and {size_v}={size}: the rank must be below the size"
        ));
    }
    let job_id = JOB_IDS
        .iter()
        .find_map(|k| var(k).map(|v| format!("{k}={v}")));
    let slurm_step = var("SLURM_STEP_ID").unwrap_or_default();
    let job_key = job_id
        .as_ref()
        .map(|j| format!("{:016x}", digest(&["gossamer-job-key", j, &slurm_step])));
    let (token, token_derived, token_file) = match var("GOSSAMER_TOKEN") {
        Some(t) if !t.is_empty() => (t, false, None),
        _ => match &job_key {
            // A random secret shared through a private file (from_process reads or
            // creates it): a job id alone is predictable by anyone on the host.
            Some(k) if size > 1 => (String::new(), true, Some(k.into())),
            _ if size == 1 => (String::new(), true, None),
            _ => {
                return Err(format!(
                    "no GOSSAMER_TOKEN and no job id in the environment of this {launcher} rank: \
                     set GOSSAMER_TOKEN to the same secret on every rank"
                ))
            }
        },
    };
    if token.len() > 256 {
        return Err("GOSSAMER_TOKEN is longer than 256 bytes".into());
    }
    // Names every rank computes alike: from the job id when there is one (the
    // token may be a per-host secret), else from the token.
    let name_seed = job_key.clone().unwrap_or_else(|| token.clone());
    let job = match var("GOSSAMER_JOB") {
        Some(j) => job_name(&j)?,
        None => format!(
            "{:012x}",
            digest(&["gossamer-job", &name_seed]) & 0xffff_ffff_ffff
        ),
    };
    let coordinator = match var("GOSSAMER_COORDINATOR") {
        Some(c) => coordinator_address(&c)?,
        None => {
            // One host: a port derived from the job, so every rank computes the same.
            let port = 20000 + digest(&["gossamer-port", &name_seed]) % 20000;
            format!("127.0.0.1:{port}")
        }
    };
    let join_timeout = match var("GOSSAMER_JOIN_TIMEOUT") {
        Some(v) => std::time::Duration::from_secs(parse_in(
            "GOSSAMER_JOIN_TIMEOUT",
            &v,
            1..=MAX_JOIN_TIMEOUT_S,
            "how many seconds ranks wait for each other at bootstrap",
        )?),
        None => std::time::Duration::from_secs(60),
    };
    let fd = |name: &str| -> Result<Option<i32>, String> {
        var(name)
            .map(|v| {
                parse_in(
                    name,
                    &v,
                    3..=i32::MAX as u64,
                    "an inherited file descriptor (the built-in launcher sets it)",
                )
                .map(|f| f as i32)
            })
            .transpose()
    };
    let listen_fd = if rank == 0 {
        fd("GOSSAMER_COORDINATOR_FD")?
    } else {
        None
    };
    let shm_fd = fd("GOSSAMER_SHM_FD")?;
    let data_link = data_link(var)?;
    Ok(Some(RankEnv {
        rank,
        size,
        launcher,
        token,
        token_derived,
        token_file,
        coordinator,
        job,
        join_timeout,
        listen_fd,
        shm_fd,
        data_link,
    }))
}

/// [`detect`] over the process environment; without `GOSSAMER_TOKEN`, the job's
/// secret comes from (or is created in) this user's private [`secret_file`].
pub(crate) fn from_process() -> Result<Option<RankEnv>, String> {
    let Some(mut env) = detect(&|k| std::env::var(k).ok())? else {
        return Ok(None);
    };
    if let Some(key) = env.token_file.take() {
        let dir = private_dir(&|k| std::env::var_os(k))?;
        let path = dir.join(format!("job-{}.token", key.display()));
        env.token = secret_file(&path)?;
        env.token_file = Some(path);
    }
    Ok(Some(env))
}

/// This user's private directory for job secrets: `gossamer-<uid>` under
/// `$XDG_RUNTIME_DIR`, else `$TMPDIR`, else `/tmp`; created mode 0700, and refused
/// unless it is a real directory owned by this user that nobody else can enter.
pub(crate) fn private_dir(
    var: &dyn Fn(&str) -> Option<std::ffi::OsString>,
) -> Result<std::path::PathBuf, String> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    let base = ["XDG_RUNTIME_DIR", "TMPDIR"]
        .iter()
        .filter_map(|k| var(k))
        .map(std::path::PathBuf::from)
        .find(|p| p.is_dir())
        .unwrap_or_else(|| "/tmp".into());
    // SAFETY: getuid has no preconditions and cannot fail.
    let uid = unsafe { libc::getuid() };
    let dir = base.join(format!("gossamer-{uid}"));
    match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(format!("could not create {}: {e}", dir.display())),
    }
    let m = std::fs::symlink_metadata(&dir)
        .map_err(|e| format!("could not inspect {}: {e}", dir.display()))?;
    if !m.is_dir() || m.uid() != uid || m.mode() & 0o077 != 0 {
        return Err(format!(
            "{} is not a private directory of this user (it must be a directory owned by uid \
             {uid} with mode 0700, not a link): remove it, or set GOSSAMER_TOKEN to a random \
             secret on every rank",
            dir.display()
        ));
    }
    Ok(dir)
}

/// The job secret in `path`: read it, or create it (random, mode 0600, published
/// atomically by linking a complete file to the name, so every rank on this host
/// reads the same secret whichever comes first).
pub(crate) fn secret_file(path: &std::path::Path) -> Result<String, String> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let read = |p: &std::path::Path| std::fs::read_to_string(p).map(|t| t.trim().to_string());
    match read(path) {
        Ok(t) if !t.is_empty() => return Ok(t),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            return Err(format!(
                "could not read the job secret {}: {e}",
                path.display()
            ))
        }
    }
    let secret = super::wire::random_hex(32)
        .map_err(|e| format!("could not get random bytes for the job secret: {e}"))?;
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let made = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)
        .and_then(|mut f| f.write_all(secret.as_bytes()))
        .and_then(|()| match std::fs::hard_link(&tmp, path) {
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
            r => r,
        });
    let _ = std::fs::remove_file(&tmp);
    made.map_err(|e| format!("could not create the job secret {}: {e}", path.display()))?;
    match read(path) {
        Ok(t) if !t.is_empty() => Ok(t),
        Ok(_) => Err(format!("the job secret {} is empty", path.display())),
        Err(e) => Err(format!(
            "could not read the job secret {}: {e}",
            path.display()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> Result<Option<RankEnv>, String> {
        let m: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        detect(&|k| m.get(k).cloned())
    }

    #[test]
    fn no_launcher_is_single_process() {
        assert_eq!(env(&[("HOME", "/")]).unwrap(), None);
    }

    #[test]
    fn each_launcher_is_recognised() {
        let cases = [
            ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "Open MPI"),
            ("PMI_RANK", "PMI_SIZE", "MPICH/Hydra (PMI)"),
            ("SLURM_PROCID", "SLURM_NTASKS", "Slurm"),
            ("GOSSAMER_RANK", "GOSSAMER_SIZE", "gossamer"),
        ];
        for (r, s, name) in cases {
            let e = env(&[(r, "2"), (s, "4"), ("GOSSAMER_TOKEN", "sekrit")])
                .unwrap()
                .unwrap();
            assert_eq!((e.rank, e.size, e.launcher), (2, 4, name));
            assert_eq!(e.token, "sekrit");
            assert!(!e.token_derived);
        }
    }

    #[test]
    fn token_and_port_derive_from_the_job_id_identically_on_every_rank() {
        let a = env(&[
            ("SLURM_PROCID", "0"),
            ("SLURM_NTASKS", "2"),
            ("SLURM_JOB_ID", "77"),
        ])
        .unwrap()
        .unwrap();
        let b = env(&[
            ("SLURM_PROCID", "1"),
            ("SLURM_NTASKS", "2"),
            ("SLURM_JOB_ID", "77"),
        ])
        .unwrap()
        .unwrap();
        let c = env(&[
            ("SLURM_PROCID", "1"),
            ("SLURM_NTASKS", "2"),
            ("SLURM_JOB_ID", "78"),
        ])
        .unwrap()
        .unwrap();
        assert!(a.token_derived);
        assert_eq!(a.token, "", "no secret is derived from the job id");
        assert_eq!(a.token_file, b.token_file);
        assert_eq!(a.coordinator, b.coordinator);
        assert_eq!(a.job, b.job);
        assert_ne!(a.token_file, c.token_file);
        assert_ne!(a.job, c.job);
    }

    #[test]
    fn the_job_secret_file_is_private_random_and_shared() {
        use std::os::unix::fs::PermissionsExt;
        let base = std::env::temp_dir().join(format!("gsm-secret-{}", std::process::id()));
        std::fs::create_dir_all(&base).unwrap();
        let b2 = base.clone();
        let dir = private_dir(&move |k| (k == "TMPDIR").then(|| b2.clone().into())).unwrap();
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir), 0o700);
        let p = dir.join("job-x.token");
        let a = secret_file(&p).unwrap();
        assert_eq!(a.len(), 64);
        assert_eq!(mode(&p), 0o600);
        assert_eq!(
            secret_file(&p).unwrap(),
            a,
            "the second rank reads the first's"
        );
        std::fs::remove_file(&p).unwrap();
        assert_ne!(secret_file(&p).unwrap(), a, "random, not derived");
        // A directory others can enter is refused.
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        let b2 = base.clone();
        let e = private_dir(&move |k| (k == "TMPDIR").then(|| b2.clone().into())).unwrap_err();
        assert!(e.contains("not a private directory"), "{e}");
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn the_data_link_may_advertise_another_address_than_it_binds() {
        let base = [
            ("GOSSAMER_RANK", "1"),
            ("GOSSAMER_SIZE", "2"),
            ("GOSSAMER_TOKEN", "t"),
        ];
        let with = |extra: &[(&str, &str)]| {
            let mut v = base.to_vec();
            v.extend_from_slice(extra);
            env(&v).map(|e| e.unwrap().data_link)
        };
        assert_eq!(with(&[]).unwrap(), DataLink::default());
        let d = with(&[
            ("GOSSAMER_DATA_LISTEN", "0.0.0.0:47001"),
            ("GOSSAMER_DATA_ADVERTISE", "node7.example:31001"),
        ])
        .unwrap();
        assert_eq!(d.listen, Some("0.0.0.0:47001".parse().unwrap()));
        assert_eq!(d.advertise.as_deref(), Some("node7.example:31001"));
        let d = with(&[
            ("GOSSAMER_DATA_LISTEN", "[::1]:5"),
            ("GOSSAMER_DATA_ADVERTISE", "[2001:db8::7]:6"),
        ])
        .unwrap();
        assert_eq!(d.advertise.as_deref(), Some("[2001:db8::7]:6"));
        // A listen address alone is fine (port 0: any free port).
        assert!(with(&[("GOSSAMER_DATA_LISTEN", "10.0.0.5:0")]).is_ok());
        for (listen, advertise, says) in [
            (
                "10.0.0.5",
                "h:1",
                "GOSSAMER_DATA_LISTEN=\"10.0.0.5\": expected IP:PORT",
            ),
            (
                "node7:47001",
                "h:1",
                "GOSSAMER_DATA_LISTEN=\"node7:47001\": expected IP:PORT",
            ),
            (
                "10.0.0.5:1",
                "node7",
                "GOSSAMER_DATA_ADVERTISE=\"node7\": no port",
            ),
            ("10.0.0.5:1", "node7:0", "not a number in 1..=65535"),
            ("10.0.0.5:1", "node7:70000", "not a number in 1..=65535"),
            ("10.0.0.5:1", ":80", "the host is not"),
            ("10.0.0.5:1", "a/b:80", "the host is not"),
            ("10.0.0.5:1", "[zz]:80", "the host is not"),
            ("10.0.0.5:0", "h:1", "does not give a fixed port"),
        ] {
            let e = with(&[
                ("GOSSAMER_DATA_LISTEN", listen),
                ("GOSSAMER_DATA_ADVERTISE", advertise),
            ])
            .unwrap_err();
            assert!(e.contains(says), "{listen} {advertise}: {e}");
        }
        let e = with(&[("GOSSAMER_DATA_ADVERTISE", "h:1")]).unwrap_err();
        assert!(e.contains("does not give a fixed port"), "{e}");
    }

    #[test]
    fn bad_values_are_explained() {
        let e = env(&[("PMI_RANK", "4"), ("PMI_SIZE", "4")]).unwrap_err();
        assert!(e.contains("below the size"), "{e}");
        let e = env(&[("PMI_RANK", "x"), ("PMI_SIZE", "4")]).unwrap_err();
        assert!(e.contains("PMI_RANK"), "{e}");
        let e = env(&[("PMI_RANK", "1"), ("PMI_SIZE", "4")]).unwrap_err();
        assert!(e.contains("GOSSAMER_TOKEN"), "{e}");
    }

    #[test]
    fn every_variable_is_checked_against_its_range_by_name() {
        let base = [
            ("GOSSAMER_RANK", "0"),
            ("GOSSAMER_SIZE", "2"),
            ("GOSSAMER_TOKEN", "t"),
        ];
        let with = |k: &'static str, v: &'static str| {
            let mut pairs = base.to_vec();
            pairs.retain(|(n, _)| *n != k);
            pairs.push((k, v));
            env(&pairs)
        };
        for (k, v, want) in [
            // It used to panic on every rank (an instant beyond the clock).
            (
                "GOSSAMER_JOIN_TIMEOUT",
                "9223372036854775807",
                "GOSSAMER_JOIN_TIMEOUT=\"9223372036854775807\": expected how many seconds ranks wait for each other at bootstrap, a whole number from 1 to 86400",
            ),
            ("GOSSAMER_JOIN_TIMEOUT", "0", "from 1 to 86400"),
            ("GOSSAMER_JOIN_TIMEOUT", "-3", "GOSSAMER_JOIN_TIMEOUT=\"-3\""),
            // A path would put the shared region outside /dev/shm.
            ("GOSSAMER_JOB", "x/../../../tmp/evil", "GOSSAMER_JOB=\"x/../../../tmp/evil\": expected a job name"),
            ("GOSSAMER_JOB", "..", "may not be a path"),
            ("GOSSAMER_JOB", "a..b", "GOSSAMER_JOB=\"a..b\""),
            ("GOSSAMER_JOB", "a b", "GOSSAMER_JOB=\"a b\""),
            ("GOSSAMER_JOB", "", "GOSSAMER_JOB=\"\""),
            ("GOSSAMER_SIZE", "100000000", "GOSSAMER_SIZE=\"100000000\": expected the number of ranks in the job, a whole number from 1 to 65536"),
            ("GOSSAMER_SIZE", "0", "from 1 to 65536"),
            ("GOSSAMER_RANK", "-1", "GOSSAMER_RANK=\"-1\": expected this process's rank"),
            ("GOSSAMER_COORDINATOR", "node1", "GOSSAMER_COORDINATOR=\"node1\": expected HOST:PORT"),
            ("GOSSAMER_COORDINATOR", "node1:0", "the port from 1 to 65535"),
            ("GOSSAMER_COORDINATOR", "node1:70000", "GOSSAMER_COORDINATOR"),
            ("GOSSAMER_SHM_FD", "2", "GOSSAMER_SHM_FD=\"2\": expected an inherited file descriptor"),
            ("GOSSAMER_SHM_FD", "99999999999", "GOSSAMER_SHM_FD"),
            ("GOSSAMER_COORDINATOR_FD", "x", "GOSSAMER_COORDINATOR_FD=\"x\""),
        ] {
            let e = with(k, v).unwrap_err();
            assert!(e.contains(want), "{k}={v}: {e}");
        }
        // The good values of each pass.
        for (k, v) in [
            ("GOSSAMER_JOIN_TIMEOUT", "86400"),
            ("GOSSAMER_JOB", "1234-abcd.step_0"),
            ("GOSSAMER_SIZE", "65536"),
            ("GOSSAMER_COORDINATOR", "[::1]:29500"),
            ("GOSSAMER_COORDINATOR", "10.0.0.1:1"),
            ("GOSSAMER_SHM_FD", "3"),
        ] {
            with(k, v).unwrap_or_else(|e| panic!("{k}={v}: {e}"));
        }
    }
}
