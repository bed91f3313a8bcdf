#!/usr/bin/env python3
"""Summarise results/side-by-side/runs.csv (written by run.sh): medians and
min-max per system and SCALE as a markdown table (summary.md) and TEPS
against SCALE as a plot (teps.png). Python 3 standard library plus matplotlib.

    python3 results/side-by-side/summarize.py
"""
import csv
import statistics
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import stamp  # noqa: E402  (results/stamp.py: the line on the figure)


def load(path):
    rows = defaultdict(list)
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            key = (r["system"], int(r["ranks"]), int(r["threads"]), int(r["scale"]))
            rows[key].append(r)
    return rows


def spread(values, scale=1.0, fmt="{:.1f}"):
    xs = sorted(float(v) / scale for v in values)
    med = statistics.median(xs)
    return med, f"{fmt.format(med)} ({fmt.format(xs[0])}-{fmt.format(xs[-1])})"


def label(system, ranks, threads):
    if system == "reference":
        return f"reference, {ranks} MPI rank{'s' if ranks > 1 else ''}"
    return f"gossamer-graph, {threads} threads"


def main():
    rows = load(HERE / "runs.csv")
    scales = sorted({k[3] for k in rows})
    systems = sorted({k[:3] for k in rows}, key=lambda s: (s[0] != "gossamer-graph", s[1]))
    lines = [
        "| SCALE | system | runs | BFS MTEPS | SSSP MTEPS | generation s | construction s | load |",
        "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    medians = defaultdict(dict)
    for s in scales:
        for sys_ in systems:
            rs = rows.get(sys_ + (s,))
            if not rs:
                continue
            bfs_m, bfs = spread([r["bfs_hmean_teps"] for r in rs], 1e6)
            sssp_m, sssp = spread([r["sssp_hmean_teps"] for r in rs], 1e6)
            _, gen = spread([r["graph_generation_s"] for r in rs], fmt="{:.3g}")
            _, con = spread([r["construction_s"] for r in rs], fmt="{:.3g}")
            _, load_ = spread([r["load1"] for r in rs], fmt="{:.2f}")
            medians[sys_][s] = (bfs_m, sssp_m)
            lines.append(f"| {s} | {label(*sys_)} | {len(rs)} | {bfs} | {sssp} | {gen} | {con} | {load_} |")
    lines.append("")
    lines.append("Ratios of medians, gossamer-graph over the better reference configuration:")
    lines.append("")
    lines.append("| SCALE | BFS | SSSP |")
    lines.append("| ---: | ---: | ---: |")
    ours = [k for k in medians if k[0] == "gossamer-graph"]
    refs = [k for k in medians if k[0] == "reference"]
    for s in scales:
        if not ours or s not in medians[ours[0]]:
            continue
        o = medians[ours[0]][s]
        best_b = max((medians[r][s][0] for r in refs if s in medians[r]), default=None)
        best_s = max((medians[r][s][1] for r in refs if s in medians[r]), default=None)
        if best_b and best_s:
            lines.append(f"| {s} | {o[0] / best_b:.1f}x | {o[1] / best_s:.1f}x |")
    (HERE / "summary.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))

    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: pip install matplotlib (table written, no plot)", file=sys.stderr)
        return
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, idx, name in ((axes[0], 0, "BFS"), (axes[1], 1, "SSSP")):
        for sys_, by_scale in medians.items():
            xs = sorted(by_scale)
            ax.plot(xs, [by_scale[x][idx] for x in xs], marker="o", label=label(*sys_))
        ax.set_title(f"{name}: harmonic-mean TEPS (median of runs)")
        ax.set_xlabel("SCALE")
        ax.set_ylabel("MTEPS")
        ax.set_yscale("log")
        ax.set_xticks(scales)
        ax.grid(True, which="both", alpha=0.3)
    # One legend for both panels, above them: inside, it covered a line.
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=len(labels), fontsize=8)
    fig.tight_layout(rect=(0, 0.05, 1, 0.93))
    stamp.stamp(fig, HERE, "results/side-by-side/run.sh")
    fig.savefig(HERE / "teps.png", dpi=110)


if __name__ == "__main__":
    main()
