#!/usr/bin/env python3
"""Summarizes run.sh's times.csv (and load.csv beside it) as Markdown.

    summarize.py WORKDIR/times.csv

Per SCALE and kernel: median [min-max] kernel time of ours and of GAPBS
over every timed call (bfs/sssp: every root of every round; bc: one call =
the 4 sources, GAPBS's four trial times summed), ours/GAPBS of the medians,
and the largest peak RSS seen. For bfs/sssp also the median MTEPS per root
(the traversed-edge count our kernel reports for that root, the same count
for both sides, over each side's time).
"""
import csv
import os
import statistics
import sys
from collections import defaultdict

ORDER = ["bfs", "sssp", "cc", "pr", "bc", "tc"]


def fmt(x):
    return f"{x:.4f}" if x < 10 else f"{x:.2f}"


def main():
    path = sys.argv[1]
    times, rss, teps, rounds = defaultdict(list), defaultdict(int), defaultdict(list), defaultdict(set)
    for r in csv.DictReader(open(path)):
        key = (int(r["scale"]), r["kernel"], r["tool"])
        t = float(r["time_s"])
        times[key].append(t)
        rss[key] = max(rss[key], int(r["rss_kib"]))
        rounds[key].add(r["round"])
        if r["traversed_edges"]:
            teps[key].append(int(r["traversed_edges"]) / t / 1e6)
    warm = {}
    wpath = os.path.join(os.path.dirname(path), "warm.csv")
    if os.path.exists(wpath):
        per = defaultdict(list)
        for r in csv.DictReader(open(wpath)):
            if r["tool"] == "gapbs" and r["trial"] != "1":
                per[(int(r["scale"]), r["kernel"], r["root"])].append(float(r["time_s"]))
        sums = defaultdict(float)
        for (s, k, root), v in per.items():
            if k == "bc1":
                sums[(s, "bc")] += statistics.median(v)
        for (s, k, root), v in per.items():
            if k != "bc1":
                warm.setdefault((s, k), []).extend(v)
        warm = {key: statistics.median(v) for key, v in warm.items()}
        warm.update(sums)
    wh = " GAPBS warm: median of trials 2+ s | ours / GAPBS warm |" if warm else ""
    print("| kernel | SCALE | calls (rounds) | ours: median [min-max] s | GAPBS: median [min-max] s "
          "| ours / GAPBS | MTEPS median, ours / GAPBS | peak RSS MiB, ours / GAPBS |" + wh)
    print("|---|---:|---:|---:|---:|---:|---:|---:|" + ("---:|---:|" if warm else ""))
    scales = sorted({k[0] for k in times})
    for k in ORDER:
        for s in scales:
            o, g = times.get((s, k, "ours")), times.get((s, k, "gapbs"))
            if not o or not g:
                continue
            mo, mg = statistics.median(o), statistics.median(g)
            tp = ""
            if teps[(s, k, "ours")]:
                tp = f"{statistics.median(teps[(s, k, 'ours')]):.1f} / {statistics.median(teps[(s, k, 'gapbs')]):.1f}"
            n = min(len(o), len(g))
            nr = min(len(rounds[(s, k, "ours")]), len(rounds[(s, k, "gapbs")]))
            print(f"| {k} | {s} | {n} ({nr}) | {fmt(mo)} [{fmt(min(o))}-{fmt(max(o))}] "
                  f"| {fmt(mg)} [{fmt(min(g))}-{fmt(max(g))}] | {mo / mg:.2f}x | {tp} "
                  f"| {rss[(s, k, 'ours')] / 1024:.0f} / {rss[(s, k, 'gapbs')] / 1024:.0f} |"
                  + (f" {fmt(warm[(s, k)])} | {mo / warm[(s, k)]:.2f}x |" if (s, k) in warm else (" | |" if warm else "")))
    # bfs/sssp per root: the roots differ in depth and reach (ours and GAPBS
    # do not find the same roots hard), so a median over all calls can mix
    # two clusters; per root, and the sum of the per-root medians, say more.
    per = defaultdict(list)
    for r in csv.DictReader(open(path)):
        if r["root"]:
            per[(int(r["scale"]), r["kernel"], r["root"], r["tool"])].append(float(r["time_s"]))
    wroot = defaultdict(list)
    if os.path.exists(wpath):
        for r in csv.DictReader(open(wpath)):
            if r["tool"] == "gapbs" and r["trial"] != "1" and r["kernel"] in ("bfs", "sssp"):
                wroot[(int(r["scale"]), r["kernel"], r["root"])].append(float(r["time_s"]))
    print("\n| kernel | SCALE | root | ours median s | GAPBS median s | ours / GAPBS | GAPBS warm median s | ours / GAPBS warm |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for k in ORDER:
        for s in scales:
            roots = sorted({key[2] for key in per if key[0] == s and key[1] == k}, key=int)
            so = sg = sw = 0.0
            for root in roots:
                o, g = per.get((s, k, root, "ours")), per.get((s, k, root, "gapbs"))
                if o and g:
                    mo, mg = statistics.median(o), statistics.median(g)
                    w = wroot.get((s, k, root))
                    mw = statistics.median(w) if w else float("nan")
                    so, sg, sw = so + mo, sg + mg, sw + mw
                    print(f"| {k} | {s} | {root} | {fmt(mo)} | {fmt(mg)} | {mo / mg:.2f}x | {fmt(mw)} | {mo / mw:.2f}x |")
            if roots:
                print(f"| {k} | {s} | **sum of the {len(roots)}** | {fmt(so)} | {fmt(sg)} | **{so / sg:.2f}x** | {fmt(sw)} | **{so / sw:.2f}x** |")
    load = os.path.join(os.path.dirname(path), "load.csv")
    if os.path.exists(load):
        rows = list(csv.DictReader(open(load)))
        if rows:
            l1 = [float(r["load1"]) for r in rows]
            print(f"\n1-minute load before the {len(rows)} batches: {min(l1):.2f}-{max(l1):.2f} "
                  f"(median {statistics.median(l1):.2f}), {rows[0]['utc']}-{rows[-1]['utc']} UTC")


if __name__ == "__main__":
    main()
