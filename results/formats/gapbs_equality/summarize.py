#!/usr/bin/env python3
"""Medians and ranges of run.sh's times.csv, as a Markdown table.

    summarize.py times.csv
"""
import csv
import statistics
import sys
from collections import defaultdict


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    times = defaultdict(list)
    order = []
    with open(sys.argv[1]) as f:
        for row in csv.DictReader(f):
            key = (row["graph"], row["kernel"], row["tool"])
            if key not in times:
                order.append(key)
            times[key].append(float(row["time_s"]))
    print("| graph | kernel | tool | runs | median s | range s |")
    print("|---|---|---|---:|---:|---|")
    for key in order:
        t = times[key]
        print(
            f"| {key[0]} | {key[1]} | {key[2]} | {len(t)} | {statistics.median(t):.6f} "
            f"| {min(t):.6f}-{max(t):.6f} |"
        )


if __name__ == "__main__":
    main()
