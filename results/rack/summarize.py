#!/usr/bin/env python3
"""Summarizes results/rack/run.sh output: medians and ranges per (binary,
SCALE, kernel, shape), as a markdown table, and a plot of peak RSS per rank
against the rank count.

usage: python3 results/rack/summarize.py RAW.txt... [--plot OUT.png]

The plot carries the line of made.txt beside OUT.png (results/stamp.py).
Python 3 with matplotlib for the plot (pip install matplotlib).
"""
import os
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import stamp  # noqa: E402


def load(paths):
    rows = []
    for path in paths:
        for line in open(path):
            f = line.split()
            if len(f) != 10 or f[0] == "binary":
                continue
            name, scale, kernel, shape, _round, gen, constr, teps, mx, per_rank = f
            rows.append(dict(binary=name, scale=int(scale), kernel=kernel, shape=shape,
                             gen=float(gen), constr=float(constr), teps=float(teps),
                             max_mib=int(mx),
                             per_rank=[int(x) for x in per_rank.split(",")] if per_rank != "-" else None))
    return rows


def med_range(xs, fmt):
    return "%s (%s-%s)" % (fmt(statistics.median(xs)), fmt(min(xs)), fmt(max(xs)))


def table(rows):
    groups = defaultdict(list)
    for r in rows:
        groups[(r["scale"], r["kernel"], r["shape"], r["binary"])].append(r)
    out = ["| SCALE | kernel | shape | binary | generation + construction s | harmonic mean TEPS | largest process MiB | peak MiB per rank (median) |",
           "| ---: | --- | --- | --- | ---: | ---: | ---: | --- |"]
    for key in sorted(groups, key=lambda k: (k[0], k[1], ["1x2", "2x1", "4x1"].index(k[2]), k[3])):
        rs = groups[key]
        build = [r["gen"] + r["constr"] for r in rs]
        teps = [r["teps"] / 1e6 for r in rs]
        mx = [r["max_mib"] for r in rs]
        if rs[0]["per_rank"]:
            ranks = len(rs[0]["per_rank"])
            per = ",".join(str(int(statistics.median(r["per_rank"][i] for r in rs))) for i in range(ranks))
        else:
            per = "-"
        out.append("| %d | %s | %s | %s | %s | %s M | %s | %s |" % (
            key[0], key[1], key[2], key[3], med_range(build, lambda x: "%.2f" % x),
            med_range(teps, lambda x: "%.0f" % x), int(statistics.median(mx)), per))
    return "\n".join(out)


def plot(rows, path):
    """Peak RSS of the largest rank against the rank count, SSSP: one line
    per SCALE (and per binary, when the runs compared several), the legend
    outside the axes so it covers no line."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    binaries = sorted({r["binary"] for r in rows})
    styles = ["-", "--", ":", "-."]
    for scale in sorted({r["scale"] for r in rows}):
        for binary, style in zip(binaries, styles):
            pts = defaultdict(list)
            for r in rows:
                if r["scale"] != scale or r["binary"] != binary or r["kernel"] != "sssp":
                    continue
                ranks = int(r["shape"].split("x")[0])
                pts[ranks].append(max(r["per_rank"]) if r["per_rank"] else r["max_mib"])
            if not pts:
                continue
            xs = sorted(pts)
            ys = [statistics.median(pts[x]) for x in xs]
            name = "SCALE %d" % scale + ("" if len(binaries) == 1 else ", " + binary)
            ax.plot(xs, ys, style, marker="o", label=name)
            for x, y in zip(xs, ys):
                ax.annotate("%d" % y, (x, y), textcoords="offset points", xytext=(4, 4), fontsize=7)
    ax.set_xlabel("ranks on this host (1 x 2 threads, 2 x 1, 4 x 1)")
    ax.set_ylabel("peak RSS of the largest rank, MiB (sssp)")
    ax.set_yscale("log")
    ax.set_xticks(sorted({int(r["shape"].split("x")[0]) for r in rows}))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    stamp.stamp(fig, os.path.dirname(os.path.abspath(path)), "results/rack/run.sh")
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    args = sys.argv[1:]
    out_png = None
    if "--plot" in args:
        i = args.index("--plot")
        out_png = args[i + 1]
        del args[i:i + 2]
    rows = load(args)
    print(table(rows))
    if out_png:
        plot(rows, out_png)
