#!/usr/bin/env python3
"""Issue 29's balancing study: one `gossamer-graph` process per run, --json,
validation skipped (answers are checked by the test suite and by runs
without --skip-validation), rows appended to a CSV.

    bench.py OUT.csv --bin BIN --graph NAME=FILE [--graph ...]
             [--kernels bfs,sssp] [--shapes 1x2,2x1,4x1] [--roots 16]
             [--rounds 1] [--cases clean,straggler]
             [--settings block:off,blocks:between-searches] [--extra "ARGS"]

Each --graph is NAME=FILE (e.g. even=/work/bench/graphs/s20.ggraph,
sorted=/tmp/s20-sorted.ggraph made by graph-core's relabel_by_degree
example). Cases: `clean` (nothing else running), `straggler` (a CPU-bound
`sh` loop pinned to CPU 1 with `taskset -c 1`, started by this script with
cwd /tmp before the run and killed after it, so a run under
/work/notes/quiet.py keeps it going). --settings is a comma list of
PARTITION:BALANCE (`--partition` and `--balance` values; `block:off` runs
with neither flag, so builds without them work; `blocks@FILE:off` adds
`--block-table` with the table in FILE, as graph-core's plan_blocks example
prints it). Shapes are RANKSxTHREADS;
the runs of one round alternate the settings (order reversed every other
round).

One row per run: round, case, graph, kernel, shape, setting, harmonic-mean
TEPS, median search seconds, the profile's imbalance (max / mean busy over
the searches), each trustee's busy seconds (`;`-joined), and, when the build
reports them (`--balance between-searches`), rebuilds, blocks moved, bytes
moved, migration seconds, the set-up seconds of the searches after a
rebuild, the imbalance of the first and the last search and the one the
balancer predicted; the construction seconds; since the in-memory move,
the bytes every move wrote (`bytes_copied`), the run's wall seconds and its
seconds of kernel set-up and gathering outside the searches' clocks; since
moves across ranks, the bytes every move sent to other ranks
(`bytes_shipped`). `--transport` goes with `--ranks`; `--round-offset`
numbers the rounds of one call from there (one round per quiet.py call)."""
import argparse, csv, json, os, subprocess, sys

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--bin", required=True)
ap.add_argument("--graph", action="append", required=True)
ap.add_argument("--kernels", default="bfs,sssp")
ap.add_argument("--shapes", default="1x2,2x1,4x1")
ap.add_argument("--roots", type=int, default=16)
ap.add_argument("--rounds", type=int, default=1)
ap.add_argument("--cases", default="clean")
ap.add_argument("--settings", default="block:off")
ap.add_argument("--extra", default="")
ap.add_argument("--transport", default="", help="--transport with --ranks (shm, tcp)")
ap.add_argument("--round-offset", type=int, default=0,
                help="number the rounds from this (one round per quiet.py call)")
a = ap.parse_args()

FIELDS = ["round", "case", "graph", "kernel", "shape", "setting", "teps", "median_s",
          "imbalance", "busy_s", "rebuilds", "blocks_moved", "bytes_moved", "migration_s",
          "setup_after_rebuild_s", "imbalance_before", "imbalance_after", "predicted_after",
          "construction_s", "bytes_copied", "wall_s", "setup_gather_s", "bytes_shipped"]


def run(graph, kernel, shape, balance):
    ranks, threads = shape.split("x")
    cmd = [a.bin]
    if ranks != "1":
        cmd += ["--ranks", ranks]
        if a.transport:
            cmd += ["--transport", a.transport]
    cmd += [kernel, "--graph", graph, "--threads", threads, "--roots", str(a.roots),
            "--json", "--skip-validation"] + a.extra.split()
    part, bal = balance.split(":")
    part, _, table = part.partition("@")
    if part != "block":
        cmd += ["--partition", part]
    if table:
        cmd += ["--block-table", open(table).read().strip()]
    if bal != "off":
        cmd += ["--balance", bal]
    p = subprocess.run(cmd, capture_output=True, text=True, cwd="/tmp")
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{p.stdout}\n{p.stderr}")
    return json.loads(p.stdout)


def phase(d, name):
    """Seconds of one wall-time phase of the report (0 when absent)."""
    return sum(p["seconds"] for p in d["wall_time"]["phases"] if p["name"] == name)


def straggler():
    return subprocess.Popen(["taskset", "-c", "1", "sh", "-c", "while :; do :; done"], cwd="/tmp")


new = not os.path.exists(a.out)
with open(a.out, "a", newline="") as f:
    w = csv.DictWriter(f, FIELDS)
    if new:
        w.writeheader()
    graphs = [g.split("=", 1) for g in a.graph]
    settings = a.settings.split(",")
    for rnd in range(a.round_offset, a.round_offset + a.rounds):
        order = settings if rnd % 2 == 0 else settings[::-1]
        for case in a.cases.split(","):
            for name, path in graphs:
                for kernel in a.kernels.split(","):
                    for shape in a.shapes.split(","):
                        for bal in order:
                            hog = straggler() if case == "straggler" else None
                            try:
                                d = run(path, kernel, shape, bal)
                            finally:
                                if hog:
                                    hog.kill()
                                    hog.wait()
                            prof = d.get("profile") or {}
                            b = d.get("balance") or {}
                            row = {
                                "round": rnd, "case": case, "graph": name, "kernel": kernel,
                                "shape": shape, "setting": bal,
                                "teps": f"{d['harmonic_mean_teps']:.4g}",
                                "median_s": f"{d['median_time_s']:.6f}",
                                "imbalance": f"{prof.get('imbalance', float('nan')):.3f}",
                                "busy_s": ";".join(f"{t['busy_s']:.4f}"
                                                   for t in prof.get("trustees", [])),
                                "rebuilds": b.get("rebuilds", ""),
                                "blocks_moved": b.get("blocks_moved", ""),
                                "bytes_moved": b.get("bytes_moved", ""),
                                "migration_s": b.get("migration_s", ""),
                                "imbalance_before": b.get("imbalance_before", ""),
                                "imbalance_after": b.get("imbalance_after", ""),
                                "setup_after_rebuild_s": b.get("setup_after_rebuild_s", ""),
                                "predicted_after": b.get("predicted_after", ""),
                                "construction_s": f"{d['construction_time_s']:.3f}",
                                "bytes_copied": b.get("bytes_copied", ""),
                                "wall_s": f"{d['wall_time']['total_s']:.3f}",
                                "setup_gather_s": f"{phase(d, 'kernel set-up and gathering'):.3f}",
                                "bytes_shipped": b.get("bytes_shipped", ""),
                            }
                            w.writerow(row)
                            f.flush()
                            print(" ".join(str(row[k]) for k in FIELDS[1:10]), flush=True)
