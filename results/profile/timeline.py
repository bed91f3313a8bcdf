#!/usr/bin/env python3
"""Draws one search's timeline from a `gossamer-graph ... --trace FILE` file
(Chrome trace-event JSON): one row per trustee of every rank, coloured by
activity (delegated work, own fibers, collective wait, idle polling), with
each trustee's share of the search's time, and the command and date of the
run on the picture.

Needs matplotlib (`pip install matplotlib`; 3.11 was used here).

Usage:
  results/profile/timeline.py TRACE.json OUT.png [--search N]

N picks the N-th labelled search (1-based, default 1: e.g. the region
"sssp search 1 (root 1834)"); the whole trace is drawn if it has no region.
"""
import argparse
import json
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

COLOURS = {
    "delegated": "#1f77b4",
    "fiber": "#2ca02c",
    "collective": "#ff7f0e",
    "idle": "#d9d9d9",
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trace")
    ap.add_argument("out")
    ap.add_argument("--search", type=int, default=1)
    a = ap.parse_args()

    with open(a.trace) as f:
        trace = json.load(f)
    events = trace["traceEvents"]
    meta = trace.get("otherData", {})
    names = {}
    for e in events:
        if e["ph"] == "M" and e["name"] == "thread_name":
            names[(e["pid"], e["tid"])] = e["args"]["name"]
    regions = [e for e in events if e.get("cat") == "region"]
    regions.sort(key=lambda e: e["ts"])
    if regions:
        r = regions[min(a.search, len(regions)) - 1]
        t0, t1, label = r["ts"], r["ts"] + r["dur"], r["name"]
    else:
        acts = [e for e in events if e.get("cat") == "activity"]
        t0 = min(e["ts"] for e in acts)
        t1 = max(e["ts"] + e["dur"] for e in acts)
        label = "whole run"

    # Per trustee track: (start, length) bars per activity, clipped to the window.
    bars = defaultdict(lambda: defaultdict(list))
    totals = defaultdict(lambda: defaultdict(float))
    for e in events:
        if e.get("cat") != "activity":
            continue
        s, d = e["ts"], e["dur"]
        lo, hi = max(s, t0), min(s + d, t1)
        if hi <= lo:
            continue
        key = (e["pid"], e["tid"])
        bars[key][e["name"]].append(((lo - t0) / 1e3, (hi - lo) / 1e3))
        totals[key][e["name"]] += hi - lo
    tracks = sorted(bars)
    span_ms = (t1 - t0) / 1e3

    fig, ax = plt.subplots(figsize=(12, 1.2 + 0.9 * len(tracks)))
    for row, key in enumerate(tracks):
        y = len(tracks) - 1 - row
        for act, colour in COLOURS.items():
            if bars[key][act]:
                ax.broken_barh(bars[key][act], (y - 0.4, 0.8), facecolors=colour, linewidth=0)
    ticks = []
    for key in tracks:
        share = totals[key]
        whole = t1 - t0
        busy = 100 * (share["delegated"] + share["fiber"]) / whole
        coll = 100 * share["collective"] / whole
        idle = 100 * share["idle"] / whole
        ticks.append(
            f"rank {key[0]} {names.get(key, 'tid %d' % key[1])}\n"
            f"busy {busy:.0f}%  coll {coll:.0f}%  idle {idle:.0f}%"
        )
    ax.set_yticks(range(len(tracks)))
    ax.set_yticklabels(list(reversed(ticks)), fontsize=8)
    ax.set_xlim(0, span_ms)
    ax.set_xlabel(f"ms since the start of {label}")
    ax.legend(
        handles=[Patch(color=c, label=n) for n, c in COLOURS.items()],
        loc="upper center",
        bbox_to_anchor=(0.5, -0.35 if len(tracks) < 3 else -0.15),
        ncol=4,
        fontsize=8,
        frameon=False,
    )
    cmd = meta.get("command", "?")
    # The binary's path says little; keep its name.
    parts = cmd.split(" ", 1)
    cmd = parts[0].rsplit("/", 1)[-1] + (" " + parts[1] if len(parts) > 1 else "")
    ax.set_title(
        f"{label}: {span_ms:.1f} ms, {meta.get('ranks', '?')} rank(s) x "
        f"{meta.get('threads', '?')} thread(s)\n{cmd}\n{meta.get('date', '')}",
        fontsize=9,
    )
    fig.tight_layout()
    fig.savefig(a.out, dpi=110, bbox_inches="tight")
    print(f"wrote {a.out}: {label}, {span_ms:.1f} ms, {len(tracks)} trustees")


if __name__ == "__main__":
    main()
