//! What rank 0 checks when ranks join: its port, idle connections, and ranks
//! that differ (arguments, binary, configuration) are refused, saying why.

use crate::common::{
    assert_refused, builder, connect_when_listening, exact, finish, free_port, is_rank, job_name,
    shm_files_of_job, spawn_rank, two_ranks, two_ranks_of,
};
use gossamer::num_workers;
use gossamer::rack::TransportKind;

/// The counter scenario with the collective fanout from `TEST_FANOUT` (the
/// default without it): ranks that differ must be refused at bootstrap.
pub fn fanout(t: TransportKind) {
    let b = builder(t);
    let mut c = b.get_config().clone();
    if let Ok(f) = std::env::var("TEST_FANOUT") {
        c.collective_fanout = f.parse().unwrap();
    }
    let out = b.config(c).run(num_workers).unwrap();
    println!("rank 0 result {out}");
}

#[test]
fn a_taken_coordinator_port_is_a_clear_error_at_once() {
    if is_rank() {
        return;
    }
    let squatter = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let coord = squatter.local_addr().unwrap().to_string();
    let job = job_name("taken");
    let (c0, t0) = finish(spawn_rank("rank_counter_shm", 0, 2, &coord, &job, &[]));
    assert_ne!(c0, 0, "{t0}");
    assert!(
        t0.contains(&format!(
            "rank 0 cannot listen on the coordinator address {coord}: the port is already in use"
        )),
        "{t0}"
    );
    assert!(shm_files_of_job(&job).is_empty());
    drop(squatter);
}

#[test]
fn idle_connections_to_the_coordinator_do_not_stop_the_job() {
    if is_rank() {
        return;
    }
    // 20 idle connections, then more than rank 0 keeps in the handshake at once.
    for flood in [20, 100] {
        let coord = free_port();
        let job = job_name(&format!("flood{flood}"));
        let r0 = spawn_rank("rank_counter_tcp", 0, 3, &coord, &job, &[]);
        let mut idle = vec![connect_when_listening(&coord)];
        for _ in 1..flood {
            idle.push(std::net::TcpStream::connect(&coord).unwrap());
        }
        let r1 = spawn_rank("rank_counter_tcp", 1, 3, &coord, &job, &[]);
        let r2 = spawn_rank("rank_counter_tcp", 2, 3, &coord, &job, &[]);
        let (c1, t1) = finish(r1);
        let (c2, t2) = finish(r2);
        let (c0, t0) = finish(r0);
        assert_eq!((c0, c1, c2), (0, 0, 0), "{flood}: {t0}\n{t1}\n{t2}");
        assert!(t0.contains("rank 0 result"), "{t0}");
        if flood > 64 {
            assert!(
                t0.contains("dropped the oldest unauthenticated one"),
                "{t0}"
            );
        }
        drop(idle);
    }
}

#[test]
fn ranks_started_with_different_arguments_are_refused() {
    if is_rank() {
        return;
    }
    let job = job_name("args");
    let exe = std::env::current_exe().unwrap();
    let a0 = exact("rank_counter_shm");
    let mut a1 = a0;
    a1[3] = "--test-threads=2";
    let ranks = two_ranks_of(&job, (&exe, &a0, &[]), (&exe, &a1, &[]));
    let want = "rank 1 was started with different arguments than rank 0: rank 0: \
                [\"rank_counter_shm\", \"--exact\", \"--nocapture\", \"--test-threads=1\"], \
                rank 1: [\"rank_counter_shm\", \"--exact\", \"--nocapture\", \
                \"--test-threads=2\"] (they differ from argument 4 on)";
    // (the rank tests print the error with `{:?}`, which escapes the quotes)
    let want = want.replace('"', "\\\"");
    assert_refused(&job, ranks, &want, &want);
}

/// Flips a byte of the `.comment` section (not loaded, so the program runs the
/// same and keeps its build id) of an ELF64 little-endian file.
fn patch_comment(elf: &mut [u8]) {
    let u16_at = |b: &[u8], o: usize| u16::from_le_bytes(b[o..o + 2].try_into().unwrap()) as usize;
    let u32_at = |b: &[u8], o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap()) as usize;
    let u64_at = |b: &[u8], o: usize| u64::from_le_bytes(b[o..o + 8].try_into().unwrap()) as usize;
    assert_eq!(&elf[..6], b"\x7fELF\x02\x01", "an ELF64 little-endian file");
    let (shoff, shentsize, shnum, shstrndx) = (
        u64_at(elf, 0x28),
        u16_at(elf, 0x3a),
        u16_at(elf, 0x3c),
        u16_at(elf, 0x3e),
    );
    let sh = |i: usize| shoff + i * shentsize;
    let strtab = u64_at(elf, sh(shstrndx) + 24);
    for i in 0..shnum {
        let name_at = strtab + u32_at(elf, sh(i));
        if elf[name_at..].starts_with(b".comment\0") {
            let (off, size) = (u64_at(elf, sh(i) + 24), u64_at(elf, sh(i) + 32));
            assert!(size > 4);
            elf[off + 2] ^= 0x20;
            return;
        }
    }
    panic!("no .comment section");
}

#[test]
fn a_patched_binary_with_the_same_build_id_is_refused() {
    if is_rank() {
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let dir = std::env::temp_dir().join(job_name("gsm-patched"));
    std::fs::create_dir_all(&dir).unwrap();
    let copy = dir.join("rack-patched");
    let mut bytes = std::fs::read(&exe).unwrap();
    patch_comment(&mut bytes);
    std::fs::write(&copy, &bytes).unwrap();
    std::fs::set_permissions(&copy, std::fs::metadata(&exe).unwrap().permissions()).unwrap();
    let job = job_name("patched");
    let args = exact("rank_counter_shm");
    let ranks = two_ranks_of(&job, (&exe, &args, &[]), (&copy, &args, &[]));
    let _ = std::fs::remove_dir_all(&dir);
    let why = "rank 1 runs a different binary with the same build id";
    assert_refused(&job, ranks, why, "");
}

#[test]
fn a_rank_running_a_different_binary_is_refused() {
    if is_rank() {
        return;
    }
    let job = job_name("identity");
    let salted = [("GOSSAMER_TEST_IDENTITY_SALT", "x")];
    let ranks = two_ranks("rank_counter_shm", &job, &salted);
    assert_refused(
        &job,
        ranks,
        "rank 1 runs a different binary",
        "different binary",
    );
}

#[test]
fn ranks_with_different_collective_trees_are_refused_naming_the_field() {
    if is_rank() {
        return;
    }
    let job = job_name("fanout");
    let ranks = two_ranks("rank_fanout_shm", &job, &[("TEST_FANOUT", "8")]);
    let why =
        "rank 1 has gossamer::Config collective_fanout = 8, rank 0 has collective_fanout = 16";
    assert_refused(&job, ranks, why, "");
}
