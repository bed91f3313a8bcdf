#!/usr/bin/env python3
"""The network-condition table from netcond.sh's output: per condition and
kernel, the median harmonic-mean TEPS (range), the median as a share of the
clean link's (and, for the latency runs, of the proxy's without a toxic),
the median whole-run seconds (range), and whether every run's answers
equalled one process's.

usage: python3 results/rack/netcond_table.py RAW...
"""
import statistics
import sys

ORDER = ["clean", "loss1", "loss5", "rate100", "proxy", "latency20"]
WHAT = {
    "clean": "bare veth link",
    "loss1": "1% loss each way (nftables)",
    "loss5": "5% loss each way (nftables)",
    "rate100": "100 Mbit/s each way (tc tbf)",
    "proxy": "through Toxiproxy, no toxic",
    "latency20": "through Toxiproxy, +20 ms +- 5 ms each way",
}

runs = {}
for path in sys.argv[1:]:
    for line in open(path):
        f = line.split()
        if len(f) != 6 or f[0] == "condition":
            continue
        cond, kernel, _round, secs, teps, same = f
        runs.setdefault((cond, kernel), []).append(
            (float(secs), float(teps) if teps != "-" else None, same)
        )


def fmt_teps(t):
    if t >= 1e9:
        return "%.2f G" % (t / 1e9)
    if t >= 1e6:
        return "%.1f M" % (t / 1e6)
    return "%.0f k" % (t / 1e3)


print("| condition | kernel | runs | TEPS, median (range) | of clean | seconds, median (range) | answers as one process |")
print("| --- | --- | ---: | ---: | ---: | ---: | --- |")
for kernel in ["sssp", "bfs"]:
    clean = [t for _, t, _ in runs.get(("clean", kernel), []) if t]
    base = statistics.median(clean) if clean else None
    for cond in ORDER:
        rs = runs.get((cond, kernel))
        if not rs:
            continue
        teps = [t for _, t, _ in rs if t]
        secs = [s for s, _, _ in rs]
        same = [s for _, _, s in rs]
        ok = "all %d" % len(rs) if all(s == "yes" for s in same) else ", ".join(same)
        if teps:
            m = statistics.median(teps)
            t = "%s (%s-%s)" % (fmt_teps(m), fmt_teps(min(teps)), fmt_teps(max(teps)))
            rel = "%.3g%%" % (100 * m / base) if base else "-"
            proxy = [t for _, t, _ in runs.get(("proxy", kernel), []) if t]
            if cond == "latency20" and proxy:
                rel += " (%.3g%% of the proxy's)" % (100 * m / statistics.median(proxy))
        else:
            t, rel = "-", "-"
        s = "%.1f (%.1f-%.1f)" % (statistics.median(secs), min(secs), max(secs))
        print("| %s | %s | %d | %s | %s | %s | %s |" % (WHAT[cond], kernel, len(rs), t, rel, s, ok))
