#!/usr/bin/env python3
"""The markdown tables of bench.py's CSV: per graph, kernel and setting, the
median seconds per search (bfs, sssp) or per run (cc, pr) of GAPBS and of
ours in each shape, with the range of the rounds' medians in brackets, ours
over GAPBS (time: below 1 is faster), 2x1 over 1x2 speed, and the peak RSS.

    summarize.py OUT.csv"""
import csv, statistics, sys
from collections import defaultdict

rows = list(csv.DictReader(open(sys.argv[1])))
cell = defaultdict(list)          # (graph, kernel, setting, program/shape) -> [(round, s)]
rss = defaultdict(int)
for r in rows:
    who = "GAPBS" if r["program"] == "gapbs" else "ours " + r["shape"]
    key = (r["graph"], r["kernel"], r["setting"], who)
    cell[key].append((r["round"], float(r["seconds"])))
    rss[key] = max(rss[key], int(r["peak_rss_kib"]))


def med(key):
    v = cell.get(key)
    if not v:
        return None, None
    by_round = defaultdict(list)
    for rd, s in v:
        by_round[rd].append(s)
    meds = [statistics.median(x) for x in by_round.values()]
    return statistics.median(s for _, s in v), (min(meds), max(meds))


shapes = sorted({k[3] for k in cell if k[3] != "GAPBS"})
for graph in sorted({k[0] for k in cell}):
    print(f"\n### {graph}\n")
    head = ["kernel", "setting", "GAPBS"] + shapes + [f"{s} / GAPBS" for s in shapes]
    if len(shapes) == 2:
        head.append(f"{shapes[1]} speed / {shapes[0]}")
    head.append("peak RSS MB (GAPBS / " + " / ".join(shapes) + ")")
    print("| " + " | ".join(head) + " |")
    print("|" + " --- |" * len(head))
    combos = sorted({(k[1], k[2]) for k in cell if k[0] == graph},
                    key=lambda c: (["bfs", "sssp", "cc", "pr"].index(c[0]),
                                   float(c[1]) if c[1] != "default" else 1e30))
    for kernel, setting in combos:
        def show(who):
            m, rg = med((graph, kernel, setting, who))
            return "" if m is None else f"{m:.4f} [{rg[0]:.4f}-{rg[1]:.4f}]"
        g, _ = med((graph, kernel, setting, "GAPBS"))
        line = [kernel, setting, show("GAPBS")] + [show(s) for s in shapes]
        ours = [med((graph, kernel, setting, s))[0] for s in shapes]
        line += ["" if (o is None or g is None) else f"{o / g:.2f}x" for o in ours]
        if len(shapes) == 2:
            line.append("" if None in ours else f"{ours[0] / ours[1]:.2f}")
        line.append(" / ".join(str(round(rss[(graph, kernel, setting, w)] / 1024))
                               if rss.get((graph, kernel, setting, w)) else "-"
                               for w in ["GAPBS"] + shapes))
        print("| " + " | ".join(line) + " |")
