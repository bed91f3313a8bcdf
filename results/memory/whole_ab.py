#!/usr/bin/env python3
"""cc / pagerank (any whole-graph kernel) from builds alternated in one
sitting: peak memory and kernel seconds, one process per call, the order
of the labels reversed every round.

    whole_ab.py OUT.csv KERNEL GRAPH LABEL=BIN[:ROWS]... [--rounds 1]
                [--first-round 1] [--shapes 1x2] [--validate] [--memtrace]

Each LABEL runs `BIN [--ranks R] KERNEL --graph GRAPH --threads T --json
[--rows ROWS] [--skip-validation]` under /usr/bin/time (no `--rows` when
ROWS is left out: a build without the flag). With --memtrace each call
also runs once more with GOSSAMER_GRAPH_MEMTRACE=1 (without validation)
and keeps the largest "construction" and "KERNEL kernel" peaks it
printed. Start it from /tmp through /work/notes/quiet.py; keep each call
short (one graph, one round).

One CSV row per call: round, label, rows, kernel, graph, shape,
validated, kernel seconds, peak RSS KiB (/usr/bin/time, the largest of
it and the report's per-rank peaks), the report's run peak (until the
answer), construction seconds, first answer seconds, MEMTRACE peaks."""
import argparse, json, os, re, subprocess, sys

ap = argparse.ArgumentParser()
ap.add_argument("out"); ap.add_argument("kernel"); ap.add_argument("graph")
ap.add_argument("bins", nargs="+")
ap.add_argument("--rounds", type=int, default=1)
ap.add_argument("--first-round", type=int, default=1)
ap.add_argument("--shapes", default="1x2")
ap.add_argument("--validate", action="store_true")
ap.add_argument("--memtrace", action="store_true")
a = ap.parse_args()


def command(binary, rows, shape, validate):
    ranks, threads = shape.split("x")
    cmd = [binary] + (["--ranks", ranks] if ranks != "1" else [])
    cmd += [a.kernel, "--graph", a.graph, "--threads", threads, "--json"]
    if rows:
        cmd += ["--rows", rows]
    if not validate:
        cmd += ["--skip-validation"]
    return cmd


def call(binary, rows, shape):
    p = subprocess.run(["/usr/bin/time", "-f", "RSS %M"] +
                       command(binary, rows, shape, a.validate),
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{binary} {rows} {shape} failed:\n{p.stdout}\n{p.stderr}")
    rss = int(re.findall(r"RSS (\d+)", p.stderr)[-1])
    d = json.loads(p.stdout[p.stdout.index("{"):])
    run = max(d.get("peak_rss_kib_per_rank") or [0])
    rss = max(rss, run)
    wall = d.get("wall_time") or {}
    kernel = construction = ""
    if a.memtrace:
        env = dict(os.environ, GOSSAMER_GRAPH_MEMTRACE="1")
        q = subprocess.run(command(binary, rows, shape, False), capture_output=True,
                           text=True, env=env)
        peaks = lambda what: [int(x) for x in re.findall(what + r" peak (\d+) KiB", q.stderr)]
        kernel = max(peaks(a.kernel + " kernel") or peaks("kernel") or [0])
        construction = max(peaks("construction") or [0])
    return [d["kernel_time_s"], rss, run, d["construction_time_s"],
            wall.get("first_answer_s", ""), kernel, construction]


labels = []
for b in a.bins:
    label, spec = b.split("=", 1)
    binary, _, rows = spec.partition(":")
    labels.append((label, binary, rows))

new_file = not os.path.exists(a.out)
with open(a.out, "a") as f:
    if new_file:
        f.write("round,label,rows,kernel,graph,shape,validated,kernel_s,peak_rss_kib,"
                "run_peak_kib,construction_s,first_answer_s,"
                "memtrace_kernel_kib,memtrace_construction_kib\n")
    for r in range(a.first_round, a.first_round + a.rounds):
        todo = [(l, s) for s in a.shapes.split(",") for l in labels]
        if r % 2 == 0:
            todo.reverse()
        for (label, binary, rows), shape in todo:
            row = call(binary, rows, shape)
            f.write(",".join(str(x) for x in
                             [r, label, rows or "-", a.kernel, os.path.basename(a.graph),
                              shape, int(a.validate)] + row) + "\n")
            f.flush()
            print(r, label, shape, "kernel %.4f s" % row[0], "rss %d KiB" % row[1],
                  flush=True)
