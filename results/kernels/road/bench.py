#!/usr/bin/env python3
"""Ours against GAPBS on road-like grids, side by side in one sitting:
BFS, SSSP (several deltas, and ours with its default), cc and PageRank,
one process per call, the two programs alternated (the order reversed
every round); waits while the 1-minute load is at or above MAXLOAD.

    bench.py OUT.csv GRAPHDIR NAME... --ours BIN --gapbs DIR
             [--rounds 3] [--roots 8] [--shapes 1x2,2x1]
             [--kernels bfs,sssp,cc,pr] [--deltas 100,500,2000] [--maxload 2.5]

GRAPHDIR holds, for each NAME (made by prepare.sh): NAME.ggraph (ours),
NAME.sg and NAME-f32.wsg (GAPBS's serialized graph, unweighted and with f32
weights, from GAPBS's converter reading NAME.gr) and NAME.roots (the
graph file's roots; both programs search from the first ROOTS of them:
GAPBS through its GAPBS_ROOTS patch, built by hand outside the repository
as results/kernels/road.md describes; only such scripts use it). GAPBS
runs with OMP_NUM_THREADS=2; ours as every shape of --shapes (ranks x
threads).

One CSV row per search (bfs, sssp) or kernel run (cc, pr): round, program,
shape, graph, kernel, setting (delta, or "default"), root, seconds, peak
RSS KiB of the largest process, load. Validation is skipped on our side
(answers are validated by the test suite and by `gossamer-graph` runs
without --skip-validation)."""
import argparse, json, os, re, subprocess, sys, time

ap = argparse.ArgumentParser()
ap.add_argument("out"); ap.add_argument("graphs"); ap.add_argument("names", nargs="+")
ap.add_argument("--ours", required=True)
ap.add_argument("--gapbs", required=True, help="directory of GAPBS built with the GAPBS_ROOTS patch")
ap.add_argument("--rounds", type=int, default=3)
ap.add_argument("--roots", type=int, default=8)
ap.add_argument("--shapes", default="1x2,2x1")
ap.add_argument("--kernels", default="bfs,sssp,cc,pr")
ap.add_argument("--deltas", default="100,500,2000")
ap.add_argument("--maxload", type=float, default=2.5)
a = ap.parse_args()


def wait_quiet():
    while float(open("/proc/loadavg").read().split()[0]) >= a.maxload:
        time.sleep(5)


def load():
    return open("/proc/loadavg").read().split()[0]


def timed(cmd, env=None):
    """Runs cmd under /usr/bin/time; returns (stdout, peak RSS KiB)."""
    wait_quiet()
    p = subprocess.run(["/usr/bin/time", "-f", "RSS %M"] + cmd, capture_output=True, text=True,
                       env=env)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{p.stdout}\n{p.stderr}")
    rss = int(re.findall(r"RSS (\d+)", p.stderr)[-1])
    return p.stdout, rss


def ours(name, kernel, setting, shape):
    ranks, threads = shape.split("x")
    g = os.path.join(a.graphs, name + ".ggraph")
    cmd = [a.ours] + (["--ranks", ranks] if ranks != "1" else [])
    cmd += [{"pr": "pagerank"}.get(kernel, kernel), "--graph", g, "--threads", threads,
            "--skip-validation", "--json"]
    if kernel in ("bfs", "sssp"):
        cmd += ["--roots", str(a.roots)]
    if kernel == "sssp" and setting != "default":
        cmd += ["--delta", setting]
    out, rss = timed(cmd)
    d = json.loads(out[out.index("{"):])
    rss = max([rss] + (d.get("peak_rss_kib_per_rank") or []))
    if kernel in ("bfs", "sssp"):
        return [(r["root"], r["time_s"]) for r in d["roots"]], rss
    return [("", d["kernel_time_s"])], rss


def gapbs(name, kernel, setting):
    roots = os.path.join(a.graphs, name + ".roots")
    head = os.path.join(a.graphs, f".{name}.first{a.roots}")
    with open(roots) as f, open(head, "w") as h:
        ids = [l.strip() for l in f if l.strip()][: a.roots]
        h.write("\n".join(ids) + "\n")
    env = dict(os.environ, OMP_NUM_THREADS="2", GAPBS_ROOTS=head)
    sg = os.path.join(a.graphs, name + ".sg")
    cmd = {
        "bfs": [os.path.join(a.gapbs, "bfs"), "-f", sg, "-n", str(a.roots)],
        "sssp": [os.path.join(a.gapbs, "sssp"), "-f", os.path.join(a.graphs, name + "-f32.wsg"),
                 "-n", str(a.roots), "-d", setting],
        "cc": [os.path.join(a.gapbs, "cc"), "-f", sg, "-n", "1"],
        "pr": [os.path.join(a.gapbs, "pr"), "-f", sg, "-i", "20", "-t", "1e-4", "-n", "1"],
    }[kernel]
    out, rss = timed(cmd, env)
    times = [float(t) for t in re.findall(r"Trial Time:\s+([0-9.]+)", out)]
    if kernel in ("bfs", "sssp"):
        return list(zip(ids, times)), rss
    return [("", times[0])], rss


def calls(name, kernel):
    """(program, shape, setting) of every call for one graph and kernel."""
    settings = a.deltas.split(",") if kernel == "sssp" else ["default"]
    out = []
    for s in settings:
        out.append(("gapbs", "2 threads", s))
        for shape in a.shapes.split(","):
            out.append(("ours", shape, s))
    if kernel == "sssp":
        out += [("ours", shape, "default") for shape in a.shapes.split(",")]
    return out


new_file = not os.path.exists(a.out)
with open(a.out, "a") as f:
    if new_file:
        f.write("round,program,shape,graph,kernel,setting,root,seconds,peak_rss_kib,load1\n")
    for r in range(1, a.rounds + 1):
        for name in a.names:
            for kernel in a.kernels.split(","):
                todo = calls(name, kernel)
                if r % 2 == 0:
                    todo.reverse()
                for program, shape, setting in todo:
                    l = load()
                    if program == "gapbs":
                        rows, rss = gapbs(name, kernel, setting)
                    else:
                        rows, rss = ours(name, kernel, setting, shape)
                    for root, sec in rows:
                        f.write(f"{r},{program},{shape},{name},{kernel},{setting},{root},{sec},{rss},{l}\n")
                    f.flush()
                    print(r, program, shape, name, kernel, setting,
                          "median %.4f s" % sorted(s for _, s in rows)[len(rows) // 2], flush=True)
