#!/usr/bin/env python3
"""Medians and ranges of overhead.sh's output (read from stdin or files):
per kernel and scale and build, over the runs: the median of the runs'
harmonic-mean TEPS, of their median search time and of their fastest
search time, each with its range; then new/base of those medians."""
import fileinput
import statistics
from collections import defaultdict

FIELDS = [("harmonic-mean TEPS", 4), ("median search s", 5), ("fastest search s", 6)]
runs = defaultdict(list)
for line in fileinput.input():
    f = line.split()
    if len(f) < 8 or f[0] == "kernel":
        continue
    runs[(f[0], f[1], f[2])].append([float(x) for x in f[4:7]])
for kernel, scale in sorted({(k, s) for k, s, _ in runs}):
    med = {}
    for build in ("base", "new"):
        rs = runs.get((kernel, scale, build), [])
        if not rs:
            continue
        parts = []
        for name, i in FIELDS:
            col = [r[i - 4] for r in rs]
            m = statistics.median(col)
            med[(build, name)] = m
            parts.append(f"{name} {m:.4g} ({min(col):.4g}..{max(col):.4g})")
        print(f"{kernel} SCALE {scale} {build} ({len(rs)} runs): " + "; ".join(parts))
    if all((b, FIELDS[0][0]) in med for b in ("base", "new")):
        print(f"{kernel} SCALE {scale} new/base: " + "; ".join(
            f"{name} {med[('new', name)] / med[('base', name)]:.3f}" for name, _ in FIELDS))
