//! Hostile or mistaken inputs end in a clear message, never a clobbered
//! file, a hang, a panic or unbounded memory: `-o` onto a device or a link,
//! special files as `--graph`, deltas that cannot work or are extreme, and
//! the flags that used to pass silently (`--force`, `--transport`).

mod common;

use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::*;

/// Runs the binary, killing it if it is still running after `limit` (only to
/// turn a hang into a failure; no test relies on the time otherwise).
fn run_with_deadline(args: &[&str], limit: Duration) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gossamer-graph"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the gossamer-graph binary runs");
    let start = Instant::now();
    loop {
        if child.try_wait().expect("wait").is_some() {
            return child.wait_with_output().expect("output");
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().expect("output");
            panic!(
                "gossamer-graph {args:?} hung (killed after {limit:?})\n{}",
                stderr(&out)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn mkfifo(path: &Path) -> bool {
    matches!(Command::new("mkfifo").arg(path).status(), Ok(s) if s.success())
}

/// A private character device equal to /dev/null (c 1 3), when allowed (root).
fn private_null(path: &Path) -> bool {
    matches!(
        Command::new("mknod")
            .arg(path)
            .args(["c", "1", "3"])
            .stderr(Stdio::null())
            .status(),
        Ok(s) if s.success()
    )
}

fn is_char_device(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_char_device())
}

#[test]
fn generate_refuses_a_device_as_the_graph_file() {
    let dir = scratch("devout");
    let dev = dir.join("null");
    if !private_null(&dev) {
        eprintln!("note: not root (mknod refused): the -o /dev/null test is skipped");
        return;
    }
    // First a private copy of the device: if the writer still replaced its
    // target, this is what gets clobbered, not the system's /dev/null.
    for target in [arg(&dev), "/dev/null"] {
        let err = fails(&run(&["generate", "--scale", "6", "-o", target]));
        assert!(
            err.contains(&format!(
                "refusing to write graph file {target}: it exists and is a character device, not a regular file"
            )),
            "{err}"
        );
        assert!(
            !err.contains("generated SCALE"),
            "refused before generating: {err}"
        );
        assert!(
            is_char_device(Path::new(target)),
            "{target} is no longer a device"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn generate_refuses_directories_and_links_and_ignores_planted_tmp_files() {
    let dir = scratch("outkinds");
    let victim = dir.join("victim");
    std::fs::write(&victim, b"precious").unwrap();
    let link = dir.join("link");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let err = fails(&run(&["generate", "--scale", "6", "-o", arg(&link)]));
    assert!(err.contains("it exists and is a symbolic link"), "{err}");
    let err = fails(&run(&["generate", "--scale", "6", "-o", arg(&dir)]));
    assert!(err.contains("it exists and is a directory"), "{err}");
    // The old writer followed a link planted at `<output>.tmp`.
    let g = dir.join("g");
    std::os::unix::fs::symlink(&victim, dir.join("g.tmp")).unwrap();
    ok(&run(&["generate", "--scale", "6", "-o", arg(&g)]));
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["g", "g.tmp", "link", "victim"]);
    ok(&run(&["bfs", "--graph", arg(&g), "--roots", "1"]));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn special_files_as_graph_are_refused_by_kind() {
    let limit = Duration::from_secs(120);
    let dir = scratch("special");
    let fifo = dir.join("fifo");
    let mut cases = vec![
        (
            "/dev/zero".to_string(),
            "it is a character device, not a regular file",
        ),
        (
            "/dev/urandom".to_string(),
            "it is a character device, not a regular file",
        ),
        (
            arg(&dir).to_string(),
            "it is a directory, not a regular file",
        ),
        (
            "/proc/self/status".to_string(),
            "the graph file is empty: it reports 0 bytes",
        ),
    ];
    if mkfifo(&fifo) {
        // Nobody writes to it: opening it for reading would wait forever.
        cases.push((
            arg(&fifo).to_string(),
            "it is a FIFO (named pipe), not a regular file",
        ));
    } else {
        eprintln!("note: mkfifo unavailable, FIFO input not tested");
    }
    for (path, want) in &cases {
        let out = run_with_deadline(&["sssp", "--graph", path, "--threads", "2"], limit);
        let err = fails(&out);
        assert!(err.contains(want), "--graph {path}: {err}");
        assert!(!err.contains("No such device"), "--graph {path}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn deltas_that_cannot_work_are_refused_with_the_reason() {
    let eg = format!(
        "e.g. {} (the default for Graph500 weights)",
        sssp::DEFAULT_DELTA
    );
    for (flag, want) in [
        (&["--delta", "nan"][..], "--delta NaN: not a number"),
        (
            &["--delta", "-1"][..],
            "--delta -1: the bucket width must be positive",
        ),
        (
            &["--delta=-1"][..],
            "--delta -1: the bucket width must be positive",
        ),
        (
            &["--delta", "0"][..],
            "--delta 0: the bucket width must be positive",
        ),
        (
            &["--delta", "inf"][..],
            "--delta inf: the bucket width must be finite",
        ),
        (&["--delta", "1e-40"][..], "--delta 1e-40: too small"),
    ] {
        for cmd in ["sssp", "graph500"] {
            let mut args = vec![cmd, "--scale", "6", "--threads", "2"];
            args.extend_from_slice(flag);
            let err = fails(&run(&args));
            assert!(err.contains(want), "{args:?}: {err}");
            assert!(err.contains(&eg), "{args:?}: {err}");
        }
    }
}

#[test]
fn extreme_deltas_give_validated_answers() {
    // 1e-9 used to allocate gigabytes of buckets at SCALE 10, and 1e-30
    // panicked (index out of bounds) in the kernel.
    for delta in ["1e-9", "1e-30"] {
        let out = run_with_deadline(
            &[
                "sssp",
                "--scale",
                "10",
                "--threads",
                "2",
                "--roots",
                "4",
                "--delta",
                delta,
                "--json",
            ],
            Duration::from_secs(300),
        );
        let text = ok(&out);
        let v: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
        let roots = v["roots"].as_array().expect("roots");
        assert_eq!(roots.len(), 4, "{text}");
        for r in roots {
            assert_eq!(r["validated"], true, "--delta {delta}: {r}");
        }
    }
}

#[test]
fn force_past_the_estimate_says_so() {
    let env = [("GOSSAMER_GRAPH_AVAILABLE_BYTES", "1000")];
    let out = run_env(&["bfs", "--scale", "8", "--root", "1", "--force"], &env);
    ok(&out);
    let err = stderr(&out);
    assert!(
        err.contains("warning: --force: running although the estimate (")
            && err.contains(
                ") for rank 0 of 1 exceeds the available memory (0.0 MiB, GOSSAMER_GRAPH_AVAILABLE_BYTES"
            ),
        "{err}"
    );
    // Within the estimate, --force has nothing to say.
    let out = run(&["bfs", "--scale", "8", "--root", "1", "--force"]);
    ok(&out);
    assert!(!stderr(&out).contains("--force"), "{}", stderr(&out));
}

#[test]
fn transport_without_ranks_says_it_does_nothing() {
    for args in [
        &["--transport", "tcp", "bfs", "--scale", "6", "--root", "1"][..],
        &[
            "--transport=shm",
            "--ranks",
            "1",
            "bfs",
            "--scale",
            "6",
            "--root",
            "1",
        ][..],
    ] {
        let out = run(args);
        ok(&out);
        let t = if args[0] == "--transport" {
            "tcp"
        } else {
            "shm"
        };
        assert!(
            stderr(&out).contains(&format!(
                "note: --transport {t} has no effect without --ranks N (this run is one process)"
            )),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    // Without --transport, nothing is said.
    let out = run(&["bfs", "--scale", "6", "--root", "1"]);
    ok(&out);
    assert!(!stderr(&out).contains("--transport"), "{}", stderr(&out));
}

#[test]
fn dumps_still_stream_into_a_fifo() {
    // A dump to a regular file is replaced by rename (tests/outputs.rs);
    // into a FIFO (or /dev/stdout) it is written in place, as a stream.
    let dir = scratch("dumpfifo");
    let fifo = dir.join("dist");
    if !mkfifo(&fifo) {
        eprintln!("note: mkfifo unavailable, dump into a FIFO not tested");
        return;
    }
    let reader = {
        let f = fifo.clone();
        std::thread::spawn(move || std::fs::read(f).unwrap_or_default())
    };
    let out = run_with_deadline(
        &[
            "sssp",
            "--scale",
            "6",
            "--root",
            "1",
            "--threads",
            "2",
            "--dump-dist",
            arg(&fifo),
        ],
        Duration::from_secs(120),
    );
    if !reader.is_finished() {
        // The command never opened the FIFO: release the reader (a
        // non-blocking open for writing fails harmlessly if it is gone).
        use std::os::unix::fs::OpenOptionsExt;
        let _ = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(0o4000) // O_NONBLOCK on Linux
            .open(&fifo);
    }
    let bytes = reader.join().unwrap();
    ok(&out);
    assert_eq!(bytes.len(), 64 * 4, "one f32 distance per vertex");
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_largest_id_converts_and_is_searched_from() {
    // The file: u64::MAX used to panic in the renumbering (index out
    // of bounds); one above it is not an id at all.
    let dir = scratch("largest-id");
    let el = dir.join("m.el");
    std::fs::write(&el, "0 18446744073709551615\n1 2\n").unwrap();
    let gg = dir.join("m.ggraph");
    let out = run(&["convert", arg(&el), "-o", arg(&gg)]);
    assert!(
        !stderr(&out).contains("panicked"),
        "convert panicked:\n{}",
        stderr(&out)
    );
    ok(&out);
    let said = stderr(&out);
    assert!(said.contains("4 vertices, 2 edges"), "{said}");
    // The file keeps the id: a search from 0 reaches it by its own name.
    let levels = dir.join("levels");
    ok(&run(&[
        "bfs",
        "--graph",
        arg(&gg),
        "--root",
        "0",
        "--threads",
        "1",
        "--dump-levels",
        arg(&levels),
    ]));
    let ids = std::fs::read(dir.join("levels.ids")).unwrap();
    let ids: Vec<u64> = ids
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(ids, [0, 1, 2, u64::MAX]);
    let over = dir.join("over.el");
    std::fs::write(&over, "0 18446744073709551616\n1 2\n").unwrap();
    let e = fails(&run(&["convert", arg(&over), "-o", arg(&gg)]));
    assert!(
        e.contains("vertex id 18446744073709551616 is too large"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
