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

Echo part (on by default; --no-echo skips it): the same repeats, alternating order, of the
Gossamer echo example and the MPI echo (`gg_echo`, every request to another rank), at 32 B for
every --ranks value and at each --echo-sizes size at 2 ranks, window --echo-window:

  MPI:      mpirun -np P gg_echo --size B --window W --seconds S --exclude-self --json  (P >= 2)
  Gossamer: echo --seconds S --ranks P --transport shm --threads 1 --size B --window W
            (P = 1: one process with `--threads 2`, as results/echo/run.sh does)

Writes compare_echo.csv, an "Echo" section in compare.md and compare_echo.png (throughput vs
ranks; throughput vs size).

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
sys.path.insert(0, os.path.join(REPO, "results"))
import stamp  # noqa: E402  (results/stamp.py: the line on each figure)


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


def find_echo(explicit):
    if explicit:
        return explicit
    for d in [os.environ.get("CARGO_TARGET_DIR"), os.path.join(REPO, "target")]:
        c = d and os.path.join(d, "release", "examples", "echo")
        if c and os.access(c, os.X_OK):
            return c
    sys.exit("compare.py: Gossamer echo example not found: build it with "
             "`cargo build --release -p gossamer --example echo`, pass --echo-bin BIN or use --no-echo")


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
    ap.add_argument("--echo", action=argparse.BooleanOptionalAction, default=True,
                    help="also run the echo comparison (default: on; --no-echo skips it)")
    ap.add_argument("--echo-seconds", type=float, default=2.0, help="seconds per echo run (default: 2)")
    ap.add_argument("--echo-sizes", type=int, nargs="+", default=[32, 256, 1024, 4096],
                    help="request sizes in bytes at 2 ranks (default: 32 256 1024 4096)")
    ap.add_argument("--echo-window", type=int, default=16, help="requests in flight per rank (default: 16)")
    ap.add_argument("--echo-bin", help="Gossamer echo example binary")
    ap.add_argument("--mpi-echo-bin", default=os.path.join(REPO, "mpi-baselines", "build", "gg_echo"))
    ap.add_argument("--graph-dir", default="/tmp/gg-compare")
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    a = ap.parse_args()
    if a.repeats < 1 or a.nroots < 1 or min(a.ranks) < 1:
        sys.exit("compare.py: --repeats, --nroots and --ranks must be >= 1")
    gbin = find_gossamer(a.gossamer)
    if not os.access(a.mpi_bin, os.X_OK):
        sys.exit(f"compare.py: {a.mpi_bin} not found: run `make -C mpi-baselines`")
    if a.echo:
        ebin = find_echo(a.echo_bin)
        if not os.access(a.mpi_echo_bin, os.X_OK):
            sys.exit(f"compare.py: {a.mpi_echo_bin} not found: run `make -C mpi-baselines` or use --no-echo")
        if a.echo_seconds <= 0 or a.echo_window < 1 or min(a.echo_sizes) < 8:
            sys.exit("compare.py: --echo-seconds must be > 0, --echo-window >= 1, --echo-sizes >= 8")
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

    # Echo: (ranks, size) points, each run once per repeat by both systems, order alternating.
    echo_rows = []
    echo_points = []
    if a.echo:
        for pt in [(p, 32) for p in a.ranks] + [(2, b) for b in a.echo_sizes]:
            if pt not in echo_points:
                echo_points.append(pt)
    etimeout = a.echo_seconds * 4 + 120

    def mpi_echo(p, size):
        if p < 2:
            return None, None, None
        cmd = [a.mpirun, "-np", str(p)] + a.mpirun_flags.split() + [
            a.mpi_echo_bin, "--size", str(size), "--window", str(a.echo_window),
            "--seconds", str(a.echo_seconds), "--exclude-self", "--json"]
        rc, out, err = run(cmd, env, etimeout)
        j = json_line(out, '"tool":"gg_echo"') if rc == 0 else None
        if j is None:
            return cmd, None, (out + err)[-2000:]
        return cmd, dict(mreq_s=j["throughput_mreq_s"], p50_us=j["p50_us"], p99_us=j["p99_us"],
                         p999_us=j["p999_us"]), ""

    def gos_echo(p, size):
        cmd = [ebin, "--seconds", str(a.echo_seconds)]
        cmd += ["--threads", "2"] if p == 1 else ["--ranks", str(p), "--transport", "shm", "--threads", "1"]
        cmd += ["--size", str(size), "--window", str(a.echo_window)]
        rc, out, err = run(cmd, env, etimeout)
        line = next((l for l in out.splitlines() if l.startswith("echo ")), None) if rc == 0 else None
        if line is None:
            return cmd, None, (out + err)[-2000:]
        kv = dict(t.split("=", 1) for t in line.split()[1:] if "=" in t)
        return cmd, dict(mreq_s=float(kv["mops"]), p50_us=float(kv["p50_us"]),
                         p99_us=float(kv["p99_us"]), p999_us=float(kv["p999_us"])), ""

    for rep in range(a.repeats if a.echo else 0):
        for p, size in echo_points:
            order = [("mpi", mpi_echo), ("gossamer", gos_echo)]
            if rep % 2:
                order = order[::-1]
            for name, fn in order:
                cmd, r, tail = fn(p, size)
                if cmd is None:
                    continue
                if r is None:
                    failures.append((name, "echo", f"{size} B", p, rep, " ".join(cmd), tail))
                    print(f"FAILED {name} echo {size} B P={p}: {' '.join(cmd)}\n{tail}", file=sys.stderr)
                    continue
                echo_rows.append(dict(system=name, ranks=p, size=size, window=a.echo_window, repeat=rep,
                                      seconds=a.echo_seconds, **r))
                print(f"rep {rep} {name:8s} echo {size:5d} B P={p}: {r['mreq_s']:.4g} Mreq/s, "
                      f"p50 {r['p50_us']:.3g} us, p99 {r['p99_us']:.3g} us", flush=True)

    csv_path = os.path.join(a.out, "compare.csv")
    with open(csv_path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["system", "kernel", "scale", "ranks", "repeat",
                                          "harmonic_mean_teps", "median_time_s",
                                          "construction_time_s", "nroots"])
        w.writeheader()
        w.writerows(rows)
    written = [csv_path]
    if a.echo:
        ecsv = os.path.join(a.out, "compare_echo.csv")
        with open(ecsv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=["system", "ranks", "size", "window", "repeat", "seconds",
                                              "mreq_s", "p50_us", "p99_us", "p999_us"])
            w.writeheader()
            w.writerows(echo_rows)
        written.append(ecsv)

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
          f"process). SSSP delta: {a.delta if a.delta is not None else 'each system default (Gossamer 0.001, MPI 0.1)'}.",
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
    def esel(name, p, size, key):
        return [r[key] for r in echo_rows if r["system"] == name and r["ranks"] == p and r["size"] == size]

    if a.echo:
        md += ["## Echo", "",
               f"Each request carries SIZE bytes to a uniformly random *other* rank/worker; "
               f"{a.echo_window} requests in flight per rank; {a.echo_seconds:g} s per run; "
               f"median over {a.repeats} repeat(s) [min–max] of the total throughput (all ranks), "
               f"and medians of the per-run latency percentiles. MPI: `gg_echo` (P processes, "
               f"batched non-blocking point-to-point, shared memory only: {a.mpirun_flags}). "
               f"Gossamer: the `echo` example, P processes with 1 worker each over the shm transport "
               f"(P = 1: one process with 2 workers; MPI has no P = 1 point).",
               "",
               "| P | size B | MPI Mreq/s | Gossamer Mreq/s | Gossamer / MPI | MPI p50 / p99 / p99.9 us "
               "| Gossamer p50 / p99 / p99.9 us |",
               "|---:|---:|---:|---:|---:|---:|---:|"]
        for p, size in echo_points:
            cm, mm = cell(esel("mpi", p, size, "mreq_s"))
            cg, mg = cell(esel("gossamer", p, size, "mreq_s"))
            lat = lambda n: " / ".join(f"{statistics.median(v):.3g}" if v else "—"
                                       for v in (esel(n, p, size, k) for k in ("p50_us", "p99_us", "p999_us")))
            md.append(f"| {p} | {size} | {cm} | {cg} | " + (f"{mg / mm:.2f}" if mm and mg else "—")
                      + f" | {lat('mpi')} | {lat('gossamer')} |")
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
            fig.tight_layout(rect=(0, 0.06, 1, 1))
            stamp.stamp(fig, a.out, "results/mpi/compare.py")
            png = os.path.join(a.out, f"compare_{kernel}.png")
            fig.savefig(png, dpi=110)
            plt.close(fig)
            plots.append(png)
        if a.echo and echo_rows:
            fig, axes = plt.subplots(1, 2, figsize=(10, 4))
            panels = [(axes[0], [(p, 32) for p in a.ranks], 0, "ranks P (size 32 B)", "throughput vs ranks"),
                      (axes[1], [(2, b) for b in a.echo_sizes], 1, "request size, bytes (P = 2)",
                       "throughput vs request size")]
            for ax, pts, xi, xlabel, title in panels:
                for name, marker, color in [("mpi", "o", "C0"), ("gossamer", "s", "C1")]:
                    xs, meds = [], []
                    for pt in pts:
                        vals = esel(name, pt[0], pt[1], "mreq_s")
                        ax.scatter([pt[xi]] * len(vals), vals, marker=marker, alpha=0.35, s=14, color=color)
                        if vals:
                            xs.append(pt[xi])
                            meds.append(statistics.median(vals))
                    ax.plot(xs, meds, marker=marker, color=color, label=f"{name} (median)")
                ax.set_xlabel(xlabel)
                ax.set_ylabel("Mreq/s (all ranks)")
                ax.set_yscale("log")
                if xi == 1:
                    ax.set_xscale("log", base=2)
                ax.set_xticks([pt[xi] for pt in pts])
                ax.set_xticklabels([str(pt[xi]) for pt in pts])
                ax.set_title(f"echo: {title}, window {a.echo_window}")
                ax.legend(fontsize=8)
            fig.tight_layout(rect=(0, 0.06, 1, 1))
            stamp.stamp(fig, a.out, "results/mpi/compare.py")
            png = os.path.join(a.out, "compare_echo.png")
            fig.savefig(png, dpi=110)
            plt.close(fig)
            plots.append(png)
        md += ["## Plots", ""] + [f"![{os.path.basename(p)}]({os.path.basename(p)})" for p in plots] + [""]
    except ImportError:
        print("compare.py: matplotlib not installed: no plots written", file=sys.stderr)

    md_path = os.path.join(a.out, "compare.md")
    with open(md_path, "w") as f:
        f.write("\n".join(md))
    print("wrote " + ", ".join(written + [md_path] + plots))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
