#!/usr/bin/env python3
"""Markdown table of results/echo/large.csv (or the csv given): median [min-max]
per point. A second argument labels the "before" column (default: 1 KiB slots)."""
import csv, os, statistics as st, sys
name = sys.argv[1] if len(sys.argv) > 1 else "large.csv"
before = sys.argv[2] if len(sys.argv) > 2 else "1 KiB slots"
rows = list(csv.DictReader(open(os.path.join(os.path.dirname(__file__), os.path.basename(name)))))
pts = {}
for r in rows:
    pts.setdefault((r["transport"], int(r["size"])), {}).setdefault(r["system"], []).append(r)
def cell(rs, k):
    v = [float(r[k]) for r in rs]
    return f"{st.median(v):.3g} [{min(v):.3g}–{max(v):.3g}]"
print(f"| transport | size B | before Mreq/s ({before}) | after Mreq/s (rack default) | MPI Mreq/s | after / MPI | p50 us before / after / MPI |")
print("|---|---:|---:|---:|---:|---:|---:|")
for (t, s), d in sorted(pts.items()):
    med = {k: st.median(float(r["mreq_s"]) for r in v) for k, v in d.items()}
    p50 = " / ".join(f"{st.median(float(r['p50_us']) for r in d[k]):.3g}" for k in ("before", "after", "mpi"))
    print(f"| {t} | {s} | {cell(d['before'], 'mreq_s')} | {cell(d['after'], 'mreq_s')} | "
          f"{cell(d['mpi'], 'mreq_s')} | {med['after'] / med['mpi']:.2f} | {p50} |")
print(f"\n{len(rows)} runs, {len(rows) // (3 * len(pts))} repeats per system and point.")
