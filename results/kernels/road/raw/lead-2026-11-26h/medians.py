#!/usr/bin/env python3
"""The eighth session's lead table (road.md): per call the median over its
roots, then the median and range over calls, from the bench.py CSVs beside
this script (files named disturbed* are left out: see road.md)."""
import collections, csv, glob, os, statistics as st

here = os.path.dirname(os.path.abspath(__file__))
d = collections.defaultdict(lambda: collections.defaultdict(list))
for f in glob.glob(os.path.join(here, "*.csv")):
    if os.path.basename(f).startswith("disturbed"):
        continue
    for r in csv.DictReader(open(f)):
        key = (r["graph"], r["kernel"], r["setting"], r["program"], r["shape"])
        d[key][f].append(float(r["seconds"]))


def cell(*key):
    ms = sorted(st.median(v) for v in d[key].values())
    if not ms:
        return "-"
    return f"{st.median(ms):.4f} [{ms[0]:.4f}-{ms[-1]:.4f}]" if len(ms) > 1 else f"{ms[0]:.4f}"


print("| grid | kernel | GAPBS, 2 threads | ours 1 x 2 | ours 2 x 1 |")
print("| --- | --- | ---: | ---: | ---: |")
for g in ["g2048_2048-s", "g2048_2048-d", "g1024_4096-s", "g1024_4096-d"]:
    for k, s in [("bfs", "default"), ("sssp", "500"), ("sssp", "2000"), ("sssp", "default"),
                 ("cc", "default"), ("pr", "default")]:
        name = {"bfs": "BFS", "sssp": "SSSP", "cc": "cc", "pr": "PageRank"}[k]
        if k == "sssp":
            name += " derived Δ" if s == "default" else f" Δ {s}"
        print(f"| {g} | {name} | {cell(g, k, s, 'gapbs', '2 threads')} | "
              f"{cell(g, k, s, 'ours', '1x2')} | {cell(g, k, s, 'ours', '2x1')} |")
