//! Every `--dump-*` output and its `DUMP.ids` sidecar are written safely:
//! never through a planted link, whole or not at all on a full disk (a
//! tmpfs this test mounts, when it may), as a stream into /dev/stdout, and
//! never for an answer that failed validation.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;

/// Every command with a dump: its name and flag.
const DUMPS: [(&str, &str); 5] = [
    ("sssp", "--dump-dist"),
    ("bfs", "--dump-levels"),
    ("cc", "--dump-labels"),
    ("pagerank", "--dump-scores"),
    ("bc", "--dump-scores"),
];

/// The arguments that run `cmd` on `input` (`--scale N` or `--graph F`)
/// with its dump to `dump`.
fn dump_args<'a>(cmd: &'a str, flag: &'a str, input: &[&'a str], dump: &'a Path) -> Vec<&'a str> {
    let mut args = vec![cmd];
    args.extend_from_slice(input);
    args.extend(["--threads", "2", flag, arg(dump)]);
    if matches!(cmd, "sssp" | "bfs") {
        args.extend(["--root", "1"]);
    }
    args
}

fn is_link(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink())
}

/// A small graph whose ids are sparse, so dumps of it get a sidecar.
fn sparse_graph(dir: &Path) -> PathBuf {
    let g = dir.join("sparse.wel");
    std::fs::write(&g, "1 5000 0.5\n5000 7 0.25\n7 1 1\n7 9000 2\n").unwrap();
    g
}

#[test]
fn dumps_and_sidecars_refuse_planted_links() {
    let dir = scratch("dumplinks");
    let victim = dir.join("precious.txt");
    let graph = sparse_graph(&dir);
    for (cmd, flag) in DUMPS {
        std::fs::write(&victim, b"precious").unwrap();
        // The dump itself is a link: refused before the run.
        let link = dir.join(format!("{cmd}-dump"));
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        let out = run(&dump_args(cmd, flag, &["--scale", "6"], &link));
        let err = fails(&out);
        assert!(
            err.contains(&format!(
                "refusing to write {}: it is a symbolic link",
                link.display()
            )),
            "{cmd}: {err}"
        );
        assert!(err.contains("remove the link"), "{cmd}: {err}");
        assert!(stdout(&out).is_empty(), "{cmd}: refused before running");
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious", "{cmd}");
        assert!(is_link(&link), "{cmd}: the link is left alone");
        // A link planted at DUMP.ids: refused once the graph says a
        // sidecar is needed, before the run; nothing is written.
        let dump = dir.join(format!("{cmd}-sparse"));
        let side = dir.join(format!("{cmd}-sparse.ids"));
        std::os::unix::fs::symlink(&victim, &side).unwrap();
        let out = run(&dump_args(cmd, flag, &["--graph", arg(&graph)], &dump));
        let err = fails(&out);
        assert!(
            err.contains(&format!(
                "refusing to write {}: it is a symbolic link",
                side.display()
            )),
            "{cmd}: {err}"
        );
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious", "{cmd}");
        assert!(is_link(&side), "{cmd}");
        assert!(!dump.exists(), "{cmd}: no dump without its sidecar");
        // Without the planted link both are written.
        std::fs::remove_file(&side).unwrap();
        ok(&run(&dump_args(
            cmd,
            flag,
            &["--graph", arg(&graph)],
            &dump,
        )));
        assert!(dump.is_file() && side.is_file(), "{cmd}");
        assert_eq!(std::fs::read(&side).unwrap().len(), 4 * 8, "{cmd}: 4 ids");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A tmpfs mounted on a directory for one test, unmounted on drop.
struct Tmpfs(PathBuf);

impl Tmpfs {
    /// Mounts a tmpfs of `size` (e.g. "256k") on `dir`; `None` where this
    /// process may not (not root, no mount permission in a container).
    fn mount(dir: &Path, size: &str) -> Option<Tmpfs> {
        let ok = Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size}"),
                "tmpfs",
                arg(dir),
            ])
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| Tmpfs(dir.to_path_buf()))
    }

    /// Fills the file system with one file until it is full.
    fn fill(&self) {
        use std::io::Write;
        let mut f = std::fs::File::create(self.0.join("filler")).unwrap();
        let block = vec![0xAAu8; 4096];
        while f.write_all(&block).is_ok() {}
        let _ = f.sync_all();
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn dumps_on_a_full_disk_leave_old_files_whole_and_no_partial_new_ones() {
    let dir = scratch("dumpfull");
    let mnt = dir.join("full");
    std::fs::create_dir(&mnt).unwrap();
    let Some(fs) = Tmpfs::mount(&mnt, "256k") else {
        eprintln!(
            "note: skipped: could not mount a tmpfs on {} (needs root and mount permission); the ENOSPC behaviour of dumps is not tested here",
            mnt.display()
        );
        let _ = std::fs::remove_dir_all(&dir);
        return;
    };
    let old_bytes = b"the previous dump, to be kept whole";
    for (cmd, _) in DUMPS {
        std::fs::write(mnt.join(format!("{cmd}-old")), old_bytes).unwrap();
    }
    fs.fill();
    let mut expected = names(&mnt);
    for (cmd, flag) in DUMPS {
        for (name, existed) in [(format!("{cmd}-old"), true), (format!("{cmd}-new"), false)] {
            let target = mnt.join(&name);
            let err = fails(&run(&dump_args(cmd, flag, &["--scale", "8"], &target)));
            assert!(
                err.contains("No space left on device"),
                "{cmd} {name}: {err}"
            );
            let said = if existed {
                "is as it was"
            } else {
                "was not created"
            };
            assert!(err.contains(said), "{cmd} {name}: {err}");
            if existed {
                assert_eq!(std::fs::read(&target).unwrap(), old_bytes, "{cmd}");
            } else {
                assert!(!target.exists(), "{cmd}: no partial new dump");
            }
            assert_eq!(names(&mnt), expected, "{cmd}: no temporary file left");
        }
    }
    // With room again, the old dump is replaced whole.
    std::fs::remove_file(mnt.join("filler")).unwrap();
    expected.retain(|n| n != "filler");
    let target = mnt.join("sssp-old");
    ok(&run(&dump_args(
        "sssp",
        "--dump-dist",
        &["--scale", "8"],
        &target,
    )));
    assert_eq!(std::fs::read(&target).unwrap().len(), 256 * 4);
    assert_eq!(names(&mnt), expected);
    drop(fs);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn dumps_stream_into_stdout_and_say_why_no_sidecar() {
    let dir = scratch("dumpstdout");
    let out = run(&dump_args(
        "sssp",
        "--dump-dist",
        &["--scale", "6"],
        Path::new("/dev/stdout"),
    ));
    let bytes = out.stdout.clone();
    ok(&out);
    assert!(bytes.len() > 64 * 4, "the dump, then the report");
    let d: Vec<f32> = bytes[..64 * 4]
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(d[1], 0.0, "the root's distance");
    assert!(String::from_utf8_lossy(&bytes[64 * 4..]).contains("sssp: Graph500 SCALE 6"));
    // Sparse ids: no sidecar can sit beside a stream; said, not attempted.
    let graph = sparse_graph(&dir);
    let out = run(&dump_args(
        "cc",
        "--dump-labels",
        &["--graph", arg(&graph)],
        Path::new("/dev/stdout"),
    ));
    ok(&out);
    assert_eq!(&out.stdout[..4], &0u32.to_le_bytes()[..]);
    assert!(
        stderr(&out).contains("no ids sidecar is written beside a stream"),
        "{}",
        stderr(&out)
    );
    assert!(!Path::new("/dev/stdout.ids").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn answers_that_fail_validation_are_never_dumped() {
    let dir = scratch("dumpinvalid");
    let env = [("GOSSAMER_GRAPH_TEST_CORRUPT_ANSWERS", "1")];
    for (cmd, flag) in &DUMPS[..2] {
        let fresh = dir.join(format!("{cmd}-fresh"));
        let old = dir.join(format!("{cmd}-old"));
        std::fs::write(&old, b"old").unwrap();
        for target in [&fresh, &old] {
            let err = fails(&run_env(
                &dump_args(cmd, flag, &["--scale", "6"], target),
                &env,
            ));
            assert!(err.contains("failed validation"), "{cmd}: {err}");
        }
        assert!(!fresh.exists(), "{cmd}: an invalid answer was dumped");
        assert_eq!(std::fs::read(&old).unwrap(), b"old", "{cmd}");
    }
    // Distances beyond f32: said so, and not dumped either.
    let big = dir.join("big.wel");
    std::fs::write(&big, "0 1 3e38\n1 2 3e38\n2 3 1\n").unwrap();
    let dump = dir.join("big-dist");
    let err = fails(&run(&[
        "sssp",
        "--graph",
        arg(&big),
        "--root",
        "0",
        "--dump-dist",
        arg(&dump),
    ]));
    assert!(
        err.contains("sssp from root 0: shortest-path distances overflow f32"),
        "{err}"
    );
    assert!(err.contains("scale the weights down"), "{err}");
    assert!(
        err.contains("d(1) = 3e38 plus its weight 3e38 overflows f32, so vertex 2 has no distance"),
        "{err}"
    );
    assert!(
        !dump.exists(),
        "no dump of an answer that failed validation"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
