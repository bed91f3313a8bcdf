#!/usr/bin/env python3
"""Side-by-side runs of gossamer-graph and the C+MPI baseline (mpi-baselines/build/gg_graph).

For every scale, the Graph500 graph file is generated once with `gossamer-graph generate`
(cached in --graph-dir). Then, for each repeat, kernel and "ranks" value P, both systems run on
the same file and roots, alternating which goes first from one repeat to the next:

  MPI:      mpirun -np P gg_graph KERNEL FILE --nroots K --json --quiet
  Gossamer: gossamer-graph KERNEL --graph FILE --roots K --threads P --skip-validation --json
            (BFS once per --bfs-modes entry: direction-optimizing "do" and/or "top-down"; the
            MPI BFS is top-down like the Graph500 reference)

(P MPI processes against one Gossamer process with P trustee threads: the same number of
cores.) Writes into --out: compare.csv (one row per run), compare.md (median and min-max of
the harmonic-mean TEPS over repeats, ratio of medians, machine and load) and
compare_KERNEL.png plots (needs matplotlib; skipped with a message otherwise).

  results/mpi/compare.py --scales 16 --ranks 1 2 --repeats 3
"""
import argparse
import csv
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def find_gossamer(explicit):
    if explicit:
        return explicit
    cands = [shutil.which("gossamer-graph")]
    for d in [os.environ.get("CARGO_TARGET_DIR"), os.path.join(REPO, "target")]:
        if d:
            cands += [os.path.join(d, "release", "gossamer-graph")]
    for c in cands:
        if c and os.access(c, os.X_OK):
            return c
    sys.exit("compare.py: gossamer-graph binary not found: build it with "
             "`cargo build --release -p gossamer-graph` or pass --gossamer BIN")


def run(cmd, env=None, timeout=3600):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def json_line(text, must_have):
    for line in reversed(text.splitlines()):
        line = line.strip()
        if line.startswith("{") and must_have in line:
            return json.loads(line)
    return None


def machine_info():
    model = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} logical CPUs, {platform.system()} {platform.release()}"


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scales", type=int, nargs="+", required=True)
    ap.add_argument("--ranks", type=int, nargs="+", default=[1, 2],
                    help="MPI processes = Gossamer threads (default: 1 2)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--nroots", type=int, default=16, help="roots per run (file roots, in order)")
    ap.add_argument("--kernels", nargs="+", default=["bfs", "sssp"], choices=["bfs", "sssp"])
    ap.add_argument("--delta", type=float, default=None,
                    help="SSSP delta for both systems (default: each system's own default)")
    ap.add_argument("--bfs-modes", nargs="+", default=["do", "top-down"], choices=["do", "top-down"],
                    help="gossamer-graph BFS modes to run (default: both)")
    ap.add_argument("--gossamer", help="gossamer-graph binary")
    ap.add_argument("--mpi-bin", default=os.path.join(REPO, "mpi-baselines", "build", "gg_graph"))
    ap.add_argument("--mpirun", default="mpirun")
    ap.add_argument("--mpirun-flags", default="--oversubscribe --mca btl self,vader --mca mpi_yield_when_idle 1",
                    help="(default: shared memory only; yield in MPI waits, as Gossamer workers do)")
    ap.add_argument("--graph-dir", default="/tmp/gg-compare")
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    a = ap.parse_args()
    if a.repeats < 1 or a.nroots < 1 or min(a.ranks) < 1:
        sys.exit("compare.py: --repeats, --nroots and --ranks must be >= 1")
    gbin = find_gossamer(a.gossamer)
    if not os.access(a.mpi_bin, os.X_OK):
        sys.exit(f"compare.py: {a.mpi_bin} not found: run `make -C mpi-baselines`")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    os.makedirs(a.graph_dir, exist_ok=True)
    os.makedirs(a.out, exist_ok=True)
    load_before = loadavg()
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")

    files = {}
    for s in a.scales:
        path = os.path.join(a.graph_dir, f"scale{s}.gg")
        if not os.path.exists(path):
            rc, out, err = run([gbin, "generate", "--scale", str(s), "-o", path], env)
            if rc != 0:
                sys.exit(f"compare.py: generating SCALE {s} failed:\n{err}")
        files[s] = path

    rows, failures = [], []

    def mpi(kernel, s, p):
        cmd = [a.mpirun, "-np", str(p)] + a.mpirun_flags.split() + [
            a.mpi_bin, kernel, files[s], "--nroots", str(a.nroots), "--json", "--quiet"]
        if kernel == "sssp" and a.delta is not None:
            cmd += ["--delta", str(a.delta)]
        rc, out, err = run(cmd, env)
        j = json_line(out, '"tool":"gg_graph"') if rc == 0 else None
        return cmd, j, (out + err)[-2000:]

    def gos(kernel, s, p, mode=None):
        cmd = [gbin, kernel, "--graph", files[s], "--roots", str(a.nroots), "--threads", str(p),
               "--skip-validation", "--json"]
        if mode:
            cmd += ["--mode", mode]
        if kernel == "sssp" and a.delta is not None:
            cmd += ["--delta", str(a.delta)]
        rc, out, err = run(cmd, env)
        j = json_line(out, '"harmonic_mean_teps"') if rc == 0 else None
        return cmd, j, (out + err)[-2000:]

    def systems_for(kernel):
        if kernel != "bfs":
            return [("mpi", mpi), ("gossamer", gos)]
        label = {"do": "gossamer", "top-down": "gossamer-td"}
        return [("mpi", mpi)] + [(label[m], lambda k, s, p, m=m: gos(k, s, p, m)) for m in a.bfs_modes]

    for rep in range(a.repeats):
        for s in a.scales:
            for p in a.ranks:
                for kernel in a.kernels:
                    order = systems_for(kernel)
                    if rep % 2:
                        order = order[::-1]
                    for name, fn in order:
                        cmd, j, tail = fn(kernel, s, p)
                        if j is None:
                            failures.append((name, kernel, s, p, rep, " ".join(cmd), tail))
                            print(f"FAILED {name} {kernel} SCALE {s} P={p}: {' '.join(cmd)}\n{tail}",
                                  file=sys.stderr)
                            continue
                        row = dict(system=name, kernel=kernel, scale=s, ranks=p, repeat=rep,
                                   harmonic_mean_teps=j["harmonic_mean_teps"],
                                   median_time_s=j["median_time_s"],
                                   construction_time_s=j.get("construction_time_s", ""),
                                   nroots=len(j["roots"]))
                        rows.append(row)
                        print(f"rep {rep} {name:8s} {kernel:4s} SCALE {s} P={p}: "
                              f"{row['harmonic_mean_teps']:.4g} TEPS, median {row['median_time_s']:.4g} s",
                              flush=True)

    csv_path = os.path.join(a.out, "compare.csv")
    with open(csv_path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["system", "kernel", "scale", "ranks", "repeat",
                                          "harmonic_mean_teps", "median_time_s",
                                          "construction_time_s", "nroots"])
        w.writeheader()
        w.writerows(rows)

    def cell(vals):
        if not vals:
            return "—", None
        m = statistics.median(vals)
        return f"{m:.3g} [{min(vals):.3g}–{max(vals):.3g}]", m

    md = [f"# gossamer-graph vs MPI baseline",
          "",
          f"Started {started}; machine: {machine_info()}; load average before {load_before}, "
          f"after {loadavg()}.",
          f"Command: `{' '.join([os.path.relpath(sys.argv[0], REPO)] + sys.argv[1:])}`",
          f"Each cell: median of the per-run harmonic-mean TEPS over {a.repeats} repeat(s) "
          f"[min–max] (the spread includes other load on the machine: see the load average); "
          f"each run searches the file's first {a.nroots} roots. P = MPI processes "
          f"(`gg_graph`, 1D block distribution) = Gossamer trustee threads (`--threads P`, one "
          f"process). SSSP delta: {a.delta if a.delta is not None else 'each system default (MPI 0.1)'}.",
          ""]
    for kernel in a.kernels:
        names = [n for n, _ in systems_for(kernel) if n != "mpi"]
        title = {"gossamer": "Gossamer" + (" (direction-optimizing)" if kernel == "bfs" else ""),
                 "gossamer-td": "Gossamer (top-down)"}
        md += [f"## {kernel.upper()}", "",
               "| SCALE | P | MPI TEPS | " + " | ".join(f"{title[n]} TEPS | {title[n]} / MPI" for n in names) + " |",
               "|---:|---:|---:|" + "---:|---:|" * len(names)]
        for s in a.scales:
            for p in a.ranks:
                sel = lambda n: [r["harmonic_mean_teps"] for r in rows
                                 if r["system"] == n and r["kernel"] == kernel and r["scale"] == s
                                 and r["ranks"] == p]
                cm, mm = cell(sel("mpi"))
                line = f"| {s} | {p} | {cm} |"
                for n in names:
                    cg, mg = cell(sel(n))
                    line += f" {cg} | " + (f"{mg / mm:.2f}" if mm and mg else "—") + " |"
                md.append(line)
        md.append("")
    if failures:
        md += ["## Failed runs", ""] + [f"* {f[0]} {f[1]} SCALE {f[2]} P={f[3]} repeat {f[4]}: `{f[5]}`"
                                         for f in failures] + [""]

    plots = []
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        for kernel in a.kernels:
            fig, ax = plt.subplots(figsize=(6, 4))
            colors = iter(plt.rcParams["axes.prop_cycle"].by_key()["color"] * 8)
            for name, marker in [(n, m) for n, m in [("mpi", "o"), ("gossamer", "s"), ("gossamer-td", "^")]
                                 if any(r["system"] == n and r["kernel"] == kernel for r in rows)]:
                for s in a.scales:
                    color = next(colors)
                    xs, meds = [], []
                    for p in a.ranks:
                        vals = [r["harmonic_mean_teps"] for r in rows if r["system"] == name
                                and r["kernel"] == kernel and r["scale"] == s and r["ranks"] == p]
                        ax.scatter([p] * len(vals), vals, marker=marker, alpha=0.35, s=14, color=color)
                        if vals:
                            xs.append(p)
                            meds.append(statistics.median(vals))
                    ax.plot(xs, meds, marker=marker, color=color, label=f"{name} SCALE {s} (median)")
            ax.set_xlabel("P (MPI processes / Gossamer threads)")
            ax.set_ylabel("harmonic-mean TEPS")
            ax.set_yscale("log")
            ax.set_xticks(a.ranks)
            ax.set_title(f"{kernel.upper()}: gossamer-graph vs MPI baseline")
            ax.legend(fontsize=8)
            fig.tight_layout()
            png = os.path.join(a.out, f"compare_{kernel}.png")
            fig.savefig(png, dpi=110)
            plt.close(fig)
            plots.append(png)
        md += ["## Plots", ""] + [f"![{os.path.basename(p)}]({os.path.basename(p)})" for p in plots] + [""]
    except ImportError:
        print("compare.py: matplotlib not installed: no plots written", file=sys.stderr)

    md_path = os.path.join(a.out, "compare.md")
    with open(md_path, "w") as f:
        f.write("\n".join(md))
    print(f"wrote {csv_path}, {md_path}" + "".join(f", {p}" for p in plots))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
