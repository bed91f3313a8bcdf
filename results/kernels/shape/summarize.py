#!/usr/bin/env python3
"""Markdown table of ab.py's CSV: per scale, shape and kernel, each build's
median [min-max] (bfs/sssp: harmonic-mean MTEPS; others: kernel ms), its
median peak RSS per rank (MiB), and the speed of each build after the first
relative to the first (TEPS ratio, or time ratio first/this: above 1 is
faster). usage: summarize.py OUT.csv [FIRST_LABEL]"""
import csv, statistics, sys
from collections import defaultdict

rows = list(csv.DictReader(open(sys.argv[1])))
labels = []
for r in rows:
    if r["binary"] not in labels:
        labels.append(r["binary"])
if len(sys.argv) > 2:
    labels.remove(sys.argv[2]); labels.insert(0, sys.argv[2])
cells = defaultdict(list)
rss = defaultdict(list)
for r in rows:
    k = (int(r["scale"]), r["shape"], r["kernel"], r["binary"])
    cells[k].append(float(r["metric"]))
    rss[k].append(int(r["peak_rss_kib"]))
keys = sorted({k[:3] for k in cells}, key=lambda k: (k[2], k[0], k[1]))
head = ["kernel", "SCALE", "ranks x threads", "calls"]
for l in labels:
    head.append(f"{l}: median [range]")
for l in labels[1:]:
    head.append(f"{l} / {labels[0]} speed")
head.append("peak RSS MiB " + " / ".join(labels))
print("| " + " | ".join(head) + " |")
print("|" + "---|" * 3 + "---:|" * (len(head) - 3))
def show(kernel, v):
    if kernel in ("bfs", "sssp"):
        return f"{v / 1e6:.1f}"
    return f"{v * 1e3:.1f}"
for s, shape, kernel in keys:
    unit = "MTEPS" if kernel in ("bfs", "sssp") else "ms"
    line = [kernel, str(s), shape.replace("x", " x "), str(len(cells[(s, shape, kernel, labels[0])]))]
    meds = {}
    for l in labels:
        v = cells.get((s, shape, kernel, l), [])
        if not v:
            line.append("-"); continue
        meds[l] = statistics.median(v)
        line.append(f"{show(kernel, meds[l])} [{show(kernel, min(v))}-{show(kernel, max(v))}] {unit}")
    for l in labels[1:]:
        if l in meds and labels[0] in meds:
            ratio = meds[l] / meds[labels[0]] if kernel in ("bfs", "sssp") else meds[labels[0]] / meds[l]
            line.append(f"{ratio:.2f}x")
        else:
            line.append("-")
    line.append(" / ".join(f"{statistics.median(rss[(s, shape, kernel, l)]) / 1024:.0f}" for l in labels if rss.get((s, shape, kernel, l))))
    print("| " + " | ".join(line) + " |")
