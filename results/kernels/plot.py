#!/usr/bin/env python3
"""TEPS versus SCALE: our SSSP and BFS kernels next to the Graph500 reference.

Reads results/kernels/kernels.csv (columns: scale, kernel, threads, roots,
harmonic_mean_teps, median_time_s; one row per measured configuration) and
writes results/kernels/teps.png. For each kernel, one line per thread count.
The reference's numbers (harmonic-mean TEPS, 2 MPI ranks on this machine kind,
from the issue) are drawn dashed.

Usage: python3 results/kernels/plot.py [CSV] [PNG]
       python3 results/kernels/plot.py --check   (self-test on made-up rows, writes nothing)
"""

import csv
import os
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))

# Reference harmonic-mean TEPS (MTEPS) at SCALE 16, 18, 20, 22.
REFERENCE = {
    "bfs": {16: 155.0, 18: 94.9, 20: 67.1, 22: 56.6},
    "sssp": {16: 37.0, 18: 37.3, 20: 24.4, 22: 20.5},
}
COLORS = {"bfs": "tab:blue", "sssp": "tab:orange"}
REQUIRED = ["scale", "kernel", "threads", "roots", "harmonic_mean_teps", "median_time_s"]


def read_rows(path):
    """Rows of the CSV as dicts with typed values; errors name the bad line."""
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        missing = [c for c in REQUIRED if c not in (reader.fieldnames or [])]
        if missing:
            raise SystemExit(f"{path}: missing column(s) {', '.join(missing)}; expected {', '.join(REQUIRED)}")
        rows = []
        for n, r in enumerate(reader, start=2):
            try:
                rows.append({
                    "scale": int(r["scale"]),
                    "kernel": r["kernel"].strip().lower(),
                    "threads": int(r["threads"]),
                    "roots": int(r["roots"]),
                    "teps": float(r["harmonic_mean_teps"]),
                    "median_time_s": float(r["median_time_s"]),
                })
            except (TypeError, ValueError) as e:
                raise SystemExit(f"{path}:{n}: bad row {r}: {e}")
    return rows


def series(rows):
    """{(kernel, threads): [(scale, MTEPS), ...] sorted by scale}."""
    out = defaultdict(list)
    for r in rows:
        out[(r["kernel"], r["threads"])].append((r["scale"], r["teps"] / 1e6))
    return {k: sorted(v) for k, v in out.items()}


def plot(rows, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9.5, 4.5))
    markers = ["o", "s", "^", "D", "v", "P"]
    threads_seen = sorted({t for (_, t) in series(rows)})
    for (kernel, threads), pts in sorted(series(rows).items()):
        xs, ys = zip(*pts)
        m = markers[threads_seen.index(threads) % len(markers)]
        ax.plot(xs, ys, marker=m, color=COLORS.get(kernel, "gray"),
                label=f"gossamer-graph {kernel}, {threads} thread(s)")
    for kernel, pts in REFERENCE.items():
        xs, ys = zip(*sorted(pts.items()))
        ax.plot(xs, ys, linestyle="--", marker="x", color=COLORS[kernel],
                label=f"reference {kernel}, 2 MPI ranks")
    ax.set_xlabel("SCALE (2^SCALE vertices, edgefactor 16)")
    ax.set_ylabel("harmonic-mean TEPS (millions)")
    ax.set_yscale("log")
    from matplotlib.ticker import FuncFormatter
    plain = FuncFormatter(lambda y, _: f"{y:g}")
    ax.yaxis.set_major_formatter(plain)
    ax.yaxis.set_minor_formatter(plain)
    ax.tick_params(axis="y", which="minor", labelsize=7)
    ax.set_xticks(sorted({r["scale"] for r in rows} | {16, 18, 20, 22}))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.set_title("Graph500 kernels: gossamer-graph vs the reference")
    fig.tight_layout()
    fig.savefig(png, dpi=120)
    plt.close(fig)


def check():
    """Self-test of the parsing and grouping on made-up rows (no file written)."""
    import tempfile
    text = ("scale,kernel,threads,roots,harmonic_mean_teps,median_time_s\n"
            "18,sssp,2,64,2.0e7,0.4\n16,sssp,2,64,3.0e7,0.1\n16,BFS,1,64,1.0e8,0.02\n")
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "k.csv")
        with open(p, "w") as f:
            f.write(text)
        s = series(read_rows(p))
        assert s[("sssp", 2)] == [(16, 30.0), (18, 20.0)], s
        assert s[("bfs", 1)] == [(16, 100.0)], s
        with open(p, "w") as f:
            f.write("scale,kernel\n16,bfs\n")
        try:
            read_rows(p)
        except SystemExit as e:
            assert "missing column" in str(e), e
        else:
            raise AssertionError("a CSV without the TEPS column must be refused")
    print("plot.py self-check passed")


def main(argv):
    if argv[1:2] == ["--check"]:
        check()
        return
    csv_path = argv[1] if len(argv) > 1 else os.path.join(HERE, "kernels.csv")
    png = argv[2] if len(argv) > 2 else os.path.join(HERE, "teps.png")
    if not os.path.exists(csv_path):
        raise SystemExit(f"{csv_path} does not exist yet: the kernel measurements write it")
    rows = read_rows(csv_path)
    if not rows:
        raise SystemExit(f"{csv_path} has no rows")
    plot(rows, png)
    print(f"wrote {png}")


if __name__ == "__main__":
    main(sys.argv)
