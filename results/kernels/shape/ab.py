#!/usr/bin/env python3
"""Builds against each other, alternated: every kernel of the CLI, read from
the same graph files, one process per call, the order of the binaries
reversed every round; waits while the 1-minute load is at or above MAXLOAD.

    ab.py OUT.csv GRAPHDIR LABEL=BIN LABEL=BIN... [--rounds R] [--scales 18,20,22]
          [--shapes 1x2,2x1] [--kernels bfs,sssp,cc,pagerank,bc,tc]
          [--roots 8] [--maxload 2.5]

GRAPHDIR holds sS.ggraph for each SCALE (`gossamer-graph generate --scale S
-o GRAPHDIR/sS.ggraph`). One CSV row per call: round, binary label, load,
scale, shape, kernel, metric (bfs/sssp: harmonic-mean TEPS over the roots;
others: kernel seconds), median search seconds (bfs/sssp), peak RSS KiB of
the largest rank, wall seconds. Validation is skipped: answers are compared
apart (same_answers.sh)."""
import argparse, json, os, subprocess, sys, time

ap = argparse.ArgumentParser()
ap.add_argument("out"); ap.add_argument("graphs"); ap.add_argument("bins", nargs="+", help="LABEL=BINARY")
ap.add_argument("--rounds", type=int, default=3)
ap.add_argument("--scales", default="18,20,22")
ap.add_argument("--shapes", default="1x2,2x1")
ap.add_argument("--kernels", default="bfs,sssp,cc,pagerank,bc,tc")
ap.add_argument("--roots", type=int, default=8)
ap.add_argument("--maxload", type=float, default=2.5)
a = ap.parse_args()

def load():
    return float(open("/proc/loadavg").read().split()[0])

def call(binary, scale, shape, kernel):
    ranks, threads = shape.split("x")
    cmd = [binary]
    if ranks != "1":
        cmd += ["--ranks", ranks]
    cmd += [kernel, "--graph", os.path.join(a.graphs, f"s{scale}.ggraph"),
            "--threads", threads, "--skip-validation", "--json"]
    if kernel in ("bfs", "sssp"):
        cmd += ["--roots", str(a.roots)]
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.time() - t0
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{p.stderr}")
    d = json.loads(p.stdout[p.stdout.index("{"):])
    if kernel in ("bfs", "sssp"):
        metric, med = d["harmonic_mean_teps"], d["median_time_s"]
    else:
        metric, med = d["kernel_time_s"], ""
    return metric, med, max(d.get("peak_rss_kib_per_rank") or [0]), round(wall, 2)

new_file = not os.path.exists(a.out)
with open(a.out, "a") as f:
    if new_file:
        f.write("round,binary,load1,scale,shape,kernel,metric,median_search_s,peak_rss_kib,wall_s\n")
    for r in range(1, a.rounds + 1):
        for scale in a.scales.split(","):
            for shape in a.shapes.split(","):
                for kernel in a.kernels.split(","):
                    pair = [tuple(b.split("=", 1)) for b in a.bins]
                    if r % 2 == 0:
                        pair.reverse()
                    for label, binary in pair:
                        while load() >= a.maxload:
                            time.sleep(5)
                        l = load()
                        m, med, rss, wall = call(binary, scale, shape, kernel)
                        f.write(f"{r},{label},{l},{scale},{shape},{kernel},{m},{med},{rss},{wall}\n")
                        f.flush()
