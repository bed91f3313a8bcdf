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
    /// True when the token was derived from a job id instead of `GOSSAMER_TOKEN`.
    pub token_derived: bool,
    /// `host:port` where rank 0 listens for the other ranks.
    pub coordinator: String,
    /// A short name for this job (shared-memory file names).
    pub job: String,
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

fn parse_num(name: &str, v: &str) -> Result<usize, String> {
    v.trim()
        .parse()
        .map_err(|_| format!("{name}={v:?} is not a non-negative integer"))
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
    let rank = parse_num(rank_v, &var(rank_v).unwrap_or_default())?;
    let size = parse_num(size_v, &var(size_v).unwrap_or_default())?;
    if size == 0 || rank >= size {
        return Err(format!(
            "{rank_v}={rank} and {size_v}={size}: the rank must be below the size"
        ));
    }
    let job_id = JOB_IDS
        .iter()
        .find_map(|k| var(k).map(|v| format!("{k}={v}")));
    let slurm_step = var("SLURM_STEP_ID").unwrap_or_default();
    let (token, token_derived) = match var("GOSSAMER_TOKEN") {
        Some(t) if !t.is_empty() => (t, false),
        _ => match &job_id {
            Some(j) if size > 1 => (
                format!(
                    "derived-{:016x}",
                    digest(&["gossamer-token", j, &slurm_step])
                ),
                true,
            ),
            _ if size == 1 => (String::new(), true),
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
    let job = match var("GOSSAMER_JOB") {
        Some(j) => j,
        None => format!(
            "{:012x}",
            digest(&["gossamer-job", &token]) & 0xffff_ffff_ffff
        ),
    };
    let coordinator = match var("GOSSAMER_COORDINATOR") {
        Some(c) => c,
        None => {
            // One host: a port derived from the job, so every rank computes the same.
            let port = 20000 + digest(&["gossamer-port", &token]) % 20000;
            format!("127.0.0.1:{port}")
        }
    };
    Ok(Some(RankEnv {
        rank,
        size,
        launcher,
        token,
        token_derived,
        coordinator,
        job,
    }))
}

/// [`detect`] over the process environment.
pub(crate) fn from_process() -> Result<Option<RankEnv>, String> {
    detect(&|k| std::env::var(k).ok())
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
        assert_eq!(a.token, b.token);
        assert_eq!(a.coordinator, b.coordinator);
        assert_ne!(a.token, c.token);
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
}
