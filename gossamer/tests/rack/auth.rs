//! Authentication at bootstrap: a wrong or another token is refused, a fake
//! coordinator learns no token, and without a token the ranks share a
//! private secret file.

use crate::common::{
    connect_when_listening, exact, finish, free_port, is_rank, job_name, shm_files_of_job,
    spawn_rank, GUARD,
};
use std::process::{Command, Stdio};

#[test]
fn a_connection_with_a_wrong_token_is_refused_and_nothing_it_sends_runs() {
    use std::io::{Read, Write};
    if is_rank() {
        return;
    }
    let coord = free_port();
    let job = job_name("badtoken");
    let r0 = spawn_rank("rank_counter_shm", 0, 2, &coord, &job, &[]);
    let mut s = connect_when_listening(&coord);
    // The protocol's opening, then a tag made without the token, then bytes that
    // would be a message.
    let mut b = b"GSMRACK2".to_vec();
    b.extend_from_slice(&[7u8; 32]);
    s.write_all(&b).unwrap();
    s.set_read_timeout(Some(GUARD)).unwrap();
    let mut answer = [0u8; 72];
    s.read_exact(&mut answer).unwrap();
    assert_eq!(&answer[..8], b"GSMRACK2");
    let mut forged = vec![0u8; 32];
    forged.extend_from_slice(&[9u8; 64]);
    s.write_all(&forged).unwrap();
    let mut buf = [0u8; 16];
    match s.read(&mut buf) {
        Ok(0) | Err(_) => {} // closed
        Ok(n) => panic!("rank 0 answered {n} bytes to a peer with the wrong token"),
    }
    // The real rank 1 still joins: the impostor was not taken for rank 1.
    let r1 = spawn_rank("rank_counter_shm", 1, 2, &coord, &job, &[]);
    let (c0, t0) = finish(r0);
    let (c1, t1) = finish(r1);
    assert_eq!((c0, c1), (0, 0), "{t0}\n{t1}");
    assert!(
        t0.contains("refused a connection") && t0.contains("GOSSAMER_TOKEN differs"),
        "{t0}"
    );
    assert!(t0.contains("rank 0 result"), "{t0}");
}

/// A process listening on the coordinator address instead of rank 0 reads what a
/// rank sends: it must not contain the token. The rank says what went wrong.
#[test]
fn a_fake_coordinator_learns_no_token_and_the_rank_says_why_it_gave_up() {
    use std::io::{Read, Write};
    if is_rank() {
        return;
    }
    let token = "the-right-token";
    for (answer, says) in [
        (None, "timed out waiting for the coordinator at"),
        (
            Some(&b"HTTP/1.1 400 Bad Request\r\n\r\n"[..]),
            "is not a gossamer coordinator (bad protocol magic)",
        ),
    ] {
        let fake = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let coord = fake.local_addr().unwrap().to_string();
        let job = job_name("fake");
        let r1 = spawn_rank(
            "rank_counter_shm",
            1,
            2,
            &coord,
            &job,
            &[("GOSSAMER_JOIN_TIMEOUT", "3")],
        );
        let (mut s, _) = fake.accept().unwrap();
        s.set_read_timeout(Some(GUARD)).unwrap();
        let mut seen = Vec::new();
        if let Some(a) = answer {
            let mut first = [0u8; 40];
            s.read_exact(&mut first).unwrap();
            seen.extend_from_slice(&first);
            s.write_all(a).unwrap();
        }
        let _ = s.read_to_end(&mut seen); // until the rank gives up and closes
        let (c1, t1) = finish(r1);
        assert_ne!(c1, 0, "{t1}");
        assert!(
            !seen.windows(token.len()).any(|w| w == token.as_bytes()),
            "the fake coordinator received the token: {:?}",
            String::from_utf8_lossy(&seen)
        );
        assert!(seen.starts_with(b"GSMRACK2"), "{seen:?}");
        assert!(t1.contains(says) && t1.contains(&coord), "{t1}");
        assert!(!t1.contains("wrong GOSSAMER_TOKEN"), "{t1}");
    }
}

#[test]
fn a_rank_with_another_token_is_told_authentication_failed() {
    if is_rank() {
        return;
    }
    let coord = free_port();
    let job = job_name("othertoken");
    let quick = ("GOSSAMER_JOIN_TIMEOUT", "3");
    let r0 = spawn_rank("rank_counter_shm", 0, 2, &coord, &job, &[quick]);
    drop(connect_when_listening(&coord));
    let r1 = spawn_rank(
        "rank_counter_shm",
        1,
        2,
        &coord,
        &job,
        &[quick, ("GOSSAMER_TOKEN", "another-token")],
    );
    let (c1, t1) = finish(r1);
    let (c0, t0) = finish(r0);
    assert_ne!(c1, 0, "{t1}");
    assert_ne!(c0, 0, "{t0}");
    assert!(
        t1.contains("authentication failed: the GOSSAMER_TOKEN differs"),
        "{t1}"
    );
    assert!(t0.contains("did not join within 3 s"), "{t0}");
    assert!(shm_files_of_job(&job).is_empty());
}

/// Like `mpirun` without `GOSSAMER_TOKEN`: the ranks share a random secret through
/// a private file keyed by the job id, which rank 0 removes once everyone joined.
#[test]
fn without_a_token_ranks_share_a_private_secret_file_and_it_is_removed() {
    use std::os::unix::fs::PermissionsExt;
    if is_rank() {
        return;
    }
    let tmp = std::env::temp_dir().join(job_name("gsm-mpirun"));
    std::fs::create_dir_all(&tmp).unwrap();
    let coord = free_port();
    let spawn = |rank: usize| {
        Command::new(std::env::current_exe().unwrap())
            .args(exact("rank_counter_shm"))
            .env_remove("GOSSAMER_RANK")
            .env_remove("GOSSAMER_TOKEN")
            .env_remove("XDG_RUNTIME_DIR")
            .env("OMPI_COMM_WORLD_RANK", rank.to_string())
            .env("OMPI_COMM_WORLD_SIZE", "2")
            .env("OMPI_MCA_ess_base_jobid", format!("{}", std::process::id()))
            .env("GOSSAMER_COORDINATOR", &coord)
            .env("TMPDIR", &tmp)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let r1 = spawn(1);
    let r0 = spawn(0);
    let (c0, t0) = finish(r0);
    let (c1, t1) = finish(r1);
    assert_eq!((c0, c1), (0, 0), "{t0}\n{t1}");
    assert!(t0.contains("rank 0 result"), "{t0}");
    let dirs: Vec<_> = std::fs::read_dir(&tmp).unwrap().flatten().collect();
    assert_eq!(dirs.len(), 1, "one private directory");
    let mode = dirs[0].metadata().unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700);
    let left: Vec<_> = std::fs::read_dir(dirs[0].path())
        .unwrap()
        .flatten()
        .collect();
    assert!(left.is_empty(), "the secret file is removed: {left:?}");
    std::fs::remove_dir_all(&tmp).unwrap();
}
